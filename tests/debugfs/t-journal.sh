# The journal in debugfs.stalefs (sourced by run-tests, in its scratch directory):
# stats and stats --json, logdump and its options, journal_open/write/close and
# journal_run round trips, damaged journals built with -x, read-only safety, and
# the same journals read and written by e2fsprogs (whose recovery is the kernel's).

echo "== journal"
jstat() {	# jstat IMAGE EXPR: a value from stats --json
	"$DEBUGFS" -j -R "stats -h" "$1" >jstat.json 2>/dev/null
	json_get jstat.json "$2"
}

"$MKFS" -q -F -b 1024 jr.img 32M >/dev/null 2>&1 || fail "mkfs jr.img"
dbg -R "stats -h" jr.img
expect_rc 0 "stats with a journal"
expect_out '^Journal: +4096 blocks at block [0-9]+ \(group 2\)$' "stats: where the journal is"
expect_out '^Journal superblock: +ok$' "stats: journal superblock verdict"
expect_out '^Journal features: +journal_64bit journal_checksum_v3$' "stats: journal features"
expect_out '^Journal checksum type: +crc32c \(4\)$' "stats: checksum type"
expect_out '^Journal checksum: +0x[0-9a-f]{8} \(ok\)$' "stats: journal checksum"
expect_out '^Journal start: +0 \(empty\)$' "stats: empty log"
expect_out '^Needs recovery: +no$' "stats: needs recovery"
expect_out '^Orphan inodes: +0$' "stats: orphans"
dbg -j -R "stats" jr.img
check "stats --json: journal present" [ "$(json_get out 'j["journal"]["present"]')" = True ]
check "stats --json: journal block = superblock's" [ "$(json_get out 'j["journal"]["block"] == j["superblock"]["journal_block"]')" = True ]
check "stats --json: journal features" [ "$(json_get out 'j["journal"]["features"]')" = "['64bit', 'csum_v3']" ]
check "stats --json: checksum ok" [ "$(json_get out 'j["journal"]["checksum_ok"]')" = True ]
check "stats --json: verdict" [ "$(json_get out 'j["journal"]["superblock_verdict"]')" = ok ]
check "stats --json: needs_recovery" [ "$(json_get out 'j["journal"]["needs_recovery"]')" = False ]
check "stats --json: orphans" [ "$(json_get out 'j["orphan_inodes"]')" = 0 ]
check "stats --json: existing keys stay" [ "$(json_get out '[k for k in ("superblock", "groups") if k not in j]')" = "[]" ]
check "stats --json: group orphan_count" [ "$(json_get out 'j["groups"][2]["orphan_count"]')" = 0 ]
jblock=$(json_get out 'j["journal"]["block"]')
seq0=$(json_get out 'j["journal"]["sequence"]')
dbg -R "bd $jblock" jr.img
expect_out '^Structure: journal superblock' "bd: the journal superblock"; expect_out '^Verdict: ok$' "bd: its verdict"
dbg -R "bd $((jblock + 5))" jr.img
expect_out '^Structure: journal block 5$' "bd: a log block"
dbg -R "logdump" jr.img
expect_rc 0 "logdump of an empty journal"
expect_out "^Journal starts at block 0, transaction $seq0\$" "logdump: where the log starts"
expect_out '^The journal is empty' "logdump: empty"

# No journal: said, and the journal commands refuse.
"$MKFS" -q -F -O ^has_journal nj.img 16M >/dev/null 2>&1 || fail "mkfs nj.img"
dbg -R "stats -h" nj.img
expect_out '^Journal: +<none>$' "stats without a journal"
check "stats --json without a journal" [ "$(jstat nj.img 'j["journal"]')" = "{'present': False, 'needs_recovery': False}" ]
dbg -R "logdump" nj.img
expect_rc 1 "logdump without a journal"; expect_err 'the filesystem has no journal' "logdump without a journal"
dbg -w -R "jo" nj.img
expect_rc 1 "jo without a journal"; expect_err 'the filesystem has no journal' "jo without a journal"

