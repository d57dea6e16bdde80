#!/bin/bash
# Allocation windows (kernel/alloc_window.c): two files written side by
# side in one directory each grow a few long extents, not one per write;
# a window never costs space: with a file holding one open, another file
# still fills the disk to the same size as without it; windows leave
# nothing on disk (fsck clean, content intact).
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/w
S=$VM_SCRATCH
mkdir -p $mnt

fresh() {
	"$MKFS_STALEFS" -q -F -E nodiscard "$dev"
	mount -t stalefs "$dev" $mnt
}
extents() { filefrag "$1" | awk '{ print $(NF - 2) }'; }

note "two files written in turns, 1 MiB at a time, 24 MiB each"
fresh
dd if=/dev/urandom of="$S/r" bs=1M count=24 status=none
python3 - "$S/r" $mnt/a $mnt/b <<'PY'
import os, sys
src = open(sys.argv[1], "rb").read()
fds = [os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644) for p in sys.argv[2:]]
for off in range(0, len(src), 1 << 20):
    for fd in fds:
        os.write(fd, src[off:off + (1 << 20)])
for fd in fds:
    os.fsync(fd)
    os.close(fd)
PY
for f in a b; do
	n=$(extents $mnt/$f)
	note "$f: $n extents"
	# Without windows each 1 MiB write was its own extent (24).
	((n >= 1 && n <= 4)) || fail "$f has $n extents after interleaved writes (want at most 4)"
done
umount $mnt
fsck_clean "$dev" >/dev/null
mount -t stalefs "$dev" $mnt
drop_caches
cmp "$S/r" $mnt/a
cmp "$S/r" $mnt/b
umount $mnt

# fill FILE: write FILE until the disk is full, print its size in KiB.
fill() {
	local rc=0 out
	out=$(dd if=/dev/zero of="$1" bs=64k status=none 2>&1) || rc=$?
	((rc)) || fail "filling the disk ended without an error"
	has "No space left on device" <<<"$out" || fail "filling the disk failed otherwise: $out"
	sync
	echo $(($(stat -c %s "$1") / 1024))
}

note "a window held open costs no space"
fresh
xfs_io -f -c "pwrite -q 0 2m" -c fsync $mnt/a
closed=$(fill $mnt/fill)
umount $mnt
fresh
exec 3>$mnt/a
xfs_io -c "pwrite -q 0 2m" -c fsync /proc/self/fd/3	# the open fd 3 keeps the window
open=$(fill $mnt/fill)
note "filled $closed KiB with the other file closed, $open KiB with it open"
((open >= closed - 1024)) ||
	fail "a file's open window kept $((closed - open)) KiB from another file at ENOSPC"
# The window's owner may still write where the filler left room: nothing breaks.
exec 3>&-
rm $mnt/fill
xfs_io -c "pwrite -q 2m 1m" -c fsync $mnt/a
umount $mnt
fsck_clean "$dev" >/dev/null
