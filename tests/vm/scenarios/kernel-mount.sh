#!/bin/bash
# stalefs.ko: mount, basic namespace and data, umount/remount, state flags.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s

note "mkfs and mount"
"$MKFS_STALEFS" -q -F "$dev"
mkdir -p $mnt
mount -t stalefs "$dev" $mnt
grep " $mnt " /proc/mounts
df -k $mnt
ls -la $mnt

note "create, write, read back"
echo hello >$mnt/file
assert_eq hello "$(cat $mnt/file)"
mkdir $mnt/dir
echo inside >$mnt/dir/f2
dd if=/dev/urandom of=$VM_SCRATCH/rand bs=1k count=3000 status=none
cp $VM_SCRATCH/rand $mnt/dir/big
cmp $VM_SCRATCH/rand $mnt/dir/big
drop_caches
cmp $VM_SCRATCH/rand $mnt/dir/big
assert_eq hello "$(cat $mnt/file)"
filefrag -v $mnt/dir/big || true
ls -la $mnt $mnt/dir

note "umount and mount again"
umount $mnt
mount -t stalefs "$dev" $mnt
cmp $VM_SCRATCH/rand $mnt/dir/big
assert_eq inside "$(cat $mnt/dir/f2)"
assert_eq hello "$(cat $mnt/file)"
umount $mnt
dmesg | grep -i stalefs || true
fsck_clean "$dev"
echo "kernel-mount passed"
