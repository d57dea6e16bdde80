# tests/vm helpers built with the tools (the VM scenarios run them from build/).
# stale-ioctl: issues stalefs's ioctls and prints the errno by name.
STALE_IOCTL := $(BUILD)/stale-ioctl
PROGRAMS += $(STALE_IOCTL)

$(STALE_IOCTL): $(BUILD)/tests/vm/stale-ioctl.o
	$(CC) $(LDFLAGS) -o $@ $^
