# mkfs -d copies extended attributes: user., trusted., security. and the POSIX
# ACLs (set with setfacl, as the kernel encodes them), on files, directories,
# symlinks and the root; read back with debugfs.stalefs ea_list / ea_get -f and
# compared byte for byte with what the source holds; in the inode with -I 512,
# in a block when large; an attribute that fits nowhere fails naming the file
# and the attribute; -O ^xattr copies none and says so.  The scratch
# directory must support user xattrs and ACLs: if it does not, the tests fail
# (they do not skip).

# debugfs and fsck of the same build as the mkfs under test.
xattr_tools() {
	DEBUGFS=$(dirname "$MKFS")/debugfs.stalefs
	FSCK=$(dirname "$MKFS")/fsck.stalefs
	[ -x "$DEBUGFS" ] || fail "$DEBUGFS is not built: make check-mkfs builds it"
	[ -x "$FSCK" ] || fail "$FSCK is not built: make check-mkfs builds it"
}

# xattr_tree DIR BIG: a tree with attributes of every namespace stalefs holds;
# BIG=yes adds a file with a 3000-byte value (more than any in-inode area holds)
# and one with the longest name Linux allows (too long for a 512-byte inode's area).
xattr_tree() {
	local t=$1
	mkdir -p "$t"/dir "$t"/plain
	printf 'data\n' >"$t"/file
	ln -s file "$t"/link
	setfattr -n user.greeting -v hello "$t"/file 2>err ||
		fail "the scratch filesystem ($(pwd)) does not support user xattrs: $(cat err)"
	setfattr -n user.binary -v 0x0001ff7f80 "$t"/file
	setfattr -n user.empty "$t"/file
	setfattr -n trusted.owner -v root-only "$t"/file || fail "setting trusted.* needs root"
	setfattr -n security.label -v 'system_u:object_r:etc_t:s0' "$t"/file
	setfacl -m u:1234:rw,g:56:r "$t"/file 2>err ||
		fail "the scratch filesystem ($(pwd)) does not support POSIX ACLs: $(cat err)"
	setfacl -d -m u:1234:rwx "$t"/dir || fail "setfacl -d failed"
	setfacl -m u:99:rx "$t"/dir
	setfattr -n user.in-dir -v 1 "$t"/dir
	setfattr -h -n trusted.on-link -v 'a symlink' "$t"/link || fail "trusted.* on a symlink"
	setfattr -n user.root -v top "$t"
	if [ "$2" = yes ]; then
		local long
		long=$(printf 'n%.0s' $(seq 1 250))	# Linux: 255 bytes with the prefix
		setfattr -n "user.$long" -v 'longest name' "$t"/plain
		head -c 3000 /dev/urandom >big.val
		printf 'x' >"$t"/big
		setfattr -n user.big -v "0x$(od -An -tx1 -v big.val | tr -d ' \n')" "$t"/big
	fi
	getfattr -d -m - "$t"/dir | grep -q 'system.posix_acl_default' ||
		fail "the default ACL did not reach the source tree"
}

