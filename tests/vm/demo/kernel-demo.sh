#!/bin/bash
# make demo, kernel half: what stalefs is for, told in one VM boot.  Each
# step says what it claims, shows the real commands and their output, and
# checks the claim: a step that does not behave as told fails the demo.
# Users, groups and the 0xab device pattern come from stale-lib.sh, as in
# the stale-*.sh scenarios (which test the same rules in depth).
# needs: stalefs
# disk: scratch:64M
# timeout: 300
. "$STALEFS_ROOT/tests/vm/lib.sh"
. "$STALEFS_ROOT/tests/vm/stale-lib.sh"
export LC_ALL=C
# The freshly built tools by their names, as an installed system has them.
export PATH=$STALEFS_BUILD:$PATH
[[ $(command -v mkfs.stalefs) == "$MKFS_STALEFS" ]] || fail "mkfs.stalefs is not the one in $STALEFS_BUILD"

n=0
# step TITLE LINE...: a numbered heading and a few lines of explanation.
step() {
	n=$((n + 1))
	printf '\n==> %d. %s\n' $n "$1"
	shift
	local l
	for l in "$@"; do printf '    %s\n' "$l"; done
}
# cmdline CMD...: CMD as one would type it (quotes only where needed).
cmdline() {
	local a out=()
	for a in "$@"; do
		if [[ $a =~ ^[][A-Za-z0-9_./:=,+@%^-]+$ ]]; then out+=("$a"); else out+=("'$a'"); fi
	done
	echo "${out[*]}"
}
# Prompts say who runs what: root, the group member, the outsider.
show() { printf 'root# %s\n' "$(cmdline "$@")"; "$@"; }
show_member() { printf 'stale-member$ %s\n' "$(cmdline "$@")"; as_member "$@"; }
show_other() { printf 'stale-other$ %s\n' "$(cmdline "$@")"; as_other "$@"; }
ok() { printf '    ok: %s\n' "$*"; }
# refused ENAME TEXT CMD...: CMD must fail and say TEXT: strerror(ENAME) for
# coreutils; stalefs-falloc names the cause of each errno in words instead.
refused() {
	local want=$1 msg=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		echo "$out"
		fail "this should have been refused with $want"
	fi
	echo "$out"
	[[ $out == *"$msg"* ]] || fail "expected $want (\"$msg\")"
	ok "refused: $want"
}
# nonzero_bytes FILE: how many bytes of FILE are not zero.
nonzero_bytes() { tr -d '\0' <"$1" | wc -c; }
# secret_lines FILE: lines of the deleted secret found in FILE.
secret_lines() { grep -a -c 'SECRET payroll' "$1" || true; }

step "Inside the VM: Debian's $(uname -r) kernel with stalefs.ko loaded" \
	"The scratch disk $dev has a past: a previous owner's data fills it (0xab" \
	"bytes, as fstests' generic/042 does).  mkfs discards a disk by default (the" \
	"old bytes may then read as zeros); -E nodiscard keeps them, as a disk that" \
	"cannot discard would."
show grep stalefs /proc/filesystems
show xfs_io -d -c "pwrite -q -S 0xab -b 1m 0 $(blockdev --getsize64 "$dev")" "$dev"
show od -A d -t x1 -N 32 "$dev"
show mkfs.stalefs -q -F -E nodiscard -b 4096 "$dev"
show mount -t stalefs "$dev" $mnt

step "Write a secret file, then delete it" \
	"Deleting frees the blocks but does not wipe them: the secret stays on the disk."
