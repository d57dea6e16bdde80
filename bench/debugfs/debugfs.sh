#!/bin/bash
# debugfs benchmark (issue 7): debugfs.stalefs against e2fsprogs' debugfs on
# images populated from the same tree (mkfs.stalefs -d, mke2fs -t ext4 -d):
#   ls -l  of one directory of 100,000 entries (/flat);
#   ncheck of 1,000 inodes (every hundredth file of bench/gentree.py's
#          100,000 in 10,000 directories), so the whole tree is walked.
# Page cache warm (one untimed run of each first), runs interleaved.  Per
# run: wall time, CPU time and peak RSS (GNU time, bench/fsck/rusage.py).
# Before timing, each tool's output is checked: ls -l lists all 100,000
# files and ncheck finds 1,000 paths, so a fast wrong answer cannot pass.
# Results: bench/RESULTS.md section "debugfs"; raw lines in $BENCH_OUT/debugfs.jsonl.
#
# Environment: RUNS (5), BENCH_TMP (/var/tmp), STALEFS_DEBUGFS, STALEFS_MKFS
# (build/...).  Needs root (a loop mount, see below).  Set-up: bench/lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
RUNS=${RUNS:-5}
DEBUGFS=${STALEFS_DEBUGFS:-$top/build/debugfs.stalefs}
FLAT=100000

bench_need bench/debugfs/debugfs.sh "$DEBUGFS" "$MKFS" mke2fs debugfs python3 /usr/bin/time
# shellcheck disable=SC2016,SC2034  # evaluated by bench/lib.sh's exit trap
bench_on_exit='umount "$work/mnt" 2>/dev/null || true'
bench_start debugfs

tree=$work/tree
bench_tree "$tree"
echo "populating images (untimed)"
# mke2fs -d adds each entry by scanning its whole directory (1.47.0's
# ext2fs_link), so one directory of 100,000 entries would take it tens of
# minutes: ext4 gets the gentree tree by mke2fs -d and /flat from the kernel
# through a loop mount (an indexed directory, as ext4 makes them); e2fsck
# then checks the image.  mkfs.stalefs -d takes the tree with /flat in it.
bench_image ext4 "$tree"
python3 -c 'import os, sys
os.mkdir(sys.argv[1])
for i in range(int(sys.argv[2])): open(os.path.join(sys.argv[1], "f%06d" % i), "w").close()' "$tree/flat" "$FLAT"
bench_image stalefs "$tree"
mkdir "$work/mnt"
mount -o loop "$work/ext4.img" "$work/mnt"
cp -a "$tree/flat" "$work/mnt/flat"
umount "$work/mnt"
e2fsck -fn "$work/ext4.img" >/dev/null 2>&1 || { echo "bench/debugfs/debugfs.sh: the ext4 image is not clean" >&2; exit 1; }
# The 1,000 inodes: the ten files of every hundredth directory of the gentree
# part (d000/s000 ... d099/s...), looked up in each image by its own debugfs.
inodes() {   # TOOL IMAGE
	local i
	for ((i = 0; i < 100; i++)); do printf 'ls -l /d%03d/s%03d\n' $i $((i % 99)); done >"$work/ls.cmds"
	"$1" -f "$work/ls.cmds" "$2" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $NF != "." && $NF != ".." { print $1 }' | tr '\n' ' '
}
ino_s=$(inodes "$DEBUGFS" "$work/stalefs.img")
ino_e=$(inodes debugfs "$work/ext4.img")
for l in "$ino_s" "$ino_e"; do
	n=$(wc -w <<<"$l")
	[[ $n == 1000 ]] || { echo "bench/debugfs/debugfs.sh: expected 1000 inodes to look up, found $n" >&2; exit 1; }
done

cmd_for() {   # TOOL BENCH -> the command line in the array `cmd`
	local img=$work/$1.img dbg=$DEBUGFS ino=$ino_s
	[[ $1 == ext4 ]] && dbg=debugfs ino=$ino_e
	case $2 in
	ls) cmd=("$dbg" -R "ls -l /flat" "$img") ;;
	ncheck) cmd=("$dbg" -R "ncheck $ino" "$img") ;;
	esac
}

# Check the answers once (this is also the cache-warming run).
for tool in stalefs ext4; do
	cmd_for $tool ls
	n=$("${cmd[@]}" 2>/dev/null | grep -c ' f[0-9]\{6\}$' || true)
	[[ $n == "$FLAT" ]] || { echo "bench/debugfs/debugfs.sh: $tool ls -l listed $n of the $FLAT files" >&2; exit 1; }
	cmd_for $tool ncheck
	out=$("${cmd[@]}" 2>/dev/null)
	found=$(grep -c '^[0-9][0-9]*	/d0' <<<"$out" || true)
	if [[ $found != 1000 ]] || grep -q 'not found' <<<"$out"; then
		echo "bench/debugfs/debugfs.sh: $tool ncheck found $found of 1000 paths" >&2
		exit 1
	fi
done

echo "debugfs ls -l and ncheck: $RUNS interleaved runs of each tool"
for ((r = 0; r < RUNS; r++)); do
	for bench in ls ncheck; do
		for tool in stalefs ext4; do
			cmd_for $tool $bench
			bench_rusage "$tool" bench="$bench" -- "${cmd[@]}" >>"$raw"
		done
	done
done
python3 "$here/report.py" "$raw" "$BENCH_LOAD" "$top/bench/RESULTS.md"
