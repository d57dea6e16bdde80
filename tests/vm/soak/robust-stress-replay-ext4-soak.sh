#!/bin/bash
# The soak of the stress replay on ext4, the reference: as
# robust-stress-replay-soak.sh at 4 KiB blocks (at least 2,000 cut points).
# needs: dm-log-writes
# needs: dm-snapshot
# disk: srdata:64M:1q
# disk: srlog:1G
# timeout: 14400
export SR_FS=ext4 SR_BLOCK_SIZES=4096 SR_ROUNDS=${SR_ROUNDS:-5} SR_OPS=${SR_OPS:-30} SR_SEED=${SR_SEED:-7}
export SR_LIMIT=0 SR_CACHE_LIMIT=0 SR_MIN_POINTS=${SR_MIN_POINTS:-2000} SR_SAVE_MAX=${SR_SAVE_MAX:-12}
. "$STALEFS_ROOT/tests/vm/scenarios/robust-stress-replay.sh"
