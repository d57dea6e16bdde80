#!/bin/bash
# Host side of the VM benchmark: boots the VM once (tests/vm/run-vm with
# --cache none, so the host page cache does not flatter any filesystem) for
# bench/vm/fsbench.sh, then turns its raw figures into the "vm-*" sections
# of bench/RESULTS.md (bench/vm/report.py).
#
# Environment: RAND_REPS (3), SEQ_REPS (2), META_REPS (1) and the sizes
# fsbench.sh lists (FILE_MB, RAND_S, META_SMALL, META_BIG, META_DIRS) are
# passed to the guest through build/bench/fsbench.conf; BENCH_TMP
# (/var/tmp: the disk image must be on a real disk, where O_DIRECT works);
# VM_TIMEOUT (3600 s).  Set-up: bench/lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
logdir=$BENCH_OUT/vm-logs

for f in "$top/build/kernel/stalefs.ko" "$top/build/dirbench" "$top/build/stalefs-falloc" "$top/build/mkfs.stalefs"; do
	[[ -e $f ]] || { echo "bench/vm/run.sh: $f is missing (make all)" >&2; exit 1; }
done
command -v fio >/dev/null || { echo "bench/vm/run.sh: fio is missing (tools/install-deps)" >&2; exit 1; }
mkdir -p "$BENCH_OUT"
conf=$top/build/bench/fsbench.conf
bench_conf bench/vm/run.sh "$conf" RAND_REPS SEQ_REPS META_REPS FILE_MB RAND_S META_SMALL META_BIG META_DIRS
bench_vm bench/vm/run.sh "$here/fsbench.sh" 3600 "$logdir"
python3 "$here/report.py" --results "$logdir/fsbench.results" --load "$BENCH_LOAD" --out "$top/bench/RESULTS.md"
echo "bench/vm/run.sh: results in bench/RESULTS.md"
