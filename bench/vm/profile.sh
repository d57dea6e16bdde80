#!/bin/bash
# Where the buffered data path spends its time (issue 26, item 1): for
# stalefs, ext4 and XFS on the same disk in one boot, a 256 MiB sequential
# buffered write (1 MiB, fsync at the end), a cold sequential read, and
# 5 s of random 4 KiB buffered writes with an fsync after each into a
# fallocated file, each under `perf record -a -g -e cpu-clock` (TCG has no
# PMU); the top kernel symbols by self time go to the log, with the
# device's request counts (/sys/block/DEV/stat) and the file's extents.
# Run: tests/vm/run-vm --cache none bench/vm/profile.sh (the log is
# build/vm/logs/profile.log).  A measurement, not a test: nothing here
# asserts a figure.
# needs: stalefs
# needs: ext4 xfs
# disk: bench:2G:full
# timeout: 3600
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_BENCH
disk=${dev#/dev/}
mnt=/mnt/p
P=$VM_SCRATCH/perf.data
mkdir -p $mnt
command -v perf >/dev/null || fail "perf is not installed (tools/install-deps: linux-perf)"

. "$STALEFS_ROOT/bench/vm/guest-mkfs.sh"
fresh() {
	bench_mkfs "$1" "$dev"
	mount -t "$1" "$dev" $mnt
}
# reads, writes, flushes, and the time requests spent queued or in flight
# (ms, field 11) against the time the device was busy (ms, field 10):
# their ratio is the mean number of requests in flight.
dstat() { awk '{ printf "reads %d (%d KiB), writes %d (%d KiB), flushes %d, busy %d ms, queued %d ms\n", $1, $3 / 2, $5, $7 / 2, $16, $10, $11 }' \
	"/sys/block/$disk/stat"; }

# prof FS WHAT fio-args...: one fio run under perf; its figure, the
# device's counters before and after, the top 25 symbols by self time.
prof() {
	local fs=$1 what=$2
	shift 2
	echo "==== $fs $what"
	echo "device before: $(dstat)"
	perf record -q -a -g -e cpu-clock -o "$P" -- \
		fio --name=p --ioengine=psync --fallocate=none --output-format=terse --terse-version=3 "$@" |
		awk -F';' '{ printf "fio: read %s KiB/s, write %s KiB/s, write IOPS %s\n", $7, $48, $49 }'
	echo "device after:  $(dstat)"
	# awk, not head: under pipefail a reader that stops early kills perf with SIGPIPE
	perf report -q -i "$P" --no-children --sort symbol --stdio -g none 2>/dev/null |
		awk 'NF && $1 ~ /%$/ && n++ < 25 { print $1, $2, $3 }' 
}

xfs_io -d -c "pwrite -q -S 0x5a -b 1m 0 512m" "$dev"
for fs in stalefs ext4 xfs; do
	fresh $fs
	prof $fs "sequential buffered write" --filename=$mnt/seq --size=256m --rw=write --bs=1m --end_fsync=1
	echo "extents: $(filefrag $mnt/seq)"
	drop_caches
	prof $fs "sequential buffered read, cold" --filename=$mnt/seq --size=256m --rw=read --bs=1m
	rm $mnt/seq
	fallocate -l 256MiB $mnt/f
	drop_caches
	prof $fs "random 4 KiB buffered writes + fsync, into unwritten" --filename=$mnt/f --size=256m \
		--rw=randwrite --bs=4k --time_based --runtime=5 --randrepeat=1 --fsync=1
	umount $mnt
	[[ $fs == stalefs ]] && fsck_clean "$dev" >/dev/null
done
echo "==== raw device"
echo 3 >/proc/sys/vm/drop_caches
prof raw "sequential buffered read, cold" --filename="$dev" --size=256m --rw=read --bs=1m
