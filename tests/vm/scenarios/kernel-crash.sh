#!/bin/bash
# stalefs.ko crash safety: a device holding a known pattern, writes in
# flight (buffered, direct, mmap, fallocate then partial writes), then a
# simulated power cut at a random moment (dm-flakey starts dropping every
# write).  After the "reboot" no file may show the old pattern: blocks are
# allocated unwritten and converted only after their data is on disk.
# fsck -fy repairs what a crash without a journal leaves (summaries,
# leaked blocks); the image then checks clean.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
need_module dm-flakey
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
mkdir -p $mnt
sz=$(blockdev --getsz "$dev")
xfs_io -d -c "pwrite -q -S 0xab -b 1m 0 256m" "$dev"
"$MKFS_STALEFS" -q -F -E nodiscard "$dev"	# the pattern stays: it must never read back
dmsetup create crash --table "0 $sz linear $dev 0"
fdev=/dev/mapper/crash

no_pattern_anywhere() {
	python3 - "$mnt" <<'PY'
import os, sys
bad = []
for root, dirs, files in os.walk(sys.argv[1]):
    for f in files:
        p = os.path.join(root, f)
        if os.path.islink(p):
            continue
        with open(p, "rb") as fh:
            if b"\xab" * 64 in fh.read():
                bad.append(p)
if bad:
    print("pattern exposed in:", *bad)
    sys.exit(1)
print("no pattern in", sum(len(f) for _, _, f in os.walk(sys.argv[1])), "files")
PY
}

workload() {	# $1: round
	local d=$mnt/r$1
	mkdir -p $d
	for j in 1 2 3; do
		dd if=/dev/zero bs=64k count=64 status=none | tr '\0' '\021' >$d/buf$j &
	done
	xfs_io -f -c "falloc 0 4m" -c "pwrite -q -S 0x22 100k 300k" -c "pwrite -q -S 0x22 2m 1m" $d/pre &
	xfs_io -f -d -c "pwrite -q -S 0x33 0 2m" $d/direct &
	xfs_io -f -c "truncate 1m" -c "mmap -rw 0 1m" -c "mwrite -S 0x44 0 1m" -c "msync -a 0 1m" $d/mapped &
	xfs_io -f -c "pwrite -q -S 0x55 0 3m" -c "fsync" -c "fzero 1m 1m" -c "pwrite -q -S 0x56 1200k 64k" $d/zeroed &
	sync &
	wait
}

for round in 1 2 3 4 5; do
	note "round $round"
	mount -t stalefs $fdev $mnt
	workload $round &
	wl=$!
	sleep "0.$((RANDOM % 9 + 1))"
	# Power cut: from now on every write is silently dropped.
	dmsetup suspend --nolockfs --noflush crash
	dmsetup load crash --table "0 $sz flakey $dev 0 0 1000 1 drop_writes"
	dmsetup resume crash
	wait $wl || true
	umount $mnt
	# Reboot: the device is what reached it before the cut.
	dmsetup suspend --nolockfs --noflush crash
	dmsetup load crash --table "0 $sz linear $dev 0"
	dmsetup resume crash
	echo 3 >/proc/sys/vm/drop_caches
	rc=0
	"$FSCK_STALEFS" -fy $fdev >$VM_SCRATCH/fsck.$round 2>&1 || rc=$?
	echo "fsck -fy exit $rc"; tail -3 $VM_SCRATCH/fsck.$round
	((rc < 4)) || { cat $VM_SCRATCH/fsck.$round; fail "fsck could not repair after round $round"; }
	mount -t stalefs $fdev $mnt
	no_pattern_anywhere
	umount $mnt
done
dmsetup remove crash
fsck_clean "$dev"
echo "kernel-crash passed"
