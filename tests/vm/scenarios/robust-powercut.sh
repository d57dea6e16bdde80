#!/bin/bash
# Power cuts (issue 8 part 2): record every block write of a workload with
# dm-log-writes, replay it to many cut points (flushes/FUAs and seeded
# random points between), and at each: fsck -fy repairs, a second fsck is
# clean, every file whose fsync returned before the cut holds exactly what
# it held then, and no file reads the device's fill pattern unless it was
# allocated with NO_HIDE_STALE.  tests/robust/README.md says how.
# Knobs (the soak sets them): PC_ROUNDS workloads, each cut after every
# mark, at up to PC_FLUSH_MAX flush/FUA points and PC_RANDOM random
# points; PC_SEED; PC_MIN_POINTS.
# needs: stalefs
# needs: dm-log-writes
# disk: pcdata:32M:1q
# disk: pclog:1G
# timeout: 900
. "$STALEFS_ROOT/tests/vm/lib.sh"
ROUNDS=${PC_ROUNDS:-1}
FLUSH_MAX=${PC_FLUSH_MAX:-8}
RANDOM_POINTS=${PC_RANDOM:-4}
SEED=${PC_SEED:-1}
MIN_POINTS=${PC_MIN_POINTS:-1}
REPLAY=$STALEFS_BUILD/replay-log
CHECK=$STALEFS_BUILD/powercut-check
FALLOC=$STALEFS_BUILD/stalefs-falloc
for t in "$REPLAY" "$CHECK" "$FALLOC"; do
	[[ -x $t ]] || fail "$t is missing (run make first)"
done
G=4242
data=$VM_DISK_PCDATA
log=$VM_DISK_PCLOG
m=/mnt/pc
chk=/mnt/pcchk
mkdir -p $m $chk
W=$VM_SCRATCH
sz=$(blockdev --getsz "$data")
bytes=$(blockdev --getsize64 "$data")
repairs=$VM_RESULTS/fsck-repairs.txt
: >"$repairs"
total_points=0 repaired_points=0 failed_points=0

# cut_failed ROUND CUT WHY: keep the replayed image, go on with the next
# cut (so one run gives every failure), fail at the end.
cut_failed() {
	failed_points=$((failed_points + 1))
	cp "$W/state.img" "$VM_RESULTS/cut-$1-$2.img"
	echo "FAILED: round $1 cut $2: $3" | tee -a "$VM_RESULTS/failures.txt"
}

