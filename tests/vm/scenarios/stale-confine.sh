#!/bin/bash
# Confinement: while a file holds STALE extents, chown to another owner,
# chgrp to another group and chmod o+r fail with EPERM for root and owner
# alike, armed or not, across a remount; keeping the owner and gid, the
# permitted gid and modes without bits for others pass.
# The STALE marks go when their blocks are punched, truncated away,
# zero-ranged or rewritten as a whole extent (buffered or direct) - then the
# file may escape; a partial punch, truncate, zero or write keeps them.
# needs: stalefs
# disk: scratch:64M
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/tests/vm/stale-lib.sh"

fresh_fs -G $G
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
# stale_file NAME: 64 KiB (16 blocks) of STALE extent, confined, by a member.
stale_file() {
	new_file $mnt/$1 $MEMBER $G 0660
	expect_ok as_member $STALE_IOCTL falloc 0 65536 $mnt/$1
	assert_eq "size=65536 pattern=16 zero=0 other=0" "$(read_summary buffered $mnt/$1)" "$1 is stale"
}
# escapes NAME: chgrp and chmod o+r are allowed (and undone again).
escapes() {
	local p=$mnt/$1
	assert_ok chgrp $MEMBER $p
	assert_ok chmod o+r $p
	assert_eq "$MEMBER 664" "$(stat -c '%g %a' $p)" "$1 escaped"
	chgrp $G $p
	chmod o-r $p
}
# confined NAME: chgrp and chmod o+r are refused, root and owner alike.
confined() {
	local p=$mnt/$1
	assert_errno EPERM chgrp $MEMBER $p
	assert_errno EPERM chown 0:0 $p
	assert_errno EPERM chmod o+r $p
	assert_errno EPERM chmod 0644 $p
	assert_errno EPERM as_member chmod o+r $p
	assert_errno EPERM as_member chgrp $MEMBER $p
	assert_eq "$G 660" "$(stat -c '%g %a' $p)" "$1 unchanged"
}

# still_confined NAME: the two escapes, refused (the full set is tried on f).
still_confined() {
	assert_errno EPERM chgrp $MEMBER $mnt/$1
	assert_errno EPERM chmod o+r $mnt/$1
}

for n in f p t z w d part; do stale_file $n; done

note "armed: refused; harmless changes pass"
confined f
assert_errno EPERM chown 0 $mnt/f
assert_errno EPERM chown $OTHER $mnt/f
assert_ok chown $MEMBER:$G $mnt/f
assert_ok chgrp $G $mnt/f
assert_ok chmod 0640 $mnt/f
assert_ok chmod 0660 $mnt/f
assert_ok as_member chmod g-w $mnt/f
assert_ok as_member chmod g+w $mnt/f
assert_eq "$MEMBER $G 660" "$(stat -c '%u %g %a' $mnt/f)" "after harmless changes"

note "disarmed (remount without the option): still refused"
remount defaults
grep -q nohide_stale_gid /proc/mounts && fail "still armed"
confined f
note "and after a fresh mount, from the inode flag and extents on disk"
umount $mnt
assert_eq 0x1 "$(inode_flags f)" "f carries the STALE flag on disk"
mount -t stalefs "$dev" $mnt
drop_caches
confined f

note "partial punch, truncate, zero range and write keep the marks"
xfs_io -c "fpunch 0 32k" $mnt/part
still_confined part
truncate -s 49152 $mnt/part
still_confined part
xfs_io -c "fzero 32k 4k" $mnt/part
still_confined part
xfs_io -c "pwrite -q -S 0x55 36k 4k" $mnt/part
still_confined part
assert_eq "size=49152 pattern=2 zero=9 other=1" "$(read_summary buffered $mnt/part)" "part: punched and zeroed read zeros, 10-11 still stale"

