# stalefs: top-level build.  Each directory contributes a build.mk fragment;
# this file holds only what they share.  `make SAN=1` builds with
# AddressSanitizer and UndefinedBehaviorSanitizer into build/san.
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
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
CFLAGS := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Wall -Wextra -Werror \
	  $(OPT) -g $(SANFLAGS) -Iformat -Iformat/core -Iformat/lib -I$(BUILD)/gen
LDFLAGS := $(SANFLAGS)
LDLIBS := -lcom_err -lz

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
include $(wildcard mkfs/build.mk fsck/build.mk debugfs/build.mk tools/build.mk)
include $(wildcard kernel/build.mk)
include $(wildcard tests/build.mk)

programs: $(PROGRAMS)

clean:
	rm -rf build
	$(CLEAN_EXTRA)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
