#!/bin/bash
# The soak of robust-stress-replay: six recorded runs of four workers at each
# block size, every flush/FUA and fsync-mark cut of each and the
# volatile-cache model at every flush: at least 5,000 cut points, all of
# which must pass (make stress-replay-soak).
# needs: stalefs
# needs: dm-log-writes
# needs: dm-snapshot
# disk: srdata:64M:1q
# disk: srlog:1G
# timeout: 14400
export SR_ROUNDS=${SR_ROUNDS:-6} SR_OPS=${SR_OPS:-30} SR_SEED=${SR_SEED:-7} SR_LIMIT=0 SR_CACHE_LIMIT=0
export SR_MIN_POINTS=${SR_MIN_POINTS:-5000} SR_SAVE_MAX=${SR_SAVE_MAX:-12}
. "$STALEFS_ROOT/tests/vm/scenarios/robust-stress-replay.sh"
