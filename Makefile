# stalefs: top-level build.  Each directory contributes a build.mk fragment;
# this file holds only what they share.  `make SAN=1` builds with
# AddressSanitizer and UndefinedBehaviorSanitizer into build/san.
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
BINDIR ?= $(PREFIX)/bin
# util-linux's mount looks for mount.fuse.stalefs in /sbin (not in PATH): the helper
# goes there whatever PREFIX is; the Debian package puts it in /usr/sbin (the same
# directory on a merged-/usr system).
MOUNT_HELPER_DIR ?= /sbin
MANDIR ?= $(PREFIX)/share/man
INCLUDEDIR ?= $(PREFIX)/include

SAN ?= 0
ifeq ($(SAN),1)
BUILD ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD ?= build
SANFLAGS :=
endif

CC ?= gcc
OPT ?= -O2
# EXTRA_CFLAGS / EXTRA_LDFLAGS: a packager's flags (debian/rules passes
# dpkg-buildflags' hardening flags), appended after ours.
EXTRA_CFLAGS ?=
EXTRA_LDFLAGS ?=
CFLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Wall -Wextra -Werror \
	  $(OPT) -g $(SANFLAGS) -Iformat -Iformat/core -Iformat/lib -I$(BUILD)/gen $(EXTRA_CFLAGS)
LDFLAGS := $(SANFLAGS) $(EXTRA_LDFLAGS)
LDLIBS := -lcom_err -lz -lewf

.PHONY: all check demo install clean deps programs
all: programs

deps:
	@tools/install-deps

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# Generated sources (compile_et, mk_cmds) land in $(BUILD)/gen.
$(BUILD)/gen:
	@mkdir -p $@

include format/build.mk
include $(wildcard mkfs/build.mk fsck/build.mk debugfs/build.mk tunefs/build.mk resize/build.mk fuse/build.mk tools/build.mk tools/deb.mk)
include $(wildcard kernel/build.mk)
# Test fragments append their targets to CHECK_TARGETS (run by `make check`).
include $(wildcard tests/*/build.mk bench/build.mk)

programs: $(PROGRAMS)

# `make check`: install what is missing, build normally and with sanitizers,
# then run every test fragment's target.  Fragments use $(BIN) (normal build)
# and $(SANBIN) (ASan+UBSan build) for the tools they run.
BIN := build
SANBIN := build/san
.PHONY: san
san:
	$(MAKE) SAN=1 programs $(SAN_EXTRA_TARGETS)

check: deps
	$(MAKE) all
	$(MAKE) san
	$(MAKE) run-checks

.PHONY: run-checks
run-checks: $(CHECK_TARGETS)
	@echo "make check: all test groups passed: $(CHECK_TARGETS)"

# `make soak`: the long runs (fuzzing, VM soaks) that do not fit in check.
# Fragments append their targets to SOAK_TARGETS.
.PHONY: soak
soak: deps
	$(MAKE) all
	$(MAKE) san
	$(MAKE) run-soak

.PHONY: run-soak
run-soak: $(SOAK_TARGETS)
	@echo "make soak: all soak runs passed: $(SOAK_TARGETS)"

clean:
	rm -rf build
	$(CLEAN_EXTRA)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---- install: tools where mkfs -t / fsck -t find them, man pages, the public header ----
INSTALL_PROGRAMS = $(filter $(BUILD)/mkfs.stalefs $(BUILD)/fsck.stalefs $(BUILD)/debugfs.stalefs $(BUILD)/tunefs.stalefs $(BUILD)/resize.stalefs $(BUILD)/stalefs-falloc $(BUILD)/stalefs-timeline $(BUILD)/stalefs-mmls,$(PROGRAMS))
MAN8 = $(wildcard mkfs/*.8 fsck/*.8 debugfs/*.8 tunefs/*.8 resize/*.8 tools/*.8 fuse/*.8)
# install-tools is the userspace half alone (no kernel headers needed): the
# Debian package build (make deb) uses it.
.PHONY: install-tools
install: all install-tools
	$(INSTALL_EXTRA)

install-tools: programs
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(INCLUDEDIR)/stalefs
	install -m 0755 $(INSTALL_PROGRAMS) $(DESTDIR)$(SBINDIR)/
	$(if $(MAN8),install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/)
	install -m 0644 format/stalefs_ioctl.h $(DESTDIR)$(INCLUDEDIR)/stalefs/
	$(INSTALL_FUSE)

# ---- demo: the main job end to end (tools/demo narrates each step) ----
# A sub-make after deps: the kernel headers may have just been installed,
# and kernel/build.mk looks for them when it is read.
demo: deps
	$(MAKE) all kernel
	tools/demo
