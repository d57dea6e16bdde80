# shellcheck shell=bash
# The FUSE benchmark's cases, on one filesystem: sourced by bench/fuse/fuse.sh
# (the host: stalefs-fuse beside fuse2fs) and bench/fuse/vm.sh (the test VM:
# stalefs.ko beside both).  The caller defines mount_fs and umount_fs (umount
# and wait until everything is written: a FUSE server's umount returns before
# it has finished), IMG and MNT; run_cases FS prints one JSON line per figure:
#   {"fs": FS, "case": NAME, "value": N, "unit": "s" or "iops"}
# Sizes: SEQ_MB (256), META_FILES (10000), TREE (/usr/include) and TREE_TAR (a
# tar of it), RAND_MB (32: the O_DIRECT random 4 KiB reads fio makes).

now() { date +%s.%N; }
emit() { printf '{"fs": "%s", "case": "%s", "value": %s, "unit": "%s"}\n' "$1" "$2" "$3" "$4"; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.3f", a - b }'; }

# drop_caches: what a cold read starts from (the kernel's page cache of the
# image and of the mount; a FUSE remount drops the latter anyway).
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

meta() {
	python3 - "$1" "$2" "$META_FILES" <<'PY'
import os, sys
d, phase, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if phase == "create":
    os.mkdir(d)
    for i in range(n):
        os.close(os.open("%s/f%06d" % (d, i), os.O_CREAT | os.O_WRONLY, 0o644))
elif phase == "stat":
    for i in range(n):
        os.stat("%s/f%06d" % (d, i))
else:
    for i in range(n):
        os.unlink("%s/f%06d" % (d, i))
PY
}

run_cases() {
	local fs=$1 t iops
	mount_fs
	# sequential write, made durable (fsync) before the clock stops
	t=$(now)
	dd if=/dev/zero of="$MNT/big" bs=1M count="$SEQ_MB" conv=fsync status=none
	emit "$fs" seq-write "$(since "$t")" s
	umount_fs
	drop_caches
	mount_fs
	t=$(now)
	dd if="$MNT/big" of=/dev/null bs=1M status=none
	emit "$fs" cold-read "$(since "$t")" s
	# random 4 KiB reads, O_DIRECT: every one a request to the server
	iops=$(fio --name=r --filename="$MNT/big" --rw=randread --bs=4k --direct=1 --ioengine=psync \
		--size="${SEQ_MB}M" --io_size="${RAND_MB}M" --randseed=42 --output-format=terse 2>/dev/null |
		awk -F';' '{print $8}')
	emit "$fs" rand-read-4k "$iops" iops
	# 10,000 files in one directory: create; stat and unlink after a remount (cold)
	t=$(now)
	meta "$MNT/many" create
	emit "$fs" create "$(since "$t")" s
	umount_fs
	mount_fs
	t=$(now)
	meta "$MNT/many" stat
	emit "$fs" stat "$(since "$t")" s
	t=$(now)
	meta "$MNT/many" unlink
	emit "$fs" unlink "$(since "$t")" s
	# a source tree: cp -a, then tar x; each until written (umount included)
	t=$(now)
	cp -a "$TREE" "$MNT/cp"
	umount_fs
	emit "$fs" cp-a "$(since "$t")" s
	mount_fs
	t=$(now)
	tar xf "$TREE_TAR" -C "$MNT" --one-top-level=tar
	umount_fs
	emit "$fs" tar-x "$(since "$t")" s
}
