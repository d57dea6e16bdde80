#!/bin/bash
# The format core is one code base in both worlds: every format/core/*.c is
# compiled into the module (kernel/Kbuild) and into libstalefs (format/build.mk
# takes the directory whole), except crc32_user.c, the userspace stand-in for
# the kernel's own crc32.
set -euo pipefail
cd "$(dirname "$0")/../.."
missing=0 n=0
for f in format/core/*.c; do
	b=$(basename "$f" .c)
	[ "$b" = crc32_user ] && continue
	n=$((n + 1))
	if ! grep -qE "(^|[[:space:]])core/$b\.o([[:space:]]|\\\\|$)" kernel/Kbuild; then
		echo "core: format/core/$b.c is not in kernel/Kbuild's object list" >&2
		missing=1
	fi
done
grep -q 'FORMAT_CORE_SRC := $(wildcard format/core/\*.c)' format/build.mk ||
	{ echo "core: format/build.mk no longer builds all of format/core into libstalefs" >&2; missing=1; }
[ "$n" -gt 0 ] || { echo "core: no format/core sources found" >&2; exit 1; }
((missing == 0)) && echo "core: all $n format/core objects are in the module and libstalefs"
exit $missing
