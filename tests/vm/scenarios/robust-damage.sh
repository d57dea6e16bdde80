#!/bin/bash
# Damaged images (issue 8, part 1): populated images damaged by a seeded
# generator (fields changed with checksums recomputed, bit flips, garbage and
# copied metadata blocks, truncation) are mounted, walked and changed
# (walk-fs), unmounted, then repaired: fsck.stalefs -fy, then -fn must be
# clean.  Mount and walk may fail (EUCLEAN, EIO...); a kernel splat, a hang,
# an errno damage cannot explain, or fsck not converging fails the scenario.
# The kernel log is scanned after every image.  A failure names its seed and
# leaves the image in the results: tests/robust/damage-image BASE SEED OUT
# remakes it from the base (tests/robust/make-base-image).
# DAMAGE_COUNT images (default 50) from seed DAMAGE_SEED (default 1), or
# fewer if DAMAGE_SECONDS runs out first; the soak
# (tests/vm/soak/robust-damage-soak.sh) runs thousands.
# needs: stalefs
# timeout: 900
. "$STALEFS_ROOT/tests/vm/lib.sh"
count=${DAMAGE_COUNT:-50}
first=${DAMAGE_SEED:-1}
limit=${DAMAGE_LIMIT:-120}	# seconds a mount, walk, umount or fsck may take
budget=${DAMAGE_SECONDS:-0}	# stop starting images after this many seconds (0: never)
robust=$STALEFS_ROOT/tests/robust
walk=$STALEFS_BUILD/walk-fs
[[ -x $walk ]] || fail "$walk is missing (run make first)"
mnt=/mnt/d
mkdir -p $mnt

# The base images: made by make on the host (tests/robust/build.mk), where
# a process costs far less than under TCG; made here when run by hand.
note "base images"
declare -A base size gen_in gen_out
for bs in 1024 4096; do
	base[$bs]=$STALEFS_BUILD/robust/base-$bs.img
	if [[ ! -s ${base[$bs]} ]]; then
		base[$bs]=$VM_SCRATCH/base-$bs.img
		STALEFS_BUILD=$STALEFS_BUILD "$robust/make-base-image" "${base[$bs]}" "$bs"
	fi
	size[$bs]=$(stat -c %s "${base[$bs]}")
done
note "damaging, mounting, walking, repairing"
# One generator per base, kept running (a Python start per image would cost
# more than the damage), talking through FIFOs.
for bs in 1024 4096; do
	mkfifo "$VM_SCRATCH/gen-$bs.in" "$VM_SCRATCH/gen-$bs.out"
	python3 "$robust/damage-image" --serve "${base[$bs]}" \
		<"$VM_SCRATCH/gen-$bs.in" >"$VM_SCRATCH/gen-$bs.out" &
	exec {fd}>"$VM_SCRATCH/gen-$bs.in"
	gen_in[$bs]=$fd
	exec {fd}<"$VM_SCRATCH/gen-$bs.out"
	gen_out[$bs]=$fd
done

img=$VM_SCRATCH/damaged.img
out=$VM_SCRATCH/out
kmsg=$VM_SCRATCH/kmsg
# A FIFO nobody writes: `read -t` on it is a sleep without an exec (every
# exec costs a few tenths of a second under TCG, and this loop is long).
mkfifo "$VM_SCRATCH/never"
exec {never}<>"$VM_SCRATCH/never"

# keep_failure SEED MSG: save the image and fail, naming the seed.
keep_failure() {
	cp --sparse=always "$img" "$VM_RESULTS/seed-$1.img" 2>/dev/null || true
	fail "seed $1: $2 (image kept as seed-$1.img)"
}

