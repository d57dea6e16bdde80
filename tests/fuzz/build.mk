# Fuzzing in depth (issue 8 part 4).  Each libFuzzer target keeps a corpus
# in the repository, tests/fuzz/<target>/corpus/ (images gzipped to keep the
# repository small; mkfs command lines as text, one argument per line), on
# top of the seeds made at build time.  `make soak` fuzzes every target for
# SOAK_FUZZ_TIME seconds each; findings land in build/fuzz-soak/<target>/.
# After a long run, `make fuzz-corpus-update` folds new coverage back into
# the repository's corpora (minimized by libFuzzer's -merge).
include tests/fuzz/mkfs/build.mk

SOAK_FUZZ_TIME ?= 1200
FUZZ_SOAK := build/fuzz-soak
FUZZ_REPO_CORPUS := build/fuzz-corpus

# The repository's gzipped images, unpacked for libFuzzer.
$(FUZZ_REPO_CORPUS)/fsck/.done: $(wildcard tests/fuzz/fsck/corpus/*.gz)
	rm -rf $(dir $@) && mkdir -p $(dir $@)
	for f in $^; do gunzip -c $$f >$(dir $@)$$(basename $$f .gz); done
	touch $@

$(FUZZ_REPO_CORPUS)/debugfs/.done: $(wildcard tests/fuzz/debugfs/corpus/*.gz)
	rm -rf $(dir $@) && mkdir -p $(dir $@)
	for f in $^; do gunzip -c $$f >$(dir $@)$$(basename $$f .gz); done
	touch $@

.PHONY: soak-fuzz-fsck soak-fuzz-fsck-repair soak-fuzz-debugfs soak-fuzz-debugfs-rw soak-fuzz-mkfs
SOAK_TARGETS += soak-fuzz-fsck soak-fuzz-fsck-repair soak-fuzz-debugfs soak-fuzz-debugfs-rw soak-fuzz-mkfs

# soak_fuzz NAME, BINARY, OPTIONS, CORPUS DIRS: NAME's working corpus starts
# from the given ones; a crash or leak fails the target and leaves the input.
define soak_fuzz
	rm -rf $(FUZZ_SOAK)/$(1) && mkdir -p $(FUZZ_SOAK)/$(1)/corpus
	$(2) -max_total_time=$(SOAK_FUZZ_TIME) -print_final_stats=1 -artifact_prefix=$(FUZZ_SOAK)/$(1)/ \
		$(3) $(FUZZ_SOAK)/$(1)/corpus $(4)
endef

soak-fuzz-fsck: build/fuzz-fsck/fuzz-fsck build/fuzz-fsck/fsck-seeds/.done $(FUZZ_REPO_CORPUS)/fsck/.done
	$(call soak_fuzz,fsck,build/fuzz-fsck/fuzz-fsck,-timeout=10 -max_len=2097152,build/fuzz-fsck/fsck-seeds $(FUZZ_REPO_CORPUS)/fsck)

soak-fuzz-fsck-repair: build/fuzz-fsck/fuzz-fsck build/fuzz-fsck/fsck-seeds/.done $(FUZZ_REPO_CORPUS)/fsck/.done
	$(call soak_fuzz,fsck-repair,STALEFS_FUZZ_REPAIR=1 build/fuzz-fsck/fuzz-fsck,-timeout=10 -max_len=2097152,build/fuzz-fsck/fsck-seeds $(FUZZ_REPO_CORPUS)/fsck)

soak-fuzz-debugfs: build/fuzz/fuzz_debugfs build/fuzz/corpus-debugfs/.seeded $(FUZZ_REPO_CORPUS)/debugfs/.done
	$(call soak_fuzz,debugfs,build/fuzz/fuzz_debugfs,-timeout=20 -max_len=262144 -close_fd_mask=3,build/fuzz/corpus-debugfs $(FUZZ_REPO_CORPUS)/debugfs)

soak-fuzz-debugfs-rw: build/fuzz/fuzz_debugfs_rw build/fuzz/corpus-debugfs/.seeded $(FUZZ_REPO_CORPUS)/debugfs/.done
	$(call soak_fuzz,debugfs-rw,build/fuzz/fuzz_debugfs_rw,-timeout=20 -max_len=262144 -close_fd_mask=3,build/fuzz/corpus-debugfs $(FUZZ_REPO_CORPUS)/debugfs)

soak-fuzz-mkfs: build/fuzz-mkfs/fuzz-mkfs
	$(call soak_fuzz,mkfs,build/fuzz-mkfs/fuzz-mkfs,-timeout=10 -max_len=4096 -close_fd_mask=2,tests/fuzz/mkfs/corpus)

# Fold a soak's new coverage into the repository's corpora (then review and commit).
.PHONY: fuzz-corpus-update
fuzz-corpus-update: build/fuzz-fsck/fuzz-fsck build/fuzz/fuzz_debugfs build/fuzz-mkfs/fuzz-mkfs \
		$(FUZZ_REPO_CORPUS)/fsck/.done $(FUZZ_REPO_CORPUS)/debugfs/.done
	tools/fuzz-corpus-update
