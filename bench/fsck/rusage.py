#!/usr/bin/env python3
"""Run a command once; print a JSON line with its wall time, CPU time and peak RSS.
usage: rusage.py LABEL command...   (fails loudly if the command fails)"""
import json
import os
import subprocess
import sys
import time

label, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
wall = time.monotonic() - t0
code = os.waitstatus_to_exitcode(status)
if code != 0:
    sys.exit("rusage.py: %s exited %d" % (" ".join(cmd), code))
print(json.dumps({"label": label, "wall": wall, "cpu": ru.ru_utime + ru.ru_stime,
                  "user": ru.ru_utime, "sys": ru.ru_stime, "maxrss_kb": ru.ru_maxrss}))
