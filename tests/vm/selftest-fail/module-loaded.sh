#!/bin/bash
# needs: stalefs
# Passes when the runner loaded the module given to run-vm (the self-test
# builds a do-nothing module named stalefs for it).  Not a failing
# scenario: it lives here because it needs that stand-in module.
. "$STALEFS_ROOT/tests/vm/lib.sh"
[[ -d /sys/module/stalefs ]] || fail "stalefs is not loaded"
lsmod | grep '^stalefs '
