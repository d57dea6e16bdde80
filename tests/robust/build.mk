# ---- power cuts (issue 8 part 2) ----
# replay-log replays a dm-log-writes log to any cut point; powercut-check
# fills a device with the recognisable pattern and checks a replayed,
# fsck'd, mounted image.  Both run inside the VM (tests/vm/scenarios/
# robust-powercut.sh; the long run is tests/vm/soak/robust-powercut-soak.sh).
REPLAY_LOG := $(BUILD)/replay-log
POWERCUT_CHECK := $(BUILD)/powercut-check
PROGRAMS += $(REPLAY_LOG) $(POWERCUT_CHECK)

$(REPLAY_LOG): $(BUILD)/tests/robust/replay-log.o $(BUILD)/tests/robust/logwrites.o
	$(CC) $(LDFLAGS) -o $@ $^

$(POWERCUT_CHECK): $(BUILD)/tests/robust/powercut-check.o $(BUILD)/tests/robust/promises.o $(BUILD)/tests/robust/workload-io.o
	$(CC) $(LDFLAGS) -o $@ $^

# ---- power cuts with a volatile write cache (issue 13 part 5) ----
# cache-cut makes the disk a power cut leaves when the device's cache loses
# an arbitrary subset of the writes since the last flush (cache-model.h);
# cache-workload records the workloads.  Both run inside the VM (tests/vm/
# scenarios/robust-powercut-cache*.sh).  cache-model-test checks the model
# on synthetic logs and powercut-check-test the checker on plain
# directories, on the host, normally and with ASan+UBSan.
CACHE_CUT := $(BUILD)/cache-cut
CACHE_WORKLOAD := $(BUILD)/cache-workload
CACHE_MODEL_TEST := $(BUILD)/tests/robust/cache-model-test
PROGRAMS += $(CACHE_CUT) $(CACHE_WORKLOAD)

$(CACHE_CUT): $(BUILD)/tests/robust/cache-cut.o $(BUILD)/tests/robust/cache-model.o $(BUILD)/tests/robust/logwrites.o
	$(CC) $(LDFLAGS) -o $@ $^

$(CACHE_WORKLOAD): $(BUILD)/tests/robust/cache-workload.o $(BUILD)/tests/robust/workload-io.o
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/tests/robust/cache-model-test.o: CFLAGS += $(shell pkg-config --cflags check 2>/dev/null)
$(CACHE_MODEL_TEST): $(BUILD)/tests/robust/cache-model-test.o $(BUILD)/tests/robust/cache-model.o $(BUILD)/tests/robust/logwrites.o
	@pkg-config --exists check || { echo "cache-model-test: the Check library is missing (pkg-config check); run make deps" >&2; exit 1; }
	$(CC) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs check 2>/dev/null)

.PHONY: cache-model-test check-cache-model
cache-model-test: $(CACHE_MODEL_TEST) $(CACHE_CUT) $(POWERCUT_CHECK)
SAN_EXTRA_TARGETS += cache-model-test
CHECK_TARGETS += check-cache-model
check-cache-model:
	$(MAKE) --no-print-directory SAN=0 cache-model-test
	$(MAKE) --no-print-directory SAN=1 cache-model-test
	build/tests/robust/cache-model-test build/cache-cut
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		build/san/tests/robust/cache-model-test build/san/cache-cut
	tests/robust/powercut-check-test build/powercut-check
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		tests/robust/powercut-check-test build/san/powercut-check

# Soak: >= 500 cut points over several recorded workloads (not in make check).

.PHONY: powercut-soak
powercut-soak: kernel programs
	tests/vm/run-vm --timeout 10800 tests/vm/soak/robust-powercut-soak.sh
SOAK_TARGETS += powercut-soak

# The volatile-cache power cuts' soak: >= 500 cut points on stalefs, and the
# same on ext4, the reference that shows the model and the checks are sound.
.PHONY: powercut-cache-soak powercut-cache-soak-ext4
powercut-cache-soak: kernel programs
	tests/vm/run-vm --timeout 10800 tests/vm/soak/robust-powercut-cache-soak.sh
powercut-cache-soak-ext4: programs
	tests/vm/run-vm --timeout 10800 tests/vm/soak/robust-powercut-cache-ext4-soak.sh
SOAK_TARGETS += powercut-cache-soak powercut-cache-soak-ext4

