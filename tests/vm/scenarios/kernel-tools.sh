#!/bin/bash
# stalefs.ko and the tools agree: a tree made by mkfs.stalefs -d mounts and
# compares equal (diff -r); files written by the kernel (buffered, direct,
# mmap, fallocate, punch, symlinks, a big directory) read back with
# debugfs.stalefs rdump/dump from the unmounted image compare equal.
# tunefs.stalefs lists a mounted filesystem and refuses to change it; the
# kernel warns at mount when the check schedule says a check is due.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
S=$VM_SCRATCH
mkdir -p $mnt

note "mkfs.stalefs -d: mount and diff -r"
src=$S/src
mkdir -p $src/a/b/c $src/empty
echo one >$src/a/one
dd if=/dev/urandom of=$src/a/b/rand bs=1k count=777 status=none
truncate -s 5M $src/sparse
printf middle | dd of=$src/sparse bs=1 seek=3000000 conv=notrunc status=none
ln -s a/one $src/link
ln -s "$(printf 'T%.0s' {1..300})" $src/longlink
ln $src/a/one $src/a/b/hard
for i in $(seq 1 300); do echo $i >$src/a/b/c/n$i; done
"$MKFS_STALEFS" -q -F -d $src "$dev"
mount -t stalefs -o ro "$dev" $mnt
diff -r --no-dereference $src $mnt -x lost+found
assert_eq "$(stat -c %i $mnt/a/one)" "$(stat -c %i $mnt/a/b/hard)" "hard link"
umount $mnt
fsck_clean "$dev"

note "kernel writes, debugfs.stalefs reads"
mount -t stalefs "$dev" $mnt
mkdir -p $mnt/k/d
dd if=/dev/urandom of=$mnt/k/buffered bs=1k count=3333 status=none
xfs_io -f -d -c "pwrite -q -S 0x5a 0 1m" $mnt/k/direct
xfs_io -f -c "truncate 256k" -c "mmap -rw 0 256k" -c "mwrite -S 0x6b 4096 70000" -c "msync -s 0 256k" $mnt/k/mapped
xfs_io -f -c "falloc 0 2m" -c "pwrite -q -S 0x7c 1m 8k" -c "fpunch 100k 200k" $mnt/k/prealloc
ln -s "$(printf 'L%.0s' {1..1000})" $mnt/k/longlink
for i in $(seq 1 400); do echo "entry $i" >$mnt/k/d/file$i; done
rm $mnt/k/d/file1{0..9}*
# sync(2) must leave the image complete while still mounted: the unwritten
# conversion that follows writeback has to reach the device too.
sync
assert_eq "entry 400" "$("$DEBUGFS_STALEFS" -R "cat /k/d/file400" "$dev" 2>/dev/null)" \
	"after sync, the device holds the last file's data as written"
cp -a $mnt/k $S/expect
umount $mnt
rm -rf $S/out && mkdir $S/out
"$DEBUGFS_STALEFS" -R "rdump /k $S/out" "$dev"
diff -r --no-dereference $S/expect $S/out/k
"$DEBUGFS_STALEFS" -R "dump /k/prealloc $S/prealloc" "$dev"
cmp $S/expect/prealloc $S/prealloc
fsck_clean "$dev"

note "tunefs.stalefs and a mounted filesystem; the check schedule"
"$TUNEFS_STALEFS" -c 3 -C 3 "$dev" >/dev/null
dmesg -C
mount -t stalefs "$dev" $mnt
dmesg | grep -q 'maximal mount count reached, running fsck.stalefs is recommended' ||
	fail "no warning at mount with the mount count at its maximum"
rc=0; "$TUNEFS_STALEFS" -L mounted "$dev" >/dev/null 2>$S/tune.err || rc=$?
assert_eq 1 "$rc" "tunefs -L on a mounted filesystem exits 1"
grep -q 'is mounted; tunefs.stalefs changes only unmounted filesystems' $S/tune.err ||
	fail "tunefs -L on a mounted filesystem: $(cat $S/tune.err)"
"$TUNEFS_STALEFS" -l "$dev" >$S/tune.out
grep -qE '^Needs recovery: +yes$' $S/tune.out || fail "tunefs -l on the mounted filesystem: $(head -5 $S/tune.out)"
grep -qE '^Mount count: +4$' $S/tune.out || fail "tunefs -l: the kernel's mount count"
umount $mnt
# (the kernel writes the superblock itself while mounted, so "nothing written" is the label not being there)
assert_eq "<none>" "$("$TUNEFS_STALEFS" -l "$dev" | sed -n 's/^Filesystem volume name: *//p')" "the refused -L left no label"
"$TUNEFS_STALEFS" -L unmounted -c 0 "$dev" >/dev/null
assert_eq unmounted "$("$TUNEFS_STALEFS" -l "$dev" | sed -n 's/^Filesystem volume name: *//p')" "tunefs -L once unmounted"
fsck_clean "$dev"
echo "kernel-tools passed"
