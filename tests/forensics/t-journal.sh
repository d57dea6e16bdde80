# The journal as history (sourced by run-tests in its scratch directory): jls, jcat,
# jinode, jrecover and undel -j on images whose journal holds what the kernel's would.
# debugfs builds them: files written, their inode table block (and one file's index
# node, and a block that begins with the jbd2 magic) journaled and committed, then the
# files deleted as the kernel deletes (blocks freed and the extent root emptied before
# the inode is marked deleted) and the inode table block journaled again.  The kernel's
# own evidence is tests/vm/scenarios/kernel-forensics.sh.

echo "== journal history"
need python3 || return 0

B=4096
head -c 50000 /dev/urandom >secret.bin
# 12 data blocks with a hole after each: 12 extents, more than the inode holds (7).
rm -f frag.bin frag2.bin
for i in $(seq 0 11); do
	head -c $B /dev/urandom | dd of=frag.bin bs=$B seek=$((2 * i)) conv=notrunc status=none
	head -c $B /dev/urandom | dd of=frag2.bin bs=$B seek=$((2 * i)) conv=notrunc status=none
done
truncate -s $((24 * B - 100)) frag.bin
truncate -s $((24 * B)) frag2.bin
{ printf '\xc0\x3b\x39\x98'; head -c 8188 /dev/urandom; } >magic.bin

"$MKFS" -q -F -b 4096 base.img 16M >/dev/null 2>&1 || { fail "mkfs"; return 0; }
printf 'write secret.bin secret\nwrite frag.bin frag\nwrite frag2.bin frag2\nwrite magic.bin magic\n' |
	"$DEBUGFS" -w -f - base.img >/dev/null 2>&1
jget() {	# jget EXPR: from `stat --json` of the last dbg run
	json_get out "$1"
}
dbg -j -R "stat secret" base.img; s_ino=$(jget 'j["ino"]')
dbg -j -R "stat frag" base.img; f_ino=$(jget 'j["ino"]')
dbg -j -R "stat frag2" base.img; f2_ino=$(jget 'j["ino"]')
dbg -j -R "stat magic" base.img; m_ino=$(jget 'j["ino"]'); m_blk=$(jget 'j["extents"][0]["pblk"]')
dbg -j -R "ex frag" base.img
f_node=$(json_get out '[e["block"] for e in j["entries"] if e.get("node") and e["level"] == 1][0]')
dbg -j -R "ex frag2" base.img
f2_node=$(json_get out '[e["block"] for e in j["entries"] if e.get("node") and e["level"] == 1][0]')
dbg -R "imap <$s_ino>" base.img
itab=$(sed -n 's/.*located at block \([0-9]*\),.*/\1/p' out)
check "the files share one inode table block ($itab) and the tree has index nodes ($f_node, $f2_node)" \
	[ -n "$itab" ] && [ -n "$f_node" ] && [ -n "$f2_node" ]

# The life: journaled while alive (frag2's node is not: its map comes from the disk) ...
printf 'jo\njw -b %s,%s,%s -c\njc\n' "$itab" "$f_node" "$m_blk" | "$DEBUGFS" -w -f - base.img >/dev/null 2>&1
# ... deleted as the kernel deletes (punch frees the blocks and the tree, then the inode) ...
for f in secret frag frag2; do
	printf 'punch %s 0\nsif %s size 0\nsif %s links_count 0\nsif %s dtime 1800000000\nfreei %s\nunlink %s\n' \
		$f $f $f $f $f $f
done | "$DEBUGFS" -w -f - base.img >/dev/null 2>&1
# ... and the deletion journaled.  live.img keeps it in the live log, hist.img is checkpointed.
printf 'jo\njw -b %s -c\njc\n' "$itab" | "$DEBUGFS" -w -f - base.img >/dev/null 2>&1
cp base.img live.img
"$DEBUGFS" -w -R "jr" base.img >/dev/null 2>&1
cp base.img hist.img
dbg -R "stat <$s_ino>" hist.img
expect_out 'Links: 0' "the deleted inode on disk"
check "its extents are gone from the inode" [ "$(grep -c '^  (' out)" -eq 0 ]

