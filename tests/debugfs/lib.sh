# Helpers for the debugfs.stalefs tests (sourced by run-tests).  Every
# assertion is counted; a failed one prints FAIL with what it saw and the
# run goes on, so one report shows everything that is wrong.

PASS=0
FAILED=0

pass() { PASS=$((PASS + 1)); }

fail() {
	FAILED=$((FAILED + 1))
	echo "FAIL: $*"
	if [ -f out ] || [ -f err ]; then
		echo "--- last stdout:"; head -15 out 2>/dev/null
		echo "--- last stderr:"; head -15 err 2>/dev/null
	fi
}

# dbg ARGS...: run debugfs.stalefs with stdin from /dev/null, stdout in ./out,
# stderr in ./err, exit status in $rc.  A sanitizer report is a failure.
dbg() {
	rc=0
	"$DEBUGFS" "$@" </dev/null >out 2>err || rc=$?
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' err; then
		fail "sanitizer report from debugfs.stalefs $*"
	fi
}

# dbgin SCRIPT ARGS...: the same with a script on stdin (-f -).
dbgin() {
	local script=$1
	shift
	rc=0
	printf '%s\n' "$script" | "$DEBUGFS" "$@" >out 2>err || rc=$?
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' err; then
		fail "sanitizer report from debugfs.stalefs $* (script)"
	fi
}

expect_rc() {
	if [ "$rc" -eq "$1" ]; then pass; else fail "${2:-command}: exit status $rc, expected $1"; fi
}

expect_err() {
	if grep -qE -- "$1" err; then pass; else fail "${2:-command}: stderr does not match /$1/"; fi
}

expect_out() {
	if grep -qE -- "$1" out; then pass; else fail "${2:-command}: stdout does not match /$1/"; fi
}

expect_no_out() {
	if grep -qE -- "$1" out; then fail "${2:-command}: stdout matches /$1/"; else pass; fi
}

# One clear line: a failing command writes exactly one line to stderr.
expect_one_err_line() {
	local n
	n=$(wc -l <err)
	if [ "$n" -eq 1 ]; then pass; else fail "${1:-command}: $n stderr lines, expected 1"; fi
}

check() {
	local what=$1
	shift
	if "$@"; then pass; else fail "$what"; fi
}

# json_get FILE EXPR: evaluate a python expression on the parsed JSON in j.
json_get() {
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}
