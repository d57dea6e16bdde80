# debugfs.stalefs: the command table comes from mk_cmds (libss), as in e2fsprogs.
DEBUGFS_SRC := $(wildcard debugfs/*.c)
DEBUGFS := $(BUILD)/debugfs.stalefs
DEBUGFS_CMDS_C := $(BUILD)/gen/debug_cmds.c
DEBUGFS_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(DEBUGFS_SRC))
PROGRAMS += $(DEBUGFS)

$(DEBUGFS_CMDS_C): debugfs/debug_cmds.ct | $(BUILD)/gen
	cd $(BUILD)/gen && mk_cmds $(abspath $<)

$(BUILD)/gen/debug_cmds.o: $(DEBUGFS_CMDS_C)
	$(CC) $(CFLAGS) -c $< -o $@

$(DEBUGFS): $(DEBUGFS_OBJ) $(BUILD)/gen/debug_cmds.o $(LIBSTALEFS)
	$(CC) $(LDFLAGS) -o $@ $^ -lss $(LDLIBS)

$(DEBUGFS_OBJ): $(ERR_H)
