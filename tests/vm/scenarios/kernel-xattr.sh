#!/bin/bash
# stalefs.ko extended attributes: user., trusted., security. set, read,
# listed and removed through the system calls, with ext4's answers for
# CREATE/REPLACE, ERANGE, ENODATA, E2BIG, ENOSPC (xattr-check.py); kept
# across remounts and cache drops; in the inode (-I 512/1024) and in a block
# (256-byte inodes), with and without a journal; the block counted in
# st_blocks and freed when emptied or when the file goes; read by debugfs
# and written by it for the kernel; a damaged block answered with EUCLEAN;
# EOPNOTSUPP on an image without the xattr feature; chattr +i/+a/+A;
# fsync'd changes kept by a shutdown without log flush, later ones gone.
# needs: stalefs
# disk: scratch:128M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
mkdir -p $mnt

free_blocks() {
	"$DEBUGFS_STALEFS" -R stats "$dev" 2>/dev/null | sed -n 's/^Free blocks: *//p' | head -n1
}

# File ACL (the xattr block) of a path, as debugfs reads it from the image.
xattr_block() {
	"$DEBUGFS_STALEFS" -R "stat $1" "$dev" 2>/dev/null | sed -n 's/^File ACL: //p'
}

round() {
	local what=$1
	shift
	note "round: $what (mkfs $*)"
	"$MKFS_STALEFS" -q -F "$@" "$dev"
	mount -t stalefs -o errors=continue "$dev" $mnt
	mkdir $mnt/c
	python3 "$STALEFS_ROOT/tests/vm/xattr-check.py" $mnt/c

	note "$what: values kept across drop_caches and a remount"
	echo data >$mnt/f
	setfattr -n user.color -v blue $mnt/f
	setfattr -n trusted.overlay.opaque -v y $mnt/f
	setfattr -n security.label -v system_u:object_r:etc_t:s0 $mnt/f
	python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.bin", bytes(range(256)) * 4)' $mnt/f
	drop_caches
	assert_eq blue "$(getfattr --only-values -n user.color $mnt/f)" "user.color after drop_caches"
	umount $mnt
	mount -t stalefs -o errors=continue "$dev" $mnt
	assert_eq "security.label trusted.overlay.opaque user.bin user.color" \
		"$(getfattr -m - --absolute-names $mnt/f | sed 1d | sed -n 's/^\([a-z]\)/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')" \
		"names after remount"
	python3 -c 'import os,sys; assert os.getxattr(sys.argv[1], "user.bin") == bytes(range(256)) * 4, "user.bin"' $mnt/f
	assert_eq y "$(getfattr --only-values -n trusted.overlay.opaque $mnt/f)" "trusted value"
	assert_eq data "$(cat $mnt/f)" "file data beside its attributes"

	note "$what: the block in st_blocks, freed when emptied"
	local bs blocks_with blocks_without
	bs=$(stat -f -c %S $mnt)
	blocks_with=$(stat -c %b $mnt/f)
	setfattr -x user.bin $mnt/f
	setfattr -x user.color $mnt/f
	setfattr -x security.label $mnt/f
	setfattr -x trusted.overlay.opaque $mnt/f
	assert_eq "" "$(getfattr -m - --absolute-names $mnt/f)" "no attributes left"
	blocks_without=$(stat -c %b $mnt/f)
	assert_eq $((bs / 512)) $((blocks_with - blocks_without)) "st_blocks lost the xattr block"
	umount $mnt
	assert_eq 0 "$(xattr_block /f)" "i_xattr_block cleared when the block emptied"
	fsck_clean "$dev"

	note "$what: debugfs reads what the kernel wrote, the kernel what debugfs wrote"
	mount -t stalefs -o errors=continue "$dev" $mnt
	setfattr -n user.k -v from-kernel $mnt/f
	umount $mnt
	"$DEBUGFS_STALEFS" -R "ea_get f user.k" "$dev" | has -x 'from-kernel' ||
		fail "debugfs ea_get does not read the kernel's value"
	"$DEBUGFS_STALEFS" -w -R "ea_set f user.d from-debugfs" "$dev"
	mount -t stalefs -o errors=continue "$dev" $mnt
	assert_eq from-debugfs "$(getfattr --only-values -n user.d $mnt/f)" "kernel reads debugfs's value"

	note "$what: unlinking a file frees its xattr block"
	local before after
	python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.big", b"z" * 3000)' $mnt/f
	umount $mnt
	[[ $(xattr_block /f) != 0 ]] || fail "a 3000-byte value is not in a block"
	before=$(free_blocks)
	mount -t stalefs -o errors=continue "$dev" $mnt
	rm $mnt/f
	umount $mnt
	after=$(free_blocks)
	(( after >= before + 2 )) || fail "rm freed $((after - before)) blocks, want the data and the xattr block"
	fsck_clean "$dev"

	note "$what: a damaged xattr block is EUCLEAN, never trusted"
	mount -t stalefs -o errors=continue "$dev" $mnt
	echo x >$mnt/g
	python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.big", b"z" * 3000)' $mnt/g
	umount $mnt
	local xb
	xb=$(xattr_block /g)
	"$DEBUGFS_STALEFS" -w -R "zap_block -o 40 -l 8 -p 0x55 $xb" "$dev"
	mount -t stalefs -o errors=continue "$dev" $mnt
	assert_errno EUCLEAN getfattr -n user.big $mnt/g
	assert_errno EUCLEAN setfattr -n user.other -v 1 $mnt/g
	dmesg | has "stalefs.*xattr" || fail "no kernel message names the damaged xattr block"
	umount $mnt
}

