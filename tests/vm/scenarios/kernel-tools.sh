#!/bin/bash
# stalefs.ko and the tools agree: a tree made by mkfs.stalefs -d mounts and
# compares equal (diff -r); files written by the kernel (buffered, direct,
# mmap, fallocate, punch, symlinks, a big directory) read back with
# debugfs.stalefs rdump/dump from the unmounted image compare equal.
# tunefs.stalefs lists a mounted filesystem and changes its label, check
# schedule and error behaviour through the kernel (FS_IOC_SETFSLABEL,
# STALEFS_IOC_SET_TUNE), refusing the rest; the kernel warns at mount when the
# check schedule says a check is due.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
S=$VM_SCRATCH
mkdir -p $mnt

note "mkfs.stalefs -d: mount and diff -r"
src=$S/src
mkdir -p $src/a/b/c $src/empty
echo one >$src/a/one
dd if=/dev/urandom of=$src/a/b/rand bs=1k count=777 status=none
truncate -s 5M $src/sparse
printf middle | dd of=$src/sparse bs=1 seek=3000000 conv=notrunc status=none
ln -s a/one $src/link
ln -s "$(printf 'T%.0s' {1..300})" $src/longlink
ln $src/a/one $src/a/b/hard
for i in $(seq 1 300); do echo $i >$src/a/b/c/n$i; done
"$MKFS_STALEFS" -q -F -d $src "$dev"
mount -t stalefs -o ro "$dev" $mnt
diff -r --no-dereference $src $mnt -x lost+found
assert_eq "$(stat -c %i $mnt/a/one)" "$(stat -c %i $mnt/a/b/hard)" "hard link"
umount $mnt
fsck_clean "$dev"

note "kernel writes, debugfs.stalefs reads"
mount -t stalefs "$dev" $mnt
mkdir -p $mnt/k/d
dd if=/dev/urandom of=$mnt/k/buffered bs=1k count=3333 status=none
xfs_io -f -d -c "pwrite -q -S 0x5a 0 1m" $mnt/k/direct
xfs_io -f -c "truncate 256k" -c "mmap -rw 0 256k" -c "mwrite -S 0x6b 4096 70000" -c "msync -s 0 256k" $mnt/k/mapped
xfs_io -f -c "falloc 0 2m" -c "pwrite -q -S 0x7c 1m 8k" -c "fpunch 100k 200k" $mnt/k/prealloc
ln -s "$(printf 'L%.0s' {1..1000})" $mnt/k/longlink
for i in $(seq 1 400); do echo "entry $i" >$mnt/k/d/file$i; done
rm $mnt/k/d/file1{0..9}*
# sync(2) must leave the image complete while still mounted: the unwritten
# conversion that follows writeback has to reach the device too.
sync
assert_eq "entry 400" "$("$DEBUGFS_STALEFS" -R "cat /k/d/file400" "$dev" 2>/dev/null)" \
	"after sync, the device holds the last file's data as written"
cp -a $mnt/k $S/expect
umount $mnt
rm -rf $S/out && mkdir $S/out
"$DEBUGFS_STALEFS" -R "rdump /k $S/out" "$dev"
diff -r --no-dereference $S/expect $S/out/k
"$DEBUGFS_STALEFS" -R "dump /k/prealloc $S/prealloc" "$dev"
cmp $S/expect/prealloc $S/prealloc
fsck_clean "$dev"

note "tunefs.stalefs and a mounted filesystem; the check schedule"
"$TUNEFS_STALEFS" -c 3 -C 3 "$dev" >/dev/null
dmesg -C
mount -t stalefs "$dev" $mnt
dmesg | has 'maximal mount count reached, running fsck.stalefs is recommended' ||
	fail "no warning at mount with the mount count at its maximum"
