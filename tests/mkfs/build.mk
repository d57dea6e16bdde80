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
check-mkfs: $(BUILD)/mkfs.stalefs $(MKFS_READBACK)
	$(MAKE) --no-print-directory SAN=1 $(SANBIN)/mkfs.stalefs mkfs-readback
	tests/mkfs/run-tests $(SANBIN)/mkfs.stalefs $(SANBIN)/tests/mkfs/mkfs_readback
	tests/mkfs/run-tests $(BIN)/mkfs.stalefs $(BIN)/tests/mkfs/mkfs_readback
