# Small user tools: stalefs-falloc (NO_HIDE_STALE requests through the ioctl).
FALLOC_TOOL := $(BUILD)/stalefs-falloc
PROGRAMS += $(FALLOC_TOOL)

$(FALLOC_TOOL): $(BUILD)/tools/stalefs-falloc.o
	$(CC) $(LDFLAGS) -o $@ $^
