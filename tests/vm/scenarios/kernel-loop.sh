#!/bin/bash
# stalefs.ko on loop devices inside the guest, at every block size:
# losetup, mkfs.stalefs, mount, use, umount, fsck, detach.  Also the mount
# options: errors=, ro/rw remount, the clean flag, /proc/mounts.
# needs: stalefs
. "$STALEFS_ROOT/tests/vm/lib.sh"
S=$VM_SCRATCH
mnt=/mnt/loop
mkdir -p $mnt
dd if=/dev/urandom of=$S/r bs=1M count=6 status=none

# s_state (u16 at 0x5C of the superblock at byte 1024)
sb_state() { od -An -j $((1024 + 0x5c)) -N2 -tu2 "$1" | tr -d ' '; }

for bs in 1024 2048 4096; do
	note "block size $bs"
	rm -f $S/img
	truncate -s 128M $S/img
	loop=$(losetup -f --show $S/img)
	"$MKFS_STALEFS" -q -F -b $bs "$loop"
	mount -t stalefs -o errors=remount-ro "$loop" $mnt
	grep " $mnt " /proc/mounts | has "errors=remount-ro" || fail "errors= not in /proc/mounts"
	assert_eq 0 "$(( $(sb_state "$loop") & 1 ))" "clean bit cleared while mounted rw"
	cp $S/r $mnt/data
	mkdir -p $mnt/d/e
	for i in $(seq 1 200); do echo $i >$mnt/d/e/f$i; done
	xfs_io -f -c "falloc 0 300k" -c "pwrite -q -S 0x41 5000 7000" -c "fpunch 100000 50000" \
		-c "fzero 200000 30000" $mnt/mix
	xfs_io -f -d -c "pwrite -q -S 0x42 0 64k" $mnt/direct
	python3 - $mnt/mix $S/mix.expect <<'PY'
import sys
d = bytearray(300 * 1024)
d[5000:12000] = b"\x41" * 7000
open(sys.argv[2], "wb").write(d)
assert open(sys.argv[1], "rb").read() == bytes(d), "mix content"
PY
	sync
	mount -o remount,ro $mnt
	assert_eq 1 "$(( $(sb_state "$loop") & 1 ))" "clean bit set on remount ro"
	mount -o remount,rw $mnt
	umount $mnt
	assert_eq 1 "$(( $(sb_state "$loop") & 1 ))" "clean bit set at umount"
	mount -t stalefs -o ro "$loop" $mnt
	cmp $S/r $mnt/data
	cmp $S/mix.expect $mnt/mix
	assert_eq 200 "$(ls $mnt/d/e | wc -l)"
	assert_eq 150 "$(cat $mnt/d/e/f150)"
	assert_eq 65536 "$(tr -d '\0' <$mnt/direct | wc -c)"
	umount $mnt
	fsck_clean "$loop"
	losetup -d "$loop"
done

note "bad mount options"
truncate -s 64M $S/img2
loop=$(losetup -f --show $S/img2)
"$MKFS_STALEFS" -q -F "$loop"
assert_fails mount -t stalefs -o errors=bogus "$loop" $mnt
assert_fails mount -t stalefs -o nosuchoption "$loop" $mnt
mount -t stalefs "$loop" $mnt
umount $mnt
losetup -d "$loop"
echo "kernel-loop passed"
