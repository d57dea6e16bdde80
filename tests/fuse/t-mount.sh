# How the server is started and what it runs as: `mount -t fuse.stalefs`
# through util-linux's helper lookup, a user mounting an image without root
# (fusermount3), -o uid=/gid= dropping privileges, and the sandbox (seccomp
# on by default, off with -o nosandbox).

# The pid of the process holding IMAGE open (the detached server).
holder_of() {
	local img fd
	img=$(readlink -f "$1")
	for fd in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "$img" ] && { echo "$fd" | cut -d/ -f3; return 0; }
	done
	return 1
}

# Wait until nothing holds IMAGE (the server has finished after umount).
wait_released() {
	local i
	for i in $(seq 500); do
		holder_of "$1" >/dev/null || return 0
		sleep 0.02
	done
	fail "the server still holds $1 10 s after umount"
}

test_mount_t_fuse_stalefs() {
	mkimg img 64M
	mkdir -p helpers m
	ln -s "$SFUSE" helpers/mount.fuse.stalefs
	# util-linux looks for /sbin/mount.fuse.stalefs: in a private mount namespace an overlay
	# adds ours to /usr/sbin, and the host is not changed.
	cat >inner.sh <<EOF
set -e
mount -t overlay overlay -o lowerdir=$PWD/helpers:/usr/sbin /usr/sbin
mount -t fuse.stalefs -o rw,noauto,user,_netdev,x-test=1 $PWD/img $PWD/m
grep -q "^$PWD/img $PWD/m fuse.stalefs " /proc/mounts
echo through-the-helper >$PWD/m/f
cat $PWD/m/f
umount $PWD/m
EOF
	unshare -m --propagation private bash inner.sh >inner.out 2>&1 || { cat inner.out; fail "mount -t fuse.stalefs"; }
	grep -q through-the-helper inner.out || { cat inner.out; fail "the file written through mount -t"; }
	wait_released img
	fsck_clean img
	"$DEBUGFS" -R "cat f" img 2>/dev/null | grep -q through-the-helper || fail "the file is not in the image"
	# The helper's -f is mount's "fake": it checks the image and mounts nothing.
	"$SFUSE_HELPER" img m -f -o ro >fake.out 2>&1 || { cat fake.out; fail "mount.fuse.stalefs -f"; }
	is_mounted m && fail "mount.fuse.stalefs -f mounted"
	true
}

test_user_mount_without_root() {
	chmod 755 .
	mkdir u && chown 65534:65534 u
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	as_nobody "$MKFS" -q -E root_owner u/img 64M || fail "mkfs as nobody"
	mkdir u/m && chown 65534:65534 u/m
	as_nobody "$SFUSE" u/img u/m >user.out 2>&1 || { cat user.out; fail "stalefs-fuse as nobody"; }
	is_mounted u/m || fail "nobody's mount is not there"
	grep -q "user_id=65534" /proc/mounts || fail "the mount is not nobody's"
	pid=$(holder_of u/img) || fail "no server holds u/img"
	expect_eq "$(awk '/^Uid:/ {print $2}' /proc/"$pid"/status)" 65534 "the server's uid"
	as_nobody sh -c 'echo mine >u/m/f && mkdir u/m/d && cat u/m/f' | grep -q mine || fail "nobody cannot write its mount"
	as_nobody fusermount3 -u u/m || fail "fusermount3 -u as nobody"
	wait_released u/img
	fsck_clean u/img
}

