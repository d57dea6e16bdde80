MKFS_SRC := $(wildcard mkfs/*.c)
MKFS := $(BUILD)/mkfs.stalefs
PROGRAMS += $(MKFS)

$(MKFS): $(patsubst %.c,$(BUILD)/%.o,$(MKFS_SRC)) $(LIBSTALEFS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(patsubst %.c,$(BUILD)/%.o,$(MKFS_SRC)): $(ERR_H)
