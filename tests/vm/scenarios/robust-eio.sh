#!/bin/bash
# Device errors (issue 8, part 3), with stalefs on device-mapper: reads and
# writes that the device fails reach the caller as EIO (buffered, direct,
# fsync); a metadata read error follows errors= (remount-ro turns the mount
# read-only, continue carries on); a bad region fails only what lies in it;
# and what was written and synced before is intact afterwards (checksums
# taken before, compared after the faulty table is gone and fsck repaired
# what the failed writes left).
# needs: stalefs
# needs: dm-flakey
# disk: scratch:64M
# timeout: 600
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
dm=/dev/mapper/stalefs-fault
mnt=/mnt/f
mkdir -p $mnt
sectors=$(blockdev --getsz "$dev")
need_module dm-mod

# table TABLE: swap the device's table in place (I/O in flight finishes
# first).  --nolockfs: no freeze, whose sync would fail on the faulty table.
table() {
	dmsetup suspend --nolockfs stalefs-fault
	dmsetup load stalefs-fault --table "$1"
	dmsetup resume stalefs-fault
}
linear="0 $sectors linear $dev 0"
errors="0 $sectors error"
# Writes fail, reads work (dm-flakey always down, error_writes).
bad_writes="0 $sectors flakey $dev 0 0 1 1 error_writes"

# old_intact: the files written before any fault, byte for byte.
old_intact() {
	local now
	now=$(cd $mnt && md5sum $olds)
	assert_eq "$sums" "$now" "checksums of the data written before the faults"
}

# repaired: after a faulty stretch, fsck repairs what failed writes left and
# the recorded error; the second run must be clean.
repaired() {
	local rc=0
	# A write-back the faulty table failed (the superblock's error record)
	# is still unreported on the device, and the first fsync of whoever
	# opens it next would get it: take it here, so fsck's own writes are
	# judged alone.
	sync "$dm" 2>/dev/null || true
	"$FSCK_STALEFS" -fy "$dm" >"$VM_SCRATCH/fsck.out" 2>&1 || rc=$?
	((rc <= 3)) || { cat "$VM_SCRATCH/fsck.out"; fail "fsck -fy exited $rc"; }
	fsck_clean "$dm"
}

note "old data, synced, checksummed"
"$MKFS_STALEFS" -q -F -b 4096 "$dev"
dmsetup create stalefs-fault --table "$linear"
mount -t stalefs $dm $mnt
xfs_io -f -c "pwrite -q -S 0x61 0 1m" $mnt/old1
xfs_io -f -c "pwrite -q -S 0x62 0 256k" $mnt/old2
mkdir $mnt/dir
for i in 1 2 3 4 5; do echo "file $i" >$mnt/dir/f$i; done
sync
olds="old1 old2 dir/f1 dir/f2 dir/f3 dir/f4 dir/f5"
sums=$(cd $mnt && md5sum $olds)
umount $mnt

note "the whole device fails, errors=continue: EIO, and the mount goes on"
mount -t stalefs -o errors=continue $dm $mnt
drop_caches
table "$errors"
assert_errno EIO cat $mnt/old1
assert_errno EIO xfs_io -d -c "pread -q 0 4k" $mnt/old2
assert_errno EIO ls $mnt/dir
grep -q " $mnt stalefs rw," /proc/mounts || fail "errors=continue: the mount is no longer read-write"
table "$linear"
old_intact
echo more >$mnt/dir/after-continue
sync
umount $mnt
repaired

note "a metadata read error with errors=remount-ro: read-only from then on"
mount -t stalefs -o errors=remount-ro $dm $mnt
drop_caches
table "$errors"
assert_errno EIO ls $mnt/dir
table "$linear"
grep -q " $mnt stalefs ro," /proc/mounts || fail "errors=remount-ro: the mount is still read-write"
assert_errno EROFS touch $mnt/new
old_intact
umount $mnt
repaired

note "writes fail: write-back errors reach fsync as EIO; the old data stays"
mount -t stalefs -o errors=continue $dm $mnt
table "$bad_writes"
assert_errno EIO xfs_io -f -c "pwrite -q -S 0x63 0 512k" -c fsync $mnt/new1
assert_errno EIO xfs_io -f -d -c "pwrite -q -S 0x64 0 64k" $mnt/new2
mkdir $mnt/newdir 2>/dev/null || true
mv $mnt/dir/f1 $mnt/newdir/ 2>/dev/null || true
assert_errno EIO sync -f $mnt
table "$linear"
umount $mnt
repaired
mount -t stalefs $dm $mnt
# The rename may or may not have reached the disk; either way f1 is intact.
[[ -e $mnt/dir/f1 ]] || { mkdir -p $mnt/dir && mv $mnt/newdir/f1 $mnt/dir/; }
old_intact
umount $mnt

note "a bad region: only the file inside it fails"
mount -t stalefs $dm $mnt
blk=$(filefrag -v $mnt/old2 | awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 }')
[[ $blk =~ ^[0-9]+$ ]] || fail "no physical block for old2 in filefrag's output"
umount $mnt
s=$((blk * 8))
table "0 $s linear $dev 0
$s 64 error
$((s + 64)) $((sectors - s - 64)) linear $dev $((s + 64))"
mount -t stalefs -o errors=remount-ro $dm $mnt
assert_errno EIO cat $mnt/old2
cmp -s $mnt/old1 <(head -c 1M /dev/zero | tr '\0' a) || fail "old1 does not read back outside the bad region"
grep -q " $mnt stalefs rw," /proc/mounts || fail "a data read error made the mount read-only"
umount $mnt
table "$linear"
mount -t stalefs $dm $mnt
old_intact
umount $mnt
fsck_clean $dm
dmsetup remove stalefs-fault
note "robust-eio passed"
