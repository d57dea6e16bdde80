# Shared by the stale-*.sh scenarios (NO_HIDE_STALE, issue 6).  Source after lib.sh.
#
# The scratch device is filled with 0xab before mkfs (as fstests generic/042
# does), so any block that reaches a reader without being written or zeroed
# shows up as a whole block of 0xab.  The data the scenarios write never
# uses that byte.

STALE_IOCTL=$STALEFS_BUILD/stale-ioctl
STALE_FALLOC=$STALEFS_BUILD/stalefs-falloc
STALE_READ="python3 $STALEFS_ROOT/tests/vm/stale-read.py"
for t in "$STALE_IOCTL" "$STALE_FALLOC" "$MKFS_STALEFS" "$FSCK_STALEFS" "$DEBUGFS_STALEFS"; do
	[[ -x $t ]] || fail "$t is missing (run make first)"
done

G=4242			# the permitted group
MEMBER=5000		# uid 5000, gid 5000, supplementary group 4242
OTHER=5001		# uid 5001, gid 5001, in no other group
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
mkdir -p $mnt

# fresh_fs [mkfs options]: the pattern over the whole device, then mkfs (without
# its discard, which would take the pattern away: the old bytes are the test's).
fresh_fs() {
	xfs_io -d -c "pwrite -q -S 0xab -b 1m 0 $(blockdev --getsize64 "$dev")" "$dev"
	"$MKFS_STALEFS" -q -F -E nodiscard -b 4096 "$@" "$dev"
}

# The test's own users and groups: the host's passwd and group files with
# ours appended, bound over /etc for this scenario (the guest's root is the
# host's, read-only), so names resolve and setpriv --init-groups takes the
# member's supplementary group from the group file, as a login would.
cp /etc/passwd "$VM_SCRATCH/passwd"
cp /etc/group "$VM_SCRATCH/group"
cat >>"$VM_SCRATCH/passwd" <<EOT
stale-member:x:$MEMBER:$MEMBER:stale test member:/nonexistent:/bin/false
stale-other:x:$OTHER:$OTHER:stale test non-member:/nonexistent:/bin/false
EOT
cat >>"$VM_SCRATCH/group" <<EOT
stale-member:x:$MEMBER:
stale-other:x:$OTHER:
stale-users:x:$G:stale-member
EOT
mount --bind "$VM_SCRATCH/passwd" /etc/passwd
mount --bind "$VM_SCRATCH/group" /etc/group
trap 'umount /etc/group /etc/passwd 2>/dev/null || true' EXIT
[[ $(id -G stale-member) == "$MEMBER $G" ]] || fail "stale-member's groups: $(id -G stale-member)"
[[ $(id -G stale-other) == "$OTHER" ]] || fail "stale-other's groups: $(id -G stale-other)"

# as_member / as_other CMD...: CMD as that user, groups from the group file,
# no capabilities (as lib.sh's as_user).
as_member() { setpriv --reuid stale-member --regid stale-member --init-groups --inh-caps=-all -- "$@"; }
as_other() { setpriv --reuid stale-other --regid stale-other --init-groups --inh-caps=-all -- "$@"; }

# expect_errno NAME CMD...: CMD (stale-ioctl) must print "errno NAME".
expect_errno() {
	local want=$1 out
	shift
	out=$("$@" 2>&1) && fail "expected $want from: $* (it succeeded: $out)"
	[[ $out == *"errno $want"* ]] || fail "expected errno $want from: $*; got: $out"
	echo "ok: $* -> $want"
}

# expect_ok CMD...: stale-ioctl must print "ok".
expect_ok() {
	local out
	out=$("$@" 2>&1) || fail "expected success from: $*; got: $out"
	echo "ok: $*"
}

# read_summary MODE FILE: "size=N pattern=P zero=Z other=O" (see stale-read.py).
read_summary() { $STALE_READ "$1" "$2"; }

# never_pattern FILE...: through every read path, no block of any FILE
# shows the pattern.
never_pattern() {
	local out bad
	out=$($STALE_READ all "$@") || fail "stale-read failed on $*"
	echo "$out"
	bad=$(grep -v ' buffered:0 direct:0 mmap:0$' <<<"$out" || true)
	[[ -z $bad ]] || fail "the device's old contents read back: $bad"
}

# fiemap_flags FILE: the set of fiemap flags of its extents, sorted, one line.
fiemap_flags() {
	xfs_io -c "fiemap -v" "$1" | awk 'NR > 2 && $3 != "hole" { print $5 }' | sort -u | tr '\n' ' '
}

# unwritten_extents FILE: how many extents fiemap flags UNWRITTEN (0x800).
unwritten_extents() {
	local f n=0
	for f in $(xfs_io -c "fiemap -v" "$1" | awk 'NR > 2 && $3 != "hole" { print $5 }'); do
		((f & 0x800)) && n=$((n + 1))
	done
	echo $n
}

# extent_count FILE: extents fiemap reports (holes left out).
extent_count() {
	xfs_io -c "fiemap -v" "$1" | awk 'NR > 2 && $3 != "hole" { n++ } END { print n + 0 }'
}

remount() {
	umount $mnt
	mount -t stalefs -o "${1:-defaults}" "$dev" $mnt
}

# new_file PATH OWNER GROUP MODE: an empty file made by root.
new_file() {
	: >"$1"
	chown "$2:$3" "$1"
	chmod "$4" "$1"
}

# lsstale_row NAME: "stale-blocks confined" for /NAME from debugfs lsstale
# on the unmounted device, or "none" when it is not listed.
lsstale_row() {
	"$DEBUGFS_STALEFS" -R lsstale "$dev" 2>/dev/null |
		awk -v p="/$1" '$NF == p { print $5, $6; found = 1 } END { if (!found) print "none" }'
}

# inode_flags NAME: the Flags field of debugfs stat on the unmounted device.
inode_flags() {
	"$DEBUGFS_STALEFS" -R "stat /$1" "$dev" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p'
}

# mount_errno OPTIONS [FLAGS]: mount(2) the scratch device on $mnt with the
# data string OPTIONS (FLAGS: 1 read-only, 32 remount); prints "ok" or the
# errno name, so a refusal's exact errno can be asserted (mount(8) only
# paraphrases it).
mount_errno() {
	python3 - "$dev" "$mnt" "$1" "${2:-0}" <<'PY'
import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.mount(sys.argv[1].encode(), sys.argv[2].encode(), b"stalefs",
               ctypes.c_ulong(int(sys.argv[4])), sys.argv[3].encode())
print("ok" if r == 0 else errno.errorcode[ctypes.get_errno()].replace("ENOTSUP", "EOPNOTSUPP"))
PY
}

# fallocate_errno MODE OFFSET LENGTH FILE: fallocate(2) itself; "ok" or the errno name.
fallocate_errno() {
	python3 - "$@" <<'PY'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[4], os.O_WRONLY)
r = libc.fallocate(fd, int(sys.argv[1], 0), ctypes.c_long(int(sys.argv[2])), ctypes.c_long(int(sys.argv[3])))
print("ok" if r == 0 else errno.errorcode[ctypes.get_errno()].replace("ENOTSUP", "EOPNOTSUPP"))
PY
}

# digest FILE: size, blocks held and content hash, to show a file unchanged.
digest() {
	echo "$(stat -c '%s %b' "$1") $(sha1sum <"$1" | cut -d' ' -f1)"
}
