#!/bin/bash
# NO_HIDE_STALE granted: the first armed mount records the permitted group;
# a member's stale allocation on a confined file reads back the device's old
# contents (buffered, O_DIRECT, mmap, after a remount), writes into it need
# no conversion (fiemap: no UNWRITTEN), KEEP_SIZE, unwritten extents turn
# STALE and written ones stay, CAP_SYS_RAWIO, stalefs-falloc; offline the
# inodes carry the STALE flag and fsck's audit counts them.
# needs: stalefs
# disk: scratch:64M
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/tests/vm/stale-lib.sh"

fresh_fs
note "the first armed mount records the permitted group"
assert_eq "Stale gid (permitted):    <none>" "$("$DEBUGFS_STALEFS" -R stats "$dev" 2>/dev/null | grep '^Stale gid')" "before"
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
grep " $mnt stalefs " /proc/mounts
grep -q " $mnt stalefs [^ ]*nohide_stale_gid=$G" /proc/mounts || fail "/proc/mounts does not show nohide_stale_gid=$G"
dmesg | has "recorded permitted group $G" || fail "no kernel message about recording group $G"
f=$mnt/f
new_file $f stale-member stale-users 0660
assert_eq "-rw-rw---- stale-member stale-users" "$(stat -c '%A %U %G' $f)" "names from the test's group file"
assert_eq "$MEMBER $G" "$(as_member id -G)" "the member's groups"
assert_eq "stale_gid=$G armed=1" "$($STALE_IOCTL info $f)"

note "a member allocates 1 MiB stale: the old contents read back on every path"
expect_ok as_member $STALE_IOCTL falloc 0 1048576 $f
assert_eq 1048576 "$(stat -c %s $f)" "size"
assert_eq 2048 "$(stat -c %b $f)" "512-byte blocks held"
for m in buffered direct mmap; do
	assert_eq "size=1048576 pattern=256 zero=0 other=0" "$(read_summary $m $f)" "$m read"
done
assert_eq 0 "$(unwritten_extents $f)" "unwritten extents"
xfs_io -c "fiemap -v" $f
n_ext=$(extent_count $f)

note "writes into the range land without conversion"
as_member xfs_io -c "pwrite -q -S 0x11 4096 4096" -c fsync $f
as_member xfs_io -d -c "pwrite -q -S 0x22 8192 4096" $f
assert_eq 0 "$(unwritten_extents $f)" "unwritten extents after writes"
assert_eq "$n_ext" "$(extent_count $f)" "extent count after writes (no split)"
drop_caches
assert_eq "size=1048576 pattern=254 zero=0 other=2" "$(read_summary buffered $f)" "after writes"
python3 - $f <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
assert d[4096:8192] == b"\x11" * 4096 and d[8192:12288] == b"\x22" * 4096, "written data"
print("written blocks read back")
PY

note "KEEP_SIZE; unwritten extents become STALE, written ones stay written"
g=$mnt/g
new_file $g $MEMBER $G 0660
as_member xfs_io -c "pwrite -q -S 0x33 0 8192" -c fsync -c "falloc 8192 32768" $g
assert_eq 1 "$(unwritten_extents $g)" "unwritten before"
expect_ok as_member $STALE_IOCTL falloc -k 0 81920 $g
assert_eq 40960 "$(stat -c %s $g)" "KEEP_SIZE keeps the size"
assert_eq 160 "$(stat -c %b $g)" "blocks held (20 of 4 KiB)"
assert_eq 0 "$(unwritten_extents $g)" "unwritten after"
assert_eq "size=40960 pattern=8 zero=0 other=2" "$(read_summary buffered $g)" "inside the size"
as_member truncate -s 81920 $g
for m in buffered direct mmap; do
	assert_eq "size=81920 pattern=18 zero=0 other=2" "$(read_summary $m $g)" "$m read after truncate up over KEEP_SIZE stale blocks"
done
python3 - $g <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
assert d[:8192] == b"\x33" * 8192, "written extent untouched"
PY

note "unaligned range: the blocks it touches, size to the byte"
u=$mnt/u
new_file $u $MEMBER $G 0660
expect_ok as_member $STALE_IOCTL falloc 1000 5000 $u
assert_eq 6000 "$(stat -c %s $u)" "size"
assert_eq 16 "$(stat -c %b $u)" "two blocks"
assert_eq "size=6000 pattern=2 zero=0 other=0" "$(read_summary buffered $u)"

note "root, not in the group, holds CAP_SYS_RAWIO"
r=$mnt/r
new_file $r 0 $G 0600
expect_ok $STALE_IOCTL falloc 0 4096 $r
assert_eq "size=4096 pattern=1 zero=0 other=0" "$(read_summary buffered $r)"

note "stalefs-falloc: plain and --no-hide-stale"
t=$mnt/t
new_file $t $MEMBER $G 0660
as_member $STALE_FALLOC --no-hide-stale -o 0 -l 64K $t
assert_eq "size=65536 pattern=16 zero=0 other=0" "$(read_summary buffered $t)"
p=$mnt/plain
new_file $p $MEMBER $G 0660
as_member $STALE_FALLOC -o 0 -l 64K $p
assert_eq "size=65536 pattern=0 zero=16 other=0" "$(read_summary buffered $p)"
assert_eq 1 "$(unwritten_extents $p)" "plain fallocate is unwritten"
as_member $STALE_FALLOC -k --no-hide-stale -o 64K -l 64K $p
assert_eq 65536 "$(stat -c %s $p)" "-k keeps the size"

note "remount and dropped caches: the stale blocks still read back"
remount nohide_stale_gid=$G
assert_eq "size=1048576 pattern=254 zero=0 other=2" "$(read_summary buffered $f)" "after remount"
assert_eq "size=1048576 pattern=254 zero=0 other=2" "$(read_summary direct $f)" "after remount (direct)"
assert_eq "stale_gid=$G armed=1" "$($STALE_IOCTL info $f)"
note "a disarmed remount still reads them (reading is not the risk being gated)"
remount defaults
grep -q "nohide_stale_gid" /proc/mounts && fail "disarmed mount still shows the option"
assert_eq "stale_gid=$G armed=0" "$($STALE_IOCTL info $f)"
assert_eq "size=1048576 pattern=254 zero=0 other=2" "$(read_summary buffered $f)" "disarmed"
umount $mnt

note "offline: the STALE flag and the audit"
"$DEBUGFS_STALEFS" -R lsstale "$dev"
assert_eq "0x1" "$(inode_flags f)" "f flags"
assert_eq "256 yes" "$(lsstale_row f)" "f in lsstale"
assert_eq "18 yes" "$(lsstale_row g)" "g in lsstale"
assert_eq "1 yes" "$(lsstale_row r)" "r in lsstale"
assert_eq "2 yes" "$(lsstale_row u)" "u in lsstale"
assert_eq "16 yes" "$(lsstale_row t)" "t in lsstale"
assert_eq "16 yes" "$(lsstale_row plain)" "plain in lsstale (the -k half)"
assert_eq "none" "$(lsstale_row nothing-here)" "lsstale_row sanity"
out=$("$FSCK_STALEFS" -fn "$dev") || fail "fsck -fn failed: $out"
echo "$out"
[[ $out == *"stale audit: 6 files, 309 blocks stale-exposed to group $G"* ]] || fail "fsck's stale audit line"
fsck_clean "$dev"
