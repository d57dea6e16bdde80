#!/bin/bash
# VM benchmark (issue 7): stalefs, ext4 and XFS on the same virtual disk in
# one boot.  Run by bench/vm/run.sh through tests/vm/run-vm --cache none;
# it writes raw figures to $VM_RESULTS (fio JSON per run, dirbench lines) and
# bench/vm/report.py on the host turns them into bench/RESULTS.md tables.
# Each case checks that its file is in the state it claims (fiemap flags) and
# every stalefs run ends with a clean fsck, so a figure never comes from a
# broken setup.  Nothing here asserts a timing.
# needs: stalefs
# needs: ext4 xfs
# disk: bench:2G:full
# timeout: 3600
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/bench/vm/guest-mkfs.sh"

# Sizes and repetitions; bench/vm/run.sh may override them (REPS=1 for a
# quick look) through a file next to the build, which the guest sees read-only.
# Under TCG on a shared 2-core host the metadata set alone takes about ten
# minutes per repetition, hence fewer repetitions of the slow parts.
RAND_REPS=3          # repetitions of the random-write cases
SEQ_REPS=2           # ... of the sequential ones
META_REPS=1          # ... of the metadata ones
FILE_MB=256          # the preallocated file of the random cases; the sequential size
RAND_S=5             # seconds of random writes per run (fio time_based)
META_SMALL=10000     # files in one directory
META_BIG=100000      # files in META_DIRS directories
META_DIRS=100
conf=$STALEFS_BUILD/bench/fsbench.conf
# shellcheck source=/dev/null
[[ -f $conf ]] && . "$conf"

dev=$VM_DISK_BENCH
mnt=/mnt/b
G=4242	# the NO_HIDE_STALE permitted group (root holds CAP_SYS_RAWIO)
STALE_FALLOC=$STALEFS_BUILD/stalefs-falloc
DIRBENCH=$STALEFS_BUILD/dirbench
for t in "$STALE_FALLOC" "$DIRBENCH" "$MKFS_STALEFS" "$FSCK_STALEFS"; do
	[[ -x $t ]] || fail "$t is missing (make programs)"
done
command -v fio >/dev/null || fail "fio is not installed (tools/install-deps)"
mkdir -p $mnt "$VM_RESULTS/fio"
meta=$VM_RESULTS/meta.jsonl
: >"$meta"

# Fill the whole disk once with a pattern: the host's image file is then
# allocated everywhere, so no filesystem pays for the host allocating blocks
# behind it (run-vm's disks start sparse), and zero-detection on the host
# cannot turn a filesystem's writes into discards.  mkfs runs below never
# discard (mke2fs -E nodiscard, mkfs.xfs -K, mkfs.stalefs -E nodiscard).
note "filling $dev with a pattern"
xfs_io -d -c "pwrite -q -S 0x5a -b 1m 0 $(blockdev --getsize64 "$dev")" "$dev"

{
	echo "kernel $(uname -r)"
	echo "fio $(fio --version)"
	echo "cpus $(nproc)"
	echo "mem_kb $(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
	echo "disk_bytes $(blockdev --getsize64 "$dev")"
	echo "scheduler $(cat /sys/block/"${dev#/dev/}"/queue/scheduler)"
} >"$VM_RESULTS/info.txt"

# new_fs FS [MOUNT-OPTIONS]: a fresh filesystem on the disk, mounted on $mnt.
# ext4 initialises its inode tables and journal in mkfs, so no background
# zeroing thread runs during the measurements.
# stalefs-nj is stalefs without a journal (-O ^has_journal): what the journal costs.
new_fs() {
	local fs=$1 opts=${2:-defaults}
	bench_mkfs "$fs" "$dev"
	mount -t "${fs%-nj}" -o "$opts" "$dev" $mnt
	# What was measured, once per filesystem and option set.
	grep -q "^$fs $opts " "$VM_RESULTS/mounts.txt" 2>/dev/null ||
		echo "$fs $opts $(grep " $mnt " /proc/mounts)" >>"$VM_RESULTS/mounts.txt"
}

# done_fs FS: unmount; a stalefs image must then check clean.
done_fs() {
	umount $mnt
	[[ $1 == stalefs* ]] && fsck_clean "$dev" >/dev/null
	return 0
}

# fiemap_state FILE: "unwritten" if every extent is flagged UNWRITTEN,
# "written" if none is, "mixed" otherwise; "empty" without extents.
fiemap_state() {
	# fiemap -v prints flags in hex; 0x800 is set when the third hex digit
	# from the right is 8 or more.  awk, not a shell loop: a converted file
	# has thousands of extents and every shell step is slow under TCG.
	xfs_io -c "fiemap -v" "$1" | awk 'NR > 2 && $3 != "hole" {
		n++; if (index("89abcdef", substr($5, length($5) - 2, 1))) u++ }
		END { print !n ? "empty" : u == n ? "unwritten" : u ? "mixed" : "written" }'
}

# prep_rand HOW FILE: the FILE_MB file the random writes go into.
#   unwritten  fallocate(2): blocks allocated, flagged unwritten
#   nohide     STALEFS_IOC_FALLOCATE with NO_HIDE_STALE: allocated, no flag
#   overwrite  written once in full (the data is already on the disk)
prep_rand() {
	local how=$1 f=$2 want
	case $how in
	unwritten) fallocate -l "${FILE_MB}MiB" "$f"; want=unwritten ;;
	nohide)
		: >"$f"
		chown 0:$G "$f"
		chmod 0660 "$f"
		"$STALE_FALLOC" --no-hide-stale -o 0 -l "${FILE_MB}M" "$f"
		want=written ;;
	overwrite) xfs_io -f -d -c "pwrite -q -S 0xcd -b 1m 0 ${FILE_MB}m" "$f"; want=written ;;
	esac
	assert_eq "$want" "$(fiemap_state "$f")" "fiemap of the prepared $how file"
	drop_caches
}

