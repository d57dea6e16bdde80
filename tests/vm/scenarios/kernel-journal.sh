#!/bin/bash
# The journal's rules, one at a time (issue 13 part 2): the image needs
# recovery exactly while mounted, commit=, an unchanged inode's fsync
# costs no commit (and its overwritten data is still durable), the three
# shutdown modes (and what each leaves in the kernel log), orphans finished at mount (unlinked while open, truncation
# under way), freeze leaves an image that needs no recovery, norecovery
# shows the disk as it is, a journal I/O error makes the filesystem
# read-only and records it, and an image without a journal still works.
# needs: stalefs
# needs: dm-mod
# disk: scratch:64M
# timeout: 900
. "$STALEFS_ROOT/tests/vm/lib.sh"
IOCTL=$STALEFS_BUILD/stale-ioctl
[[ -x $IOCTL ]] || fail "$IOCTL is missing (run make first)"
D=$VM_DISK_SCRATCH
m=/mnt/j
mkdir -p $m

# Transactions jbd2 has committed on device $1 since the mount.
commits() {
	local f=/proc/fs/jbd2/$(basename "$(readlink -f "$1")")/info
	[[ -r $f ]] || fail "no jbd2 statistics at $f"
	read -r n _ <"$f"
	echo "$n"
}
sb_field() {	# sb_field DEV LABEL: a line of debugfs stats
	"$DEBUGFS_STALEFS" -R stats "$1" 2>/dev/null | sed -n "s/^$2: *//p"
}
features() { sb_field "$1" "Filesystem features"; }
pattern_only() {	# pattern_only FILE BYTE: every byte of FILE is BYTE (hex, e.g. 41)
	local want=$2 got
	got=$(od -An -v -tx1 "$1" | tr -s ' \n' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ')
	[[ $got == "$want " ]] || fail "$1 holds bytes [$got], want only [$want]"
}

note "mkfs makes a journal by default; it needs recovery exactly while mounted"
# 64 MiB whatever the disk: the run's disk is as large as the largest any
# scenario asks for, and the freeze copy below must fit in the guest's /tmp.
"$MKFS_STALEFS" -q -F "$D" 64M
[[ $(features "$D") == *has_journal* ]] || fail "no has_journal: $(features "$D")"
[[ $(features "$D") != *needs_recovery* ]] || fail "fresh image needs recovery"
mount -t stalefs -o commit=3600 "$D" $m
grep -q "stalefs rw.*commit=3600" /proc/mounts || fail "commit=3600 not shown: $(grep stalefs /proc/mounts)"
[[ $(features "$D") == *needs_recovery* ]] || fail "mounted read-write but needs_recovery is not set"
mount -o remount,commit=7 $m
grep -q "commit=7" /proc/mounts || fail "remount did not change commit=: $(grep stalefs /proc/mounts)"
mount -o remount,commit=3600 $m

note "fsync commits the inode's transaction once; an unchanged inode costs none"
xfs_io -f -c "pwrite -q -S 0x41 0 64k" $m/a
c0=$(commits "$D")
xfs_io -c fsync $m/a
c1=$(commits "$D")
((c1 > c0)) || fail "fsync of a new file committed nothing ($c0 -> $c1)"
xfs_io -c fsync $m/a
c2=$(commits "$D")
assert_eq "$c1" "$c2" "commits after fsync of an unchanged file"
# Overwrite in place: only times change, which fdatasync need not commit.
xfs_io -c "pwrite -q -S 0x42 0 64k" -c fdatasync $m/a
c3=$(commits "$D")
assert_eq "$c2" "$c3" "commits after fdatasync of an overwrite"
# ... yet the data is durable: shut down without committing anything more.
"$IOCTL" goingdown 2 $m >/dev/null || fail "goingdown 2 failed"
assert_errno EIO touch $m/after-shutdown
assert_errno EIO cat $m/a
umount $m
mount -t stalefs -o commit=3600 "$D" $m
pattern_only $m/a 42

note "shutdown without log flush: what fsync made durable stays, the rest is gone"
xfs_io -f -c "pwrite -q -S 0x43 0 32k" -c fsync $m/kept
: >$m/lost
"$IOCTL" goingdown 2 $m >/dev/null || fail "goingdown 2 failed"
umount $m
mount -t stalefs -o commit=3600 "$D" $m
dmesg | has "stalefs ($(basename "$D")): recovering the journal" || fail "no journal recovery at mount"
pattern_only $m/kept 43
[[ ! -e $m/lost ]] || fail "a file created after the last commit survived a shutdown without log flush"

note "shutdown with log flush: committed metadata, unwritten data reads zeros"
xfs_io -f -c "pwrite -q -S 0x44 0 128k" $m/nodata
"$IOCTL" goingdown 1 $m/nodata >/dev/null || fail "goingdown 1 failed"
umount $m
mount -t stalefs -o commit=3600 "$D" $m
[[ -e $m/nodata ]] || fail "the log flush did not carry the file's creation"
assert_eq 131072 "$(stat -c %s $m/nodata)" "size of nodata"
pattern_only $m/nodata 00

note "default shutdown freezes first: everything reaches the disk, no recovery needed"
xfs_io -f -c "pwrite -q -S 0x45 0 96k" $m/frozen
"$IOCTL" goingdown 0 $m >/dev/null || fail "goingdown 0 failed"
umount $m
[[ $(features "$D") != *needs_recovery* ]] || fail "needs recovery after a freezing shutdown"
dmesg -C
mount -t stalefs -o commit=3600 "$D" $m
! dmesg | has "recovering the journal" || fail "recovered after a freezing shutdown"
pattern_only $m/frozen 45

note "an inode unlinked while open is an orphan; a crash leaves it to the next mount"
free0=$(stat -f -c %f $m)
exec 3<>$m/open-unlinked
xfs_io -c "pwrite -q -S 0x46 0 4m" -c fsync $m/open-unlinked
rm $m/open-unlinked
xfs_io -c fsync $m			# the unlink, and the orphan flag with it, committed
"$IOCTL" goingdown 2 $m >/dev/null || fail "goingdown 2 failed"
exec 3>&-				# the last close frees nothing after a shutdown
umount $m
dmesg -C
mount -t stalefs -o commit=3600 "$D" $m
dmesg | has "released 1 orphan" || fail "the orphan was not released at mount: $(dmesg | grep stalefs | tail -3)"
free1=$(stat -f -c %f $m)
# Its 1024 blocks came back (a block or two may have gone to directory growth since).
((free1 + 8 >= free0)) || fail "free blocks $free1 after the orphan was released, $free0 before it was written"
umount $m
fsck_clean "$D"

note "a truncation under way at a crash is finished at mount"
mount -t stalefs -o commit=3600 "$D" $m
xfs_io -f -c "pwrite -q -S 0x47 0 1m" -c fsync $m/cut
ino=$(stat -c %i $m/cut)
umount $m
# As a crash mid-truncate leaves it: size cut to 64 KiB, blocks past it still held, flagged.
"$DEBUGFS_STALEFS" -w -R "sif <$ino> size 65536" "$D"
"$DEBUGFS_STALEFS" -w -R "sif <$ino> flags 0x02000000" "$D"
"$DEBUGFS_STALEFS" -w -R "set_bg 0 orphan_count 1" "$D"
mount -t stalefs -o commit=3600 "$D" $m
dmesg | has "finished 1 truncation" || fail "the truncation was not finished at mount"
assert_eq 65536 "$(stat -c %s $m/cut)" "size after the truncation"
assert_eq 128 "$(stat -c %b $m/cut)" "512-byte blocks held after the truncation"
umount $m
fsck_clean "$D"

note "freeze: a copy of the frozen device needs no recovery and is clean"
# The filesystem's own blocks only (see the mkfs at the top).
bsz=$(sb_field "$D" "Block size") nblk=$(sb_field "$D" "Block count")
[[ $bsz =~ ^[0-9]+$ && $nblk =~ ^[0-9]+$ ]] || fail "no block size/count in stats ('$bsz', '$nblk')"
mount -t stalefs -o commit=3600 "$D" $m
xfs_io -f -c "pwrite -q -S 0x48 0 32k" $m/f1
fsfreeze -f $m
dd if="$D" of=/tmp/frozen.img bs="$bsz" count="$nblk" status=none
fsfreeze -u $m
[[ $(features /tmp/frozen.img) != *needs_recovery* ]] || fail "the frozen image needs recovery"
"$FSCK_STALEFS" -fn /tmp/frozen.img >/tmp/frozen.fsck || { cat /tmp/frozen.fsck; fail "the frozen image is not clean"; }
rm -f /tmp/frozen.img
umount $m

note "norecovery shows the disk as it is, read-only only"
# A transaction in the log that is not in place: a file block's new content,
# written with debugfs's journal commands (what a crash after a commit leaves).
mount -t stalefs "$D" $m
xfs_io -f -c "pwrite -q -S 0x49 0 4k" -c fsync $m/in-log
umount $m
pblk=$("$DEBUGFS_STALEFS" -R "bmap in-log 0" "$D" 2>/dev/null)
[[ $pblk =~ ^[0-9]+$ ]] || fail "bmap gave '$pblk'"
head -c 4096 /dev/zero | tr '\0' '\112' >/tmp/new-block
printf 'jo\njw -b %s /tmp/new-block\njc\n' "$pblk" | "$DEBUGFS_STALEFS" -w -f - "$D" >/tmp/jw.out 2>&1 ||
	{ cat /tmp/jw.out; fail "debugfs could not write the journal"; }
[[ $(features "$D") == *needs_recovery* ]] || fail "the written journal does not ask for recovery"
assert_fails mount -t stalefs -o norecovery "$D" $m
mount -t stalefs -o ro,norecovery "$D" $m
pattern_only $m/in-log 49
umount $m
[[ $(features "$D") == *needs_recovery* ]] || fail "a norecovery mount changed the image"
mount -t stalefs "$D" $m
pattern_only $m/in-log 4a
umount $m
fsck_clean "$D"

note "a journal I/O error makes the filesystem read-only and is recorded"
sz=$(blockdev --getsz "$D")
# The superblock's s_journal_block (le64 at 0x170) and s_journal_blocks (le32 at 0x178).
jblk=$(od -An -t u8 -j $((1024 + 0x170)) -N 8 "$D" | tr -d ' ')
jlen=$(od -An -t u4 -j $((1024 + 0x178)) -N 4 "$D" | tr -d ' ')
((jblk > 0 && jlen >= 1024)) || fail "no journal location in the superblock ('$jblk', '$jlen')"
js=$((jblk * 8)) jl=$((jlen * 8))
dmsetup create jerr --table "0 $sz linear $D 0"
mount -t stalefs -o commit=3600,errors=remount-ro /dev/mapper/jerr $m
xfs_io -f -c "pwrite -q -S 0x4b 0 8k" $m/before-error
# The log fails from its second block on (its superblock stays readable).
printf '0 %s linear %s 0\n%s %s error\n%s %s linear %s %s\n' $((js + 8)) "$D" $((js + 8)) $((jl - 8)) \
	$((js + jl)) $((sz - js - jl)) "$D" $((js + jl)) | dmsetup load jerr
dmsetup suspend --nolockfs jerr
dmsetup resume jerr
assert_fails xfs_io -c fsync $m/before-error
grep -q " $m stalefs ro" /proc/mounts || fail "not read-only after the journal failed: $(grep stalefs /proc/mounts)"
dmesg | has "remounting filesystem read-only" || fail "no read-only message"
assert_errno EROFS touch $m/after-error
umount $m
dmsetup remove jerr
[[ $(sb_field "$D" "Error count") != 0 ]] || fail "the journal error was not recorded in the superblock"
"$FSCK_STALEFS" -fy "$D" >/tmp/fsck.out || (($? < 4)) || { cat /tmp/fsck.out; fail "fsck could not repair after the journal error"; }
fsck_clean "$D"

note "a shutdown in each mode with conversions pending and metadata changing: only jbd2's own warning for an abort mid-commit, and only without the log flush"
for flag in 0 1 2; do
	"$MKFS_STALEFS" -q -F "$D" 64M
	mount -t stalefs -o commit=1 "$D" $m
	# Written back and converted in memory, the conversions not yet saved.
	for i in 1 2 3 4; do xfs_io -f -c "pwrite -q -S 0x4d 0 256k" -c "sync_range -w 0 256k" $m/p$i; done
	( for i in $(seq 1 200); do mkdir $m/c$i 2>/dev/null && : >$m/c$i/f 2>/dev/null || exit 0; done ) &
	churn=$!
	sleep 1
	dmesg -C
	"$IOCTL" goingdown $flag $m >/dev/null || fail "goingdown $flag failed"
	wait $churn || true
	sleep 1.5				# the save worker's second
	umount $m
	bad=$(dmesg | grep -E "stalefs.*error in|stalefs_save_pending" || true)
	[[ -z $bad ]] || fail "after shutdown $flag the kernel reported an error: $bad"
	((flag == 2)) || ! dmesg | has "freeing b_frozen_data" ||
		fail "jbd2 threw away a frozen buffer after shutdown $flag: the last commit was not quiet"
	"$FSCK_STALEFS" -fy "$D" >/tmp/fsck.out 2>&1 || (($? < 4)) || { cat /tmp/fsck.out; fail "fsck after shutdown $flag"; }
	fsck_clean "$D"
done

note "an image without a journal keeps working"
"$MKFS_STALEFS" -q -F -O ^has_journal "$D"
[[ $(features "$D") != *has_journal* ]] || fail "-O ^has_journal made a journal"
mount -t stalefs "$D" $m
[[ ! -e /proc/fs/jbd2/$(basename "$D") ]] || fail "a jbd2 journal is running without has_journal"
xfs_io -f -c "pwrite -q -S 0x4c 0 1m" -c fsync $m/nj
mkdir $m/d && mv $m/nj $m/d/ && rm $m/d/nj
umount $m
fsck_clean "$D"
echo "kernel-journal passed"
