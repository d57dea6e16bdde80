#!/bin/bash
# VM benchmark of issue 26's aging (after Conway et al., FAST '17, "File
# Systems Fated for Senescence? Nonsense, Says Science!"): stalefs, ext4 and
# XFS, each on two 1 GiB disks of its own (the aged one, the fresh copy), in
# one boot, every step interleaved across the three.
# needs: stalefs
# needs: ext4 xfs
# disk: age-stalefs:1G:full
# disk: age-ext4:1G:full
# disk: age-xfs:1G:full
# disk: fresh-stalefs:1G:full
# disk: fresh-ext4:1G:full
# disk: fresh-xfs:1G:full
# timeout: 3600
# Steps:
#   fill   other files (bench/vm/agetree fill) so that, with the tree, the
#          filesystem is FULL_PCT% used
#   place  `tar -xf` of ~12,000 files of Linux's source (bench_srctree in
#          bench/lib.sh, from bench/vm/tree-run.sh) + sync; then the cold
#          read of round 0
#   age    ROUNDS rounds of bench/vm/agetree age (delete PCT% of the files,
#          rewrite or append to PCT%, create as many as were deleted, in
#          shuffled order; the same SEED, so the same sequence everywhere)
#          + sync, each followed by a cold read of the whole tree
#          (bench/vm/treeread: MB/s = bytes read / seconds)
#   fresh  the aged tree copied (`cp -a`) onto a freshly made filesystem of
#          the same kind on its second disk; then END_REPS cold reads of the
#          aged tree and of its fresh copy, alternating
# Extents per file (filefrag) after placing, after the last round and of
# the fresh copy.  Checked, untimed: the placed tree is the tarball's
# (treeread --sum); every read read the files and bytes agetree left; the
# three aged trees are identical and so is each fresh copy; every stalefs
# filesystem checks clean at the end.  Run by bench/vm/tree-run.sh aging;
# bench/vm/tree-report.py writes the figures into bench/RESULTS.md.
# Nothing here asserts a timing.
# shellcheck disable=SC2046  # $(io_delta ...), $(extents ...): KEY=VALUE pairs, split on purpose
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/bench/vm/treelib.sh"
ROUNDS=10	# aging rounds
PCT=10		# percent of the files deleted, and rewritten, per round
FULL_PCT=88	# how full the filesystem is once the tree is in
SEED=26		# agetree's seed: the same tree on every filesystem
END_REPS=2	# final cold reads of the aged tree and of its fresh copy, each
tree_setup agingbench
fss=(stalefs ext4 xfs)
declare -A dev=([stalefs]=$VM_DISK_AGE_STALEFS [ext4]=$VM_DISK_AGE_EXT4 [xfs]=$VM_DISK_AGE_XFS)
declare -A fresh_dev=([stalefs]=$VM_DISK_FRESH_STALEFS [ext4]=$VM_DISK_FRESH_EXT4 [xfs]=$VM_DISK_FRESH_XFS)
tree_of() { echo "/mnt/age-$1/linux-source-6.1"; }	# FS: its aged tree
fresh_of() { echo "/mnt/fresh-$1"; }	# FS: where its fresh copy is mounted
tree_alloc=$(jget alloc "$want")
printf '%s\n' "disk_bytes $(blockdev --getsize64 "${dev[stalefs]}")" "rounds $ROUNDS" "pct $PCT" \
	"full_pct $FULL_PCT" "seed $SEED" "end_reps $END_REPS" >>"$VM_RESULTS/info.txt"

for fs in "${fss[@]}"; do
	mnt=/mnt/age-$fs
	new_fs "$fs" "${dev[$fs]}" "$mnt"
	# Blocks in use now plus the tree's least need: fill up to FULL_PCT%.
	fill=$(stat -f -c '%S %b %f' "$mnt" |
		awk -v a="$tree_alloc" -v p="$FULL_PCT" '{ f = $2 * $1 * p / 100 - ($2 - $3) * $1 - a; printf "%.0f\n", (f > 0 ? f : 0) }')
	note "$fs: $fill bytes of other files, then the tree"
	mkdir "$mnt/fill"
	"$AGETREE" fill "$mnt/fill" "$fill" "$SEED" >/dev/null
	drop_caches
	before=$(dstat "${dev[$fs]}")
	t0=$(now)
	tar -xf "$tarball" -C "$mnt"
	sync
	t=$(elapsed "$t0")
	record fs="\"$fs\"" round=0 phase='"place"' seconds="$t" fill="$fill" used_pct="$(used_pct "$mnt")" \
		$(io_delta "${dev[$fs]}" "$before")
	same_tree "$fs, placed tree" "$want" "$("$TREEREAD" --sum "$(tree_of "$fs")")" files dirs symlinks bytes sum
