#!/bin/bash
# A real stack dump from the kernel (sysrq "l": backtrace of all CPUs) must
# fail the scenario ("Call Trace" in dmesg), even though it exits 0.
echo l >/proc/sysrq-trigger
sleep 1
