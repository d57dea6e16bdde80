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
# DAMAGE_COUNT images (default 50) from seed DAMAGE_SEED (default 1); the
# soak (tests/vm/soak/robust-damage-soak.sh) runs thousands.
# needs: stalefs
# timeout: 900
. "$STALEFS_ROOT/tests/vm/lib.sh"
count=${DAMAGE_COUNT:-50}
first=${DAMAGE_SEED:-1}
limit=${DAMAGE_LIMIT:-120}	# seconds a mount, walk, umount or fsck may take
robust=$STALEFS_ROOT/tests/robust
walk=$STALEFS_BUILD/walk-fs
[[ -x $walk ]] || fail "$walk is missing (run make first)"
mnt=/mnt/d
mkdir -p $mnt
splat_re='(^|[^[:alnum:]_])(BUG|WARNING|Oops|KASAN|UBSAN)([^[:alnum:]_]|$)|general protection|kernel BUG|hung task|blocked for more than|Call Trace'

note "base images"
declare -A base size gen_in gen_out
for bs in 1024 4096; do
	base[$bs]=$VM_SCRATCH/base-$bs.img
	STALEFS_BUILD=$STALEFS_BUILD "$robust/make-base-image" "${base[$bs]}" "$bs"
	size[$bs]=$(stat -c %s "${base[$bs]}")
done
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
	sleep "$limit" &
	timer=$!
	wait -n -p done_pid "$pid" "$timer" || true
	if [[ $done_pid == "$timer" ]]; then
		cat "$out"
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

# check_kernel_log SEED: no splat since the last image.
check_kernel_log() {
	dmesg -c >"$kmsg"
	if grep -qE "$splat_re" "$kmsg"; then
		cat "$kmsg"
		keep_failure "$1" "kernel splat"
	fi
}

dmesg -C
mounted=0 refused=0 walked_errors=0 fsck_fixed=0
for ((seed = first; seed < first + count; seed++)); do
	bs=$((seed % 2 ? 1024 : 4096))
	echo "$seed $img" >&"${gen_in[$bs]}"
	while read -r line <&"${gen_out[$bs]}"; do
		[[ $line == done ]] && break
		echo "$line"
	done
	[[ $line == done ]] || fail "seed $seed: the damage generator stopped"

	# errors=continue lets the walk go on past the first error; some
	# images take remount-ro, so the read-only turn is taken under load
	# too.  Either overrides an errors=panic the damage may have written.
	errors=continue
	((seed % 3 == 0)) && errors=remount-ro
	rc=0
	guarded "$seed" mount mount -t stalefs -o loop,errors=$errors "$img" $mnt || rc=$?
	if ((rc == 0)); then
		mounted=$((mounted + 1))
		rc=0
		guarded "$seed" walk "$walk" $mnt || rc=$?
		cat "$out"
		((rc == 0)) || keep_failure "$seed" "walk-fs exited $rc"
		grep -q ' 0 failed' "$out" || walked_errors=$((walked_errors + 1))
		guarded "$seed" umount umount $mnt || { cat "$out"; keep_failure "$seed" "umount failed"; }
	else
		refused=$((refused + 1))
		echo "seed $seed: mount refused: $(<"$out")"
	fi
	check_kernel_log "$seed"

	# The device comes back whole (a cut image's lost end reads as zeros),
	# then fsck must repair everything in one run.
	truncate -s "${size[$bs]}" "$img"
	rc=0
	guarded "$seed" "fsck -fy" "$FSCK_STALEFS" -fy "$img" || rc=$?
	((rc & ~3)) && { cat "$out"; keep_failure "$seed" "fsck -fy exited $rc"; }
	((rc)) && fsck_fixed=$((fsck_fixed + 1))
	rc=0
	guarded "$seed" "fsck -fn" "$FSCK_STALEFS" -fn "$img" || rc=$?
	((rc == 0)) || { cat "$out"; keep_failure "$seed" "fsck -fn after -fy exited $rc"; }
	echo "seed $seed: ok"
done
note "robust-damage: $count images (seeds $first..$((first + count - 1))): $mounted mounted" \
	"($walked_errors with failed calls), $refused refused; fsck repaired $fsck_fixed; no splat, no hang"
echo "images=$count mounted=$mounted refused=$refused fsck_repaired=$fsck_fixed" >"$VM_RESULTS/summary"
