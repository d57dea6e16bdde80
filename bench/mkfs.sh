#!/bin/bash
# mkfs benchmarks, side by side with mke2fs and mkfs.xfs in the same run:
#   1. formatting 64 GiB and 1 TiB sparse files: time, bytes written, bytes allocated;
#   2. mkfs -d from a deterministic tree of 100,000 files in 10,000 directories.
# Runs are interleaved (stalefs, ext4, xfs, stalefs, ...) so drift in the
# machine hits every tool alike.  Results: bench/RESULTS.md (sections "mkfs"
# and "mkfs-d"), raw measurements in $BENCH_OUT/mkfs.jsonl.
#
# Environment: RUNS (7), RUNS_D (5), BENCH_TMP (/var/tmp: on the host's disk,
# not tmpfs), STALEFS_MKFS (build/mkfs.stalefs), SKIP_D=1 to skip part 2.
# Set-up: bench/lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
RUNS=${RUNS:-7}
RUNS_D=${RUNS_D:-5}

bench_need bench/mkfs.sh "$MKFS" mke2fs mkfs.xfs python3
bench_start mkfs
img=$work/target.img

# measure BENCH CASE TOOL SIZE -- command...  (one run, appended to $raw)
measure() {
	local bench=$1 case=$2 tool=$3 size=$4
	shift 5
	python3 "$here/measure.py" --label "$tool" --runs 1 --target "$img" --size "$size" -- "$@" |
		bench_tag bench="$bench" case="$case" >>"$raw"
}

for size in 64G 1T; do
	echo "mkfs on a $size sparse file: $RUNS runs of each tool"
	for ((r = 0; r < RUNS; r++)); do
		measure mkfs "$size" stalefs "$size" -- "$MKFS" -q "$img"
		measure mkfs "$size" ext4 "$size" -- mke2fs -q -t ext4 -F "$img"
		measure mkfs "$size" xfs "$size" -- mkfs.xfs -q -f "$img"
	done
done

rm -f "$BENCH_OUT/gentree.txt"
if [ "${SKIP_D:-0}" != 1 ]; then
	tree=$work/tree
	bench_tree "$tree" | tee "$BENCH_OUT/gentree.txt"
	python3 "$here/protofile.py" "$tree" >"$work/tree.proto"
	# One untimed pass reads the tree into the page cache for every tool alike.
	cat "$work/tree.proto" >/dev/null
	find "$tree" -type f -exec cat {} + >/dev/null
	echo "mkfs -d from the tree into a 4 GiB sparse file: $RUNS_D runs of each tool"
	for ((r = 0; r < RUNS_D; r++)); do
		measure mkfs-d 100k-files stalefs 4G -- "$MKFS" -q -d "$tree" "$img"
		measure mkfs-d 100k-files ext4 4G -- mke2fs -q -t ext4 -F -d "$tree" "$img"
		measure mkfs-d 100k-files xfs 4G -- mkfs.xfs -q -f -p "$work/tree.proto" "$img"
	done
fi

python3 "$here/report.py" --raw "$raw" --work "$work" --results "$here/RESULTS.md" \
	--gentree "$BENCH_OUT/gentree.txt"
echo "bench/mkfs.sh: results in bench/RESULTS.md"
