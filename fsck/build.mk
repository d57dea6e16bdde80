# fsck.stalefs: checker and repairer; the stale audit.
FSCK_SRC := $(wildcard fsck/*.c)
FSCK := $(BUILD)/fsck.stalefs
PROGRAMS += $(FSCK)

$(FSCK): $(patsubst %.c,$(BUILD)/%.o,$(FSCK_SRC)) $(LIBSTALEFS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(patsubst %.c,$(BUILD)/%.o,$(FSCK_SRC)): $(ERR_H)
