#!/bin/bash
# Hangs with no per-scenario timeout: run-vm's overall --timeout must kill
# the VM and report this and every later scenario as FAIL.
sleep 100000
