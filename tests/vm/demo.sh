#!/bin/bash
# The kernel half of `make demo`: boots the VM and runs the narrated
# tests/vm/demo/kernel-demo.sh, printing its log.
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ -f build/kernel/stalefs.ko ]] || { echo "demo: build/kernel/stalefs.ko is missing: run make" >&2; exit 1; }
logdir=build/vm/demo
rc=0
tests/vm/run-vm --logdir "$logdir" tests/vm/demo/kernel-demo.sh >"$logdir.out" 2>&1 || rc=$?
sed -e '/^vm-runner:/d' "$logdir/kernel-demo.log"
tail -1 "$logdir.out"
exit $rc
