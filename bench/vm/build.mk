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
