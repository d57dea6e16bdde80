# The operations a user makes through the mount, each checked for what it
# should do, then the image unmounted and checked: fsck.stalefs -fn clean,
# and what the mount showed is what debugfs.stalefs reads from the image.

# test data: N bytes of a pattern that names its offset
pattern_file() {
	python3 -c "import sys; n=int(sys.argv[1]); sys.stdout.buffer.write(b''.join(b'%015d\n' % i for i in range(0, n, 16))[:n])" "$2" >"$1"
}

test_files_and_directories() {
	mkimg img 128M
	sfuse_mount img m
	# write, read back, append, overwrite in the middle, sizes
	pattern_file p1 300000
	cp p1 m/f
	cmp p1 m/f || fail "m/f reads back differently"
	printf 'tail' >>m/f
	expect_eq "$(stat -c %s m/f)" 300004 "size after append"
	printf 'XYZ' | dd of=m/f bs=1 seek=5000 conv=notrunc status=none
	expect_eq "$(dd if=m/f bs=1 skip=5000 count=3 status=none)" XYZ "overwritten bytes"
	# truncate down and up: the tail reads zeros
	truncate -s 1000 m/f
	truncate -s 9000 m/f
	expect_eq "$(tail -c 8000 m/f | tr -d '\0' | wc -c)" 0 "bytes past a truncation"
	expect_eq "$(head -c 1000 m/f | cmp - <(head -c 1000 p1) && echo same)" same "bytes before a truncation"
	# directories: mkdir, nested, rmdir of a non-empty one refused, link counts
	mkdir -p m/a/b/c
	expect_eq "$(stat -c %h m/a)" 3 "link count of a directory with one subdirectory"
	rmdir m/a 2>err && fail "rmdir of a non-empty directory succeeded"
	grep -q "not empty" err || fail "rmdir of a non-empty directory: $(cat err)"
	rmdir m/a/b/c
	expect_eq "$(stat -c %h m/a/b)" 2 "link count after rmdir"
	# many entries in one directory, listed back
	for i in $(seq 1 300); do : >"m/a/entry-$i"; done
	expect_eq "$(ls m/a | grep -c '^entry-')" 300 "entries listed"
	rm m/a/entry-1*
	expect_eq "$(ls m/a | grep -c '^entry-')" 189 "entries after removing 111"
	# symlinks, short (in the inode) and long (in a block)
	ln -s f m/short
	long=$(printf 'x%.0s' $(seq 1 300))
	ln -s "$long" m/long
	expect_eq "$(readlink m/short)" f "short symlink"
	expect_eq "$(readlink m/long)" "$long" "long symlink"
	# hard links
	ln m/f m/a/hard
	expect_eq "$(stat -c %h m/f)" 2 "link count after ln"
	rm m/f
	expect_eq "$(stat -c %h m/a/hard)" 1 "link count after rm"
	# device nodes and a fifo
	mknod m/chr c 4 5
	mkfifo m/fifo
	expect_eq "$(stat -c '%F %t:%T' m/chr)" "character special file 4:5" "device node"
	expect_eq "$(stat -c %F m/fifo)" "fifo" "fifo"
	# attributes: chmod, chown, times
	chown 1234:5678 m/a/hard
	chmod 4751 m/a/hard
	touch -d '2001-02-03 04:05:06.123456789' m/a/hard
	expect_eq "$(stat -c '%a %u %g %y' m/a/hard)" "4751 1234 5678 2001-02-03 04:05:06.123456789 +0000" "chmod/chown/touch"
	sfuse_umount m
	fsck_clean img
	# What the image holds, read by another tool.
	"$DEBUGFS" -R "stat a/hard" img >stat.out 2>&1
	grep -q "Links: 1" stat.out || { cat stat.out; fail "debugfs: a/hard's link count"; }
	"$DEBUGFS" -R "stat long" img 2>&1 | grep -q "Size: 300" || fail "debugfs: the long symlink's size"
	"$DEBUGFS" -R "dump a/hard out.hard" img >/dev/null 2>&1
	cmp out.hard <(head -c 1000 p1; head -c 8000 /dev/zero) || fail "debugfs dump of a/hard differs"
}

test_unlink_while_open() {
	mkimg img 64M
	sfuse_mount img m
	echo "still here" >m/gone
	exec 3<m/gone
	rm m/gone
	read -r line <&3
	expect_eq "$line" "still here" "reading an unlinked open file"
	# The orphan survives a commit (fsync of another file) and the image stays checkable.
	echo x >m/other && sync m/other
	free_before=$(stat -f -c %f m)
	exec 3<&-
	# Freed once closed and forgotten: the free count goes back up (eventually: forget is lazy).
	for i in $(seq 50); do
		[ "$(stat -f -c %f m)" -gt "$free_before" ] && break
		echo 2 >/proc/sys/vm/drop_caches; sleep 0.1
	done
	sfuse_umount m
	fsck_clean img
	"$DEBUGFS" -R "ls /" img 2>/dev/null | grep -q gone && fail "the unlinked file still has a name"
	true
}

