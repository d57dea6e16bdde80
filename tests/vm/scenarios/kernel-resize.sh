#!/bin/bash
# The loop-image lifecycle (issue 27): FITRIM with ext4's semantics, the
# discard mount option, growing a mounted filesystem while a writer runs
# (losetup -c, resize.stalefs, across the META_BG switch too), shrinking it
# offline to its minimum and back; every step fsck clean, every byte intact,
# and the image file's allocated size following what is used.
# needs: stalefs
# timeout: 600
. "$STALEFS_ROOT/tests/vm/lib.sh"
S=$VM_SCRATCH
mnt=/mnt/rz
IOC=$STALEFS_BUILD/stale-ioctl
RESIZE=$STALEFS_BUILD/resize.stalefs
mkdir -p $mnt

# Allocated KiB of an image file (on tmpfs, a punched hole frees its pages).
alloc_kib() { du -k "$1" | cut -f1; }
# f_blocks of the mounted filesystem, in its blocks.
fs_blocks() { stat -f -c %b $mnt; }

note "FITRIM: what is freed goes back to the image file"
truncate -s 256M $S/img
loop=$(losetup -f --show $S/img)
"$MKFS_STALEFS" -q -F "$loop"
mount -t stalefs "$loop" $mnt
dd if=/dev/urandom of=$S/keep bs=1M count=4 status=none
cp $S/keep $mnt/keep
# Zeros: the image file holds every block written, whatever it holds (urandom is slow under TCG).
for i in 1 2 3; do dd if=/dev/zero of=$mnt/big$i bs=1M count=20 status=none; done
sync
before=$(alloc_kib $S/img)
((before > 60000)) || fail "the image holds only ${before} KiB after writing 64 MiB"
rm $mnt/big*
sync
out=$(fstrim -v $mnt)
echo "$out"
trimmed=$(echo "$out" | sed -n 's/.*(\([0-9]*\) bytes) trimmed.*/\1/p')
[[ -n $trimmed ]] || trimmed=$(echo "$out" | sed -n 's/.*: \([0-9]*\) bytes trimmed.*/\1/p')
((trimmed >= 60 * 1048576)) || fail "fstrim reported $trimmed bytes trimmed, expected at least 60 MiB"
after=$(alloc_kib $S/img)
((after < before - 55000)) || fail "the image still holds $after KiB (was $before) after fstrim"
cmp $S/keep $mnt/keep

