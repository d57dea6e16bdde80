# resize.stalefs tests (tests/resize/run-tests): the command line and its refusals, grow and
# shrink round trips compared name by name and byte by byte, and kills at points through a
# resize (killshim.so, an LD_PRELOAD shim, with and without a power cut's losses).
# `make check-resize`: the sanitized build without the kills, then the normal build with 10
# kill points per kill test (about 2 minutes in all).  `make resize-kill-soak` (in `make
# soak`): 400 kill points per kill test.
KILLSHIM := $(BUILD)/killshim.so

$(KILLSHIM): tests/resize/killshim.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -g -Wall -Wextra -Werror -o $@ $< -ldl

RESIZE_TEST_TOOLS = resize.stalefs mkfs.stalefs fsck.stalefs debugfs.stalefs
.PHONY: check-resize resize-kill-soak
CHECK_TARGETS += check-resize
check-resize:
	$(MAKE) --no-print-directory SAN=0 $(addprefix build/,$(RESIZE_TEST_TOOLS)) build/killshim.so
	$(MAKE) --no-print-directory SAN=1 $(addprefix build/san/,$(RESIZE_TEST_TOOLS))
	tests/resize/run-tests --kill 0 $(addprefix $(SANBIN)/,$(RESIZE_TEST_TOOLS)) $(BIN)/killshim.so
	tests/resize/run-tests --kill 10 $(addprefix $(BIN)/,$(RESIZE_TEST_TOOLS)) $(BIN)/killshim.so

SOAK_TARGETS += resize-kill-soak
resize-kill-soak:
	$(MAKE) --no-print-directory SAN=0 $(addprefix build/,$(RESIZE_TEST_TOOLS)) build/killshim.so
	tests/resize/run-tests --kill 400 $(addprefix $(BIN)/,$(RESIZE_TEST_TOOLS)) $(BIN)/killshim.so kill
