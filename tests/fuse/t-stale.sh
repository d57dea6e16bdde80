# STALE extents (docs/nohide-stale.md) through the FUSE server: a confined
# file is served (its STALE blocks read what the disk held); it cannot be
# made to escape (chmod o+..., another group or owner: EPERM, whoever asks);
# an unconfined one (an offline edit) is read by nobody (EPERM); and stale
# allocation is never offered (EOPNOTSUPP).

# An image filled with the power-cut pattern, with group 4242 permitted and a
# confined file s of 128 KiB: blocks 0-15 written, 16-23 STALE (made offline
# by debugfs), 24-31 a hole.
stale_image() {
	"$PCHECK" fill img $((64 << 20)) >/dev/null || fail "powercut-check fill"
	mkimg img 64M -G 4242 -E nodiscard	# the fill pattern stays
	sfuse_mount img m
	head -c 65536 /dev/zero | tr '\0' d >m/s
	truncate -s 128K m/s
	chgrp 4242 m/s && chmod 0660 m/s
	sfuse_umount m
	"$DEBUGFS" -w -R "fallocate --no-hide-stale s 16 23" img >out 2>&1 || { cat out; fail "debugfs fallocate"; }
	"$DEBUGFS" -R "stat s" img 2>&1 | grep -q STALE || fail "no STALE extent in s"
}

test_stale_confined_is_served() {
	stale_image
	sfuse_mount img m -o allow_other
	# blocks 0-15 are the file's data, 16-23 STALE: the disk's old bytes (the fill pattern)
	expect_eq "$(head -c 65536 m/s | tr -d d | wc -c)" 0 "the written part of s"
	dd if=m/s bs=4096 skip=16 count=8 status=none | grep -qa PWRCUT || fail "the STALE blocks do not read the disk"
	expect_eq "$(tail -c 32768 m/s | tr -d '\0' | wc -c)" 0 "the hole after the STALE blocks"
	# Confinement holds: others' bits, another group, another owner: EPERM, even for root.
	for op in "chmod o+r m/s" "chmod 0664 m/s" "chmod 0661 m/s" "chgrp 0 m/s" "chown 1000 m/s"; do
		$op 2>err && fail "$op succeeded on a file holding STALE extents"
		grep -q "Operation not permitted" err || fail "$op: $(cat err)"
	done
	chmod 0640 m/s || fail "chmod within the confinement was refused"
	chgrp 4242 m/s || fail "keeping the permitted group was refused"
	# Reading it: for root, and for a member of the group (not for others: the mode says so).
	cat m/s >/dev/null || fail "root cannot read a confined file"
	setpriv --reuid=65534 --regid=4242 --clear-groups cat m/s >/dev/null || fail "a member of the group cannot read it"
	setpriv --reuid=65534 --regid=65534 --clear-groups cat m/s >/dev/null 2>&1 && fail "someone outside the group read it"
	# Stale allocation: never here.
	probe stale-ioctl m/s
	expect_eq "$ERRNO" EOPNOTSUPP "STALEFS_IOC_FALLOCATE on a confined file"
	sfuse_umount m
	fsck_clean img
	grep -q "stale audit: 1 file, 8 blocks stale-exposed to group 4242" fsck.out || { cat fsck.out; fail "fsck's stale audit"; }
}

test_stale_unconfined_is_not_read() {
	stale_image
	# An offline edit gives others read permission: the file escaped.
	"$DEBUGFS" -w -R "set_inode_field s mode 0100664" img >/dev/null 2>&1 || fail "debugfs set_inode_field"
	for opts in "" "-o ro"; do
		sfuse_mount img m $opts
		probe read m/s
		expect_eq "$ERRNO" EPERM "reading an unconfined STALE file ($opts)"
		grep -q "not confined" "$SFUSE_LOG" || fail "the server did not log the escape"
		stat m/s >/dev/null || fail "stat of an unconfined STALE file"
		sfuse_umount m
	done
	# fsck re-confines it; then it is served again.
	"$FSCK" -fy img >/dev/null 2>&1 || true
	fsck_clean img
	sfuse_mount img m
	probe read m/s
	expect_eq "$ERRNO" 1 "reading the re-confined file"
	sfuse_umount m
}
