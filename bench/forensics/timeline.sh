#!/bin/bash
# Timeline benchmark (issue 28): the bodyfile of 100,000 inodes, stalefs-timeline and
# debugfs.stalefs' timeline against The Sleuth Kit's fls -m / -r, each on an image
# populated from the same tree (bench/gentree.py's 100,000 files in 10,000 directories;
# mkfs.stalefs -d and mke2fs -t ext4 -d, 4 GiB sparse files).  Page cache warm (one
# untimed run of each first), runs interleaved; per run wall time, CPU time and peak RSS
# (GNU time, bench/fsck/rusage.py).  Before timing, each tool's output is checked: every
# file and directory of the tree is listed once with its size, so a fast wrong answer
# cannot pass.  Results: bench/RESULTS.md section "timeline"; raw lines in
# $BENCH_OUT/timeline.jsonl.
#
# Environment: RUNS (5), BENCH_TMP (/var/tmp), STALEFS_TIMELINE, STALEFS_DEBUGFS,
# STALEFS_MKFS (build/...).  Set-up: bench/lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
RUNS=${RUNS:-5}
TIMELINE=${STALEFS_TIMELINE:-$top/build/stalefs-timeline}
DEBUGFS=${STALEFS_DEBUGFS:-$top/build/debugfs.stalefs}

bench_need bench/forensics/timeline.sh "$TIMELINE" "$DEBUGFS" "$MKFS" mke2fs fls python3 /usr/bin/time
bench_start timeline

tree=$work/tree
bench_tree "$tree"
echo "populating images (untimed)"
bench_image stalefs "$tree"
bench_image ext4 "$tree"

cmd_for() {   # TOOL -> the command line in the array `cmd`
	case $1 in
	stalefs-timeline) cmd=("$TIMELINE" "$work/stalefs.img") ;;
	debugfs-timeline) cmd=("$DEBUGFS" -R timeline "$work/stalefs.img") ;;
	fls) cmd=(fls -m / -r "$work/ext4.img") ;;
	esac
}

# The answers, checked once (also the cache-warming run): path -> size for every entry
# of the tree, in each tool's output, the same as the tree's own.
python3 - "$tree" >"$work/want" <<'PY'
import os, sys
top = sys.argv[1]
for d, dirs, files in os.walk(top):
    for n in dirs + files:
        p = os.path.join(d, n)
        st = os.lstat(p)
        print("/" + os.path.relpath(p, top), st.st_size if not os.path.isdir(p) else "dir")
PY
for tool in stalefs-timeline debugfs-timeline fls; do
	cmd_for $tool
	"${cmd[@]}" 2>/dev/null | python3 -c '
import sys
for line in sys.stdin:
    f = line.rstrip("\n").split("|")
    name, mode, size = "|".join(f[1:-9]), f[-8], f[-5]
    if name in ("/", "/lost+found", "/$OrphanFiles") or name.startswith("/$OrphanFiles/"):
        continue
    print(name, "dir" if mode.startswith("d/") else size)' | sort >"$work/got.$tool"
	sort "$work/want" | cmp -s - "$work/got.$tool" || {
		echo "bench/forensics/timeline.sh: $tool does not list the tree as it is: $(sort "$work/want" | diff - "$work/got.$tool" | head -5)" >&2
		exit 1
	}
done
entries=$(wc -l <"$work/want")

echo "timeline of $entries entries: $RUNS interleaved runs of each tool"
for ((r = 0; r < RUNS; r++)); do
	for tool in stalefs-timeline debugfs-timeline fls; do
		cmd_for $tool
		bench_rusage "$tool" entries="$entries" -- "${cmd[@]}" >>"$raw"
	done
done
python3 "$here/report.py" "$raw" "$BENCH_LOAD" "$top/bench/RESULTS.md"