# ---- a round trip: journal new contents of a file's blocks, replay, read them back
head -c 3072 /dev/urandom >old.bin
head -c 2048 /dev/urandom >new.bin
dbg -w -R "write old.bin f" jr.img
expect_rc 0 "write f"
dbg -j -R "stat f" jr.img
b0=$(json_get out 'j["extents"][0]["pblk"]'); fino=$(json_get out 'j["ino"]')
b1=$((b0 + 1)); b2=$((b0 + 2))
dbg -R "ffb 1 $((b0 + 100))" jr.img; spare=$(sed -n 's/^Free blocks found: *\([0-9]*\).*/\1/p' out)
dbgin "jo
jw -b $b0,$b1 new.bin
jw -r $spare -c
jw -b $b2
jc" -w -f - jr.img
expect_rc 0 "jo/jw/jc"
expect_out "^Journal open: next transaction $seq0 at log block 1\$" "jo: the log head"
expect_out "^Transaction $seq0: 2 blocks, 1 revoke at log block 1, committed\$" "jw -c commits"
expect_out "^Transaction $((seq0 + 1)): 1 block, 0 revokes at log block 6, committed\$" "jc commits the rest"
check "nothing is in place before recovery" cmp -s <("$DEBUGFS" -R "cat f" jr.img 2>/dev/null) old.bin
dbg -R "stats -h" jr.img
expect_out '^Needs recovery: +yes$' "stats: needs recovery after jw"
expect_out '^Journal start: +1$' "stats: log start set"
expect_out 'needs_recovery' "stats: the feature"
expect_err 'needs journal recovery: this is the state before recovery' "read-only open warns"
# Read-only never writes, needs recovery or not.
before=$(sha256sum <jr.img)
dbg -R "logdump -a" jr.img
dbg -R "stats" jr.img
check "read-only logdump/stats leave the image alone" [ "$(sha256sum <jr.img)" = "$before" ]
dbg -R "logdump" jr.img
expect_out "^Found expected sequence $seq0, type 5 \\(revoke table\\) at block 1\$" "logdump: revoke block"
expect_out "^Found expected sequence $seq0, type 1 \\(descriptor block\\) at block 2\$" "logdump: descriptor"
expect_out "^Found expected sequence $seq0, type 2 \\(commit block\\) at block 5\$" "logdump: commit"
expect_out "^Found expected sequence $((seq0 + 1)), type 1 \\(descriptor block\\) at block 6\$" "logdump: second transaction"
expect_out '^No magic number at block 9: end of journal\.$' "logdump: the end"
expect_no_out 'FS block' "logdump without -a lists no tags"
dbg -R "logdump -a" jr.img
expect_out "^  FS block $b0 logged at journal block 3 \\(flags 0x0\\), checksum ok\$" "logdump -a: first tag"
expect_out "^  FS block $b1 logged at journal block 4 \\(flags 0xa SAME_UUID LAST_TAG\\), checksum ok\$" "logdump -a: last tag"
expect_out "^  Revoke FS block $spare\$" "logdump -a: revoke record"
expect_out "^Commit block, sequence $seq0, at block 5: committed .*, checksum ok\$" "logdump -a: commit"
dbg -R "logdump -b $b1" jr.img
expect_out "^  FS block $b1 logged at sequence $seq0, journal block 4 " "logdump -b: the block's copy"
expect_no_out "FS block $b0 " "logdump -b: nothing else"
expect_no_out 'Found expected' "logdump -b: no block lines"
dbg -R "logdump -b $spare" jr.img
expect_out "^  Revoke FS block $spare at block 1, sequence $seq0\$" "logdump -b: a revoke of it"
dbg -R "logdump -ac lg.txt" jr.img
check "logdump to a file (stdout empty)" [ ! -s out ]
check "logdump -c dumps contents" grep -qE '^    0000: ' lg.txt
check "logdump file holds the tags" grep -q "FS block $b0 logged" lg.txt
dbg -w -R "cat f" jr.img
expect_err 'replay it \(journal_run\) before editing' "read-write open warns"
dbg -w -R "jr" jr.img
expect_rc 0 "journal_run"
expect_out "^Replayed transactions $seq0 to $((seq0 + 1)): 3 blocks written, 1 revoke record, 0 revoked blocks skipped\$" "jr: what it did"
"$DEBUGFS" -R "cat f" jr.img >f.now 2>/dev/null
check "jr wrote the journaled blocks" cmp -s <(head -c 2048 f.now) new.bin
check "jr left the rest" cmp -s <(tail -c 1024 f.now) <(tail -c 1024 old.bin)
dbg -R "stats -h" jr.img
expect_out '^Needs recovery: +no$' "after jr: no recovery needed"
expect_out '^Journal start: +0 \(empty\)$' "after jr: log empty"
check "after jr: sequence restarts past the last transaction" [ "$(jstat jr.img 'j["journal"]["sequence"]')" = $((seq0 + 3)) ]
expect_no_out 'needs_recovery' "after jr: the feature is gone"
dbg -w -R "jr" jr.img
expect_rc 0 "jr on an empty journal"; expect_out '^The journal is empty: nothing to replay\.$' "jr: empty"
dbg -R "logdump" jr.img
expect_out '^The journal is empty' "logdump after jr"
dbg -R "logdump -O" jr.img
expect_out "^Found expected sequence $seq0, type 1 \\(descriptor block\\) at block 2\$" "logdump -O: the old log"
if [ -n "$FSCK" ] && [ -x "$FSCK" ]; then
	rc=0; "$FSCK" -fn jr.img >fsck.out 2>&1 || rc=$?
	check "fsck -fn after jr (exit $rc)" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || head -20 fsck.out
