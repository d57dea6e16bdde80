# Unallocated space, slack and STALE extents extracted with maps (sourced by run-tests in
# its scratch directory).  Markers planted in blocks that are then freed, left past a
# file's size, or exposed by STALE and UNWRITTEN extents must come out exactly where the
# maps say, and every map line must be true of the image itself (its bytes at
# image_offset are the stream's bytes at stream_offset) -- also for a filesystem in a
# partition, where image and filesystem offsets differ.  Nothing is written to the image,
# and what comes out is readable by its owner alone.

echo "== extraction: blkls, slack, dump_stale"
need python3 sfdisk || return 0
B=4096

# mark TEXT BYTES: a file of BYTES bytes repeating TEXT.
mark() { python3 -c 'import sys; t=sys.argv[1].encode(); n=int(sys.argv[2]); sys.stdout.buffer.write((t*(n//len(t)+1))[:n])' "$1" "$2"; }
# check_map MAP STREAM IMAGE: every line's bytes in the image are the stream's.
check_map() {
	python3 - "$@" <<'EOF'
import sys
mapf, streamf, imgf = sys.argv[1:4]
lines = [l.rstrip("\n").split("\t") for l in open(mapf) if not l.startswith("#")]
stream = open(streamf, "rb").read() if streamf != "-" else None
img = open(imgf, "rb")
bad = 0
for f in lines:
    so, ln, io = int(f[0]), int(f[1]), int(f[3])
    img.seek(io)
    want = img.read(ln)
    if stream is not None and stream[so:so + ln] != want:
        bad += 1
        print("map line", f, "does not match the image")
print(len(lines), "lines", bad, "bad")
sys.exit(1 if bad or not lines else 0)
EOF
}

# ---- the evidence: markers in freed blocks, past EOF, under STALE and UNWRITTEN extents
mark 'FREED-MARKER;' $((6 * B)) >freed.bin
mark 'STALE-SECRET;' $((8 * B)) >stale.bin
mark 'UNWRITTEN-OLD;' $((3 * B)) >unw.bin
mark 'TAIL-LEFTOVER;' $((3 * B)) >tail.bin
: >empty
"$MKFS" -q -F -b 4096 -G 1234 base.img 16M >/dev/null 2>&1 || { fail "mkfs"; return 0; }
printf 'write freed.bin freed\nwrite stale.bin stale\nwrite unw.bin unw\nwrite tail.bin tail\n' |
	"$DEBUGFS" -w -f - base.img >/dev/null 2>&1
dbg -j -R "stat freed" base.img; freed_blk=$(json_get out 'j["extents"][0]["pblk"]')
dbg -j -R "stat stale" base.img; stale_blk=$(json_get out 'j["extents"][0]["pblk"]')
dbg -j -R "stat unw" base.img; unw_blk=$(json_get out 'j["extents"][0]["pblk"]')
# stale, unw: their blocks freed, then taken again by files whose extents are STALE /
# UNWRITTEN over them (the first free blocks each time); freed: removed last, its blocks
# free with their bytes as they were.
# tail: cut to 5000 bytes, its third block still mapped wholly past the size.
{
	printf 'rm stale\nwrite empty conf\nsif conf gid 1234\nsif conf mode 0100640\nfallocate --no-hide-stale conf 0 7\nsif conf size %s\n' $((8 * B))
	printf 'rm unw\nwrite empty pre\nfallocate pre 0 2\nsif pre size %s\n' $((3 * B))
	printf 'write empty loose\nsif loose gid 1234\nsif loose mode 0100644\nfallocate --no-hide-stale loose 0 1\nsif loose size %s\n' $((2 * B))
	printf 'sif tail size 5000\nrm freed\n'
} | "$DEBUGFS" -w -f - base.img >/dev/null 2>&1
dbg -j -R "stat conf" base.img
check "conf's STALE extent lies over stale's old blocks" [ "$(json_get out 'j["extents"][0]["pblk"]')" = "$stale_blk" ]
conf_ino=$(json_get out 'j["ino"]')
dbg -j -R "stat pre" base.img
pre_blk=$(json_get out 'j["extents"][0]["pblk"]'); pre_ino=$(json_get out 'j["ino"]')
check "pre's UNWRITTEN extent lies over unw's old blocks" [ "$pre_blk" = "$unw_blk" ]
check "pre's extent is UNWRITTEN" [ "$(json_get out 'j["extents"][0]["flags"]')" = "['UNWRITTEN']" ]
dbg -j -R "stat loose" base.img; loose_ino=$(json_get out 'j["ino"]')
cp base.img e.img
umask 000

