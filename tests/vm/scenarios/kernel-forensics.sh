#!/bin/bash
# Evidence the kernel made: files written and synced, then deleted (rm, rm -r) and
# the filesystem unmounted, so the inodes on disk no longer map their blocks and
# the journal's older copies are the only record of where the data was.  On the
# unmounted device: the timeline names the deleted files (with what TSK's fls
# would print), jls lists the journal's copies, jinode shows each deleted inode's
# history, jrecover copies the files out byte for byte (a small one, one with an
# index node, a file in a deleted directory), undel -j brings one back in a copy of
# the image (fsck clean, content equal), and every read-only command leaves the
# device's bytes as they were.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
D=$VM_DISK_SCRATCH
S=$VM_SCRATCH
m=/mnt/f
mkdir -p $m
TIMELINE=$STALEFS_BUILD/stalefs-timeline

# The device's bytes before the read-only commands, compared once after all of them
# (hashing 64 MiB under TCG takes seconds: once per command would be most of the run).
devsum() { dd if="$D" bs=1M count=64 status=none | sha256sum; }
ro() { "$@"; }

note "the kernel writes, syncs, deletes"
"$MKFS_STALEFS" -q -F "$D" 64M
mount -t stalefs "$D" $m
head -c 50000 /dev/urandom >$m/small
head -c 300000 /dev/urandom >$m/keep
# Every other 4 KiB block written: 24 extents, more than the inode's root holds (7),
# so the tree has an index node.
for i in $(seq 0 2 46); do
	xfs_io -f -c "pwrite -q -S $((i + 1)) $((i * 4096)) 4096" $m/frag
done
mkdir -p $m/dir/sub
head -c 9000 /dev/urandom >$m/dir/sub/inner
sync
cp $m/small $m/frag $m/dir/sub/inner $S/
ino_small=$(stat -c %i $m/small)
ino_frag=$(stat -c %i $m/frag)
ino_inner=$(stat -c %i $m/dir/sub/inner)
rm $m/small $m/frag
rm -r $m/dir
sync
umount $m
fsck_clean "$D"

note "the timeline names the deleted files"
before=$(devsum)
ro "$DEBUGFS_STALEFS" -R "timeline" "$D" >$S/body
grep -q "^0|/small (deleted)|$ino_small|r/rrw-r--r--|0|0|0|" $S/body || fail "no deleted /small in the timeline: $(cat $S/body)"
grep -q "^0|/frag (deleted)|$ino_frag|r/" $S/body || fail "no deleted /frag in the timeline"
grep -q "^0|/dir (deleted)|" $S/body || fail "no deleted /dir in the timeline"
grep -q '^0|/keep|' $S/body || fail "no /keep in the timeline"
# What the removed directories held: their blocks (freed, not yet reused) found through
# the journal's copies (-j); without it the deleted directory is a name alone.
grep -q "^0|/dir/sub" $S/body && fail "without -j, the freed directory's blocks are found anyway?"
ro "$DEBUGFS_STALEFS" -R "timeline -j" "$D" >$S/body
grep -q "^0|/dir/sub (deleted)|" $S/body || fail "timeline -j: no deleted /dir/sub: $(cat $S/body)"
grep -q "^0|/dir/sub/inner (deleted)|$ino_inner|r/" $S/body || fail "timeline -j: no deleted /dir/sub/inner"
ro "$TIMELINE" -j "$D" >$S/body2
cmp $S/body $S/body2 || fail "stalefs-timeline differs from debugfs timeline"

note "the journal's history"
ro "$DEBUGFS_STALEFS" -R "jls" "$D" >$S/jls
grep -q '^Log: empty' $S/jls || fail "the log is not empty after umount: $(head -3 $S/jls)"
grep -q 'copy of block [0-9]*: inode table of group' $S/jls || fail "jls shows no inode table copy"
grep -q 'copy of block [0-9]*: extent tree node of inode '"$ino_frag" $S/jls ||
	fail "jls shows no copy of /frag's index node"
for ino in $ino_small $ino_frag $ino_inner; do
	ro "$DEBUGFS_STALEFS" -R "jinode <$ino>" "$D" >$S/jinode.$ino
	grep -q 'links 0 .*size 0' $S/jinode.$ino || fail "inode $ino: no deleted copy in $(cat $S/jinode.$ino)"
	grep -q 'links 1 ' $S/jinode.$ino || fail "inode $ino: no copy from before the deletion"
	grep -q 'all recoverable' $S/jinode.$ino || fail "inode $ino: its blocks are not all free: $(cat $S/jinode.$ino)"
done
grep -q 'index node [0-9]* (from the' $S/jinode.$ino_frag || fail "/frag's map came without its index node"

note "jrecover: the deleted files, byte for byte"
for f in small:$ino_small frag:$ino_frag inner:$ino_inner; do
	ro "$DEBUGFS_STALEFS" -R "jrecover <${f#*:}> $S/rec.${f%%:*}" "$D"
	cmp $S/${f%%:*} $S/rec.${f%%:*} || fail "jrecover of ${f%%:*} differs from what was written"
done

assert_eq "$before" "$(devsum)" "the device after timeline, jls, jinode and jrecover (read-only)"

note "undel -j in a copy of the image"
dd if="$D" of=$S/copy.img bs=1M count=64 status=none
"$DEBUGFS_STALEFS" -w -R "undel -j <$ino_frag> /frag.back" $S/copy.img
"$DEBUGFS_STALEFS" -w -R "undel -j <$ino_small> /small.back" $S/copy.img
"$FSCK_STALEFS" -fn $S/copy.img || fail "fsck after undel -j"
"$DEBUGFS_STALEFS" -R "cat /frag.back" $S/copy.img | cmp - $S/frag || fail "undeleted /frag differs"
"$DEBUGFS_STALEFS" -R "cat /small.back" $S/copy.img | cmp - $S/small || fail "undeleted /small differs"
mount -t stalefs -o loop,ro $S/copy.img $m
cmp $m/frag.back $S/frag || fail "the kernel reads the undeleted /frag differently"
umount $m
