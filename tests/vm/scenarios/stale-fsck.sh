#!/bin/bash
# Files holding STALE extents made to escape offline (debugfs sif of the gid,
# of the mode, of both): fsck.stalefs -fn reports them and changes nothing,
# -fy re-confines them without losing a byte (the old contents and written
# data read back, the kernel keeps them confined), the second run is clean;
# -E hide_stale instead turns the escaped file's stale blocks UNWRITTEN, so
# they read zeros.  Needs build/fsck.stalefs: without it this fails.
# needs: stalefs
# disk: scratch:64M
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/tests/vm/stale-lib.sh"

fresh_fs
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
for n in eg em eb hide ok; do
	new_file $mnt/$n $MEMBER $G 0660
	expect_ok as_member $STALE_IOCTL falloc 0 65536 $mnt/$n
done
as_member xfs_io -c "pwrite -q -S 0x11 4k 4k" -c fsync $mnt/eg
declare -A ino
for n in eg em eb hide ok; do ino[$n]=$(stat -c %i $mnt/$n); done
umount $mnt
fsck_clean "$dev"

note "escape offline: eg by gid, em by mode, eb by both"
"$DEBUGFS_STALEFS" -w -f - "$dev" <<EOT
sif eg gid $MEMBER
sif em mode 0100664
sif eb gid 0
sif eb mode 0100644
EOT
"$DEBUGFS_STALEFS" -R lsstale "$dev"
assert_eq "16 NO" "$(lsstale_row eg)" "eg escaped"
assert_eq "16 NO" "$(lsstale_row em)" "em escaped"
assert_eq "16 NO" "$(lsstale_row eb)" "eb escaped"

note "fsck -fn reports every escape and writes nothing"
img_sum=$(sha1sum <"$dev")
rc=0; out=$("$FSCK_STALEFS" -fn "$dev") || rc=$?
echo "$out"
assert_eq 4 "$rc" "fsck -fn exit status (errors left uncorrected)"
[[ $out == *"inode ${ino[eg]} holds 16 stale-exposed block(s) but belongs to group $MEMBER, not the permitted group $G"* ]] ||
	fail "fsck -n does not report eg's gid"
[[ $out == *"inode ${ino[em]} holds stale-exposed blocks and others have permissions on it (mode 0100664)"* ]] ||
	fail "fsck -n does not report em's mode"
[[ $out == *"inode ${ino[eb]} holds 16 stale-exposed block(s) but belongs to group 0"* ]] ||
	fail "fsck -n does not report eb's gid"
[[ $out == *"3 files NOT confined"* ]] || fail "fsck -n's audit line does not count 3 escapes"
assert_eq "$img_sum" "$(sha1sum <"$dev")" "the device after fsck -n"

note "fsck -fy re-confines; the second run is clean"
rc=0; out=$("$FSCK_STALEFS" -fy "$dev") || rc=$?
echo "$out"
assert_eq 1 "$rc" "fsck -fy exit status (errors corrected)"
[[ $out == *"stale audit: 5 files, 80 blocks stale-exposed to group $G"* ]] || fail "audit line after repair"
[[ $out == *"NOT confined"* ]] && fail "still not confined after -y"
rc=0; out=$("$FSCK_STALEFS" -fy "$dev") || rc=$?
echo "$out"
assert_eq 0 "$rc" "second fsck -fy"
fsck_clean "$dev"
for n in eg em eb; do assert_eq "16 yes" "$(lsstale_row $n)" "$n re-confined"; done

note "nothing was lost, and the kernel keeps them confined"
mount -t stalefs "$dev" $mnt
assert_eq "$G 660" "$(stat -c '%g %a' $mnt/eg)" "eg"
assert_eq "$G 660" "$(stat -c '%g %a' $mnt/em)" "em"
assert_eq "$G 640" "$(stat -c '%g %a' $mnt/eb)" "eb (o+r taken, the rest kept)"
assert_eq "size=65536 pattern=15 zero=0 other=1" "$(read_summary buffered $mnt/eg)" "eg data"
assert_eq "size=65536 pattern=16 zero=0 other=0" "$(read_summary buffered $mnt/em)" "em data"
assert_eq "size=65536 pattern=16 zero=0 other=0" "$(read_summary buffered $mnt/eb)" "eb data"
assert_errno EPERM chgrp $MEMBER $mnt/eg
assert_errno EPERM chmod o+r $mnt/em
umount $mnt

note "-E hide_stale: the escaped file's stale blocks become unwritten"
"$DEBUGFS_STALEFS" -w -R "sif hide gid $MEMBER" "$dev"
rc=0; out=$("$FSCK_STALEFS" -fy -E hide_stale "$dev") || rc=$?
echo "$out"
assert_eq 1 "$rc" "fsck -fy -E hide_stale exit status"
[[ $out == *"inode ${ino[hide]} holds 16 stale-exposed block(s) that escape the permitted group $G (group $MEMBER)"* ]] ||
	fail "fsck -E hide_stale does not report the escape"
[[ $out == *"stale audit: 4 files, 64 blocks stale-exposed to group $G"* ]] || fail "audit line after hiding"
rc=0; "$FSCK_STALEFS" -fy -E hide_stale "$dev" || rc=$?
assert_eq 0 "$rc" "second fsck -fy -E hide_stale"
fsck_clean "$dev"
assert_eq none "$(lsstale_row hide)" "hide holds no STALE extent"
assert_eq 0x0 "$(inode_flags hide)" "hide's stale flag"
mount -t stalefs "$dev" $mnt
assert_eq "$MEMBER" "$(stat -c %g $mnt/hide)" "hide keeps its group"
for m in buffered direct mmap; do
	assert_eq "size=65536 pattern=0 zero=16 other=0" "$(read_summary $m $mnt/hide)" "hide ($m read)"
done
assert_eq 1 "$(unwritten_extents $mnt/hide)" "hide's extent is unwritten"
assert_ok chmod o+r $mnt/hide
assert_eq "size=65536 pattern=16 zero=0 other=0" "$(read_summary buffered $mnt/ok)" "the confined file was left alone"
umount $mnt
fsck_clean "$dev"
