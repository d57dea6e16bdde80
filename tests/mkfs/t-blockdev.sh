# Block devices: loop devices on this host (root, losetup; mounting ext4
# works here, loading modules does not).  A test that cannot get a loop device
# fails: it does not skip.

# attach IMAGE: a free loop device for IMAGE in $LOOP; detached at exit.
attach() {
	command -v losetup >/dev/null || fail "losetup (util-linux) is needed"
	LOOP=$(losetup -f --show "$1") || fail "cannot attach a loop device to $1 (needs root and /dev/loop*)"
	echo "$LOOP" >>loops
}

detach_all() {
	if mountpoint -q mnt 2>/dev/null; then umount mnt; fi
	if [ -f loops ]; then
		local l
		while read -r l; do losetup -d "$l" 2>/dev/null || true; done <loops
	fi
}

test_loop_device() {
	trap detach_all EXIT
	trap 'exit 1' INT TERM	# so a killed run still runs the EXIT trap
	truncate -s 64M backing.img
	attach backing.img
	run_mkfs -q -L onloop "$LOOP"
	expect_rc 0
	expect_sb "$LOOP" label onloop
	expect_sb "$LOOP" blocks_count 16384
	check_image "$LOOP"
	# A size within the device is used; one beyond it is refused with both sizes.
	run_mkfs -q "$LOOP" 32M
	expect_rc 0
	expect_sb "$LOOP" blocks_count 8192
	run_mkfs -q "$LOOP" 128M
	expect_rc 8
	expect_err "filesystem size 134217728 bytes is larger than the device $LOOP \(67108864 bytes\)"
	# -d onto a block device.
	mkdir tree && echo on-a-device >tree/file && mkdir tree/sub
	"$READBACK" manifest tree >manifest
	run_mkfs -q -d tree "$LOOP"
	expect_rc 0
	"$READBACK" compare "$LOOP" tree manifest || fail "-d onto $LOOP did not round-trip"
}

test_mounted_device_refused() {
	trap detach_all EXIT
	trap 'exit 1' INT TERM	# so a killed run still runs the EXIT trap
	command -v mke2fs >/dev/null || fail "mke2fs (e2fsprogs) is needed"
	truncate -s 32M ext.img
	mke2fs -q -F -t ext4 ext.img
	attach ext.img
	mkdir mnt
	mount "$LOOP" mnt || fail "cannot mount $LOOP (ext4) on this host"
	echo data >mnt/file
	sync
	run_mkfs -F "$LOOP"
	expect_rc 8
	expect_err "$LOOP is mounted; will not make a filesystem here"
	# The image file behind the mounted loop device is refused as well.
	run_mkfs -F -q ext.img
	expect_rc 8
	expect_err 'ext.img is mounted; will not make a filesystem here'
	# Even a dry run says so, and -F does not override it.
	run_mkfs -n ext.img
	expect_rc 8
	umount mnt
	# Nothing of ours was written: still ext4, no stalefs magic at byte 1024.
	[ "$(dd if=ext.img bs=1 skip=1024 count=4 status=none)" != SFLS ] || fail "stalefs magic written on a mounted device"
	[ "$(od -An -tx1 -j1080 -N2 ext.img | tr -d ' ')" = 53ef ] || fail "the ext4 superblock is gone"
	mount "$LOOP" mnt || fail "the ext4 filesystem no longer mounts"
	[ "$(cat mnt/file)" = data ] || fail "the mounted filesystem lost its file"
	umount mnt
	# Unmounted, the same device formats.
	run_mkfs -q "$LOOP"
	expect_rc 0
	check_image "$LOOP"
}
