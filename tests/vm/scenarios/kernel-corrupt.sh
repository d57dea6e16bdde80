#!/bin/bash
# stalefs.ko on damaged images: bad checksums, bad magic, extents out of
# range, a loop in the extent tree, a directory loop.  Each must give
# EUCLEAN or EIO with a message naming device, inode and block, be recorded
# in the superblock for fsck, honour errors=, and never oops or warn (the
# harness fails the scenario on BUG/WARNING/Oops in dmesg).
# needs: stalefs
# disk: scratch:64M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
mkdir -p $mnt

# poke OP ARGS: edit the unmounted image with checksums recomputed where asked.
poke() {
	python3 - "$dev" "$@" <<'PY'
import struct, sys, zlib
dev, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
f = open(dev, "r+b")
def rd(off, n): f.seek(off); return f.read(n)
def wr(off, b): f.seek(off); f.write(b)
def crc(seed, data): return (~zlib.crc32(data, ~seed & 0xffffffff)) & 0xffffffff
sb = bytearray(rd(1024, 1024))
bs = 1024 << struct.unpack_from("<I", sb, 0x0C)[0]
ipg = struct.unpack_from("<I", sb, 0x34)[0]
seed = struct.unpack_from("<I", sb, 0x58)[0]
gdt = (1024 // bs + 1) * bs
def inode_off(ino):
    g, i = (ino - 1) // ipg, (ino - 1) % ipg
    table = struct.unpack_from("<Q", rd(gdt + 64 * g, 64), 0x10)[0]
    return table * bs + (i // (bs // 256)) * bs + (i % (bs // 256)) * 256
def inode_csum(ino, raw):
    raw = bytearray(raw); struct.pack_into("<I", raw, 0x64, 0)
    c = crc(seed, struct.pack("<I", ino)); c = crc(c, raw[0x58:0x5c])
    return crc(c, bytes(raw))
def put_inode(ino, raw):
    struct.pack_into("<I", raw, 0x64, inode_csum(ino, raw)); wr(inode_off(ino), raw)
def extents(raw):
    n = struct.unpack_from("<H", raw, 0x72)[0]
    return [struct.unpack_from("<IHHQ", raw, 0x78 + 16 * k) for k in range(n)]
if op == "sb-csum":
    struct.pack_into("<I", sb, 4, struct.unpack_from("<I", sb, 4)[0] ^ 1); wr(1024, sb)
elif op == "sb-incompat":
    struct.pack_into("<I", sb, 0x48, struct.unpack_from("<I", sb, 0x48)[0] | 0x80)
    struct.pack_into("<I", sb, 4, 0); struct.pack_into("<I", sb, 4, crc(seed, bytes(sb))); wr(1024, sb)
elif op == "sb-rocompat":
    struct.pack_into("<I", sb, 0x44, struct.unpack_from("<I", sb, 0x44)[0] | 0x80)
    struct.pack_into("<I", sb, 4, 0); struct.pack_into("<I", sb, 4, crc(seed, bytes(sb))); wr(1024, sb)
elif op == "sb-errors":
    print(struct.unpack_from("<IQ", sb, 0xF4)[0], struct.unpack_from("<H", sb, 0x5C)[0] & 2,
          struct.unpack_from("<I", sb, 0x108)[0], sb[0x120:0x140].rstrip(b"\0").decode())
elif op == "inode-csum":
    ino = int(args[0]); raw = bytearray(rd(inode_off(ino), 256)); raw[0x08] ^= 1; wr(inode_off(ino), raw)
elif op == "extent-range":
    ino = int(args[0]); raw = bytearray(rd(inode_off(ino), 256))
    struct.pack_into("<Q", raw, 0x78 + 8, 1 << 40); put_inode(ino, raw)
elif op == "extent-meta":
    # The first extent now maps group 0's inode table.
    ino = int(args[0]); raw = bytearray(rd(inode_off(ino), 256))
    table = struct.unpack_from("<Q", rd(gdt, 64), 0x10)[0]
    struct.pack_into("<Q", raw, 0x78 + 8, table); put_inode(ino, raw)
elif op == "dir-magic":
    ino = int(args[0]); raw = rd(inode_off(ino), 256); pblk = extents(raw)[0][3]
    wr(pblk * bs, b"XXXX")
elif op == "tree-loop":
    # A depth-1 inode: make its leaf an index node pointing at itself.
    ino = int(args[0]); raw = rd(inode_off(ino), 256)
    assert struct.unpack_from("<H", raw, 0x76)[0] == 1, "file is not depth 1"
    leaf = struct.unpack_from("<Q", raw, 0x78 + 8)[0]
    blk = bytearray(rd(leaf * bs, bs))
    struct.pack_into("<HHHH", blk, 0x20, 0xF51E, 1, (bs - 40) // 16, 1)
    struct.pack_into("<IIQ", blk, 0x28, 0, 0, leaf)
    struct.pack_into("<I", blk, 4, 0); struct.pack_into("<I", blk, 4, crc(seed, bytes(blk)))
    wr(leaf * bs, blk)
elif op == "dir-loop":
    # Point directory entry NAME in directory DIR at inode TARGET.
    d, name, target = int(args[0]), args[1].encode(), int(args[2])
    raw = rd(inode_off(d), 256); pblk = extents(raw)[0][3]
    blk = bytearray(rd(pblk * bs, bs)); off = 24
    while off < bs:
        ino, rec, nl, ft = struct.unpack_from("<IHBB", blk, off)
        if ino and blk[off + 8:off + 8 + nl] == name:
            struct.pack_into("<IHBB", blk, off, target, rec, nl, 2); break
        off += rec
    else:
        sys.exit("entry not found")
    struct.pack_into("<I", blk, 4, 0); struct.pack_into("<I", blk, 4, crc(seed, bytes(blk)))
    wr(pblk * bs, blk)
else:
    sys.exit("unknown op " + op)
PY
}

fresh() {
	"$MKFS_STALEFS" -q -F "$dev"
	mount -t stalefs "$dev" $mnt
	echo data >$mnt/file
	mkdir -p $mnt/dir/sub
	echo x >$mnt/dir/f
	# more than 7 extents: a depth-1 tree
	xfs_io -f -c "truncate 1m" $mnt/frag
	for i in $(seq 0 2 40); do xfs_io -c "pwrite -q $((i * 4096)) 4096" $mnt/frag; done
	sync
	ino_file=$(stat -c %i $mnt/file)
	ino_dir=$(stat -c %i $mnt/dir)
	ino_sub=$(stat -c %i $mnt/dir/sub)
	ino_frag=$(stat -c %i $mnt/frag)
	umount $mnt
}

expect_msg() {	# a rate-limited kernel message naming device and inode
	dmesg | tail -20 | has "stalefs ($(basename $dev)): error in .*inode $1" ||
		{ dmesg | tail -20; fail "no kernel message naming inode $1"; }
}

note "superblock checksum: mount refused"
fresh
poke sb-csum
assert_fails mount -t stalefs "$dev" $mnt
dmesg | tail -3

note "unknown incompat feature: mount refused"
fresh
poke sb-incompat
assert_fails mount -t stalefs "$dev" $mnt
note "unknown ro_compat feature: read-only only"
fresh
poke sb-rocompat
assert_fails mount -t stalefs "$dev" $mnt
mount -t stalefs -o ro "$dev" $mnt
assert_eq data "$(cat $mnt/file)"
assert_fails mount -o remount,rw $mnt
umount $mnt

note "inode checksum: EUCLEAN naming the inode, recorded on disk"
fresh
poke inode-csum "$ino_file"
mount -t stalefs -o errors=continue "$dev" $mnt
assert_errno EUCLEAN cat $mnt/file
expect_msg "$ino_file"
assert_eq x "$(cat $mnt/dir/f)"
umount $mnt
read -r count errbit eino efunc <<<"$(poke sb-errors)"
((count >= 1)) || fail "error count not recorded"
assert_eq 2 "$errbit" "ERRORS state bit"
assert_eq "$ino_file" "$eino" "first error inode"
echo "recorded: $count errors, first in $efunc"

note "extent out of range"
fresh
poke extent-range "$ino_file"
mount -t stalefs "$dev" $mnt
assert_errno EUCLEAN cat $mnt/file
expect_msg "$ino_file"
umount $mnt

note "extent mapping the inode table: refused before any write can land there"
fresh
poke extent-meta "$ino_file"
mount -t stalefs "$dev" $mnt
assert_errno EUCLEAN sh -c "echo overwrite >$mnt/file"
expect_msg "$ino_file"
assert_eq x "$(cat $mnt/dir/f)"
umount $mnt

note "directory block with a bad magic"
fresh
poke dir-magic "$ino_dir"
mount -t stalefs "$dev" $mnt
assert_errno EUCLEAN ls $mnt/dir
expect_msg "$ino_dir"
umount $mnt

note "loop in the extent tree"
fresh
poke tree-loop "$ino_frag"
mount -t stalefs "$dev" $mnt
assert_errno EUCLEAN cat $mnt/frag
expect_msg "$ino_frag"
umount $mnt

note "directory loop: dir/sub names the root directory"
fresh
poke dir-loop "$ino_dir" sub 2
mount -t stalefs "$dev" $mnt
ls $mnt/dir/sub >/dev/null 2>&1 || true
ls -R $mnt >/dev/null 2>&1 || true
find $mnt >/dev/null 2>&1 || true
umount $mnt

note "errors=remount-ro: the first error makes the mount read-only"
fresh
poke inode-csum "$ino_file"
mount -t stalefs -o errors=remount-ro "$dev" $mnt
assert_errno EUCLEAN cat $mnt/file
assert_errno EROFS touch $mnt/new
umount $mnt
echo "kernel-corrupt passed (fsck is not expected to be clean on damaged images)"
