# The timeline against the real clients (sourced by run-tests in its scratch directory).
# One tree goes into a stalefs image (mkfs.stalefs -d) and an ext4 image (mkfs.ext4 -d);
# each image gets the same distinct times per file, the same removals (rm: a deleted
# name; unlink: a name gone, its inode still in use), through its own debugfs.  Then:
# our timeline and TSK's fls -m -r agree entry for entry (bodycmp.py says what may
# differ and checks it), mactime reads ours without a complaint and puts every time in
# its column, -H hashes match md5sum/sha256sum of the sources, stalefs-timeline writes
# what debugfs' timeline writes, and nothing is written to the image.

echo "== timeline"
need fls mactime mkfs.ext4 debugfs python3 || return 0

mkdir -p src/dir/sub src/emptyd src/dir/more
printf 'hello\n' >src/a
ln src/a src/hardlink
printf 'x' >'src/100%41'
printf 'pipe\n' >'src/pi|pe'
printf 'with space\n' >'src/two words'
ln -s a src/short
ln -s "$(printf 'y%.0s' {1..150})" src/long
mkfifo src/fifo
head -c 10000 /dev/urandom >src/dir/sub/rnd
head -c 70000 /dev/urandom >src/dir/more/big
: >src/dir/more/empty
dd if=/dev/urandom of=src/sparse bs=4096 seek=20 count=2 status=none
printf 'doomed\n' >src/dir/doomed
printf 'still open somewhere\n' >src/dir/unlinked
chmod 4755 src/dir/sub/rnd; chmod 0640 src/a; chmod 1777 src/emptyd; chmod 2751 src/dir/more
chown 123:456 src/a src/dir/more/big
chown -h 7:8 src/short

"$MKFS" -q -F -b 4096 -d src s.img 16M >mkfs.out 2>&1 || { cat mkfs.out; fail "mkfs.stalefs -d"; return 0; }
mkfs.ext4 -q -F -b 4096 -I 256 -d src e.img 16M >mkfs.out 2>&1 || { cat mkfs.out; fail "mkfs.ext4 -d"; return 0; }

# The same removals on both, then the same times everywhere (removed inodes by number:
# each image's own, from its own debugfs).
"$DEBUGFS" -w -f - s.img >/dev/null 2>&1 <<<$'rm /dir/doomed\nunlink /dir/unlinked'
debugfs -w -f - e.img >/dev/null 2>&1 <<<$'rm /dir/doomed\nunlink /dir/unlinked'
specs=()
k=0
for p in / $(cd src && find . -mindepth 1 | sed 's|^\.||' | grep -v -e '^/dir/doomed$' -e '^/dir/unlinked$' \
	     -e '^/two words$' -e '^/hardlink$') /lost+found; do
	specs+=("$k:$p")
	k=$((k + 1))
done
# A removed name's inode by number, as each image's own ls -d shows it.
removed_ino() {	# removed_ino DEBUGFS IMAGE NAME
	"$1" -R "ls -d /dir" "$2" 2>/dev/null | tr -s ' ' '\n' | grep -B2 -x "$3" | grep -o -m1 '^<[0-9]*>$'
}
sdoomed=$(removed_ino "$DEBUGFS" s.img doomed); edoomed=$(removed_ino debugfs e.img doomed)
sunl=$(removed_ino "$DEBUGFS" s.img unlinked); eunl=$(removed_ino debugfs e.img unlinked)
check "ls -d lists the removed names (ours: $sdoomed $sunl, e2fsprogs: $edoomed $eunl)" \
	[ -n "$sdoomed" ] && [ -n "$edoomed" ] && [ -n "$sunl" ] && [ -n "$eunl" ]
sif_script "${specs[@]}" "$k:$sdoomed" "$((k + 1)):$sunl" >s.sif
sif_script "${specs[@]}" "$k:$edoomed" "$((k + 1)):$eunl" >e.sif
k=$((k + 2))
# "two words" needs quotes in both debugfs programs.
read -r a m c cr < <(times_of "$k")
for f in s.sif e.sif; do
	printf 'sif "/two words" atime @%s\nsif "/two words" mtime @%s\nsif "/two words" ctime @%s\nsif "/two words" crtime @%s\n' \
		"$a" "$m" "$c" "$cr" >>"$f"
