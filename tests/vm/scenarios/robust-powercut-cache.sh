#!/bin/bash
# Power cuts with a volatile write cache (issue 13 part 5): record each
# workload once with dm-log-writes, then at many cut points build the disk
# a power cut leaves when the device's cache loses an arbitrary subset of
# the writes since the last flush (cache-cut; FUA writes and everything
# before the last flush survive).  At every cut, on a disk first covered
# with the fill pattern: the mount succeeds (journal replay is the
# kernel's job), every fsync'd file holds what it held, durable unlinks
# and renames stay done, no file reads the fill pattern (NO_HIDE_STALE
# inodes excepted) nor any data it was not given, the kernel logs no
# error (level err or worse) nor splat, and after umount fsck -fn exits 0
# (no repair).  tests/robust/README.md
# says how, and how to reproduce one cut.
# PCC_FS=ext4 runs the same workloads and checks on ext4, the reference
# (robust-powercut-cache-ext4.sh), without the NO_HIDE_STALE part.
# Knobs (the soak sets them): PCC_WORKLOADS, PCC_ROUNDS, PCC_MARKS_MAX,
# PCC_FLUSH_MAX, PCC_FLUSH_SEEDS, PCC_RANDOM, PCC_SEED, PCC_MIN_POINTS,
# PCC_SAVE_MAX, PCC_MKFS_OPTS (added to mkfs's options), PCC_MOUNT_OPTS
# (added to the workload's mount, e.g. discard), PCC_DISCARDS=zero (kept
# discards zero their range in the cut: cache-model.h "+discard").
# The grow workload makes the file system a third of the device (1 KiB
# blocks, 2 MiB groups, a 1 MiB journal: the grow is journaled) and grows it
# online twice, across the descriptor table's end when the device has more
# than 16 groups (robust-powercut-grow-soak.sh gives it 48 MiB); each cut
# must then be at a size the workload had, at least the last one a returned
# grow promised.
# needs: stalefs
# needs: dm-log-writes
# disk: pcdata:32M:1q
# disk: pclog:1G
# timeout: 1800
. "$STALEFS_ROOT/tests/vm/lib.sh"
FS=${PCC_FS:-stalefs}
WORKLOADS=${PCC_WORKLOADS:-unwritten reuse names tree mix}
ROUNDS=${PCC_ROUNDS:-1}
MARKS_MAX=${PCC_MARKS_MAX:-2}		# cuts right after a mark, per workload (0: every mark)
FLUSH_MAX=${PCC_FLUSH_MAX:-3}		# flush points per workload (evenly thinned; 0: every flush)
FLUSH_SEEDS=${PCC_FLUSH_SEEDS:-1}	# subsets of the cache tried at each flush point
RANDOM_POINTS=${PCC_RANDOM:-1}		# seeded random cut points per workload
SEED=${PCC_SEED:-1}
MIN_POINTS=${PCC_MIN_POINTS:-1}
SAVE_MAX=${PCC_SAVE_MAX:-6}		# failing cuts whose image is kept in $VM_RESULTS
read -r -a MKFS_OPTS <<<"${PCC_MKFS_OPTS:-}"
MOUNT_OPTS=${PCC_MOUNT_OPTS:-}
MODE_SUFFIX=
[[ ${PCC_DISCARDS:-} == zero ]] && MODE_SUFFIX=+discard
CUT=$STALEFS_BUILD/cache-cut
LOAD=$STALEFS_BUILD/cache-workload
CHECK=$STALEFS_BUILD/powercut-check
REPLAY=$STALEFS_BUILD/replay-log
for t in "$CUT" "$LOAD" "$CHECK" "$REPLAY"; do
	[[ -x $t ]] || fail "$t is missing (run make first)"
done
G=4242
case $FS in
stalefs)
	# mkfs_fs DEV BLOCKSIZE [SIZE [OPTIONS...]]
	# -E nodiscard: the fill pattern must survive mkfs (a discard would zero it under PCC_DISCARDS=zero).
	mkfs_fs() { "$MKFS_STALEFS" -q -F -b "$2" -G $G -E nodiscard "${MKFS_OPTS[@]}" "${@:4}" "$1" ${3:+"$3"}; }
	# The workload's mount arms NO_HIDE_STALE; the checks mount disarmed.
	work_opts=(-o "nohide_stale_gid=$G${MOUNT_OPTS:+,$MOUNT_OPTS}")
	fsck_fs() { "$FSCK_STALEFS" -fn "$1"; }
	fs_blocks() { "$DEBUGFS_STALEFS" -R "stats -h" "$1" 2>/dev/null | sed -n 's/^Block count: *//p'; }
	stale_arg=$G
	;;