# ---- jls
ro hist.img "$DEBUGFS" -R "jls" hist.img
expect_rc 0 "jls"
expect_out '^Journal at block [0-9]+ \(group [0-9]+\), 1024 blocks; journal superblock: ok$' "jls: where"
expect_out '^Log: empty \(next transaction [0-9]+\); everything below is history$' "jls: an emptied log"
expect_out '^History: 2 committed transactions \([0-9]+ to [0-9]+\), 4 copies of filesystem blocks$' "jls: history"
expect_out "^ +2  old  +[0-9]+  copy of block $itab: inode table of group 0 \\(inodes 1-16\\)$" "jls: the inode table copy"
expect_out "^ +[0-9]+  old  +[0-9]+  copy of block $f_node: extent tree node of inode $f_ino$" "jls: the index node copy"
expect_out "copy of block $m_blk: data \\(no metadata magic: file or symlink data\\), escaped$" "jls: an escaped block"
expect_out '^ +[0-9]+  old  +[0-9]+  commit block, [0-9]{4}-' "jls: commit blocks"
expect_out '^ +[0-9]+ +unused through block 1023$' "jls: the unused rest, one line"
check "jls: two descriptors" [ "$(grep -c 'descriptor block' out)" -eq 2 ]
ro live.img "$DEBUGFS" -R "jls" live.img
expect_out '^Log: starts at block 1, transaction [0-9]+; 8 live blocks$' "jls: a live log"
check "jls: every block of it live" [ "$(grep -c '^ *[0-9]*  live  ' out)" -eq 8 ] && [ "$(grep -c '^ *[0-9]*  old  ' out)" -eq 0 ]
ro hist.img "$DEBUGFS" -R "jls -c" hist.img
check "jls -c: the 4 copies alone" [ "$(grep -c '^ *[0-9]*  old' out)" -eq 4 ] && [ "$(grep -c 'copy of' out)" -eq 4 ]
ro hist.img "$DEBUGFS" -R "jls -b $itab" hist.img
check "jls -b: the inode table block's 2 copies" [ "$(grep -c "copy of block $itab:" out)" -eq 2 ] && [ "$(grep -c 'copy of' out)" -eq 2 ]
ro hist.img "$DEBUGFS" -R "jls -i <$s_ino>" hist.img
check "jls -i: the same" [ "$(grep -c "copy of block $itab:" out)" -eq 2 ] && [ "$(grep -c 'copy of' out)" -eq 2 ]
ro hist.img "$DEBUGFS" -j -R "jls" hist.img
expect_rc 0 "jls --json"
check "jls --json: 4 copies, kinds and owners" [ "$(json_get out 'sorted((b["kind"], b["owner"], b["escaped"]) for b in j["blocks"] if b["type"] == "copy")')" = \
	"[('data', 0, True), ('extent tree node', $f_ino, False), ('inode table', 0, False), ('inode table', 0, False)]" ]
check "jls --json: the journal" [ "$(json_get out '(j["journal"]["copies"], j["journal"]["transactions"], j["journal"]["start"], j["journal"]["live_blocks"])')" = "(4, 2, 0, 0)" ]
check "jls --json: every block once, in order" [ "$(json_get out 'all(a["block"] < b["block"] for a, b in zip(j["blocks"], j["blocks"][1:]))')" = True ]

# ---- jcat: a copy as it would be replayed (the escaped magic put back)
mlog=$(grep "copy of block $m_blk:" out >/dev/null; "$DEBUGFS" -R "jls -b $m_blk" hist.img 2>/dev/null | awk '/copy of/ {print $1}')
ro hist.img "$DEBUGFS" -R "jcat $mlog mcopy.bin" hist.img
expect_rc 0 "jcat to a file"
check "jcat: the escaped block as it was ($mlog)" cmp -s mcopy.bin <(head -c $B magic.bin)
ro hist.img "$DEBUGFS" -R "jcat -r $mlog" hist.img
check "jcat -r: the same bytes on stdout" cmp -s out mcopy.bin
ro hist.img "$DEBUGFS" -R "jcat $mlog" hist.img
expect_out "^Journal block $mlog \\(filesystem block [0-9]+\\): copy of block $m_blk \\(data .*\\), transaction [0-9]+, old, committed; its escaped magic put back$" "jcat: what it is"
expect_out '^0000  c03b 3998 ' "jcat: the hex starts with the magic"
ro hist.img "$DEBUGFS" -R "jcat 0" hist.img
expect_out '^Journal block 0 \(filesystem block [0-9]+\): journal superblock$' "jcat 0"
ro hist.img "$DEBUGFS" -R "jcat 1024" hist.img
expect_rc 1 "jcat past the journal"; expect_err 'journal block 1024 is past the journal \(1024 blocks\)' "jcat past"; expect_one_err_line "jcat past"
ro hist.img "$DEBUGFS" -R "jcat x" hist.img
expect_rc 1 "jcat x"; expect_err 'Bad journal block - x' "jcat x"
ro hist.img "$DEBUGFS" -R "jcat -r 3 file" hist.img
expect_rc 1 "jcat -r with a file"; expect_err 'Usage: jcat' "jcat -r with a file"

