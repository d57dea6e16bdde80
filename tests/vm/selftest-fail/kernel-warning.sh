#!/bin/bash
# Exits 0 but puts a WARNING line into the kernel log: must be reported FAIL
# with the line as the reason.
echo 'WARNING: test splat from selftest-fail/kernel-warning.sh' >/dev/kmsg