ext4)
	for t in mkfs.ext4 e2fsck; do
		command -v $t >/dev/null || fail "$t is missing (e2fsprogs)"
	done
	# No discard: the replay keeps discarded blocks' old contents anyway.
	mkfs_fs() { mkfs.ext4 -q -F -b "$2" -E nodiscard "${MKFS_OPTS[@]}" "${@:4}" "$1" ${3:+"$3"}; }
	work_opts=()
	[[ -z $MOUNT_OPTS ]] || work_opts=(-o "$MOUNT_OPTS")
	fsck_fs() { e2fsck -fn "$1"; }
	fs_blocks() { dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Block count: *//p'; }
	stale_arg=
	note "ext4 reference run: the mix workload runs without its NO_HIDE_STALE part (stalefs only)"
	;;
*) fail "PCC_FS must be stalefs or ext4, not '$FS'" ;;
esac

data=$VM_DISK_PCDATA
log=$VM_DISK_PCLOG
m=/mnt/pcc
chk=/mnt/pccchk
mkdir -p $m $chk
W=$VM_SCRATCH
sz=$(blockdev --getsz "$data")
bytes=$(blockdev --getsize64 "$data")
R=$VM_RESULTS
: >"$R/cuts.txt"
: >"$R/failures.txt"
: >"$R/kernel-by-cut.txt"
total_points=0 failed_points=0 saved=0
declare -A kinds=()	# kind of failure -> cuts that show it

# The kernel log, streamed to a file once (a dmesg per cut costs ~0.3 s);
# kmsg_since_last reads what was added since its last call.  /dev/kmsg hands
# a reader the whole ring buffer (dmesg -C does not clear it for them), and
# cat may not have copied it all by the first call: records older than this
# scenario (an earlier scenario's in the same boot) are dropped by their time.
kmsg_start=$(awk '{ printf "%d", $1 * 1000000 }' /proc/uptime)
: >"$W/kmsg"
cat /dev/kmsg >>"$W/kmsg" &
kmsg_pid=$!
trap 'kill $kmsg_pid 2>/dev/null || true' EXIT
exec 5<"$W/kmsg"
kmsg_partial=
kmsg_new=()
kmsg_old=0
kmsg_since_last() {
	local line
	kmsg_new=()
	while IFS= read -r line <&5; do
		line=$kmsg_partial$line
		kmsg_partial=
		# "PRIORITY,SEQ,MICROSECONDS,-;TEXT"; continuation lines go with their record.
		[[ $line =~ ^[0-9]+,[0-9]+,([0-9]+), ]] && kmsg_old=$((BASH_REMATCH[1] < kmsg_start))
		((kmsg_old)) || kmsg_new+=("$line")
	done
	kmsg_partial+=$line	# a line cat has not finished writing
}
sleep 0.2
kmsg_since_last

# The kinds of failure a cut's WHY names (each counted once per cut).
kinds_of() {
	local w=$1
	[[ $w == *"was fsynced but cannot be opened"* ]] && echo "an fsync'd file is missing or unreadable"
	[[ $w == *"differs from its content at fsync"* ]] && echo "an fsync'd file lost or changed data"
	[[ $w == *"stale data exposed"* ]] && echo "a file reads the device's old bytes (fill pattern)"
	[[ $w == *"as another file's"* ]] && echo "a file reads another file's data"
	[[ $w == *"as its own"* ]] && echo "a file reads its own data at the wrong place"
	[[ $w == *"no write of the workload made"* ]] && echo "a file reads bytes nobody wrote"
	[[ $w == *"but is back"* ]] && echo "a durable unlink or rename is undone"
	[[ $w == *"cannot stat"* || $w == *"directory:"* || $w == *"cannot open:"* ]] &&
		echo "an entry cannot be read (stat/open/readdir fails)"
	[[ $w == *"needs repair"* ]] && echo "fsck -fn needs repair after mount and umount"
	[[ $w == *"after a clean umount is not clean"* ]] && echo "not clean after a clean umount"
	[[ $w == *"mount failed"* ]] && echo "mount fails"
	[[ $w == *"the file system has"* ]] && echo "the file system's size is not one it had, or a durable grow is undone"
	[[ $w == *"the kernel logged"* ]] && echo "the kernel logs an error"
	return 0
}

