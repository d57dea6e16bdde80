#!/bin/bash
# stalefs.ko extent trees: a file fragmented into thousands of extents
# (depth 2 at 1 KiB blocks), checked after remount; holes filled so
# neighbours merge and the tree shrinks; then punched away entirely.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
S=$VM_SCRATCH
mkdir -p $mnt
"$MKFS_STALEFS" -q -F -b 1024 "$dev"
mount -t stalefs "$dev" $mnt
# depth as stored in the inode's extent header (i_block at 0x70, eh_depth at +6)
depth() {
	python3 - "$dev" "$1" <<'PY'
import struct, sys
f = open(sys.argv[1], "rb"); ino = int(sys.argv[2])
def rd(o, n): f.seek(o); return f.read(n)
sb = rd(1024, 1024); bs = 1024 << struct.unpack_from("<I", sb, 12)[0]
ipg = struct.unpack_from("<I", sb, 0x34)[0]; gdt = (1024 // bs + 1) * bs
g, i = (ino - 1) // ipg, (ino - 1) % ipg
t = struct.unpack_from("<Q", rd(gdt + 64 * g, 64), 0x10)[0]
raw = rd(t * bs + (i // (bs // 256)) * bs + (i % (bs // 256)) * 256, 256)
print(struct.unpack_from("<H", raw, 0x76)[0])
PY
}

note "every other block of 24000: 12000 extents"
python3 - $mnt/frag $S/frag.expect <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)
exp = bytearray(24000 * 1024)
for b in range(0, 24000, 2):
    d = bytes([b % 251 + 1]) * 1024
    os.pwrite(fd, d, b * 1024); exp[b * 1024:(b + 1) * 1024] = d
os.fsync(fd); os.close(fd)
open(sys.argv[2], "wb").write(exp[:23999 * 1024])
PY
cmp $S/frag.expect $mnt/frag
ino=$(stat -c %i $mnt/frag)
nextents() { xfs_io -c "fiemap" "$1" | awk 'NR > 1 && $3 != "hole"' | wc -l; }
assert_eq 12000 "$(nextents $mnt/frag)" "extent count"
umount $mnt
assert_eq 2 "$(depth $ino)" "tree depth"
mount -t stalefs "$dev" $mnt
cmp $S/frag.expect $mnt/frag

note "fill the holes: extents merge, the tree shrinks"
python3 - $mnt/frag $S/frag.expect <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
exp = bytearray(open(sys.argv[2], "rb").read())
for b in range(1, 23999, 2):
    d = bytes([255 - b % 200]) * 1024
    os.pwrite(fd, d, b * 1024); exp[b * 1024:(b + 1) * 1024] = d
os.fsync(fd); os.close(fd)
open(sys.argv[2], "wb").write(exp)
PY
cmp $S/frag.expect $mnt/frag
# Converted blocks merge with written neighbours where the allocator kept
# them physically adjacent (tree nodes placed early can take some slots).
n=$(nextents $mnt/frag)
echo "extents after filling: $n"
((n < 23999)) || fail "filled holes never merged ($n extents)"
umount $mnt
echo "depth after filling: $(depth $ino)"
mount -t stalefs "$dev" $mnt
cmp $S/frag.expect $mnt/frag

note "punch every third block, then everything"
xfs_io -c "fsync" $mnt/frag
for b in $(seq 0 3 3000); do echo "fpunch $((b * 1024)) 1024"; done | sed 's/^/-c\n/' | tr '\n' '\0' | xargs -0 xfs_io $mnt/frag
python3 - $S/frag.expect <<'PY'
import sys
e = bytearray(open(sys.argv[1], "rb").read())
for b in range(0, 3001, 3):
    e[b * 1024:(b + 1) * 1024] = bytes(1024)
open(sys.argv[1], "wb").write(e)
PY
cmp $S/frag.expect $mnt/frag
free_before=$(df --output=avail $mnt | tail -1)
xfs_io -c "fpunch 0 30m" $mnt/frag
assert_eq 0 "$(stat -c %b $mnt/frag)" "all blocks punched"
umount $mnt
assert_eq 0 "$(depth $ino)" "tree depth after punching all"
mount -t stalefs "$dev" $mnt
rm $mnt/frag
df -k $mnt
umount $mnt
fsck_clean "$dev"
echo "kernel-tree passed"
