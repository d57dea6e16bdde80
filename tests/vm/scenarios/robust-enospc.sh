#!/bin/bash
# A full disk at every step (issue 8, part 3): a small stalefs is filled to
# leave 0, 1, 2... blocks free, then a workload that needs blocks for data,
# directory blocks, a symlink block, unwritten extents and an extent tree
# block runs into the wall at a different step each round
# (enospc-workload).  Every call succeeds or fails with ENOSPC, a failed
# create leaves no name, what was reported written reads back after an
# unmount, and fsck -fn is clean after every round.  Then the inodes run
# out: the same rules.  ENOSPC_BLOCK_SIZE (default 1024) and ENOSPC_ROUNDS
# change the size; the soak (tests/vm/soak/robust-enospc-soak.sh) runs 2 and 4 KiB.
# needs: stalefs
# disk: scratch:64M
# timeout: 900
. "$STALEFS_ROOT/tests/vm/lib.sh"
work=$STALEFS_BUILD/enospc-workload
[[ -x $work ]] || fail "$work is missing (run make first)"
dev=$VM_DISK_SCRATCH
mnt=/mnt/e
mkdir -p $mnt
manifest=$VM_SCRATCH/manifest
rounds=${ENOSPC_ROUNDS:-48}	# the workload needs about 40 blocks of 1 KiB
bs=${ENOSPC_BLOCK_SIZE:-1024}	# the soak runs the other sizes

note "blocks: $bs-byte blocks, 2 MiB, no reserved blocks; $rounds rounds"
"$MKFS_STALEFS" -q -F -b "$bs" -m 0 "$dev" 2M
rm -f "$manifest"	# a fresh filesystem: nothing was promised on it yet (the soak runs this twice)
for ((free = 0; free < rounds; free++)); do
	mount -t stalefs "$dev" $mnt
	rc=0
	"$work" $mnt $free "$manifest" >"$VM_SCRATCH/round" || rc=$?
	out=$(<"$VM_SCRATCH/round")
	echo "$out"
	umount $mnt
	((rc == 0)) || fail "round with $free blocks free: enospc-workload exited $rc"
	fsck_clean "$dev" >/dev/null
	# The sweep must span the whole workload: from the wall at its first
	# step to no wall at all.
	if ((free == 0)); then
		[[ $out == *"round done: 0 calls"* ]] && fail "no ENOSPC with no blocks free"
	fi
done
[[ $out == *"round done: 0 calls"* ]] ||
	fail "ENOSPC still with $((rounds - 1)) blocks free: the sweep does not reach the workload's end"

mount -t stalefs "$dev" $mnt
assert_ok "$work" $mnt verify "$manifest"
umount $mnt
fsck_clean "$dev"

note "inodes: a filesystem of 64 inodes"
"$MKFS_STALEFS" -q -F -b "$bs" -N 64 "$dev" 8M
mount -t stalefs "$dev" $mnt
assert_ok "$work" $mnt inodes
umount $mnt
fsck_clean "$dev"
note "robust-enospc passed"