# guarded SEED WHAT CMD...: run CMD with its output in $out; a CMD still
# running after $limit seconds is a hang (its kernel stack is shown).
# Returns CMD's exit status.
guarded() {
	local seed=$1 what=$2 pid timer done_pid rc=0
	shift 2
	"$@" >"$out" 2>&1 &
	pid=$!
	read -r -t "$limit" -u "$never" &
	timer=$!
	wait -n -p done_pid "$pid" "$timer" || true
	if [[ $done_pid == "$timer" ]]; then
		echo "$(<"$out")"
		echo "--- stack of the stuck $what:"
		cat /proc/"$pid"/stack 2>/dev/null || true
		for c in /proc/"$pid"/task/*/children; do
			for k in $(<"$c"); do cat /proc/"$k"/stack 2>/dev/null || true; done
		done
		keep_failure "$seed" "$what hung for ${limit}s"
	fi
	kill "$timer" 2>/dev/null || true
	wait "$pid" || rc=$?
	wait "$timer" 2>/dev/null || true
	return $rc
}

# secs T0 T1: seconds between two $EPOCHREALTIME stamps, one decimal.
secs() {
	local us=$((${2/./} - ${1/./}))
	printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000))
}

# check_kernel_log SEED: no splat since the last image.
check_kernel_log() {
	dmesg -c >"$kmsg"
	if [[ $(<"$kmsg") =~ $splat_re ]]; then
		echo "$(<"$kmsg")"
		keep_failure "$1" "kernel splat"
	fi
}

dmesg -C
mounted=0 refused=0 walked_errors=0 fsck_fixed=0 no_super=0
for ((seed = first; seed < first + count; seed++)); do
	if ((budget && SECONDS >= budget)); then
		note "time budget of ${budget}s spent: stopping after $((seed - first)) images"
		count=$((seed - first))
		break
	fi
	bs=$((seed % 2 ? 1024 : 4096))
	t0=$EPOCHREALTIME
	echo "$seed $img" >&"${gen_in[$bs]}"
	cut=0 supers=
	while read -r line <&"${gen_out[$bs]}"; do
		[[ $line == done ]] && break
		[[ $line == *" truncate: "* ]] && cut=1
		[[ $line == *" superblocks intact: "* ]] && supers=${line##* }
		echo "$line"
	done
	[[ $supers =~ ^[0-9]+$ ]] || fail "seed $seed: the generator did not count the superblocks"
	[[ $line == done ]] || fail "seed $seed: the damage generator stopped"

	# errors=continue lets the walk go on past the first error; some
	# images take remount-ro, so the read-only turn is taken under load
	# too.  Either overrides an errors=panic the damage may have written.
	t1=$EPOCHREALTIME
	errors=continue
	((seed % 3 == 0)) && errors=remount-ro
	rc=0
	guarded "$seed" mount mount -t stalefs -o loop,errors=$errors "$img" $mnt || rc=$?
	if ((rc == 0)); then
		mounted=$((mounted + 1))
		rc=0
		guarded "$seed" walk "$walk" $mnt || rc=$?
		echo "$(<"$out")"
		((rc == 0)) || keep_failure "$seed" "walk-fs exited $rc"
		[[ $(<"$out") == *" 0 failed"* ]] || walked_errors=$((walked_errors + 1))
		guarded "$seed" umount umount $mnt || { echo "$(<"$out")"; keep_failure "$seed" "umount failed"; }
	else
		refused=$((refused + 1))
		echo "seed $seed: mount refused: $(<"$out")"
	fi
	check_kernel_log "$seed"

	# The device comes back whole (a cut image's lost end reads as zeros),
	# then fsck must repair everything in one run.
	t2=$EPOCHREALTIME
	((cut)) && truncate -s "${size[$bs]}" "$img"
	rc=0
	guarded "$seed" "fsck -fy" "$FSCK_STALEFS" -fy "$img" || rc=$?
	if ((rc == 8 && supers == 0)); then
		# No superblock copy left intact: refusing is all fsck can do.
		echo "seed $seed: no intact superblock left; fsck refuses: $(<"$out")"
		no_super=$((no_super + 1))
		check_kernel_log "$seed"
		continue
	fi
	((rc & ~3)) && { echo "$(<"$out")"; keep_failure "$seed" "fsck -fy exited $rc"; }
	((rc)) && fsck_fixed=$((fsck_fixed + 1))
	rc=0
	guarded "$seed" "fsck -fn" "$FSCK_STALEFS" -fn "$img" || rc=$?
	((rc == 0)) || { echo "$(<"$out")"; keep_failure "$seed" "fsck -fn after -fy exited $rc"; }
	t3=$EPOCHREALTIME
	echo "seed $seed: ok (damage $(secs "$t0" "$t1")s, kernel $(secs "$t1" "$t2")s, fsck $(secs "$t2" "$t3")s)"
done
note "robust-damage: $count images (seeds $first..$((first + count - 1))): $mounted mounted" \
	"($walked_errors with failed calls), $refused refused; fsck repaired $fsck_fixed," \
	"refused $no_super (no superblock left); no splat, no hang"
echo "images=$count mounted=$mounted refused=$refused fsck_repaired=$fsck_fixed" \
	"no_superblock=$no_super" >"$VM_RESULTS/summary"
