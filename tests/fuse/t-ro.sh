# Read-only mounts (-o ro): the image is opened O_RDONLY and not one byte of it
# changes; a journal that needs recovery is replayed in memory (the mount
# shows the state after recovery) unless -o norecovery (the state on disk).

# make_dirty OLD NEW OUT: OUT is OLD with the blocks where NEW differs from it
# logged as one committed jbd2 transaction (debugfs journal_write), not
# replayed: what a crash after a commit and before its checkpoint leaves.  The
# superblock's block and the journal's own blocks are left out.
make_dirty() {
	python3 - "$1" "$2" <<'PY' >dirty.list || fail "comparing $1 and $2"
import struct, sys
a, b = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
sb = a[1024:2048]
bs = 1024 << struct.unpack_from('<I', sb, 0x0C)[0]
jstart, jlen = struct.unpack_from('<Q', sb, 0x170)[0], struct.unpack_from('<I', sb, 0x178)[0]
sb_block = 1024 // bs
diff = [n for n in range(len(a) // bs)
        if n != sb_block and not jstart <= n < jstart + jlen and a[n * bs:(n + 1) * bs] != b[n * bs:(n + 1) * bs]]
with open('dirty.blocks', 'wb') as f:
    for n in diff:
        f.write(b[n * bs:(n + 1) * bs])
print(','.join(map(str, diff)))
PY
	[ -s dirty.list ] || fail "$1 and $2 do not differ"
	cp "$1" "$3"
	printf 'jo\njw -b %s dirty.blocks\njc\n' "$(cat dirty.list)" >dirty.cmds
	"$DEBUGFS" -w -f dirty.cmds "$3" >dirty.out 2>&1 || { cat dirty.out; fail "debugfs journal_write"; }
	"$DEBUGFS" -R "logdump" "$3" 2>&1 | grep -q "Found expected sequence .*commit" || fail "no committed transaction in $3"
}

# The server's descriptors of IMAGE are all read-only.
expect_fds_read_only() {
	local pid=$1 img fd n=0 flags
	img=$(readlink -f "$2")
	for fd in /proc/"$pid"/fd/*; do
		[ "$(readlink "$fd")" = "$img" ] || continue
		n=$((n + 1))
		flags=$(awk '/^flags:/ {print $2}' /proc/"$pid"/fdinfo/"$(basename "$fd")")
		[ $((8#$flags & 3)) -eq 0 ] || fail "the server holds $img open with flags $flags (not O_RDONLY)"
	done
	[ $n -gt 0 ] || fail "the server has no descriptor of $img"
}

test_read_only_never_writes() {
	mkimg img 64M
	sfuse_mount img m
	mkdir m/d && echo content >m/d/f && setfattr -n user.a -v 1 m/d/f
	sfuse_umount m
	before=$(img_hash img)
	sfuse_mount img m -o ro
	expect_fds_read_only "$SFUSE_PID" img
	expect_eq "$(cat m/d/f)" content "a file read through a read-only mount"
	ls -laR m >/dev/null
	getfattr -d m/d/f >/dev/null
	for op in "touch m/new" "mkdir m/x" "rm m/d/f" "setfattr -n user.b -v 2 m/d/f" "chmod 600 m/d/f" \
		  "truncate -s 0 m/d/f" "mv m/d/f m/g"; do
		$op 2>err && fail "$op succeeded on a read-only mount"
		grep -q "Read-only file system" err || fail "$op: $(cat err)"
	done
	sfuse_umount m
	expect_eq "$(img_hash img)" "$before" "the image's hash after a read-only mount"
}

test_journal_replayed_in_memory() {
	mkimg img 64M
	sfuse_mount img m
	echo before >m/old
	sfuse_umount m
	cp img new.img
	sfuse_mount new.img m
	echo after >m/new && mkdir m/dir && ln -s new m/link && rm m/old
	sfuse_umount m
	make_dirty img new.img dirty.img
	before=$(img_hash dirty.img)
	# -o ro: the journal replayed in memory only
	sfuse_mount dirty.img m -o ro
	expect_fds_read_only "$SFUSE_PID" dirty.img
	expect_eq "$(cat m/new 2>&1)" after "a file the journal holds"
	[ -d m/dir ] && [ -L m/link ] || fail "the journal's directory or symlink is missing"
	[ -e m/old ] && fail "a file the journal removes is still there"
	grep -q "replayed in memory" "$SFUSE_LOG" || fail "the server did not say it replayed in memory"
	sfuse_umount m
	expect_eq "$(img_hash dirty.img)" "$before" "the image's hash after replaying in memory"
	# -o ro,norecovery: the disk as it is
	sfuse_mount dirty.img m -o ro,norecovery
	expect_eq "$(cat m/old 2>&1)" before "the disk's state under norecovery"
	[ -e m/new ] && fail "norecovery replayed the journal"
	sfuse_umount m
	expect_eq "$(img_hash dirty.img)" "$before" "the image's hash after norecovery"
	# norecovery read-write would be undone by the next replay: refused
	sfuse_mount_fails dirty.img m "norecovery needs -o ro" -o norecovery
	# read-write: replayed for real, as the kernel's mount would
	sfuse_mount dirty.img m
	expect_eq "$(cat m/new 2>&1)" after "a file the journal holds, after a real replay"
	sfuse_umount m
	fsck_clean dirty.img
}

test_damaged_read_only_opens_anyway() {
	mkimg img 64M
	sfuse_mount img m
	echo hello >m/f
	sfuse_umount m
	# A group descriptor's checksum broken: read-write is refused, read-only serves what it can.
	"$DEBUGFS" -w -R "set_bg 0 checksum 0x1234" img >/dev/null 2>&1 || fail "debugfs set_bg"
	before=$(img_hash img)
	sfuse_mount_fails img m "run fsck.stalefs"
	sfuse_mount img m -o ro
	grep -q "opening anyway" "$SFUSE_LOG" || fail "the server did not warn about the damage"
	expect_eq "$(cat m/f)" hello "a file on a damaged read-only image"
	sfuse_umount m
	expect_eq "$(img_hash img)" "$before" "a damaged image's hash after a read-only mount"
}