# ---- the workload, with a mark after each promise and before each change ----
ev=0
mark() {
	ev=$((ev + 1))
	dmsetup message pc 0 mark "e$ev"
}
# durable PATH...: their fsync (or syncfs) has returned: save what they
# hold now and mark it.  Directories up to the root were fsynced too.
durable() {
	mark
	local p copy
	for p in "$@"; do
		copy=$W/exp/$ev.${p//\//_}
		cp "$m/$p" "$copy"
		echo "$ev sync $p $copy" >>"$W/events"
	done
}
touch_ev() { mark; echo "$ev touch $1" >>"$W/events"; }
gone_ev() { mark; echo "$ev gone $1" >>"$W/events"; }

workload() {
	# The NO_HIDE_STALE file first, so its inode number was nobody's before.
	: >$m/stale
	chgrp $G $m/stale
	chmod 0660 $m/stale
	"$FALLOC" --no-hide-stale -o 0 -l 1M $m/stale
	echo "0 stale-ino $(stat -c %i $m/stale)" >>"$W/events"
	xfs_io -c "pwrite -q -S 0x61 256k 64k" -c fsync $m/stale
	sync $m
	durable stale

	xfs_io -f -c "pwrite -q -S 0x11 0 256k" -c fsync $m/a
	xfs_io -f -c "pwrite -q -S 0x12 0 200k" -c fdatasync $m/b
	sync $m
	durable a b

	mkdir $m/d1 $m/d2
	xfs_io -f -c "falloc 0 1m" -c "pwrite -q -S 0x13 300k 64k" -c fsync $m/d1/c
	sync $m/d1 $m
	durable d1/c

	touch_ev a
	xfs_io -c "fpunch 64k 64k" -c fsync $m/a
	durable a

	touch_ev b
	xfs_io -c "truncate 100k" -c "pwrite -q -S 0x14 150k 10k" -c fsync $m/b
	durable b

	xfs_io -f -c "pwrite -q -S 0x15 0 128k" -c fsync $m/e
	sync $m
	durable e
	touch_ev e
	xfs_io -c "pwrite -q -S 0x16 32k 32k" -c "fzero 96k 16k" -c fdatasync $m/e
	durable e

	touch_ev d1/c
	mv $m/d1/c $m/d2/c2
	sync $m/d2/c2 $m/d2 $m/d1
	durable d2/c2
	gone_ev d1/c

	touch_ev a
	rm $m/a
	sync $m
	gone_ev a

	# Files made durable by syncfs rather than fsync.
	mkdir $m/d3
	for i in 1 2 3 4 5 6; do
		xfs_io -f -c "pwrite -q -S 0x2$i 0 $((i * 12))k" $m/d3/f$i
	done
	sync -f $m
	durable d3/f1 d3/f2 d3/f3 d3/f4 d3/f5 d3/f6

	# Writing into the stale region needs no conversion.
	touch_ev stale
	xfs_io -c "pwrite -q -S 0x62 700k 8k" -c fsync $m/stale
	durable stale

	# Work in flight at unmount (no promises, but never the pattern):
	# buffered, direct, preallocated and partly written, extended.
	xfs_io -f -c "pwrite -q -S 0x31 0 3m" $m/g &
	xfs_io -f -d -c "pwrite -q -S 0x32 0 1m" $m/h &
	xfs_io -f -c "falloc 0 2m" -c "pwrite -q -S 0x33 512k 128k" -c "pwrite -q -S 0x33 1900k 4k" $m/d2/i &
	touch_ev d3/f2
	xfs_io -c "pwrite -q -S 0x34 8k 40k" -c "truncate 10k" $m/d3/f2 &
	wait
	touch_ev b
	xfs_io -c "pwrite -q -S 0x35 0 300k" -c fsync $m/b
	durable b
}

# ---- one round: record, then replay to every chosen cut point ----
round() {	# $1: round number
	local r=$1
	note "round $r: fill, mkfs, record the workload"
	rm -rf "$W/exp" "$W/events"
	mkdir -p "$W/exp"
	: >"$W/events"
	ev=0
	"$CHECK" fill "$data"
	"$CHECK" fill "$W/state.img" "$bytes"
	dmsetup create pc --table "0 $sz log-writes $data $log"
	"$MKFS_STALEFS" -q -F -b 4096 -G $G -E nodiscard /dev/mapper/pc	# the fill pattern stays
	mark			# e1: the file system exists; no promises yet
	mount -t stalefs -o nohide_stale_gid=$G /dev/mapper/pc $m
	workload
	umount $m
	mark
	local end_mark=$ev
	dmsetup remove pc
	"$REPLAY" list "$log" >"$W/entries"
	local n start
	n=$(wc -l <"$W/entries")
	start=$(awk '$5 == "e1" { print $1 + 1 }' "$W/entries")
	[[ -n $start ]] || fail "mark e1 is not in the log"
	awk -v s="$start" '$1 >= s && $2 ~ /[FU]/' "$W/entries" >"$W/flushes"
	note "log: $n entries, $(wc -l <"$W/flushes") flush/FUA after mkfs, $(grep -c ' W' "$W/entries") writes, $end_mark marks"

	# Cut points: entries [0, E) reach the disk.  Right after every mark
	# (the moment an fsync or syncfs returned: anything it left in a
	# volatile cache is lost there), every flush/FUA (evenly thinned to
	# FLUSH_MAX), seeded random points, and the whole log.
	RANDOM=$((SEED * 1000 + r))
	{
		awk -v s="$start" '$1 >= s && $2 == "M" { print $1 + 1 }' "$W/entries"
		awk -v max="$FLUSH_MAX" '{ f[NR] = $1 + 1 } END {
			step = NR > max ? NR / max : 1
			for (i = 1; i <= NR; i += step) print f[int(i)] }' "$W/flushes"
		for ((i = 0; i < RANDOM_POINTS; i++)); do
			echo $((start + (RANDOM * 32768 + RANDOM) % (n - start + 1)))
		done
		echo "$n"
	} | sort -n -u >"$W/cuts"
	# For each cut, the last mark it includes (the events it promises).
	awk 'NR == FNR { if ($5 ~ /^e[0-9]+$/) { mk[$1] = substr($5, 2) } next }
	     { while (i < $1) { if (i in mk) last = mk[i]; i++ } print $1, last + 0 }' \
		"$W/entries" "$W/cuts" >"$W/cutplan"

	local prev=0 E upto rc fyrc
	while read -r E upto <&3; do
		"$REPLAY" replay "$log" "$W/state.img" $prev "$E"
		prev=$E
		total_points=$((total_points + 1))
		cp "$W/state.img" "$W/check.img"
		if ((E == n)); then
			# After a clean unmount nothing may need repair.
			rc=0
			"$FSCK_STALEFS" -fn "$W/check.img" >"$W/fsck.out" 2>&1 || rc=$?
			if ((rc != 0)); then
				cat "$W/fsck.out"
				cut_failed "$r" "$E" "the image after a clean umount is not clean (fsck -fn exit $rc)"
				continue
			fi
		fi
		rc=0
		"$FSCK_STALEFS" -fy "$W/check.img" >"$W/fsck.out" 2>&1 || rc=$?
		if ((rc >= 4)); then
			cat "$W/fsck.out"
			cut_failed "$r" "$E" "fsck -fy could not repair (exit $rc)"
			continue
		fi
		fyrc=$rc
		if ((rc != 0)); then
			repaired_points=$((repaired_points + 1))
			{ echo "== round $r cut $E/$n (events <= $upto), fsck -fy exit $rc"; cat "$W/fsck.out"; } >>"$repairs"
		fi
		# A second run must be clean (after a clean first run it is the same check).
		rc=0
		((fyrc == 0)) || "$FSCK_STALEFS" -fn "$W/check.img" >"$W/fsck2.out" 2>&1 || rc=$?
		if ((rc != 0)); then
			cat "$W/fsck.out" "$W/fsck2.out"
			cut_failed "$r" "$E" "second fsck not clean (exit $rc)"
			continue
		fi
		if ! mount -t stalefs -o ro,loop "$W/check.img" $chk; then
			cut_failed "$r" "$E" "the repaired image does not mount"
			continue
		fi
		rc=0
		"$CHECK" verify $chk "$W/events" "$upto" >"$W/verify.out" 2>&1 || rc=$?
		umount $chk
		if ((rc != 0)); then
			cat "$W/fsck.out" "$W/verify.out"
			cut_failed "$r" "$E" "(events <= $upto): $(tail -1 "$W/verify.out")"
			continue
		fi
		echo "cut $E/$n events<=$upto fsck -fy exit $fyrc; $(tail -1 "$W/verify.out")"
	done 3<"$W/cutplan"
}

for ((round_no = 1; round_no <= ROUNDS; round_no++)); do
	round $round_no
done
# What fsck had to repair, by kind (numbers blanked), for the report.
grep -B1 -E '\? yes$' "$repairs" | grep -v -E '\? yes$|^--$' | sed -E 's/[0-9]+/N/g' |
	sort | uniq -c | sort -rn >"$VM_RESULTS/repair-kinds.txt" || true
note "$total_points cut points replayed over $ROUNDS round(s), $repaired_points needed fsck repairs, $failed_points failed"
cat "$VM_RESULTS/repair-kinds.txt"
((failed_points == 0)) || fail "$failed_points of $total_points cut points failed: $(cat "$VM_RESULTS/failures.txt")"
((total_points >= MIN_POINTS)) || fail "only $total_points cut points (want $MIN_POINTS)"
echo "robust-powercut passed: $total_points cut points"