# expect_xattrs_copied IMAGE TREE: every attribute of every path, same names, same bytes.
expect_xattrs_copied() {
	local img=$1 t=$2 p rel name n=0
	while IFS= read -r p; do
		rel=${p#"$t"}
		[ -z "$rel" ] && rel=/
		python3 -c 'import os, sys; print("\n".join(sorted(os.listxattr(sys.argv[1], follow_symlinks=False))))' "$p" | sed '/^$/d' >want.names
		"$DEBUGFS" -R "ea_list $rel" "$img" >list.out 2>list.err || fail "ea_list $rel: $(cat list.err)"
		sed -n 's/^  \(.*\) ([0-9]*)\( = .*\)\{0,1\}$/\1/p' list.out | LC_ALL=C sort >got.names
		cmp -s want.names got.names || { diff want.names got.names; fail "$rel: the attribute names differ"; }
		while IFS= read -r name; do
			[ -z "$name" ] && continue
			python3 -c 'import os, sys; sys.stdout.buffer.write(os.getxattr(sys.argv[1], sys.argv[2], follow_symlinks=False))' \
				"$p" "$name" >want.val
			rm -f got.val
			"$DEBUGFS" -R "ea_get -f got.val $rel $name" "$img" 2>get.err || fail "ea_get $rel $name: $(cat get.err)"
			cmp -s want.val got.val || fail "$rel: $name differs ($(od -An -tx1 want.val | head -2) vs $(od -An -tx1 got.val | head -2))"
			n=$((n + 1))
		done <want.names
	done < <(find "$t")
	echo "compared $n attributes"
	[ $n -gt 0 ] || fail "no attribute compared"
}

file_acl() {	# file_acl IMAGE PATH: the xattr block stat shows
	"$DEBUGFS" -R "stat $2" "$1" 2>/dev/null | sed -n 's/^File ACL: \([0-9]*\)$/\1/p'
}

expect_fsck_clean() {
	local frc=0
	"$FSCK" -fn "$1" >fsck.out 2>&1 || frc=$?
	[ $frc -eq 0 ] || { cat fsck.out; fail "fsck -fn $1: exit $frc"; }
}

# The fsck of this branch may not account xattr blocks yet (the fsck side is its own
# branch): asserted once fsck/ knows i_xattr_block, noted before.
expect_fsck_clean_with_blocks() {
	local here
	here=$(cd "$(dirname "$MKFS")/../.." 2>/dev/null && pwd)
	if grep -q i_xattr_block "$here"/fsck/*.c 2>/dev/null; then
		expect_fsck_clean "$1"
	else
		echo "NOTE: fsck -fn $1 not asserted: fsck/ does not know xattr blocks yet"
	fi
}

test_xattr_copy_256() {
	xattr_tools
	xattr_tree tree yes
	run_mkfs -b 4096 -d tree img 32M
	expect_rc 0
	[ ! -s err ] || fail "mkfs -d printed on stderr: $(cat err)"
	expect_xattrs_copied img tree
	# 256-byte inodes have no in-inode area: every file with attributes has a block
	for f in /file /dir /link /big /; do
		blk=$(file_acl img $f)
		[ -n "$blk" ] && [ "$blk" -gt 0 ] || fail "$f: no xattr block (File ACL '$blk')"
	done
	expect_fsck_clean_with_blocks img
}

test_xattr_copy_512_in_inode() {
	xattr_tools
	xattr_tree tree no
	run_mkfs -b 4096 -I 512 -d tree img 32M
	expect_rc 0
	[ ! -s err ] || fail "mkfs -d printed on stderr: $(cat err)"
	expect_xattrs_copied img tree
	for f in /file /dir /link /; do
		[ "$(file_acl img $f)" = 0 ] || fail "-I 512: $f has an xattr block ($(file_acl img $f)): expected in the inode"
	done
	expect_fsck_clean img
}

test_xattr_copy_512_spill() {
	xattr_tools
	xattr_tree tree yes
	run_mkfs -b 4096 -I 512 -d tree img 32M
	expect_rc 0
	expect_xattrs_copied img tree
	[ "$(file_acl img /file)" = 0 ] || fail "-I 512: /file should hold its attributes in the inode"
	blk=$(file_acl img /big)
	[ -n "$blk" ] && [ "$blk" -gt 0 ] || fail "-I 512: the 3000-byte value should be in a block"
	blk=$(file_acl img /plain)
	[ -n "$blk" ] && [ "$blk" -gt 0 ] || fail "-I 512: a 255-byte name does not fit in the area: a block"
	expect_fsck_clean_with_blocks img
}

test_xattr_no_space() {
	xattr_tools
	mkdir tree
	printf 'x' >tree/victim
	head -c 2000 /dev/zero >v.val
	setfattr -n user.too-big -v "0x$(od -An -tx1 -v v.val | tr -d ' \n')" tree/victim 2>err ||
		fail "the scratch filesystem does not support user xattrs: $(cat err)"
	# 1024-byte blocks: at most 1024 - 36 - 7 bytes of value for user.too-big
	run_mkfs -b 1024 -d tree img 16M
	expect_rc 8
	expect_err 'No space for the extended attribute.*tree/victim, extended attribute user.too-big'
}

# The size check counts xattr blocks: a tree whose data fits and whose
# attributes do not is refused before anything is written.
test_xattr_tree_does_not_fit() {
	xattr_tools
	old_image img
	local before
	before=$(fingerprint img)
	mkdir tree
	python3 - tree <<'PY' || fail "the scratch filesystem does not support user xattrs"
import os, sys
for i in range(1200):
    p = os.path.join(sys.argv[1], "f%04d" % i)
    open(p, "w").close()
    os.setxattr(p, "user.v", b"v" * 2000)
PY
	run_mkfs -N 2048 -O ^has_journal -d tree img 4M
	expect_rc 8
	expect_err 'tree does not fit: it needs 1200 inodes and about [0-9]+ blocks'
	expect_unchanged img "$before"
}

test_xattr_feature_off() {
	xattr_tools
	mkdir tree
	printf 'x' >tree/f
	setfattr -n user.a -v 1 tree/f 2>err || fail "the scratch filesystem does not support user xattrs: $(cat err)"
	run_mkfs -b 4096 -O ^xattr -d tree img 16M
	expect_rc 0
	expect_err 'warning: tree/f: extended attributes not copied: the filesystem has no xattr feature'
	"$DEBUGFS" -R "ea_list /f" img >list.out 2>&1
	[ ! -s list.out ] || fail "-O ^xattr: attributes were copied: $(cat list.out)"
	"$DEBUGFS" -R stats img | grep -qE '^Filesystem features:.*xattr' && fail "-O ^xattr: the feature was set"
	expect_fsck_clean img
}