# Issue 27: power cuts over online grows (the grow workload, every mark and
# flush, 3 rounds) and over -o discard (kept discards zero their range).
.PHONY: powercut-grow-soak powercut-discard-soak
powercut-grow-soak: kernel programs
	tests/vm/run-vm --timeout 10800 tests/vm/soak/robust-powercut-grow-soak.sh
powercut-discard-soak: kernel programs
	tests/vm/run-vm --timeout 10800 tests/vm/soak/robust-powercut-discard-soak.sh
SOAK_TARGETS += powercut-grow-soak powercut-discard-soak

# ---- damaged images (issue 8 part 1) ----
# walk-fs: the one-process walk and change of a mounted image the VM scenarios run.
WALK_FS := $(BUILD)/walk-fs
PROGRAMS += $(WALK_FS)
$(WALK_FS): tests/robust/walk-fs.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g $(SANFLAGS) $< -o $@ $(SANFLAGS)

# The populated base images robust-damage damages, made on the host before
# the VM boots (hundreds of small processes cost seconds each under TCG).
ROBUST_BASES := $(BUILD)/robust/base-1024.img $(BUILD)/robust/base-4096.img
$(BUILD)/robust/base-%.img: tests/robust/make-base-image $(BUILD)/mkfs.stalefs $(BUILD)/debugfs.stalefs $(BUILD)/fsck.stalefs
	@mkdir -p $(dir $@)
	STALEFS_BUILD=$(BUILD) tests/robust/make-base-image $@ $*
check-vm: $(ROBUST_BASES)

# The long run: 2,000 damaged images in one VM (hours under TCG).
.PHONY: robust-damage-soak
robust-damage-soak: kernel programs $(ROBUST_BASES)
	tests/vm/run-vm --timeout 14400 tests/vm/soak/robust-damage-soak.sh
SOAK_TARGETS += robust-damage-soak

# enospc-workload: one round of robust-enospc (a full disk at every step).
ENOSPC_WORKLOAD := $(BUILD)/enospc-workload
PROGRAMS += $(ENOSPC_WORKLOAD)
$(ENOSPC_WORKLOAD): tests/robust/enospc-workload.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g $(SANFLAGS) $< -o $@ $(SANFLAGS)

# The long run of robust-enospc: 2 and 4 KiB blocks.
.PHONY: robust-enospc-soak
robust-enospc-soak: kernel programs
	tests/vm/run-vm --timeout 3600 tests/vm/soak/robust-enospc-soak.sh
SOAK_TARGETS += robust-enospc-soak

# The long run of robust-eio-random: 300 rounds of random device errors.
.PHONY: robust-eio-soak
robust-eio-soak: kernel programs $(ROBUST_BASES)
	tests/vm/run-vm --timeout 7200 tests/vm/soak/robust-eio-soak.sh
SOAK_TARGETS += robust-eio-soak

# ---- the stress replay (issue 29) ----
# stress-workload: several processes at once over hundreds of directories,
# recorded with dm-log-writes; stress-replay: every cut of its log (flush,
# FUA and fsync points, the volatile-cache model), each mounted, checked
# against the promises (promises.c) and fsck'd, in one process per run.
STRESS_WORKLOAD := $(BUILD)/stress-workload
STRESS_REPLAY := $(BUILD)/stress-replay
PROGRAMS += $(STRESS_WORKLOAD) $(STRESS_REPLAY)

$(STRESS_WORKLOAD): $(BUILD)/tests/robust/stress-workload.o $(BUILD)/tests/robust/workload-io.o
	$(CC) $(LDFLAGS) -o $@ $^

$(STRESS_REPLAY): $(BUILD)/tests/robust/stress-replay.o $(BUILD)/tests/robust/promises.o $(BUILD)/tests/robust/workload-io.o $(BUILD)/tests/robust/cache-model.o $(BUILD)/tests/robust/logwrites.o $(BUILD)/tests/robust/blockdev.o
	$(CC) $(LDFLAGS) -o $@ $^

# The stress replay's soak: >= 5,000 cut points on stalefs, and ext4's.
.PHONY: stress-replay-soak stress-replay-soak-ext4
stress-replay-soak: kernel programs
	tests/vm/run-vm --timeout 14400 tests/vm/soak/robust-stress-replay-soak.sh
stress-replay-soak-ext4: programs
	tests/vm/run-vm --timeout 14400 tests/vm/soak/robust-stress-replay-ext4-soak.sh
SOAK_TARGETS += stress-replay-soak stress-replay-soak-ext4
