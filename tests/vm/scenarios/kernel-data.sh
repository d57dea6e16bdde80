#!/bin/bash
# stalefs.ko data path: buffered, O_DIRECT, mmap read/write, splice,
# fsync/fdatasync/syncfs, sparse files, truncate; every result read back
# after drop_caches and after a remount.  The device is filled with a
# pattern first (as fstests generic/042): it must never read back.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
S=$VM_SCRATCH

note "fill the device with a pattern, then mkfs"
xfs_io -d -c "pwrite -q -S 0xab -b 1m 0 256m" "$dev"
"$MKFS_STALEFS" -q -F -E nodiscard "$dev"	# the pattern stays: it must never read back
mkdir -p $mnt
mount -t stalefs "$dev" $mnt

no_pattern() {	# FILE: no 64-byte run of the 0xab pattern may appear
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(1 if b"\xab" * 64 in d else 0)' "$1" ||
		fail "$1 shows the device's old pattern"
}

note "buffered writes, odd sizes and offsets"
dd if=/dev/urandom of=$S/r bs=1M count=8 status=none
xfs_io -f -c "pwrite -q -i $S/r 0 8m" $mnt/buf
xfs_io -c "pwrite -q -S 0x11 100 5000" -c "pwrite -q -S 0x22 9000000 3333" $mnt/buf
cp $mnt/buf $S/buf.expect
cmp $S/buf.expect $mnt/buf

note "O_DIRECT writes and reads, into holes and over data"
xfs_io -f -d -c "pwrite -q -i $S/r -b 64k 0 4m" $mnt/dio
xfs_io -d -c "pwrite -q -S 0x33 1m 8k" -c "pwrite -q -S 0x44 6m 512" $mnt/dio
xfs_io -d -c "pread -q 0 4m" $mnt/dio
python3 - "$S/r" "$S/dio.expect" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read()[:4 << 20])
d[1 << 20:(1 << 20) + 8192] = b"\x33" * 8192
d += b"\0" * ((6 << 20) - len(d)) + b"\x44" * 512
open(sys.argv[2], "wb").write(d)
PY
cmp $S/dio.expect $mnt/dio
cmp $S/dio.expect <(xfs_io -d -c "pread -q -v 0 0" $mnt/dio >/dev/null; cat $mnt/dio)
no_pattern $mnt/dio

note "mmap writes into holes and over data, then msync"
xfs_io -f -c "truncate 1m" -c "mmap -rw 0 1m" -c "mwrite -S 0x55 4096 8192" -c "mwrite -S 0x66 900000 10" -c "msync -s 0 1m" $mnt/mm
python3 - "$S/mm.expect" <<'PY'
import sys
d = bytearray(1 << 20)
d[4096:4096 + 8192] = b"\x55" * 8192
d[900000:900010] = b"\x66" * 10
open(sys.argv[1], "wb").write(d)
PY
cmp $S/mm.expect $mnt/mm
python3 - $mnt/buf <<'PY'
import mmap, sys
with open(sys.argv[1], "r+b") as f:
    m = mmap.mmap(f.fileno(), 0)
    m[0:4] = b"MMAP"
    m.flush()
PY
printf 'MMAP' | dd of=$S/buf.expect conv=notrunc status=none
cmp $S/buf.expect $mnt/buf

note "unwritten and hole reads are zeros (buffered, direct, mmap, sendfile)"
xfs_io -f -c "falloc 0 2m" -c "truncate 2m" $mnt/ua
assert_eq 0 "$(tr -d '\0' <$mnt/ua | wc -c)"
assert_eq 0 "$(xfs_io -d -c 'pread -v 0 2m' $mnt/ua | grep -v '^read\|^2 MiB' | grep -vc '00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00' || true)"
python3 - $mnt/ua <<'PY'
import mmap, os, sys
with open(sys.argv[1], "rb") as f:
    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    assert m[:].count(0) == len(m), "mmap read of unwritten is not zeros"
    out = os.open("/dev/null", os.O_WRONLY)
    assert os.sendfile(out, f.fileno(), 0, 2 << 20) == 2 << 20
print("unwritten zeros ok")
PY
no_pattern $mnt/ua
truncate -s 5m $mnt/holes
xfs_io -c "pwrite -q -S 0x77 3m 4k" $mnt/holes
no_pattern $mnt/holes

note "splice copy and fsync flavours"
python3 - $mnt/buf $mnt/spliced <<'PY'
import os, sys
src = os.open(sys.argv[1], os.O_RDONLY)
dst = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
n = os.path.getsize(sys.argv[1]); off = 0
while off < n:
    off += os.copy_file_range(src, dst, n - off, off, off)
os.fsync(dst); os.fdatasync(dst)
print("copied", off)
PY
cmp $mnt/buf $mnt/spliced
xfs_io -c "pwrite -q -S 0x12 0 4k" -c "fsync" -c "pwrite -q -S 0x13 4k 4k" -c "fdatasync" -c "syncfs" $mnt/spliced

note "truncate down and up across extents"
cp $S/r $mnt/tr
truncate -s 3000001 $mnt/tr
truncate -s 5000000 $mnt/tr
head -c 3000001 $S/r >$S/tr.expect
truncate -s 5000000 $S/tr.expect
cmp $S/tr.expect $mnt/tr
for f in buf dio mm tr holes ua spliced; do md5sum $mnt/$f; done | sed "s|$mnt/||" >$S/sums

note "after drop_caches"
drop_caches
for f in buf dio mm tr holes ua spliced; do md5sum $mnt/$f; done | sed "s|$mnt/||" | diff $S/sums -
cmp $S/buf.expect $mnt/buf
cmp $S/dio.expect $mnt/dio
cmp $S/mm.expect $mnt/mm
cmp $S/tr.expect $mnt/tr

note "after remount"
umount $mnt
mount -t stalefs "$dev" $mnt
for f in buf dio mm tr holes ua spliced; do md5sum $mnt/$f; done | sed "s|$mnt/||" | diff $S/sums -
no_pattern $mnt/ua
no_pattern $mnt/holes
filefrag -v $mnt/buf $mnt/ua >/tmp/filefrag.out; head -20 /tmp/filefrag.out

note "remount read-only and back"
mount -o remount,ro $mnt
assert_errno EROFS touch $mnt/nope
mount -o remount,rw $mnt
touch $mnt/yes
umount $mnt
fsck_clean "$dev"
echo "kernel-data passed"
