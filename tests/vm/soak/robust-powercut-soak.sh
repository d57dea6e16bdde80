#!/bin/bash
# The soak version of robust-powercut: four recorded workloads, every
# flush/FUA point and many seeded random points of each, at least 500
# cut points in all (the scenario fails below PC_MIN_POINTS).
# needs: stalefs
# needs: dm-log-writes
# disk: pcdata:32M:1q
# disk: pclog:1G
# timeout: 10000
export PC_ROUNDS=${PC_ROUNDS:-4}
export PC_FLUSH_MAX=${PC_FLUSH_MAX:-1000}
export PC_RANDOM=${PC_RANDOM:-140}
export PC_SEED=${PC_SEED:-7}
export PC_MIN_POINTS=${PC_MIN_POINTS:-500}
exec bash "$STALEFS_ROOT/tests/vm/scenarios/robust-powercut.sh"
