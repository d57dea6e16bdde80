# mkfs -d round trip: a tree holding every kind of file, copied in and read
# back through the library file by file (mkfs_readback compare).

# make_tree DIR MAXLINK: every file type, sparse layouts, links, modes, owners
# and nanosecond times.  MAXLINK is the longest symlink target to include.
make_tree() {
	local t=$1 maxlink=$2
	mkdir -p "$t"/a/b/c "$t"/empty-dir "$t"/sticky "$t"/other
	: >"$t"/empty
	printf hello >"$t"/hello
	head -c 4095 /dev/urandom >"$t"/a/4095
	head -c 4096 /dev/urandom >"$t"/a/4096
	head -c 4097 /dev/urandom >"$t"/a/4097
	head -c $((3 << 20)) /dev/urandom >"$t"/a/b/three-mib
	head -c $((5 << 20 | 1234)) /dev/urandom >"$t"/a/b/c/five-mib-odd
	# Sparse: holes at the start, in the middle, at the end, only holes, unaligned data.
	dd if=/dev/urandom of="$t"/hole-start bs=4096 seek=256 count=2 status=none
	dd if=/dev/urandom of="$t"/hole-middle bs=65536 count=1 status=none
	dd if=/dev/urandom of="$t"/hole-middle bs=65536 seek=80 count=1 conv=notrunc status=none
	dd if=/dev/urandom of="$t"/hole-end bs=8192 count=1 status=none
	truncate -s 10M "$t"/hole-end
	truncate -s 100M "$t"/all-hole
	printf 'in the middle of nowhere' | dd of="$t"/unaligned bs=1 seek=3000000 status=none
	# Many extents: a tree with index nodes, not just the seven in the inode.
	local i
	for i in $(seq 0 2 199); do
		dd if=/dev/urandom of="$t"/fragmented bs=4096 seek=$i count=1 conv=notrunc status=none
	done
	# Symlinks: inline (up to 119 bytes) and in a block.
	ln -s hello "$t"/link-short
	ln -s "$(printf 'x%.0s' $(seq 1 119))" "$t"/link-119
	ln -s "$(printf 'y%.0s' $(seq 1 120))" "$t"/link-120
	ln -s "$(printf 'z%.0s' $(seq 1 "$maxlink"))" "$t"/link-long
	ln -s /nonexistent/dangling "$t"/a/dangling
	# Special files.
	mkfifo "$t"/fifo
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$t"/socket ||
		fail "cannot make a socket with python3"
	mknod "$t"/null c 1 3 || fail "mknod needs root"
	mknod "$t"/bigdev c 300 70000
	mknod "$t"/loopdev b 7 0
	# Hard links across directories, of a file and of a symlink.
	printf 'linked' >"$t"/a/hard
	ln "$t"/a/hard "$t"/other/hard-too
	ln "$t"/a/hard "$t"/a/b/c/hard-three
	ln -P "$t"/link-short "$t"/other/link-hard
	# Unusual modes.
	printf s >"$t"/setuid && chmod 4755 "$t"/setuid
	printf g >"$t"/setgid && chmod 2710 "$t"/setgid
	printf z >"$t"/mode000 && chmod 000 "$t"/mode000
	chmod 1777 "$t"/sticky
	chmod 0700 "$t"/a/b
	# Owners, 32-bit ones included.
	chown 1000:1000 "$t"/hello
	chown 65534:65534 "$t"/a/4096
	chown 12345:54321 "$t"/a
	chown -h 4000000000:3000000000 "$t"/link-long
	chown 7:8 "$t"/fifo "$t"/other/hard-too
	# Nanosecond times, before 1970 and after 2038 too; directories last.
	touch -h -m -d '2001-02-03 04:05:06.123456789' "$t"/hello "$t"/link-short "$t"/fifo
	touch -h -a -d '2002-03-04 05:06:07.987654321' "$t"/hello "$t"/link-short "$t"/fifo
	touch -m -d '1969-07-20 20:17:40.000000001' "$t"/a/4095
	touch -a -d '2100-01-01 00:00:00.999999999' "$t"/a/4095
	touch -h -d '2038-01-19 03:14:08.5' "$t"/link-120 "$t"/null
	touch -d '1999-12-31 23:59:59.111111111' "$t"/hole-middle
	touch -d '2010-10-10 10:10:10.101010101' "$t"/a/b/c "$t"/empty-dir
	touch -d '2011-11-11 11:11:11.111111111' "$t"/a/b "$t"/sticky
	touch -d '2012-12-12 12:12:12.121212121' "$t"/a "$t"/other
	touch -d '2013-01-13 13:13:13.131313131' "$t"
}

