#!/bin/bash
# The reference run of robust-powercut-cache: the same workloads, cut
# points and checks on ext4 (mkfs.ext4, mount -t ext4, e2fsck -fn), minus
# the NO_HIDE_STALE part.  ext4 must pass at every cut: a failure here
# means the model or the checker is wrong, not the file system.
# needs: dm-log-writes
# disk: pcdata:32M:1q
# disk: pclog:1G
# timeout: 1800
export PCC_FS=ext4
exec bash "$STALEFS_ROOT/tests/vm/scenarios/robust-powercut-cache.sh"