done
"$DEBUGFS" -w -f s.sif s.img >sif.out 2>&1
check "our sif script ran clean ($(grep -c 'sif' sif.out) lines)" [ "$?" -eq 0 ]
debugfs -w -f e.sif e.img >sif.out 2>&1
check "e2fsprogs' sif script ran clean" [ "$(grep -ci 'error\|bad\|usage' sif.out)" -eq 0 ]

# ---- the comparison with fls
ro s.img "$DEBUGFS" -R "timeline" s.img
expect_rc 0 "timeline"
cp out ours.body
fls -m / -r e.img >fls.body 2>fls.err
check "fls -m -r on the ext4 image" [ "$?" -eq 0 ]
python3 "$HERE/bodycmp.py" ours.body fls.body src >cmp.out 2>&1
if [ "$?" -eq 0 ]; then pass; else fail "timeline differs from fls -m -r:"; cat cmp.out; fi
# What the comparison rests on is there: a deleted name, a reused one, hard links, escapes.
expect_out '^0\|/dir/doomed \(deleted\)\|[0-9]+\|r/rrw-r--r--\|0\|0\|7\|' "a removed name, its inode's fields"
expect_out '^0\|/dir/unlinked \(deleted-realloc\)\|' "a removed name whose inode is in use"
expect_out '^0\|/pi%7Cpe\|' "'|' escaped"
expect_out '^0\|/100%2541\|' "'%' escaped"
expect_out '^0\|/long -> y{150}\|' "a symlink target in a block"
expect_out '^0\|/\$OrphanFiles\|[0-9]+\|V/V---------\|0\|0\|0\|0\|0\|0\|0$' "TSK's virtual directory"
ino_unlinked=$(grep '^0|/dir/unlinked (deleted-realloc)|' ours.body | cut -d'|' -f3)
expect_no_out "^0\|/\\\$OrphanFiles/OrphanFile-$ino_unlinked\|" "the unlinked inode in use is named: no orphan"

