#!/bin/bash
# stalefs.ko fallocate: default and KEEP_SIZE (unwritten), PUNCH_HOLE,
# ZERO_RANGE (with and without KEEP_SIZE), COLLAPSE/INSERT refused;
# FIEMAP shows unwritten extents; SEEK_HOLE/SEEK_DATA.  The device holds
# a pattern before mkfs that must never read back.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
S=$VM_SCRATCH
xfs_io -d -c "pwrite -q -S 0xab -b 1m 0 256m" "$dev"
"$MKFS_STALEFS" -q -F -E nodiscard "$dev"	# the pattern stays: it must never read back
mkdir -p $mnt
mount -t stalefs "$dev" $mnt
f=$mnt/f

no_pattern() {
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(1 if b"\xab" * 64 in d else 0)' "$1" ||
		fail "$1 shows the device's old pattern"
}
# fiemap FILE: one line per extent, "first-sector sectors flags" (holes left out)
fiemap() {
	xfs_io -c "fiemap -v" "$1" |
		awk 'NR > 2 && $3 != "hole" { r = $2; gsub(/[\[\]:]/, "", r); split(r, a, "[.][.]"); print a[1], $4, $5 }'
}

note "default fallocate: size grows, extents unwritten, reads zeros"
xfs_io -f -c "falloc 0 1m" $f
assert_eq 1048576 "$(stat -c %s $f)"
assert_eq 2048 "$(stat -c %b $f)" "blocks held"
fiemap $f
[[ $(fiemap $f | awk '{print $3}' | sort -u) == 0x801 ]] || fail "extents not unwritten (0x800) last (0x1)"
filefrag -v $f | has unwritten || fail "filefrag does not show unwritten"
assert_eq 0 "$(tr -d '\0' <$f | wc -c)"

note "KEEP_SIZE: blocks past EOF, size unchanged"
xfs_io -c "falloc -k 1m 1m" $f
assert_eq 1048576 "$(stat -c %s $f)"
assert_eq 4096 "$(stat -c %b $f)"

note "writes convert only the written part"
xfs_io -c "pwrite -q -S 0x11 4096 4096" -c "fsync" $f
fiemap $f
assert_eq 3 "$(fiemap $f | awk '$1 < 2048' | wc -l)" "split in three"
xfs_io -c "pwrite -q -S 0x11 0 4096" -c "pwrite -q -S 0x11 8192 4096" -c "fsync" $f
fiemap $f
[[ $(fiemap $f | head -1) == "0 24 0x0" ]] || fail "converted neighbours were not merged"
no_pattern $f

note "PUNCH_HOLE: partial blocks zeroed, whole blocks freed"
xfs_io -f -c "pwrite -q -S 0x22 0 64k" -c fsync $mnt/p
xfs_io -c "fpunch 1000 20000" $mnt/p
python3 - $mnt/p <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
assert len(d) == 65536
assert d[:1000] == b"\x22" * 1000 and d[1000:21000] == bytes(20000) and d[21000:] == b"\x22" * (65536 - 21000)
print("punch content ok")
PY
assert_eq 96 "$(stat -c %b $mnt/p)" "punched blocks freed (blocks 1-4: 16 - 4 = 12 left)"
xfs_io -c "fpunch 0 64k" $mnt/p
assert_eq 0 "$(stat -c %b $mnt/p)"
assert_eq 65536 "$(stat -c %s $mnt/p)"
assert_errno EOPNOTSUPP xfs_io -c "fpunch 0 4k" -c "falloc -c 0 4k" $mnt/p
assert_errno EOPNOTSUPP xfs_io -c "fcollapse 0 4k" $mnt/p
assert_errno EOPNOTSUPP xfs_io -c "finsert 0 4k" $mnt/p

note "ZERO_RANGE with and without KEEP_SIZE"
xfs_io -f -c "pwrite -q -S 0x33 0 64k" -c fsync $mnt/z
xfs_io -c "fzero 1000 20000" $mnt/z
xfs_io -c "fzero -k 60000 100000" $mnt/z
assert_eq 65536 "$(stat -c %s $mnt/z)"
xfs_io -c "fzero 70000 10000" $mnt/z
assert_eq 80000 "$(stat -c %s $mnt/z)"
python3 - $mnt/z <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
assert len(d) == 80000
e = bytearray(b"\x33" * 65536)
e[1000:21000] = bytes(20000)
e[60000:] = bytes(65536 - 60000)
e += bytes(80000 - 65536)
assert d == bytes(e), "zero range content"
print("zero range content ok")
PY
fiemap $mnt/z
fiemap $mnt/z | has 0x800 || fail "zeroed whole blocks are not unwritten"
no_pattern $mnt/z

note "SEEK_DATA / SEEK_HOLE"
rm -f $mnt/s1
xfs_io -f -c "truncate 10m" -c "pwrite -q 1m 64k" -c "falloc -k 4m 1m" -c "pwrite -q 8m 4k" $mnt/s1
python3 - $mnt/s1 <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
M = 1 << 20
assert os.lseek(fd, 0, os.SEEK_DATA) == M
assert os.lseek(fd, M, os.SEEK_HOLE) == M + 65536
# unwritten without dirty data counts as a hole
assert os.lseek(fd, M + 65536, os.SEEK_DATA) == 8 * M, os.lseek(fd, M + 65536, os.SEEK_DATA)
assert os.lseek(fd, 8 * M, os.SEEK_HOLE) == 8 * M + 4096
try:
    os.lseek(fd, 9 * M, os.SEEK_DATA); assert False
except OSError as e:
    assert e.errno == 6  # ENXIO
print("seek ok")
PY
fiemap $mnt/s1
for x in f p z s1; do md5sum $mnt/$x; done >$S/sums
drop_caches
md5sum -c $S/sums
umount $mnt
mount -t stalefs "$dev" $mnt
md5sum -c $S/sums
for x in f p z s1; do no_pattern $mnt/$x; done

note "fill the filesystem: ENOSPC, then free it all"
assert_errno ENOSPC xfs_io -f -c "falloc 0 1g" $mnt/huge
rm $mnt/huge
df -k $mnt
assert_errno ENOSPC dd if=/dev/zero of=$mnt/fill bs=1M status=none
rm $mnt/fill
df -k $mnt
umount $mnt
fsck_clean "$dev"
echo "kernel-falloc passed"
