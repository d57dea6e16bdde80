#!/bin/bash
# stalefs-fuse and stalefs.ko read each other's writing (issue 25, item 5):
# a tree made through the FUSE server (files of every size, sparse ones,
# holes punched and space preallocated, directories, symlinks, hard links,
# devices, a FIFO, set-id bits, owners, times, xattrs, access and default
# ACLs, renames and removals) mounts under the module with the same content
# (tree-manifest.py: hashes, modes, owners, sizes, blocks, times, xattrs,
# ACLs), and the same tree made by the module reads the same through the
# FUSE server, read-only and read-write; fsck.stalefs -fn is clean after
# every writer, at 4 KiB and at 1 KiB blocks.  The server runs in this VM on
# Debian's 6.1 kernel (its FUSE); the host's tests run it on the host's.
# needs: stalefs fuse
# disk: scratch:512M
# timeout: 1200
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
sfuse=$STALEFS_ROOT/build/stalefs-fuse
manifest="python3 $STALEFS_ROOT/tests/vm/tree-manifest.py"
[[ -x $sfuse ]] || fail "$sfuse is missing (make stalefs-fuse)"
[[ -c /dev/fuse ]] || fail "no /dev/fuse in the guest (modprobe fuse)"
mkdir -p /mnt/f /mnt/k
server=

sfuse_mount() {
	"$sfuse" -f "$@" "$dev" /mnt/f >"$VM_RESULTS/server.log" 2>&1 &
	server=$!
	local i
	for i in $(seq 300); do
		grep -q " /mnt/f fuse.stalefs " /proc/mounts && return 0
		kill -0 $server 2>/dev/null || break
		sleep 0.1
	done
	cat "$VM_RESULTS/server.log"
	fail "stalefs-fuse did not mount $dev"
}

sfuse_umount() {
	local rc=0
	umount /mnt/f
	wait $server || rc=$?
	server=
	((rc == 0)) || { cat "$VM_RESULTS/server.log"; fail "stalefs-fuse exited $rc"; }
}

# make_tree DIR BS: the tree, through whatever is mounted there (one value must fit a block).
make_tree() {
	local d=$1/tree big=$(($2 * 3 / 4))
	mkdir -p $d/a/b/c $d/empty $d/acl/sub
	: >$d/zero
	head -c 1 /dev/urandom >$d/one
	for n in 4095 4096 4097 65537 1048576 3000000; do head -c $n /dev/urandom >$d/f$n; done
	# sparse: data at 0 and at 6 MiB, a hole between; preallocated space past the size
	head -c 8192 /dev/urandom >$d/sparse
	head -c 8192 /dev/urandom | dd of=$d/sparse bs=1M seek=6 conv=notrunc status=none
	fallocate -n -o 7M -l 1M $d/sparse
	cp $d/f1048576 $d/punched && fallocate -p -o 4096 -l 65536 $d/punched
	fallocate -z -o 100000 -l 300000 $d/f3000000
	fallocate -l 2M $d/prealloc
	ln -s f4096 $d/short-link
	ln -s "$(printf 'long/%.0s' $(seq 1 50))target" $d/long-link
	ln $d/f4097 $d/a/hard1 && ln $d/f4097 $d/a/b/hard2
	mknod $d/chr c 1 3 && mknod $d/blk b 7 200 && mkfifo $d/fifo
	chmod 4755 $d/f4095 && chmod 2750 $d/a && chmod 1777 $d/empty && chmod 600 $d/one
	chown 1000:1000 $d/f65537 && chown 0:4242 $d/a/b
	setfattr -n user.small -v hello $d/f4096
	setfattr -n user.big -v "$(head -c $big /dev/zero | tr '\0' x)" $d/f4096
	setfattr -n trusted.t -v secret $d/a
	setfattr -n security.s -v label $d/zero
	setfacl -m u:1000:rw,g:100:r $d/one
	setfacl -d -m u:1000:rwx,g::rx $d/acl
	: >$d/acl/inherits && mkdir $d/acl/sub/deeper
	# renames and removals, as a user's tree sees them
	mv $d/a/b/c $d/c-moved && mv $d/f65537 $d/a/renamed
	for i in $(seq 1 200); do echo "$i" >$d/a/many-$i; done
	rm $d/a/many-1*
	truncate -s 12345 $d/f1048576
	touch -h -d '2001-02-03 04:05:06.789' $d/short-link
	find $d -depth -not -type l -exec touch -d '2020-01-02 03:04:05.123456789' {} +
}

round() {
	local bs=$1
	note "$bs-byte blocks: a tree written through stalefs-fuse, read by stalefs.ko"
	"$MKFS_STALEFS" -q -F -b "$bs" -I 512 "$dev"
	sfuse_mount
	make_tree /mnt/f "$bs"
	$manifest /mnt/f/tree >"$VM_RESULTS/fuse-wrote-$bs.txt"
	sfuse_umount
	fsck_clean "$dev"
	mount -t stalefs "$dev" /mnt/k
	$manifest /mnt/k/tree >"$VM_RESULTS/kernel-read-$bs.txt"
	umount /mnt/k
	diff "$VM_RESULTS/fuse-wrote-$bs.txt" "$VM_RESULTS/kernel-read-$bs.txt" ||
		fail "stalefs.ko sees the tree stalefs-fuse wrote differently ($bs-byte blocks)"
	fsck_clean "$dev"

	note "$bs-byte blocks: a tree written by stalefs.ko, read by stalefs-fuse"
	"$MKFS_STALEFS" -q -F -b "$bs" -I 512 "$dev"
	mount -t stalefs "$dev" /mnt/k
	make_tree /mnt/k "$bs"
	$manifest /mnt/k/tree >"$VM_RESULTS/kernel-wrote-$bs.txt"
	umount /mnt/k
	fsck_clean "$dev"
	sum_before=$(sha256sum "$dev" | cut -d' ' -f1)
	sfuse_mount -o ro
	$manifest /mnt/f/tree >"$VM_RESULTS/fuse-read-ro-$bs.txt"
	sfuse_umount
	assert_eq "$sum_before" "$(sha256sum "$dev" | cut -d' ' -f1)" "the device after a read-only FUSE mount"
	diff "$VM_RESULTS/kernel-wrote-$bs.txt" "$VM_RESULTS/fuse-read-ro-$bs.txt" ||
		fail "stalefs-fuse (ro) sees the tree stalefs.ko wrote differently ($bs-byte blocks)"
	# read-write: the same, and what it adds the module then reads
	sfuse_mount
	$manifest /mnt/f/tree >"$VM_RESULTS/fuse-read-rw-$bs.txt"
	echo "from fuse" >/mnt/f/tree/added && setfattr -n user.k -v v /mnt/f/tree/added
	sfuse_umount
	diff "$VM_RESULTS/kernel-wrote-$bs.txt" "$VM_RESULTS/fuse-read-rw-$bs.txt" ||
		fail "stalefs-fuse (rw) sees the tree stalefs.ko wrote differently ($bs-byte blocks)"
	fsck_clean "$dev"
	mount -t stalefs "$dev" /mnt/k
	assert_eq "from fuse" "$(cat /mnt/k/tree/added)" "a file stalefs-fuse added, read by stalefs.ko"
	assert_eq v "$(getfattr --only-values -n user.k /mnt/k/tree/added)" "its xattr"
	umount /mnt/k
	fsck_clean "$dev"
}

round 4096
round 1024
note "both directions identical at 4 KiB and 1 KiB blocks"
