# resize.stalefs: grow a filesystem (online through the kernel, or offline) or shrink it
# (offline), as resize2fs does for ext4.  Stands on libstalefs alone.
RESIZE_SRC := $(wildcard resize/*.c)
RESIZE := $(BUILD)/resize.stalefs
PROGRAMS += $(RESIZE)

$(RESIZE): $(patsubst %.c,$(BUILD)/%.o,$(RESIZE_SRC)) $(LIBSTALEFS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(patsubst %.c,$(BUILD)/%.o,$(RESIZE_SRC)): $(ERR_H)
