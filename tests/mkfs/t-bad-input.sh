# Bad input: the exact exit status (8 operational, 16 usage), a message that
# names the problem, and the target left as it was wherever the check can
# come before writing.

test_device_too_small() {
	truncate -s 20K img
	local before
	before=$(fingerprint img)
	run_mkfs img
	expect_rc 8
	expect_err 'device img is too small \(20480 bytes\)'
	expect_unchanged img "$before"
	# Too small for its size argument too; the missing file is not left behind.
	run_mkfs small.img 100K
	expect_rc 8
	expect_err 'device small.img is too small \(102400 bytes\)'
	[ ! -e small.img ] || fail "a refused mkfs left small.img behind"
	# The size argument shrinks an otherwise big enough file below the minimum.
	old_image big.img
	before=$(fingerprint big.img)
	run_mkfs big.img 8K
	expect_rc 8
	expect_err 'too small'
	expect_unchanged big.img "$before"
}

test_unwritable_path() {
	run_mkfs no/such/dir/img 16M
	expect_rc 8
	expect_err 'No such file or directory while creating no/such/dir/img'
	run_mkfs missing.img
	expect_rc 8
	expect_err 'No such file or directory while opening missing.img'
	mkdir adir
	run_mkfs adir
	expect_rc 8
	expect_err 'adir: not a regular file or block device'
	# A read-only filesystem: writable for nobody, root included.
	mkdir ro
	mount -t tmpfs -o size=64M tmpfs ro || fail "cannot mount a tmpfs (this test runs as root)"
	trap 'if mountpoint -q ro; then umount ro; fi' EXIT
	trap 'exit 1' INT TERM
	truncate -s 16M ro/img
	mount -o remount,ro ro || { umount ro; fail "cannot remount the tmpfs read-only"; }
	run_mkfs ro/img
	local rc1=$rc
	cp err err.ro
	run_mkfs ro/new.img 16M
	umount ro
	[ "$rc1" -eq 8 ] || fail "read-only image: exit $rc1, expected 8"
	grep -q 'Read-only file system while writing a new filesystem on ro/img' err.ro || { cat err.ro; fail "read-only image: wrong message"; }
	expect_rc 8
	expect_err 'Read-only file system while creating ro/new.img'
	# Not root: a file without write permission.
	if [ "$(id -u)" != 0 ]; then
		truncate -s 16M locked.img
		chmod 0444 locked.img
		run_mkfs locked.img
		expect_rc 8
		expect_err 'Permission denied while opening locked.img'
	fi
}

test_bad_block_size() {
	truncate -s 16M img
	local before
	before=$(fingerprint img)
	run_mkfs -b 3000 img
	expect_usage 'invalid block size: 3000 \(1024, 2048 or 4096\)'
	run_mkfs -b 8192 img
	expect_usage 'invalid block size: 8192'
	run_mkfs -b 512 img
	expect_usage 'invalid block size: 512'
	run_mkfs -b 4k img
	expect_usage 'invalid block size: 4k'
	run_mkfs -b -4096 img
	expect_usage 'invalid block size: -4096'
	expect_unchanged img "$before"
}

test_bad_numbers() {
	truncate -s 16M img
	local before
	before=$(fingerprint img)
	run_mkfs -N many img
	expect_usage 'invalid inode count: many'
	run_mkfs -N 99999999999 img
	expect_usage 'invalid inode count: 99999999999'
	run_mkfs -i 512 img
	expect_usage 'invalid inode ratio: 512'
	run_mkfs -m -1 img
	expect_usage 'invalid reserved blocks percent: -1'
	run_mkfs -g 100 img
	expect_usage 'invalid blocks per group: 100'
	expect_unchanged img "$before"
}

test_conflicting_options() {
	truncate -s 16M img
	local before
	before=$(fingerprint img)
	run_mkfs -N 1000 -i 8192 img
	expect_usage '-N and -i cannot be used together'
	expect_unchanged img "$before"
}

