# shellcheck shell=bash
# bench_mkfs FS DEV: the fresh filesystem every VM benchmark measures on,
# made the same way everywhere (sourced by fsbench.sh, profile.sh and
# treelib.sh, after tests/vm/lib.sh).  No discards (the benchmarks' disks
# are written in full first, run-vm ":full"), and ext4 with its inode
# tables and journal written in mkfs, so no background thread zeroes them
# during a measurement.  stalefs-nj: stalefs without a journal.
bench_mkfs() {
	case $1 in
	stalefs) "$MKFS_STALEFS" -q -F -E nodiscard "$2" ;;
	stalefs-nj) "$MKFS_STALEFS" -q -F -E nodiscard -O ^has_journal "$2" ;;
	ext4) mke2fs -q -F -t ext4 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$2" ;;
	xfs) mkfs.xfs -q -f -K "$2" ;;
	*) fail "bench_mkfs: unknown filesystem $1" ;;
	esac
}
