#!/bin/bash
# What fsync promises is on the device when it returns, whatever the flusher
# did first.  The flusher's inode write (WB_SYNC_NONE) copies the inode into
# its table buffer and clears the inode's dirty bits without writing the
# buffer; an fsync that trusted those bits alone left the new size and extent
# root in memory.  Writeback runs often here (every 0.3 s, expiring after
# 0.2 s, so a pass copies an inode and the next writes its table block) and
# each fsync/fdatasync lands at a seeded random moment after a change; then
# the disk is copied with O_DIRECT -- the bytes a power cut would keep
# (cache flushed by fsync) --, its journal replayed as the next mount would
# (debugfs journal_run), and debugfs on the copy must show the file exactly.  The filesystem sits on dm-linear over the disk: an O_DIRECT read
# of the device it is mounted on would first write back its dirty buffers
# and hide the very bug this looks for.  Size and extent changes alone (truncate, fallocate), buffered
# appends, O_DIRECT writes into unwritten extents; fsync and fdatasync.  Last,
# an inode read again from the disk: its fsync commits and flushes.
# needs: stalefs
# disk: scratch:16M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
size_mb=16	# the filesystem's size, not the disk's: a run's disks are its largest
dm=/dev/mapper/stalefs-durable
mnt=/mnt/s
S=$VM_SCRATCH
ROUNDS=${FSYNC_DURABLE_ROUNDS:-16}
RANDOM=${FSYNC_DURABLE_SEED:-7}

need_module dm-mod
"$MKFS_STALEFS" -q -F "$dev" ${size_mb}M
dmsetup create stalefs-durable --table "0 $((size_mb * 2048)) linear $dev 0"
mkdir -p $mnt
mount -t stalefs $dm $mnt
old_expire=$(cat /proc/sys/vm/dirty_expire_centisecs)
old_every=$(cat /proc/sys/vm/dirty_writeback_centisecs)
restore() {
	echo "$old_expire" >/proc/sys/vm/dirty_expire_centisecs
	echo "$old_every" >/proc/sys/vm/dirty_writeback_centisecs
	umount $mnt 2>/dev/null || true
	dmsetup remove stalefs-durable 2>/dev/null || true
}
trap restore EXIT
echo 20 >/proc/sys/vm/dirty_expire_centisecs
echo 30 >/proc/sys/vm/dirty_writeback_centisecs

# durable_copy: the device's bytes in $S/copy.img, its journal replayed.
durable_copy() {
	dd if="$dev" of=$S/copy.img bs=1M count=$size_mb iflag=direct status=none
	"$DEBUGFS_STALEFS" -w -R "journal_run" $S/copy.img >$S/jr.out 2>&1 ||
		fail "the copy's journal does not replay: $(cat $S/jr.out)"
}

# on_device FILE EXPECT WHAT: the device's durable bytes hold FILE == EXPECT.
on_device() {
	durable_copy
	"$DEBUGFS_STALEFS" -R "dump /$1 $S/ondisk" $S/copy.img 2>$S/dbg.err ||
		fail "$3: debugfs cannot dump /$1 from the disk's copy: $(cat $S/dbg.err)"
	cmp -s "$2" $S/ondisk ||
		fail "$3: /$1 on the disk is $(stat -c %s $S/ondisk) bytes, not its $(stat -c %s "$2") fsynced ones$(cmp "$2" $S/ondisk 2>&1 | sed 's/^/: /')"
}

pause() {	# a seeded 0-0.69 s: some syncs come between two flusher passes
	sleep "0.$(printf '%02d' $((RANDOM % 70)))"
}