# cut_failed WHY: record it; keep the workload's log (every failing cut can
# be rebuilt from it and its seed) and the cut's disk when it is the first
# of its workload with this kind of failure (up to SAVE_MAX disks); go on
# with the next cut, the scenario fails at the end.
declare -A saved_kind=()
cut_failed() {
	local k first=''
	failed_points=$((failed_points + 1))
	while IFS= read -r k; do
		[[ -n $k ]] || continue
		kinds[$k]=$((${kinds[$k]:-0} + 1))
		first=${first:-$k}
	done < <(kinds_of "$1")
	local id="$FS-$wl-r$round_no-cut$E-seed$seed-${mode/:/-}" logname="$FS-$wl-r$round_no"
	echo "FAILED: $FS $wl r$round_no cut $E/$n e<=$upto seed $seed $mode => $1" |
		tee -a "$R/failures.txt"
	if [[ ! -e $R/$logname.log ]]; then
		head -c "$log_bytes" "$log" >"$R/$logname.log"
		cp "$W/entries" "$R/$logname.entries"
	fi
	if ((saved < SAVE_MAX)) && [[ -z ${saved_kind[$logname:$first]:-} ]]; then
		saved=$((saved + 1))
		saved_kind[$logname:$first]=1
		# BASE is still at this cut's window start: the same disk again.
		"$CUT" make "$log" "$W/base.img" "$window" "$R/$id.img" "$E" "$seed" "$mode" >/dev/null
		echo "  image: $id.img (the disk before mount)" | tee -a "$R/failures.txt"
	fi
}

# ---- record one workload ----
record() {	# workload, block size, workload seed
	local wl=$1 bs=$2 wseed=$3 out last
	rm -rf "$W/exp" "$W/events"
	mkdir -p "$W/exp"
	: >"$W/events"
	: >"$W/grows"
	"$CHECK" fill "$data"
	"$CHECK" fill "$W/base.img" "$bytes"
	dmsetup create pcc --table "0 $sz log-writes $data $log"
	if [[ $wl == grow ]]; then
		# A third of the device, in 2 MiB groups (16 to a 1 KiB descriptor block: on a
		# 48 MiB device the second grow crosses the table's end), with a journal (the
		# smallest, 1024 blocks, needs groups larger than 1 MiB).
		mkfs_fs /dev/mapper/pcc "$bs" $((bytes / 3 / 1048576))M -g 2048 -J size=1
	else
		mkfs_fs /dev/mapper/pcc "$bs"
	fi
	first_blocks=$(fs_blocks /dev/mapper/pcc)
	# Whatever mkfs left in the cache reaches the disk before e1.
	xfs_io -c fsync /dev/mapper/pcc
	dmsetup message pcc 0 mark e1	# the file system exists; no promises yet
	mount -t "$FS" "${work_opts[@]}" /dev/mapper/pcc $m
	out=$("$LOAD" "$wl" $m "$W" pcc 1 "$wseed" $stale_arg) || fail "workload $wl failed: $out"
	[[ $out =~ last-event\ ([0-9]+) ]] || fail "workload $wl: no last event in: $out"
	last=${BASH_REMATCH[1]}
	# "grew eN BLOCKS": from mark N on the file system is at least BLOCKS large.
	sed -n 's/^grew e\([0-9]*\) \([0-9]*\)$/\1 \2/p' <<<"$out" >"$W/grows"
	umount $m
	dmsetup message pcc 0 mark "e$((last + 1))"
	dmsetup remove pcc
	"$REPLAY" list "$log" >"$W/entries"
}

