# The JSON report (sourced by run-tests in its scratch directory): every section checked
# against what was put in the image -- geometry and features from mkfs, mount history and
# error records set with ssv, STALE holders (one unconfined), the journal's history, a
# deleted file that can come back from its own map, one only from the journal, one whose
# blocks were reused -- and read through a partition of an E01 image, whose acquisition
# hash it reports.  The report only reads.

echo "== report"
need python3 sfdisk ewfacquire || return 0
B=4096

head -c $((5 * B)) /dev/urandom >five.bin
head -c $((3 * B)) /dev/urandom >three.bin
: >empty
"$MKFS" -q -F -b 4096 -G 1234 -L case-label -U 01234567-89ab-cdef-0123-456789abcdef r.img 16M >/dev/null 2>&1 ||
	{ fail "mkfs"; return 0; }
{
	printf 'write five.bin libdel\nwrite five.bin kdel\nwrite three.bin reused\n'
	printf 'write empty conf\nsif conf gid 1234\nsif conf mode 0100640\nfallocate --no-hide-stale conf 0 3\n'
	printf 'write empty open\nsif open gid 1234\nsif open mode 0100644\nfallocate --no-hide-stale open 0 1\n'
	printf 'ssv mtime 1700000000\nssv lastcheck 1600000000\nssv mnt_count 7\nssv max_mnt_count 20\n'
	printf 'ssv last_mounted /evidence\nssv error_count 3\nssv first_error_time 1650000000\nssv first_error_ino 12\n'
	printf 'ssv first_error_block 777\nssv first_error_func stalefs_readdir\nssv state 3\nssv errors 2\n'
} | "$DEBUGFS" -w -f - r.img >/dev/null 2>&1
dbg -j -R "stat kdel" r.img; kdel=$(json_get out 'j["ino"]')
dbg -j -R "stat libdel" r.img; libdel=$(json_get out 'j["ino"]')
dbg -j -R "stat reused" r.img; reused=$(json_get out 'j["ino"]'); reused_blk=$(json_get out 'j["extents"][0]["pblk"]')
dbg -R "imap kdel" r.img; itab=$(sed -n 's/.*located at block \([0-9]*\),.*/\1/p' out)
# kdel: deleted as the kernel deletes, its map in the journal only; libdel: as debugfs rm
# (its map kept); reused: deleted with its map kept, then its blocks marked in use again
# (setb: as another file's allocation would, without taking an inode).
printf 'jo\njw -b %s -c\njc\n' "$itab" | "$DEBUGFS" -w -f - r.img >/dev/null 2>&1
printf 'punch kdel 0\nsif kdel size 0\nsif kdel links_count 0\nsif kdel dtime 1800000000\nfreei kdel\nunlink kdel\n' |
	"$DEBUGFS" -w -f - r.img >/dev/null 2>&1
printf 'jo\njw -b %s -c\njc\njr\n' "$itab" | "$DEBUGFS" -w -f - r.img >/dev/null 2>&1
printf 'rm libdel\nrm reused\nsetb %s 3\n' "$reused_blk" | "$DEBUGFS" -w -f - r.img >/dev/null 2>&1

before=$(sha256sum <r.img)
ro r.img "$DEBUGFS" -R "report" r.img
expect_rc 0 "report"
cp out r.json
check "report: one JSON object on one line" [ "$(wc -l <r.json)" -eq 1 ] && python3 -m json.tool r.json >/dev/null
j() { json_get r.json "$1"; }
check "report: version" [ "$(j 'j["report_version"]')" = 1 ]
check "report: source" [ "$(j '(j["source"]["name"], j["source"]["offset"], j["source"]["partition"], j["source"]["ewf"])')" = "('r.img', 0, None, False)" ]
check "report: geometry" [ "$(j '(j["filesystem"]["uuid"], j["filesystem"]["label"], j["filesystem"]["block_size"], j["filesystem"]["blocks"], j["filesystem"]["superblock_verdict"])')" = \
	"('01234567-89ab-cdef-0123-456789abcdef', 'case-label', 4096, 4096, 'ok')" ]
check "report: features" [ "$(j 'j["filesystem"]["features"]')" = \
	"{'compat': ['lazy_itable', 'has_journal'], 'ro_compat': ['nohide_stale', 'sparse_super', 'xattr'], 'incompat': ['extents', 'filetype']}" ]
