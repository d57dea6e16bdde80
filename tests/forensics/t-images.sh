# Images as they come (sourced by run-tests in its scratch directory): whole-disk images
# with a GPT and with an MBR and logical partitions (made by sfdisk), listed by
# stalefs-mmls as TSK's mmls lists them; every tool opening a partition by number
# (IMAGE?part=N) and by offset; E01 files made by ewfacquire (one segment and many)
# read through libewf by every tool, fsck -n replaying a journal in memory; writing
# to evidence refused; and every read-only command leaving each byte of the image
# (each segment file) as it was.

echo "== images: partitions and EWF"
need sfdisk mmls ewfacquire python3 || return 0

# sums FILE...: one line of SHA-256 sums, to compare before and after.
sums() { sha256sum "$@" | cut -d' ' -f1 | tr '\n' ' '; }

mkdir -p src/d
printf 'in a partition\n' >src/a
head -c 30000 /dev/urandom >src/d/r

# ---- a GPT disk: stalefs in 1 (a tree) and 3 (a journal to replay), nothing in 2
truncate -s 32M gpt.img
printf 'label: gpt\nstart=2048, size=16384, name="evidence"\nstart=18432, size=4096\nstart=22528, size=24576, name="crashed"\n' |
	sfdisk -q gpt.img || { fail "sfdisk gpt.img"; return 0; }
"$MKFS" -q -F -b 4096 -L one -d src 'gpt.img?part=1' >/dev/null 2>&1 || fail "mkfs -d on gpt.img?part=1"
"$MKFS" -q -F -b 4096 -L three 'gpt.img?part=3' >/dev/null 2>&1 || fail "mkfs on gpt.img?part=3"
printf 'write src/d/r late\n' | "$DEBUGFS" -w -f - 'gpt.img?part=3' >/dev/null 2>&1
dbg -j -R "stat late" 'gpt.img?part=3'
lblk=$(json_get out 'j["extents"][0]["pblk"]')
head -c 4096 /dev/urandom >newblock
printf 'jo\njw -b %s newblock\njc\n' "$lblk" | "$DEBUGFS" -w -f - 'gpt.img?part=3' >/dev/null 2>&1
dbg -R "stats -h" 'gpt.img?part=3'
expect_out '^Needs recovery: +yes$' "partition 3 needs journal recovery"

# stalefs-mmls against mmls: the same partitions, sector for sector.
mmls_parts() {	# the partitions (start length) mmls lists: slots like 004 or 002:000, no Meta
	mmls "$1" | awk '$2 ~ /^[0-9]+(:[0-9]+)?$/ && $2 !~ /^Meta/ {print $3 + 0, $5 + 0}' | sort -n
}
ours_parts() {	# ours, from the JSON, extended containers left out as mmls does
	"$BINDIR/stalefs-mmls" -j "$1" | python3 -c 'import json,sys
for p in json.load(sys.stdin)["partitions"]:
    if not p.get("extended"): print(p["start_sector"], p["sectors"])' | sort -n
}
ro gpt.img "$BINDIR/stalefs-mmls" gpt.img
expect_rc 0 "stalefs-mmls of a GPT disk"
expect_out '^gpt.img: GPT \(GUID partition table\), 65536 sectors of 512 bytes \(32.0 MiB\)$' "stalefs-mmls: the table"
expect_out '^ +1  2048 +18431 +16384 +8.0 MiB +Linux filesystem "evidence": stalefs "one", open as gpt.img\?part=1$' "stalefs-mmls: partition 1"
expect_out '^ +2  18432 +22527 +4096 +2.0 MiB +Linux filesystem$' "stalefs-mmls: partition 2, no stalefs"
expect_out '^ +3  22528 +47103 +24576 +12.0 MiB +Linux filesystem "crashed": stalefs "three", open as gpt.img\?part=3$' "stalefs-mmls: partition 3"
expect_out '^ +-  47104 +65535 +18432 +9.0 MiB +unallocated$' "stalefs-mmls: the unallocated end"
check "stalefs-mmls lists what mmls lists (GPT)" [ "$(ours_parts gpt.img)" = "$(mmls_parts gpt.img)" ] && [ -n "$(mmls_parts gpt.img)" ]

# ---- an MBR disk with logical partitions: stalefs in logical 6
truncate -s 32M mbr.img
printf 'label: dos\nstart=2048, size=8192, type=83, bootable\nstart=10240, size=40000, type=5\nstart=12288, size=4096, type=83\nstart=18432, size=16384, type=83\n' |
	sfdisk -q mbr.img || fail "sfdisk mbr.img"
