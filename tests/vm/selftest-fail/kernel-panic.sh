#!/bin/bash
# Crashes the guest kernel (sysrq "c"): qemu exits (panic=-1, -no-reboot)
# and run-vm must report this and every later scenario as FAIL, at once.
echo c >/proc/sysrq-trigger
sleep 100000
