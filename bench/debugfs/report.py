#!/usr/bin/env python3
"""Summarise debugfs.jsonl into the "debugfs" section of bench/RESULTS.md
(medians, min - max, ratios).  usage: report.py RAW LOADAVG RESULTS.md"""
import json
import platform
import re
import statistics
import subprocess
import sys

raw, load, results = sys.argv[1:4]
runs = {}
for line in open(raw):
    d = json.loads(line)
    runs.setdefault((d["bench"], d["label"]), []).append(d)


def col(bench, label, key):
    return [r[key] for r in runs[(bench, label)]]


def fmt(vals, unit, scale=1.0, digits=3):
    m = statistics.median(vals) * scale
    return "%.*f %s (%.*f – %.*f)" % (digits, m, unit, digits, min(vals) * scale, digits, max(vals) * scale)


e2ver = subprocess.run("debugfs -V 2>&1 | head -1", shell=True, capture_output=True, text=True).stdout.strip()
n = len(runs[("ls", "stalefs")])
lines = ["<!-- begin debugfs -->", "## debugfs: ls -l of 100,000 entries, ncheck of 1,000 inodes", "",
         "`debugfs.stalefs` against e2fsprogs' `debugfs` (%s), each on an image populated from the same tree "
         "by `mkfs.stalefs -d` and `mke2fs -t ext4 -d` (4 GiB sparse files): `bench/gentree.py`'s 100,000 "
         "files in 10,000 directories plus `/flat`, one directory of 100,000 empty files. Page cache warm; "
         "%d interleaved runs each; median (min – max). Load average at start: %s. Machine: %s, %s."
         % (e2ver, n, load, platform.machine(), platform.platform()), ""]
titles = {"ls": "`-R 'ls -l /flat'` (100,000 files and . and ..)",
          "ncheck": "`-R 'ncheck I1 ... I1000'` (ten files of each of 100 directories spread over the tree)"}
for bench in ("ls", "ncheck"):
    lines += ["### %s" % titles[bench], "", "| | debugfs.stalefs | e2fsprogs debugfs | ratio |", "|---|---|---|---|"]
    for key, unit, scale, name in (("wall", "s", 1, "wall time"), ("cpu", "s", 1, "CPU time (user+sys)"),
                                   ("maxrss_kb", "MB", 1 / 1024, "peak RSS")):
        a, b = col(bench, "stalefs", key), col(bench, "ext4", key)
        ratio = statistics.median(a) / statistics.median(b) if statistics.median(b) else float("nan")
        lines.append("| %s | %s | %s | %.2f× |" % (name, fmt(a, unit, scale), fmt(b, unit, scale), ratio))
    lines.append("")
lines += ["Commands: `debugfs.stalefs -R CMD $WORK/stalefs.img`, `debugfs -R CMD $WORK/ext4.img`, "
          "each timed by `/usr/bin/time` (bench/fsck/rusage.py); script `bench/debugfs/debugfs.sh`.",
          "<!-- end debugfs -->"]
section = "\n".join(lines) + "\n"
try:
    text = open(results).read()
except FileNotFoundError:
    text = "# Benchmark results\n\n"
if "<!-- begin debugfs -->" in text:
    text = re.sub(r"<!-- begin debugfs -->.*?<!-- end debugfs -->\n?", lambda _: section, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + section
open(results, "w").write(text)
print(section)
