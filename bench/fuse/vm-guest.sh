#!/bin/bash
# The FUSE benchmark in the test VM (run by bench/fuse/vm.sh through
# tests/vm/run-vm --cache none): the cases of bench/fuse/cases.sh on the same
# virtual disk through stalefs.ko, stalefs-fuse and fuse2fs, in one boot, so
# the servers are measured against the kernel driver.  Under TCG everything
# is slow, hence smaller sizes than on the host; the ratios are the point.
# Figures (JSON lines) go to $VM_RESULTS/fuse-vm.jsonl.
# needs: stalefs fuse ext4
# disk: bench:2G:full
# timeout: 7200
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/bench/fuse/cases.sh"
FUSE_VM_RUNS=2 FUSE_VM_SEQ_MB=64 FUSE_VM_FILES=2000
# bench/fuse/vm.sh may override them through a file the guest sees read-only.
conf=$STALEFS_BUILD/bench/fuse-vm.conf
# shellcheck source=/dev/null
[[ -f $conf ]] && . "$conf"
RUNS=$FUSE_VM_RUNS SEQ_MB=$FUSE_VM_SEQ_MB META_FILES=$FUSE_VM_FILES RAND_MB=8
TREE=/usr/include/linux
TREE_TAR=$VM_SCRATCH/tree.tar
IMG=$VM_DISK_BENCH
MNT=/mnt/b
SFUSE=$STALEFS_BUILD/stalefs-fuse
for t in "$SFUSE" "$MKFS_STALEFS" fuse2fs fio; do
	command -v "$t" >/dev/null || fail "$t is missing"
done
mkdir -p $MNT
tar cf "$TREE_TAR" -C /usr/include linux
server=

mount_fs() {
	local i
	case $FS in
	kernel) mount -t stalefs "$IMG" $MNT; return ;;
	stalefs) "$SFUSE" -f "$IMG" $MNT >>"$VM_RESULTS/server.log" 2>&1 & ;;
	ext4) fuse2fs -f "$IMG" $MNT -o rw >>"$VM_RESULTS/server.log" 2>&1 & ;;
	esac
	server=$!
	for i in $(seq 600); do
		grep -q " $MNT fuse" /proc/mounts && return 0
		sleep 0.1
	done
	fail "$FS did not mount"
}

umount_fs() {
	umount $MNT
	[[ -z $server ]] || wait $server
	server=
}

for run in $(seq "$RUNS"); do
	for FS in kernel stalefs ext4; do
		note "run $run: $FS"
		case $FS in
		ext4) mke2fs -q -t ext4 -F "$IMG" 1G ;;
		*) "$MKFS_STALEFS" -q -F "$IMG" 1G ;;
		esac
		run_cases "$FS" | sed "s/}\$/, \"run\": \"$run\"}/" >>"$VM_RESULTS/fuse-vm.jsonl"
		[[ $FS = ext4 ]] || fsck_clean "$IMG"
	done
done
