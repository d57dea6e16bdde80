# stalefs.ko through the kernel's Kbuild.  KVER picks the headers; the
# default is the newest installed 6.1.*-amd64 with a build directory.
KVER ?= $(shell ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null | sed 's|/lib/modules/||; s|/build||' | sort -V | tail -n1)
KDIR ?= /lib/modules/$(KVER)/build
KMOD := $(BUILD)/kernel/stalefs.ko
KERNEL_SRC := $(wildcard kernel/*.c kernel/*.h kernel/Kbuild) $(wildcard format/core/*.c format/core/*.h format/*.h)
KERNEL_VERSION_STR := 0.1

.PHONY: kernel kernel-install kernel-clean kernel-dkms
all: kernel

kernel: $(KMOD)

$(KMOD): $(KERNEL_SRC)
	@if [ -z "$(KVER)" ] || [ ! -d "$(KDIR)" ]; then \
		echo "kernel: no headers for KVER='$(KVER)' at $(KDIR)"; \
		echo "kernel: install linux-headers-amd64 (Debian 12, 6.1) or set KVER="; \
		exit 1; fi
	$(MAKE) -C $(KDIR) M=$(abspath kernel) modules
	@mkdir -p $(dir $@)
	cp kernel/stalefs.ko $@

# Install into /lib/modules/$KVER/extra and refresh module dependencies.
kernel-install: $(KMOD)
	install -D -m 0644 $(KMOD) $(DESTDIR)/lib/modules/$(KVER)/extra/stalefs.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

# Put a self-contained source tree where dkms looks for it:
# `dkms add/build/install stalefs/$(KERNEL_VERSION_STR)` then works.
kernel-dkms:
	rm -rf $(DESTDIR)/usr/src/stalefs-$(KERNEL_VERSION_STR)
	install -d $(DESTDIR)/usr/src/stalefs-$(KERNEL_VERSION_STR)/core
	cp $(filter-out %.mod.c,$(wildcard kernel/*.c)) kernel/*.h kernel/Kbuild kernel/dkms.conf $(DESTDIR)/usr/src/stalefs-$(KERNEL_VERSION_STR)/
	cp format/core/*.c format/core/*.h $(DESTDIR)/usr/src/stalefs-$(KERNEL_VERSION_STR)/core/
	rm -f $(DESTDIR)/usr/src/stalefs-$(KERNEL_VERSION_STR)/core/crc32_user.c
	cp format/stalefs_format.h format/stalefs_ioctl.h format/stalefs_journal.h $(DESTDIR)/usr/src/stalefs-$(KERNEL_VERSION_STR)/

kernel-clean:
	-if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(abspath kernel) clean; fi

CLEAN_EXTRA += $(MAKE) kernel-clean;
INSTALL_EXTRA += $(MAKE) kernel-install;

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
