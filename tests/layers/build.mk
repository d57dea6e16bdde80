# Layering checks on the source itself: `make check-layers` fails when a
# function name means one thing in kernel/ and another in the userspace
# library and tools (names.sh), or when a format/core source is left out of
# the module or of libstalefs (core.sh).
.PHONY: check-layers
CHECK_TARGETS += check-layers
check-layers:
	tests/layers/names.sh
	tests/layers/core.sh
