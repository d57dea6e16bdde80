# Helpers for the corpus scripts (sourced by tests/fsck/run with MKFS, DEBUGFS,
# IMAGE and WORK set).  Every image starts from mkfs with a fixed UUID so that
# checksums printed in expectations do not change from run to run.
UUID=8a1c7f4e-5b2d-4e6f-9a3b-0c1d2e3f4a5b

# mkimg [size] [mkfs options...]: a fresh filesystem in $IMAGE.
mkimg() {
	local size=${1:-8M}
	shift || true
	rm -f "$IMAGE"
	"$MKFS" -q -F -U "$UUID" "$@" "$IMAGE" "$size" >/dev/null
}

# dfs "request" ...: run debugfs requests read-write, failing loudly.
dfs() {
	local req
	for req in "$@"; do
		"$DEBUGFS" -w -R "$req" "$IMAGE" >"$WORK/debugfs.out" 2>&1 || {
			echo "debugfs request failed: $req" >&2
			cat "$WORK/debugfs.out" >&2
			exit 1
		}
	done
}

# dfs_out "request": print what a read-only request says.
dfs_out() {
	"$DEBUGFS" -R "$1" "$IMAGE" 2>/dev/null
}

# A native file of n blocks of 4096 filled with a byte pattern.
native() {
	local name=$1 kib=$2
	head -c $((kib * 1024)) /dev/zero | tr '\0' 'x' >"$WORK/$name"
	echo "$WORK/$name"
}

# mkfile path kib: write a file of that size into the image.
mkfile() {
	dfs "write $(native "f$RANDOM" "$2") $1"
}

# ino path: inode number of a path.
ino() {
	dfs_out "stat $1" | sed -n 's/^Inode: *\([0-9]*\).*/\1/p' | head -1
}

# blk path lblk: physical block of a file's logical block.
blk() {
	dfs_out "bmap $1 $2" | tr -dc '0-9\n' | head -1
}

# ---- the journal (FORMAT.md 12) ----

# bsize: the image's block size.
bsize() {
	dfs_out stats | sed -n 's/^Block size: *//p'
}

# sbfield LABEL: a line of debugfs stats (e.g. "Journal start").
sbfield() {
	dfs_out stats | sed -n "s/^$1: *//p" | head -1
}

# blocks_differ OLD NEW: the blocks at which two images differ, as a debugfs block list
# "5,9,10"; the boot area and the superblock's block (never journaled) left out.
blocks_differ() {
	python3 - "$1" "$2" "$(bsize)" <<'PY'
import sys
a, b, bs = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), int(sys.argv[3])
first = 2048 // bs if bs < 2048 else 1
print(','.join(str(i) for i in range(first, len(a) // bs) if a[i*bs:(i+1)*bs] != b[i*bs:(i+1)*bs]))
PY
}

# blocks_of IMAGE LIST OUT: the blocks LIST ("5,9,10") of IMAGE, one after the other, into OUT.
blocks_of() {
	python3 - "$1" "$2" "$3" "$(bsize)" <<'PY'
import sys
img, lst, out, bs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
data = open(img, 'rb').read()
with open(out, 'wb') as f:
    for n in (int(x) for x in lst.split(',') if x):
        f.write(data[n*bs:(n+1)*bs])
PY
}

# put_blocks FROM LIST: copy the blocks LIST of image FROM into $IMAGE, in place.
put_blocks() {
	python3 - "$1" "$2" "$IMAGE" "$(bsize)" <<'PY'
import sys
src, lst, dst, bs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
data = open(src, 'rb').read()
with open(dst, 'r+b') as f:
    for n in (int(x) for x in lst.split(',') if x):
        f.seek(n * bs)
        f.write(data[n*bs:(n+1)*bs])
PY
}

# jsb_set FIELD VALUE: set a big-endian u32 of the journal superblock (errno, start, sequence,
# maxlen, first, blocksize, feature_compat, feature_incompat, feature_ro_compat) and its
# checksum (CRC32C of the 1024 bytes, the checksum as zero, seed ~0, no final inversion).
jsb_set() {
	local jblk
	jblk=$(dfs_out stats | sed -n 's/^Journal: *[0-9]* blocks at block \([0-9]*\).*/\1/p')
	[ -n "$jblk" ] || { echo "jsb_set: no journal in the image" >&2; exit 1; }
	python3 - "$IMAGE" "$((jblk * $(bsize)))" "$1" "$2" <<'PY'
import struct, sys
img, off, field, value = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4], 0)
at = {'blocksize': 0x0C, 'maxlen': 0x10, 'first': 0x14, 'sequence': 0x18, 'start': 0x1C,
      'errno': 0x20, 'feature_compat': 0x24, 'feature_incompat': 0x28,
      'feature_ro_compat': 0x2C}[field]
def crc32c(crc, data):
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc
with open(img, 'r+b') as f:
    f.seek(off)
    jsb = bytearray(f.read(1024))
    jsb[at:at+4] = struct.pack('>I', value & 0xFFFFFFFF)
    jsb[0xFC:0x100] = b'\0\0\0\0'
    jsb[0xFC:0x100] = struct.pack('>I', crc32c(0xFFFFFFFF, jsb))
    f.seek(off)
    f.write(jsb)
PY
}

