# tests/vm helpers built with the tools (the VM scenarios run them from build/).
# stale-ioctl: issues stalefs's ioctls and prints the errno by name.
STALE_IOCTL := $(BUILD)/stale-ioctl
PROGRAMS += $(STALE_IOCTL)

$(STALE_IOCTL): $(BUILD)/tests/vm/stale-ioctl.o
	$(CC) $(LDFLAGS) -o $@ $^

# check-vm: every kernel scenario in one VM boot (the harness prints
# "N passed, N failed" and fails when any scenario or the VM does).  About
# 25 minutes on a quiet machine (the two robust-powercut-cache runs, stalefs
# and its ext4 reference, take about 3 each); the timeout leaves room for a
# busy one.
VM_SCENARIOS := tests/vm/scenarios/harness-selftest.sh $(sort $(wildcard tests/vm/scenarios/kernel-*.sh tests/vm/scenarios/stale-*.sh tests/vm/scenarios/robust-*.sh))
.PHONY: check-vm
check-vm: kernel programs
	tests/vm/run-vm --timeout 3600 $(VM_SCENARIOS)
CHECK_TARGETS += check-vm
