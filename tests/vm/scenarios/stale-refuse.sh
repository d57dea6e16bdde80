#!/bin/bash
# NO_HIDE_STALE refused, each with its exact errno and the file unchanged:
# disarmed (EOPNOTSUPP), read-only first mount and a different gid at mount
# or remount (EINVAL, the kernel names both gids), bad gids, a non-member
# (EPERM), unconfined files by group or by others' read bit (EPERM, root
# included), not open for writing (EBADF), append-only (EPERM), immutable,
# bad mode/reserved/length/overflow (EINVAL), past the size limit (EFBIG),
# ENOSPC, read-only mount (EROFS); fallocate(2) with 0x04 (the VFS's
# EOPNOTSUPP); stalefs-falloc's message for each refusal.
# needs: stalefs
# disk: scratch:64M
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/tests/vm/stale-lib.sh"

fresh_fs
note "disarmed: EOPNOTSUPP for members and root; plain mode still works"
mount -t stalefs "$dev" $mnt
f=$mnt/f
new_file $f $MEMBER $G 0660
assert_eq "stale_gid=4294967295 armed=0" "$($STALE_IOCTL info $f)"
expect_errno EOPNOTSUPP as_member $STALE_IOCTL falloc 0 4096 $f
expect_errno EOPNOTSUPP $STALE_IOCTL falloc 0 4096 $f
out=$(as_member $STALE_FALLOC --no-hide-stale -o 0 -l 4K $f 2>&1) && fail "stalefs-falloc succeeded disarmed"
echo "$out"
[[ $out == *"not armed"* ]] || fail "stalefs-falloc does not say 'not armed'"
assert_eq "0 0" "$(stat -c '%s %b' $f)" "file unchanged"
expect_ok as_member $STALE_IOCTL falloc -n 0 8192 $f
assert_eq "size=8192 pattern=0 zero=2 other=0" "$(read_summary buffered $f)" "plain mode through the ioctl"
assert_eq 1 "$(unwritten_extents $f)" "plain mode is unwritten"
assert_eq EOPNOTSUPP "$(fallocate_errno 0x04 0 4096 $f)" "fallocate(2) with NO_HIDE_STALE (6.1's VFS)"
umount $mnt

note "a read-only first mount cannot record the group"
assert_eq EINVAL "$(mount_errno nohide_stale_gid=$G 1)" "ro mount with no group recorded"
dmesg | has "read-only mount cannot record" || fail "no kernel message for the ro refusal"
note "bad gids"
assert_eq EINVAL "$(mount_errno nohide_stale_gid=4294967295)" "gid 0xffffffff"
assert_eq EINVAL "$(mount_errno nohide_stale_gid=staff)" "gid not a number"
assert_eq "Stale gid (permitted):    <none>" "$("$DEBUGFS_STALEFS" -R stats "$dev" 2>/dev/null | grep '^Stale gid')" "still nothing recorded"

note "recorded at the first armed mount; another gid is refused, naming both"
assert_eq ok "$(mount_errno nohide_stale_gid=$G)"
umount $mnt
assert_eq "Stale gid (permitted):    $G" "$("$DEBUGFS_STALEFS" -R stats "$dev" 2>/dev/null | grep '^Stale gid')" "recorded"
dmesg -C
assert_eq EINVAL "$(mount_errno nohide_stale_gid=4243)" "mount with a different gid"
dmesg | grep "nohide_stale_gid=4243 refused: the filesystem's permitted group is $G" ||
	fail "the kernel message does not name both gids"
assert_fails mount -t stalefs -o nohide_stale_gid=4243 "$dev" $mnt
assert_eq EINVAL "$(mount_errno nohide_stale_gid=4243 1)" "read-only mount with a different gid"
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
assert_eq EINVAL "$(mount_errno nohide_stale_gid=4243 32)" "remount with a different gid"
grep -q " $mnt stalefs [^ ]*nohide_stale_gid=$G" /proc/mounts || fail "the refused remount disarmed or changed the mount"
assert_eq "stale_gid=$G armed=1" "$($STALE_IOCTL info $f)"

note "a non-member: EPERM, the file unchanged"
o=$mnt/o
new_file $o $OTHER $G 0660
as_other xfs_io -c "pwrite -q -S 0x44 0 8192" -c fsync $o
before=$(digest $o)
expect_errno EPERM as_other $STALE_IOCTL falloc 0 65536 $o
expect_errno EPERM as_other $STALE_IOCTL falloc -k 0 65536 $o
assert_eq "$before" "$(digest $o)" "non-member's file unchanged"
out=$(as_other $STALE_FALLOC --no-hide-stale -o 0 -l 64K $o 2>&1) && fail "stalefs-falloc succeeded for a non-member"
echo "$out"
[[ $out == *"not in the group"* ]] || fail "stalefs-falloc does not say 'not in the group'"

