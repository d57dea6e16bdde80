# fsck benchmark: fsck.stalefs -fn against e2fsck -fn on 100,000 files (bench/fsck/fsck.sh).
.PHONY: bench-fsck
BENCH_TARGETS += bench-fsck
bench-fsck: $(BUILD)/fsck.stalefs $(BUILD)/mkfs.stalefs
	STALEFS_FSCK=$(abspath $(BUILD)/fsck.stalefs) STALEFS_MKFS=$(abspath $(BUILD)/mkfs.stalefs) bench/fsck/fsck.sh
