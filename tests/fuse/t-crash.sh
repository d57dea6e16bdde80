# Killing the server (SIGKILL) at random points while a workload runs: the
# image must replay to a consistent state (fsck.stalefs -fn clean before and
# after fsck replays it), every file whose fsync returned must read exactly
# what it read then, every durable unlink must stay done, and no file may
# read bytes it was never given (the device was covered with the power-cut
# fill pattern first).  The workloads and the checker are the volatile-cache
# power-cut test's (tests/robust: cache-workload, powercut-check).
#
# Two kinds of kill point:
#   t:MS  SIGKILL from outside, MS milliseconds into the workload;
#   w:N   the server kills itself just before its Nth write or flush to the
#         image (tests/fuse/killpoint.c): every point between two writes,
#         inside a transaction's log, before its commit block, mid-checkpoint.
#         Half of them are drawn from all the points of the workload, half
#         from the few after a flush, where commits write (a commit's log,
#         commit block, checkpoint and emptied log follow its first flush).
# Workloads: unwritten, reuse, names, tree (1 KiB blocks), mix (without its
# NO_HIDE_STALE part).  FUSE passes no syncfs(2) to the server: in this mode
# cache-workload follows each syncfs with an fsync of the mount's root, which
# the server makes a commit of everything.

CRASH_WORKLOADS="unwritten reuse names tree mix"

server_dies() {
	local i
	for i in $(seq 50); do
		[ -e /proc/"$SFUSE_PID" ] && [ "$(awk '{print $3}' /proc/"$SFUSE_PID"/stat 2>/dev/null)" != Z ] || return 0
		sleep 0.1
	done
	return 1
}

# crash_round WORKLOAD SEED KILL: one image, one workload, one kill, all the checks.
crash_round() {
	local w=$1 seed=$2 kill=$3 bs=4096 upto rc wl
	[ "$w" = tree ] && bs=1024
	rm -rf state img m && mkdir state && : >state/events
	"$PCHECK" fill img $((64 << 20)) >/dev/null || fail "powercut-check fill"
	mkimg img 64M -b $bs -E nodiscard	# the fill pattern stays
	SFUSE_WRAP=()
	[ "${kill%%:*}" = w ] && SFUSE_WRAP=(env LD_PRELOAD="$KILLPOINT" KILLPOINT_AT="${kill#w:}")
	if ! sfuse_try_mount img m; then
		# Killed while mounting (the first writes: the superblock, RECOVER): checked all the same.
		SFUSE_WRAP=()
		: >workload.out
		wl=
	else
		SFUSE_WRAP=()
		"$WORKLOAD" "$w" "$PWD/m" "$PWD/state" - 0 "$seed" >workload.out 2>&1 &
		wl=$!
	fi
	if [ "${kill%%:*}" = t ]; then
		sleep "$(printf '%d.%03d' $((${kill#t:} / 1000)) $((${kill#t:} % 1000)))"
		kill -9 "$SFUSE_PID" 2>/dev/null || true
	fi
	rc=0
	[ -z "$wl" ] || wait "$wl" || rc=$?
	# The workload may only fail because the server died under it (a zombie is dead; a
	# process being killed may take a moment to become one).
	if [ $rc -ne 0 ] && ! server_dies; then
		cat workload.out
		fail "$w (seed $seed, $kill): the workload failed while the server was alive"
	fi
	kill -9 "$SFUSE_PID" 2>/dev/null || true
	wait "$SFUSE_PID" 2>/dev/null || true
	umount -l m 2>/dev/null || fusermount3 -uz m 2>/dev/null || true
	check_server_log "$SFUSE_LOG"
	rc=0
	"$FSCK" -fn img >fsck1.out 2>&1 || rc=$?
	[ $rc -eq 0 ] || { cat fsck1.out; fail "$w (seed $seed, $kill): fsck -fn exited $rc after the kill"; }
	rc=0
	"$FSCK" -fy img >fsck2.out 2>&1 || rc=$?
	[ $rc -eq 0 ] || { cat fsck2.out; fail "$w (seed $seed, $kill): fsck -fy exited $rc (a repair, not a replay)"; }
	fsck_clean img
	upto=$(awk '$1 > m { m = $1 } END { print m + 0 }' state/events)
	sfuse_mount img m -o ro
	rc=0
	"$PCHECK" verify "$PWD/m" state/events "$upto" >verify.out 2>&1 || rc=$?
	sfuse_umount m
	[ $rc -eq 0 ] || { cat verify.out; fail "$w (seed $seed, $kill): promises broken (events up to $upto)"; }
	CRASH_PROMISES=$((CRASH_PROMISES + $(awk -v u="$upto" '$2 == "sync" && $1 <= u' state/events | wc -l)))
	CRASH_ROUNDS=$((CRASH_ROUNDS + 1))
}

# How many kill points (writes and flushes) a whole run of WORKLOAD has.
count_points() {
	local w=$1 bs=4096
	[ "$w" = tree ] && bs=1024
	rm -rf state img m && mkdir state
	mkimg img 64M -b $bs -E nodiscard	# as crash_round makes it
	SFUSE_WRAP=(env LD_PRELOAD="$KILLPOINT" KILLPOINT_COUNT="$PWD/points")
	sfuse_mount img m
	SFUSE_WRAP=()
	"$WORKLOAD" "$w" "$PWD/m" "$PWD/state" - 0 1 >workload.out 2>&1 || { cat workload.out; fail "$w without a kill"; }
	sfuse_umount m
	mapfile -t FLUSHES <points
	POINTS=${FLUSHES[-1]}
	[ "${#FLUSHES[@]}" -gt 3 ] && [ "$POINTS" -gt 10 ] || fail "$w: only $POINTS kill points counted"
}

test_sigkill_at_random_points() {
	local w i rounds seed=1 n
	rounds=$(((FUSE_SOAK == 1) ? 40 : 2))
	CRASH_ROUNDS=0 CRASH_PROMISES=0
	RANDOM=4242
	for w in $CRASH_WORKLOADS; do
		count_points "$w"
		for i in $(seq "$rounds"); do
			n=$((1 + (RANDOM * 32768 + RANDOM) % POINTS))
			crash_round "$w" $seed "w:$n"
			seed=$((seed + 1))
			n=$((FLUSHES[RANDOM % ${#FLUSHES[@]}] + 1 + RANDOM % 12))
			crash_round "$w" $seed "w:$n"
			seed=$((seed + 1))
			crash_round "$w" $seed "t:$((RANDOM % 700))"
			seed=$((seed + 1))
		done
	done
	echo "NOTE $CRASH_ROUNDS kills, $CRASH_PROMISES fsync promises checked"
}
