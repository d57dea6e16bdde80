#!/bin/bash
# Without NO_HIDE_STALE nothing exposes old data, even on an armed mount and
# for members of the permitted group: fallocate (default and KEEP_SIZE then
# truncate up), punch, zero range, truncate up, writes past EOF (buffered,
# direct, mmap), blocks freed from a stale file and reused - read buffered,
# O_DIRECT and through mmap, before and after a remount.  The device holds
# the pattern everywhere before mkfs, so any exposure shows.
# needs: stalefs
# disk: scratch:64M
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/tests/vm/stale-lib.sh"

fresh_fs
mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
chmod 1777 $mnt
m=as_member
files=()
mk() { new_file $mnt/$1 $MEMBER $G 0660; files+=($mnt/$1); }

note "fallocate: default, KEEP_SIZE then truncate up, unaligned"
mk fa; $m xfs_io -c "falloc 0 1m" $mnt/fa
mk fk; $m xfs_io -c "falloc -k 0 256k" -c "truncate 256k" $mnt/fk
mk fu; $m xfs_io -c "falloc 1000 10000" $mnt/fu
note "punch and zero range inside written data"
mk pz; $m xfs_io -c "pwrite -q -S 0x11 0 256k" -c fsync -c "fpunch 4k 64k" -c "fzero 100k 50k" -c "fzero -k 200k 100k" $mnt/pz
note "truncate up, sparse"
mk tu; $m xfs_io -c "pwrite -q -S 0x22 0 5000" -c "truncate 1m" $mnt/tu
note "writes past EOF: buffered, direct, mmap"
mk wb; $m xfs_io -c "pwrite -q -S 0x33 0 3000" -c "pwrite -q -S 0x33 200k 3000" $mnt/wb
mk wd; $m xfs_io -d -c "pwrite -q -S 0x44 0 4096" -c "pwrite -q -S 0x44 128k 4096" $mnt/wd
mk wm; $m xfs_io -c "truncate 64k" -c "mmap -w 0 64k" -c "mwrite -S 0x55 0 100" -c "mwrite -S 0x55 40k 100" -c msync $mnt/wm
note "blocks a stale file gives back are reused without exposure"
mk st
expect_ok $m $STALE_IOCTL falloc 0 2097152 $mnt/st
$m xfs_io -c "fpunch 0 2m" $mnt/st
mk re; $m xfs_io -c "falloc 0 2m" -c "pwrite -q -S 0x66 1m 4k" $mnt/re
mk rw; $m xfs_io -c "pwrite -q -S 0x67 0 100" -c "truncate 512k" $mnt/rw
# st itself now holds nothing: it reads zeros too.
# xfs_io reports a failed command but may still exit 0: check what was made.
sizes() { local f; for f in "$@"; do printf '%s=%s ' "${f##*/}" "$(stat -c %s "$f")"; done; }
assert_eq "fa=1048576 fk=262144 fu=11000 pz=262144 tu=1048576 wb=207800 wd=135168 wm=65536 st=2097152 re=2097152 rw=524288 " \
	"$(sizes "${files[@]}")" "sizes"
assert_eq "2048 512 4096 0" "$(stat -c %b $mnt/fa $mnt/fk $mnt/re $mnt/st | tr '\n' ' ' | sed 's/ $//')" "blocks held by fa fk re st"
never_pattern "${files[@]}"
note "after a remount and dropped caches"
remount nohide_stale_gid=$G
drop_caches
never_pattern "${files[@]}"
note "after a disarmed remount, a few more of each"
remount defaults
mk d1; $m xfs_io -c "falloc 0 256k" -c "pwrite -q -S 0x77 0 1000" -c "fpunch 64k 64k" -c "fzero 128k 8k" -c "truncate 1m" $mnt/d1
mk d2; $m xfs_io -d -c "pwrite -q -S 0x78 64k 4096" -c "truncate 300k" $mnt/d2
assert_eq "d1=1048576 d2=307200 " "$(sizes $mnt/d1 $mnt/d2)" "sizes"
never_pattern $mnt/d1 $mnt/d2
umount $mnt
"$DEBUGFS_STALEFS" -R lsstale "$dev"
assert_eq none "$(lsstale_row st)" "st gave its stale blocks back"
fsck_clean "$dev"