test_bad_sizes() {
	truncate -s 16M img
	local before s
	before=$(fingerprint img)
	for s in 12Q 10X -5 0 1.5G G '' 99999999999T 0x; do
		run_mkfs -- img "$s"
		expect_usage "invalid filesystem size: '$s'"
	done
	# Without --, a negative size reads as an option, as with every getopt tool.
	run_mkfs img -5
	expect_usage "invalid option -- '5'"
	expect_unchanged img "$before"
	run_mkfs new.img 12Q
	expect_usage "invalid filesystem size"
	[ ! -e new.img ] || fail "a bad size created new.img"
	# Bigger than stalefs can address (2^48 blocks).
	run_mkfs -n huge.img 2000000T
	expect_rc 8
	[ ! -e huge.img ] || fail "huge.img created"
}

test_missing_device() {
	run_mkfs
	expect_usage 'no device specified'
	run_mkfs -q -L x
	expect_usage 'no device specified'
}

test_extra_arguments() {
	truncate -s 16M img
	local before
	before=$(fingerprint img)
	run_mkfs img 16M surplus
	expect_usage 'unexpected argument: surplus'
	expect_unchanged img "$before"
}

test_unknown_option() {
	truncate -s 16M img
	run_mkfs -Z img
	expect_rc 16
	expect_err 'invalid option'
	expect_err '^Usage: '
	run_mkfs -b
	expect_rc 16
	expect_err 'requires an argument'
}

test_populate_tree_does_not_fit() {
	old_image img
	local before
	before=$(fingerprint img)
	mkdir tree
	head -c $((24 << 20)) /dev/urandom >tree/big
	run_mkfs -d tree img
	expect_rc 8
	expect_err 'tree does not fit: it needs [0-9]+ inodes and about [0-9]+ blocks'
	expect_unchanged img "$before"
	expect_sb img label old
	# Too many inodes rather than blocks.
	rm -rf tree
	mkdir tree
	for i in $(seq 1 40); do : >tree/f$i; done
	run_mkfs -N 16 -d tree img
	expect_rc 8
	expect_err 'does not fit: it needs 40 inodes'
	expect_unchanged img "$before"
	# A missing file is not created when the tree is refused.
	run_mkfs -N 16 -d tree new.img 16M
	expect_rc 8
	[ ! -e new.img ] || fail "a refused -d left new.img behind"
}

# Linux itself keeps names to 255 bytes (NAME_MAX), so no source tree can hold a
# longer one; the nearest thing a tree can hold is a symlink target longer than
# a 1 KiB block, which stalefs cannot store.  A 255-byte name is copied fine.
test_populate_name_limits() {
	old_image img
	local before long
	before=$(fingerprint img)
	mkdir tree
	long=$(printf 'n%.0s' $(seq 1 255))
	echo max >"tree/$long"
	ln -s "$(printf 't%.0s' $(seq 1 1500))" tree/longlink
	run_mkfs -b 1024 -d tree img
	expect_rc 8
	expect_err 'cannot copy tree/longlink: symbolic link target longer than the block size'
	expect_unchanged img "$before"
	rm tree/longlink
	"$READBACK" manifest tree >manifest
	run_mkfs -q -d tree img
	expect_rc 0
	"$READBACK" compare img tree manifest || fail "the 255-byte name did not round-trip"
	# Longer than NAME_MAX cannot even be made: say so, so nobody thinks it was tested.
	if touch "tree/$long-x" 2>/dev/null; then
		fail "this filesystem accepts names over 255 bytes: extend the test to mkfs -d with one"
	fi
}

test_populate_bad_directory() {
	old_image img
	local before
	before=$(fingerprint img)
	run_mkfs -d no-such-dir img
	expect_rc 8
	expect_err 'No such file or directory while reading no-such-dir'
	echo x >afile
	run_mkfs -d afile img
	expect_rc 8
	expect_err 'Not a directory while reading afile'
	expect_unchanged img "$before"
}
