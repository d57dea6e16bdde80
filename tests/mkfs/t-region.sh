# IMAGE?offset=N[&size=M]: mkfs on a region of a larger image (a partition of a
# whole-disk image), the tools reading it there, the bytes around it untouched,
# the region's limits, bad syntax, and a mounted loop device over the region.

# fill_image NAME MIB: an image of MIB MiB whose every byte is 0xA5.
fill_image() {
	head -c $(($2 << 20)) /dev/zero | tr '\0' '\245' >"$1"
}

# expect_bytes IMAGE START LEN: LEN bytes from START are all still 0xA5.
expect_bytes() {
	local n
	n=$(tail -c +$(($2 + 1)) "$1" | head -c "$3" | tr -d '\245' | wc -c)
	[ "$n" -eq 0 ] || fail "$n bytes of [$2, $(($2 + $3))) in $1 changed"
}

test_region_of_an_image() {
	FSCK=$(dirname "$MKFS")/fsck.stalefs
	[ -x "$FSCK" ] || fail "$FSCK is not built: make check-mkfs builds it"
	fill_image disk.img 100
	run_mkfs -q -L part2 'disk.img?offset=4M&size=64M'
	expect_rc 0
	expect_no_output
	expect_sb 'disk.img?offset=4M&size=64M' label part2
	expect_sb 'disk.img?offset=4M' blocks_count 16384
	# Only the region was written.
	expect_bytes disk.img 0 $((4 << 20))
	expect_bytes disk.img $((68 << 20)) $((32 << 20))
	[ "$(stat -c %s disk.img)" -eq $((100 << 20)) ] || fail "disk.img changed size"
	"$FSCK" -fn 'disk.img?offset=4M&size=64M' >fsck.out 2>&1 || { cat fsck.out; fail "fsck -fn of the region failed"; }
	# The plain image has no filesystem at offset 0.
	"$READBACK" super disk.img >/dev/null 2>&1 && fail "a superblock at offset 0 of disk.img"
	# A size within the region is used; one beyond it is refused, naming both.
	run_mkfs -q 'disk.img?offset=4M&size=64M' 32M
	expect_rc 0
	expect_sb 'disk.img?offset=4M' blocks_count 8192
	run_mkfs -q 'disk.img?offset=4M&size=64M' 80M
	expect_rc 8
	expect_err 'filesystem size 83886080 bytes is larger than the region disk.img\?offset=4M&size=64M \(67108864 bytes\)'
	# Without size= the region ends where the image does.
	run_mkfs -q 'disk.img?offset=90M'
	expect_rc 0
	expect_sb 'disk.img?offset=90M' blocks_count 2560
	expect_bytes disk.img $((68 << 20)) $((22 << 20))
}

test_region_errors() {
	fill_image disk.img 8
	cp disk.img orig.img
	for bad in 'offset=' 'offset=1Q' 'size=1M' 'offset=1M&' 'offset=1M&offset=2M' 'offset=1M&size=0' 'ofset=1M'; do
		run_mkfs -q "disk.img?$bad"
		expect_rc 8
		expect_err 'Bad image region: expected IMAGE\?offset=N or IMAGE\?offset=N&size=M.* while opening disk.img\?'
	done
	run_mkfs -q 'disk.img?offset=8M'
	expect_rc 8
	expect_err 'The image region lies outside the image'
	cmp -s disk.img orig.img || fail "a refused mkfs changed disk.img"
	# A region of an image that does not exist is not a file name to create.
	run_mkfs -q 'new.img?offset=1M' 64M
	expect_rc 8
	expect_err 'a region is a part of an existing image'
	ls | grep -q '^new.img' && fail "a refused mkfs created $(ls | grep '^new.img')"
	# A real file whose name holds '?' is that file, at offset 0.
	truncate -s 16M 'odd?offset=1M'
	run_mkfs -q 'odd?offset=1M'
	expect_rc 0
	expect_sb 'odd?offset=1M' blocks_count 4096
	# A file shorter than the region's end grows to it, sparsely.
	truncate -s 1M short.img
	run_mkfs -q 'short.img?offset=512K&size=16M'
	expect_rc 0
	[ "$(stat -c %s short.img)" -eq $(((512 << 10) + (16 << 20))) ] || fail "short.img is $(stat -c %s short.img) bytes"
	expect_sb 'short.img?offset=512K' blocks_count 4096
}

# A loop device over part of the image, with a mounted ext4 on it: regions that
# meet it are mounted, others are not (the only loop test of regions; it fails
# when no loop device can be had, as the other block-device tests do).
test_region_mounted_loop() {
	trap detach_all EXIT
	trap 'exit 1' INT TERM
	command -v mkfs.ext4 >/dev/null || fail "mkfs.ext4 (e2fsprogs) is needed"
	truncate -s 100M disk.img
	command -v losetup >/dev/null || fail "losetup (util-linux) is needed"
	LOOP=$(losetup -f --show -o $((4 << 20)) --sizelimit $((32 << 20)) disk.img) ||
		fail "cannot attach a loop device (needs root and /dev/loop*)"
	echo "$LOOP" >>loops
	mkfs.ext4 -q "$LOOP" || fail "mkfs.ext4 on $LOOP"
	mkdir mnt
	mount "$LOOP" mnt || fail "cannot mount ext4 on $LOOP"
	for name in disk.img 'disk.img?offset=8M&size=8M' 'disk.img?offset=1M&size=4M' 'disk.img?offset=35M'; do
		run_mkfs -q "$name"
		expect_rc 8
		expect_err "is mounted; will not make a filesystem here"
	done
	for name in 'disk.img?offset=1M&size=3M' 'disk.img?offset=36M'; do
		run_mkfs -q "$name"
		expect_rc 0
	done
	umount mnt
}
