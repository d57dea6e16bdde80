#!/bin/bash
# The FUSE benchmark on the host: stalefs-fuse beside fuse2fs (ext4 through
# FUSE, e2fsprogs), same machine, same run, cases interleaved run by run
# (stalefs, ext4, stalefs, ...) so drift hits both alike.  Cases
# (bench/fuse/cases.sh): sequential write and cold read of SEQ_MB (256) MiB,
# random O_DIRECT 4 KiB reads, create/stat/unlink of 10,000 files in one
# directory, cp -a and tar x of a source tree (/usr/include).  Each
# filesystem is a fresh 1 GiB image per run, made by its own mkfs with its
# defaults; both servers run with their defaults (stalefs-fuse: journaled,
# multithreaded, sandboxed; fuse2fs: libfuse's defaults).  Figures go to
# $BENCH_OUT/fuse.jsonl; bench/fuse/report.py writes the "fuse" section of
# bench/RESULTS.md.
#
# Environment: RUNS (3), SEQ_MB, META_FILES, RAND_MB, TREE (cases.sh), BENCH_TMP
# (/var/tmp: a real disk), STALEFS_FUSE (build/stalefs-fuse).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
# shellcheck source=bench/fuse/cases.sh
. "$here/cases.sh"
SFUSE=${STALEFS_FUSE:-$top/build/stalefs-fuse}
RUNS=${RUNS:-3} SEQ_MB=${SEQ_MB:-256} META_FILES=${META_FILES:-10000} RAND_MB=${RAND_MB:-32}
TREE=${TREE:-/usr/include}
bench_need bench/fuse/fuse.sh fuse2fs mke2fs fio python3 "$SFUSE" "$MKFS"
[ "$(id -u)" = 0 ] || { echo "bench/fuse/fuse.sh: needs root (drop_caches, mounts)" >&2; exit 1; }
[ -c /dev/fuse ] || { echo "bench/fuse/fuse.sh: no /dev/fuse" >&2; exit 1; }
bench_start fuse
IMG=$work/fs.img
MNT=$work/mnt
TREE_TAR=$work/tree.tar
mkdir -p "$MNT"
tar cf "$TREE_TAR" -C "$(dirname "$TREE")" "$(basename "$TREE")"
cat "$TREE_TAR" >/dev/null	# warm: both read their source from memory
cp -a "$TREE" "$work/warm" && rm -rf "$work/warm"
server=
bench_on_exit='[ -z "$server" ] || { umount -l "$MNT" 2>/dev/null; kill "$server" 2>/dev/null; }'

mount_fs() {
	case $FS in
	stalefs) "$SFUSE" -f "$IMG" "$MNT" >>"$work/server.log" 2>&1 & ;;
	ext4) fuse2fs -f "$IMG" "$MNT" -o rw >>"$work/server.log" 2>&1 & ;;
	esac
	server=$!
	local i
	for i in $(seq 500); do
		grep -q " $MNT fuse" /proc/mounts && return 0
		sleep 0.01
	done
	echo "bench/fuse/fuse.sh: $FS did not mount" >&2
	exit 1
}

umount_fs() {
	umount "$MNT"
	wait "$server"
	server=
}

for run in $(seq "$RUNS"); do
	for FS in stalefs ext4; do
		rm -f "$IMG"
		truncate -s 1G "$IMG"
		case $FS in
		stalefs) "$MKFS" -q "$IMG" ;;
		ext4) mke2fs -q -t ext4 -F "$IMG" ;;
		esac
		echo "bench/fuse/fuse.sh: run $run, $FS" >&2
		run_cases "$FS" | bench_tag run="$run" >>"$raw"
	done
done
# The machine is shared: the load at the start and at the end both go in the report.
python3 "$here/report.py" --raw "$raw" --load "$BENCH_LOAD (start), $(cut -d' ' -f1-3 /proc/loadavg) (end)" --runs "$RUNS" --seq-mb "$SEQ_MB" \
	--files "$META_FILES" --tree "$TREE" --out "$top/bench/RESULTS.md"
echo "bench/fuse/fuse.sh: results in bench/RESULTS.md"
