#!/bin/bash
# Builds the VM test initramfs and prints its path.
#
#   tests/vm/mkinitramfs.sh            build if stale, print the .cpio.gz path
#   tests/vm/mkinitramfs.sh --kver     print the kernel version the VM boots
#
# The initramfs holds only busybox-static, our /init (init.sh), and the
# modules needed to reach the host root over 9p (virtio-pci, virtio-blk,
# 9p over virtio) plus loop.  Everything else (ext4, xfs, dm-*) is loaded
# later from the host's /lib/modules, seen through the 9p root.
# Cached in build/vm/; rebuilt when any input (this script, init.sh,
# busybox, the kernel's modules.dep or a module file) changes.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out_dir=$root/build/vm

# The newest Debian 6.1 kernel that has both modules and a bootable image.
# KVER may be set to override.
pick_kver() {
	local k best=
	for k in $(cd /lib/modules && ls -d 6.1.*-amd64 2>/dev/null | sort -V); do
		[[ -f /boot/vmlinuz-$k ]] && best=$k
	done
	[[ -n $best ]] || { echo "mkinitramfs: no 6.1.*-amd64 kernel with /boot/vmlinuz (install linux-image-amd64)" >&2; exit 1; }
	echo "$best"
}
KVER=${KVER:-$(pick_kver)}
if [[ ${1:-} == --kver ]]; then
	echo "$KVER"
	exit 0
fi

moddir=/lib/modules/$KVER
# What the VM cannot boot without.  Names as modprobe knows them.
required=(virtio_pci virtio_blk 9pnet_virtio 9p loop)

declare -A seen=()
order=()
# Post-order walk of modules.dep so dependencies come before their users.
# modules.dep lines are "path: dep-path dep-path ..." with paths relative
# to $moddir.
add_path() {
	local p=$1 line d
	[[ -n ${seen[$p]:-} ]] && return
	seen[$p]=1
	line=$(grep -m1 "^$p:" "$moddir/modules.dep") || { echo "mkinitramfs: $p not in modules.dep" >&2; exit 1; }
	for d in ${line#*:}; do add_path "$d"; done
	order+=("$p")
}
for m in "${required[@]}"; do
	# Module file names may use - or _ for the same module.
	pat=$(sed 's/[-_]/[-_]/g' <<<"$m")
	if grep -qE "/$pat\.ko$" "$moddir/modules.builtin"; then
		continue    # built into the kernel, nothing to load
	fi
	p=$(grep -oE "^[^:]*/$pat\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" | head -1) ||
		{ echo "mkinitramfs: module $m is neither built in nor in $moddir/modules.dep" >&2; exit 1; }
	add_path "${p%:}"
done
for p in "${order[@]}"; do
	# busybox insmod cannot read compressed modules; Debian 12 ships plain .ko.
	[[ $p == *.ko ]] || { echo "mkinitramfs: $p is compressed; teach mkinitramfs.sh to decompress it" >&2; exit 1; }
done

busybox=$(command -v busybox) || { echo "mkinitramfs: busybox-static not installed" >&2; exit 1; }
if ldd "$busybox" >/dev/null 2>&1; then
	echo "mkinitramfs: $busybox is dynamically linked; install busybox-static" >&2
	exit 1
fi

# Cache key: content of our inputs, the module list, and each module's
# identity (size+mtime is enough for package-installed files).
key=$( {
	cat "$0" "$here/init.sh" "$busybox" "$moddir/modules.dep" | sha256sum
	for p in "${order[@]}"; do stat -c '%n %s %Y' "$moddir/$p"; done
} | sha256sum | cut -c1-16)
img=$out_dir/initramfs-$KVER.cpio.gz
if [[ -f $img && $(cat "$img.key" 2>/dev/null) == "$key" ]]; then
	echo "$img"
	exit 0
fi

mkdir -p "$out_dir"
stage=$(mktemp -d "$out_dir/.initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,dev,proc,sys,etc,newroot,lib/modules}
cp "$busybox" "$stage/bin/busybox"
cp "$here/init.sh" "$stage/init"
chmod 755 "$stage/init"
for p in "${order[@]}"; do
	mkdir -p "$stage/lib/modules/$(dirname "$p")"
	cp "$moddir/$p" "$stage/lib/modules/$p"
done
printf '%s\n' "${order[@]}" >"$stage/etc/modules.load"
# The kernel's usermode-helper modprobe runs in the initramfs root; hand the
# request to the host's kmod inside the chroot (see init.sh).
cat >"$stage/sbin/modprobe" <<'EOF'
#!/bin/busybox sh
exec /bin/busybox chroot /newroot /sbin/modprobe "$@"
EOF
chmod 755 "$stage/sbin/modprobe"
# The console device must exist before devtmpfs is mounted, or /init's
# early output is lost.
mknod -m 600 "$stage/dev/console" c 5 1

(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$stage.cpio.gz"
# Rename into place so a concurrent run-vm never boots a half-written image.
mv "$stage.cpio.gz" "$img"
echo "$key" >"$img.key"
echo "mkinitramfs: built $img (${#order[@]} modules for $KVER)" >&2
echo "$img"
