#!/bin/bash
# The soak version of robust-powercut-cache on stalefs: every workload
# recorded twice (two workload seeds), each cut right after every mark, at
# every flush (its cached group kept or lost at random) and at random
# points: 700-800 cut points, at least 500 (the scenario fails below
# PCC_MIN_POINTS).
# needs: stalefs
# needs: dm-log-writes
# disk: pcdata:32M:1q
# disk: pclog:1G
# timeout: 10000
export PCC_FS=${PCC_FS:-stalefs}
export PCC_ROUNDS=${PCC_ROUNDS:-2}
export PCC_MARKS_MAX=${PCC_MARKS_MAX:-0}	# every mark
export PCC_FLUSH_MAX=${PCC_FLUSH_MAX:-0}	# every flush
export PCC_FLUSH_SEEDS=${PCC_FLUSH_SEEDS:-1}
export PCC_RANDOM=${PCC_RANDOM:-10}
export PCC_SEED=${PCC_SEED:-7}
export PCC_MIN_POINTS=${PCC_MIN_POINTS:-500}
export PCC_SAVE_MAX=${PCC_SAVE_MAX:-20}
exec bash "$STALEFS_ROOT/tests/vm/scenarios/robust-powercut-cache.sh"
