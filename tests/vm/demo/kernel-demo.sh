#!/bin/bash
# make demo, kernel half: narrated use of stalefs.ko inside the VM.
# needs: stalefs
. "$STALEFS_ROOT/tests/vm/lib.sh"
say() { printf '\n==> %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
img=$VM_SCRATCH/demo.img
mnt=/mnt/demo

say "Inside the VM: Debian's $(uname -r) kernel with stalefs.ko loaded"
run grep stalefs /proc/filesystems

say "Make a 128 MiB file and attach it as a loop device"
run truncate -s 128M "$img"
loop=$(losetup -f --show "$img")
echo "loop device: $loop"

say "Format it (mkfs.stalefs) and mount it (mount -t stalefs)"
run "$MKFS_STALEFS" -q -L demo "$loop"
mkdir -p $mnt
run mount -t stalefs "$loop" $mnt
run grep " $mnt " /proc/mounts
run df -h $mnt

say "Write some files: a small text file, a directory, 4 MiB of data"
echo "hello from the stalefs kernel module" >$mnt/hello.txt
mkdir $mnt/docs
run cp /etc/os-release $mnt/docs/
run dd if=/dev/urandom of=$mnt/data.bin bs=1M count=4 status=none
run ls -l $mnt $mnt/docs
run cat $mnt/hello.txt

say "Preallocate 8 MiB with fallocate: the blocks are reserved but UNWRITTEN, so they read as zeros"
run fallocate -l 8M $mnt/prealloc.bin
run filefrag -v $mnt/prealloc.bin
printf 'non-zero bytes in prealloc.bin: '; tr -d '\0' <$mnt/prealloc.bin | wc -c

say "Write 1 MiB into the middle: only that part is converted to written, after the data reaches the disk"
run dd if=/dev/urandom of=$mnt/prealloc.bin bs=1M seek=3 count=1 conv=notrunc,fsync status=none
run filefrag -v $mnt/prealloc.bin

say "Punch a hole and look for data and holes"
run fallocate --punch-hole --offset 6M --length 1M $mnt/prealloc.bin
run xfs_io -c "seek -a -r 0" $mnt/prealloc.bin
run filefrag -v $mnt/prealloc.bin

say "Unmount, check with fsck.stalefs -fn (never writes), mount again: everything is still there"
run umount $mnt
run "$FSCK_STALEFS" -fn "$loop"
run mount -t stalefs "$loop" $mnt
run cat $mnt/hello.txt
run md5sum $mnt/data.bin
run umount $mnt
run losetup -d "$loop"
say "Kernel demo done"
