#!/bin/bash
# bench/vm/tree-run.sh tree|aging: host side of issue 26's many-files and
# aging benchmarks.  Makes the Linux source tarball once (bench_srctree in
# bench/lib.sh), boots the VM once (tests/vm/run-vm --cache none) for
# bench/vm/treebench.sh or bench/vm/agingbench.sh, then writes the
# "vm-tree" or "vm-aging" section of bench/RESULTS.md
# (bench/vm/tree-report.py).
#
# Environment: tree: REPS (3); aging: ROUNDS (10), PCT (10), FULL_PCT (88),
# SEED (26), END_REPS (2); both: SRC_DIRS (the source directories in the
# tarball; fewer for a quick look, e.g. SRC_DIRS=arch/x86), BENCH_TMP (the
# disk images: a real disk), VM_TIMEOUT (3600 s).  Set-up: bench/lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
# The trees: ~30,000 files for the many-files bench (31,571 files of 185 MB,
# 1,805 directories); 12,027 files of 80 MB (487 directories) for aging,
# whose 45 cold reads and 30 rounds must fit in ~25 minutes under TCG.
case ${1:-} in
tree) knobs=(REPS) dirs="arch include Documentation" ;;
aging) knobs=(ROUNDS PCT FULL_PCT SEED END_REPS) dirs="include arch/x86 arch/arm" ;;
*) echo "usage: bench/vm/tree-run.sh tree|aging" >&2; exit 2 ;;
esac
bench=$1
guest=${bench}bench
logdir=$BENCH_OUT/vm-$bench-logs

for f in kernel/stalefs.ko treeread agetree mkfs.stalefs fsck.stalefs; do
	[[ -e $top/build/$f ]] || { echo "bench/vm/tree-run.sh: build/$f is missing (make all)" >&2; exit 1; }
done
bench_srctree "$dirs"
conf=$top/build/bench/$guest.conf
bench_conf bench/vm/tree-run.sh "$conf" "${knobs[@]}"
printf 'SRC_TAR=%q\nSRC_INFO=%q\n' "$srctar" "$srcinfo" >>"$conf"
# The command as run, knobs included, for the report.
cmd="make bench-$bench"
for v in SRC_DIRS "${knobs[@]}"; do
	if [[ -n ${!v:-} ]]; then cmd="$v=$(printf %q "${!v}") $cmd"; fi
done
measured=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo "?")
start=$SECONDS
bench_vm bench/vm/tree-run.sh "$here/$guest.sh" 3600 "$logdir"
python3 "$here/tree-report.py" "$bench" --results "$logdir/$guest.results" --load "$BENCH_LOAD" \
	--src-dirs "$srcdirs" --commit "$measured" --cmd "$cmd" --wall $((SECONDS - start)) --out "$top/bench/RESULTS.md"
echo "bench/vm/tree-run.sh: results in bench/RESULTS.md ($((SECONDS - start)) s)"