test_rename_flavours() {
	mkimg img 64M
	sfuse_mount img m
	mkdir -p m/d1/sub m/d2
	echo one >m/d1/a
	echo two >m/d2/b
	# plain, across directories, replacing
	mv m/d1/a m/d2/b
	expect_eq "$(cat m/d2/b)" one "rename over an existing file"
	[ -e m/d1/a ] && fail "the old name is still there"
	# a directory to another parent: link counts follow, .. points to the new parent
	mv m/d1/sub m/d2/
	expect_eq "$(stat -c %h m/d1) $(stat -c %h m/d2)" "2 3" "parents' link counts after moving a directory"
	expect_eq "$(stat -c %i m/d2/sub/..)" "$(stat -c %i m/d2)" "inode of .. after the move"
	# a directory into itself is refused
	mv m/d2 m/d2/sub/x 2>err && fail "moving a directory into itself succeeded"
	# RENAME_NOREPLACE
	echo three >m/d2/c
	probe rename2 m/d2/b m/d2/c noreplace
	expect_eq "$ERRNO" EEXIST "RENAME_NOREPLACE over an existing name"
	probe rename2 m/d2/b m/d2/new noreplace
	expect_eq "$ERRNO" 0 "RENAME_NOREPLACE to a new name"
	# RENAME_EXCHANGE, a file with a directory, across parents
	probe rename2 m/d2/new m/d2/sub exchange
	expect_eq "$ERRNO" 0 "RENAME_EXCHANGE"
	expect_eq "$(cat m/d2/sub)" one "the file took the directory's name"
	[ -d m/d2/new ] || fail "the directory did not take the file's name"
	probe rename2 m/d2/c m/d1/none exchange
	expect_eq "$ERRNO" ENOENT "RENAME_EXCHANGE with a missing target"
	# RENAME_WHITEOUT leaves a 0:0 character device behind
	probe rename2 m/d2/c m/d1/c whiteout
	expect_eq "$ERRNO" 0 "RENAME_WHITEOUT"
	expect_eq "$(stat -c '%F %t:%T' m/d2/c)" "character special file 0:0" "the whiteout"
	# a directory over an empty directory, and over a non-empty one
	mkdir m/e1 m/e2 m/e3 && : >m/e3/x
	mv -T m/e1 m/e2 || fail "rename of a directory over an empty one"
	mv -T m/e2 m/e3 2>/dev/null && fail "rename of a directory over a non-empty one succeeded"
	sfuse_umount m
	fsck_clean img
}

test_xattrs_and_acls() {
	mkimg img 64M
	# allow_other: other users (nobody, below) may use the mount at all
	sfuse_mount img m -o allow_other
	echo data >m/f
	setfattr -n user.small -v hello m/f
	setfattr -n user.big -v "$(head -c 3000 /dev/zero | tr '\0' v)" m/f
	setfattr -n trusted.t -v secret m/f
	expect_eq "$(getfattr --only-values -n user.small m/f)" hello "user xattr"
	expect_eq "$(getfattr --only-values -n user.big m/f | wc -c)" 3000 "a value in the xattr block"
	getfattr -d -m - m/f | grep -q 'trusted.t="secret"' || fail "trusted xattr not listed"
	setfattr -x user.small m/f
	getfattr -n user.small m/f 2>err && fail "a removed xattr is still there"
	grep -q "No such attribute" err || fail "removed xattr: $(cat err)"
	# An access ACL: the mode's group bits become the mask; chmod rewrites the mask.
	setfacl -m u:1000:rwx,g::r m/f
	expect_eq "$(stat -c %a m/f)" 674 "mode after setfacl"
	getfacl -c m/f | grep -q '^mask::rwx' || fail "ACL mask"
	chmod 640 m/f
	getfacl -c m/f | grep -q '^mask::r--' || { getfacl -c m/f; fail "chmod did not rewrite the ACL mask"; }
	# An ACL that says no more than the mode is not kept.
	setfacl -b m/f
	getfattr -m - -d m/f 2>/dev/null | grep -q posix_acl && fail "an emptied ACL was kept"
	# A default ACL is inherited, and replaces the umask.
	mkdir m/d
	setfacl -d -m u:2000:rw,g::rx,o::- m/d
	(umask 077; : >m/d/new; mkdir m/d/sub)
	getfacl -c m/d/new | grep -q '^user:2000:rw-' || { getfacl -c m/d/new; fail "default ACL not inherited"; }
	getfacl -c m/d/sub | grep -q '^default:user:2000:rw-' || { getfacl -c m/d/sub; fail "a subdirectory did not get the default ACL"; }
	# Without a default ACL, the umask applies.
	(umask 027; : >m/plain)
	expect_eq "$(stat -c %a m/plain)" 640 "mode with umask 027"
	# ACLs are enforced: a user the ACL lets in can read, another cannot.
	echo secret >m/acl && chmod 600 m/acl && setfacl -m u:65534:r m/acl
	setpriv --reuid=65534 --regid=65534 --clear-groups cat m/acl >/dev/null 2>&1 || fail "the ACL did not let nobody read"
	setfacl -x u:65534 m/acl
	setpriv --reuid=65534 --regid=65534 --clear-groups cat m/acl >/dev/null 2>&1 && fail "nobody read a file the ACL no longer allows"
	sfuse_umount m
	fsck_clean img
	"$DEBUGFS" -R "ea_get f user.big" img >ea.out 2>&1 || { cat ea.out; fail "debugfs ea_get"; }
}