note "unconfined files: EPERM, root included"
w=$mnt/w
new_file $w $MEMBER $MEMBER 0660
expect_errno EPERM as_member $STALE_IOCTL falloc 0 4096 $w
expect_errno EPERM $STALE_IOCTL falloc 0 4096 $w
assert_eq "0 0" "$(stat -c '%s %b' $w)" "wrong group: unchanged"
out=$(as_member $STALE_FALLOC --no-hide-stale -o 0 -l 4K $w 2>&1) && fail "stalefs-falloc succeeded on an unconfined file"
echo "$out"
[[ $out == *"file not confined"* ]] || fail "stalefs-falloc does not say 'file not confined'"
r=$mnt/readable
new_file $r $MEMBER $G 0664
expect_errno EPERM as_member $STALE_IOCTL falloc 0 4096 $r
expect_errno EPERM $STALE_IOCTL falloc 0 4096 $r
assert_eq "0 0" "$(stat -c '%s %b' $r)" "readable by others: unchanged"
out=$(as_member $STALE_FALLOC --no-hide-stale -o 0 -l 4K $r 2>&1) && fail "stalefs-falloc succeeded on a readable file"
[[ $out == *"file not confined"* ]] || fail "stalefs-falloc does not say 'file not confined' for o+r: $out"

note "not a stalefs file: stalefs-falloc says so; the ioctl is unknown elsewhere"
printf 'x' >"$VM_SCRATCH/elsewhere"
chmod 0666 "$VM_SCRATCH/elsewhere"
out=$(as_member $STALE_FALLOC --no-hide-stale -o 0 -l 4K "$VM_SCRATCH/elsewhere" 2>&1) && fail "stalefs-falloc succeeded on tmpfs"
echo "$out"
[[ $out == *"not a stalefs file"* ]] || fail "stalefs-falloc does not say 'not a stalefs file'"
expect_errno ENOTTY as_member $STALE_IOCTL falloc 0 4096 "$VM_SCRATCH/elsewhere"

note "what vfs_fallocate checks, repeated"
expect_errno EBADF as_member $STALE_IOCTL falloc -r 0 4096 $f
expect_errno EINVAL as_member $STALE_IOCTL falloc -m 0x06 0 4096 $f
expect_errno EINVAL as_member $STALE_IOCTL falloc -m 0x0c 0 4096 $f
expect_errno EINVAL as_member $STALE_IOCTL falloc -R 1 0 4096 $f
expect_errno EINVAL as_member $STALE_IOCTL falloc 0 0 $f
expect_errno EINVAL as_member $STALE_IOCTL falloc 0x7fffffffffffffff 2 $f
expect_errno EINVAL as_member $STALE_IOCTL falloc 0x8000000000000000 4096 $f
maxbytes=$(( 0xFFFFFFFF * 4096 ))
expect_errno EFBIG as_member $STALE_IOCTL falloc $maxbytes 4096 $f
expect_errno EFBIG as_member $STALE_IOCTL falloc $((maxbytes - 4096)) 8192 $f
assert_eq "8192 16" "$(stat -c '%s %b' $f)" "f unchanged by the refusals"
expect_errno ENOSPC as_member $STALE_IOCTL falloc 0 1073741824 $f
# ENOSPC keeps what it could map, as fallocate does; give it back.
as_member xfs_io -c "fpunch 0 1g" $f
expect_ok as_member $STALE_IOCTL falloc 0 4096 $f
umount $mnt

note "append-only and immutable (set offline: the module has no chattr)"
printf '' >"$VM_SCRATCH/empty"
"$DEBUGFS_STALEFS" -w -f - "$dev" <<EOT
write $VM_SCRATCH/empty app
write $VM_SCRATCH/empty imm
sif app gid $G
sif app mode 0100660
sif app flags 0x20
sif imm gid $G
sif imm mode 0100660
sif imm flags 0x10
EOT
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
expect_errno EPERM $STALE_IOCTL falloc -a 0 4096 $mnt/app
assert_eq "0 0" "$(stat -c '%s %b' $mnt/app)" "append-only unchanged"
# An immutable file cannot even be opened for writing.
expect_errno EPERM $STALE_IOCTL falloc 0 4096 $mnt/imm
assert_eq "0 0" "$(stat -c '%s %b' $mnt/imm)" "immutable unchanged"

note "read-only mount (still armed: the option is given again)"
assert_eq ok "$(mount_errno nohide_stale_gid=$G 33)" "remount read-only"
grep -q " $mnt stalefs ro,[^ ]*nohide_stale_gid=$G" /proc/mounts || fail "not ro and armed"
expect_errno EROFS $STALE_IOCTL falloc 0 4096 $f
assert_eq "stale_gid=$G armed=1" "$($STALE_IOCTL info $f)"
umount $mnt
fsck_clean "$dev"
