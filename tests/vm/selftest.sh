#!/bin/bash
# Self-test of the VM harness: proves run-vm passes good scenarios and
# catches every kind of failure it promises to catch.  Three VM boots:
#   1. harness-selftest and module-loaded (PASS, with a stand-in stalefs.ko
#      built here) among scenarios that fail by exit status, kernel WARNING,
#      kernel stack dump and per-scenario timeout - so it also proves one
#      scenario's mess and splats are not blamed on the next;
#   2. a module file insmod rejects, then a kernel panic: qemu exits and
#      every unfinished scenario must fail;
#   3. a missing module file, then a guest that never finishes: --timeout
#      must kill the VM and fail every unfinished scenario, quickly.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
logs=$root/build/vm/selftest-logs
sf=$here/selftest-fail
errors=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {   # check DESCRIPTION GREP-PATTERN FILE
	if grep -qE -- "$2" "$3"; then
		echo "ok: $1"
	else
		echo "NOT OK: $1 (no line matching '$2' in $3)"
		errors=$((errors + 1))
	fi
}
check_failed() {   # run-vm's exit status must say "something failed"
	if (($1 != 0)); then
		echo "ok: run-vm exited $1"
	else
		echo "NOT OK: run-vm exited 0"
		errors=$((errors + 1))
	fi
}

t0=$(date +%s)
# A do-nothing module named stalefs, so the load/unload path is tested with
# a real module whatever state kernel/ is in.
kver=$("$here/mkinitramfs.sh" --kver)
mkdir "$tmp/mod"
cat >"$tmp/mod/stalefs.c" <<'EOF'
#include <linux/module.h>
static int __init stand_in_init(void) { pr_info("stand-in stalefs loaded\n"); return 0; }
static void __exit stand_in_exit(void) { pr_info("stand-in stalefs unloaded\n"); }
module_init(stand_in_init);
module_exit(stand_in_exit);
MODULE_LICENSE("GPL");
EOF
echo 'obj-m := stalefs.o' >"$tmp/mod/Kbuild"
make -s -C "/lib/modules/$kver/build" M="$tmp/mod" modules >"$tmp/mod/log" 2>&1 ||
	{ cat "$tmp/mod/log"; echo "selftest: cannot build the stand-in module"; exit 1; }

echo "== run 1: failures are caught, good scenarios still pass"
rc=0
"$here/run-vm" --logdir "$logs" --module "$tmp/mod/stalefs.ko" \
	"$sf/exit-status.sh" "$sf/kernel-warning.sh" "$sf/kernel-stackdump.sh" \
	"$sf/module-loaded.sh" "$sf/scenario-timeout.sh" \
	"$here/scenarios/harness-selftest.sh" >"$tmp/out1" 2>&1 || rc=$?
cat "$tmp/out1"
out=$tmp/out1
check "exit status fails"          '^FAIL exit-status \(exit status 3\)$' "$out"
check "kernel WARNING fails"       '^FAIL kernel-warning \(kernel: .*WARNING: test splat' "$out"
check "kernel stack dump fails"    '^FAIL kernel-stackdump \(kernel: ' "$out"
check "module loaded"              '^PASS module-loaded$' "$out"
check "scenario timeout fails"     '^FAIL scenario-timeout \(timed out after 3s\)$' "$out"
check "good scenario passes"       '^PASS harness-selftest$' "$out"
check "summary line"               '^2 passed, 4 failed$' "$out"
check "failing log is printed"     '^failing on purpose$' "$out"
check "log saved on the host"      'failing on purpose' "$logs/exit-status.log"
check "leftovers cleaned up"       'scenario left /mnt/left mounted' "$logs/exit-status.log"
check "frozen leftover thawed"     '/mnt/left was frozen; thawed' "$logs/exit-status.log"
check "failed assertion repeated"  '^run-vm: FAILED exit-status: exit status 3' "$out"
check "module unloaded after"      'stand-in stalefs unloaded' "$logs/module-loaded.log"
check "results copied to the host" '^ok$' "$logs/harness-selftest.results/selftest.txt"
check "console log saved"          'vm-runner: .* running harness-selftest' "$logs/console.log"
check_failed "$rc"
t1=$(date +%s)

echo "== run 2: a module insmod rejects, then a kernel panic"
echo 'not a kernel module' >"$tmp/bogus.ko"
rc=0
"$here/run-vm" --logdir "$logs" --module "$tmp/bogus.ko" \
	"$sf/needs-stalefs.sh" "$sf/kernel-panic.sh" "$sf/exit-status.sh" >"$tmp/out2" 2>&1 || rc=$?
cat "$tmp/out2"
out=$tmp/out2
check "unloadable module fails"    '^FAIL needs-stalefs \(insmod .*bogus.ko failed' "$out"
check "kernel panic fails"         '^FAIL kernel-panic \(VM exited before the scenario finished\)$' "$out"
check "scenario after panic fails" '^FAIL exit-status \(VM exited before the scenario finished\)$' "$out"
check "panic shown"                'Kernel panic' "$out"
check "summary line"               '^0 passed, 3 failed$' "$out"
check_failed "$rc"
t2=$(date +%s)

echo "== run 3: missing module, then a hung guest killed by --timeout"
rc=0
"$here/run-vm" --logdir "$logs" --module /nonexistent/stalefs.ko --timeout 30 \
	"$sf/needs-stalefs.sh" "$sf/vm-hang.sh" "$sf/exit-status.sh" >"$tmp/out3" 2>&1 || rc=$?
cat "$tmp/out3"
out=$tmp/out3
t3=$(date +%s)
check "missing module fails"       '^FAIL needs-stalefs \(stalefs module not found at /nonexistent/stalefs.ko' "$out"
check "hung scenario fails"        '^FAIL vm-hang \(timed out: VM killed after 30s\)$' "$out"
check "unstarted scenario fails"   '^FAIL exit-status \(timed out: VM killed after 30s\)$' "$out"
check "summary line"               '^0 passed, 3 failed$' "$out"
check_failed "$rc"
if ((t3 - t2 > 45)); then
	echo "NOT OK: the timed-out run took $((t3 - t2))s"
	errors=$((errors + 1))
fi

echo "selftest: run 1 took $((t1 - t0))s, run 2 $((t2 - t1))s, run 3 $((t3 - t2))s"
if ((errors)); then
	echo "selftest: $errors check(s) failed"
	exit 1
fi
echo "selftest: all checks passed"