test_fallocate_and_seek() {
	mkimg img 64M
	sfuse_mount img m
	f=m/sparse
	# fallocate: space allocated, reading zeros, size grown; KEEP_SIZE leaves the size
	fallocate -l 1M $f
	expect_eq "$(stat -c %s $f)" 1048576 "size after fallocate"
	expect_eq "$(tr -d '\0' <$f | wc -c)" 0 "preallocated space reads zeros"
	[ "$(stat -c %b $f)" -ge 2048 ] || fail "fallocate allocated $(stat -c %b $f) sectors"
	fallocate -n -o 2M -l 1M $f
	expect_eq "$(stat -c %s $f)" 1048576 "size after fallocate -k"
	# data in the middle; SEEK_DATA/SEEK_HOLE see it (unwritten space is a hole)
	printf 'data!' | dd of=$f bs=1 seek=300000 conv=notrunc status=none
	probe seek $f 0 data
	expect_eq "$ERRNO" $((300000 / 4096 * 4096)) "SEEK_DATA from 0"
	probe seek $f 300000 hole
	expect_eq "$ERRNO" $((300000 / 4096 * 4096 + 4096)) "SEEK_HOLE from the data"
	probe seek $f 2000000 data
	expect_eq "$ERRNO" ENXIO "SEEK_DATA past the size"
	# punch: the range reads zeros and its blocks go; the bytes around it stay
	head -c 65536 /dev/urandom >rand
	cp rand m/p
	blocks=$(stat -c %b m/p)
	fallocate -p -o 4096 -l 16384 m/p
	cmp <(head -c 4096 rand) <(head -c 4096 m/p) || fail "bytes before a punch changed"
	expect_eq "$(dd if=m/p bs=4096 skip=1 count=4 status=none | tr -d '\0' | wc -c)" 0 "punched range"
	[ "$(stat -c %b m/p)" -lt "$blocks" ] || fail "punch freed nothing"
	# zero range: reads zeros, stays allocated; a partial block at its end is zeroed in place
	cp rand m/z
	fallocate -z -o 10000 -l 20000 m/z
	expect_eq "$(dd if=m/z bs=1 skip=10000 count=20000 status=none | tr -d '\0' | wc -c)" 0 "zeroed range"
	cmp <(tail -c +30001 rand) <(tail -c +30001 m/z) || fail "bytes after a zero range changed"
	cmp <(head -c 10000 rand) <(head -c 10000 m/z) || fail "bytes before a zero range changed"
	# NO_HIDE_STALE: not served here
	probe falloc m/z 5 0 4096
	case $ERRNO in EOPNOTSUPP|EINVAL) ;; *) fail "fallocate NO_HIDE_STALE: $ERRNO" ;; esac
	probe stale-ioctl m/z
	expect_eq "$ERRNO" EOPNOTSUPP "STALEFS_IOC_FALLOCATE"
	"$FALLOC" --no-hide-stale -l 4096 m/z 2>/dev/null && fail "stalefs-falloc --no-hide-stale succeeded"
	sfuse_umount m
	fsck_clean img
}

test_statfs_and_full_disk() {
	mkimg img 16M
	sfuse_mount img m
	read -r bs blocks free <<<"$(stat -f -c '%S %b %f' m)"
	expect_eq "$bs $blocks" "4096 4096" "statfs block size and count"
	# Fill it: ENOSPC, not a crash; after removing the file the space comes back.
	dd if=/dev/zero of=m/big bs=1M 2>err && fail "writing more than the disk holds succeeded"
	grep -q "No space left" err || fail "filling the disk: $(cat err)"
	sync m/big
	rm m/big
	sync m
	sfuse_umount m
	fsck_clean img
	sfuse_mount img m
	[ "$(stat -f -c %f m)" -ge "$((free - 8))" ] || fail "free blocks after rm: $(stat -f -c %f m), before $free"
	dd if=/dev/zero of=m/again bs=1M count=8 status=none || fail "the freed space cannot be written again"
	sfuse_umount m
	fsck_clean img
}

