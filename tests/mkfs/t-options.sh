# Every option of mkfs.stalefs, each read back from the image it made.

test_default_summary() {
	truncate -s 64M img
	run_mkfs img
	expect_rc 0
	expect_out '^Creating filesystem with 16384 4k blocks and [0-9]+ inodes$'
	expect_out '^Filesystem UUID: [0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
	expect_out '^Writing superblocks and filesystem accounting information: done$'
	expect_sb img block_size 4096
	expect_sb img blocks_count 16384
	expect_sb img errors 1
	expect_sb img state 1
	expect_sb img nohide_stale 0
	expect_sb img stale_gid 4294967295
	expect_sb img sparse_super 1
	expect_sb img root_mode 040755
	expect_sb img root_uid 0
	check_image img
}

test_block_sizes() {
	local bs
	for bs in 1024 2048 4096; do
		rm -f img
		run_mkfs -q -b $bs img 32M
		expect_rc 0
		expect_sb img block_size $bs
		# 1 KiB blocks: block 0 is the boot block, outside the filesystem's groups.
		sb img blocks_count
		[ "$SBV" -le $((32 * 1048576 / bs)) ] && [ "$SBV" -ge $((32 * 1048576 / bs - 1)) ] ||
			fail "-b $bs: $SBV blocks in 32 MiB"
		check_image img
	done
}

test_inode_count() {
	truncate -s 64M img
	run_mkfs -q -N 5000 img
	expect_rc 0
	sb img inodes_count
	local n=$SBV
	sb img groups_count
	# At least as many as asked; at most a block of inodes per group more (rounding).
	[ "$n" -ge 5000 ] && [ "$n" -lt $((5000 + SBV * 4096 / 256)) ] || fail "-N 5000 gave $n inodes"
	check_image img
}

# -I: the inode-table slot size; the table grows with it, the inode count does not.
test_inode_size() {
	truncate -s 64M img
	run_mkfs -q img
	expect_rc 0
	expect_sb img inode_size 256
	expect_sb img xattr 1
	sb img inodes_count
	local n=$SBV
	for isz in 512 1024; do
		run_mkfs -q -I $isz img
		expect_rc 0
		expect_sb img inode_size $isz
		expect_sb img inodes_count "$n"
		check_image img
	done
	run_mkfs -q -I 384 img
	expect_usage 'invalid inode size: 384'
	run_mkfs -q -I 2048 img
	expect_usage 'invalid inode size: 2048'
	run_mkfs -q -I 128 img
	expect_usage 'invalid inode size: 128'
	run_mkfs -q -b 1024 -I 1024 img
	expect_rc 0
	expect_sb img inode_size 1024
	check_image img
	run_mkfs -q -O ^xattr img
	expect_rc 0
	expect_sb img xattr 0
}

test_bytes_per_inode() {
	truncate -s 64M img
	run_mkfs -q -i 65536 img
	expect_rc 0
	expect_sb img inodes_count $((64 * 1048576 / 65536))
	run_mkfs -q -i 8192 img
	expect_rc 0
	expect_sb img inodes_count $((64 * 1048576 / 8192))
}

test_reserved_percent() {
	truncate -s 64M img
	run_mkfs -q -m 10 img
	expect_rc 0
	expect_sb img r_blocks_count $((16384 * 10 / 100))
	run_mkfs -q -m 0 img
	expect_rc 0
	expect_sb img r_blocks_count 0
	run_mkfs -q -m 51 img
	expect_usage 'reserved blocks percent: 51'
}

test_blocks_per_group() {
	truncate -s 64M img
	run_mkfs -q -g 4096 img
	expect_rc 0
	expect_sb img blocks_per_group 4096
	expect_sb img groups_count 4
	check_image img
	run_mkfs -q -g 5000 img
	expect_usage 'invalid blocks per group: 5000'
}

