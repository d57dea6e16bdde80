# shellcheck shell=bash
# Set-up shared by the benchmark scripts (bench/mkfs.sh, bench/fsck/fsck.sh,
# bench/debugfs/debugfs.sh, bench/vm/run.sh, bench/vm/resize-run.sh,
# bench/vm/ab-run.sh, bench/vm/tree-run.sh).  Source it
# after `set -euo pipefail`:  . "$(dirname "$0")/../lib.sh"
#
# Sets: bench_dir (this directory) and top (the checkout); BENCH_TMP
# (/var/tmp, exported) and BENCH_OUT (build/bench) unless the environment set
# them; MKFS (STALEFS_MKFS, default build/mkfs.stalefs); BENCH_LOAD (exported),
# the load average when the script started, for the report.
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$bench_dir/.." && pwd)
BENCH_TMP=${BENCH_TMP:-/var/tmp}
export BENCH_TMP
BENCH_OUT=${BENCH_OUT:-$top/build/bench}
MKFS=${STALEFS_MKFS:-$top/build/mkfs.stalefs}
# Other work on the machine shows in the spread; the report records the load.
BENCH_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
export BENCH_LOAD
bench_on_exit=	# a script may set it (after sourcing this) to a command run on exit

# bench_need SCRIPT TOOL...: fail, naming SCRIPT, unless every TOOL is there.
bench_need() {
	local who=$1 tool
	shift
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "$who: $tool not found (make programs; tools/install-deps)" >&2; exit 1; }
	done
}

# bench_start NAME: creates $BENCH_OUT, a fresh $work directory under
# $BENCH_TMP (removed on exit, after running $bench_on_exit if the script set
# it) and an empty $raw = $BENCH_OUT/NAME.jsonl for the raw JSON lines.
bench_start() {
	mkdir -p "$BENCH_OUT"
	work=$(mktemp -d "$BENCH_TMP/stalefs-$1-bench.XXXXXX")
	trap 'eval "$bench_on_exit"; rm -rf "$work"' EXIT
	raw=$BENCH_OUT/$1.jsonl
	: >"$raw"
}

# bench_tree DIR: bench/gentree.py's tree of 100,000 files in DIR, unless DIR exists.
bench_tree() {
	[ -d "$1" ] || python3 "$bench_dir/gentree.py" "$1"
}

# bench_srctree DIRS: sets srcdirs, srctar and srcinfo.  srctar is an
# uncompressed tar of part of Debian's Linux source (linux-source-6.1): the
# directories srcdirs (SRC_DIRS if set, else DIRS) under linux-source-6.1/;
# srcinfo is bench/vm/treeread --sum's line for that tree, which a guest
# checks what it extracted and read against.  Made once in build/bench (a
# name per srcdirs) and kept.
bench_srctree() {
	local xz=/usr/src/linux-source-6.1.tar.xz d stage members=()
	srcdirs=${SRC_DIRS:-$1}
	[[ -f $xz ]] || { echo "bench_srctree: $xz is missing (tools/install-deps installs linux-source-6.1)" >&2; exit 1; }
	[[ -x $top/build/treeread ]] || { echo "bench_srctree: $top/build/treeread is missing (make programs)" >&2; exit 1; }
	for d in $srcdirs; do
		[[ $d =~ ^[A-Za-z0-9_][A-Za-z0-9_./-]*$ && $d != *..* ]] ||
			{ echo "bench_srctree: SRC_DIRS: '$d' is not a directory of the source tree" >&2; exit 2; }
		members+=("linux-source-6.1/${d%/}")
	done
	srctar=$top/build/bench/linux-src.$(tr ' /' '+-' <<<"$srcdirs").tar
	srcinfo=${srctar%.tar}.json
	[[ -s $srcinfo && -s $srctar && $srcinfo -nt $xz && $srcinfo -nt $top/build/treeread ]] && return
	echo "bench_srctree: extracting $srcdirs from $xz into $srctar"
	mkdir -p "$top/build/bench"
	stage=$(mktemp -d "$BENCH_TMP/stalefs-srctree.XXXXXX")
	tar -xJf "$xz" -C "$stage" "${members[@]}" &&
		tar --sort=name -cf "$srctar.tmp" -C "$stage" linux-source-6.1 &&
		"$top/build/treeread" --sum "$stage/linux-source-6.1" >"$srcinfo.tmp" &&
		mv "$srctar.tmp" "$srctar" && mv "$srcinfo.tmp" "$srcinfo" ||
		{ rm -rf "$stage" "$srctar.tmp" "$srcinfo.tmp"; echo "bench_srctree: could not make $srctar" >&2; exit 1; }
	rm -rf "$stage"
}

# bench_image FS TREE: $work/FS.img, a 4 GiB sparse image populated from TREE
# (FS stalefs: mkfs.stalefs -d; ext4: mke2fs -t ext4 -d).
bench_image() {
	case $1 in
	stalefs) "$MKFS" -q -d "$2" "$work/stalefs.img" 4G ;;
	ext4) mke2fs -q -t ext4 -F -d "$2" "$work/ext4.img" 4G ;;
	*) echo "bench_image: unknown filesystem $1" >&2; exit 1 ;;
	esac
}

# bench_tag KEY=VALUE...: copy JSON lines from stdin to stdout, each with the
# keys added (string values, in this order).
bench_tag() {
	if (($# == 0)); then
		cat
		return
	fi
	python3 -c 'import json, sys
tags = [a.split("=", 1) for a in sys.argv[1:]]
for line in sys.stdin:
    d = json.loads(line)
    d.update(tags)
    print(json.dumps(d))' "$@"
}

# bench_rusage LABEL [KEY=VALUE...] -- COMMAND...: run COMMAND once under
# bench/fsck/rusage.py (wall time, CPU time, peak RSS); print its JSON line,
# tagged with the keys.
bench_rusage() {
	local label=$1 tags=()
	shift
	while (($#)) && [[ $1 != -- ]]; do
		tags+=("$1")
		shift
	done
	shift
	python3 "$bench_dir/fsck/rusage.py" "$label" "$@" | bench_tag ${tags[@]+"${tags[@]}"}
}

# bench_vm WHO GUEST TIMEOUT LOGDIR: boot the VM once for the guest script
# GUEST (tests/vm/run-vm --cache none, so the host page cache flatters no
# filesystem; its disk images under BENCH_TMP, a real disk where O_DIRECT
# works), logs in LOGDIR (emptied first), VM_TIMEOUT or TIMEOUT seconds.
# A failed run says where its log is and exits with its status.
bench_vm() {
	local who=$1 guest=$2 timeout=$3 logdir=$4 rc=0
	rm -rf "$logdir"
	TMPDIR=$BENCH_TMP "$top/tests/vm/run-vm" --cache none --timeout "${VM_TIMEOUT:-$timeout}" \
		--logdir "$logdir" "$guest" || rc=$?
	if ((rc)); then
		echo "$who: the benchmark failed; log in $logdir/$(basename "$guest" .sh).log" >&2
		exit "$rc"
	fi
}

# bench_conf WHO FILE VAR...: the VARs the environment sets, as VAR=N lines in
# FILE (emptied first), for a guest script to source; each must be a number.
bench_conf() {
	local who=$1 conf=$2 v
	shift 2
	mkdir -p "$(dirname "$conf")"
	: >"$conf"
	for v in "$@"; do
		if [[ -n ${!v:-} ]]; then
			[[ ${!v} =~ ^[0-9]+$ ]] || { echo "$who: $v must be a number" >&2; exit 2; }
			echo "$v=${!v}" >>"$conf"
		fi
	done
}