# round_trip BLOCKSIZE MAXLINK
round_trip() {
	make_tree tree "$2"
	"$READBACK" manifest tree >manifest || fail "cannot take the manifest"
	run_mkfs -b "$1" -d tree img 256M
	expect_rc 0
	expect_out '^Copying files into the device: done$'
	"$READBACK" compare img tree manifest >compare.out 2>&1 || { cat compare.out; fail "-b $1: the image differs from the tree"; }
	cat compare.out
	grep -q "^ok: $(($(wc -l <manifest) + 1)) inodes compared with the tree" compare.out ||
		fail "not every entry was compared (manifest has $(wc -l <manifest) entries, plus lost+found)"
}

test_populate_round_trip_4k() {
	round_trip 4096 3000
}

test_populate_round_trip_2k() {
	round_trip 2048 2000
}

test_populate_round_trip_1k() {
	round_trip 1024 1000
}

# Sparse files stay sparse: the image holds about what the tree's data needs, not its sizes.
test_populate_sparse_stays_sparse() {
	mkdir tree
	local i
	for i in 1 2 3 4; do
		truncate -s 1G tree/sparse$i
		printf 'data' | dd of=tree/sparse$i bs=1 seek=$((i << 20)) conv=notrunc status=none
	done
	"$READBACK" manifest tree >manifest
	run_mkfs -q -d tree img 64M
	expect_rc 0
	"$READBACK" compare img tree manifest || fail "sparse files did not round-trip"
	# Four 1 GiB files in a 64 MiB filesystem: only possible if the holes stayed holes.
	sb img free_blocks_count
	[ "$SBV" -gt 14000 ] || fail "only $SBV blocks free after copying four 4-byte data blocks"
}

test_populate_hard_links_and_counts() {
	mkdir -p tree/d1 tree/d2 tree/d3
	echo one >tree/d1/f
	for i in $(seq 1 20); do ln tree/d1/f tree/d$((i % 3 + 1))/link$i; done
	"$READBACK" manifest tree >manifest
	run_mkfs -q -d tree img 16M
	expect_rc 0
	"$READBACK" compare img tree manifest || fail "21 names of one file did not round-trip"
}

# Many entries in one directory: directory blocks beyond the first, and beyond the inode's extents.
test_populate_big_directory() {
	mkdir -p tree/big
	local i
	for i in $(seq 1 3000); do : >"tree/big/entry-with-a-longish-name-$i"; done
	"$READBACK" manifest tree >manifest
	run_mkfs -q -b 1024 -N 4000 -d tree img 32M
	expect_rc 0
	"$READBACK" compare img tree manifest >compare.out || { cat compare.out; fail "big directory did not round-trip"; }
}

# The checker itself: differences between tree and image must be reported, each one.
test_readback_detects_differences() {
	make_tree tree 500
	"$READBACK" manifest tree >manifest
	run_mkfs -q -d tree img 256M
	expect_rc 0
	"$READBACK" compare img tree manifest >/dev/null || fail "the untouched tree does not compare equal"
	# Same size, one byte different, deep inside a multi-MiB file. The file is random,
	# so the byte written must be chosen to differ from the one already there.
	local was new=X
	was=$(head -c 2000001 tree/a/b/three-mib | tail -c 1 | od -An -tx1 | tr -d ' ')
	[ "$was" = 58 ] && new=Y
	printf '%s' "$new" | dd of=tree/a/b/three-mib bs=1 seek=2000000 conv=notrunc status=none
	cmp -s <(head -c 2000001 tree/a/b/three-mib | tail -c 1) <(printf '%s' "$new") || fail "could not alter the file"
	rm tree/link-120 && ln -s "$(printf 'w%.0s' $(seq 1 120))" tree/link-120
	echo extra >tree/other/new-file
	"$READBACK" manifest tree >manifest2
	sed -i 's/^100644 1000 1000 /100600 1000 1000 /' manifest2
	"$READBACK" compare img tree manifest2 >compare.out && { cat compare.out; fail "differences went unnoticed"; }
	cat compare.out
	grep -q 'MISMATCH a/b/three-mib: contents differ at byte 2000000' compare.out || fail "content change not reported"
	grep -q "MISMATCH link-120: symlink to 'yyy" compare.out || fail "symlink change not reported"
	grep -q 'MISMATCH other/new-file: in the source tree but not in the image' compare.out || fail "new file not reported"
	grep -q 'MISMATCH hello: mode 0100644, source 0100600' compare.out || fail "mode change not reported"
	grep -q 'MISMATCH a/b/three-mib: mtime' compare.out || fail "mtime change not reported"
}
