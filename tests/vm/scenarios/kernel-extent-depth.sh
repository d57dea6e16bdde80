#!/bin/bash
# An extent tree two levels deep (root -> index node -> leaves), read back
# from disk and then edited near its end: the save after the edit must keep
# every index entry pointing at the right leaf (it once reused the walk
# order of the loaded nodes as if leaves came first, and fsck then found the
# tree scrambled).  Also the same edit near the start, which must rewrite
# only the leaf it lands in, and one more remount.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/x
f=$mnt/f
"$MKFS_STALEFS" -q -F "$dev"
mkdir -p $mnt
mount -t stalefs "$dev" $mnt

note "2,048 extents: every other block of an unwritten 8 MiB file written"
fallocate -l 8M $f
cmds=()
for ((b = 0; b < 2048; b += 2)); do cmds+=(-c "pwrite -q -S 0x11 $((b * 4096)) 4096"); done
xfs_io -d "${cmds[@]}" $f
extents() { xfs_io -c "fiemap" "$1" | awk 'NR > 1 && $3 != "hole" { n++ } END { print n + 0 }'; }
assert_eq 2048 "$(extents $f)" "extents"
umount $mnt
# 2,048 extents need 9 leaves of 253; the root holds 7 entries, so an index
# node sits between them: 10 tree blocks besides the 2,048 data blocks.
blocks=$("$DEBUGFS_STALEFS" -R "stat /f" "$dev" 2>/dev/null | sed -n 's/.*Blockcount: *\([0-9]*\).*/\1/p')
assert_eq 10 "$((blocks - 2048))" "extent tree blocks (9 leaves and an index node)"
fsck_clean "$dev"

note "loaded from disk, edited in its last leaf"
mount -t stalefs "$dev" $mnt
xfs_io -d -c "pwrite -q -S 0x22 $((2045 * 4096)) 4096" $f
assert_eq 2046 "$(extents $f)" "extents after filling a gap between two written blocks (three merge)"
umount $mnt
fsck_clean "$dev"

note "loaded again, edited in its first leaf, then read back whole"
mount -t stalefs "$dev" $mnt
sync
# Leaves keep their ranges between saves: an edit in the first leaf rewrites
# that leaf and the index node, not the eight leaves after it (packing the
# extents from the start again would shift all of them).  Sectors written
# by the edit and a sync: the data block, one leaf, the index node, the
# inode's table block, a bitmap and the superblock at most -- and with a
# journal each metadata block twice (the log, then in place) and the log's
# descriptor and commit blocks: 12 blocks.  Rewriting the other eight leaves
# would add at least 16.
written() { awk '{ print $7 }' "/sys/class/block/$(basename "$(realpath "$dev")")/stat"; }
w0=$(written)
xfs_io -d -c "pwrite -q -S 0x33 $((1 * 4096)) 4096" $f
sync
w1=$(written)
echo "sectors written by the edit and sync: $((w1 - w0))"
(((w1 - w0) <= 12 * 8)) || fail "an edit in the first leaf wrote $((w1 - w0)) sectors (more than 12 blocks)"
assert_eq 2044 "$(extents $f)" "extents after filling the gap at block 1"
umount $mnt
fsck_clean "$dev"
mount -t stalefs "$dev" $mnt
python3 - $f <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
assert len(d) == 8 << 20, len(d)
for b in range(2048):
    blk = d[b * 4096:(b + 1) * 4096]
    want = b"\x33" if b == 1 else b"\x22" if b == 2045 else b"\x11" if b % 2 == 0 else b"\0"
    assert blk == want * 4096, "block %d: %r" % (b, blk[:4])
print("all 2048 blocks read back as written")
PY
umount $mnt
fsck_clean "$dev"