note "punching all stale blocks lifts the confinement"
xfs_io -c "fpunch 0 32k" -c "fpunch 32k 32k" $mnt/p
escapes p
note "truncating them away"
truncate -s 4096 $mnt/t
still_confined t
truncate -s 0 $mnt/t
escapes t
note "zero range over all of them (they turn unwritten and read zeros)"
xfs_io -c "fzero 0 64k" $mnt/z
assert_eq "size=65536 pattern=0 zero=16 other=0" "$(read_summary buffered $mnt/z)" "zeroed"
assert_eq 1 "$(unwritten_extents $mnt/z)" "zeroed blocks are unwritten"
escapes z
note "rewriting the whole extent in one write: buffered, then direct"
as_member xfs_io -c "pwrite -q -S 0x66 -b 64k 0 64k" $mnt/w
escapes w
as_member xfs_io -d -c "pwrite -q -S 0x77 -b 64k 0 64k" $mnt/d
escapes d
drop_caches
python3 - $mnt/w $mnt/d <<'PY'
import sys
assert open(sys.argv[1], "rb").read() == b"\x66" * 65536, "buffered rewrite"
assert open(sys.argv[2], "rb").read() == b"\x77" * 65536, "direct rewrite"
print("rewritten data reads back")
PY
note "an escaped file may not get new stale blocks"
chmod o+r $mnt/w
remount nohide_stale_gid=$G
expect_errno EPERM as_member $STALE_IOCTL falloc 0 4096 $mnt/w
umount $mnt

note "offline: flags and the audit agree"
"$DEBUGFS_STALEFS" -R lsstale "$dev"
for n in p t z w d; do
	assert_eq 0x0 "$(inode_flags $n)" "$n flags"
	assert_eq none "$(lsstale_row $n)" "$n not stale"
done
assert_eq 0x1 "$(inode_flags f)" "f flags"
assert_eq "16 yes" "$(lsstale_row f)" "f still stale"
assert_eq "3 yes" "$(lsstale_row part)" "part: blocks 9-11 stay one STALE extent (0-7 punched, 8 zeroed, 12+ truncated; 9 rewritten but not the whole extent)"
fsck_clean "$dev"

note "turning it off (docs/nohide-stale.md): a remount without the option disarms"
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
# mount(8) re-passes the current options for a bare "-o remount DIR"...
mount -o remount $mnt
grep -q " $mnt stalefs [^ ]*nohide_stale_gid=$G" /proc/mounts || fail "mount -o remount DIR did not keep the option"
# ... but not when the device is named too: then only what is given.
mount -o remount "$dev" $mnt
grep " $mnt " /proc/mounts
grep -q " $mnt stalefs [^ ]*nohide_stale_gid" /proc/mounts && fail "mount -o remount DEV DIR kept the mount armed"
expect_errno EOPNOTSUPP as_member $STALE_IOCTL falloc 0 4096 $mnt/f
mount -o remount,nohide_stale_gid=$G $mnt
grep -q " $mnt stalefs [^ ]*nohide_stale_gid=$G" /proc/mounts || fail "mount -o remount,nohide_stale_gid= did not arm"
note "... then the exposure removed and the group forgotten offline"
xfs_io -c "fpunch 0 64k" $mnt/f
xfs_io -c "fzero 0 48k" $mnt/part
umount $mnt
assert_eq "" "$("$DEBUGFS_STALEFS" -R lsstale "$dev" 2>/dev/null | sed 1d | grep -v '^0 file(s)' || true)" "lsstale lists nothing"
"$DEBUGFS_STALEFS" -w -R "ssv stale_gid 0xffffffff" "$dev"
"$DEBUGFS_STALEFS" -w -R "ssv feature_ro_compat -nohide_stale" "$dev"
fsck_clean "$dev"
mount -t stalefs -o nohide_stale_gid=4243 "$dev" $mnt
assert_eq "stale_gid=4243 armed=1" "$($STALE_IOCTL info $mnt/f)" "a new group recorded"
umount $mnt
fsck_clean "$dev"
