# tunefs.stalefs tests: tests/tunefs/run-tests changes every setting and reads
# it back through debugfs.stalefs, checks fsck.stalefs -fn after each, and
# checks that each refusal leaves the image byte-identical.  `make
# check-tunefs` runs it against the sanitized build and the normal one.
.PHONY: check-tunefs
CHECK_TARGETS += check-tunefs
check-tunefs:
	$(MAKE) --no-print-directory SAN=0 build/tunefs.stalefs build/mkfs.stalefs build/debugfs.stalefs build/fsck.stalefs
	$(MAKE) --no-print-directory SAN=1 build/san/tunefs.stalefs
	tests/tunefs/run-tests $(SANBIN)/tunefs.stalefs $(BIN)/mkfs.stalefs $(BIN)/debugfs.stalefs $(BIN)/fsck.stalefs
	tests/tunefs/run-tests $(BIN)/tunefs.stalefs $(BIN)/mkfs.stalefs $(BIN)/debugfs.stalefs $(BIN)/fsck.stalefs
