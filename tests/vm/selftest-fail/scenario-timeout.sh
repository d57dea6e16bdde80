#!/bin/bash
# timeout: 3
# Hangs; the guest's per-scenario watchdog must kill it after 3 s and
# report "timed out after 3s".
sleep 100000
