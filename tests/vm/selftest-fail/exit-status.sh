#!/bin/bash
# Must be reported "FAIL exit-status (exit status 3)".  On the way out it
# leaves a mounted and frozen filesystem, a loop device and junk on its
# disk behind (frozen: unmounted without a thaw, the filesystem would stay
# alive and its disk busy);
# the scenario after it (harness-selftest) proves the runner cleaned up.
# disk: scratch:1G
. "$STALEFS_ROOT/tests/vm/lib.sh"
mkfs.ext4 -q -F "$VM_DISK_SCRATCH"
mkdir -p /mnt/left
mount "$VM_DISK_SCRATCH" /mnt/left
fsfreeze -f /mnt/left
truncate -s 16M "$VM_SCRATCH/img"
losetup -f "$VM_SCRATCH/img"
sleep 1000 &    # a stray background process, killed with the scenario
echo "failing on purpose"
exit 3
