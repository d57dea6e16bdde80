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

# stalefs-mmls: the partition table of a whole-disk image (as TSK's mmls), stalefs probed.
MMLS_TOOL := $(BUILD)/stalefs-mmls
PROGRAMS += $(MMLS_TOOL)

$(BUILD)/tools/stalefs-mmls.o: $(ERR_H)
$(MMLS_TOOL): $(BUILD)/tools/stalefs-mmls.o $(LIBSTALEFS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
