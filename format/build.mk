# libstalefs: the shared format core plus the userspace library.
FORMAT_CORE_SRC := $(wildcard format/core/*.c)
FORMAT_LIB_SRC := $(wildcard format/lib/*.c)
LIBSTALEFS := $(BUILD)/libstalefs.a
ERR_H := $(BUILD)/gen/stalefs_err.h
ERR_C := $(BUILD)/gen/stalefs_err.c

$(ERR_C) $(ERR_H): format/lib/stalefs_err.et | $(BUILD)/gen
	cd $(BUILD)/gen && compile_et $(abspath $<)

$(BUILD)/gen/stalefs_err.o: $(ERR_C)
	$(CC) $(CFLAGS) -Wno-unused-parameter -c $< -o $@

FORMAT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(FORMAT_CORE_SRC) $(FORMAT_LIB_SRC)) $(BUILD)/gen/stalefs_err.o
$(patsubst %.c,$(BUILD)/%.o,$(FORMAT_LIB_SRC)): $(ERR_H)

$(LIBSTALEFS): $(FORMAT_OBJ)
	rm -f $@
	ar rcs $@ $^
