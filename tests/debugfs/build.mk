# debugfs.stalefs tests: tests/debugfs/run-tests drives every command (good and
# bad arguments, round trips, editing, JSON, read-only safety, metadump).
# `make check-debugfs` runs it against the sanitized build and the normal one.
# The metadump round trip ends with fsck.stalefs -fn on the restored image; if
# fsck.stalefs cannot be built, that assertion fails (it is not skipped).
.PHONY: check-debugfs
CHECK_TARGETS += check-debugfs
check-debugfs:
	$(MAKE) --no-print-directory SAN=0 build/debugfs.stalefs build/mkfs.stalefs
	$(MAKE) --no-print-directory SAN=1 build/san/debugfs.stalefs build/san/mkfs.stalefs
	-$(MAKE) --no-print-directory SAN=0 build/fsck.stalefs
	tests/debugfs/run-tests $(SANBIN)/debugfs.stalefs $(SANBIN)/mkfs.stalefs $(BIN)/fsck.stalefs
	tests/debugfs/run-tests $(BIN)/debugfs.stalefs $(BIN)/mkfs.stalefs $(BIN)/fsck.stalefs
