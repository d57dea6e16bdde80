# VM benchmark: stalefs, ext4 and XFS in one boot of the test VM (fio for
# the data path, dirbench for metadata), bench/vm/run.sh; `make bench-vm`.
# dirbench: create/stat/ls/unlink of many files, run in the guest.
DIRBENCH := $(BUILD)/dirbench
PROGRAMS += $(DIRBENCH)
$(DIRBENCH): $(BUILD)/bench/vm/dirbench.o
	$(CC) $(LDFLAGS) -o $@ $^

.PHONY: bench-vm
BENCH_TARGETS += bench-vm
bench-vm: kernel programs
	bench/vm/run.sh

# A/B of two module builds (bench/vm/ab-run.sh OLD.ko NEW.ko): by hand, not
# part of make bench; it needs dirbench and mkfs from `make programs`.

# Issue 27: fstrim of 100,000 free extents and an online grow of 1 GiB to
# 1 TiB, stalefs against ext4 in one boot (bench/vm/resize-run.sh);
# `make bench-resize`.  holes: fragments free space for the fstrim figure.
HOLES := $(BUILD)/holes
PROGRAMS += $(HOLES)
$(HOLES): $(BUILD)/bench/vm/holes.o
	$(CC) $(LDFLAGS) -o $@ $^

.PHONY: bench-resize
BENCH_TARGETS += bench-resize
bench-resize: kernel programs
	bench/vm/resize-run.sh

# Issue 26: many files (untar, cold read, rm -rf of ~30,000 files of Linux's
# source) and aging (rounds of create/rewrite/delete on a nearly full
# filesystem, read back cold after each), stalefs against ext4 and XFS in
# one boot each (bench/vm/tree-run.sh); `make bench-tree`, `make bench-aging`.
# treeread: reads a whole tree and says what it read; agetree: the aging rounds.
TREEREAD := $(BUILD)/treeread
AGETREE := $(BUILD)/agetree
PROGRAMS += $(TREEREAD) $(AGETREE)
$(TREEREAD): $(BUILD)/bench/vm/treeread.o
	$(CC) $(LDFLAGS) -o $@ $^
$(AGETREE): $(BUILD)/bench/vm/agetree.o
	$(CC) $(LDFLAGS) -o $@ $^

.PHONY: bench-tree bench-aging
BENCH_TARGETS += bench-tree bench-aging
bench-tree: kernel programs
	bench/vm/tree-run.sh tree
bench-aging: kernel programs
	bench/vm/tree-run.sh aging