# ---- mactime reads it: no complaint, every time in its column, names decoded
ro s.img "$DEBUGFS" -R "timeline" s.img
TZ=UTC mactime -b out -d -y >mac.csv 2>mac.err
check "mactime exits 0" [ "$?" -eq 0 ]
check "mactime says nothing on stderr ($(head -c 200 mac.err))" [ ! -s mac.err ]
check "mactime: one line per (time, file) and the header" [ "$(wc -l <mac.csv)" -gt 40 ]
for spec in "${specs[@]}"; do
	kk=${spec%%:*}; p=${spec#*:}
	[ "$p" = / ] && continue
	read -r a m c cr < <(times_of "$kk")
	for t in "$a:.a..:" "$m:m...:" "$c:..c.:" "$cr:...b:"; do
		secs=${t%%:*}; flag=${t#*:}; flag=${flag%:}
		when=$(date -u -d "@$secs" '+%Y-%m-%dT%H:%M:%SZ')
		if grep -F -- "$when," mac.csv | grep -F -- ",$flag," | grep -qE -- ",\"$(sed 's/[][\.*^$|+?(){}]/\\&/g' <<<"$p")( -> [^\"]*)?\"$"; then
			pass
		else
			fail "mactime: no $flag line at $when for $p"
		fi
	done
done
check "mactime decodes %7C back to '|'" grep -qF ',"/pi|pe"' mac.csv
check "mactime decodes %25 back to '%'" grep -qF ',"/100%41"' mac.csv

# ---- hashes, the prefix, -d and -u
ro s.img "$DEBUGFS" -R "timeline -H md5 -m /evidence/" s.img
expect_rc 0 "timeline -H md5"
for f in a 'pi|pe' dir/sub/rnd dir/more/big dir/more/empty sparse; do
	want=$(md5sum <"src/$f" | cut -d' ' -f1)
	if grep -qF -- "$want|/evidence/$(printf '%s' "$f" | sed 's/%/%25/g; s/|/%7C/g')|" out; then pass
	else fail "timeline -H md5: /$f is not $want"; fi
done
expect_out '^0\|/evidence/dir/doomed \(deleted\)\|' "-H: deleted files get 0"
expect_out '^0\|/evidence/fifo\|' "-H: a FIFO gets 0"
ro s.img "$DEBUGFS" -R "timeline -H sha256" s.img
want=$(sha256sum <src/dir/more/big | cut -d' ' -f1)
expect_out "^$want\|/dir/more/big\|" "timeline -H sha256"
ro s.img "$DEBUGFS" -R "timeline -d" s.img
check "timeline -d: only deleted names ($(wc -l <out) lines)" [ "$(grep -vc 'deleted' out)" -eq 0 ] && [ "$(wc -l <out)" -eq 2 ]
ro s.img "$DEBUGFS" -R "timeline -u" s.img
check "timeline -u: no deleted names" [ "$(grep -c 'deleted' out)" -eq 0 ]
expect_out '^0\|/dir/more/big\|' "timeline -u lists what is in use"

# ---- stalefs-timeline writes the same bytes, to a file or standard output
ro s.img "$TIMELINE" -H md5 s.img
expect_rc 0 "stalefs-timeline"
"$DEBUGFS" -R "timeline -H md5" s.img >dbg.body 2>/dev/null
check "stalefs-timeline = debugfs timeline" cmp -s out dbg.body
ro s.img "$TIMELINE" -o tl.body s.img
expect_rc 0 "stalefs-timeline -o"
check "stalefs-timeline -o writes the file, nothing on stdout" cmp -s tl.body ours.body && [ ! -s out ]
ro s.img "$DEBUGFS" -R "timeline db.body" s.img
expect_out '^[0-9]+ entries \(2 deleted, 0 orphan inodes\) written to db.body$' "timeline to a file: the count"
check "timeline to a file: the bodyfile" cmp -s db.body ours.body

# ---- bad input: one clear message each
ro s.img "$DEBUGFS" -R "timeline -H sha1" s.img
expect_rc 1 "timeline -H sha1"; expect_err 'unknown hash sha1 \(md5 or sha256\)' "timeline -H sha1"
ro s.img "$DEBUGFS" -R "timeline -d -u" s.img
expect_rc 1 "timeline -d -u"; expect_err 'Usage: timeline' "timeline -d -u"
ro s.img "$DEBUGFS" -R "timeline /nonexistent/dir/x" s.img
expect_rc 1 "timeline to an unwritable file"; expect_err 'while opening /nonexistent/dir/x for the timeline' "timeline unwritable"
run "$TIMELINE" -H sha1 s.img
expect_rc 16 "stalefs-timeline -H sha1"; expect_err 'unknown hash' "stalefs-timeline -H sha1"
run "$TIMELINE"
expect_rc 16 "stalefs-timeline without an image"; expect_err '^Usage: stalefs-timeline' "usage"
run "$TIMELINE" /nonexistent.img
expect_rc 8 "stalefs-timeline of a missing image"; expect_err 'stalefs-timeline: .* while opening /nonexistent.img' "missing image"
ro e.img "$TIMELINE" e.img
expect_rc 8 "stalefs-timeline of an ext4 image"; expect_err 'Bad magic number' "ext4 image"
ro s.img "$TIMELINE" -o /nonexistent/dir/x s.img
expect_rc 8 "stalefs-timeline to an unwritable file"; expect_err 'while opening /nonexistent/dir/x' "unwritable output"

# ---- damage: a directory block that fails its checksum is named, the rest still listed
cp s.img dmg.img
blk=$("$DEBUGFS" -R "bmap /dir/more 0" dmg.img 2>/dev/null | grep -o '^[0-9]*')
"$DEBUGFS" -w -R "zap_block -o 40 -l 1 -p 0x41 $blk" dmg.img >/dev/null 2>&1
ro dmg.img "$TIMELINE" dmg.img
expect_rc 1 "stalefs-timeline of a damaged directory"
expect_err "directory inode [0-9]+, block 0 \(physical $blk\): " "the damaged block is named"
expect_out '^0\|/dir/sub/rnd\|' "the rest is still listed"
ro dmg.img "$DEBUGFS" -R "timeline" dmg.img
expect_rc 1 "debugfs timeline of a damaged directory counts as failed"

# ---- names fls and we both turn into '^' (a newline), compared on their own
mkdir src2 && printf 'x' >"src2/new
line" && printf 'y' >"src2/tab	tab"
"$MKFS" -q -F -b 4096 -d src2 s2.img 16M >/dev/null 2>&1 && mkfs.ext4 -q -F -b 4096 -d src2 e2.img 16M >/dev/null 2>&1
ro s2.img "$DEBUGFS" -R "timeline" s2.img
check "a newline in a name is '^' in both" grep -q '^0|/new^line|' out
check "a tab in a name is '^' in both" grep -q '^0|/tab^tab|' out
fls -m / -r e2.img >fls2.body 2>/dev/null
check "fls agrees on the control characters" grep -q '^0|/new^line|' fls2.body && grep -q '^0|/tab^tab|' fls2.body
