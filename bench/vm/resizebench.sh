#!/bin/bash
# VM benchmark of issue 27, stalefs and ext4 side by side in one boot:
#  - fstrim of a 4 GiB filesystem whose free space is 100,000 one-block
#    extents (bench/vm/holes.c) and the rest: the first FITRIM after mount;
#  - an online grow of 1 GiB to 1 TiB on a loop device over a sparse file:
#    resize.stalefs against resize2fs, each while mounted.
# Run by bench/vm/resize-run.sh (bench/vm/resize-report.py turns the raw
# figures into bench/RESULTS.md).  Every stalefs run ends with a clean fsck,
# every ext4 run with a clean e2fsck, so no figure comes from a broken setup.
# Nothing here asserts a timing.
# needs: stalefs
# needs: ext4
# disk: trim:4G
# timeout: 7200
. "$STALEFS_ROOT/tests/vm/lib.sh"
REPS=3
EXTENTS=100000
conf=$STALEFS_BUILD/bench/resizebench.conf
# shellcheck source=/dev/null
[[ -f $conf ]] && . "$conf"
HOLES=$STALEFS_BUILD/holes
RESIZE=$STALEFS_BUILD/resize.stalefs
for t in "$HOLES" "$RESIZE" "$MKFS_STALEFS" "$FSCK_STALEFS"; do
	[[ -x $t ]] || fail "$t is missing (make programs)"
done
for t in fstrim resize2fs mkfs.ext4 e2fsck losetup; do
	command -v $t >/dev/null || fail "$t is missing"
done
dev=$VM_DISK_TRIM
mnt=/mnt/rb
mkdir -p $mnt
raw=$VM_RESULTS/resize.jsonl
: >"$raw"
{
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	echo "e2fsprogs $(resize2fs 2>&1 | head -1)"
	echo "discard_granularity $(cat /sys/block/"${dev#/dev/}"/queue/discard_granularity)"
} >"$VM_RESULTS/info.txt"

# now: seconds since the epoch with nanoseconds.
now() { date +%s.%N; }
record() {	# BENCH FS SECONDS [KEY=VALUE]...
	local b=$1 fs=$2 t=$3 kv extra=""
	shift 3
	for kv in "$@"; do extra+=",\"${kv%%=*}\":${kv#*=}"; done
	# %.6f: bc prints ".5" for 0.5, which JSON does not take.
	printf '{"bench":"%s","fs":"%s","seconds":%.6f%s}\n' "$b" "$fs" "$t" "$extra" >>"$raw"
}

mkfs_on() {	# FS DEV
	case $1 in
	stalefs) "$MKFS_STALEFS" -q -F -E nodiscard "$2" ;;
	ext4) mkfs.ext4 -q -F -E nodiscard "$2" ;;
	esac
}
mount_on() {	# FS DEV
	case $1 in
	stalefs) mount -t stalefs "$2" $mnt ;;
	ext4) mount -t ext4 "$2" $mnt ;;
	esac
}
check_on() {	# FS DEV
	case $1 in
	stalefs) fsck_clean "$2" ;;
	ext4) e2fsck -fn "$2" >/dev/null || fail "e2fsck -fn $2 is not clean" ;;
	esac
}

for ((r = 1; r <= REPS; r++)); do
	for fs in stalefs ext4; do
		note "fstrim, $fs, run $r: $EXTENTS one-block free extents"
		blkdiscard -f "$dev"	# -f: it refuses a device holding a known file system
		mkfs_on $fs "$dev"
		mount_on $fs "$dev"
		"$HOLES" $mnt/holes $EXTENTS 4096
		sync
		umount $mnt
		mount_on $fs "$dev"	# the first FITRIM after mount trims every free extent
		t0=$(now)
		out=$(fstrim -v $mnt)
		t1=$(now)
		bytes=$(sed -n 's/.*(\([0-9]*\) bytes) trimmed.*/\1/p' <<<"$out")
		echo "$out"
		umount $mnt
		check_on $fs "$dev"
		record fstrim $fs "$(echo "$t1 - $t0" | bc)" "bytes=${bytes:-0}" "extents=$EXTENTS"
	done
done

img=$VM_SCRATCH/grow.img
for ((r = 1; r <= REPS; r++)); do
	for fs in stalefs ext4; do
		note "online grow 1 GiB -> 1 TiB, $fs, run $r"
		rm -f "$img"
		truncate -s 1G "$img"
		loop=$(losetup -f --show "$img")
		mkfs_on $fs "$loop"
		mount_on $fs "$loop"
		truncate -s 1T "$img"
		losetup -c "$loop"
		t0=$(now)
		case $fs in
		stalefs) "$RESIZE" "$loop" >$VM_SCRATCH/grow.out 2>&1 ;;
		ext4) resize2fs "$loop" >$VM_SCRATCH/grow.out 2>&1 ;;
		esac || { cat $VM_SCRATCH/grow.out; fail "$fs grow failed"; }
		t1=$(now)
		blocks=$(stat -f -c %b $mnt)
		umount $mnt
		check_on $fs "$loop"
		losetup -d "$loop"
		rm -f "$img"
		record grow $fs "$(echo "$t1 - $t0" | bc)" "f_blocks=$blocks"
	done
done
cat "$raw"
