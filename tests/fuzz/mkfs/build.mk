# libFuzzer target for mkfs.stalefs's option parser (mkfs/options.c) and the
# layout it leads to.  `make fuzz-mkfs` fuzzes for FUZZ_TIME seconds over
# the corpus kept in tests/fuzz/mkfs/corpus/ (one argument per line);
# check-fuzz-mkfs is the short bounded run `make check` does.  New
# findings land in build/fuzz-mkfs/.
FUZZ_CC ?= clang
MKFS_FUZZ_OUT := build/fuzz-mkfs
MKFS_FUZZ_CHECK_RUNS ?= 30000
MKFS_FUZZ_FLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Wall -Wextra -Werror -O1 -g \
	-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-Iformat -Iformat/core -Iformat/lib -Ibuild/gen -Imkfs
MKFS_FUZZ_SRC := $(wildcard format/core/*.c) $(wildcard format/lib/*.c) mkfs/options.c
MKFS_FUZZ_OBJ := $(patsubst %.c,$(MKFS_FUZZ_OUT)/%.o,$(MKFS_FUZZ_SRC)) $(MKFS_FUZZ_OUT)/gen/stalefs_err.o
MKFS_FUZZ := $(MKFS_FUZZ_OUT)/fuzz-mkfs
MKFS_FUZZ_CORPUS := tests/fuzz/mkfs/corpus

$(MKFS_FUZZ_OUT)/%.o: %.c build/gen/stalefs_err.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(MKFS_FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(MKFS_FUZZ_OUT)/gen/stalefs_err.o: build/gen/stalefs_err.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(MKFS_FUZZ_FLAGS) -Wno-unused-parameter -c build/gen/stalefs_err.c -o $@

$(MKFS_FUZZ): $(MKFS_FUZZ_OBJ) tests/fuzz/mkfs/fuzz_mkfs.c
	$(FUZZ_CC) $(MKFS_FUZZ_FLAGS) -fsanitize=fuzzer -o $@ tests/fuzz/mkfs/fuzz_mkfs.c $(MKFS_FUZZ_OBJ) $(LDLIBS)

# The long run grows a working copy of the corpus (the repository's stays as
# it is; `make fuzz-mkfs-merge` folds new coverage back into it).
.PHONY: fuzz-mkfs check-fuzz-mkfs fuzz-mkfs-merge
fuzz: fuzz-mkfs
fuzz-mkfs: $(MKFS_FUZZ)
	@mkdir -p $(MKFS_FUZZ_OUT)/corpus
	cd $(MKFS_FUZZ_OUT) && ./fuzz-mkfs -max_total_time=$(FUZZ_TIME) -timeout=10 -max_len=4096 \
		-close_fd_mask=2 -print_final_stats=1 corpus $(abspath $(MKFS_FUZZ_CORPUS))

fuzz-mkfs-merge: $(MKFS_FUZZ)
	$(MKFS_FUZZ) -merge=1 -close_fd_mask=2 $(MKFS_FUZZ_CORPUS) $(MKFS_FUZZ_OUT)/corpus

CHECK_TARGETS += check-fuzz-mkfs
check-fuzz-mkfs: $(MKFS_FUZZ)
	rm -rf $(MKFS_FUZZ_OUT)/check && mkdir -p $(MKFS_FUZZ_OUT)/check
	cd $(MKFS_FUZZ_OUT) && ./fuzz-mkfs -runs=$(MKFS_FUZZ_CHECK_RUNS) -timeout=10 -max_len=4096 -seed=1 \
		-close_fd_mask=2 -print_final_stats=1 check $(abspath $(MKFS_FUZZ_CORPUS))