# ---- jinode: the deleted inode's history
ro hist.img "$DEBUGFS" -R "jinode <$s_ino>" hist.img
expect_rc 0 "jinode"
expect_out "^Inode $s_ino: 2 copies in the journal \\(inode table block $itab, offset [0-9]+\\), newest first$" "jinode: header"
expect_out '^  -rw-r--r-- \(0100644\) links 0 uid 0 gid 0 size 0 ' "jinode: the deleted copy"
expect_out ', deleted 2027-01-15 08:00:00 UTC$' "jinode: its deletion time"
expect_out '^  -rw-r--r-- \(0100644\) links 1 uid 0 gid 0 size 50000 ' "jinode: the copy from when it lived"
expect_out '^  lblk 0-12 -> blocks [0-9]+-[0-9]+: free now$' "jinode: its extent, free now"
expect_out '^  13 blocks mapped, 0 in use now: all recoverable$' "jinode: recoverable"
check "jinode: the newest copy first" [ "$(grep -n 'links 0' out | cut -d: -f1)" -lt "$(grep -n 'links 1' out | cut -d: -f1)" ]
ro hist.img "$DEBUGFS" -R "jinode <$f_ino>" hist.img
expect_out "^  index node $f_node \\(from the journal\\): free now$" "jinode: the index node, from the journal"
check "jinode: all 12 extents" [ "$(grep -c '^  lblk ' out)" -eq 12 ]
ro hist.img "$DEBUGFS" -R "jinode <$f2_ino>" hist.img
expect_out "^  index node $f2_node \\(from the disk\\): free now$" "jinode: an index node from the disk"
ro hist.img "$DEBUGFS" -j -R "jinode <$s_ino>" hist.img
check "jinode --json" [ "$(json_get out '[(c["links_count"], c["size"], len(c["extents"]), c.get("blocks_in_use_now")) for c in j["copies"]]')" = "[(0, 0, 0, 0), (1, 50000, 1, 0)]" ]
ro hist.img "$DEBUGFS" -R "jinode <$m_ino>" hist.img
expect_out "^Inode $m_ino: 2 copies" "jinode of a file that lives"
ro hist.img "$DEBUGFS" -R "jinode" hist.img
expect_rc 1 "jinode without a file"; expect_err 'Usage: jinode' "jinode usage"

# ---- jrecover: out, byte for byte, read-only
for f in secret:$s_ino frag:$f_ino frag2:$f2_ino; do
	ro hist.img "$DEBUGFS" -R "jrecover <${f#*:}> rec.${f%%:*}" hist.img
	expect_rc 0 "jrecover ${f%%:*}"
	check "jrecover ${f%%:*}: the file as it was" cmp -s rec.${f%%:*} ${f%%:*}.bin
done
expect_out '^Wrote 98304 bytes to rec.frag2: 12 blocks copied$' "jrecover: what it wrote"
ro live.img "$DEBUGFS" -R "jrecover <$s_ino> rec.live" live.img
check "jrecover from a live log" cmp -s rec.live secret.bin
seq_del=$("$DEBUGFS" -j -R "jinode <$s_ino>" hist.img 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["copies"][0]["sequence"])')
ro hist.img "$DEBUGFS" -R "jrecover -s $seq_del <$s_ino> rec.del" hist.img
expect_rc 0 "jrecover -s (the deleted copy)"; expect_out '^  extents: none$' "jrecover -s: nothing mapped"
check "jrecover -s: an empty file" [ -f rec.del ] && [ ! -s rec.del ]
ro hist.img "$DEBUGFS" -R "jrecover -s 12345 <$s_ino> x" hist.img
expect_rc 1 "jrecover -s of no copy"; expect_err "no copy of inode $s_ino in transaction 12345" "jrecover -s none"
ro hist.img "$DEBUGFS" -R "jrecover <20> x" hist.img
expect_rc 1 "jrecover of an inode the journal never saw"; expect_err 'the journal holds no copy of inode 20' "jrecover none"
ro hist.img "$DEBUGFS" -R "jrecover <$s_ino> /nonexistent/x" hist.img
expect_rc 1 "jrecover to an unwritable file"; expect_err 'while creating /nonexistent/x' "jrecover unwritable"

