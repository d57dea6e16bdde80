# fsx (tests/vm/fsx.c, built for the host) on the FUSE mount: buffered,
# O_DIRECT and mmap reads and writes, truncates, fallocate, punch, zero
# range, fsync, close/reopen, every read checked against a model; then the
# image unmounted, fsck.stalefs -fn clean, and the file read back through a
# new mount equal to fsx's model.  check: 100,000 buffered operations and
# 10,000 more with O_DIRECT and mmap ones among them (each O_DIRECT write and
# fsync is a round trip to the server, and every fsync a commit: three device
# flushes); soak: 1,000,000 and 200,000.

test_fsx_on_the_mount() {
	local n nd
	n=$(((FUSE_SOAK == 1) ? 1000000 : 100000))
	nd=$(((FUSE_SOAK == 1) ? 200000 : 10000))
	mkimg img 256M
	sfuse_mount img m
	"$FSX" -N "$n" -S 20251207 -O model m/fsxfile >fsx.out 2>&1 || { tail -30 fsx.out; fail "fsx failed"; }
	grep -q "$n operations passed" fsx.out || fail "fsx did not say $n operations passed"
	"$FSX" -N "$nd" -S 7 -D -M m/fsxdirect >fsx2.out 2>&1 || { tail -30 fsx2.out; fail "fsx -D -M failed"; }
	grep -q "$nd operations passed" fsx2.out || fail "fsx -D -M did not say $nd operations passed"
	sfuse_umount m
	fsck_clean img
	sfuse_mount img m -o ro
	cmp model m/fsxfile || fail "the file after a remount differs from fsx's model"
	sfuse_umount m
	echo "NOTE fsx: $n + $nd operations"
}
