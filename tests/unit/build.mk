# Unit tests (Check) for format/core and libstalefs.  One binary holds every
# suite; it is built against the library of the build it belongs to, so
# `make check-unit` builds and runs it twice: normally (build/tests/unit) and
# with ASan+UBSan (build/san/tests/unit).
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(UNIT_SRC))
UNIT_BIN := $(BUILD)/tests/unit/unit_tests
UNIT_CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
UNIT_CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

# The layout test reads format/FORMAT.md and format/stalefs_format.h.
$(UNIT_OBJ): CFLAGS += $(UNIT_CHECK_CFLAGS) -Itests/unit -DSTALEFS_SRCDIR='"$(CURDIR)"'
$(UNIT_OBJ): $(ERR_H)

$(UNIT_BIN): $(UNIT_OBJ) $(LIBSTALEFS)
	@pkg-config --exists check || { echo "check-unit: the Check library is missing (pkg-config check); run make deps" >&2; exit 1; }
	$(CC) $(LDFLAGS) -o $@ $(UNIT_OBJ) $(LIBSTALEFS) $(UNIT_CHECK_LIBS) $(LDLIBS)

.PHONY: unit-tests check-unit
unit-tests: $(UNIT_BIN)
SAN_EXTRA_TARGETS += unit-tests
CHECK_TARGETS += check-unit

# Both builds, whatever SAN this make was started with; each run prints
# Check's summary line ("100%: Checks: N, Failures: 0, Errors: 0").
# Timeouts are there to catch hangs, not to time anything: stretched five
# times, a loaded machine (the sanitized build is several times slower)
# does not fail a correct test.
check-unit: export CK_TIMEOUT_MULTIPLIER = 5
check-unit:
	$(MAKE) SAN=0 unit-tests
	$(MAKE) SAN=1 unit-tests
	@echo "== unit tests (normal build) =="
	build/tests/unit/unit_tests
	@echo "== unit tests (ASan+UBSan build) =="
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 build/san/tests/unit/unit_tests