"$MKFS" -q -F -L logical 'mbr.img?part=6' >/dev/null 2>&1 || fail "mkfs on mbr.img?part=6"
ro mbr.img "$BINDIR/stalefs-mmls" mbr.img
expect_out '^ +1  2048 +10239 +8192 +4.0 MiB +Linux \(0x83\), bootable$' "stalefs-mmls: an MBR primary"
expect_out '^ +2  10240 +50239 +40000 +19.5 MiB +Extended \(0x05\)$' "stalefs-mmls: the extended partition"
expect_out '^ +6  18432 +34815 +16384 +8.0 MiB +Linux \(0x83\): stalefs "logical", open as mbr.img\?part=6$' "stalefs-mmls: logical 6"
check "stalefs-mmls lists what mmls lists (MBR, logicals)" [ "$(ours_parts mbr.img)" = "$(mmls_parts mbr.img)" ] && [ -n "$(mmls_parts mbr.img)" ]
ro mbr.img "$FSCK" -fn 'mbr.img?part=6'
expect_rc 0 "fsck -fn of a logical partition"
ro mbr.img "$FSCK" -fn 'mbr.img?part=2'
expect_rc 8 "fsck of the extended partition"; expect_err 'The partition cannot be opened: it is empty, an extended partition' "extended"
ro mbr.img "$FSCK" -fn 'mbr.img?part=7'
expect_rc 8 "fsck of no such partition"; expect_err "No such partition in the image's partition table" "no such partition"

# ---- every tool on a partition, by number and by offset, none of them writing
before=$(sums gpt.img)
ro gpt.img "$DEBUGFS" -R "ls -l /d" 'gpt.img?part=1'
expect_rc 0 "debugfs on ?part=1"; expect_out ' r$' "debugfs sees the tree in partition 1"
ro gpt.img "$DEBUGFS" -R "cat /d/r" 'gpt.img?part=1'
check "debugfs cat from a partition" cmp -s out src/d/r
ro gpt.img "$FSCK" -fn 'gpt.img?part=1'
expect_rc 0 "fsck -fn on ?part=1"
ro gpt.img "$FSCK" -fn 'gpt.img?part=3'
expect_rc 0 "fsck -fn replays partition 3's journal in memory"
expect_out 'recovering journal in memory only \(-n: the device is not written\)' "fsck -n says it replays in memory"
ro gpt.img "$TIMELINE" 'gpt.img?part=1'
expect_rc 0 "stalefs-timeline on ?part=1"; cp out part.body
ro gpt.img "$TIMELINE" "gpt.img?offset=$((2048 * 512))&size=$((16384 * 512))"
check "the same timeline by offset" cmp -s out part.body
ro gpt.img "$BINDIR/tunefs.stalefs" -l 'gpt.img?part=1'
expect_rc 0 "tunefs -l on ?part=1"; expect_out '^Filesystem volume name: +one$' "tunefs -l"
check "no read-only command wrote gpt.img" [ "$before" = "$(sums gpt.img)" ]
# ... and a write stays inside its partition.
cp gpt.img w.img
dd if=w.img bs=512 count=2048 status=none | sha256sum >head.sum
dd if=w.img bs=512 skip=18432 status=none | sha256sum >tail.sum
"$DEBUGFS" -w -R "write src/a added" 'w.img?part=1' >/dev/null 2>&1
run "$FSCK" -fn 'w.img?part=1'
expect_rc 0 "fsck after writing into partition 1"
check "the bytes before partition 1 unchanged" cmp -s head.sum <(dd if=w.img bs=512 count=2048 status=none | sha256sum)
check "the bytes after partition 1 unchanged" cmp -s tail.sum <(dd if=w.img bs=512 skip=18432 status=none | sha256sum)

# ---- no partition table
"$MKFS" -q -F bare.img 16M >/dev/null 2>&1
ro bare.img "$BINDIR/stalefs-mmls" bare.img
expect_rc 1 "stalefs-mmls without a table"
expect_err 'bare.img: no partition table \(MBR or GPT\); the image is a stalefs filesystem on its own' "no table"
ro bare.img "$FSCK" -fn 'bare.img?part=1'
expect_rc 8 "?part= without a table"; expect_err 'No partition table \(MBR or GPT\) in the image' "no table for part="
run "$BINDIR/stalefs-mmls"
expect_rc 16 "stalefs-mmls usage"; expect_err '^Usage: stalefs-mmls' "stalefs-mmls usage"
run "$BINDIR/stalefs-mmls" /nonexistent.img
expect_rc 8 "stalefs-mmls of a missing image"; expect_err 'while opening /nonexistent.img' "missing image"

