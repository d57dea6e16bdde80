#!/bin/bash
# One meaning per name: no function, structure, enum or macro name is defined
# both in the kernel module and in the userspace library or tools.  The two worlds share format/core
# (compiled into both); anything else spelled the same on both sides reads
# as one function to a reader and a grep, and is two.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Function definitions: a line that starts a declaration (type words, the
# name, an opening parenthesis) and is not a prototype (no closing ';').
defs() {
	grep -hE '^[a-z][a-z0-9_ *]*\bstalefs_[a-z0-9_]+\(' "$@" | grep -v ';\s*$' |
		grep -oE '\bstalefs_[a-z0-9_]+\(' | tr -d '(' | sort -u
}

# Types and macros: struct/enum/union definitions and #defines.
types() {
	grep -hoE '^(struct|enum|union) stalefs_[a-z0-9_]+ \{|^#define STALEFS_[A-Z0-9_]+' "$@" |
		sed 's/ {$//' | sort -u
}

kernel=$(defs kernel/*.c)
user=$(defs format/lib/*.c fsck/*.c debugfs/*.c mkfs/*.c tunefs/*.c)
ktypes=$(types kernel/*.[ch])
utypes=$(types format/lib/*.[ch] fsck/*.[ch] debugfs/*.[ch] mkfs/*.[ch] tunefs/*.[ch])
[ -n "$ktypes" ] && [ -n "$utypes" ] || { echo "names: found no type or macro definitions to compare" >&2; exit 1; }
tboth=$(comm -12 <(echo "$ktypes") <(echo "$utypes"))
if [ -n "$tboth" ]; then
	echo "names: types or macros defined both in kernel/ and in the userspace library or tools:" >&2
	echo "$tboth" | sed 's/^/  /' >&2
	exit 1
fi
[ -n "$kernel" ] && [ -n "$user" ] || { echo "names: found no definitions to compare" >&2; exit 1; }
both=$(comm -12 <(echo "$kernel") <(echo "$user"))
if [ -n "$both" ]; then
	echo "names: defined both in kernel/ and in the userspace library or tools:" >&2
	for n in $both; do
		echo "  $n: $(grep -lE "^[a-z].*\b$n\(" kernel/*.c format/lib/*.c fsck/*.c debugfs/*.c mkfs/*.c tunefs/*.c | tr '\n' ' ')" >&2
	done
	exit 1
fi
echo "names: $(echo "$kernel" | wc -l) kernel and $(echo "$user" | wc -l) userspace functions," \
	"$(echo "$ktypes" | wc -l) and $(echo "$utypes" | wc -l) types and macros, no name on both sides"