# ---- blkls
ro e.img "$DEBUGFS" -R "blkls -m bl.map bl.bin" e.img
expect_rc 0 "blkls"
free_blocks=$("$DEBUGFS" -R "stats -h" e.img 2>/dev/null | sed -n 's/^Free blocks: *//p')
expect_out "^$free_blocks unallocated blocks \\($((free_blocks * B)) bytes\\) in [0-9]+ runs? written to bl.bin$" "blkls: the count"
check "blkls: every free block, no more ($(stat -c %s bl.bin) bytes)" [ "$(stat -c %s bl.bin)" -eq $((free_blocks * B)) ]
check "blkls: the freed file's marker is in it" grep -q 'FREED-MARKER;FREED-MARKER;' bl.bin
check_map bl.map bl.bin e.img >cm.out
if [ "$?" -eq 0 ]; then pass; else fail "blkls map: $(tail -3 cm.out)"; fi
check "blkls: the freed blocks' run is mapped" awk -F'\t' -v b="$freed_blk" '!/^#/ && b >= $5 && b < $5 + $6 {f=1} END {exit !f}' bl.map
check "blkls: output readable by its owner alone" [ "$(stat -c %a bl.bin)" = 600 ]
ro e.img "$DEBUGFS" -R "blkls -l" e.img
expect_out '^ +First +Last +Blocks +FS offset +Image offset +Group$' "blkls -l: header"
check "blkls -l: one line per run, as the map" [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' out)" -eq "$(grep -vc '^#' bl.map)" ]
ro e.img "$DEBUGFS" -R "blkls" e.img
check "blkls to a pipe or file: the same bytes" cmp -s out bl.bin
ro e.img script -qec "$DEBUGFS -R blkls e.img" /dev/null
check "blkls refuses a terminal" grep -q 'blkls: will not write binary data to a terminal' out
ro e.img "$DEBUGFS" -R "blkls -l -m x" e.img
expect_rc 1 "blkls -l with -m"; expect_err 'Usage: blkls' "blkls -l -m"
ro e.img "$DEBUGFS" -c -R "blkls -l" e.img
expect_rc 1 "blkls without bitmaps"; expect_err 'catastrophic' "blkls -c"

# ---- slack
ro e.img "$DEBUGFS" -R "slack -m sl.map sl.bin" e.img
expect_rc 0 "slack"
check "slack: the tail's leftover bytes" grep -q 'TAIL-LEFTOVER;' sl.bin
check "slack: tail piece of /tail: 5000 % 4096 to the block's end" \
	awk -F'\t' '$7 == "tail" && $8 == "/tail" && $2 == 4096 - 5000 % 4096 {f=1} END {exit !f}' sl.map
check "slack: /tail's third block is beyond its size" awk -F'\t' '$7 == "beyond" && $8 == "/tail" {f=1} END {exit !f}' sl.map
check "slack: no UNWRITTEN content without -u" [ "$(grep -c 'UNWRITTEN-OLD' sl.bin)" -eq 0 ]
check_map sl.map sl.bin e.img >cm.out
if [ "$?" -eq 0 ]; then pass; else fail "slack map: $(tail -3 cm.out)"; fi
ro e.img "$DEBUGFS" -R "slack -u -m slu.map slu.bin" e.img
check "slack -u: what lies under the UNWRITTEN extent" grep -q 'UNWRITTEN-OLD;' slu.bin
check "slack -u: mapped as unwritten, block $pre_blk of inode $pre_ino" \
	awk -F'\t' -v b="$pre_blk" -v i="$pre_ino" '$7 == "unwritten" && $5 == b && $6 == i {f=1} END {exit !f}' slu.map
check_map slu.map slu.bin e.img >cm.out
if [ "$?" -eq 0 ]; then pass; else fail "slack -u map: $(tail -3 cm.out)"; fi

# ---- dump_stale
ro e.img "$DEBUGFS" -R "dump_stale -m st.map st.bin" e.img
expect_rc 0 "dump_stale"
expect_out '^10 STALE blocks of 2 files written to st.bin$' "dump_stale: the count"
check "dump_stale: the exposed secret" grep -q 'STALE-SECRET;STALE-SECRET;' st.bin
check "dump_stale: the map names the permitted group" grep -qx '# permitted group 1234' st.map
check "dump_stale: /conf confined, 8 blocks" awk -F'\t' -v i="$conf_ino" '$7 == i && $6 == 8 && $10 == 1234 && $11 == "yes" && $12 == "/conf" {f=1} END {exit !f}' st.map
check "dump_stale: /loose not confined (others may read it)" awk -F'\t' -v i="$loose_ino" '$7 == i && $11 == "NO" && $12 == "/loose" {f=1} END {exit !f}' st.map
check_map st.map st.bin e.img >cm.out
if [ "$?" -eq 0 ]; then pass; else fail "dump_stale map: $(tail -3 cm.out)"; fi
ro e.img "$DEBUGFS" -R "dump_stale -d sd -m sd.map" e.img
expect_rc 0 "dump_stale -d"
check "dump_stale -d: one file per inode" [ -f "sd/$conf_ino.stale" ] && [ -f "sd/$loose_ino.stale" ] && [ "$(ls sd | wc -l)" -eq 2 ]
check "dump_stale -d: the extent at its logical offset" cmp -s "sd/$conf_ino.stale" <(head -c $((8 * B)) stale.bin)
check "dump_stale -d: files readable by their owner alone" [ "$(stat -c %a "sd/$conf_ino.stale")" = 600 ]
ro e.img "$DEBUGFS" -R "dump_stale -d sd x" e.img
expect_rc 1 "dump_stale -d with a file"; expect_err 'Usage: dump_stale' "dump_stale -d x"
"$MKFS" -q -F nostale.img 16M >/dev/null 2>&1
ro nostale.img "$DEBUGFS" -R "dump_stale st2.bin" nostale.img
expect_out '^0 STALE blocks of 0 files written to st2.bin$' "dump_stale without STALE extents"

# ---- in a partition: image offsets are the disk's
truncate -s 24M disk.img
printf 'label: gpt\nstart=4096, size=32768\n' | sfdisk -q disk.img || fail "sfdisk"
dd if=e.img of=disk.img bs=512 seek=4096 conv=notrunc status=none
ro disk.img "$DEBUGFS" -R "dump_stale -m pst.map pst.bin" 'disk.img?part=1'
check "in a partition: the same stream" cmp -s pst.bin st.bin
check "in a partition: image_offset = fs_offset + the partition's offset" \
	awk -F'\t' '!/^#/ && $4 != $3 + 4096 * 512 {bad=1} END {exit bad}' pst.map
check_map pst.map pst.bin disk.img >cm.out
if [ "$?" -eq 0 ]; then pass; else fail "partition map: $(tail -3 cm.out)"; fi
ro disk.img "$DEBUGFS" -R "blkls -m pbl.map pbl.bin" 'disk.img?part=1'
check_map pbl.map pbl.bin disk.img >cm.out
if [ "$?" -eq 0 ]; then pass; else fail "partition blkls map: $(tail -3 cm.out)"; fi
check "nothing wrote the evidence" cmp -s e.img base.img
