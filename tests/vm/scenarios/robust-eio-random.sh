#!/bin/bash
# Device errors at random (issue 8, part 3; robust-eio covers each kind once,
# by hand).  Each round puts a populated image (the robust base image) on
# device-mapper, records the checksums of every file outside work/, then
# runs walk-fs on work/ (reads, writes, fallocate, punch, truncate, create,
# rename, link, unlink, syncfs) while the device fails, in a way the round's
# seed picks: error regions (metadata or data, from the start or switched on
# mid-walk), dm-flakey failing all I/O or only writes for seconds at a time,
# the whole device failing mid-walk; under errors=continue or remount-ro.
# Every failure must reach walk-fs as an errno a fault explains (EIO, EROFS,
# ...); then, with the device whole again: umount works, no kernel splat,
# fsck -fy repairs what the failed writes left and -fn is clean, and every
# file outside work/ reads back exactly as before.
# EIO_ROUNDS rounds (default 4) from seed EIO_SEED (default 1); the soak
# (tests/vm/soak/robust-eio-soak.sh) runs hundreds.
# needs: stalefs
# needs: dm-flakey
# disk: scratch:64M
# timeout: 900
. "$STALEFS_ROOT/tests/vm/lib.sh"
rounds=${EIO_ROUNDS:-4}
first=${EIO_SEED:-1}
walk=${WALK_FS:-$STALEFS_BUILD/walk-fs}
[[ -x $walk ]] || fail "$walk is missing (run make first)"
dev=$VM_DISK_SCRATCH
dm=/dev/mapper/stalefs-eio
mnt=/mnt/r
mkdir -p $mnt
need_module dm-mod
declare -A base
for bs in 1024 4096; do
	base[$bs]=$STALEFS_BUILD/robust/base-$bs.img
	if [[ ! -s ${base[$bs]} ]]; then
		base[$bs]=$VM_SCRATCH/base-$bs.img
		STALEFS_BUILD=$STALEFS_BUILD "$STALEFS_ROOT/tests/robust/make-base-image" "${base[$bs]}" "$bs"
	fi
done

table() {   # swap the device's table; --nolockfs: no freeze on a failing device
	dmsetup suspend --nolockfs stalefs-eio
	dmsetup load stalefs-eio --table "$1"
	dmsetup resume stalefs-eio
}

# error_regions SECTORS N: a table with N error regions, the first within
# the image's first 64 KiB (superblock, descriptors, bitmaps, inode tables
# lie there), the others anywhere; each 1 to 64 KiB long.
error_regions() {
	local sectors=$1 n=$2 i s len starts=() t='' pos=0
	for ((i = 0; i < n; i++)); do
		if ((i == 0)); then s=$((RANDOM % 128)); else s=$(((RANDOM * 32768 + RANDOM) % sectors)); fi
		len=$((2 + RANDOM % 127))
		((s + len > sectors)) && len=$((sectors - s))
		starts+=("$s:$len")
	done
	# Sorted and merged, so the table has no overlaps.
	while IFS=: read -r s len; do
		((s < pos)) && { len=$((len - (pos - s))); s=$pos; }
		((len > 0)) || continue
		((s > pos)) && t+="$pos $((s - pos)) linear $dev $pos"$'\n'
		t+="$s $len error"$'\n'
		pos=$((s + len))
	done < <(printf '%s\n' "${starts[@]}" | sort -t: -k1,1n)
	((pos < sectors)) && t+="$pos $((sectors - pos)) linear $dev $pos"$'\n'
	printf '%s' "$t"
}