# crash_image: a filesystem as a crash leaves it after three committed transactions that
# never reached their places (FORMAT.md 12): the journal holds them, needs_recovery is set,
# the superblock's free counts are the old ones (it is never journaled).
#   T1: mkdir /d, /d/b written (data journaled too), and an old copy of block $REVOKED
#       (garbage, as a metadata block freed later would be);
#   T2: mkdir /e, /c written; revokes $REVOKED, which is /e's directory block, written in
#       place (recovery must not put T1's copy over it);
#   T3: /a removed.
# Sets BEFORE (the image as it was), AFTER (as recovery must leave it) and REVOKED.
crash_image() {
	mkimg
	mkfile /a 40
	BEFORE=$WORK/before.img
	cp "$IMAGE" "$BEFORE"
	dfs "mkdir /d"
	mkfile /d/b 24
	cp "$IMAGE" "$WORK/t1.img"
	dfs "mkdir /e"
	mkfile /c 12
	cp "$IMAGE" "$WORK/t2.img"
	REVOKED=$(blk /e 0)
	dfs "rm /a"
	AFTER=$WORK/after.img
	cp "$IMAGE" "$AFTER"
	local l1 l2 l3
	l1=$(blocks_differ "$BEFORE" "$WORK/t1.img")
	l2=$(blocks_differ "$WORK/t1.img" "$WORK/t2.img" | tr ',' '\n' | grep -vx "$REVOKED" | paste -sd,)
	l3=$(blocks_differ "$WORK/t2.img" "$AFTER")
	blocks_of "$WORK/t1.img" "$l1" "$WORK/t1.bin"
	head -c "$(bsize)" /dev/zero | tr '\0' 'U' >>"$WORK/t1.bin"
	blocks_of "$WORK/t2.img" "$l2" "$WORK/t2.bin"
	blocks_of "$AFTER" "$l3" "$WORK/t3.bin"
	cp "$BEFORE" "$IMAGE"
	put_blocks "$WORK/t2.img" "$REVOKED"
	printf '%s\n' "jo" "jw -b $l1,$REVOKED -c $WORK/t1.bin" "jw -b $l2 -r $REVOKED -c $WORK/t2.bin" \
		"jw -b $l3 $WORK/t3.bin" "jc" | "$DEBUGFS" -w -f - "$IMAGE" >"$WORK/debugfs.out" 2>&1 || {
		echo "debugfs: writing the journal failed" >&2
		cat "$WORK/debugfs.out" >&2
		exit 1
	}
}

# ---- extended attributes (FORMAT.md 14), until debugfs has ea_set ----
# An entry is "INDEX:SUFFIX=VALUE" (INDEX 1 user., 2/3 the ACLs with an empty suffix,
# 4 trusted., 6 security.).

