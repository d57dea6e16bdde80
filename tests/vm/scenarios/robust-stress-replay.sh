#!/bin/bash
# Crash consistency under concurrency (issue 29), in the spirit of fstests'
# dm-log-writes tests: several processes run a seeded random mix of every
# namespace and data operation over hundreds of directories (allocation
# reaches every group) on a disk covered with the fill pattern, recorded
# with dm-log-writes; then every cut is replayed: right after each
# flush/FUA entry and each fsync mark (the log as a prefix), and at each
# flush with the volatile-cache model.  At each cut: mount (the journal
# recovered), every file fsync'd before the cut intact, no byte of the
# disk's old contents nor of another file readable, umount, fsck -fn exit 0,
# no kernel error.  The first cuts are replayed a second time onto the disk
# the log was recorded on (what fstests' replay does: never-initialised
# inode table slots then hold inodes of the run's later state; fsck must
# not take them for inodes).  tests/robust/README.md says how.
# Knobs: SR_FS (stalefs, or ext4: the reference, robust-stress-replay-ext4.sh),
# SR_BLOCK_SIZES, SR_WORKERS, SR_OPS, SR_ROUNDS, SR_SEED, SR_KINDS (which
# cuts: --prefix --cache), SR_LIMIT (cuts after flushes and after marks per
# run, 0 all), SR_CACHE_LIMIT (volatile-cache cuts per run, 0 all), SR_FIRST (cuts onto the recorded disk),
# SR_MIN_POINTS (fewer cuts in all fail the run), SR_SAVE_MAX.  The data
# disk has one request queue (:1q): tests/robust/README.md says why.
# needs: stalefs
# needs: dm-log-writes
# needs: dm-snapshot
# disk: srdata:64M:1q
# disk: srlog:1G
# timeout: 1800
. "$STALEFS_ROOT/tests/vm/lib.sh"
FS=${SR_FS:-stalefs}
BLOCK_SIZES=${SR_BLOCK_SIZES:-1024 4096}
WORKERS=${SR_WORKERS:-4}
OPS=${SR_OPS:-10}
ROUNDS=${SR_ROUNDS:-1}
SEED=${SR_SEED:-1}
LIMIT=${SR_LIMIT:-0}
CACHE_LIMIT=${SR_CACHE_LIMIT:-20}
read -r -a KINDS <<<"${SR_KINDS:---prefix --cache}"	# which cuts (stress-replay's options)
FIRST=${SR_FIRST:-6}
MIN_POINTS=${SR_MIN_POINTS:-200}
SAVE_MAX=${SR_SAVE_MAX:-4}
LOAD=$STALEFS_BUILD/stress-workload
REPLAY=$STALEFS_BUILD/stress-replay
CHECK=$STALEFS_BUILD/powercut-check
for t in "$LOAD" "$REPLAY" "$CHECK"; do
	[[ -x $t ]] || fail "$t is missing (run make first)"
done
G=4242
# Small groups, so that the directories spread over many: 32 of 2 MiB with
# 1 KiB blocks, 8 of 8 MiB with 4 KiB blocks, on the 64 MiB disk (the
# journal, at least 1024 blocks, lies in one group's data area).
group_blocks() { echo 2048; }
case $FS in
stalefs)
	# Small groups: 32 (1 KiB blocks) or 16 (4 KiB) on the 64 MiB disk.
	mkfs_fs() { "$MKFS_STALEFS" -q -F -b "$2" -g "$(group_blocks "$2")" -G $G -E nodiscard "$1"; }	# the fill pattern stays
	work_opts=(-o nohide_stale_gid=$G)
	fsck_prog=$FSCK_STALEFS
	stale_arg=$G
	;;
ext4)
	for t in mkfs.ext4 e2fsck; do
		command -v $t >/dev/null || fail "$t is missing (e2fsprogs)"
	done
	# No discard (the replay keeps discarded blocks' old contents anyway),
	# lazy inode tables as stalefs's, small groups as above.
	mkfs_fs() { mkfs.ext4 -q -F -b "$2" -g "$(group_blocks "$2")" -E nodiscard,lazy_itable_init=1 "$1"; }
	work_opts=()
	fsck_prog=$(command -v e2fsck)
	stale_arg=
	note "ext4 reference run: no NO_HIDE_STALE part (stalefs only)"
	;;
*) fail "SR_FS must be stalefs or ext4, not '$FS'" ;;
esac

