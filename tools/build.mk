# Small user tools: stalefs-falloc (NO_HIDE_STALE requests through the ioctl).
FALLOC_TOOL := $(BUILD)/stalefs-falloc
PROGRAMS += $(FALLOC_TOOL)

$(FALLOC_TOOL): $(BUILD)/tools/stalefs-falloc.o
	$(CC) $(LDFLAGS) -o $@ $^

# Examiner's tools on libstalefs alone: stalefs-timeline (a bodyfile, as fls -m).
TIMELINE_TOOL := $(BUILD)/stalefs-timeline
PROGRAMS += $(TIMELINE_TOOL)

$(BUILD)/tools/stalefs-timeline.o: $(ERR_H)
$(TIMELINE_TOOL): $(BUILD)/tools/stalefs-timeline.o $(LIBSTALEFS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