# xattr_put ibody|block INO BLOCK ENTRY...: write a valid region with its checksum: INO's
# in-inode area (BLOCK ignored), or BLOCK as INO's xattr block (header: own number, owner,
# generation).  Checksums are crc32_le (no inversions) seeded as FORMAT.md 7 says.
xattr_put() {
	local where=$1 ino=$2 block=$3 loc
	shift 3
	loc=$(dfs_out "imap <$ino>" | sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
	[ -n "$loc" ] || { echo "xattr_put: no inode $ino" >&2; exit 1; }
	python3 - "$IMAGE" "$where" "$ino" "$block" $loc "$@" <<'PY'
import struct, sys, zlib
img, where, ino, block, iblk, ioff = sys.argv[1:7]
ino, block, iblk, ioff = int(ino), int(block), int(iblk), int(ioff, 16)
def crc(c, b):
    return ~zlib.crc32(b, ~c & 0xffffffff) & 0xffffffff
f = open(img, 'r+b')
f.seek(1024)
sb = f.read(1024)
bs = 1024 << struct.unpack_from('<I', sb, 0x0C)[0]
isize = struct.unpack_from('<H', sb, 0x3C)[0]
seed = struct.unpack_from('<I', sb, 0x58)[0]
f.seek(iblk * bs + ioff)
gen = struct.unpack_from('<I', f.read(256), 0x58)[0]
ents = b''
for e in sys.argv[7:]:
    idx, rest = e.split(':', 1)
    name, value = rest.split('=', 1)
    name, value = name.encode(), value.encode()
    body = name + value
    ents += struct.pack('<BBH', int(idx), len(name), len(value)) + body + b'\0' * (-len(body) % 4)
if where == 'ibody':
    alen = isize - 256
    area = bytearray(struct.pack('<II', 0x41584C53, 0) + ents + b'\0' * (alen - 8 - len(ents)))
    c = crc(crc(seed, struct.pack('<I', ino)), struct.pack('<I', gen))
    struct.pack_into('<I', area, 4, crc(c, bytes(area)))
    f.seek(iblk * bs + ioff + 256)
    f.write(area)
else:
    blk = bytearray(struct.pack('<IIQIIQ', 0x41584C53, 0, block, ino, gen, 0) + ents)
    blk += b'\0' * (bs - len(blk))
    struct.pack_into('<I', blk, 4, crc(seed, bytes(blk)))
    f.seek(block * bs)
    f.write(blk)
PY
}

# xattr_ibody PATH ENTRY...: PATH's in-inode area holds these attributes.
xattr_ibody() {
	local i
	i=$(ino "$1")
	shift
	xattr_put ibody "$i" 0 "$@"
}

# xattr_block PATH BLOCK ENTRY...: BLOCK becomes PATH's xattr block holding these attributes,
# in use and counted in i_blocks, as the library would leave it.
xattr_block() {
	local i b=$2 n
	i=$(ino "$1")
	shift 2
	xattr_put block "$i" "$b" "$@"
	n=$(dfs_out "stat <$i>" | sed -n 's/.*Blockcount: *\([0-9]*\).*/\1/p')
	dfs "sif <$i> xattr_block $b" "setb $b" "sif <$i> blocks $((n + 1))"
}

# free_block: the first free block.
free_block() {
	dfs_out ffb | tr -dc '0-9 ' | awk '{print $1}'
}

# slot_of PATH: "BLOCK BYTE" of PATH's inode slot (for zap_block -o).
slot_of() {
	dfs_out "imap $1" | sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p'
}

# grow_crash SIZE [-u]: $IMAGE grown to SIZE by resize.stalefs (on a copy), left as a crash
# leaves it once the grow's transaction is in the journal (FORMAT.md 12): the blocks past the
# old end (the new groups' superblock and descriptor copies) written in place, those inside
# it (the superblock's block, the descriptor table, the last group's bitmap) only in the
# journal, committed -- or, with -u, without its commit block, as a crash in the commit
# leaves it.  The backups of the old groups are left as they were, as after a crash.
grow_crash() {
	local size=$1 flag=${2:-} bs old new jn js
	bs=$(bsize)
	read -r jn js < <(dfs_out stats | sed -n 's/^Journal: *\([0-9]*\) blocks at block \([0-9]*\).*/\1 \2/p')
	cp "$IMAGE" "$WORK/before.img"
	cp "$IMAGE" "$WORK/grown.img"
	"$RESIZE" "$WORK/grown.img" "$size" >"$WORK/resize.out" 2>&1 || {
		echo "resize.stalefs failed" >&2
		cat "$WORK/resize.out" >&2
		exit 1
	}
	truncate -s "$(stat -c %s "$WORK/grown.img")" "$IMAGE"
	read -r old new < <(python3 - "$WORK/before.img" "$WORK/grown.img" "$bs" "${js:-0}" "${jn:-0}" <<'PY'
import sys
a, b = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
bs, js, jn = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
oldn = len(a) // bs
sb = 1 if bs == 1024 else 0
def differ(i):
    x = a[i*bs:(i+1)*bs] if i < oldn else bytes(bs)
    return x != b[i*bs:(i+1)*bs]
# inside the old end: group 0's blocks (the old groups' backups stay as they were); never the journal
old = [i for i in range(sb, oldn) if differ(i) and not (js <= i < js + jn)]
new = [i for i in range(oldn, len(b) // bs) if differ(i)]
print(','.join(map(str, old)), ','.join(map(str, new)) or '-')
PY
	)
	[ "$new" = - ] || put_blocks "$WORK/grown.img" "$new"
	blocks_of "$WORK/grown.img" "$old" "$WORK/grow.bin"
	printf '%s\n' "jo" "jw -b $old $WORK/grow.bin" "jc $flag" | "$DEBUGFS" -w -f - "$IMAGE" \
		>"$WORK/debugfs.out" 2>&1 || {
		echo "debugfs: writing the journal failed" >&2
		cat "$WORK/debugfs.out" >&2
		exit 1
	}
}
