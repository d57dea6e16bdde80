# Hostile images: damaged copies of populated images (tests/robust/damage-image:
# fields at edge values with checksums recomputed, bit flips, garbage and
# copied metadata blocks, truncation) and the fuzzers' corpora, served by the
# ASan+UBSan build of the server, sandboxed as deployed.  Each image is
# mounted read-only and walked (tests/robust/walk-fs: list, stat, read every
# file, readlink, getxattr, then changes that must fail with EROFS), then
# read-write when the server accepts it (damage it finds at open makes it
# refuse) and walked again, changes included.  A sanitizer report, a crash,
# a hang (a walk over LIMIT seconds), an errno damage cannot explain, or a
# refusal without a message fails the test; a failure names the image's seed.
# check: 100 images; soak (FUSE_SOAK=1): 1,600 damaged images and the whole
# corpora (417), over 2,000.

HOSTILE_LIMIT=60

# hostile_one IMAGE LABEL: every check for one image.
hostile_one() {
	local img=$1 label=$2 mode rc
	for mode in ro rw; do
		SFUSE=$SFUSE_SAN
		if ! sfuse_try_mount "$img" m -o "$mode"; then
			SFUSE=$SFUSE_NORMAL
			check_server_log "$SFUSE_LOG"
			grep -q "while opening" "$SFUSE_LOG" || { cp "$img" "$KEEP/"; cat "$SFUSE_LOG"; fail "$label: refused ($mode) without saying why"; }
			HOSTILE_REFUSED=$((HOSTILE_REFUSED + 1))
			continue
		fi
		SFUSE=$SFUSE_NORMAL
		rc=0
		timeout "$HOSTILE_LIMIT" "$WALK" "$PWD/m" >walk.out 2>&1 || rc=$?
		if [ $rc -ne 0 ]; then
			cp "$img" "$KEEP/"
			tail -5 walk.out
			umount -l m 2>/dev/null
			[ $rc -eq 124 ] && fail "$label ($mode): the walk hung (over $HOSTILE_LIMIT s)"
			fail "$label ($mode): walk-fs exited $rc"
		fi
		umount m || fail "$label ($mode): umount"
		server_exit "$HOSTILE_LIMIT"
		rc=$SERVER_RC
		check_server_log "$SFUSE_LOG"
		# 1: a commit or close the damage made fail, reported; a signal or sanitizer exit is not that.
		[ $rc -le 1 ] || { cp "$img" "$KEEP/"; cat "$SFUSE_LOG"; fail "$label ($mode): the server exited $rc"; }
		HOSTILE_WALKS=$((HOSTILE_WALKS + 1))
	done
	HOSTILE_IMAGES=$((HOSTILE_IMAGES + 1))
}

test_damaged_images_under_asan() {
	local n_damage n_corpus bs seed gen out i f
	n_damage=$(((FUSE_SOAK == 1) ? 800 : 30))	# per base image
	n_corpus=$(((FUSE_SOAK == 1) ? 100000 : 20))	# per corpus: all of it in the soak
	HOSTILE_IMAGES=0 HOSTILE_WALKS=0 HOSTILE_REFUSED=0
	SFUSE_NORMAL=$SFUSE
	KEEP=$PWD/kept && mkdir -p "$KEEP"
	# Sandboxed, LeakSanitizer cannot run (it ptraces the process); leaks are test_leaks_under_asan's.
	export ASAN_OPTIONS=detect_leaks=0:symbolize=0:abort_on_error=0
	for bs in 1024 4096; do
		base=$BASE_DIR/base-$bs.img
		[ -s "$base" ] || fail "$base is missing (make check-fuse makes it)"
		# One generator per base (a Python start and a catalogue of the base per image cost more
		# than the rest): "SEED OUT" in, what it did and "done" out.
		coproc GEN { python3 "$ROBUST/damage-image" --serve "$base"; }
		for seed in $(seq 1 "$n_damage"); do
			seed=$((seed * 7919 + bs))
			echo "$seed $PWD/damaged.img" >&"${GEN[1]}"
			what=
			while read -r line <&"${GEN[0]}"; do
				[ "$line" = done ] && break
				[ -n "$what" ] || what=$line
			done
			[ -n "$what" ] || fail "damage-image gave nothing for seed $seed"
			hostile_one damaged.img "damage-image base-$bs seed $seed ($what)"
		done
		exec {GEN[1]}>&-
		wait "$GEN_PID" 2>/dev/null || true
	done
	for f in fsck debugfs; do
		i=0
		for gz in "$CORPUS_DIR"/$f/corpus/*.gz; do
			[ $i -lt "$n_corpus" ] || break
			i=$((i + 1))
			gunzip -c "$gz" >corpus.img && truncate -s 2M corpus.img
			hostile_one corpus.img "tests/fuzz/$f/corpus/$(basename "$gz")"
		done
	done
	echo "NOTE $HOSTILE_IMAGES images, $HOSTILE_WALKS walks, $HOSTILE_REFUSED refusals"
	[ "$HOSTILE_IMAGES" -ge 100 ] || fail "only $HOSTILE_IMAGES images"
}

# The same walk, unsandboxed so LeakSanitizer can run: nothing a request allocates stays.
test_leaks_under_asan() {
	local seed
	SFUSE_NORMAL=$SFUSE
	KEEP=$PWD/kept && mkdir -p "$KEEP"
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
	for seed in 11 12 13 14 15; do
		python3 "$ROBUST/damage-image" "$BASE_DIR/base-1024.img" $seed damaged.img >/dev/null 2>&1 || fail "damage-image"
		SFUSE=$SFUSE_SAN
		sfuse_try_mount damaged.img m -o nosandbox || { SFUSE=$SFUSE_NORMAL; check_server_log "$SFUSE_LOG"; continue; }
		SFUSE=$SFUSE_NORMAL
		timeout "$HOSTILE_LIMIT" "$WALK" "$PWD/m" >walk.out 2>&1 || { tail -3 walk.out; fail "walk-fs on seed $seed"; }
		umount m
		server_exit "$HOSTILE_LIMIT"
		check_server_log "$SFUSE_LOG"
	done
	# And a healthy image written through, with every kind of request.
	mkimg img 64M
	SFUSE=$SFUSE_SAN
	sfuse_mount img m -o nosandbox
	SFUSE=$SFUSE_NORMAL
	cp -a "$ROBUST" m/tree && setfattr -n user.x -v 1 m/tree && setfacl -m u:1:r m/tree
	rm -r m/tree/walk-fs.c && mv m/tree m/tree2 && ls -lR m >/dev/null
	"$FSX" -N 3000 -S 3 m/fsx >/dev/null || fail "fsx under ASan"
	sfuse_umount m
	fsck_clean img
}