dmesg -C
declare -A kinds
for ((seed = first; seed < first + rounds; seed++)); do
	RANDOM=$seed
	bs=$((seed % 2 ? 1024 : 4096))
	cat "${base[$bs]}" >"$dev"
	sectors=$(($(stat -c %s "${base[$bs]}") / 512))
	linear="0 $sectors linear $dev 0"
	dmsetup create stalefs-eio --table "$linear"
	errors=continue
	((RANDOM % 2)) && errors=remount-ro

	# The files the workload never touches, and work/ for it to change.
	mount -t stalefs "$dm" $mnt
	mkdir $mnt/work
	cp -a $mnt/data $mnt/many $mnt/frag $mnt/unwritten $mnt/work/
	sync
	sums=$(cd $mnt && find . -path ./work -prune -o -type f -print | sort | xargs -d '\n' md5sum)
	umount $mnt

	kind=$((RANDOM % 5))
	mid=
	case $kind in
	0) desc="error regions"; fault=$(error_regions "$sectors" $((1 + RANDOM % 3))) ;;
	1) up=$((1 + RANDOM % 3)) down=$((1 + RANDOM % 2))
	   desc="flakey all I/O (up ${up}s, down ${down}s)"; fault="0 $sectors flakey $dev 0 $up $down" ;;
	2) up=$((1 + RANDOM % 3)) down=$((1 + RANDOM % 2))
	   desc="flakey writes (up ${up}s, down ${down}s)"; fault="0 $sectors flakey $dev 0 $up $down 1 error_writes" ;;
	3) desc="error regions mid-walk"; fault=$(error_regions "$sectors" $((1 + RANDOM % 4))); mid=1 ;;
	4) desc="whole device fails mid-walk"; fault="0 $sectors error"; mid=1 ;;
	esac
	kinds[$kind]=$((${kinds[$kind]:-0} + 1))
	echo "seed $seed: $bs-byte blocks, errors=$errors, $desc"

	mount -t stalefs -o errors=$errors "$dm" $mnt
	echo 3 >/proc/sys/vm/drop_caches   # (no sync: it would flush on the faulty table)
	rc=0
	if [[ -z $mid ]]; then
		table "$fault"
		"$walk" $mnt/work || rc=$?
	else
		"$walk" $mnt/work &
		pid=$!
		sleep "0.$((RANDOM % 10))"
		table "$fault"
		wait $pid || rc=$?
	fi
	((rc == 0)) || fail "seed $seed ($desc): walk-fs exited $rc"
	table "$linear"
	umount $mnt || fail "seed $seed ($desc): umount failed"
	dmesg -c >"$VM_SCRATCH/kmsg"
	if grep -Eq "$splat_re" "$VM_SCRATCH/kmsg"; then
		cat "$VM_SCRATCH/kmsg"
		fail "seed $seed ($desc): kernel splat"
	fi
	# A failed write-back is still recorded against the device; take it
	# here, so fsck's own first fsync is not blamed for it.
	sync "$dm" 2>/dev/null || true
	rc=0
	"$FSCK_STALEFS" -fy "$dm" >"$VM_SCRATCH/fsck.out" 2>&1 || rc=$?
	((rc <= 3)) || { cat "$VM_SCRATCH/fsck.out"; fail "seed $seed ($desc): fsck -fy exited $rc"; }
	if ((rc)); then
		echo "seed $seed: fsck -fy repaired (exit $rc):"
		while IFS= read -r line; do echo "  $line"; done <"$VM_SCRATCH/fsck.out"
	fi
	rc=0
	"$FSCK_STALEFS" -fn "$dm" >"$VM_SCRATCH/fsck.out" 2>&1 || rc=$?
	((rc == 0)) || { cat "$VM_SCRATCH/fsck.out"; fail "seed $seed ($desc): fsck -fn after -fy exited $rc"; }
	mount -t stalefs "$dm" $mnt
	now=$(cd $mnt && find . -path ./work -prune -o -type f -print | sort | xargs -d '\n' md5sum)
	[[ $now == "$sums" ]] || { diff <(echo "$sums") <(echo "$now") || true; fail "seed $seed ($desc): files outside work/ changed"; }
	umount $mnt
	dmsetup remove stalefs-eio
done
note "robust-eio-random: $rounds rounds (seeds $first..$((first + rounds - 1))):" \
	"error regions ${kinds[0]:-0}, flakey all I/O ${kinds[1]:-0}, flakey writes ${kinds[2]:-0}," \
	"regions mid-walk ${kinds[3]:-0}, device mid-walk ${kinds[4]:-0}; old files intact after each"