check "report: free counts as the superblock has them" [ "$(j 'j["filesystem"]["free_blocks"]')" = "$("$DEBUGFS" -R "stats -h" r.img 2>/dev/null | sed -n 's/^Free blocks: *//p')" ]
check "report: mount history" [ "$(j '[j["mount_history"][k] for k in ("last_mount", "last_check", "mount_count", "max_mount_count", "last_mounted_on", "state", "state_errors", "errors_behaviour")]')" = \
	"[1700000000, 1600000000, 7, 20, '/evidence', 'clean', True, 'remount-ro']" ]
check "report: error records" [ "$(j 'j["errors"]')" = \
	"{'count': 3, 'first': {'time': 1650000000, 'block': 777, 'inode': 12, 'function': 'stalefs_readdir'}}" ]
check "report: STALE holders, one unconfined" [ "$(j 'j["stale"]')" = \
	"{'feature': True, 'permitted_group': 1234, 'files': 2, 'blocks': 6, 'unconfined': 1, 'group_descriptors_count': 2}" ]
check "report: journal history" [ "$(j '(j["journal"]["present"], j["journal"]["needs_recovery"], j["journal"]["start"], j["journal"]["history"]["transactions"], j["journal"]["history"]["copies"])')" = \
	"(True, False, 0, 2, 2)" ]
check "report: three deleted inodes" [ "$(j 'sorted(d["ino"] for d in j["deleted_inodes"])')" = "$(python3 -c "print(sorted([$kdel, $libdel, $reused]))")" ]
check "report: the library's deletion comes back from its own map" [ "$(j "[(d['recover_from'], d['blocks'], d['blocks_free']) for d in j['deleted_inodes'] if d['ino'] == $libdel][0]")" = "('inode', 5, 5)" ]
check "report: the kernel's deletion from the journal" [ "$(j "[(d['recover_from'], d['size'], d['size_then'], d['blocks'], d['blocks_free']) for d in j['deleted_inodes'] if d['ino'] == $kdel][0]")" = "('journal', 0, $((5 * B)), 5, 5)" ]
check "report: the reused one says its blocks are taken" [ "$(j "[(d['recover_from'], d['blocks'], d['blocks_free'] < d['blocks']) for d in j['deleted_inodes'] if d['ino'] == $reused][0]")" = "('inode', 3, True)" ]
check "report: inode counts" [ "$(j 'tuple(j["inodes"][k] for k in ("in_use", "directories", "regular", "other", "deleted", "deleted_recoverable"))')" = "(4, 2, 2, 0, 3, 2)" ]
check "report: the image unchanged" [ "$before" = "$(sha256sum <r.img)" ]
ro r.img "$DEBUGFS" -R "report r2.json" r.img
check "report to a file: nothing on stdout, the same object" [ ! -s out ] && [ "$(json_get r2.json 'j["filesystem"]')" = "$(j 'j["filesystem"]')" ]
ro r.img "$DEBUGFS" -R "report a b" r.img
expect_rc 1 "report with two files"; expect_err 'Usage: report' "report usage"

# Through a partition of an E01.
truncate -s 24M disk.img
printf 'label: gpt\nstart=8192, size=32768\n' | sfdisk -q disk.img || fail "sfdisk"
dd if=r.img of=disk.img bs=512 seek=8192 conv=notrunc status=none
ewfacquire -u -q -t ev -c best disk.img >acq.log 2>&1 || fail "ewfacquire"
ewf_md5=$(sed -n 's/^MD5 hash calculated over data:[[:space:]]*//p' acq.log)
ro ev.E01 "$DEBUGFS" -R "report" 'ev.E01?part=1'
expect_rc 0 "report of an E01 partition"
check "report: the E01's source" [ "$(json_get out '(j["source"]["path"], j["source"]["offset"], j["source"]["size"], j["source"]["partition"], j["source"]["ewf"], j["source"]["ewf_md5"])')" = \
	"('ev.E01', $((8192 * 512)), $((32768 * 512)), 1, True, '$ewf_md5')" ]
check "report: the same filesystem through it" [ "$(json_get out 'j["filesystem"]')" = "$(j 'j["filesystem"]')" ]
check "report: the same deleted inodes through it" [ "$(json_get out 'j["deleted_inodes"]')" = "$(j 'j["deleted_inodes"]')" ]