test_label() {
	truncate -s 16M img
	run_mkfs -q -L scratch-volume img
	expect_rc 0
	expect_sb img label scratch-volume
	run_mkfs -L 0123456789012345678901234567890 img
	expect_rc 0
	expect_out 'Filesystem volume name: 0123456789012345678901234567890'
	expect_sb img label 0123456789012345678901234567890
	local before
	before=$(fingerprint img)
	run_mkfs -q -L 01234567890123456789012345678901 img
	expect_usage 'volume label too long'
	expect_unchanged img "$before"
}

test_uuid() {
	truncate -s 16M img
	run_mkfs -q -U 0123abcd-4567-89ef-0123-456789abcdef img
	expect_rc 0
	expect_sb img uuid 0123abcd-4567-89ef-0123-456789abcdef
	check_image img
	run_mkfs -U 0123ABCD456789EF0123456789ABCDEF img
	expect_rc 0
	expect_out 'Filesystem UUID: 0123abcd-4567-89ef-0123-456789abcdef'
	run_mkfs -q -U clear img
	expect_rc 0
	expect_sb img uuid 00000000-0000-0000-0000-000000000000
	check_image img
	run_mkfs -q -U random img
	expect_rc 0
	sb img uuid
	[ "$SBV" != 00000000-0000-0000-0000-000000000000 ] || fail "-U random gave a null uuid"
	run_mkfs -q -U 0123abcd-4567-89ef-0123-456789abcdeg img
	expect_usage "invalid UUID: '0123abcd-4567-89ef-0123-456789abcdeg'"
	run_mkfs -q -U 0123abcd img
	expect_usage "invalid UUID"
}

test_stale_gid() {
	truncate -s 16M img
	run_mkfs -G 1234 img
	expect_rc 0
	expect_out 'permitted to group 1234'
	expect_sb img stale_gid 1234
	expect_sb img nohide_stale 1
	check_image img
	local gid
	gid=$(getent group daemon | cut -d: -f3)
	[ -n "$gid" ] || fail "no group 'daemon' on this machine to test -G NAME"
	run_mkfs -q -G daemon img
	expect_rc 0
	expect_sb img stale_gid "$gid"
	expect_sb img nohide_stale 1
	run_mkfs -q -G no-such-group-here img
	expect_usage "invalid group for -G: 'no-such-group-here'"
	# The feature alone, without a group, would be armed with nobody allowed.
	run_mkfs -q -O nohide_stale img
	expect_usage 'needs a permitted group'
	# Recording a group while clearing the feature it arms is a contradiction.
	local before
	before=$(fingerprint img)
	run_mkfs -q -G 1234 -O ^nohide_stale img
	expect_usage '\^nohide_stale conflicts with -G'
	expect_unchanged img "$before"
}

test_features() {
	# Eight groups, on a small image (fingerprints hash the whole file).
	truncate -s 64M img
	run_mkfs -q -g 2048 img
	expect_rc 0
	expect_sb img sparse_super 1
	expect_sb img groups_count 8
	expect_sb img super_backups 4	# groups 1, 3, 5, 7
	# FORMAT.md: lost+found is the first ordinary inode, even with groups to spread directories over.
	expect_sb img lpf_ino 11
	run_mkfs -q -g 2048 -O ^sparse_super img
	expect_rc 0
	expect_sb img sparse_super 0
	expect_sb img super_backups 7	# every group
	check_image img
	run_mkfs -q -O sparse_super,lazy_itable img
	expect_rc 0
	expect_sb img sparse_super 1
	local before
	before=$(fingerprint img)
	run_mkfs -q -O no_such_feature img
	expect_usage 'invalid filesystem option set: no_such_feature'
	expect_unchanged img "$before"
	run_mkfs -q -O ^extents img
	expect_usage 'extents feature is required'
	# meta_bg is a grow's to set (FORMAT.md 4), never a new filesystem's.
	run_mkfs -q -O meta_bg img
	expect_usage 'resize.stalefs sets it'
	expect_unchanged img "$before"
	run_mkfs -q -O ^meta_bg img
	expect_rc 0
	check_image img
}

