#!/bin/bash
# overlayfs with its upper and work directories on stalefs.ko (the lower on
# stalefs too): the mount takes trusted.* xattrs without complaint; copy-up
# of data and metadata carries the lower file's user.* xattrs; unlink and
# rmdir of lower entries leave whiteouts (char 0:0) in the upper; a
# directory made again over a removed one is opaque (trusted.overlay.opaque);
# rename of a lower file (RENAME_WHITEOUT); the merged view survives a remount of both, and
# fsck finds the upper clean.
# needs: stalefs overlay
# disk: scratch:128M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
m=/mnt/merged
mkdir -p $mnt $m
"$MKFS_STALEFS" -q -F "$dev"
mount -t stalefs "$dev" $mnt
mkdir $mnt/lower $mnt/upper $mnt/work
echo alpha >$mnt/lower/a
setfattr -n user.tag -v lower-tag $mnt/lower/a
echo beta >$mnt/lower/b
echo gamma >$mnt/lower/c
mkdir $mnt/lower/dl
echo inner >$mnt/lower/dl/x
echo meta >$mnt/lower/m

ovl_mount() {
	dmesg -C
	mount -t overlay overlay -o lowerdir=$mnt/lower,upperdir=$mnt/upper,workdir=$mnt/work $m
	# Every overlayfs complaint about its upper names a missing feature.
	if dmesg | grep -i "overlayfs" | grep -iE "not support|fall(ing)? back|disabl"; then
		fail "overlayfs found the stalefs upper lacking"
	fi
}

ovl_mount
note "copy-up of data keeps the lower file's xattrs"
echo more >>$m/a
assert_eq "alpha more" "$(tr '\n' ' ' <$m/a | sed 's/ $//')" "merged data"
assert_eq "alpha" "$(cat $mnt/lower/a)" "the lower is untouched"
[[ -f $mnt/upper/a ]] || fail "no copy-up of a"
assert_eq lower-tag "$(getfattr --only-values -n user.tag $mnt/upper/a)" "user.tag copied up"
setfattr -n user.new -v upper-tag $m/a
assert_eq upper-tag "$(getfattr --only-values -n user.new $mnt/upper/a)" "xattr set through the overlay lands in the upper"

note "metadata copy-up"
chmod 600 $m/m
assert_eq 600 "$(stat -c %a $mnt/upper/m)" "chmod copied m up"
assert_eq meta "$(cat $m/m)" "m still reads"

note "whiteouts for removed lower entries"
rm $m/b
assert_fails test -e $m/b
assert_eq "character special file 0:0" "$(stat -c '%F %t:%T' $mnt/upper/b)" "whiteout for b"
rm -r $m/dl
assert_eq "character special file 0:0" "$(stat -c '%F %t:%T' $mnt/upper/dl)" "whiteout for dl"

note "a directory made again is opaque"
mkdir $m/dl
assert_eq y "$(getfattr --only-values -n trusted.overlay.opaque $mnt/upper/dl)" "opaque dl"
assert_eq "" "$(ls -A $m/dl)" "the lower's dl/x is hidden"

note "rename of a lower file"
mv $m/c $m/c2
assert_eq gamma "$(cat $m/c2)" "renamed content"
assert_fails test -e $m/c
assert_eq "character special file 0:0" "$(stat -c '%F %t:%T' $mnt/upper/c)" "whiteout left by the rename"

note "the merged view after a remount of both"
umount $m
umount $mnt
fsck_clean "$dev"
mount -t stalefs "$dev" $mnt
ovl_mount
assert_eq "a c2 dl m" "$(ls $m | tr '\n' ' ' | sed 's/ $//')" "merged listing"
assert_eq "alpha more" "$(tr '\n' ' ' <$m/a | sed 's/ $//')" "merged data after remount"
assert_eq upper-tag "$(getfattr --only-values -n user.new $m/a)" "xattr after remount"
umount $m
umount $mnt
fsck_clean "$dev"
echo "kernel-overlay: all checks passed"
