# Helpers for the FUSE server tests (sourced by run-tests).  Each assertion
# that fails prints FAIL with what it saw and ends the test.  The server runs
# in the foreground in the background (-f), so a test knows when it has
# finished writing: sfuse_umount waits for it and checks its exit status.

fail() {
	echo "FAIL: $*"
	if [ -n "${SFUSE_LOG:-}" ] && [ -s "$SFUSE_LOG" ]; then
		echo "--- server log:"; tail -20 "$SFUSE_LOG"
	fi
	exit 1
}

# A sanitizer report or a libfuse complaint in the server's log fails the test.
check_server_log() {
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer|Segmentation|Aborted' "$1" 2>/dev/null; then
		fail "sanitizer report or crash in $1"
	fi
}

# MNT is a mount point (per /proc/mounts: stat(2) of a damaged root may fail).
is_mounted() {
	awk -v m="$(readlink -f "$1")" '$2 == m { found = 1 } END { exit !found }' /proc/mounts
}

# sfuse_try_mount IMAGE MNT [SERVER-OPTIONS...]: mount and wait for it (SFUSE_PID is the
# server); status 1 when the server ended without mounting; a server that neither mounts nor
# ends in 10 s is a hang: killed, and the test fails.
sfuse_try_mount() {
	local img=$1 mnt=$2 i
	shift 2
	mkdir -p "$mnt"
	SFUSE_LOG=$PWD/sfuse-$(basename "$mnt").log
	"${SFUSE_WRAP[@]}" "$SFUSE" -f "$@" "$img" "$mnt" >"$SFUSE_LOG" 2>&1 &
	SFUSE_PID=$!
	for i in $(seq 1000); do
		is_mounted "$mnt" && return 0
		kill -0 "$SFUSE_PID" 2>/dev/null || break
		sleep 0.01
	done
	if kill -0 "$SFUSE_PID" 2>/dev/null && ! is_mounted "$mnt"; then
		kill -9 "$SFUSE_PID" 2>/dev/null
		fail "stalefs-fuse neither mounted $img nor ended in 10 s"
	fi
	wait "$SFUSE_PID" 2>/dev/null
	return 1
}

sfuse_mount() {
	sfuse_try_mount "$@" || fail "stalefs-fuse did not mount $1 at $2"
}

# sfuse_mount_fails IMAGE MNT REGEX [OPTIONS...]: the server refuses, saying REGEX.
sfuse_mount_fails() {
	local img=$1 mnt=$2 re=$3 rc=0
	shift 3
	mkdir -p "$mnt"
	"$SFUSE" -f "$@" "$img" "$mnt" >refused.log 2>&1 || rc=$?
	is_mounted "$mnt" && { umount "$mnt"; fail "stalefs-fuse $* $img mounted; it should not"; }
	[ "$rc" -ne 0 ] || fail "stalefs-fuse $* $img exited 0 without mounting"
	grep -qE -- "$re" refused.log || { cat refused.log; fail "stalefs-fuse's refusal does not say /$re/"; }
	check_server_log refused.log
}

# server_exit LIMIT: wait for the server to end (at most LIMIT seconds: longer is a hang);
# its exit status in $SERVER_RC.
server_exit() {
	local i
	for i in $(seq $(($1 * 100))); do
		[ -e /proc/"$SFUSE_PID" ] && [ "$(awk '{print $3}' /proc/"$SFUSE_PID"/stat 2>/dev/null)" != Z ] || break
		sleep 0.01
	done
	if [ -e /proc/"$SFUSE_PID" ] && [ "$(awk '{print $3}' /proc/"$SFUSE_PID"/stat 2>/dev/null)" != Z ]; then
		kill -9 "$SFUSE_PID"
		fail "stalefs-fuse did not end within $1 s of the umount"
	fi
	SERVER_RC=0
	wait "$SFUSE_PID" || SERVER_RC=$?
}

# sfuse_umount MNT: unmount, wait for the server to write everything and exit 0.
sfuse_umount() {
	local rc
	umount "$1" || fail "umount $1"
	server_exit 120
	rc=$SERVER_RC
	[ "$rc" -eq 0 ] || fail "stalefs-fuse exited $rc after umount"
	check_server_log "$SFUSE_LOG"
}

# fsck_clean IMAGE: fsck.stalefs -fn finds nothing.
fsck_clean() {
	local rc=0
	"$FSCK" -fn "$1" >fsck.out 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || { cat fsck.out; fail "fsck.stalefs -fn $1 exited $rc"; }
}

# mkimg IMAGE SIZE [MKFS-OPTIONS...]
mkimg() {
	local img=$1 size=$2
	shift 2
	"$MKFS" -q "$@" "$img" "$size" || fail "mkfs.stalefs $* $img $size"
}

# expect_errno CMD...: the probe prints an errno name; $ERRNO gets it.
probe() {
	ERRNO=$("$PROBE" "$@" 2>&1) || true
}

expect_eq() {
	[ "$1" = "$2" ] || fail "${3:-value}: got '$1', expected '$2'"
}

# The image's bytes, to compare before and after.
img_hash() {
	sha256sum "$1" | cut -d' ' -f1
}
