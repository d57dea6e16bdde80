#!/bin/bash
# The soak version of robust-powercut-cache on stalefs: every workload
# recorded twice (two workload seeds), at each many marks, flush points
# with two subsets of the cache each, and random points: at least 500
# cut points in all (the scenario fails below PCC_MIN_POINTS).
# needs: stalefs
# needs: dm-log-writes
# disk: pcdata:32M
# disk: pclog:1G
# timeout: 10000
export PCC_FS=${PCC_FS:-stalefs}
export PCC_ROUNDS=${PCC_ROUNDS:-2}
export PCC_MARKS_MAX=${PCC_MARKS_MAX:-12}
export PCC_FLUSH_MAX=${PCC_FLUSH_MAX:-20}
export PCC_FLUSH_SEEDS=${PCC_FLUSH_SEEDS:-2}
export PCC_RANDOM=${PCC_RANDOM:-8}
export PCC_SEED=${PCC_SEED:-7}
export PCC_MIN_POINTS=${PCC_MIN_POINTS:-500}
export PCC_SAVE_MAX=${PCC_SAVE_MAX:-20}
exec bash "$STALEFS_ROOT/tests/vm/scenarios/robust-powercut-cache.sh"
