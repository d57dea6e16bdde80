#!/bin/bash
# The confinement holes of issue 14, tried as an attacker and a careless
# admin would, each now refused with its own error: root giving a stale file
# to a new owner; others' write and execute bits (a planted program could
# dump the file); a member allocating into a group file a non-member owns;
# a reader whose descriptor predates the confinement; an offline escape
# (debugfs) served after a mount; a new group recorded for STALE extents
# whose group was forgotten; fsck (preen too) repairing or hiding what
# escaped; stale_group recording and forgetting a group.  The device holds a third user's deleted file
# of a recognisable pattern, which no refused path may show.
# needs: stalefs
# disk: scratch:64M
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/tests/vm/stale-lib.sh"

fresh_fs -G $G
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
# A third user's secret, then deleted: its blocks are free and hold 0x5e.
xfs_io -f -c "pwrite -q -S 0x5e 0 4m" -c fsync $mnt/secret
rm $mnt/secret
sync
stale() {	# stale NAME: a member's confined file of 1 MiB of STALE extents
	new_file $mnt/$1 $MEMBER $G 0660
	expect_ok as_member $STALE_IOCTL falloc 0 1048576 $mnt/$1
}

note "no new owner, even from root: the new owner could read it from outside the group"
stale owned
assert_errno EPERM chown $OTHER $mnt/owned
assert_errno EPERM chown $OTHER:$G $mnt/owned
assert_eq "$MEMBER $G" "$(stat -c '%u %g' $mnt/owned)" "owner and group"
assert_errno EACCES as_other cat $mnt/owned

note "no bit at all for others: write and execute would let a stranger plant a reader"
stale bits
assert_errno EPERM as_member chmod 0663 $mnt/bits
assert_errno EPERM chmod 0661 $mnt/bits
assert_errno EPERM chmod 0773 $mnt/bits
assert_errno EPERM chmod o+x $mnt/bits
assert_eq 660 "$(stat -c %a $mnt/bits)" "mode"
assert_ok chmod 0640 $mnt/bits
# Allocation itself wants no bit for others either.
new_file $mnt/ox $MEMBER $G 0661
expect_errno EPERM as_member $STALE_IOCTL falloc 0 4096 $mnt/ox
out=$(as_member $STALE_FALLOC --no-hide-stale -o 0 -l 4K $mnt/ox 2>&1) && fail "stalefs-falloc succeeded on mode 0661"
[[ $out == *"file not confined"* ]] || fail "stalefs-falloc does not say 'file not confined': $out"

note "only the owner allocates: a member cannot expose old data to a non-member owner"
new_file $mnt/theirs $OTHER $G 0660
expect_errno EPERM as_member $STALE_IOCTL falloc 0 65536 $mnt/theirs
out=$(as_member $STALE_FALLOC --no-hide-stale -o 0 -l 64K $mnt/theirs 2>&1) && fail "stalefs-falloc succeeded on another's file"
[[ $out == *"not the owner"* ]] || fail "stalefs-falloc does not say 'not the owner': $out"
assert_eq "size=0 pattern=0 zero=0 other=0" "$(read_summary buffered $mnt/theirs)" "the other's file"
# Root (CAP_SYS_RAWIO) may, on any confined file.
expect_ok $STALE_IOCTL falloc 0 4096 $mnt/theirs

note "nobody else may have it open: a descriptor from before the confinement would read it"
new_file $mnt/shared $MEMBER $G 0664
as_other python3 - $mnt/shared >"$VM_SCRATCH/late-reader" <<'PY' &
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)	# opened while others could read it
time.sleep(8)
print(os.pread(fd, 4 << 20, 0).count(0x5e))
PY
reader=$!
sleep 2
chmod 0660 $mnt/shared	# the owner confines it...
expect_errno EAGAIN as_member $STALE_IOCTL falloc 0 2097152 $mnt/shared	# ...but it is still open
out=$(as_member $STALE_FALLOC --no-hide-stale -o 0 -l 2M $mnt/shared 2>&1) && fail "stalefs-falloc succeeded on an open file"
[[ $out == *"open elsewhere"* ]] || fail "stalefs-falloc does not say 'open elsewhere': $out"
wait $reader
assert_eq 0 "$(cat "$VM_SCRATCH/late-reader")" "bytes of old data the early reader saw"
# Mapped counts too.
xfs_io -c "pwrite -q 0 4096" $mnt/shared
rm -f "$VM_SCRATCH/mapped"
python3 - $mnt/shared "$VM_SCRATCH/mapped" <<'PY' &
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 4096, prot=mmap.PROT_READ)
os.close(fd)			# no descriptor left: only the mapping
open(sys.argv[2], "w").close()
time.sleep(60)
PY
mapper=$!
for ((i = 0; i < 100; i++)); do [[ -e $VM_SCRATCH/mapped ]] && break; sleep 0.1; done
[[ -e $VM_SCRATCH/mapped ]] || fail "the mapping process did not start"
expect_errno EAGAIN as_member $STALE_IOCTL falloc 0 65536 $mnt/shared
kill $mapper; wait $mapper 2>/dev/null || true
expect_ok as_member $STALE_IOCTL falloc 0 65536 $mnt/shared

