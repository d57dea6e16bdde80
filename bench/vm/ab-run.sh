#!/bin/bash
# bench/vm/ab-run.sh OLD.ko NEW.ko [ROUNDS]: run bench/vm/ab.sh in one VM
# boot (--cache none) and print, per case, the median over the rounds of
# each contestant and the ratios new/old and new/best-peer.  CASES in the
# environment picks ab.sh's groups (default "dir rand"; all: "dir rand seq
# fsync conc raw").  Seconds for the directory cases, extents per file and
# requests per operation are lower-is-better; rates (IOPS, MB/s, KiB per
# request) higher-is-better.  TREE_TAR: the tarball of the "tree" group.
# Results: build/bench/ab-logs/ab.log (raw lines) and the printed table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
(($# >= 2)) || { echo "usage: bench/vm/ab-run.sh OLD.ko NEW.ko [ROUNDS]" >&2; exit 2; }
mkdir -p "$top/build/bench"
# The guest reads the modules through the 9p root: copy them into the build.
cp "$1" "$top/build/bench/ab-old.ko"
cp "$2" "$top/build/bench/ab-new.ko"
{
	echo "OLD_KO=$top/build/bench/ab-old.ko"
	echo "NEW_KO=$top/build/bench/ab-new.ko"
	echo "ROUNDS=${3:-3}"
	echo "CASES='${CASES:-dir rand}'"
	echo "TREE_TAR='${TREE_TAR:-}'"
} >"$top/build/bench/ab.conf"
logdir=$top/build/bench/ab-logs
echo "load average at start: $BENCH_LOAD"
TMPDIR=$BENCH_TMP "$top/tests/vm/run-vm" --cache none --timeout 5400 --logdir "$logdir" \
	--module "$top/build/bench/ab-new.ko" "$here/ab.sh"
python3 - "$logdir/ab.log" <<'PY'
import re, statistics, sys
vals = {}
for line in open(sys.argv[1]):
    m = re.match(r"R(\d+) (\S+) (\S+) ([0-9.]+)$", line.strip())
    if m:
        vals.setdefault(m.group(3), {}).setdefault(m.group(2), []).append(float(m.group(4)))
print("| case | old | new | ext4 | xfs | raw device | new/old | new vs best peer |")
print("|---|---|---|---|---|---|---|---|")
for case, by in vals.items():
    med = {c: statistics.median(v) for c, v in by.items()}
    lower = case.startswith("dir-") or case.endswith(("-extents", "-per-op", "-s", "-writes"))
    peers = [med[c] for c in ("ext4", "xfs") if c in med]
    best = (min if lower else max)(peers) if peers else None
    def ratio(a, b):   # as a speed ratio: >1 means a is faster
        return (b / a if lower else a / b) if a and b else float("nan")
    fmt = lambda c: ("%.2f" % med[c]) if c in med else "-"
    print("| %s | %s | %s | %s | %s | %s | %.2f | %.2f |" % (case, fmt("old"), fmt("new"), fmt("ext4"),
          fmt("xfs"), fmt("raw"), ratio(med.get("new"), med.get("old")), ratio(med.get("new"), best)))
print("\n(ratios as speed: above 1, new is faster; medians of %d rounds)" % max(len(v) for by in vals.values() for v in by.values()))
PY
