# mkfs discards the device before it writes (as mke2fs), unless -E nodiscard or -K;
# on an image file that is a hole punched through it.  A refused or dry-run mkfs
# discards nothing.

# allocated_kib FILE
allocated_kib() { du -k "$1" | cut -f1; }

# random_image FILE: 32 MiB of random bytes, fully allocated; its copy in FILE.orig.
random_image() {
	head -c 32M /dev/urandom >"$1"
	cp "$1" "$1.orig"
}

# tail_is FILE REF|zero: the last MiB (free space on the new filesystem) is REF's, or zeros.
tail_is() {
	if [ "$2" = zero ]; then
		cmp -s <(tail -c 1M "$1") <(head -c 1M /dev/zero) || fail "the last MiB of $1 is not zeros"
	else
		cmp -s <(tail -c 1M "$1") <(tail -c 1M "$2") || fail "the last MiB of $1 changed"
	fi
}

test_discard_by_default() {
	random_image img
	run_mkfs img
	expect_rc 0
	expect_out 'Discarding device blocks: done'
	[ "$(allocated_kib img)" -lt 8192 ] || fail "the image still holds $(allocated_kib img) KiB after mkfs discarded it"
	tail_is img zero
	check_image img
}

test_nodiscard_keeps_blocks() {
	random_image img
	run_mkfs -E nodiscard img
	expect_rc 0
	grep -q Discarding out && fail "-E nodiscard still says it discards"
	# Only the journal's log (4 MiB, zeroed as holes) goes.
	[ "$(allocated_kib img)" -ge 24576 ] || fail "-E nodiscard: the image holds only $(allocated_kib img) KiB"
	tail_is img img.orig
	check_image img
	# -K is mke2fs' spelling; a later -E discard turns it back on.
	random_image img2
	run_mkfs -q -K img2
	expect_rc 0
	tail_is img2 img2.orig
	run_mkfs -q -K -E discard img2
	expect_rc 0
	tail_is img2 zero
	check_image img2
}

test_discard_nothing_when_refused() {
	random_image img
	run_mkfs -n img
	expect_rc 0
	cmp -s img img.orig || fail "mkfs -n changed the image"
	run_mkfs -E nosuch img
	expect_rc 16
	cmp -s img img.orig || fail "a usage error changed the image"
	run_mkfs img 1G -b 4096 -N 4000000000
	[ "$rc" -ne 0 ] || fail "an impossible inode count was accepted"
	cmp -s img img.orig || fail "a refused mkfs changed the image"
}

test_discard_loop_device() {
	trap detach_all EXIT
	trap 'exit 1' INT TERM
	random_image backing.img
	attach backing.img
	run_mkfs "$LOOP"
	expect_rc 0
	expect_out 'Discarding device blocks: done'
	sync
	[ "$(allocated_kib backing.img)" -lt 8192 ] ||
		fail "BLKDISCARD on the loop device left $(allocated_kib backing.img) KiB in its file"
	check_image "$LOOP"
}
