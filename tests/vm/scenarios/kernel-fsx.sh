#!/bin/bash
# stalefs.ko under our random exerciser (tests/vm/fsx.c): seeded runs of
# buffered, direct and mmap I/O, truncate, fallocate, punch and zero range,
# checked against an in-memory model; each result compared again after
# drop_caches and after a remount.  FSX_OPS (default 3000) and FSX_SEEDS
# set the size; tests/vm/soak/kernel-fsx-soak.sh runs a bigger one.
# needs: stalefs
# disk: scratch:512M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
S=$VM_SCRATCH
FSX=$STALEFS_BUILD/fsx
ops=${FSX_OPS:-3000}
seeds=${FSX_SEEDS:-"1 2 3"}
mkdir -p $mnt
total=0

for bs in 4096 1024; do
	note "block size $bs: $ops operations per seed, seeds $seeds"
	xfs_io -d -c "pwrite -q -S 0xab -b 1m 0 64m" "$dev"
	"$MKFS_STALEFS" -q -F -E nodiscard -b $bs "$dev"	# the pattern stays: it must never read back
	mount -t stalefs "$dev" $mnt
	for seed in $seeds; do
		"$FSX" -N "$ops" -S "$seed" -l $((2 << 20)) -D -M -O $S/model.$seed $mnt/fsx.$seed
		total=$((total + ops))
		cmp $S/model.$seed $mnt/fsx.$seed
	done
	# a small maxlen makes many tiny extents: deep trees, splits, merges
	"$FSX" -N "$ops" -S 99 -l 65536 -M -O $S/model.small $mnt/fsx.small
	total=$((total + ops))
	drop_caches
	for seed in $seeds small; do cmp $S/model.$seed $mnt/fsx.$seed; done
	umount $mnt
	mount -t stalefs "$dev" $mnt
	for seed in $seeds small; do
		cmp $S/model.$seed $mnt/fsx.$seed
		python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(1 if b"\xab" * 64 in d else 0)' \
			$mnt/fsx.$seed || fail "fsx.$seed shows the device's old pattern"
	done
	filefrag $mnt/fsx.*
	umount $mnt
	fsck_clean "$dev"
done
echo "kernel-fsx passed: $total operations"
