# libFuzzer target for fsck.stalefs (clang, ASan+UBSan): `make fuzz-fsck` runs it for
# FSCK_FUZZ_TIME seconds (default 3600) over seeds made from the corpus; `make check`
# runs a short bounded round (check-fuzz-fsck).  New crashes land in build/fuzz-fsck/.
FUZZ_CC ?= clang
FSCK_FUZZ_OUT := build/fuzz-fsck
FSCK_FUZZ_TIME ?= 3600
FSCK_FUZZ_CHECK_RUNS ?= 20000
FSCK_FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Wall -Wextra -Werror -O1 -g \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-Iformat -Iformat/core -Iformat/lib -Ibuild/gen -Ifsck
FSCK_FUZZ_SRC := $(wildcard format/core/*.c) $(wildcard format/lib/*.c) \
	$(filter-out fsck/entry.c,$(wildcard fsck/*.c))
FSCK_FUZZ_OBJ := $(patsubst %.c,$(FSCK_FUZZ_OUT)/%.o,$(FSCK_FUZZ_SRC)) $(FSCK_FUZZ_OUT)/gen/stalefs_err.o
FSCK_FUZZ := $(FSCK_FUZZ_OUT)/fuzz-fsck

$(FSCK_FUZZ_OUT)/format/%.o $(FSCK_FUZZ_OUT)/fsck/%.o: FSCK_FUZZ_EXTRA := -fsanitize=fuzzer-no-link
$(FSCK_FUZZ_OUT)/%.o: %.c build/gen/stalefs_err.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FSCK_FUZZ_FLAGS) $(FSCK_FUZZ_EXTRA) -c $< -o $@

$(FSCK_FUZZ_OUT)/gen/stalefs_err.o: build/gen/stalefs_err.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FSCK_FUZZ_FLAGS) -Wno-unused-parameter -c build/gen/stalefs_err.c -o $@

$(FSCK_FUZZ): $(FSCK_FUZZ_OBJ) tests/fuzz/fsck/fuzz_fsck.c
	$(FUZZ_CC) $(FSCK_FUZZ_FLAGS) -fsanitize=fuzzer -o $@ tests/fuzz/fsck/fuzz_fsck.c $(FSCK_FUZZ_OBJ) $(LDLIBS)

$(FSCK_FUZZ_OUT)/fsck-seeds/.done: build/mkfs.stalefs build/debugfs.stalefs tests/fuzz/fsck/make-seeds $(wildcard tests/fsck/f_*/script)
	rm -rf $(FSCK_FUZZ_OUT)/fsck-seeds
	MKFS=$(BIN)/mkfs.stalefs DEBUGFS=$(BIN)/debugfs.stalefs tests/fuzz/fsck/make-seeds $(FSCK_FUZZ_OUT)/fsck-seeds
	touch $@

.PHONY: fuzz fuzz-fsck check-fuzz-fsck
fuzz: fuzz-fsck
fuzz-fsck: $(FSCK_FUZZ) $(FSCK_FUZZ_OUT)/fsck-seeds/.done
	@mkdir -p $(FSCK_FUZZ_OUT)/fsck-corpus
	cd $(FSCK_FUZZ_OUT) && ./fuzz-fsck -max_total_time=$(FSCK_FUZZ_TIME) -timeout=10 -max_len=2097152 \
		-print_final_stats=1 fsck-corpus fsck-seeds

# Repeatable, as check-fuzz-debugfs: a fixed seed and run count over the
# repository's corpus only (the seeds made from tests/fsck carry random UUIDs
# and times), in a fresh private directory so earlier runs do not steer it.
CHECK_TARGETS += check-fuzz-fsck
check-fuzz-fsck: $(FSCK_FUZZ) build/fuzz-corpus/fsck/.done
	rm -rf $(FSCK_FUZZ_OUT)/fsck-check && mkdir -p $(FSCK_FUZZ_OUT)/fsck-check
	cd $(FSCK_FUZZ_OUT) && ./fuzz-fsck -runs=$(FSCK_FUZZ_CHECK_RUNS) -timeout=10 -max_len=2097152 -seed=1 \
		-print_final_stats=1 fsck-check ../fuzz-corpus/fsck