"$TUNEFS_STALEFS" -l "$dev" >$S/tune.out
grep -qE '^Needs recovery: +yes$' $S/tune.out || fail "tunefs -l on the mounted filesystem: $(head -5 $S/tune.out)"
grep -qE '^Mount count: +4$' $S/tune.out || fail "tunefs -l: the kernel's mount count"

note "tunefs.stalefs on a mounted filesystem: -L -c -C -i -T -e through the kernel's ioctls"
# tunefs -l reads the device itself, so what it shows is what reached the disk.
field() { sed -n "s/^$1: *//p"; }
uuid_before=$("$TUNEFS_STALEFS" -l "$dev" | field "Filesystem UUID")
[[ -n $uuid_before ]] || fail "tunefs -l shows no UUID"
"$TUNEFS_STALEFS" -L newlabel -c 20 -C 0 -i 2w -T 20250102030405 -e remount-ro "$dev" >$S/tune.out 2>$S/tune.err ||
	fail "tunefs on a mounted filesystem: $(cat $S/tune.err)"
grep -q 'Setting maximal mount count to 20' $S/tune.out || fail "tunefs says what it set: $(cat $S/tune.out)"
sync
"$TUNEFS_STALEFS" -l "$dev" >$S/tune.out
assert_eq newlabel "$(field "Filesystem volume name" <$S/tune.out)" "the label on the device, still mounted"
assert_eq 20 "$(field "Maximum mount count" <$S/tune.out)" "max mount count on the device, still mounted"
grep -qE '^Needs recovery: +yes$' $S/tune.out || fail "the mount's state kept: $(head -5 $S/tune.out)"
assert_eq 'label = "newlabel"' "$(xfs_io -c label $mnt)" "FS_IOC_GETFSLABEL through xfs_io"
xfs_io -c "label -s viaxfsio" $mnt >/dev/null
assert_eq 'label = "viaxfsio"' "$(xfs_io -c label $mnt)" "FS_IOC_SETFSLABEL through xfs_io"
assert_eq viaxfsio "$("$TUNEFS_STALEFS" -l "$dev" | field "Filesystem volume name")" "xfs_io's label on the device"
"$TUNEFS_STALEFS" -L newlabel "$dev" >/dev/null

# tune_refused WHAT PATTERN CMD...: CMD exits 1 with PATTERN in its error output.
tune_refused() {
	local what=$1 pattern=$2 rc=0
	shift 2
	"$@" >/dev/null 2>$S/tune.err || rc=$?
	assert_eq 1 "$rc" "$what exits 1"
	grep -q -- "$pattern" $S/tune.err || fail "$what: $(cat $S/tune.err)"
}

note "refusals on a mounted filesystem change nothing"
tune_refused "a 32-byte label" 'volume label too long' "$TUNEFS_STALEFS" -L "$(printf 'x%.0s' {1..32})" "$dev"
# The kernel checks for itself: 31 bytes fit, 32 do not (EINVAL, as the generic ioctl says).
assert_errno EINVAL xfs_io -c "label -s $(printf 'y%.0s' {1..32})" $mnt
# SET_TUNE's own checks, past tunefs: the raw ioctl with values tunefs never sends.
python3 - $mnt <<'PY' || fail "STALEFS_IOC_SET_TUNE's validation"
import errno, fcntl, os, struct, sys
SET, GET = 0x40305303, 0x80305304   # _IOW/_IOR('S', 3/4, 48-byte struct stalefs_tune)
fd = os.open(sys.argv[1], os.O_RDONLY)
def tune(set_, errors=0, maxm=0, r0=0):
    return struct.pack("<IHHIIIIq16x", set_, errors, r0, maxm, 0, 0, 0, 0)
for what, arg in (("max mount count 16001", tune(0x02, maxm=16001)), ("errors 4", tune(0x01, errors=4)),
                  ("errors 0", tune(0x01, errors=0)), ("unknown bit", tune(0x20)), ("reserved", tune(0x02, r0=1))):
    try:
        fcntl.ioctl(fd, SET, arg)
        sys.exit("accepted: " + what)
    except OSError as e:
        if e.errno != errno.EINVAL:
            sys.exit("%s: %s, not EINVAL" % (what, e))