fi

# logdump -i: the journaled inode table block, with the inode in it.
dbg -R "imap f" jr.img
iblk=$(sed -n 's/.*located at block \([0-9]*\).*/\1/p' out)
[ -n "$iblk" ] || fail "imap: no block in: $(cat out)"
dbgin "jo
jw -b $iblk
jc" -w -f - jr.img
dbg -R "logdump -i f" jr.img
expect_out "^Inode $fino is at group 0, block $iblk, offset [0-9]+\$" "logdump -i: where the inode is"
expect_out "^  FS block $iblk logged at sequence $((seq0 + 3)), " "logdump -i: the table block's copy"
expect_out '^    \(inode block for inode [0-9]+\):$' "logdump -i: the inode"
expect_out '^    mode 0100[0-7]+ links 1 .*: ok$' "logdump -i: its fields and verdict"
# logdump -b: the block bitmap copy with the block's bit.
dbg -j -R "stats" jr.img
bb=$(json_get out 'j["groups"][0]["block_bitmap"]')
dbgin "jo
jw -b $bb
jc" -w -f - jr.img
dbg -R "logdump -b $b0" jr.img
expect_out "^  FS block $bb logged at sequence $((seq0 + 4)), " "logdump -b: the bitmap block's copy"
expect_out "^    \\(block bitmap for block $b0: block is SET\\)\$" "logdump -b: the bit"
dbg -w -R "jr" jr.img
expect_rc 0 "jr of the inode and bitmap blocks"

