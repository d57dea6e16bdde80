#!/bin/bash
# Proves the VM harness itself works: disks, ext4, loop, the repo through
# the 9p root, an unprivileged user, results and scratch dirs.
# disk: scratch:1G
# disk: second:64M
. "$STALEFS_ROOT/tests/vm/lib.sh"

note "environment"
env | grep -E '^(VM_|STALEFS_)' | sort
[[ -b $VM_DISK_SCRATCH ]] || fail "no scratch disk ($VM_DISK_SCRATCH)"
[[ -b $VM_DISK_SECOND ]] || fail "no second disk ($VM_DISK_SECOND)"
assert_eq "$((1 << 30))" "$(blockdev --getsize64 "$VM_DISK_SCRATCH")" "scratch size"
assert_eq "$((64 << 20))" "$(blockdev --getsize64 "$VM_DISK_SECOND")" "second size"
assert_eq "$VM_KVER" "$(uname -r)" "kernel version"

note "the repo is visible, read-only"
[[ -f $STALEFS_ROOT/tests/vm/run-vm ]] || fail "STALEFS_ROOT $STALEFS_ROOT not visible"
assert_errno EROFS touch "$STALEFS_ROOT/vm-should-not-write"

note "disks start zeroed (a previous scenario in the same VM may have used them)"
cmp -n 16M "$VM_DISK_SCRATCH" /dev/zero || fail "scratch disk not zeroed"
[[ -z $(blkid -p "$VM_DISK_SCRATCH") ]] || fail "scratch disk still has a signature: $(blkid -p "$VM_DISK_SCRATCH")"

note "ext4 on a virtio disk (module autoloaded from the 9p root)"
mkfs.ext4 -q -F "$VM_DISK_SCRATCH"
mkdir -p /mnt/scratch
mount "$VM_DISK_SCRATCH" /mnt/scratch
echo hello >/mnt/scratch/file
drop_caches
assert_eq hello "$(cat /mnt/scratch/file)" "file content after drop_caches"
umount /mnt/scratch

note "loop device on a tmpfs file"
truncate -s 64M "$VM_SCRATCH/loop.img"
dev=$(losetup -f --show "$VM_SCRATCH/loop.img")
mkfs.ext4 -q "$dev"
mkdir -p /mnt/loop
mount "$dev" /mnt/loop
echo looped >/mnt/loop/f
umount /mnt/loop
losetup -d "$dev"

note "dm and xfs modules from the host's /lib/modules"
need_module dm-flakey
need_module xfs
# The ext4 made above, seen through a dm-linear device.
sz=$(blockdev --getsz "$VM_DISK_SCRATCH")
dmsetup create vmtest --table "0 $sz linear $VM_DISK_SCRATCH 0"
mount /dev/mapper/vmtest /mnt/scratch
assert_eq hello "$(cat /mnt/scratch/file)" "file content through dm"
xfs_io -f -c 'pwrite -q 0 1m' -c fsync /mnt/scratch/data
filefrag /mnt/scratch/data
umount /mnt/scratch
dmsetup remove vmtest

note "unprivileged user"
mkdir -m 700 /mnt/private
assert_eq "1000 1000 2000" "$(as_user 1000 1000 2000 sh -c 'echo $(id -u) $(id -G)')" "uid and groups"
assert_errno EACCES as_user 1000 1000 "" ls /mnt/private

note "results dir"
echo ok >"$VM_RESULTS/selftest.txt"
echo "harness self-test passed"
