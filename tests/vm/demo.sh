#!/bin/bash
# The kernel half of `make demo`: boots the VM once, runs the narrated
# tests/vm/demo/kernel-demo.sh, and prints its story (the kernel log that
# the runner appends stays in the log file).  Exits non-zero, with the
# runner's report, if any step did not behave as the demo says.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ -f build/kernel/stalefs.ko ]] ||
	{ echo "demo: build/kernel/stalefs.ko is missing: run make kernel (it needs linux-headers-amd64)" >&2; exit 1; }
logdir=build/vm/demo
mkdir -p "$logdir"
log=$logdir/kernel-demo.log
rc=0
tests/vm/run-vm --logdir "$logdir" tests/vm/demo/kernel-demo.sh >"$logdir/run-vm.out" 2>&1 || rc=$?
if ((rc == 0)); then
	sed -e '/^vm-runner:/d' -e '/^---- kernel log/,$d' "$log"
	tail -n 1 "$logdir/run-vm.out"
	exit 0
fi
# Failed: the whole story with the kernel's log, or the runner's report
# if the scenario never ran (the VM did not boot, the module did not load).
if [[ -f $log ]]; then cat "$log"; tail -n 3 "$logdir/run-vm.out"; else cat "$logdir/run-vm.out"; fi
echo "demo: FAILED: a step did not behave as the demo says (run-vm exit status $rc; logs in $logdir)"
exit $rc
