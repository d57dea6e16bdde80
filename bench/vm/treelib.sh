# shellcheck shell=bash
# Guest-side helpers of the many-files and aging benchmarks
# (bench/vm/treebench.sh, bench/vm/agingbench.sh), sourced after
# tests/vm/lib.sh.  The host (bench/vm/tree-run.sh) leaves NAME.conf in
# build/bench: the knobs, SRC_TAR (the Linux source tarball) and SRC_INFO
# (bench/vm/treeread --sum's line for its tree).
#
# io_delta and extents print KEY=VALUE pairs without spaces in them, for
# record; the callers split them on purpose: $(io_delta ...) unquoted.
#
# Sets: TREEREAD, AGETREE, raw ($VM_RESULTS/NAME.jsonl, emptied), want (the
# contents of SRC_INFO), tarball (SRC_TAR copied into the guest's tmpfs, so
# that reading it costs no disk I/O in any measured phase).

# tree_setup NAME: the above; the caller has set its defaults already.
tree_setup() {
	local conf=$STALEFS_BUILD/bench/$1.conf t
	[[ -f $conf ]] || fail "$conf is missing (bench/vm/tree-run.sh writes it)"
	# shellcheck source=/dev/null
	. "$conf"
	TREEREAD=$STALEFS_BUILD/treeread
	AGETREE=$STALEFS_BUILD/agetree
	for t in "$TREEREAD" "$AGETREE" "$MKFS_STALEFS" "$FSCK_STALEFS"; do
		[[ -x $t ]] || fail "$t is missing (make programs)"
	done
	[[ -f ${SRC_TAR:-} && -f ${SRC_INFO:-} ]] || fail "the source tarball or its info is missing ($conf)"
	want=$(<"$SRC_INFO")
	raw=$VM_RESULTS/$1.jsonl
	: >"$raw"
	note "copying $(basename "$SRC_TAR") into tmpfs"
	tarball=$VM_SCRATCH/src.tar
	cp "$SRC_TAR" "$tarball"
	assert_eq "$(stat -c %s "$SRC_TAR")" "$(stat -c %s "$tarball")" "size of the tarball copied into tmpfs"
	{
		echo "kernel $(uname -r)"
		echo "cpus $(nproc)"
		echo "mem_kb $(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
		echo "tar $(tar --version | head -1)"
		echo "src $want"
	} >"$VM_RESULTS/info.txt"
}

# jget KEY JSON: the value of KEY in a flat JSON line (numbers and strings).
jget() {
	[[ $2 =~ \"$1\":\ \"?([^,\"}]*) ]] || fail "no $1 in: $2"
	echo "${BASH_REMATCH[1]}"
}

# same_tree WHAT JSON-A JSON-B KEY...: the KEYs of two treeread lines agree.
same_tree() {
	local what=$1 a=$2 b=$3 k
	shift 3
	for k in "$@"; do
		assert_eq "$(jget "$k" "$a")" "$(jget "$k" "$b")" "$what: $k"
	done
}

now() { date +%s.%N; }
# elapsed T0: seconds since T0 (from now), as JSON takes it (bc says ".5").
elapsed() { printf '%.6f\n' "$(echo "$(now) - $1" | bc)"; }

# record KEY=VALUE...: one JSON line in $raw; values are numbers unless quoted
# by the caller (fs='"xfs"').
record() {
	local kv out=""
	for kv in "$@"; do out+="${out:+, }\"${kv%%=*}\": ${kv#*=}"; done
	echo "{$out}" >>"$raw"
}

# The device's counters (/sys/block/DEV/stat): reads, sectors read, writes,
# sectors written.  io_delta DEV BEFORE: KEY=VALUE pairs for record.
dstat() { awk '{ print $1, $3, $5, $7 }' "/sys/block/${1#/dev/}/stat"; }
io_delta() {
	local a b
	read -ra a <<<"$2"
	read -ra b <<<"$(dstat "$1")"
	echo "rd_req=$((b[0] - a[0])) rd_kib=$(((b[1] - a[1]) / 2)) wr_req=$((b[2] - a[2])) wr_kib=$(((b[3] - a[3]) / 2))"
}

# new_fs FS DEV MNT: a fresh filesystem on DEV (bench/vm/guest-mkfs.sh),
# mounted on MNT.
. "$STALEFS_ROOT/bench/vm/guest-mkfs.sh"
new_fs() {
	bench_mkfs "$1" "$2"
	mkdir -p "$3"
	mount -t "$1" "$2" "$3"
	grep -q "^$1 " "$VM_RESULTS/mounts.txt" 2>/dev/null || echo "$1 $(grep " $3 " /proc/mounts)" >>"$VM_RESULTS/mounts.txt"
}

# done_fs FS DEV MNT: unmount; a stalefs filesystem must then check clean.
done_fs() {
	umount "$3"
	if [[ $1 == stalefs ]]; then fsck_clean "$2" >/dev/null; fi
	return 0
}

# used_pct MNT: the share of the filesystem's blocks in use, in percent.
used_pct() {
	stat -f -c '%b %f' "$1" | awk '{ printf "%.1f\n", 100 * ($1 - $2) / $1 }'
}

# extents DIR: KEY=VALUE pairs for record: the mean extents per non-empty
# file under DIR (filefrag, FIEMAP) and how many such files have more than one.
extents() {
	find "$1" -type f -size +0 -print0 | xargs -0 filefrag |
		awk '{ n = $(NF - 2); e += n; f++; if (n > 1) m++ }
		END { printf "extents_per_file=%.3f fragmented=%d nonempty=%d\n", f ? e / f : 0, m, f }'
}

# cold FS DEV MNT: unmount, drop the caches and mount again, so that what
# comes next reads metadata and data from the disk.  drop_caches alone does
# not do it: right after a tree is written the journal (ext4) and the log
# (XFS) still pin metadata, and a later `find` of the tree then reads almost
# nothing from the disk.
cold() {
	umount "$3"
	drop_caches
	mount -t "$1" "$2" "$3"
}

# read_cold FS DEV MNT DIR: cold, then read every file under DIR once
# (bench/vm/treeread); sets got (treeread's JSON line) and the array io
# (DEV's requests meanwhile, KEY=VALUE pairs for record).
# shellcheck disable=SC2034  # got and io are for the caller
read_cold() {
	local before
	cold "$1" "$2" "$3"
	before=$(dstat "$2")
	got=$("$TREEREAD" "$4")
	read -ra io <<<"$(io_delta "$2" "$before")"
}
