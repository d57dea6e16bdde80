# mkfs.stalefs tests: tests/mkfs/run-tests drives the tool through every option
# and bad input, and reads images back with mkfs_readback (a small checker on
# libstalefs).  `make check-mkfs` runs them against the sanitized build and
# the normal one.
MKFS_READBACK := $(BUILD)/tests/mkfs/mkfs_readback
PROGRAMS_TESTS += $(MKFS_READBACK)

$(MKFS_READBACK): $(BUILD)/tests/mkfs/mkfs_readback.o $(LIBSTALEFS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/mkfs/mkfs_readback.o: $(ERR_H)

.PHONY: mkfs-readback check-mkfs
mkfs-readback: $(MKFS_READBACK)
SAN_EXTRA_TARGETS += mkfs-readback

CHECK_TARGETS += check-mkfs
# t-xattr.sh reads images back with the debugfs.stalefs and fsck.stalefs of the same build.
check-mkfs: $(BUILD)/mkfs.stalefs $(MKFS_READBACK)
	$(MAKE) --no-print-directory SAN=1 $(SANBIN)/mkfs.stalefs $(SANBIN)/debugfs.stalefs $(SANBIN)/fsck.stalefs mkfs-readback
	$(MAKE) --no-print-directory SAN=0 $(BIN)/debugfs.stalefs $(BIN)/fsck.stalefs
	tests/mkfs/run-tests $(SANBIN)/mkfs.stalefs $(SANBIN)/tests/mkfs/mkfs_readback
	tests/mkfs/run-tests $(BIN)/mkfs.stalefs $(BIN)/tests/mkfs/mkfs_readback