# ---- EWF: the GPT disk acquired into one compressed segment, and a small disk into many
ewfacquire -u -q -t ev -c best -d sha1 -C case-28 -e examiner gpt.img >acq.log 2>&1 || fail "ewfacquire gpt.img: $(tail -3 acq.log)"
ewf_md5=$(sed -n 's/^MD5 hash calculated over data:[[:space:]]*//p' acq.log)
check "ewfacquire recorded an MD5 ($ewf_md5)" [ "$(md5sum <gpt.img | cut -d' ' -f1)" = "$ewf_md5" ]
before=$(sums ev.E01)
ro ev.E01 "$BINDIR/stalefs-mmls" ev.E01
expect_rc 0 "stalefs-mmls of an E01"
"$BINDIR/stalefs-mmls" gpt.img 2>/dev/null | sed 's/gpt\.img/IMG/g' >raw.list
check "stalefs-mmls: the E01 holds the same table" cmp -s raw.list <(sed 's/ev\.E01/IMG/g' out)
check "mmls agrees on the E01" [ "$(ours_parts ev.E01)" = "$(mmls_parts ev.E01)" ]
ro ev.E01 "$FSCK" -fn 'ev.E01?part=1'
expect_rc 0 "fsck -fn of ev.E01?part=1"
ro ev.E01 "$FSCK" -fn 'ev.E01?part=3'
expect_rc 0 "fsck -fn of ev.E01?part=3: its journal replayed in memory"
expect_out 'recovering journal in memory only' "fsck -n on an E01 with a journal to replay"
ro ev.E01 "$TIMELINE" 'ev.E01?part=1'
check "stalefs-timeline: the same from the E01" cmp -s out part.body
ro ev.E01 "$DEBUGFS" -R "cat /d/r" 'ev.E01?part=1'
check "debugfs cat from the E01" cmp -s out src/d/r
ro ev.E01 "$DEBUGFS" -R "jls" 'ev.E01?part=3'
expect_out '^ +[0-9]+  live  +[0-9]+  copy of block' "jls through the E01"
ro ev.E01 "$DEBUGFS" -w -R "stats -h" 'ev.E01?part=1'
expect_rc 2 "debugfs -w on an E01"; expect_err 'EWF \(E01\) images are evidence and are opened read-only' "debugfs -w refused"
ro ev.E01 "$FSCK" -fy 'ev.E01?part=3'
expect_rc 8 "fsck -y on an E01"; expect_err 'EWF \(E01\) images are evidence and are opened read-only' "fsck -y refused"
ro ev.E01 "$MKFS" -q -F 'ev.E01?part=2'
expect_rc 8 "mkfs on an E01"; expect_err 'EWF \(E01\) images are evidence' "mkfs refused"
ro ev.E01 "$BINDIR/tunefs.stalefs" -L x 'ev.E01?part=1'
check "tunefs -L on an E01 fails" [ "$rc" -ne 0 ]; expect_err 'EWF \(E01\) images are evidence' "tunefs refused"
check "nothing wrote ev.E01" [ "$before" = "$(sums ev.E01)" ]

# Many segments: a small disk with data everywhere, uncompressed, in 1 MiB segments.
truncate -s 8M small.img
printf 'label: gpt\nstart=2048, size=12288\n' | sfdisk -q small.img
"$MKFS" -q -F -b 1024 -d src 'small.img?part=1' >/dev/null 2>&1 || fail "mkfs small.img?part=1"
ewfacquire -u -q -t seg -c none -S 1MiB small.img >acq.log 2>&1 || fail "ewfacquire small.img"
check "ewfacquire wrote several segments ($(ls seg.E* | wc -l))" [ "$(ls seg.E* | wc -l)" -ge 5 ]
before=$(sums seg.E*)
ro seg.E01 "$FSCK" -fn 'seg.E01?part=1'
expect_rc 0 "fsck -fn across EWF segments"
ro seg.E01 "$DEBUGFS" -R "cat /d/r" 'seg.E01?part=1'
check "a file read across segments" cmp -s out src/d/r
check "nothing wrote the segments" [ "$before" = "$(sums seg.E*)" ]
mv seg.E03 seg.E03.away
ro seg.E01 "$FSCK" -fn 'seg.E01?part=1'
expect_rc 8 "a missing segment"; expect_err 'Cannot open the EWF \(E01\) image: a segment file is missing' "a missing segment"
mv seg.E03.away seg.E03
# A filesystem acquired alone (no table): the E01 is the filesystem.
ewfacquire -u -q -t fs -c best bare.img >acq.log 2>&1 || fail "ewfacquire bare.img"
ro fs.E01 "$FSCK" -fn fs.E01
expect_rc 0 "fsck -fn of an E01 holding a filesystem alone"
ro fs.E01 "$BINDIR/stalefs-mmls" fs.E01
expect_rc 1 "stalefs-mmls of it"; expect_err 'the image is a stalefs filesystem on its own' "stalefs-mmls of fs.E01"