data=$VM_DISK_SRDATA
log=$VM_DISK_SRLOG
# The cuts are snapshots of a RAM disk holding the log brought forward (the
# base) over another (their COW): a bio there is answered at once, where a
# loop device over a tmpfs file costs a worker's round trip per read.
base=/dev/ram0 cow=/dev/ram1
m=/mnt/sr
chk=/mnt/srchk
mkdir -p $m $chk
W=$VM_SCRATCH
R=$VM_RESULTS
sz=$(blockdev --getsz "$data")
bytes=$(blockdev --getsize64 "$data")
lsmod | has '^brd ' || modprobe brd rd_nr=2 rd_size=$((bytes / 1024))
trap 'rmmod brd 2>/dev/null || true' EXIT
for d in $base $cow; do
	[[ -b $d && $(blockdev --getsize64 $d) == "$bytes" ]] ||
		fail "$d is not a RAM disk of $bytes bytes (brd loaded with other sizes?)"
done
total=0 failed=0

# replay LABEL [OPTIONS...]: one stress-replay over the recorded log.
replay() {
	local label=$1 out rc=0
	shift
	"$REPLAY" --type "$FS" --fsck "$fsck_prog" --work "$W" --mnt $chk --results "$R" --cow $cow \
		--save-max "$SAVE_MAX" --label "$label" "$@" "$log" $base "$W/events" \
		>"$W/replay.out" 2>&1 || rc=$?
	grep -m 40 -E '^(stress-replay|FAILED)' "$W/replay.out" || true
	out=$(grep -E ': [0-9]+ cuts \(' "$W/replay.out" | tail -1)
	((rc < 2)) || { cat "$W/replay.out"; fail "stress-replay $label could not run (exit $rc)"; }
	[[ $out =~ :\ ([0-9]+)\ cuts.*\ ([0-9]+)\ failed$ ]] || fail "stress-replay $label said: $out"
	total=$((total + BASH_REMATCH[1]))
	failed=$((failed + BASH_REMATCH[2]))
	# A failing run keeps what rebuilds any of its cuts: the log, the events and the copies.
	if ((BASH_REMATCH[2])) && [[ ! -e $R/${label%-recorded-disk}.log ]]; then
		local bytes
		bytes=$(sed -n 's/^stress-replay .*: log bytes //p' "$W/replay.out")
		head -c "$bytes" "$log" >"$R/${label%-recorded-disk}.log"
		tar -C "$W" -cf "$R/${label%-recorded-disk}.events.tar" events exp trace
	fi
}

for bs in $BLOCK_SIZES; do
	for ((round = 1; round <= ROUNDS; round++)); do
		label=$FS-$bs-r$round
		wseed=$((SEED * 100 + round))
		note "$label: fill, mkfs, $WORKERS workers x $OPS operations (seed $wseed), recorded"
		rm -rf "$W/exp" "$W/events" "$W/lock" "$W/trace"
		"$CHECK" fill "$data"
		"$CHECK" fill $base
		dmsetup create sr --table "0 $sz log-writes $data $log"
		mkfs_fs /dev/mapper/sr "$bs"
		# What is checked here is the journal's promise: no repair, ever.
		[[ $FS != stalefs ]] || "$DEBUGFS_STALEFS" -R stats /dev/mapper/sr | has '^Journal: .*blocks' ||
			fail "mkfs made no journal: $("$DEBUGFS_STALEFS" -R stats /dev/mapper/sr | grep '^Journal')"
		# Whatever mkfs left in the cache reaches the disk before e1.
		xfs_io -c fsync /dev/mapper/sr
		dmsetup message sr 0 mark e1
		mount -t "$FS" "${work_opts[@]}" /dev/mapper/sr $m
		out=$("$LOAD" $m "$W" sr "$WORKERS" "$OPS" "$wseed" $stale_arg) || fail "the workload failed: $out"
		[[ $out =~ last-event\ ([0-9]+) ]] || fail "the workload printed no last event: $out"
		umount $m
		dmsetup message sr 0 mark "e$((BASH_REMATCH[1] + 1))"
		dmsetup remove sr
		note "$label: $(wc -l <"$W/events") events; replaying"
		replay "$label" "${KINDS[@]}" --limit "$LIMIT" --cache-limit "$CACHE_LIMIT" --seed "$wseed"
		# The first cuts again, onto the disk the log was recorded on.
		if ((FIRST > 0)); then
			dd if="$data" of=$base bs=1M conv=fsync status=none
			replay "$label-recorded-disk" --prefix --first "$FIRST" --skip-stale --seed "$wseed"
		fi
	done
done
note "$total cut points, $failed failed"
if ((failed)); then
	sed -n 's/^FAILED: .*\[\(.*\)\].*/\1/p' "$R/failures.txt" | sort | uniq -c | sort -rn
	fail "$failed of $total cut points failed (build/vm/logs/$VM_SCENARIO.results/failures.txt)"
fi
((total >= MIN_POINTS)) || fail "only $total cut points (want $MIN_POINTS)"
echo "robust-stress-replay ($FS) passed: $total cut points"