# ---- the cut plan of one recorded workload ----
# Lines "E UPTO MODE SEED", E increasing: entries [0, E) happened, UPTO
# the last mark they include.  Cut points: right after a mark (an fsync
# has just returned; the cache lost what no flush covered), at a flush
# (just before it: its group of cached writes is kept or lost at random),
# seeded random points, and the whole log (kept whole, then at random).
plan() {
	local start=$1 seed_base=$2
	awk -v start="$start" -v n="$n" -v marks_max="$MARKS_MAX" -v flush_max="$FLUSH_MAX" \
	    -v flush_seeds="$FLUSH_SEEDS" -v rnd="$RANDOM_POINTS" -v seed="$seed_base" '
	function pick(a, cnt, max, out,   i, k) {	# max of cnt, at the centres of equal slices
		k = 0
		if (max == 0 || cnt <= max) { for (i = 1; i <= cnt; i++) out[++k] = a[i]; return k }
		for (i = 0; i < max; i++) out[++k] = a[1 + int((i + 0.5) * cnt / max)]
		return k
	}
	$1 >= start && $2 == "M" && $5 ~ /^e[0-9]+$/ { mk[++nm] = $1 + 1 }
	$1 >= start && $2 ~ /F/ { fl[++nf] = $1 }
	END {
		split("random random:20 random:80 none", modes, " ")
		srand(seed)
		k = pick(mk, nm, marks_max, pm)
		for (i = 1; i <= k; i++) print pm[i], "random"
		k = pick(fl, nf, flush_max, pf)
		for (i = 1; i <= k; i++)
			for (j = 0; j < flush_seeds; j++) print pf[i], modes[(i + j) % 4 + 1]
		for (i = 0; i < rnd; i++) print start + int(rand() * (n - start + 1)), "random"
		print n, "all"
		print n, "random"
	}' "$W/entries" | sort -n -s -k1,1 >"$W/cuts"
	# The last mark each cut includes, and a seed per cut.
	awk -v seed="$seed_base" 'NR == FNR { if ($5 ~ /^e[0-9]+$/) mk[$1] = substr($5, 2); next }
	     { while (i < $1) { if (i in mk) last = mk[i]; i++ } print $1, last + 0, $2, seed + FNR }' \
		"$W/entries" "$W/cuts" >"$W/cutplan"
}

# After grows: the cut's size is one the workload had, at least the last returned grow's.
size_wrong() {
	local got want=$first_blocks allowed=" $first_blocks " gev gblocks
	got=$(fs_blocks "$W/cut.img")
	while read -r gev gblocks; do
		allowed+="$gblocks "
		((gev <= upto)) && want=$gblocks
	done <"$W/grows"
	if [[ $allowed != *" $got "* ]]; then
		echo "the file system has $got blocks, none of the sizes it had ($allowed)"
	elif ((got < want)); then
		echo "the file system has $got blocks, but a grow to $want had returned (a durable grow undone)"
	fi
}

