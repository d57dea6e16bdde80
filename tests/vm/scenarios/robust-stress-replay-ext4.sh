#!/bin/bash
# The stress replay of robust-stress-replay.sh on ext4: the reference that
# shows the workload, the replay and the checks are sound (ext4 passes them
# at every cut), without the NO_HIDE_STALE part.
# needs: dm-log-writes
# needs: dm-snapshot
# disk: srdata:64M:1q
# disk: srlog:1G
# timeout: 1800
export SR_FS=ext4
export SR_BLOCK_SIZES=${SR_BLOCK_SIZES:-4096}
export SR_MIN_POINTS=${SR_MIN_POINTS:-80}
. "$STALEFS_ROOT/tests/vm/scenarios/robust-stress-replay.sh"