got = struct.unpack("<IHHIIIIq16x", fcntl.ioctl(fd, GET, bytes(48)))
if got[0] != 0x1f or got[1] != 2 or got[3] != 20 or got[5] != 14 * 86400:
    sys.exit("GET_TUNE after the refusals: %r" % (got,))
print("ok: SET_TUNE refuses bad values; GET_TUNE reads", got)
PY
for opt in "-U random" "-O ^has_journal"; do
	tune_refused "tunefs $opt on a mounted filesystem" 'change only unmounted filesystems' "$TUNEFS_STALEFS" $opt "$dev"
done
# Unprivileged: EPERM from the kernel, for tunefs and xfs_io alike.
tune_refused "tunefs by a non-root user" "$(errno_msg EPERM)" as_user 1000 1000 "" "$TUNEFS_STALEFS" -L notroot -c 7 "$dev"
assert_errno EPERM as_user 1000 1000 "" xfs_io -c "label -s notroot" $mnt
# Read-only: EROFS.
mount -o remount,ro $mnt
tune_refused "tunefs on a read-only mount" "$(errno_msg EROFS)" "$TUNEFS_STALEFS" -L readonly "$dev"
assert_errno EROFS xfs_io -c "label -s readonly" $mnt
umount $mnt

"$TUNEFS_STALEFS" -l "$dev" >$S/tune.out
assert_eq newlabel "$(field "Filesystem volume name" <$S/tune.out)" "no refusal changed the label"
assert_eq "$uuid_before" "$(field "Filesystem UUID" <$S/tune.out)" "the refused -U left the UUID"
grep -qE '^Filesystem features:.*has_journal' $S/tune.out || fail "the refused -O ^has_journal left the journal"
fsck_clean "$dev"
"$DEBUGFS_STALEFS" -R stats "$dev" >$S/stats.out
assert_eq newlabel "$(field "Filesystem volume name" <$S/stats.out)" "debugfs stats: label"
assert_eq 20 "$(field "Maximum mount count" <$S/stats.out)" "debugfs stats: max mount count"
assert_eq 0 "$(field "Mount count" <$S/stats.out)" "debugfs stats: mount count (-C 0, no mount since)"
assert_eq "1209600 (14 days)" "$(field "Check interval" <$S/stats.out)" "debugfs stats: check interval"
assert_eq "2025-01-02 03:04:05 UTC" "$(field "Last checked" <$S/stats.out)" "debugfs stats: last checked"
assert_eq "2 (Remount read-only)" "$(field "Errors behavior" <$S/stats.out)" "debugfs stats: errors behaviour"

note "unmounted again: tunefs writes the device itself"
"$TUNEFS_STALEFS" -L unmounted -c 0 "$dev" >/dev/null
assert_eq unmounted "$("$TUNEFS_STALEFS" -l "$dev" | field "Filesystem volume name")" "tunefs -L once unmounted"
fsck_clean "$dev"

note "a shut-down filesystem refuses (EIO) and keeps what it had"
mount -t stalefs "$dev" $mnt
xfs_io -x -c shutdown $mnt	# NOLOGFLUSH; nothing was written since the mount, so nothing is lost
tune_refused "tunefs on a shut-down filesystem" "$(errno_msg EIO)" "$TUNEFS_STALEFS" -L down -c 9 "$dev"
assert_errno EIO xfs_io -c "label -s down" $mnt
umount $mnt
"$TUNEFS_STALEFS" -l "$dev" >$S/tune.out
assert_eq unmounted "$(field "Filesystem volume name" <$S/tune.out)" "the shut-down filesystem kept its label"
assert_eq "0 (no mount-count check)" "$(field "Maximum mount count" <$S/tune.out)" "and its max mount count"
fsck_clean "$dev"
echo "kernel-tools passed"
