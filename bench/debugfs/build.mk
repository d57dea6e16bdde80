# debugfs benchmark: debugfs.stalefs against e2fsprogs' debugfs (bench/debugfs/debugfs.sh).
.PHONY: bench-debugfs
BENCH_TARGETS += bench-debugfs
bench-debugfs: $(BUILD)/debugfs.stalefs $(BUILD)/mkfs.stalefs
	STALEFS_DEBUGFS=$(abspath $(BUILD)/debugfs.stalefs) STALEFS_MKFS=$(abspath $(BUILD)/mkfs.stalefs) bench/debugfs/debugfs.sh