# ---- damaged journals built with -x / -u, and what jr does with them
dbgin "zap -p 0x55 $b2" -w -f - jr.img
dbgin "jo
jw -b $b0,$b1 new.bin
jc -x block-csum" -w -f - jr.img
expect_rc 0 "jc -x block-csum"
dbg -R "logdump -a" jr.img
expect_out "^  FS block $b0 logged at journal block [0-9]+ \\(flags 0x0\\), checksum BAD\$" "logdump shows the bad block"
expect_out "^  FS block $b1 logged at journal block [0-9]+ .*, checksum ok\$" "logdump: the good one"
dbg -w -R "jr" jr.img
expect_rc 1 "jr with a bad block checksum fails"
expect_err "A journaled block fails its checksum .* while recovering the journal: journaled copy of block $b0 " "jr names the block"
check "still needs recovery after the failed jr" [ "$(jstat jr.img 'j["journal"]["needs_recovery"]')" = True ]
dbg -w -R "jr -f" jr.img
expect_rc 1 "jr -f still fails"; expect_out '^The journal was discarded' "jr -f discards"
check "jr -f: needs_recovery cleared" [ "$(jstat jr.img 'j["journal"]["needs_recovery"]')" = False ]
check "jr -f: log empty" [ "$(jstat jr.img 'j["journal"]["start"]')" = 0 ]
dbg -R "logdump -O" jr.img
expect_out '^No magic number at block 1: end of journal\.$' "jr -f: the log is zeroed"
dbgin "jo
jw -b $b2
jc -u" -w -f - jr.img
expect_out 'left without a commit block' "jc -u"
dbg -w -R "jr" jr.img
expect_rc 0 "jr of an uncommitted transaction"
expect_out '^No complete transaction in the journal: nothing replayed\.$' "jr: nothing complete"
check "an uncommitted transaction is not replayed" [ "$(jstat jr.img 'j["journal"]["needs_recovery"]')" = False ]
dbgin "jo
jw -b $b0 -c
jw -b $b1
jc -x commit-csum" -w -f - jr.img
dbg -R "logdump" jr.img
expect_out 'type 2 \(commit block\) at block [0-9]+, checksum BAD$' "logdump: the bad commit"
dbg -w -R "jr" jr.img
expect_rc 0 "jr: a bad commit ends the log"
expect_out '^Replayed transactions ([0-9]+) to \1: 1 block written' "jr: the transaction before it"
expect_out 'commit block at log block [0-9]+ of transaction [0-9]+ fails its checksum: the log ends before it' "jr says where the log ended"
dbgin "jo
jw -b $b0 -c -t 2000000000
jw -b $b1
jc -x descriptor-csum -t 2000000001" -w -f - jr.img
dbg -w -R "jr" jr.img
expect_rc 1 "jr: a bad descriptor in a newer transaction is corruption"
expect_err 'The journal is corrupt: a transaction fails its checksum while recovering the journal: descriptor block at log block [0-9]+ of transaction [0-9]+ fails its checksum, and its commit is not older' "jr: corrupt"
check "a corrupt journal keeps its log" [ "$(jstat jr.img 'j["journal"]["start"]')" != 0 ]
dbg -w -R "jo" jr.img
expect_rc 1 "jo refuses a corrupt log"; expect_err 'while looking for the end of the log' "jo: corrupt log"
# The same damage, but the commit after it older: a leftover; the log just ends.
"$MKFS" -q -F -b 1024 jr2.img 32M >/dev/null 2>&1 || fail "mkfs jr2.img"
dbgin "jo
jw -b 3000 -c -t 2000000000
jw -r 3001 -b 3002
jc -x revoke-csum -t 1999999999" -w -f - jr2.img
dbg -w -R "jr" jr2.img
expect_rc 0 "jr: an older bad revoke block is a leftover"
expect_out 'earlier use of the log' "jr says so"

# ---- bad arguments and states
dbg -R "jo" jr2.img
expect_rc 1 "jo read-only"; expect_err 'Filesystem opened read/only' "jo read-only"
dbg -R "jr" jr2.img
expect_rc 1 "jr read-only"; expect_err 'Filesystem opened read/only' "jr read-only"
dbg -w -R "jw -b 5" jr2.img
expect_rc 1 "jw without jo"; expect_err 'the journal is not open' "jw without jo"
dbg -w -R "jc" jr2.img
expect_rc 1 "jc without jo"
dbgin "jo
jo
jw -b 99999999
jw -x frob -c
jw -b 5 -t 7
jw -b 3000,3001 short.bin
jr
jc" -w -f - jr2.img
expect_err 'the journal is already open' "jo twice"
expect_err 'Illegal block number 99999999' "jw: block outside"
expect_err 'unknown -x frob' "jw: bad -x"
expect_err '-x and -t apply to a commit' "jw: -t without -c"
expect_err 'while opening short.bin' "jw: missing file"
expect_err 'close the journal first' "jr with the journal open"
check "six failed commands" [ "$rc" -eq 6 ]
dbgin "jo
jw -b 3003" -w -f - jr2.img
expect_err 'the journal was not closed: a transaction of 1 block and 0 revokes was not written' "closing with a pending transaction"
dbg -R "logdump -x" jr2.img
expect_rc 1 "logdump bad option"; expect_err 'Usage: logdump' "logdump usage"
# A journal superblock that fails verification: logdump says so; -s dumps anyway.
dbg -w -R "zap -p 0 -o 0 -l 4 $(jstat jr2.img 'j["journal"]["block"]')" jr2.img
dbg -R "logdump" jr2.img
expect_rc 1 "logdump with a bad journal superblock"
expect_err 'journal superblock: journal superblock magic number is wrong \(-s dumps it' "logdump names the rule"
dbg -R "logdump -s" jr2.img
expect_rc 0 "logdump -s"; expect_out 'journal superblock: journal superblock magic number is wrong' "logdump -s header"
dbg -R "stats -h" jr2.img
expect_out '^Journal superblock: +journal superblock magic number is wrong  \*\*\* BAD \*\*\*$' "stats: bad journal superblock"