# The widest window: the flusher passes every 2 s and writes what has been
# dirty for 1 s, so a pass copies the inode into a table block it made
# dirty just now, which waits for the next pass.
note "the inode alone (chmod), each followed after a pause by fsync, the flusher every 2 s"
echo 100 >/proc/sys/vm/dirty_expire_centisecs
echo 200 >/proc/sys/vm/dirty_writeback_centisecs
touch $mnt/mode
sync
for ((i = 0; i < ROUNDS / 2; i++)); do
	mode=$((RANDOM % 512))
	chmod $(printf '%o' $mode) $mnt/mode
	sleep "$((RANDOM % 4)).$((RANDOM % 10))"
	xfs_io -r -c fsync $mnt/mode
	durable_copy
	got=$("$DEBUGFS_STALEFS" -R "stat /mode" $S/copy.img 2>/dev/null | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p')
	[[ -n $got ]] && ((8#$got == mode)) ||
		fail "chmod $(printf '%o' $mode) then fsync: the disk holds mode '$got'"
done
echo 20 >/proc/sys/vm/dirty_expire_centisecs
echo 30 >/proc/sys/vm/dirty_writeback_centisecs

note "size and extent changes alone (truncate, fallocate), each followed after a pause by fsync or fdatasync"
: >$S/meta.expect
touch $mnt/meta
for ((i = 0; i < ROUNDS; i++)); do
	sync_cmd=fsync; ((i % 2)) && sync_cmd=fdatasync
	size=$((RANDOM * 7))
	if ((i % 3 == 2)); then
		xfs_io -c "falloc 0 $size" $mnt/meta
		((size > $(stat -c %s $S/meta.expect))) && truncate -s $size $S/meta.expect
	else
		xfs_io -c "truncate $size" $mnt/meta
		truncate -s $size $S/meta.expect
	fi
	pause
	xfs_io -c $sync_cmd $mnt/meta
	on_device meta $S/meta.expect "size change $i then $sync_cmd"
done

note "buffered appends, each followed after a pause by fsync or fdatasync"
: >$S/app.expect
touch $mnt/app
for ((i = 0; i < ROUNDS; i++)); do
	sync_cmd=fsync; ((i % 2)) && sync_cmd=fdatasync
	len=$((1000 + RANDOM % 9000))
	head -c $len /dev/urandom >$S/chunk
	cat $S/chunk >>$S/app.expect
	xfs_io -c "pwrite -q -i $S/chunk $(stat -c %s $mnt/app) $len" $mnt/app
	pause
	xfs_io -c $sync_cmd $mnt/app
	on_device app $S/app.expect "append $i then $sync_cmd"
done

note "O_DIRECT writes into a preallocated file, each followed after a pause by fsync or fdatasync"
xfs_io -f -c "falloc 0 1m" $mnt/pre
xfs_io -c fsync $mnt/pre
head -c $((1 << 20)) /dev/zero >$S/pre.expect
for ((i = 0; i < ROUNDS; i++)); do
	sync_cmd=fdatasync; ((i % 2)) && sync_cmd=fsync
	blk=$((RANDOM % 256))
	head -c 4096 /dev/urandom >$S/chunk
	dd if=$S/chunk of=$S/pre.expect bs=4096 seek=$blk conv=notrunc status=none
	xfs_io -d -c "pwrite -q -i $S/chunk $((blk * 4096)) 4096" $mnt/pre
	pause
	xfs_io -c $sync_cmd $mnt/pre
	on_device pre $S/pre.expect "O_DIRECT block $blk then $sync_cmd"
done

umount $mnt
dmsetup remove stalefs-durable
fsck_clean "$dev"

# jbd2 compares transaction ids modulo 2^32, and mkfs starts the journal at
# a random sequence.  An inode read from the disk once had tid 0, which for
# a sequence with its top bit set names a transaction "in the future":
# fsync then neither committed what the evicted inode had left in the
# running transaction nor flushed the cache after an overwrite.  A
# filesystem with such a sequence makes the check below deterministic.
note "an inode read again from the disk: fsync commits what it left in the running transaction, fdatasync of an overwrite flushes the cache"
for ((try = 0; try < 40; try++)); do
	"$MKFS_STALEFS" -q -F "$dev" ${size_mb}M
	seq=$("$DEBUGFS_STALEFS" -R stats "$dev" 2>/dev/null | sed -n 's/^Journal sequence: *0x\([0-9a-f]*\).*/\1/p')
	[[ -n $seq ]] || fail "debugfs stats shows no journal sequence"
	((0x$seq >= 0x80000000)) && break
done
((0x$seq >= 0x80000000)) || fail "40 runs of mkfs gave no journal sequence with its top bit set"
dmsetup create stalefs-durable --table "0 $((size_mb * 2048)) linear $dev 0"
# commit=600: only fsync commits here.
mount -t stalefs -o commit=600 $dm $mnt
xfs_io -f -c "pwrite -q -S 0x11 0 64k" -c fsync $mnt/ev
for mode in 640 604 600 644; do
	chmod $mode $mnt/ev
	sleep 1				# the flusher (every 0.3 s) cleans the inode;
	echo 3 >/proc/sys/vm/drop_caches	# without its pages it leaves memory (no sync!)
	xfs_io -r -c fsync $mnt/ev
	durable_copy
	got=$("$DEBUGFS_STALEFS" -R "stat /ev" $S/copy.img 2>/dev/null | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p')
	[[ -n $got ]] && ((8#$got == 8#$mode)) ||
		fail "chmod $mode, inode evicted, fsync: the disk holds mode '$got'"
done
flushes() { awk -v d="${dev#/dev/}" '$3 == d { print $19 }' /proc/diskstats; }
sync
echo 3 >/proc/sys/vm/drop_caches
before=$(flushes)
xfs_io -c "pwrite -q -S 0x22 0 4k" -c fdatasync $mnt/ev
after=$(flushes)
((after > before)) || fail "fdatasync of an overwrite sent no cache flush to the device ($before, then $after flushes)"
{ head -c 4096 /dev/zero | tr '\0' '\042'; head -c $((60 * 1024)) /dev/zero | tr '\0' '\021'; } >$S/ev.expect
on_device ev $S/ev.expect "overwrite then fdatasync"
umount $mnt
dmsetup remove stalefs-durable
fsck_clean "$dev"
