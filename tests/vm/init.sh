#!/bin/busybox sh
# /init of the VM test initramfs (copied in by mkinitramfs.sh; runs under
# busybox, not bash).  Its only job is to get from "kernel + initramfs" to
# "bash inside the host's root filesystem": load virtio/9p/loop, mount the
# host root read-only over 9p, give it writable tmpfs for /tmp /run /mnt,
# mount the run-vm share, chroot and run the guest runner named on the kernel
# command line (vm_runner=PATH).  Whatever happens, the VM powers off at the
# end, so run-vm never waits on a guest that has nothing more to do.
/bin/busybox --install -s /bin
export PATH=/bin

die() {
	echo "vm-init: FATAL: $*"
	# Leave a note in the share if it is mounted, so run-vm can say why.
	[ -d /newroot/run/vm/share ] && echo "$*" >/newroot/run/vm/share/init-failed
	sync
	poweroff -f
	sleep 5
	echo o >/proc/sysrq-trigger
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

# Modules in dependency order (mkinitramfs.sh resolved it from modules.dep).
# insmod errors are fatal: without virtio/9p there is no root to run from.
while read -r ko; do
	insmod "/lib/modules/$ko" || die "insmod $ko failed"
done </etc/modules.load

runner= repo=
for arg in $(cat /proc/cmdline); do
	case $arg in
	vm_runner=*) runner=${arg#vm_runner=} ;;
	vm_repo=*) repo=${arg#vm_repo=} ;;
	esac
done
[ -n "$runner" ] || die "no vm_runner= on the kernel command line"

# cache=loose: the host root does not change under a test run, and caching
# its pages and dentries is what makes bash/modprobe start fast over 9p.
# access=any: one 9p session for all uids (the default attaches again per
# uid and makes every exec as a test user slow); the guest VFS still checks
# modes itself, so an unprivileged user gets EACCES as on the host.
# msize: 512000 is the largest the 6.1 virtio transport accepts; big
# messages make reading binaries and modules much faster.
p9='trans=virtio,version=9p2000.L,msize=512000'
mkdir -p /newroot
mount -t 9p -o "ro,$p9,cache=loose,access=any" hostroot /newroot || die "cannot mount host root over 9p"

# A checkout under /tmp (CI may clone there) would vanish under the tmpfs
# mounted next: hold on to it with a bind mount first, put it back after.
if [ -n "$repo" ]; then
	mkdir -p /repo
	mount -o bind "/newroot$repo" /repo || die "cannot bind the repository $repo"
fi

# The root is read-only: everything a test writes goes to tmpfs.  /mnt gets
# its own tmpfs so scenarios can mkdir mount points there.
for d in tmp run mnt var/tmp; do
	mount -t tmpfs -o mode=1777 tmpfs "/newroot/$d" || die "tmpfs on /$d"
done
chmod 755 /newroot/run /newroot/mnt
if [ -n "$repo" ] && [ ! -e "/newroot$repo/tests/vm/guest-runner.sh" ]; then
	mkdir -p "/newroot$repo" || die "cannot make $repo in the guest"
	mount -o bind /repo "/newroot$repo" || die "cannot bind the repository back at $repo"
fi
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
# devtmpfs lacks these; bash process substitution needs /dev/fd.
ln -sf /proc/self/fd /newroot/dev/fd
ln -sf fd/0 /newroot/dev/stdin
ln -sf fd/1 /newroot/dev/stdout
ln -sf fd/2 /newroot/dev/stderr
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
[ -d /sys/kernel/debug ] && mount -t debugfs debugfs /newroot/sys/kernel/debug

# The share run-vm reads results from.  No caching, so whatever the guest
# wrote is on the host at once, even if the guest later hangs or panics.
mkdir -p /newroot/run/vm/share
mount -t 9p -o "rw,$p9,cache=none" vmshare /newroot/run/vm/share || die "cannot mount vmshare"

# Kernel-initiated module loads (mount -t ext4, dm tables...) run
# /proc/sys/kernel/modprobe in *this* root, not the chroot: send them to the
# host's kmod inside the chroot (see /sbin/modprobe in the initramfs).
echo /sbin/modprobe >/proc/sys/kernel/modprobe

chroot /newroot /bin/bash "$runner"
echo "vm-init: runner exited with status $?"

sync
umount /newroot/run/vm/share 2>/dev/null
poweroff -f
sleep 5
echo o >/proc/sysrq-trigger
