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

# ---- the debugfs fuzzer (libFuzzer, clang) ----
# Sources in tests/fuzz/debugfs/; everything is rebuilt with clang under
# -fsanitize=fuzzer,address,undefined into build/fuzz.  `make fuzz-debugfs`
# fuzzes for FUZZ_TIME seconds (default 600); check-fuzz-debugfs is the short
# bounded run `make check` does.
FUZZ_CC ?= clang
FUZZ_DIR := build/fuzz
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Wall -Wextra -Werror -O1 -g \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-Iformat -Iformat/core -Iformat/lib -Idebugfs -I$(FUZZ_DIR)/gen
FUZZ_DEBUGFS := $(FUZZ_DIR)/fuzz_debugfs
FUZZ_DEBUGFS_SRC := $(FORMAT_CORE_SRC) $(FORMAT_LIB_SRC) $(filter-out debugfs/main.c,$(wildcard debugfs/*.c)) \
	tests/fuzz/debugfs/fuzz_debugfs.c
FUZZ_DEBUGFS_OBJ := $(patsubst %.c,$(FUZZ_DIR)/%.o,$(FUZZ_DEBUGFS_SRC)) $(FUZZ_DIR)/gen/stalefs_err.o \
	$(FUZZ_DIR)/gen/debug_cmds.o
FUZZ_TIME ?= 600
FUZZ_CORPUS := $(FUZZ_DIR)/corpus-debugfs

$(FUZZ_DIR)/gen/stalefs_err.c $(FUZZ_DIR)/gen/stalefs_err.h: format/lib/stalefs_err.et
	@mkdir -p $(FUZZ_DIR)/gen
	cd $(FUZZ_DIR)/gen && compile_et $(abspath $<)

$(FUZZ_DIR)/gen/debug_cmds.c: debugfs/debug_cmds.ct
	@mkdir -p $(FUZZ_DIR)/gen
	cd $(FUZZ_DIR)/gen && mk_cmds $(abspath $<)

$(FUZZ_DIR)/gen/%.o: $(FUZZ_DIR)/gen/%.c
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-unused-parameter -c $< -o $@

$(FUZZ_DIR)/%.o: %.c $(FUZZ_DIR)/gen/stalefs_err.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_DEBUGFS): $(FUZZ_DEBUGFS_OBJ)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

# The editing twin (-DFUZZ_RW): the same image corpus, opened read-write.
FUZZ_DEBUGFS_RW := $(FUZZ_DIR)/fuzz_debugfs_rw
$(FUZZ_DIR)/tests/fuzz/debugfs/fuzz_debugfs_rw.o: tests/fuzz/debugfs/fuzz_debugfs.c $(FUZZ_DIR)/gen/stalefs_err.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -DFUZZ_RW -MMD -MP -c $< -o $@

$(FUZZ_DEBUGFS_RW): $(filter-out %/fuzz_debugfs.o,$(FUZZ_DEBUGFS_OBJ)) $(FUZZ_DIR)/tests/fuzz/debugfs/fuzz_debugfs_rw.o
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

$(FUZZ_CORPUS)/.seeded: tests/fuzz/debugfs/make-seeds build/mkfs.stalefs build/debugfs.stalefs
	tests/fuzz/debugfs/make-seeds $(FUZZ_CORPUS) build/mkfs.stalefs build/debugfs.stalefs
	touch $@

# These run from the top of the tree: -artifact_prefix keeps the crash, leak
# and timeout inputs libFuzzer writes in build/fuzz, not in the sources.
.PHONY: fuzz-debugfs fuzz-debugfs-rw check-fuzz-debugfs
fuzz-debugfs: $(FUZZ_DEBUGFS) $(FUZZ_CORPUS)/.seeded
	$(FUZZ_DEBUGFS) -max_total_time=$(FUZZ_TIME) -max_len=262144 -timeout=20 -close_fd_mask=3 -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_CORPUS)

fuzz-debugfs-rw: $(FUZZ_DEBUGFS_RW) $(FUZZ_CORPUS)/.seeded
	mkdir -p $(FUZZ_CORPUS)-rw
	$(FUZZ_DEBUGFS_RW) -max_total_time=$(FUZZ_TIME) -max_len=262144 -timeout=20 -close_fd_mask=3 -artifact_prefix=$(FUZZ_DIR)/ \
		$(FUZZ_CORPUS)-rw $(FUZZ_CORPUS)

# Bounded and repeatable: a fixed seed, a fixed number of runs (about a minute
# read-only and half a minute editing here) and only the repository's corpus
# as input -- make-seeds' images carry random data, UUIDs and times, so with
# them CI fuzzed other bytes than this machine and found what it could not
# replay.  Private copies, so `make check` does not grow the corpus.
# Open-ended random search is `make soak`'s job.
DEBUGFS_FUZZ_CHECK_RUNS ?= 12000
DEBUGFS_FUZZ_RW_CHECK_RUNS ?= 10000
CHECK_TARGETS += check-fuzz-debugfs
check-fuzz-debugfs:
	$(MAKE) --no-print-directory $(FUZZ_DEBUGFS) $(FUZZ_DEBUGFS_RW) build/fuzz-corpus/debugfs/.done
	rm -rf $(FUZZ_DIR)/check-corpus-debugfs && mkdir -p $(FUZZ_DIR)/check-corpus-debugfs
	$(FUZZ_DEBUGFS) -runs=$(DEBUGFS_FUZZ_CHECK_RUNS) -seed=1 -max_len=262144 -timeout=20 -close_fd_mask=3 -artifact_prefix=$(FUZZ_DIR)/ \
		-print_final_stats=1 $(FUZZ_DIR)/check-corpus-debugfs build/fuzz-corpus/debugfs
	rm -rf $(FUZZ_DIR)/check-corpus-debugfs && mkdir -p $(FUZZ_DIR)/check-corpus-debugfs
	$(FUZZ_DEBUGFS_RW) -runs=$(DEBUGFS_FUZZ_RW_CHECK_RUNS) -seed=1 -max_len=262144 -timeout=20 -close_fd_mask=3 -artifact_prefix=$(FUZZ_DIR)/ \
		-print_final_stats=1 $(FUZZ_DIR)/check-corpus-debugfs build/fuzz-corpus/debugfs

-include $(shell find $(FUZZ_DIR) -name '*.d' 2>/dev/null)
