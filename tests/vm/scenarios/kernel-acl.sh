#!/bin/bash
# stalefs.ko POSIX ACLs: setfacl/getfacl round trips kept across remounts,
# enforced for unprivileged users (named user, named group, mask, other),
# default ACLs inherited by new files and directories (the umask ignored
# then, applied otherwise), chmod rewriting the mask, an ACL equal to the
# mode stored as the mode alone, ACLs in blocks and in the inode; noacl
# (umask applies, ACL calls EOPNOTSUPP) shown in /proc/mounts, and
# remount,acl turning enforcement back on.
# needs: stalefs
# disk: scratch:64M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
mkdir -p $mnt

acl_of() {
	getfacl -ncpE "$1" 2>/dev/null | grep -v '^$' | tr '\n' ' ' | sed 's/ $//'
}

for isize in 256 1024; do
	note "inode size $isize"
	"$MKFS_STALEFS" -q -F -I $isize "$dev"
	mount -t stalefs "$dev" $mnt
	grep -q " $mnt stalefs .*noacl" /proc/mounts && fail "acl is the default"
	mkdir $mnt/d
	chmod 755 $mnt/d

	note "enforcement: a named user may read, others may not"
	echo secret >$mnt/d/f
	chmod 600 $mnt/d/f
	assert_errno EACCES as_user 1000 1000 "" cat $mnt/d/f
	setfacl -m u:1000:r $mnt/d/f
	assert_eq "secret" "$(as_user 1000 1000 "" cat $mnt/d/f)" "named user reads"
	assert_errno EACCES as_user 1001 1001 "" cat $mnt/d/f
	assert_errno EACCES as_user 1000 1000 "" sh -c "echo x >>$mnt/d/f"
	assert_eq "user::rw- user:1000:r-- group::--- mask::r-- other::---" "$(acl_of $mnt/d/f)" "access ACL"
	assert_eq "-rw-r-----" "$(stat -c %A $mnt/d/f)" "mode shows the mask as group bits"

	note "named group and the mask"
	setfacl -m g:2000:rw $mnt/d/f
	assert_eq "secret" "$(as_user 1002 1002 2000 cat $mnt/d/f)" "named group reads"
	chmod 640 $mnt/d/f
	assert_eq "user::rw- user:1000:r-- group::--- group:2000:rw- #effective:r-- mask::r-- other::---" \
		"$(getfacl -np $mnt/d/f 2>/dev/null | grep -v '^#' | grep -v '^$' | sed 's/\t*#effective/ #effective/' | tr '\n' ' ' | sed 's/ $//')" \
		"chmod rewrote the mask"
	assert_errno EACCES as_user 1002 1002 2000 sh -c "echo x >>$mnt/d/f"

	note "an ACL the mode says all of is the mode alone"
	touch $mnt/d/plain
	setfacl -m u::rwx,g::r-x,o::--- $mnt/d/plain
	assert_eq "750" "$(stat -c %a $mnt/d/plain)" "mode from a minimal ACL"
	assert_eq "" "$(getfattr -m system.posix_acl_access --absolute-names $mnt/d/plain 2>/dev/null)" \
		"no attribute for a minimal ACL"

	note "default ACLs are inherited; the umask is not applied under them"
	mkdir $mnt/d/inh
	setfacl -d -m u:1000:rwx,g::r-x,o::--- $mnt/d/inh
	(umask 077; touch $mnt/d/inh/file; mkdir $mnt/d/inh/sub)
	assert_eq "user::rw- user:1000:rwx #effective:rw- group::r-x #effective:r-- mask::rw- other::---" \
		"$(getfacl -np $mnt/d/inh/file 2>/dev/null | grep -v '^#' | grep -v '^$' | sed 's/\t*#effective/ #effective/' | tr '\n' ' ' | sed 's/ $//')" \
		"file inherits the default ACL"
	getfacl -ncpd $mnt/d/inh/sub 2>/dev/null | has '^user:1000:rwx$' || fail "directory inherits the default ACL as its default"
	(umask 077; touch $mnt/d/noinh)
	assert_eq "600" "$(stat -c %a $mnt/d/noinh)" "umask applies without a default ACL"

	note "kept across a remount"
	umount $mnt
	mount -t stalefs "$dev" $mnt
	assert_eq "secret" "$(as_user 1000 1000 "" cat $mnt/d/f)" "named user reads after remount"
	getfacl -ncpd $mnt/d/inh 2>/dev/null | has '^user:1000:rwx$' || fail "default ACL lost across a remount"
	setfacl -b $mnt/d/f
	assert_eq "user::rw- group::--- other::---" "$(acl_of $mnt/d/f)" "setfacl -b removed the ACL (the owning group keeps its own ---)"
	assert_eq 600 "$(stat -c %a $mnt/d/f)" "mode after setfacl -b"
	assert_errno EACCES as_user 1000 1000 "" cat $mnt/d/f

	note "noacl: not enforced, umask applies, shown in /proc/mounts; remount,acl"
	setfacl -m u:1000:r $mnt/d/f
	chmod 600 $mnt/d/f
	umount $mnt
	mount -t stalefs -o noacl "$dev" $mnt
	grep -q " $mnt stalefs .*noacl" /proc/mounts || fail "noacl not shown in /proc/mounts"
	assert_errno EOPNOTSUPP setfacl -m u:1000:r $mnt/d/plain
	(umask 077; touch $mnt/d/inh/under-noacl)
	assert_eq "600" "$(stat -c %a $mnt/d/inh/under-noacl)" "umask applies under noacl"
	mount -o remount,acl $mnt
	grep -q " $mnt stalefs .*noacl" /proc/mounts && fail "noacl still shown after remount,acl"
	assert_eq "user::rw- user:1000:r-- group::--- mask::--- other::---" "$(acl_of $mnt/d/f)" "ACL back after remount,acl"
	umount $mnt
	fsck_clean "$dev"
done
echo "kernel-acl: all checks passed"
