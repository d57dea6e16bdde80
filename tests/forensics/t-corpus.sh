# The corpus (sourced by run-tests in its scratch directory): one case per feature, each a
# script in corpus/<case>/ that builds its evidence from scratch and shows what the
# examiner's commands print; the output must be corpus/<case>/expect byte for byte, after
# the values that are random by design are masked (journal sequence numbers, inode
# generations, the report's own timestamps, hashes of images whose bytes hold those).
# This is what keeps each command's output stable.  FORENSICS_UPDATE=1 rewrites the
# expectations: read the diff before committing it.

echo "== corpus"
need python3 sfdisk ewfacquire || return 0

# show CMD...: the command line (paths of this run made relative), its stdout, its stderr
# marked, and its exit status when not 0.
show() {
	local rc=0
	echo "\$ $*" | sed "s|$BINDIR/||g"
	"$@" >show.out 2>show.err </dev/null || rc=$?
	cat show.out
	sed 's/^/[stderr] /' show.err
	[ "$rc" -eq 0 ] || echo "[exit $rc]"
	if grep -qE 'runtime error|AddressSanitizer|LeakSanitizer' show.err; then
		fail "sanitizer report from $*"
	fi
}
# What is random by design, masked.
mask() {
	sed -E \
		-e 's/(generation|[Tt]ransaction|transactions \(|sequence) [0-9]+/\1 <N>/g' \
		-e 's/\([0-9]+ to [0-9]+\), ([0-9]+ cop)/(<N> to <N>), \1/' \
		-e 's/"(sequence|transaction|oldest|newest|generation|generated|created|last_write)": ?[0-9]+/"\1": <N>/g' \
		-e 's/^( +[0-9]+  (live|old)) +[0-9]+  /\1  <N>  /' \
		-e 's/"(ewf_md5|ewf_sha1)": ?"[0-9a-f]*"/"\1": "<hash>"/g'
}

for case_dir in "$HERE"/corpus/*/; do
	name=$(basename "$case_dir")
	mkdir -p "c.$name" && (cd "c.$name" && . "$case_dir/script") 2>&1 | mask >"c.$name.out"
	if [ "${FORENSICS_UPDATE:-}" = 1 ]; then
		cp "c.$name.out" "$case_dir/expect"
		echo "corpus: $name expectation rewritten"
		pass
	elif [ ! -f "$case_dir/expect" ]; then
		fail "corpus $name: no expect file (FORENSICS_UPDATE=1 writes it)"
	elif diff -u "$case_dir/expect" "c.$name.out" >"c.$name.diff"; then
		pass
	else
		fail "corpus $name: output differs from its expectation:"
		head -40 "c.$name.diff"
	fi
done
