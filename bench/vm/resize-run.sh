#!/bin/bash
# Host side of the resize benchmark (issue 27): boots the VM once for
# bench/vm/resizebench.sh (fstrim of 100,000 free extents and an online grow
# of 1 GiB to 1 TiB, stalefs and ext4 side by side), then writes the
# "vm-resize" section of bench/RESULTS.md (bench/vm/resize-report.py).
#
# Environment: REPS (3), EXTENTS (100000) reach the guest through
# build/bench/resizebench.conf; BENCH_TMP (the disk images: a real disk);
# VM_TIMEOUT (7200 s).  Set-up: bench/lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
logdir=$BENCH_OUT/vm-resize-logs

for f in "$top/build/kernel/stalefs.ko" "$top/build/holes" "$top/build/resize.stalefs" "$top/build/mkfs.stalefs"; do
	[[ -e $f ]] || { echo "bench/vm/resize-run.sh: $f is missing (make all)" >&2; exit 1; }
done
mkdir -p "$BENCH_OUT"
conf=$top/build/bench/resizebench.conf
bench_conf bench/vm/resize-run.sh "$conf" REPS EXTENTS
bench_vm bench/vm/resize-run.sh "$here/resizebench.sh" 7200 "$logdir"
python3 "$here/resize-report.py" --results "$logdir/resizebench.results" --load "$BENCH_LOAD" \
	--out "$top/bench/RESULTS.md"
echo "bench/vm/resize-run.sh: results in bench/RESULTS.md"
