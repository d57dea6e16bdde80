# Helpers for the mkfs tests (sourced by run-tests).  Each assertion that
# fails prints FAIL with what it saw and ends the test.

fail() {
	echo "FAIL: $*"
	if [ -f out ] || [ -f err ]; then
		echo "--- last stdout:"; cat out 2>/dev/null | head -20
		echo "--- last stderr:"; cat err 2>/dev/null | head -20
	fi
	exit 1
}

# run_mkfs ARGS...: run the tool, stdin from /dev/null (never a terminal), stdout
# in ./out, stderr in ./err, exit status in $rc.  A sanitizer report fails the test.
run_mkfs() {
	echo "+ mkfs.stalefs $*"
	rc=0
	"$MKFS" "$@" </dev/null >out 2>err || rc=$?
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' err; then
		fail "sanitizer report from mkfs.stalefs $*"
	fi
}

expect_rc() {
	[ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"
}

# expect_err REGEX: stderr names the problem.
expect_err() {
	grep -qE -- "$1" err || fail "stderr does not match /$1/"
}

expect_out() {
	grep -qE -- "$1" out || fail "stdout does not match /$1/"
}

expect_no_output() {
	[ ! -s out ] || fail "stdout not empty"
	[ ! -s err ] || fail "stderr not empty"
}

# A usage error: exit 16, the message, and the usage text.
expect_usage() {
	expect_rc 16
	expect_err "$1"
	expect_err '^Usage: '
}

# sb IMAGE KEY: one value from the superblock read back through the library, in $SBV.
sb() {
	"$READBACK" super "$1" >sb.out 2>&1 || { cat sb.out; fail "cannot read back $1"; }
	grep -q "^$2=" sb.out || fail "no $2 in the superblock of $1"
	SBV=$(sed -n "s/^$2=//p" sb.out)
}

expect_sb() {
	sb "$1" "$2"
	[ "$SBV" = "$3" ] || fail "$2 is '$SBV', expected '$3'"
}

# check_image IMAGE: readable, and its accounting is consistent.
check_image() {
	"$READBACK" check "$1" >check.out 2>&1 || { cat check.out; fail "$1 does not check out"; }
}

# fingerprint FILE: contents, size and allocation -- what "unchanged" means.
fingerprint() {
	if [ -e "$1" ]; then
		printf '%s %s\n' "$(sha256sum <"$1" | cut -d' ' -f1)" "$(stat -c '%s %b %Y.%y' "$1")"
	else
		echo absent
	fi
}

expect_unchanged() {
	local now
	now=$(fingerprint "$1")
	[ "$now" = "$2" ] || fail "$1 changed: was '$2', now '$now'"
}

# A 16 MiB image holding an earlier filesystem, for "left untouched" checks.
old_image() {
	"$MKFS" -q -L old "$1" 16M </dev/null >/dev/null 2>&1 || fail "cannot make the old image $1"
}
