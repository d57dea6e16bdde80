#!/usr/bin/env python3
"""Run a command once; print a JSON line with its wall time, CPU time and peak RSS.
usage: rusage.py LABEL command...   (fails loudly if the command fails)

GNU time(1) measures: a child forked from this Python process would carry
Python's own resident size into ru_maxrss until it execs, hiding the tool's."""
import json
import os
import subprocess
import sys
import tempfile
import time

label, cmd = sys.argv[1], sys.argv[2:]
with tempfile.NamedTemporaryFile("r") as out:
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", out.name] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("rusage.py: %s exited %d" % (" ".join(cmd), p.returncode))
    user, sys_, rss = out.read().split()[-3:]
print(json.dumps({"label": label, "wall": wall, "cpu": float(user) + float(sys_),
                  "user": float(user), "sys": float(sys_), "maxrss_kb": int(rss)}))
