#!/bin/bash
# A/B of two builds of stalefs.ko in one VM boot (bench/vm/ab-run.sh starts
# it), with ext4 and XFS alongside, interleaved round by round so a slow
# spell on the shared host hits every contestant alike.  CASES (from
# ab-run.sh; default "dir rand") picks the groups, each on a fresh
# filesystem per round and contestant:
#   dir    10,000 files in one directory: create, cold stat, cold ls -l,
#          unlink (bench/vm/dirbench.c)
#   rand   5 s of random 4 KiB O_DIRECT writes into a fallocated
#          (unwritten) and into a written 256 MiB file (fio psync)
#   seq    256 MiB sequential buffered write (1 MiB, fsync at the end) and
#          cold read; with the device's request counts and mean sizes
#          (/sys/block/DEV/stat) and the file's extent count (filefrag)
#   fsync  5 s of random 4 KiB buffered writes, fsync after each, into a
#          fallocated and into a written file; with the device writes and
#          flushes per operation
#   conc   4 sequential writers of 64 MiB each at once, fsync at the end;
#          MB/s and the mean extents per file
#   raw    the device itself: 256 MiB cold buffered read (the physical
#          limit of the seq read), once per round
# One line per figure: "R<round> <contestant> <case> <value>".
# needs: stalefs
# needs: ext4 xfs
# disk: bench:2G:full
# timeout: 5400
. "$STALEFS_ROOT/tests/vm/lib.sh"
conf=$STALEFS_BUILD/bench/ab.conf
[[ -f $conf ]] || fail "$conf is missing (bench/vm/ab-run.sh writes it)"
# shellcheck source=/dev/null
. "$conf"	# OLD_KO, NEW_KO, ROUNDS, CASES
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

fio_num() {	# DIRECTION KEY fio-args...: one fio psync run, one figure from its JSON
	local dir=$1 key=$2
	shift 2
	fio --output-format=json --name=r --ioengine=psync --fallocate=none "$@" |
		python3 -c 'import json, sys; j = json.load(sys.stdin)["jobs"]
d, k = sys.argv[1], sys.argv[2]
print(round(sum(x[d][k] for x in j) / (1e6 if k == "bw_bytes" else 1), 1))' "$dir" "$key"
}

iops() {    # fio's write IOPS of random O_DIRECT 4 KiB writes, as a plain number
	fio_num write iops --filename="$1" --size=256m --rw=randwrite --bs=4k \
		--time_based --runtime=5 --randrepeat=1 --direct=1
}

# The device's counters (/sys/block/DEV/stat): reads, read sectors, writes,
# write sectors, flushes, ms busy, ms of requests queued or in flight (their
# ratio is the mean number in flight).  delta BEFORE AFTER FIELD prints one
# difference.
disk=${dev#/dev/}
dstat() { awk '{ print $1, $3, $5, $7, $16, $10, $11 }' "/sys/block/$disk/stat"; }
delta() { awk -v f="$3" -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); print y[f] - x[f] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", b ? a / b : 0 }'; }
extents() { filefrag "$@" | awk '{ n += $(NF - 2); f++ } END { printf "%.1f\n", f ? n / f : 0 }'; }

prep() {    # HOW FILE: a 256 MiB file, fallocated (unwritten) or written with O_DIRECT
	if [[ $1 == unwritten ]]; then fallocate -l 256MiB "$2"
	else xfs_io -f -d -c "pwrite -q -b 1m 0 256m" "$2"; fi
	drop_caches
}

case_dir() {
	local op out
	mkdir $mnt/one
	for op in create stat ls unlink; do
		case $op in
		stat | ls) drop_caches ;;
		esac
		if [[ $op == ls ]]; then out=$("$DB" ls $mnt/one/d0000); else out=$("$DB" $op $mnt/one 1 10000); fi
		echo "R$round $c dir-$op $(sed -n 's/.*"seconds": *\([0-9.]*\).*/\1/p' <<<"$out")"
	done
}

case_rand() {
	local how
	for how in unwritten overwrite; do
		prep $how $mnt/f
		echo "R$round $c rand-direct-$how $(iops $mnt/f)"
		rm -f $mnt/f
		sync
	done
}

case_seq() {
	local a b v
	a=$(dstat)
	v=$(fio_num write bw_bytes --filename=$mnt/seq --size=256m --rw=write --bs=1m --end_fsync=1)
	b=$(dstat)
	echo "R$round $c seq-write-MBps $v"
	echo "R$round $c seq-write-req-KiB $(ratio "$(delta "$a" "$b" 4)" "$(($(delta "$a" "$b" 3) * 2))")"
	echo "R$round $c seq-write-inflight $(ratio "$(delta "$a" "$b" 7)" "$(delta "$a" "$b" 6)")"
	echo "R$round $c seq-write-extents $(extents $mnt/seq)"
	drop_caches
	a=$(dstat)
	v=$(fio_num read bw_bytes --filename=$mnt/seq --size=256m --rw=read --bs=1m)
	b=$(dstat)
	echo "R$round $c seq-read-MBps $v"
	echo "R$round $c seq-read-req-KiB $(ratio "$(delta "$a" "$b" 2)" "$(($(delta "$a" "$b" 1) * 2))")"
	echo "R$round $c seq-read-inflight $(ratio "$(delta "$a" "$b" 7)" "$(delta "$a" "$b" 6)")"
	rm -f $mnt/seq
	sync
}

case_fsync() {
	local how a b v ops
	for how in unwritten overwrite; do
		prep $how $mnt/f
		a=$(dstat)
		v=$(fio --output-format=json --name=r --ioengine=psync --fallocate=none --filename=$mnt/f \
			--size=256m --rw=randwrite --bs=4k --time_based --runtime=5 --randrepeat=1 --fsync=1 |
			python3 -c 'import json, sys; w = json.load(sys.stdin)["jobs"][0]["write"]; print(w["iops"], w["total_ios"])')
		b=$(dstat)
		ops=${v#* }
		echo "R$round $c fsync-$how-IOPS $(printf '%.0f' "${v% *}")"
		echo "R$round $c fsync-$how-writes-per-op $(ratio "$(delta "$a" "$b" 3)" "$ops")"
		echo "R$round $c fsync-$how-flushes-per-op $(ratio "$(delta "$a" "$b" 5)" "$ops")"
		rm -f $mnt/f
		sync
	done
}

case_conc() {
	local v
	v=$(fio_num write bw_bytes --directory=$mnt --numjobs=4 --size=64m --rw=write --bs=1m --end_fsync=1 \
		--group_reporting=0)
	echo "R$round $c conc4-write-MBps $v"
	echo "R$round $c conc4-write-extents $(extents $mnt/r.*)"
	rm -f $mnt/r.*
	sync
}

for ((round = 1; round <= ${ROUNDS:-3}; round++)); do
	if [[ " ${CASES:-dir rand} " == *" raw "* ]]; then
		echo 3 >/proc/sys/vm/drop_caches
		echo "R$round raw seq-read-MBps $(fio_num read bw_bytes --filename="$dev" --size=256m --rw=read --bs=1m)"
	fi
	# Odd rounds old first, even rounds new first: no contestant always
	# runs right after the device's own read or another's writeback.
	order="old new ext4 xfs"
	((round % 2)) || order="xfs ext4 new old"
	for c in $order; do
		for g in ${CASES:-dir rand}; do
			[[ $g == raw ]] && continue
			fresh "$c"
			"case_$g"
			umount $mnt
			if [[ $c == old || $c == new ]]; then fsck_clean "$dev" >/dev/null; fi
		done
	done
done
