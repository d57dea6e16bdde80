#!/bin/bash
# A/B of two builds of stalefs.ko in one VM boot (bench/vm/ab-run.sh starts
# it): the cases where this session's kernel changes were meant to count,
# with ext4 and XFS alongside, interleaved round by round so a slow spell on
# the shared host hits every contestant alike.  Per round and contestant:
# 10,000 files in one directory (create, cold stat, cold ls -l, unlink;
# bench/vm/dirbench.c) and 5 s of random 4 KiB O_DIRECT writes into a
# fallocated (unwritten) and into a written 256 MiB file (fio psync).
# One line per figure: "R<round> <contestant> <case> <value>".
# needs: stalefs
# needs: ext4 xfs
# disk: bench:2G:full
# timeout: 5400
. "$STALEFS_ROOT/tests/vm/lib.sh"
conf=$STALEFS_BUILD/bench/ab.conf
[[ -f $conf ]] || fail "$conf is missing (bench/vm/ab-run.sh writes it)"
# shellcheck source=/dev/null
. "$conf"	# OLD_KO, NEW_KO, ROUNDS
for k in "$OLD_KO" "$NEW_KO"; do [[ -f $k ]] || fail "$k is missing"; done
dev=$VM_DISK_BENCH
mnt=/mnt/ab
DB=$STALEFS_BUILD/dirbench
mkdir -p $mnt

fresh() {   # CONTESTANT: an empty filesystem on the bench disk, mounted
	case $1 in
	old | new)
		rmmod stalefs 2>/dev/null || true
		if [[ $1 == old ]]; then insmod "$OLD_KO"; else insmod "$NEW_KO"; fi
		"$MKFS_STALEFS" -q -F "$dev"
		mount -t stalefs "$dev" $mnt ;;
	ext4) mkfs.ext4 -q -F "$dev" && mount "$dev" $mnt ;;
	xfs) mkfs.xfs -q -f "$dev" && mount "$dev" $mnt ;;
	esac
}

iops() {    # fio's write IOPS as a plain number
	fio --output-format=json --name=r --filename="$1" --size=256m --rw=randwrite --bs=4k \
		--time_based --runtime=5 --randrepeat=1 --direct=1 --ioengine=psync --fallocate=none |
		python3 -c 'import json, sys; print(round(json.load(sys.stdin)["jobs"][0]["write"]["iops"]))'
}

for ((round = 1; round <= ${ROUNDS:-3}; round++)); do
	for c in old new ext4 xfs; do
		fresh $c
		mkdir $mnt/one
		for op in create stat ls unlink; do
			case $op in
			stat | ls) drop_caches ;;
			esac
			if [[ $op == ls ]]; then out=$("$DB" ls $mnt/one/d0000); else out=$("$DB" $op $mnt/one 1 10000); fi
			echo "R$round $c dir-$op $(sed -n 's/.*"seconds": *\([0-9.]*\).*/\1/p' <<<"$out")"
		done
		for how in unwritten overwrite; do
			if [[ $how == unwritten ]]; then fallocate -l 256MiB $mnt/f; else xfs_io -f -d -c "pwrite -q -b 1m 0 256m" $mnt/f; fi
			drop_caches
			echo "R$round $c rand-direct-$how $(iops $mnt/f)"
			rm -f $mnt/f
		done
		umount $mnt
		if [[ $c == old || $c == new ]]; then fsck_clean "$dev" >/dev/null; fi
	done
done
