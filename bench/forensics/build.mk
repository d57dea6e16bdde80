# Timeline benchmark: stalefs-timeline and debugfs' timeline of 100,000 inodes against
# TSK's fls -m -r on the same tree in ext4 (bench/forensics/timeline.sh).  Not in make check.
.PHONY: bench-timeline
BENCH_TARGETS += bench-timeline
bench-timeline: $(BUILD)/stalefs-timeline $(BUILD)/debugfs.stalefs $(BUILD)/mkfs.stalefs
	STALEFS_TIMELINE=$(abspath $(BUILD)/stalefs-timeline) STALEFS_DEBUGFS=$(abspath $(BUILD)/debugfs.stalefs) \
		STALEFS_MKFS=$(abspath $(BUILD)/mkfs.stalefs) bench/forensics/timeline.sh