# ---- blocks reused since: said, left as zeros, undel refuses
cp hist.img reuse.img
head -c 200000 /dev/urandom >new.bin
"$DEBUGFS" -w -R "write new.bin newfile" reuse.img >/dev/null 2>&1
ro reuse.img "$DEBUGFS" -R "jrecover <$s_ino> rec.reused" reuse.img
expect_rc 1 "jrecover with reused blocks fails"
expect_out '^  lblk 0-12 -> blocks [0-9]+-[0-9]+: in use now \(reused\)$' "jrecover: the reused extent named"
expect_err "13 blocks of inode $s_ino are in use now \\(reused\\): left as zeros in rec.reused" "jrecover: said on stderr"
check "jrecover: reused blocks left as zeros" cmp -s rec.reused <(head -c 50000 /dev/zero)
ro reuse.img "$DEBUGFS" -R "jrecover -f <$s_ino> rec.forced" reuse.img
expect_rc 0 "jrecover -f"; expect_out 'copied anyway \(-f\): not this file.s data' "jrecover -f says whose data it is"
check "jrecover -f copies what the blocks hold now" cmp -s rec.forced <(head -c 50000 new.bin)
# (newfile took inode $s_ino too; frag's inode is still free, some of its blocks are not)
dbg -w -R "undel -j <$s_ino> /back" reuse.img
expect_rc 1 "undel -j of a reused inode"; expect_err "inode $s_ino is in use now: its old version cannot come back" "undel -j: inode reused"
dbg -w -R "undel -j <$f_ino> /back" reuse.img
expect_rc 1 "undel -j with reused blocks"; expect_err "[0-9]+ blocks? of inode $f_ino (is|are) in use now \\(reused\\); cannot undelete" "undel -j refuses"

# ---- undel -j: back in place
cp hist.img undel.img
dbg -R "undel -j <$s_ino> /back" undel.img
expect_rc 1 "undel -j read-only"; expect_err 'read/only' "undel -j read-only"
dbg -R "undel -s 5 <$s_ino>" undel.img
expect_rc 1 "undel -s without -j"; expect_err 'Usage: undel' "undel -s without -j"
dbg -w -R "undel -j <$s_ino> /secret.back" undel.img
expect_rc 0 "undel -j"; expect_out "^Inode $s_ino undeleted from transaction [0-9]+ as /secret.back$" "undel -j says so"
dbg -w -R "undel -j <$f_ino> /frag.back" undel.img
expect_rc 0 "undel -j of a file with an index node"
dbg -w -R "undel -j <$f2_ino> /frag2.back" undel.img
expect_rc 0 "undel -j, its index node from the disk"
run "$FSCK" -fn undel.img
expect_rc 0 "fsck -fn after undel -j"
for f in secret frag frag2; do
	dbg -R "cat /$f.back" undel.img
	check "undel -j $f: the content" cmp -s out $f.bin
done
dbg -w -R "undel -j <$m_ino> /again" undel.img
expect_rc 1 "undel -j of an inode in use"; expect_err "inode $m_ino is in use now: its old version cannot come back" "undel -j in use"

# ---- no journal, and a journal that went round the ring
"$MKFS" -q -F -O ^has_journal nj.img 16M >/dev/null 2>&1
for c in jls "jcat 1" "jinode <2>" "jrecover <12> x"; do
	ro nj.img "$DEBUGFS" -R "$c" nj.img
	expect_rc 1 "$c without a journal"; expect_err 'the filesystem has no journal' "$c without a journal"
done
"$MKFS" -q -F -b 4096 ring.img 16M >/dev/null 2>&1
head -c $((400 * B)) /dev/urandom >big.bin
"$DEBUGFS" -w -R "write big.bin big" ring.img >/dev/null 2>&1
dbg -j -R "stat big" ring.img; b0=$(jget 'j["extents"][0]["pblk"]')
printf 'jo\njw -b %s-%s -c\njc\njr\n' $b0 $((b0 + 299)) | "$DEBUGFS" -w -f - ring.img >/dev/null 2>&1
printf 'jo\njw -b %s-%s -c\njc\njr\n' $((b0 + 300)) $((b0 + 399)) | "$DEBUGFS" -w -f - ring.img >/dev/null 2>&1
ro ring.img "$DEBUGFS" -j -R "jls" ring.img
# The second transaction wrote blocks 1-102 over the first's start: what the first's lost
# descriptor named is no copy any more; its second descriptor still names 46.
check "ring: the newer transaction owns the blocks it wrote" [ "$(json_get out '[b["fs_block"] - '"$b0"' for b in j["blocks"] if b["type"] == "copy"][:3]')" = "[300, 301, 302]" ]
check "ring: 100 copies of one, 46 of the other" [ "$(json_get out 'sorted(__import__("collections").Counter(b["sequence"] for b in j["blocks"] if b["type"] == "copy").values())')" = "[46, 100]" ]
check "ring: what the overwritten descriptor named is unused" [ "$(json_get out '[(b["block"], b["last"]) for b in j["blocks"] if b["type"] == "unused"][0]')" = "(103, 255)" ]
check "ring: both transactions committed" [ "$(json_get out 'j["journal"]["transactions"]')" = 2 ]