# ---- one cut: build the disk, mount, check, umount, fsck ----
check_cut() {
	local rc line why='' detail='' k summary
	line=$("$CUT" make "$log" "$W/base.img" "$prev" "$W/cut.img" "$E" "$seed" "$mode") ||
		fail "cache-cut failed at cut $E (seed $seed $mode)"
	[[ $line =~ window\ ([0-9]+): ]] || fail "cache-cut said: $line"
	window=${BASH_REMATCH[1]}
	prev=$window
	total_points=$((total_points + 1))
	echo "$FS $wl r$round_no e<=$upto $line" >>"$R/cuts.txt"
	local what="window ${line#*window }"
	what=${what%%;*}
	if ((E == n)) && [[ $mode == all ]]; then
		# Everything written, after a clean umount: nothing to replay or repair.
		rc=0
		fsck_fs "$W/cut.img" >"$W/fsck.out" 2>&1 || rc=$?
		if ((rc != 0)); then
			why="the image after a clean umount is not clean (fsck -fn exit $rc)"
			detail=$W/fsck.out
		fi
	fi
	if [[ -z $why ]] && ! mount -t "$FS" -o loop "$W/cut.img" $chk 2>"$W/mount.out"; then
		why="mount failed: $(<"$W/mount.out")"
	elif [[ -z $why ]]; then
		rc=0
		"$CHECK" verify $chk "$W/events" "$upto" >"$W/verify.out" 2>&1 || rc=$?
		# Still mounted, the next cut would rewrite the image under it.
		umount $chk || fail "umount of the cut image failed (cut $E seed $seed $mode)"
		if ((rc != 0)); then
			why=$(grep -m3 FAIL "$W/verify.out" | tr '\n' ' ')
			why=${why:-checker exit $rc}
			detail=$W/verify.out
		else
			rc=0
			fsck_fs "$W/cut.img" >"$W/fsck.out" 2>&1 || rc=$?
			if ((rc != 0)); then
				why="fsck -fn after mount and umount exit $rc (needs repair)"
				detail=$W/fsck.out
			elif [[ -s $W/grows ]]; then
				why=$(size_wrong)
			fi
		fi
	fi
	# This cut's kernel messages (/dev/kmsg records: "PRIORITY,SEQ,TIME,-;TEXT"):
	# all go to kernel-by-cut.txt; one at level err or worse (the file
	# system saw damage, or an I/O error) or a splat fails the cut.
	kmsg_since_last
	if ((${#kmsg_new[@]})); then
		printf '%s\n' "== $FS $wl r$round_no cut $E seed $seed $mode" "${kmsg_new[@]}" >>"$R/kernel-by-cut.txt"
	fi
	for k in "${kmsg_new[@]}"; do
		local pri=${k%%,*}
		if [[ $k =~ $splat_re ]] || { [[ $pri =~ ^[0-9]+$ ]] && (((pri & 7) <= 3)); }; then
			why+="${why:+; }the kernel logged: ${k#*;}"
			break
		fi
	done
	if [[ -n $why ]]; then
		cut_failed "$why"
		[[ -z $detail ]] || sed 's/^/    /' "$detail" | head -40 >>"$R/failures.txt"
		return
	fi
	while IFS= read -r k; do summary=$k; done <"$W/verify.out"	# its last line, without an exec
	echo "ok $wl cut $E/$n e<=$upto $mode seed $seed: $what; ${summary#ok: }"
}

for ((round_no = 1; round_no <= ROUNDS; round_no++)); do
	wno=0
	for wl in $WORKLOADS; do
		wno=$((wno + 1))
		bs=4096
		[[ $wl == tree || $wl == grow ]] && bs=1024
		note "$FS round $round_no: $wl (${bs}-byte blocks): fill, mkfs, record"
		record "$wl" $bs $((SEED * 100 + round_no))
		n=$(wc -l <"$W/entries")
		start=$(awk '$5 == "e1" { print $1 + 1 }' "$W/entries")
		[[ -n $start ]] || fail "mark e1 is not in the log"
		# Bytes of the log in use (header sector + entries with their data), to keep it on failure.
		log_bytes=$(awk '{ b += 512; if ($2 ~ /W/) b += $4 * 512 } END { print b + 512 }' "$W/entries")
		plan "$start" $((SEED * 1000000 + round_no * 10000 + wno * 1000))
		note "$wl: $n log entries ($(grep -c ' W' "$W/entries") writes, $(awk '$2 ~ /F/' "$W/entries" | wc -l) flushes, $(awk '$2 ~ /U/' "$W/entries" | wc -l) FUA, $(awk '$2 == "M" && $5 ~ /^e/' "$W/entries" | wc -l) marks, $(awk '$2 ~ /D/' "$W/entries" | wc -l) discards); $(wc -l <"$W/cutplan") cuts"
		prev=0
		while read -r E upto mode seed <&3; do
			mode+=$MODE_SUFFIX
			check_cut
		done 3<"$W/cutplan"
	done
done

kill $kmsg_pid 2>/dev/null || true
note "$FS: $total_points cut points, $failed_points failed"
if ((failed_points)); then
	# A tally by kind (a cut may show several), for the report.
	for k in "${!kinds[@]}"; do
		printf '%5d cuts: %s\n' "${kinds[$k]}" "$k"
	done | sort -rn | tee "$R/failure-kinds.txt"
	fail "$failed_points of $total_points cut points failed on $FS (list: $VM_SCENARIO.results/failures.txt)"
fi
((total_points >= MIN_POINTS)) || fail "only $total_points cut points (want $MIN_POINTS)"
echo "robust-powercut-cache passed on $FS: $total_points cut points"
