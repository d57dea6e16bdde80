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
# (build/...), KEEP_TREE=DIR to reuse a generated tree.  Set-up: bench/lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
RUNS=${RUNS:-7}
FSCK=${STALEFS_FSCK:-$top/build/fsck.stalefs}

bench_need bench/fsck/fsck.sh "$FSCK" "$MKFS" mke2fs e2fsck python3
bench_start fsck

tree=${KEEP_TREE:-$work/tree}
bench_tree "$tree"
echo "populating images (untimed)"
bench_image stalefs "$tree"
bench_image ext4 "$tree"
# Both must be clean, or the comparison means nothing.
"$FSCK" -fn "$work/stalefs.img" >/dev/null
e2fsck -fn "$work/ext4.img" >/dev/null 2>&1

for ((r = -1; r < RUNS; r++)); do
	for tool in stalefs ext4; do
		if [ $tool = stalefs ]; then cmd=("$FSCK" -fn "$work/stalefs.img"); else cmd=(e2fsck -fn "$work/ext4.img"); fi
		line=$(bench_rusage "$tool" -- "${cmd[@]}")
		[ "$r" -ge 0 ] && echo "$line" >>"$raw"	# run -1 warms the cache
	done
done
python3 "$here/report.py" "$raw" "$BENCH_LOAD" "$top/bench/RESULTS.md"
