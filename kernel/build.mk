# stalefs.ko through the kernel's Kbuild.  KVER picks the headers; the
# default is the newest installed 6.1.*-amd64 with a build directory.
KVER ?= $(shell ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null | sed 's|/lib/modules/||; s|/build||' | sort -V | tail -n1)
KDIR ?= /lib/modules/$(KVER)/build
KMOD := $(BUILD)/kernel/stalefs.ko
KERNEL_SRC := $(wildcard kernel/*.c kernel/*.h kernel/Kbuild kernel/stage-src) $(wildcard format/core/*.c format/core/*.h format/*.h)
KERNEL_VERSION_STR := 0.1
# Kbuild writes its objects (and .cmd files, Module.symvers, modules.order)
# next to the sources of M=, so it gets a staged tree of symlinks in build/.
KBUILD_DIR := $(abspath $(BUILD)/kernel/src)
# Headers present?  Without them `make` builds the tools only; `make kernel`
# and everything that boots the VM with the module fail with this message.
KHEADERS := $(wildcard $(KDIR)/Makefile)
KNOHEADERS_MSG := kernel: no 6.1 headers at $(KDIR) (install linux-headers-amd64, or set KVER= or KDIR=)

.PHONY: kernel kernel-if-headers kernel-install kernel-dkms
all: kernel-if-headers

ifneq ($(KHEADERS),)
kernel: $(KMOD)
kernel-if-headers: $(KMOD)

$(KMOD): $(KERNEL_SRC)
	kernel/stage-src $(KBUILD_DIR)
	$(MAKE) -C $(KDIR) M=$(KBUILD_DIR) modules
	cp $(KBUILD_DIR)/stalefs.ko $@
else
kernel-if-headers:
	@echo "$(KNOHEADERS_MSG); building the tools only"

# Fails even when an older build left a stalefs.ko: it could not be brought
# up to date with the sources, and the VM tests must not run a stale one.
kernel $(KMOD):
	@echo "$(KNOHEADERS_MSG)" >&2; exit 1
endif

# Install into /lib/modules/$KVER/extra and refresh module dependencies.
kernel-install: $(KMOD)
	install -D -m 0644 $(KMOD) $(DESTDIR)/lib/modules/$(KVER)/extra/stalefs.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

# Put a self-contained source tree where dkms looks for it:
# `dkms add/build/install stalefs/$(KERNEL_VERSION_STR)` then works.
kernel-dkms:
	rm -rf $(DESTDIR)/usr/src/stalefs-$(KERNEL_VERSION_STR)
	kernel/stage-src --copy $(DESTDIR)/usr/src/stalefs-$(KERNEL_VERSION_STR)
	cp kernel/dkms.conf $(DESTDIR)/usr/src/stalefs-$(KERNEL_VERSION_STR)/

# `make install` installs the module too when the headers are there (the
# tools alone otherwise, as `make` builds them).
ifneq ($(KHEADERS),)
INSTALL_EXTRA += $(MAKE) kernel-install;
endif

# What the in-tree module build of older trees left in the sources (now that
# .gitignore no longer hides it); core/ was a symlink, so into format/core.
CLEAN_EXTRA += rm -f kernel/*.o kernel/.*.cmd kernel/stalefs.ko kernel/stalefs.mod kernel/stalefs.mod.c \
	kernel/Module.symvers kernel/modules.order format/core/*.o format/core/.*.cmd;

# fsx: our random-operation exerciser, run inside the VM by kernel-fsx.sh.
FSX := $(BUILD)/fsx
PROGRAMS += $(FSX)
$(FSX): tests/vm/fsx.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g $(SANFLAGS) $< -o $@ $(SANFLAGS)

# Long random-operation run in the VM (not part of `make check`).
.PHONY: kernel-soak
kernel-soak: kernel $(FSX) $(BUILD)/mkfs.stalefs
	tests/vm/run-vm --timeout 7200 tests/vm/soak/kernel-fsx-soak.sh
SOAK_TARGETS += kernel-soak
