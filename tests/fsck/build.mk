# The fsck corruption corpus: tests/fsck/run builds each damaged image from
# scratch and compares two fsck runs with the expectations, in parallel.
# `make check-fsck` runs it with the sanitized tools (build/san), then with
# the normal build.
.PHONY: check-fsck
CHECK_TARGETS += check-fsck
check-fsck: $(BUILD)/fsck.stalefs $(BUILD)/mkfs.stalefs $(BUILD)/debugfs.stalefs $(BUILD)/resize.stalefs
	$(MAKE) --no-print-directory SAN=1 $(SANBIN)/fsck.stalefs $(SANBIN)/mkfs.stalefs $(SANBIN)/debugfs.stalefs $(SANBIN)/resize.stalefs
	FSCK=$(SANBIN)/fsck.stalefs MKFS=$(SANBIN)/mkfs.stalefs DEBUGFS=$(SANBIN)/debugfs.stalefs RESIZE=$(SANBIN)/resize.stalefs tests/fsck/run
	FSCK=$(BIN)/fsck.stalefs MKFS=$(BIN)/mkfs.stalefs DEBUGFS=$(BIN)/debugfs.stalefs RESIZE=$(BIN)/resize.stalefs tests/fsck/run
include tests/fuzz/fsck/build.mk
include bench/fsck/build.mk
