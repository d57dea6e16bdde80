# The journal mkfs.stalefs makes (mkfs.stalefs(8), FORMAT.md 12): there by
# default at the documented size and place, -J size=, -O ^has_journal, the
# refusals, -n, and a 1 TiB image whose journal costs no space.

# jsize BYTES BS: the journal blocks mkfs makes on an image of that size.
jsize() {
	rm -f img
	run_mkfs -q -b "$2" img "$1"
	expect_rc 0
	sb img journal_blocks
}

test_journal_by_default() {
	truncate -s 256M img
	run_mkfs img
	expect_rc 0
	expect_out '^Journal: 4096 blocks \(16 MiB\) at block [0-9]+ in group 1$'
	expect_out '^Creating journal \(4096 blocks\): done$'
	expect_sb img has_journal 1
	expect_sb img journal_blocks 4096
	# The middle group (two groups: group 1), right after its inode table.
	expect_sb img journal_group 1
	expect_sb img journal_after_itable 1
	sb img journal_planned
	local planned=$SBV
	expect_sb img journal_block "$planned"
	sb img journal_block
	grep -q "at block $SBV in group 1" out || fail "the summary names another block than $SBV"
	check_image img
}

# The size table (ext4's), by filesystem size, capped to 7/8 of a group's data area.
test_journal_size_table() {
	jsize 7M 4096; [ "$SBV" = 0 ] || fail "7 MiB at 4 KiB: journal of $SBV blocks, expected none"
	expect_sb img has_journal 0
	jsize 8M 4096; [ "$SBV" = 1024 ] || fail "8 MiB: $SBV"
	jsize 127M 4096; [ "$SBV" = 1024 ] || fail "127 MiB: $SBV"
	jsize 128M 4096; [ "$SBV" = 4096 ] || fail "128 MiB: $SBV"
	jsize 1G 4096; [ "$SBV" = 8192 ] || fail "1 GiB: $SBV"
	jsize 2G 4096; [ "$SBV" = 16384 ] || fail "2 GiB: $SBV"
	check_image img
	# 16 GiB wants 32768 blocks; a group of 32768 blocks holds 32254 after its metadata:
	# the journal is 7/8 of that.
	jsize 16G 4096; [ "$SBV" = $((32254 * 7 / 8)) ] || fail "16 GiB: $SBV"
	expect_sb img journal_default_blocks "$SBV"
	# 1 KiB blocks: 2048 blocks get 1024, 32768 blocks get 4096 (capped to 7/8 of 8192-block groups).
	jsize 2M 1024; [ "$SBV" = 1024 ] || fail "2 MiB at 1 KiB: $SBV"
	jsize 32M 1024; [ "$SBV" = 4096 ] || fail "32 MiB at 1 KiB: $SBV"
	# 1 GiB at 1 KiB wants 16384; its groups of 8192 hold 8062 after bitmaps and inode table.
	jsize 1G 1024; [ "$SBV" = $((8062 * 7 / 8)) ] || fail "1 GiB at 1 KiB: $SBV"
	check_image img
}

test_journal_size_option() {
	truncate -s 1G img
	run_mkfs -q -J size=64 img
	expect_rc 0
	expect_sb img journal_blocks 16384
	check_image img
	run_mkfs -q -b 1024 -J size=4 img
	expect_rc 0
	expect_sb img journal_blocks 4096
	check_image img
	# Larger than the default cap is allowed while one group holds it.
	run_mkfs -q -J size=120 img
	expect_rc 0
	expect_sb img journal_blocks 30720
	expect_sb img journal_after_itable 1
	check_image img
	# Larger groups make room for larger journals.
	run_mkfs -q -g 65536 -J size=200 img
	expect_rc 0
	expect_sb img journal_blocks 51200
	check_image img
}

