# tunefs.stalefs: change superblock settings after mkfs (tune2fs for stalefs).
TUNEFS_SRC := $(wildcard tunefs/*.c)
TUNEFS := $(BUILD)/tunefs.stalefs
PROGRAMS += $(TUNEFS)

$(TUNEFS): $(patsubst %.c,$(BUILD)/%.o,$(TUNEFS_SRC)) $(LIBSTALEFS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(patsubst %.c,$(BUILD)/%.o,$(TUNEFS_SRC)): $(ERR_H)
