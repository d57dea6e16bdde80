# Helpers for VM scenarios.  Source it first thing:
#     . "$STALEFS_ROOT/tests/vm/lib.sh"
# It turns on `set -euo pipefail` and reports the line of any command that
# fails unexpectedly, so a scenario can be a plain list of commands.
set -euo pipefail
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND (status $?)" >&2' ERR

STALEFS_BUILD=${STALEFS_BUILD:-$STALEFS_ROOT/build}
MKFS_STALEFS=$STALEFS_BUILD/mkfs.stalefs
FSCK_STALEFS=$STALEFS_BUILD/fsck.stalefs
DEBUGFS_STALEFS=$STALEFS_BUILD/debugfs.stalefs
TUNEFS_STALEFS=$STALEFS_BUILD/tunefs.stalefs

# What counts as a kernel splat in dmesg (the runner's own copy is in
# guest-runner.sh); scenarios that scan after every image or round use it.
splat_re='(^|[^[:alnum:]_])(BUG|WARNING|Oops|KASAN|UBSAN)([^[:alnum:]_]|$)|general protection|kernel BUG|hung task|blocked for more than|Call Trace'

# has [GREP-OPTIONS] PATTERN: grep -q that reads its input to the end.
# Under pipefail, `cmd | grep -q` fails when grep exits at the first match
# and cmd, still writing (dmesg late in a boot, debugfs stats of many
# groups), dies of SIGPIPE.
has() {
	grep "$@" >/dev/null
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# note MSG: a progress line, with seconds since the scenario started.
note() {
	echo "--- [${SECONDS}s] $*"
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
	[[ "$1" == "$2" ]] || fail "${3:-value}: expected '$1', got '$2'"
}

# assert_ok CMD...: the command must succeed (its output is shown).
assert_ok() {
	"$@" || fail "expected success: $*"
}

# assert_fails CMD...: the command must fail, with any status.
assert_fails() {
	if "$@"; then fail "expected failure: $*"; fi
}

# The message strerror() gives for an errno name, as tools print it.
errno_msg() {
	case $1 in
	EPERM) echo "Operation not permitted" ;;
	ENOENT) echo "No such file or directory" ;;
	EIO) echo "Input/output error" ;;
	EBADF) echo "Bad file descriptor" ;;
	EACCES) echo "Permission denied" ;;
	EBUSY) echo "Device or resource busy" ;;
	EEXIST) echo "File exists" ;;
	EXDEV) echo "Invalid cross-device link" ;;
	ENOTDIR) echo "Not a directory" ;;
	EISDIR) echo "Is a directory" ;;
	EINVAL) echo "Invalid argument" ;;
	ETXTBSY) echo "Text file busy" ;;
	EFBIG) echo "File too large" ;;
	ENOSPC) echo "No space left on device" ;;
	EROFS) echo "Read-only file system" ;;
	EMLINK) echo "Too many links" ;;
	ENAMETOOLONG) echo "File name too long" ;;
	ENOTEMPTY) echo "Directory not empty" ;;
	ELOOP) echo "Too many levels of symbolic links" ;;
	ENODATA) echo "No data available" ;;
	ENOTTY) echo "Inappropriate ioctl for device" ;;
	EOPNOTSUPP) echo "Operation not supported" ;;
	EDQUOT) echo "Disk quota exceeded" ;;
	ESTALE) echo "Stale file handle" ;;
	EUCLEAN | EFSCORRUPTED) echo "Structure needs cleaning" ;;
	EFSBADCRC | EBADMSG) echo "Bad message" ;;
	*) python3 -c 'import errno, os, sys; print(os.strerror(getattr(errno, sys.argv[1])))' "$1" ;;
	esac
}

# assert_errno ENAME CMD...: the command must fail and say strerror(ENAME)
# on stdout or stderr (what coreutils, xfs_io and friends do).
assert_errno() {
	local want msg out
	want=$1
	shift
	msg=$(errno_msg "$want")
	if out=$("$@" 2>&1); then
		fail "expected $want from: $* (it succeeded: $out)"
	fi
	[[ $out == *"$msg"* ]] || fail "expected $want ($msg) from: $*; got: $out"
	echo "ok: $* -> $want"
}

# Empty the page, dentry and inode caches, so the next reads come from disk.
drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# as_user UID GID GROUPS CMD...: run CMD unprivileged.  GROUPS is a
# comma-separated list of supplementary gids, or "" for none.  Capabilities
# go away with the uid change; the inheritable set is cleared too so nothing
# comes back across exec.
as_user() {
	local uid=$1 gid=$2 groups=$3
	shift 3
	local g=(--clear-groups)
	[[ -n $groups ]] && g=(--groups "$groups")
	setpriv --reuid "$uid" --regid "$gid" "${g[@]}" --inh-caps=-all -- "$@"
}

# need_module NAME: modprobe a module from the host's /lib/modules (dm-flakey,
# dm-log-writes, xfs...), failing the scenario if it cannot be loaded.
need_module() {
	modprobe "$1" || fail "cannot load module $1"
}

# fsck_clean DEV: every kernel test ends with a forced read-only fsck of its
# image, which must find nothing (exit 0).
fsck_clean() {
	local rc=0
	"$FSCK_STALEFS" -fn "$1" || rc=$?
	((rc == 0)) || fail "fsck.stalefs -fn $1 exited $rc"
}
