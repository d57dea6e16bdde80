# Benchmarks: `make bench` runs every one and merges its figures into
# bench/RESULTS.md (each script owns its own section).  They measure; nothing
# here asserts a timing, and none of it is part of `make check`.
.PHONY: bench bench-mkfs
BENCH_TARGETS += bench-mkfs
# (bench/fsck/build.mk is included by tests/fsck/build.mk, before this file.)
include bench/debugfs/build.mk bench/vm/build.mk bench/forensics/build.mk bench/fuse/build.mk

# mkfs on 64 GiB and 1 TiB sparse files, and mkfs -d of 100,000 files, against
# mke2fs and mkfs.xfs.  RUNS / RUNS_D / BENCH_TMP tune it (bench/README.md).
bench-mkfs: $(BUILD)/mkfs.stalefs
	STALEFS_MKFS=$(abspath $(BUILD)/mkfs.stalefs) bench/mkfs.sh

bench: deps $(BENCH_TARGETS)