# 2 MiB of recognizable lines (65 bytes each), fsync'd so the blocks hold them.
python3 - $mnt/secret.txt <<'PY'
import os, sys
line = b"SECRET payroll: alice 123456, bob 654321 -- do not disclose ----\n"
with open(sys.argv[1], "wb") as f:
    f.write(line * (2 * 1024 * 1024 // len(line)))
    os.fsync(f.fileno())
PY
chmod 0600 $mnt/secret.txt
show ls -l $mnt/secret.txt
show head -n 2 $mnt/secret.txt
show rm $mnt/secret.txt
show sync
on_disk=$(dd if="$dev" iflag=direct bs=1M status=none | grep -a -c 'SECRET payroll' || true)
printf 'root# dd if=%s iflag=direct | grep -a -c "SECRET payroll"\n%s\n' "$dev" "$on_disk"
((on_disk > 0)) || fail "the deleted secret is not on the raw device"
ok "the deleted file's lines are still on the raw device ($on_disk of them)"

step "Preallocation reads zeros" \
	"fallocate reserves blocks that may hold anyone's old data (the secret, the" \
	"0xab), so stalefs marks the extent UNWRITTEN: it reads as zeros until written."
show fallocate -l 8M $mnt/prealloc.bin
show filefrag -v $mnt/prealloc.bin
grep -q unwritten <(filefrag -v $mnt/prealloc.bin) || fail "the preallocated extent is not unwritten"
show od -A d -t x1 $mnt/prealloc.bin
z=$(nonzero_bytes $mnt/prealloc.bin)
assert_eq 0 "$z" "non-zero bytes read from the preallocated file"
ok "all 8 MiB read as zero bytes"
# The same blocks, read from the device underneath the file: old data.
phys=$(filefrag -v $mnt/prealloc.bin | awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 }')
[[ -n $phys ]] || fail "no physical block for prealloc.bin's first extent"
printf 'root# dd if=%s iflag=direct bs=4096 skip=%s count=1 | od -A d -c -N 80\n' "$dev" "$phys"
dd if="$dev" iflag=direct bs=4096 skip="$phys" count=1 status=none | od -A d -c -N 80
raw=$(dd if="$dev" iflag=direct bs=4096 skip="$phys" count=1 status=none | tr -d '\0' | wc -c)
((raw > 0)) || fail "block $phys under prealloc.bin holds zeros: nothing was hidden"
ok "block $phys under the file holds old bytes; the file shows zeros"
show rm $mnt/prealloc.bin
show sync

step "Skipping the zeroing (NO_HIDE_STALE) is refused by default" \
	"stale-member (uid $MEMBER, in group stale-users = $G) owns a file of that group, mode 0660," \
	"and asks for blocks without the UNWRITTEN mark (stalefs-falloc --no-hide-stale)."
new_file $mnt/fast.db stale-member stale-users 0660
show ls -l $mnt/fast.db
refused EOPNOTSUPP "not armed" show_member stalefs-falloc --no-hide-stale -o 0 -l 8M $mnt/fast.db

step "Arm one permitted group: mount -o nohide_stale_gid=$G" \
	"The first armed mount records the group in the superblock (mkfs.stalefs -G does" \
	"the same offline); only that group, ever, until an administrator forgets it."
show umount $mnt
show mount -t stalefs -o nohide_stale_gid=$G "$dev" $mnt
show grep " $mnt " /proc/mounts
echo "root# dmesg | grep 'recorded permitted group'"
dmesg | grep "recorded permitted group $G" || fail "no kernel message recording group $G"

step "A member allocates without zeroing and sees the deleted file's bytes" \
	"This is the risk the feature carries, and why it is confined to one trusted group."
show_member stalefs-falloc --no-hide-stale -o 0 -l 8M $mnt/fast.db
show filefrag -v $mnt/fast.db
grep -q unwritten <(filefrag -v $mnt/fast.db) && fail "fast.db still has unwritten extents"
show_member grep -a -m 2 'SECRET payroll' $mnt/fast.db
s=$(as_member cat $mnt/fast.db | grep -a -c 'SECRET payroll' || true)
((s > 0)) || fail "the member does not see the deleted secret"
echo "    (tests/vm/stale-read.py: per 4 KiB block, the device's 0xab, zeros, or other bytes)"
show python3 "$STALEFS_ROOT/tests/vm/stale-read.py" buffered $mnt/fast.db
ok "$s lines of the deleted secret, and the rest of the disk's old 0xab blocks"

step "A non-member is refused" \
	"stale-other (uid $OTHER, not in stale-users) gets EPERM for the same request, and" \
	"cannot read the member's file either."
new_file $mnt/other.db stale-other stale-users 0660
refused EPERM "not in the group" show_other stalefs-falloc --no-hide-stale -o 0 -l 1M $mnt/other.db
refused EACCES "Permission denied" show_other cat $mnt/fast.db

step "The file cannot be shared while it holds stale blocks" \
	"Giving others read permission, or another group, is refused, to root too."
refused EPERM "Operation not permitted" show chmod o+r $mnt/fast.db
refused EPERM "Operation not permitted" show chgrp root $mnt/fast.db
show ls -l $mnt/fast.db
show umount $mnt

step "lsstale: every file that holds stale blocks, and whether it is confined" \
	"debugfs.stalefs reads the unmounted device; fsck.stalefs audits on every run."
show debugfs.stalefs -R lsstale "$dev"
assert_eq "2048 yes" "$(lsstale_row fast.db)" "fast.db in lsstale"
out=$(show fsck.stalefs -fn "$dev") || { echo "$out"; fail "fsck -fn found problems"; }
echo "$out"
[[ $out == *"stale audit: 1 file, 2048 blocks stale-exposed to group $G"* ]] || fail "fsck's audit line"
ok "1 file, 2048 blocks, confined to group $G"

step "An offline escape, caught and re-confined by fsck" \
	"Someone with the raw device makes the file world-readable with debugfs -w, behind" \
	"the kernel's back.  fsck -n reports it; a plain preen (-p, as at boot) re-confines it."
show debugfs.stalefs -w -R "sif fast.db mode 0100644" "$dev"
show debugfs.stalefs -R lsstale "$dev"
assert_eq "2048 NO" "$(lsstale_row fast.db)" "fast.db escaped"
rc=0; out=$(show fsck.stalefs -fn "$dev") || rc=$?
echo "$out"
assert_eq 4 $rc "fsck -fn exit status (errors left uncorrected)"
[[ $out == *"NOT confined"* ]] || fail "fsck -n does not report the escape"
ok "fsck -n: NOT confined (exit 4), nothing written"
rc=0; show fsck.stalefs -p "$dev" || rc=$?
assert_eq 1 $rc "fsck -p exit status (errors corrected)"
rc=0; out=$(show fsck.stalefs -fn "$dev") || rc=$?
echo "$out"
assert_eq 0 $rc "fsck -fn after the repair"
[[ $out == *"NOT confined"* ]] && fail "still not confined after fsck -p"
assert_eq "2048 yes" "$(lsstale_row fast.db)" "fast.db re-confined"
show mount -t stalefs "$dev" $mnt
show ls -l $mnt/fast.db
assert_eq "$G 640" "$(stat -c '%g %a' $mnt/fast.db)" "fast.db's group and mode"
s2=$(as_member cat $mnt/fast.db | grep -a -c 'SECRET payroll' || true)
assert_eq "$s" "$s2" "the member's data after the repair"
ok "re-confined: others' read bit off, group kept, no byte lost"
show umount $mnt
fsck_clean "$dev" >/dev/null
ok "and fsck.stalefs -fn finds nothing to fix, as every VM test ends"

step "Done" "Where to read more: docs/nohide-stale.md (the rules), docs/DESIGN.md (why)."
