#!/bin/bash
# Prints the path of the kernel image run-vm should boot for KVER ($1).
#
# Why: Debian's /boot/vmlinuz is an xz-compressed bzImage, and
# decompressing it under TCG emulation takes ~4.5 s of every boot.  The
# uncompressed ELF vmlinux inside it has a PVH entry note (CONFIG_PVH=y),
# so qemu can load it directly and the kernel starts at once.  We extract
# it once into build/vm/ (cached; redone when /boot/vmlinuz changes), and
# fall back to the bzImage if anything about that does not work.
set -euo pipefail

kver=${1:?usage: mkvmlinux.sh KVER}
here=$(cd "$(dirname "$0")" && pwd)
out_dir=$(cd "$here/../.." && pwd)/build/vm
bz=/boot/vmlinuz-$kver
out=$out_dir/vmlinux-$kver

if [[ -s $out && $out -nt $bz ]]; then
	echo "$out"
	exit 0
fi

fallback() {
	echo "mkvmlinux: $*; booting the compressed $bz (slower)" >&2
	echo "$bz"
	exit 0
}
# The xz stream starts at its magic bytes FD 37 7A 58 5A 00 inside the bzImage.
off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | head -1 | cut -d: -f1) || true
[[ -n $off ]] || fallback "no xz stream in $bz"
mkdir -p "$out_dir"
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
# (tail dies of SIGPIPE when xz stops at the end of the stream: ignore it.)
{ tail -c +$((off + 1)) "$bz" || true; } | xz -dc --single-stream >"$tmp" 2>/dev/null || fallback "cannot decompress $bz"
# 0x12 is XEN_ELFNOTE_PHYS32_ENTRY, the PVH entry point qemu needs.
readelf -n "$tmp" 2>/dev/null | grep -q 'Xen.*(0x00000012)' || fallback "extracted vmlinux has no PVH entry note"
mv "$tmp" "$out"
echo "$out"