test_privileges_and_sandbox() {
	mkimg img 64M
	# By default: seccomp filter (Seccomp: 2) and no new privileges, still serving.
	sfuse_mount img m
	expect_eq "$(awk '/^Seccomp:/ {print $2}' /proc/"$SFUSE_PID"/status)" 2 "seccomp mode of the server"
	expect_eq "$(awk '/^NoNewPrivs:/ {print $2}' /proc/"$SFUSE_PID"/status)" 1 "no_new_privs of the server"
	mkdir m/d && echo sandboxed >m/d/f && setfattr -n user.a -v b m/d/f && sync m/d/f
	expect_eq "$(cat m/d/f)" sandboxed "a file written under the sandbox"
	sfuse_umount m
	fsck_clean img
	# -o nosandbox: no filter.
	sfuse_mount img m -o nosandbox
	expect_eq "$(awk '/^Seccomp:/ {print $2}' /proc/"$SFUSE_PID"/status)" 0 "seccomp mode with nosandbox"
	sfuse_umount m
	# -o uid=,gid=: the server drops root once the image is open and the mount made.
	sfuse_mount img m -o uid=65534,gid=65534,allow_other
	expect_eq "$(awk '/^Uid:/ {print $2, $3, $4, $5}' /proc/"$SFUSE_PID"/status)" "65534 65534 65534 65534" "uids"
	expect_eq "$(awk '/^Gid:/ {print $2, $3, $4, $5}' /proc/"$SFUSE_PID"/status)" "65534 65534 65534 65534" "gids"
	expect_eq "$(awk '/^Groups:/ {print $2}' /proc/"$SFUSE_PID"/status)" "" "supplementary groups"
	echo "written by nobody's server" >m/g || fail "writing through a server that dropped root"
	# The server cannot reach the image by name any more (it holds it open): the sandbox and the
	# user change are both in force; unmounting as root still works.
	sfuse_umount m
	fsck_clean img
	"$DEBUGFS" -R "cat g" img 2>/dev/null | grep -q "nobody's server" || fail "g is not in the image"
	# Asking a user change of a non-root server: refused, nothing mounted.
	chmod 755 . && chown 65534 img && mkdir -p n && chown 65534 n
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SFUSE" -f -o uid=0 img n >drop.out 2>&1 &&
		fail "a non-root server became root"
	is_mounted n && { umount n; fail "the refused server left a mount"; }
	grep -q "cannot become uid 0" drop.out || { cat drop.out; fail "the refusal does not say why"; }
}

# libfuse's own options behave as users expect: -s (one thread serving: the
# process has it and the commit thread), -d (every request printed), -f (every
# test here), -o ro and allow_other (t-ro.sh, t-ops.sh), -h and -V.
test_libfuse_options() {
	local threads
	mkimg img 64M
	sfuse_mount img m -s
	mkdir m/d && cp "$FSX" m/d/x && cmp "$FSX" m/d/x || fail "a copy through a single-threaded server"
	threads=$(awk '/^Threads:/ {print $2}' /proc/"$SFUSE_PID"/status)
	[ "$threads" -le 2 ] || fail "-s: the server has $threads threads"
	sfuse_umount m
	sfuse_mount img m -d
	ls m/d >/dev/null
	sfuse_umount m
	grep -q "opcode: LOOKUP" "$SFUSE_LOG" || fail "-d printed no requests"
	"$SFUSE" -h >help.out 2>&1 || fail "stalefs-fuse -h exited non-zero"
	grep -q "norecovery" help.out && grep -q "allow_other" help.out || fail "-h does not list both kinds of options"
	"$SFUSE" -V | grep -q "libfuse" || fail "-V does not name libfuse's version"
	# usage errors: exit 1, a message, nothing mounted
	"$SFUSE" img >usage.out 2>&1 && fail "no mount point: exit 0"
	grep -q "no mount point" usage.out || fail "no mount point: $(cat usage.out)"
	"$SFUSE" -o commit=0 img m >usage.out 2>&1 && fail "commit=0 accepted"
	grep -q "bad -o commit=0" usage.out || fail "commit=0: $(cat usage.out)"
	"$SFUSE" -o uid=abc img m >usage.out 2>&1 && fail "uid=abc accepted"
	grep -q "numeric id" usage.out || fail "uid=abc: $(cat usage.out)"
	"$SFUSE" nonexistent.img m >usage.out 2>&1 && fail "a missing image: exit 0"
	grep -q "No such file or directory while opening nonexistent.img" usage.out || fail "missing image: $(cat usage.out)"
	is_mounted m && fail "something was mounted"
	true
}