# run_fio OUT fio-options...: one fio run, JSON into $VM_RESULTS/fio/OUT.json.
run_fio() {
	local out=$VM_RESULTS/fio/$1.json
	shift
	fio --output-format=json --output="$out" --ioengine=psync --fallocate=none "$@" >/dev/null ||
		fail "fio $* failed: $(cat "$out")"
	grep -q '"error" : 0' "$out" || fail "fio reported an error: $out"
}

# rand FS HOW MODE REP: random 4 KiB writes into a fresh prepared file.
rand() {
	local fs=$1 how=$2 mode=$3 rep=$4 opts=defaults f=$mnt/rand sync
	[[ $how == nohide ]] && opts=nohide_stale_gid=$G
	new_fs "$fs" "$opts"
	prep_rand "$how" $f
	if [[ $mode == direct ]]; then sync=(--direct=1); else sync=(--fsync=1); fi
	run_fio "rand-$mode.$fs-$how.$rep" --name="rand-$mode" --filename=$f --size="${FILE_MB}m" \
		--rw=randwrite --bs=4k --time_based --runtime="$RAND_S" --randrepeat=1 "${sync[@]}"
	# The unwritten cases must have converted what they wrote (and only that).
	[[ $how == unwritten ]] && assert_eq mixed "$(fiemap_state $f)" "fiemap after writing into unwritten"
	done_fs "$fs"
}

# seq FS REP: 256 MiB sequential, buffered (1 MiB writes, fsync at the end,
# included in the time) and O_DIRECT 1 MiB; reads from a cold cache.
seq_io() {
	local fs=$1 rep=$2
	new_fs "$fs"
	run_fio "seq-write-buffered.$fs.$rep" --name=seq-write-buffered --filename=$mnt/seq \
		--size="${FILE_MB}m" --rw=write --bs=1m --end_fsync=1
	drop_caches
	run_fio "seq-read-buffered.$fs.$rep" --name=seq-read-buffered --filename=$mnt/seq \
		--size="${FILE_MB}m" --rw=read --bs=1m
	rm $mnt/seq
	sync
	run_fio "seq-write-direct.$fs.$rep" --name=seq-write-direct --filename=$mnt/seqd \
		--size="${FILE_MB}m" --rw=write --bs=1m --direct=1
	drop_caches
	run_fio "seq-read-direct.$fs.$rep" --name=seq-read-direct --filename=$mnt/seqd \
		--size="${FILE_MB}m" --rw=read --bs=1m --direct=1
	done_fs "$fs"
}

# dirb FS SET REP dirbench-args...: one dirbench phase, tagged, into meta.jsonl.
dirb() {
	local fs=$1 set=$2 rep=$3 line
	shift 3
	line=$("$DIRBENCH" "$@") || fail "dirbench $* failed"
	echo "{\"fs\": \"$fs\", \"set\": \"$set\", \"rep\": $rep, \"result\": $line}" >>"$meta"
}

# meta FS REP: create, stat (cold cache), ls -l (cold) and unlink of
# META_SMALL files in one directory, then META_BIG files in META_DIRS.
meta_ops() {
	local fs=$1 rep=$2
	new_fs "$fs"
	mkdir $mnt/one $mnt/many
	dirb "$fs" one "$rep" create $mnt/one 1 "$META_SMALL"
	drop_caches
	dirb "$fs" one "$rep" stat $mnt/one 1 "$META_SMALL"
	drop_caches
	dirb "$fs" one "$rep" ls $mnt/one/d0000
	dirb "$fs" one "$rep" unlink $mnt/one 1 "$META_SMALL"
	dirb "$fs" many "$rep" create $mnt/many "$META_DIRS" "$META_BIG"
	drop_caches
	dirb "$fs" many "$rep" stat $mnt/many "$META_DIRS" "$META_BIG"
	dirb "$fs" many "$rep" unlink $mnt/many "$META_DIRS" "$META_BIG"
	done_fs "$fs"
}

# Interleaved: every repetition runs every filesystem once per case, so a
# slow spell on the shared host hits them alike.
RAND_CASES="stalefs:unwritten stalefs:nohide stalefs:overwrite stalefs-nj:unwritten stalefs-nj:overwrite
	    ext4:unwritten ext4:overwrite xfs:unwritten xfs:overwrite"
reps=$RAND_REPS
((SEQ_REPS > reps)) && reps=$SEQ_REPS
((META_REPS > reps)) && reps=$META_REPS
for ((rep = 1; rep <= reps; rep++)); do
	for mode in direct fsync; do
		((rep <= RAND_REPS)) || break
		for c in $RAND_CASES; do
			note "rep $rep: random 4 KiB $mode, ${c%:*} ${c#*:}"
			rand "${c%:*}" "${c#*:}" $mode $rep
		done
	done
	for fs in stalefs ext4 xfs; do
		((rep <= SEQ_REPS)) || break
		note "rep $rep: sequential, $fs"
		seq_io $fs $rep
	done
	for fs in stalefs stalefs-nj ext4 xfs; do
		((rep <= META_REPS)) || break
		note "rep $rep: metadata, $fs"
		meta_ops $fs $rep
	done
done
echo "rand_reps $RAND_REPS seq_reps $SEQ_REPS meta_reps $META_REPS file_mb $FILE_MB rand_s $RAND_S" \
	"meta_small $META_SMALL meta_big $META_BIG meta_dirs $META_DIRS" >>"$VM_RESULTS/info.txt"
note "done"
