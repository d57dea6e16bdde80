#!/bin/bash
# Host side of the FUSE benchmark in the test VM: boots it once (tests/vm/run-vm
# --cache none, so the host's page cache flatters nobody) for
# bench/fuse/vm-guest.sh -- stalefs.ko, stalefs-fuse and fuse2fs on one
# virtual disk -- then writes the "fuse-vm" section of bench/RESULTS.md.
# Environment: FUSE_VM_RUNS (2), FUSE_VM_SEQ_MB (64), FUSE_VM_FILES (2000),
# passed to the guest; VM_TIMEOUT (7200 s).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/../lib.sh"
logdir=$BENCH_OUT/fuse-vm-logs
for f in "$top/build/kernel/stalefs.ko" "$top/build/stalefs-fuse" "$top/build/mkfs.stalefs"; do
	[[ -e $f ]] || { echo "bench/fuse/vm.sh: $f is missing (make all)" >&2; exit 1; }
done
rm -rf "$logdir"
mkdir -p "$top/build/bench"
printf 'FUSE_VM_RUNS=%d FUSE_VM_SEQ_MB=%d FUSE_VM_FILES=%d\n' "${FUSE_VM_RUNS:-2}" "${FUSE_VM_SEQ_MB:-64}" \
	"${FUSE_VM_FILES:-2000}" >"$top/build/bench/fuse-vm.conf"
rc=0
TMPDIR=$BENCH_TMP "$top/tests/vm/run-vm" --cache none \
	--timeout "${VM_TIMEOUT:-7200}" --logdir "$logdir" "$here/vm-guest.sh" || rc=$?
((rc == 0)) || { echo "bench/fuse/vm.sh: the VM run failed; log in $logdir/vm-guest.log" >&2; exit "$rc"; }
python3 "$here/report.py" --vm --raw "$logdir/vm-guest.results/fuse-vm.jsonl" --load "$BENCH_LOAD" \
	--runs "${FUSE_VM_RUNS:-2}" --seq-mb "${FUSE_VM_SEQ_MB:-64}" --files "${FUSE_VM_FILES:-2000}" \
	--tree /usr/include/linux --out "$top/bench/RESULTS.md"
echo "bench/fuse/vm.sh: results in bench/RESULTS.md"