test_extended_options() {
	truncate -s 64M img
	run_mkfs -q -E root_owner=1:2 img
	expect_rc 0
	expect_sb img root_uid 1
	expect_sb img root_gid 2
	check_image img
	run_mkfs -q -E root_owner img
	expect_rc 0
	expect_sb img root_uid "$(id -u)"
	expect_sb img root_gid "$(id -g)"
	# Lazy by default: only group 0's table is started.  lazy_itable_init=0 initialises every one.
	run_mkfs -q -g 4096 img
	expect_sb img groups_count 4
	expect_sb img groups_with_itable_initialised 0
	run_mkfs -q -g 4096 -E lazy_itable_init=0 img
	expect_rc 0
	expect_sb img groups_with_itable_initialised 3
	check_image img
	run_mkfs -q -E errors=panic img
	expect_rc 0
	expect_sb img errors 3
	run_mkfs -q -E errors=remount-ro,root_owner=5:6 img
	expect_rc 0
	expect_sb img errors 2
	expect_sb img root_uid 5
	local before
	before=$(fingerprint img)
	run_mkfs -q -E no_such_option img
	expect_usage 'unknown extended option: no_such_option'
	run_mkfs -q -E root_owner=x img
	expect_usage "invalid root_owner: 'x'"
	run_mkfs -q -E lazy_itable_init=2 img
	expect_usage 'invalid lazy_itable_init value'
	run_mkfs -q -E errors=explode img
	expect_usage 'invalid errors behavior: explode'
	expect_unchanged img "$before"
}

test_errors_behavior() {
	truncate -s 16M img
	run_mkfs -q -e remount-ro img
	expect_rc 0
	expect_sb img errors 2
	run_mkfs -q -e continue img
	expect_rc 0
	expect_sb img errors 1
	run_mkfs -q -e panic img
	expect_rc 0
	expect_sb img errors 3
	run_mkfs -q -e sometimes img
	expect_usage 'invalid errors behavior: sometimes'
}

test_dry_run_writes_nothing() {
	old_image img
	local before
	before=$(fingerprint img)
	run_mkfs -n -L new -b 1024 img
	expect_rc 0
	expect_out '^Creating filesystem with 16384 1k blocks'
	expect_out 'Filesystem volume name: new'
	expect_unchanged img "$before"
	expect_sb img label old
	# A size larger than the file: the dry run does not extend it either.
	run_mkfs -n img 1G
	expect_rc 0
	expect_out '^Creating filesystem with 262144 4k blocks'
	expect_unchanged img "$before"
	# A path that does not exist is not created.
	run_mkfs -n new.img 2G
	expect_rc 0
	expect_out '^Creating filesystem with 524288 4k blocks'
	expect_out 'Superblock backups stored on blocks'
	[ ! -e new.img ] || fail "-n created new.img"
	# -n with -q still prints the layout: printing it is the whole point.
	run_mkfs -n -q img
	expect_rc 0
	expect_out '^Creating filesystem'
	expect_unchanged img "$before"
}

test_quiet() {
	truncate -s 64M img
	run_mkfs -q img
	expect_rc 0
	expect_no_output
	mkdir tree
	echo hello >tree/file
	rm -f img
	run_mkfs -q -d tree img 16M
	expect_rc 0
	expect_no_output
}

test_version() {
	run_mkfs -V
	expect_rc 0
	expect_out '^mkfs.stalefs [0-9]'
	run_mkfs -V some.img 1G
	expect_rc 0
	[ ! -e some.img ] || fail "-V created the device"
}

