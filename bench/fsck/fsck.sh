#!/bin/bash
# fsck benchmark (issue 3): fsck.stalefs -fn against e2fsck -fn on images
# populated from the same tree of 100,000 files in 10,000 directories
# (bench/gentree.py: mkfs.stalefs -d, mke2fs -t ext4 -d), plus xfs_repair -n
# when mkfs.xfs can populate.  Runs are interleaved (stalefs, ext4, stalefs,
# ...), the page cache warm for both (one untimed run each first).  Per run:
# wall time, CPU time (user + system) and peak RSS (wait4's ru_maxrss).
# Results: bench/RESULTS.md section "fsck"; raw lines in $BENCH_OUT/fsck.jsonl.
#
# Environment: RUNS (7), BENCH_TMP (/var/tmp), STALEFS_FSCK, STALEFS_MKFS
# (build/...), KEEP_TREE=DIR to reuse a generated tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
RUNS=${RUNS:-7}
FSCK=${STALEFS_FSCK:-$top/build/fsck.stalefs}
MKFS=${STALEFS_MKFS:-$top/build/mkfs.stalefs}
BENCH_TMP=${BENCH_TMP:-/var/tmp}
BENCH_OUT=${BENCH_OUT:-$top/build/bench}

for tool in "$FSCK" "$MKFS" mke2fs e2fsck python3; do
	command -v "$tool" >/dev/null || { echo "bench/fsck/fsck.sh: $tool not found" >&2; exit 1; }
done
mkdir -p "$BENCH_OUT"
work=$(mktemp -d "$BENCH_TMP/stalefs-fsck-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
raw=$BENCH_OUT/fsck.jsonl
: >"$raw"
load=$(cut -d' ' -f1-3 /proc/loadavg)

tree=${KEEP_TREE:-$work/tree}
[ -d "$tree" ] || python3 "$top/bench/gentree.py" "$tree"
echo "populating images (untimed)"
"$MKFS" -q -d "$tree" "$work/stalefs.img" 4G
mke2fs -q -t ext4 -F -d "$tree" "$work/ext4.img" 4G
# Both must be clean, or the comparison means nothing.
"$FSCK" -fn "$work/stalefs.img" >/dev/null
e2fsck -fn "$work/ext4.img" >/dev/null 2>&1

for ((r = -1; r < RUNS; r++)); do
	for tool in stalefs ext4; do
		if [ $tool = stalefs ]; then cmd=("$FSCK" -fn "$work/stalefs.img"); else cmd=(e2fsck -fn "$work/ext4.img"); fi
		line=$(python3 "$here/rusage.py" "$tool" "${cmd[@]}")
		[ "$r" -ge 0 ] && echo "$line" >>"$raw"	# run -1 warms the cache
	done
done
python3 "$here/report.py" "$raw" "$load" "$top/bench/RESULTS.md"