test_region_of_a_disk_image() {
	truncate -s 80M disk.img
	mkimg 'disk.img?offset=8M&size=64M' 64M
	sfuse_mount 'disk.img?offset=8M&size=64M' m
	echo inside >m/f
	grep -qF "$(readlink -f disk.img)?offset=8M&size=64M $PWD/m fuse.stalefs" /proc/mounts ||
		fail "/proc/mounts does not name the region: $(grep " $PWD/m " /proc/mounts)"
	# mounted: the tools refuse to write it
	"$FSCK" -fy 'disk.img?offset=8M&size=64M' >out 2>&1 && fail "fsck -fy of a mounted region"
	grep -q "is mounted" out || fail "fsck of a mounted region: $(cat out)"
	"$MKFS" -q 'disk.img?offset=8M' >out 2>&1 && fail "mkfs of a mounted region"
	grep -q "is mounted" out || fail "mkfs of a mounted region: $(cat out)"
	"$(dirname "$MKFS")/tunefs.stalefs" -L x 'disk.img?offset=8M&size=64M' >out 2>&1 && fail "tunefs of a mounted region"
	grep -q "not by the kernel module here" out || fail "tunefs of a mounted region: $(cat out)"
	mkdir m2
	"$SFUSE" -f 'disk.img?offset=8M&size=64M' m2 >out 2>&1 && fail "a second server on a mounted region"
	grep -q "is mounted" out || fail "a second server: $(cat out)"
	sfuse_umount m
	fsck_clean 'disk.img?offset=8M&size=64M'
	expect_eq "$(head -c 8M disk.img | tr -d '\0' | wc -c)" 0 "bytes before the region"
}

# Reads come two ways (fuse/data.c): copied under the lock on a writable mount, spliced from
# the image on a read-only one.  A file of every kind of run -- data, a hole, an UNWRITTEN
# range inside it, a partial last block -- reads the same both ways, in small requests (which
# libfuse never splices) and large ones; O_DIRECT sends every read to the server.
test_reads_copied_and_spliced() {
	local bs want
	mkimg img 64M
	sfuse_mount img m
	python3 - m/f expected <<'PY' || fail "writing the file"
import os, sys
size = 1024 * 1024 + 123
data = bytes((i * 7 + i // 4096) & 255 for i in range(size))
want = bytearray(size)
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o644)
for start, end in ((0, 300 * 1024), (600 * 1024 + 5, size)):
    os.pwrite(fd, data[start:end], start)
    want[start:end] = data[start:end]
os.close(fd)
open(sys.argv[2], "wb").write(want)
PY
	fallocate --keep-size -o 320K -l 64K m/f || fail "fallocate in the hole"
	want=$(sha256sum <expected | cut -d' ' -f1)
	sfuse_umount m
	for ro in "" "-o ro"; do
		# shellcheck disable=SC2086
		sfuse_mount img m $ro
		for bs in 4k 64k 1M; do
			expect_eq "$(dd if=m/f iflag=direct bs=$bs status=none | sha256sum | cut -d' ' -f1)" "$want" \
				"O_DIRECT reads of $bs${ro:+ (read-only)}"
		done
		expect_eq "$(sha256sum <m/f | cut -d' ' -f1)" "$want" "buffered reads${ro:+ (read-only)}"
		sfuse_umount m
	done
	fsck_clean img
}

# The server has no FLUSH handler: the kernel asks once, hears ENOSYS and stops asking (a round
# trip less per close).  close(2) still reports what the kernel's writeback cache could not
# write (-o writeback: the kernel writes dirty pages itself before it would send FLUSH).
test_close_without_flush() {
	local i n
	mkimg img 16M
	sfuse_mount img m -d -o writeback
	for i in 1 2 3 4 5; do
		echo "file $i" >m/f$i || fail "writing m/f$i"
	done
	dd if=/dev/zero of=m/big bs=1M count=32 2>err && fail "writing more than the disk holds succeeded"
	grep -q "No space left" err || fail "a full disk under -o writeback: $(cat err)"
	rm m/big
	sfuse_umount m
	n=$(grep -c 'opcode: FLUSH' "$SFUSE_LOG") || true
	[ "$n" -le 1 ] || fail "$n FLUSH requests reached the server (at most the first one should)"
	sfuse_mount img m
	for i in 1 2 3 4 5; do
		expect_eq "$(cat m/f$i)" "file $i" "m/f$i after a remount"
	done
	sfuse_umount m
	fsck_clean img
}