test_size_suffixes() {
	run_mkfs -q k.img 8192K
	expect_rc 0
	expect_sb k.img blocks_count 2048
	[ "$(stat -c %s k.img)" = $((8192 * 1024)) ] || fail "k.img is $(stat -c %s k.img) bytes"
	run_mkfs -q m.img 48M
	expect_rc 0
	expect_sb m.img blocks_count $((48 * 256))
	run_mkfs -q g.img 3G
	expect_rc 0
	expect_sb g.img blocks_count $((3 * 262144))
	[ "$(stat -c %s g.img)" = $((3 << 30)) ] || fail "g.img is $(stat -c %s g.img) bytes"
	run_mkfs -q t.img 2T
	expect_rc 0
	expect_sb t.img blocks_count $((2 << 28))
	# Sparse: a 2 TiB filesystem on a file takes a few MiB, not gigabytes.
	[ "$(stat -c %b t.img)" -lt $((64 * 2048)) ] || fail "t.img allocates $(stat -c %b t.img) sectors"
	check_image k.img
	run_mkfs -q b.img 20000000
	expect_rc 0
	expect_sb b.img blocks_count $((20000000 / 4096))
	# Lower case works too.
	run_mkfs -q l.img 16m
	expect_rc 0
	expect_sb l.img blocks_count 4096
}

test_size_smaller_than_file() {
	truncate -s 64M img
	run_mkfs -q img 32M
	expect_rc 0
	expect_sb img blocks_count 8192
	[ "$(stat -c %s img)" = $((64 << 20)) ] || fail "the file was resized"
	check_image img
}

test_creates_missing_file() {
	run_mkfs new.img 16M
	expect_rc 0
	[ -f new.img ] || fail "new.img not created"
	[ "$(stat -c %s new.img)" = $((16 << 20)) ] || fail "new.img is $(stat -c %s new.img) bytes"
	expect_sb new.img blocks_count 4096
	check_image new.img
}

# On a terminal, an existing filesystem is not overwritten without a yes; -F skips the question.
test_force_and_question() {
	command -v script >/dev/null || fail "script(1) (util-linux) is needed to give mkfs a terminal"
	old_image img
	local before
	before=$(fingerprint img)
	printf 'n\n' | script -qec "$MKFS -L new img" /dev/null >term.out 2>&1 && rc=0 || rc=$?
	cat term.out
	grep -q 'img contains a stalefs file system' term.out || fail "no question about the existing filesystem"
	grep -q 'Proceed anyway?' term.out || fail "no 'Proceed anyway?'"
	grep -q 'cancelled; nothing written' term.out || fail "no cancellation message"
	[ "$rc" -eq 8 ] || fail "answering no exited $rc, expected 8"
	expect_unchanged img "$before"
	printf 'y\n' | script -qec "$MKFS -L yes img" /dev/null >term.out 2>&1 || fail "answering yes failed"
	expect_sb img label yes
	: | script -qec "$MKFS -F -L forced img" /dev/null >term.out 2>&1 || fail "-F on a terminal failed"
	cat term.out
	! grep -q 'Proceed anyway' term.out || fail "-F still asked"
	expect_sb img label forced
	# Not a terminal: no question (as mke2fs), the filesystem is made.
	run_mkfs -q -L batch img
	expect_rc 0
	expect_sb img label batch
}

# mke2fs' other signatures are recognised too, for the question.
test_question_names_other_filesystems() {
	command -v mke2fs >/dev/null || fail "mke2fs (e2fsprogs) is needed"
	truncate -s 16M img
	mke2fs -q -F -t ext4 img
	printf 'n\n' | script -qec "$MKFS img" /dev/null >term.out 2>&1 && rc=0 || rc=$?
	cat term.out
	grep -q 'contains a ext2/ext3/ext4 file system' term.out || fail "ext4 not recognised"
	[ "$rc" -eq 8 ] || fail "answering no exited $rc"
}

# Every checksum in every image goes through the library's CRC32; its fast path must match zlib's.
test_crc32_matches_zlib() {
	"$READBACK" crc-selftest || fail "the library's CRC32 disagrees with zlib"
}