test_journal_size_errors() {
	truncate -s 1G img
	local before
	before=$(fingerprint img)
	run_mkfs -J size=3 img
	expect_usage 'journal size 3 MiB is 768 blocks of 4096 bytes; a journal needs at least 1024 blocks \(4 MiB\)'
	run_mkfs -b 1024 -J size=0 img
	expect_usage 'journal size 0 MiB is 0 blocks of 1024 bytes; a journal needs at least 1024 blocks \(1 MiB\)'
	run_mkfs -J size=big img
	expect_usage "invalid journal size: 'big'"
	run_mkfs -J size=-4 img
	expect_usage "invalid journal size: '-4'"
	run_mkfs -J device=/dev/sdz img
	expect_usage 'unknown journal option: device=/dev/sdz'
	run_mkfs -J size=64 -O ^has_journal img
	expect_usage '-J conflicts with -O \^has_journal'
	# Too big for a group: an operational error that says what to do.
	run_mkfs -J size=200 img
	expect_rc 8
	expect_err "a journal of 51200 blocks does not fit in one group's data blocks of img \(at most 32254 blocks there\): choose a smaller journal with -J size= or larger groups with -g"
	# A filesystem too small for any journal.
	run_mkfs -J size=4 img 4M
	expect_rc 8
	expect_err 'img is too small for a journal: its largest group has room for [0-9]+ blocks, a journal needs 1024'
	expect_unchanged img "$before"
}

test_no_journal() {
	truncate -s 256M img
	run_mkfs -O ^has_journal img
	expect_rc 0
	grep -q 'Journal' out && fail "a journal is reported"
	expect_sb img has_journal 0
	expect_sb img journal_block 0
	expect_sb img journal_blocks 0
	check_image img
	# Asked for explicitly on a filesystem too small for the default: none, said so.
	run_mkfs -O has_journal img 4M
	expect_rc 0
	expect_out '^Filesystem too small for a journal$'
	expect_sb img has_journal 0
	check_image img
}

test_needs_recovery_refused() {
	truncate -s 64M img
	run_mkfs -O needs_recovery img
	expect_usage 'needs_recovery cannot be set: the kernel sets it while the journal has transactions to replay'
	run_mkfs -q -O ^needs_recovery img
	expect_rc 0
	expect_sb img has_journal 1
	check_image img
}

# -n says where the journal would go, and writes nothing.
test_journal_dry_run() {
	truncate -s 1G img
	local before
	before=$(fingerprint img)
	run_mkfs -n img
	expect_rc 0
	expect_out '^Journal: 8192 blocks \(32 MiB\) at block [0-9]+ in group 4$'
	grep -q 'Creating journal' out && fail "-n reports creating a journal"
	local where
	where=$(sed -n 's/^Journal: .* at block \([0-9]*\) in group.*/\1/p' out)
	expect_unchanged img "$before"
	run_mkfs -q img
	expect_rc 0
	expect_sb img journal_block "$where"
}

# A journal of 1 TiB's default size is a hole in the image, not a gigabyte written.
test_journal_terabyte_sparse() {
	truncate -s 1T img
	run_mkfs -q img
	expect_rc 0
	sb img journal_blocks
	# 262144 wanted; groups of 262144 blocks hold 258038 after their metadata: 7/8 of it.
	[ "$SBV" = 225783 ] || fail "1 TiB: a journal of $SBV blocks, expected 225783"
	local kib
	kib=$(du -k img | cut -f1)
	[ "$kib" -lt 65536 ] || fail "1 TiB image takes $kib KiB after mkfs"
	check_image img
}

# The journal's blocks are never handed to files: mkfs -d fills around them.
test_journal_populate() {
	mkdir -p tree
	head -c 6000000 /dev/urandom >tree/big
	printf 'x\n' >tree/small
	"$READBACK" manifest tree >manifest 2>&1 || fail "manifest"
	run_mkfs -q -b 1024 -d tree img 16M
	expect_rc 0
	expect_sb img journal_blocks 1024
	"$READBACK" compare img tree manifest >cmp.out 2>&1 || { cat cmp.out; fail "mkfs -d with a journal does not compare"; }
}
