#!/bin/bash
# VM benchmark of issue 26's "many files": stalefs, ext4 and XFS on the same
# 2 GiB disk in one boot, a fresh filesystem per run, rounds interleaved
# (stalefs, ext4, xfs, stalefs, ...).  Each run, on ~31,600 files of Linux's
# source (bench_srctree in bench/lib.sh, from bench/vm/tree-run.sh):
#   untar  `tar -xf` of the tarball (from tmpfs) + sync
#   read   remount (cold caches), then every file read once in readdir order
#          (bench/vm/treeread: `find -type f | xargs cat`, counted)
#   rm     `rm -rf` of the tree + sync
# Checked, untimed: the extracted tree holds exactly the tarball's files,
# directories, symlinks and bytes, with the same contents (treeread --sum);
# the cold read read every file and byte; nothing is left after rm; every
# stalefs run ends with a clean fsck.  Run by bench/vm/tree-run.sh tree;
# bench/vm/tree-report.py writes the figures into bench/RESULTS.md.
# Nothing here asserts a timing.
# needs: stalefs
# needs: ext4 xfs
# disk: bench:2G:full
# timeout: 3600
# shellcheck disable=SC2046  # $(io_delta ...), $(extents ...): KEY=VALUE pairs, split on purpose
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/bench/vm/treelib.sh"
REPS=3	# runs of each filesystem
tree_setup treebench
dev=$VM_DISK_BENCH
mnt=/mnt/tb
tree=$mnt/linux-source-6.1
echo "disk_bytes $(blockdev --getsize64 "$dev")" >>"$VM_RESULTS/info.txt"

for ((r = 1; r <= REPS; r++)); do
	for fs in stalefs ext4 xfs; do
		note "$fs, run $r"
		new_fs $fs "$dev" $mnt
		drop_caches	# mkfs's writes reach the disk before the clock starts
		before=$(dstat "$dev")
		t0=$(now)
		tar -xf "$tarball" -C $mnt
		sync
		t=$(elapsed "$t0")
		record fs="\"$fs\"" run=$r phase='"untar"' seconds="$t" $(io_delta "$dev" "$before")
		same_tree "$fs run $r, extracted tree" "$want" "$("$TREEREAD" --sum $tree)" files dirs symlinks bytes sum

		read_cold $fs "$dev" $mnt $tree
		same_tree "$fs run $r, cold read" "$want" "$got" files bytes
		record fs="\"$fs\"" run=$r phase='"read"' seconds="$(jget seconds "$got")" \
			files="$(jget files "$got")" bytes="$(jget bytes "$got")" "${io[@]}"
		if ((r == 1)); then
			record fs="\"$fs\"" run=$r phase='"extents"' $(extents $tree)
		fi

		before=$(dstat "$dev")
		t0=$(now)
		rm -rf $tree
		sync
		t=$(elapsed "$t0")
		record fs="\"$fs\"" run=$r phase='"rm"' seconds="$t" $(io_delta "$dev" "$before")
		assert_eq "" "$(find $mnt -mindepth 1 -maxdepth 1 ! -name lost+found)" "what rm -rf left in $mnt"
		done_fs $fs "$dev" $mnt
	done
done
echo "duration_s $SECONDS" >>"$VM_RESULTS/info.txt"
cat "$raw"