# ---- e2fsprogs (its recovery is the kernel's): the same UUID, 1 KiB blocks, 1024-block journals
if command -v mke2fs >/dev/null && command -v e2fsck >/dev/null && [ -x /sbin/debugfs -o -x /usr/sbin/debugfs ]; then
	E2DEBUGFS=$(command -v debugfs || echo /sbin/debugfs)
	uuid=01234567-89ab-cdef-0123-456789abcdef
	mk_ext4() {
		rm -f "$1"
		mke2fs -q -F -t ext4 -O metadata_csum,64bit,^flex_bg,^resize_inode -b 1024 -U $uuid -J size=1 "$1" 8M \
			>/dev/null 2>&1 || fail "mke2fs $1"
		printf 'jo -c\njc\n' | "$E2DEBUGFS" -w -f - "$1" >/dev/null 2>&1
		e2j=$("$E2DEBUGFS" -R "bmap <8> 0" "$1" 2>/dev/null)
		[ "$("$E2DEBUGFS" -R "bmap <8> 1023" "$1" 2>/dev/null)" = $((e2j + 1023)) ] || fail "the ext4 journal is not contiguous"
	}
	"$MKFS" -q -F -b 1024 -U $uuid -J size=1 sj.img 32M >/dev/null 2>&1 || fail "mkfs sj.img"
	sjb=$(jstat sj.img 'j["journal"]["block"]')
	head -c 3072 /dev/urandom >x.bin
	printf '\xc0\x3b\x39\x98' | dd of=x.bin bs=1 seek=1024 conv=notrunc status=none	# the second block: escaped
	# Ours, replayed by e2fsck.
	mk_ext4 e4.img
	dbgin "jo
jw -b 6000,6001 x.bin
jw -r 6002 -c
jw -b 6002,6003 x.bin
jw -r 6003
jc" -w -f - sj.img
	dd if=sj.img of=e4.img bs=1024 skip="$sjb" seek="$e2j" count=1024 conv=notrunc status=none
	"$E2DEBUGFS" -w -R "feature needs_recovery" e4.img >/dev/null 2>&1
	rc=0; e2fsck -fy e4.img >e2fsck.out 2>&1 || rc=$?
	check "e2fsck replays our journal (exit $rc)" grep -q 'recovering journal' e2fsck.out
	check "e2fsck: blocks 6000-6001 as journaled" cmp -s <(dd if=e4.img bs=1024 skip=6000 count=2 status=none) <(head -c 2048 x.bin)
	check "e2fsck: 6002 (revoked, then logged again) replayed" cmp -s <(dd if=e4.img bs=1024 skip=6002 count=1 status=none) <(head -c 1024 x.bin)
	check "e2fsck: 6003 (revoked in its own transaction) not replayed" cmp -s <(dd if=e4.img bs=1024 skip=6003 count=1 status=none) <(head -c 1024 /dev/zero)
	# e2fsprogs', replayed by jr.
	mk_ext4 e5.img
	printf 'jo\njw -b 6000,6001 x.bin\njw -r 6002\njc\n' | "$E2DEBUGFS" -w -f - e5.img >/dev/null 2>&1
	"$MKFS" -q -F -b 1024 -U $uuid -J size=1 sj2.img 32M >/dev/null 2>&1 || fail "mkfs sj2.img"
	dd if=e5.img of=sj2.img bs=1024 skip="$e2j" seek="$sjb" count=1024 conv=notrunc status=none
	dbg -w -R "ssv feature_incompat +needs_recovery" sj2.img
	dbg -R "logdump -a" sj2.img
	expect_out '^  FS block 6001 logged at journal block 3 \(flags 0xb ESCAPE SAME_UUID LAST_TAG\), checksum ok$' "logdump of e2fsprogs' journal"
	expect_out '^  Revoke FS block 6002$' "logdump: e2fsprogs' revoke"
	dbg -w -R "jr" sj2.img
	expect_rc 0 "jr replays e2fsprogs' journal"
	expect_out ': 2 blocks written, 1 revoke record' "jr: e2fsprogs' transactions"
	check "jr: blocks 6000-6001 as e2fsprogs journaled them" cmp -s <(dd if=sj2.img bs=1024 skip=6000 count=2 status=none) <(head -c 2048 x.bin)
else
	fail "e2fsprogs (mke2fs, e2fsck, debugfs) is missing: install it (make deps) to cross-check the journal format"
fi