note "FITRIM: ranges, minlen, errors (ext4's rules)"
bs=4096
blocks=$(fs_blocks)
assert_eq "errno EINVAL" "$($IOC fitrim $((blocks * bs)) 1048576 0 $mnt || true)" "start past the end"
assert_eq "errno EINVAL" "$($IOC fitrim 0 100 0 $mnt || true)" "len under a block"
assert_eq "errno EINVAL" "$($IOC fitrim 0 $((1 << 40)) $((64 << 30)) $mnt || true)" "minlen over a group"
# A range of the first MiB trims at most that much; past the end is cut to the end.
r=$($IOC fitrim 0 1048576 0 $mnt)
n=${r#ok trimmed=}
((n <= 1048576)) || fail "a 1 MiB range trimmed $n bytes"
r=$($IOC fitrim $(((blocks - 256) * bs)) $((1 << 40)) 0 $mnt)
n=${r#ok trimmed=}
((n <= 256 * bs)) || fail "the last 256 blocks trimmed $n bytes"
# The whole range trims the free space again (no memory of an earlier trim).
r=$($IOC fitrim 0 $((1 << 40)) 0 $mnt)
n=${r#ok trimmed=}
((n >= 60 * 1048576)) || fail "a second full trim found $n bytes"
# minlen: free extents shorter than it are skipped.  1,000 one-block holes
# (bench/vm/holes.c): a minlen of two blocks leaves them, none leaves nothing.
# The last hole is the file's last block: it may join the free space after it.
"$STALEFS_BUILD/holes" $mnt/holes 1000 $bs
sync
two=$($IOC fitrim 0 $((1 << 40)) $((2 * bs)) $mnt)
two=${two#ok trimmed=}
all=$($IOC fitrim 0 $((1 << 40)) 0 $mnt)
all=${all#ok trimmed=}
((all - two >= 999 * bs)) || fail "minlen of two blocks trimmed $two bytes, none $all: the one-block holes were not skipped"
((all - two < 1100 * bs)) || fail "minlen of two blocks trimmed $two bytes, none $all: more than the holes were skipped"
rm $mnt/holes
assert_eq "errno EPERM" "$(as_user 1000 1000 "" $IOC fitrim 0 $((1 << 40)) 0 $mnt || true)" "unprivileged FITRIM"
# Read-only: trimming free space writes no metadata, so it goes on (as ext4); not without recovery.
mount -o remount,ro $mnt
fstrim $mnt
umount $mnt
mount -t stalefs -o ro,norecovery "$loop" $mnt
assert_eq "errno EROFS" "$($IOC fitrim 0 $((1 << 40)) 0 $mnt || true)" "FITRIM without recovery"
umount $mnt
fsck_clean "$loop"

note "discard: freed blocks go back after their commit"
mount -t stalefs -o discard,commit=1 "$loop" $mnt
grep " $mnt " /proc/mounts | grep -q discard || fail "discard not in /proc/mounts"
dd if=/dev/zero of=$mnt/big bs=1M count=32 status=none
sync
before=$(alloc_kib $S/img)
rm $mnt/big
sync
sleep 2
after=$(alloc_kib $S/img)
((after < before - 30000)) || fail "with -o discard the image still holds $after KiB (was $before)"
mount -o remount,nodiscard $mnt
grep " $mnt " /proc/mounts | grep -q discard && fail "nodiscard still shows discard"
cmp $S/keep $mnt/keep
umount $mnt
fsck_clean "$loop"

note "online grow while a writer runs: truncate, losetup -c, resize.stalefs"
mount -t stalefs "$loop" $mnt
old=$(fs_blocks)
mkdir $mnt/w
(
	for i in $(seq 1 30); do
		head -c $((i * 4096 + 123)) /dev/urandom >$mnt/w/f$i
		sync $mnt/w/f$i
	done
) &
writer=$!
truncate -s +1G $S/img
losetup -c "$loop"
assert_eq "errno EINVAL" "$($IOC resize $((old - 1)) $mnt || true)" "online shrink"
assert_eq "errno ENOSPC" "$($IOC resize $((old * 100)) $mnt || true)" "grow past the device"
assert_eq "errno EPERM" "$(as_user 1000 1000 "" $IOC resize $((old + 1000)) $mnt || true)" "unprivileged grow"
"$RESIZE" "$loop"
wait $writer
new=$(fs_blocks)
((new == (256 + 1024) * 256)) || fail "after the grow statfs says $new blocks, expected $(((256 + 1024) * 256))"
df -k $mnt
# The new space is usable: fill past the old size.
dd if=/dev/zero of=$mnt/fill bs=1M count=120 status=none
sync
rm $mnt/fill
(cd $mnt/w && sha256sum f*) >$S/w.sums
cmp $S/keep $mnt/keep
# Read-only refuses.
mount -o remount,ro $mnt
assert_eq "errno EROFS" "$($IOC resize $((new + 1000)) $mnt || true)" "grow read-only"
umount $mnt
fsck_clean "$loop"

note "offline: shrink to the minimum and back"
# As with resize2fs: checked since it was last mounted, or it refuses.
assert_fails "$RESIZE" -M "$loop"
"$FSCK_STALEFS" -fy "$loop"
"$RESIZE" -P "$loop"
"$RESIZE" -M "$loop"
fsck_clean "$loop"
mount -t stalefs -o ro "$loop" $mnt
(cd $mnt/w && sha256sum -c --quiet $S/w.sums)
cmp $S/keep $mnt/keep
umount $mnt
"$RESIZE" "$loop"
fsck_clean "$loop"
mount -t stalefs "$loop" $mnt
assert_eq "$new" "$(fs_blocks)" "size after growing back"
(cd $mnt/w && sha256sum -c --quiet $S/w.sums)
cmp $S/keep $mnt/keep
umount $mnt
losetup -d "$loop"
rm -f $S/img

note "online grow across the descriptor table's end (META_BG), 1 KiB blocks"
truncate -s 32M $S/img
loop=$(losetup -f --show $S/img)
"$MKFS_STALEFS" -q -F -b 1024 "$loop"
mount -t stalefs "$loop" $mnt
cp $S/keep $mnt/keep
truncate -s 1G $S/img
losetup -c "$loop"
"$RESIZE" "$loop" 
assert_eq $((1024 * 1024)) "$(fs_blocks)" "1 KiB blocks after the grow"
dd if=/dev/urandom of=$mnt/late bs=1M count=8 status=none
dd if=/dev/zero of=$mnt/zeros bs=1M count=200 status=none
sync
sha256sum $mnt/late >$S/late.sum
umount $mnt
fsck_clean "$loop"
"$DEBUGFS_STALEFS" -R "stats -h" "$loop" | grep -q "meta_bg" || fail "META_BG not set after the grow"
mount -t stalefs -o ro "$loop" $mnt
sha256sum -c --quiet $S/late.sum
cmp $S/keep $mnt/keep
umount $mnt
losetup -d "$loop"
