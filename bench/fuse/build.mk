# The FUSE benchmark (issue 25): stalefs-fuse beside fuse2fs on the host,
# bench/fuse/fuse.sh; `make bench-fuse` writes the "fuse" section of
# bench/RESULTS.md.  `make bench-fuse-vm` (bench/fuse/vm.sh) runs the same
# cases in the test VM with stalefs.ko beside both ("fuse-vm").
.PHONY: bench-fuse bench-fuse-vm
BENCH_TARGETS += bench-fuse bench-fuse-vm
bench-fuse: stalefs-fuse $(BUILD)/mkfs.stalefs
	STALEFS_FUSE=$(abspath $(BUILD)/stalefs-fuse) STALEFS_MKFS=$(abspath $(BUILD)/mkfs.stalefs) bench/fuse/fuse.sh
bench-fuse-vm: kernel stalefs-fuse $(BUILD)/mkfs.stalefs
	bench/fuse/vm.sh
