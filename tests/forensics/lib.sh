# Helpers of the forensic tests (sourced by run-tests after tests/debugfs/lib.sh,
# whose pass/fail/expect_* and dbg they use).

# need TOOL...: a reference tool the test cannot do without; missing, the test fails loudly.
need() {
	local t ok=0
	for t in "$@"; do
		if ! command -v "$t" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$t" ] && [ ! -x "/sbin/$t" ]; then
			fail "$t is missing (tools/install-deps installs it): this test cannot run"
			ok=1
		fi
	done
	return $ok
}

# ro IMAGE CMD ARGS...: run a command that must only read IMAGE (stdout ./out, stderr
# ./err, status $rc); the image's SHA-256 before and after must be the same.
ro() {
	local img=$1 before after
	shift
	before=$(sha256sum <"$img")
	rc=0
	"$@" </dev/null >out 2>err || rc=$?
	after=$(sha256sum <"$img")
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' err; then
		fail "sanitizer report from $*"
	fi
	if [ "$before" = "$after" ]; then pass; else fail "$* changed $img (read-only)"; fi
}

# run CMD ARGS...: the same without an image to watch.
run() {
	rc=0
	"$@" </dev/null >out 2>err || rc=$?
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' err; then
		fail "sanitizer report from $*"
	fi
}

# Distinct times for the k-th path: atime, mtime, ctime, crtime 1, 2, 3, 4 seconds apart,
# so a column printed in the wrong place shows.
times_of() { local b=$((1000000000 + $1 * 100)); echo "$((b + 1)) $((b + 2)) $((b + 3)) $((b + 4))"; }

# sif_script SPEC...: debugfs lines (both debugfs programs read them) setting the four
# times of each SPEC "k:path" (a path or <ino>) to times_of k.
sif_script() {
	local spec k p a m c cr
	for spec in "$@"; do
		k=${spec%%:*}
		p=${spec#*:}
		read -r a m c cr < <(times_of "$k")
		printf 'sif %s atime @%s\nsif %s mtime @%s\nsif %s ctime @%s\nsif %s crtime @%s\n' \
			"$p" "$a" "$p" "$m" "$p" "$c" "$p" "$cr"
	done
}