round "256-byte inodes, attributes in blocks"
round "512-byte inodes" -I 512
round "1024-byte inodes, no journal" -I 1024 -O ^has_journal

note "in-inode attributes stay in the inode (no block)"
"$MKFS_STALEFS" -q -F -I 512 "$dev"
mount -t stalefs "$dev" $mnt
touch $mnt/small
setfattr -n user.s -v short $mnt/small
assert_eq 0 "$(stat -c %b $mnt/small)" "a short value takes no block"
umount $mnt
assert_eq 0 "$(xattr_block /small)" "no xattr block for a short value with 512-byte inodes"
"$DEBUGFS_STALEFS" -R "ea_get small user.s" "$dev" | has -x short || fail "debugfs does not read the in-inode value"
fsck_clean "$dev"

note "a reused inode slot starts without its earlier life's attributes"
mount -t stalefs "$dev" $mnt
ino=$(stat -c %i $mnt/small)
rm $mnt/small
touch $mnt/again
assert_eq "$ino" "$(stat -c %i $mnt/again)" "the slot is reused"
assert_eq "" "$(getfattr -m - --absolute-names $mnt/again)" "no inherited attributes"
umount $mnt
fsck_clean "$dev"

note "no xattr feature: EOPNOTSUPP, and nothing listed"
"$MKFS_STALEFS" -q -F -O ^xattr "$dev"
mount -t stalefs "$dev" $mnt
touch $mnt/n
assert_errno EOPNOTSUPP setfattr -n user.a -v 1 $mnt/n
assert_eq "" "$(getfattr -m - --absolute-names $mnt/n)" "nothing listed"
grep -q " $mnt stalefs .*noacl" /proc/mounts && fail "noacl shown without the feature"
umount $mnt
fsck_clean "$dev"

note "chattr: immutable, append-only, noatime"
"$MKFS_STALEFS" -q -F "$dev"
mount -t stalefs "$dev" $mnt
echo one >$mnt/i
chattr +i $mnt/i
assert_eq "----i" "$(lsattr $mnt/i | cut -c1-5)" "lsattr shows +i"
assert_errno EPERM sh -c "echo two >>$mnt/i"
assert_errno EPERM setfattr -n user.a -v 1 $mnt/i
assert_errno EPERM rm $mnt/i
chattr -i $mnt/i
echo one >$mnt/a
chattr +a $mnt/a
echo two >>$mnt/a
assert_errno EPERM sh -c "echo three >$mnt/a"
assert_eq "one two" "$(tr '\n' ' ' <$mnt/a | sed 's/ $//')" "append-only appends"
chattr -a $mnt/a
touch $mnt/t
chattr +A $mnt/t
before=$(stat -c %X $mnt/t)
sleep 1.1
cat $mnt/t >/dev/null
assert_eq "$before" "$(stat -c %X $mnt/t)" "noatime keeps the access time"
umount $mnt
mount -t stalefs "$dev" $mnt
lsattr $mnt/t | cut -c1-8 | has A || fail "+A lost across a remount"
umount $mnt
fsck_clean "$dev"
note "crash: fsync'd attribute changes survive a shutdown without log flush, later ones are gone"
"$MKFS_STALEFS" -q -F "$dev"
mount -t stalefs -o commit=3600 "$dev" $mnt
touch $mnt/kept $mnt/emptied $mnt/later
sync
python3 - $mnt <<'PY'
import os, sys
d = sys.argv[1]
def fsync(p):
    fd = os.open(p, os.O_RDONLY); os.fsync(fd); os.close(fd)
os.setxattr(d + "/kept", "user.big", b"k" * 3000)
os.setxattr(d + "/kept", "user.small", b"s")
fsync(d + "/kept")
os.setxattr(d + "/emptied", "user.big", b"e" * 3000)
fsync(d + "/emptied")
os.removexattr(d + "/emptied", "user.big")
fsync(d + "/emptied")
os.setxattr(d + "/later", "user.late", b"l" * 3000)
PY
"$STALEFS_BUILD/stale-ioctl" goingdown 2 $mnt >/dev/null || fail "goingdown 2 failed"
umount $mnt
mount -t stalefs "$dev" $mnt
dmesg | has "recovering the journal" || fail "no journal recovery at mount"
python3 -c 'import os,sys; assert os.getxattr(sys.argv[1], "user.big") == b"k" * 3000' $mnt/kept ||
	fail "kept lost its fsync'd block attribute"
assert_eq s "$(getfattr --only-values -n user.small $mnt/kept)" "kept's small attribute"
assert_eq "" "$(getfattr -m - --absolute-names $mnt/emptied)" "emptied stays empty"
assert_eq "" "$(getfattr -m - --absolute-names $mnt/later)" "an attribute set after the last commit is gone"
umount $mnt
assert_eq 0 "$(xattr_block /emptied)" "the emptied inode names no block"
assert_eq 0 "$(xattr_block /later)" "the later inode names no block"
fsck_clean "$dev"
echo "kernel-xattr: all checks passed"