note "an offline escape is not served: not read by anyone, recorded for fsck"
stale escaped
umount $mnt
ino=$("$DEBUGFS_STALEFS" -R "stat /escaped" "$dev" 2>/dev/null | sed -n 's/^Inode: *\([0-9]*\).*/\1/p')
"$DEBUGFS_STALEFS" -w -R "sif <$ino> gid $OTHER" "$dev"
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
assert_errno EPERM as_other cat $mnt/escaped
assert_errno EPERM cat $mnt/escaped
assert_errno EPERM python3 -c 'import mmap, sys; f = open(sys.argv[1], "rb"); mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ)' $mnt/escaped
dmesg | has "holds STALE extents but is not confined" || fail "the escape was not reported"
umount $mnt
[[ $("$DEBUGFS_STALEFS" -R stats "$dev" 2>/dev/null | sed -n 's/^Filesystem state: *//p') == *error* ]] ||
	fail "the escape did not mark the filesystem for a check"
# Preen (the boot-time check, no -f) checks in full because of the recorded error, and
# re-confines: that loses nothing.
rc=0; "$FSCK_STALEFS" -p "$dev" >/tmp/fsck.out 2>&1 || rc=$?
assert_eq 1 "$rc" "fsck -p on the escape (repaired)"
grep -q "Stale audit (S4): inode $ino .*not the permitted group" /tmp/fsck.out || { cat /tmp/fsck.out; fail "fsck did not report the escape"; }
# Clean now: the next preen skips the full check but still audits, from the kernel's counts.
rc=0; "$FSCK_STALEFS" -p "$dev" >/tmp/fsck.out 2>&1 || rc=$?
assert_eq 0 "$rc" "fsck -p after the repair"
grep -q ": clean, " /tmp/fsck.out || { cat /tmp/fsck.out; fail "the second preen did not skip the full check"; }
grep -q "stale audit: [0-9]* files, [0-9]* blocks stale-exposed to group $G\$" /tmp/fsck.out ||
	{ cat /tmp/fsck.out; fail "the clean preen printed no stale audit (or the kernel's counts are wrong)"; }
fsck_clean "$dev"
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
assert_eq "$G 660" "$(stat -c '%g %a' $mnt/escaped)" "re-confined by fsck"
assert_ok as_member cat $mnt/escaped >/dev/null

note "a forgotten group is not replaced while STALE extents exist"
umount $mnt
"$DEBUGFS_STALEFS" -w -R "ssv stale_gid 0xffffffff" "$dev"
"$DEBUGFS_STALEFS" -w -R "ssv feature_ro_compat -nohide_stale" "$dev"
assert_eq EINVAL "$(mount_errno nohide_stale_gid=4243)" "arming a new group over stale files"
dmesg | has "no permitted group is recorded" || fail "no message for the refused group"
mount -t stalefs "$dev" $mnt
# Without a group nothing holding STALE extents is confined: nothing reads it.
assert_errno EPERM cat $mnt/owned
umount $mnt

note "fsck forces a check for STALE files without a group: preen stops, -y hides them"
rc=0; "$FSCK_STALEFS" -p "$dev" >/tmp/fsck.out 2>&1 || rc=$?
assert_eq 4 "$rc" "fsck -p with STALE files and no group"
# (The refused read above recorded an error: that alone forces the check.)
grep -q "check forced" /tmp/fsck.out || { cat /tmp/fsck.out; fail "fsck -p did not say why it checks"; }
grep -q "Stale audit (S3): inode [0-9]* has a STALE extent" /tmp/fsck.out ||
	{ cat /tmp/fsck.out; fail "fsck -p did not name the STALE extents without a group"; }
rc=0; "$FSCK_STALEFS" -y "$dev" >/tmp/fsck.out 2>&1 || rc=$?
assert_eq 1 "$rc" "fsck -y hides them"
fsck_clean "$dev"

note "one command records a group, and one forgets it"
"$DEBUGFS_STALEFS" -w -R "stale_group $G" "$dev" >/dev/null || fail "stale_group $G"
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
expect_ok as_member $STALE_IOCTL falloc 0 65536 $mnt/owned
umount $mnt
rc=0; "$DEBUGFS_STALEFS" -w -R "stale_group -f" "$dev" >/dev/null 2>/tmp/dbg.err || rc=$?
assert_eq 1 "$rc" "stale_group -f while a file holds STALE extents"
grep -q "refused: 1 file(s) hold STALE" /tmp/dbg.err || { cat /tmp/dbg.err; fail "no reason for the refusal"; }
mount -t stalefs "$dev" $mnt
xfs_io -c "fpunch 0 64k" $mnt/owned || fail "punching the STALE range"
umount $mnt
"$DEBUGFS_STALEFS" -w -R "stale_group -f" "$dev" >/dev/null || fail "stale_group -f with no STALE extents left"
mount -t stalefs -o nohide_stale_gid=4243 "$dev" $mnt || fail "arming a new group after forgetting"
dmesg | has "recorded permitted group 4243" || fail "the new group was not recorded"
umount $mnt
fsck_clean "$dev"
echo "stale-holes passed"