done

# aged_read FS ROUND PHASE [FILES BYTES]: a cold read of FS's aged tree, recorded,
# checked against the tarball (round 0) or against what agetree left.
aged_read() {
	local fs=$1
	read_cold "$fs" "${dev[$fs]}" "/mnt/age-$fs" "$(tree_of "$fs")"
	if (($# > 3)); then
		assert_eq "$4 $5" "$(jget files "$got") $(jget bytes "$got")" "$fs round $2: files and bytes read"
	else
		same_tree "$fs round $2, cold read" "$want" "$got" files bytes
	fi
	record fs="\"$fs\"" round="$2" phase="\"$3\"" seconds="$(jget seconds "$got")" files="$(jget files "$got")" \
		bytes="$(jget bytes "$got")" used_pct="$(used_pct "/mnt/age-$fs")" "${io[@]}"
}

for fs in "${fss[@]}"; do
	aged_read "$fs" 0 read
	record fs="\"$fs\"" round=0 phase='"extents"' $(extents "$(tree_of "$fs")")
done

for ((r = 1; r <= ROUNDS; r++)); do
	for fs in "${fss[@]}"; do
		note "$fs, round $r"
		cold "$fs" "${dev[$fs]}" "/mnt/age-$fs"
		before=$(dstat "${dev[$fs]}")
		t0=$(now)
		line=$("$AGETREE" age "$(tree_of "$fs")" "$SEED" "$r" "$PCT")
		sync
		t=$(elapsed "$t0")
		record fs="\"$fs\"" round="$r" phase='"age"' seconds="$t" written="$(jget written "$line")" \
			$(io_delta "${dev[$fs]}" "$before")
		aged_read "$fs" "$r" read "$(jget files "$line")" "$(jget bytes "$line")"
	done
done

sums=()
declare -A aged=()	# FS: treeread --sum's line of its aged tree
for fs in "${fss[@]}"; do
	record fs="\"$fs\"" round="$ROUNDS" phase='"extents"' $(extents "$(tree_of "$fs")")
	aged[$fs]=$("$TREEREAD" --sum "$(tree_of "$fs")")
	sums+=("$(jget files "${aged[$fs]}") $(jget bytes "${aged[$fs]}") $(jget sum "${aged[$fs]}")")
done
assert_eq "${sums[0]}" "${sums[1]}" "aged trees of stalefs and ext4 (files bytes sum)"
assert_eq "${sums[0]}" "${sums[2]}" "aged trees of stalefs and xfs (files bytes sum)"

for fs in "${fss[@]}"; do
	note "$fs: fresh copy of the aged tree"
	new_fs "$fs" "${fresh_dev[$fs]}" "$(fresh_of "$fs")"
	drop_caches
	t0=$(now)
	cp -a "$(tree_of "$fs")" "$(fresh_of "$fs")/"
	sync
	t=$(elapsed "$t0")
	record fs="\"$fs\"" round="$ROUNDS" phase='"copy"' seconds="$t" used_pct="$(used_pct "$(fresh_of "$fs")")"
	same_tree "$fs, fresh copy" "${aged[$fs]}" "$("$TREEREAD" --sum "$(fresh_of "$fs")/linux-source-6.1")" \
		files dirs symlinks bytes sum
	record fs="\"$fs\"" round="$ROUNDS" phase='"fresh-extents"' $(extents "$(fresh_of "$fs")/linux-source-6.1")
done

# The aged trees and their copies, read in turn, all three filesystems
# interleaved: the ratios and the comparison across filesystems come from
# reads made under the same conditions on the host.
for ((i = 1; i <= END_REPS; i++)); do
	for fs in "${fss[@]}"; do
		note "$fs: final reads, $i of $END_REPS"
		aged_read "$fs" "$ROUNDS" final "$(jget files "${aged[$fs]}")" "$(jget bytes "${aged[$fs]}")"
		read_cold "$fs" "${fresh_dev[$fs]}" "$(fresh_of "$fs")" "$(fresh_of "$fs")/linux-source-6.1"
		same_tree "$fs, fresh copy, cold read" "${aged[$fs]}" "$got" files bytes
		record fs="\"$fs\"" round="$ROUNDS" phase='"fresh"' seconds="$(jget seconds "$got")" \
			files="$(jget files "$got")" bytes="$(jget bytes "$got")" "${io[@]}"
	done
done

for fs in "${fss[@]}"; do
	done_fs "$fs" "${fresh_dev[$fs]}" "$(fresh_of "$fs")"
	done_fs "$fs" "${dev[$fs]}" "/mnt/age-$fs"
done
echo "duration_s $SECONDS" >>"$VM_RESULTS/info.txt"
cat "$raw"
