# The FUSE server's tests, on the host (this kernel has FUSE; no VM): every
# test_* of tests/fuse/t-*.sh (tests/fuse/run-tests), against the normal
# build and, for the damaged images and the sanitized runs, the ASan+UBSan
# build.  `make check-fuse` is part of `make check`; `make soak-fuse` (part of
# `make soak`) runs the long versions: thousands of damaged images, hundreds
# of kill points.
FUSE_PROBE := $(BUILD)/tests/fuse/fuse-probe
FUSE_KILLPOINT := $(BUILD)/tests/fuse/killpoint.so

$(FUSE_PROBE): $(BUILD)/tests/fuse/fuse-probe.o
	$(CC) $(LDFLAGS) -o $@ $^

# Preloaded into the server; never sanitized (ASan must come first in the preload list).
$(FUSE_KILLPOINT): tests/fuse/killpoint.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g -fPIC -shared $< -o $@ -ldl

.PHONY: fuse-test-tools check-fuse soak-fuse
fuse-test-tools: $(FUSE_PROBE) $(FUSE_KILLPOINT)

FUSE_TEST_DEPS = stalefs-fuse fuse-test-tools $(BIN)/mkfs.stalefs $(BIN)/fsck.stalefs $(BIN)/debugfs.stalefs \
	$(BIN)/fsx $(BIN)/cache-workload $(BIN)/powercut-check $(BIN)/walk-fs $(BIN)/stalefs-falloc

CHECK_TARGETS += check-fuse
check-fuse:
	$(MAKE) --no-print-directory SAN=0 $(FUSE_TEST_DEPS) $(ROBUST_BASES)
	$(MAKE) --no-print-directory SAN=1 stalefs-fuse
	tests/fuse/run-tests $(BIN) $(SANBIN)

SOAK_TARGETS += soak-fuse
soak-fuse:
	$(MAKE) --no-print-directory SAN=0 $(FUSE_TEST_DEPS) $(ROBUST_BASES)
	$(MAKE) --no-print-directory SAN=1 stalefs-fuse
	FUSE_SOAK=1 tests/fuse/run-tests $(BIN) $(SANBIN)
