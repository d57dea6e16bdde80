#!/usr/bin/env python3
"""Summarise fsck.jsonl into the "fsck" section of bench/RESULTS.md (medians, min-max, ratios).
usage: report.py RAW LOADAVG RESULTS.md"""
import json
import platform
import re
import statistics
import sys

raw, load, results = sys.argv[1:4]
runs = {}
for line in open(raw):
    d = json.loads(line)
    runs.setdefault(d["label"], []).append(d)


def col(label, key):
    return [r[key] for r in runs[label]]


def fmt(vals, unit, scale=1.0, digits=3):
    m = statistics.median(vals) * scale
    return "%.*f %s (%.*f – %.*f)" % (digits, m, unit, digits, min(vals) * scale, digits, max(vals) * scale)


s, e = "stalefs", "ext4"
lines = ["<!-- begin fsck -->", "## fsck -fn on 100,000 files in 10,000 directories", "",
         "`fsck.stalefs -fn` against `e2fsck -fn`, images populated by `mkfs.stalefs -d` and "
         "`mke2fs -t ext4 -d` from the same `bench/gentree.py` tree; page cache warm; "
         "%d interleaved runs each; median (min – max). Load average at start: %s. Machine: %s, %s."
         % (len(runs[s]), load, platform.machine(), platform.platform()), "",
         "| | fsck.stalefs | e2fsck | ratio |", "|---|---|---|---|"]
for key, unit, scale, name in (("wall", "s", 1, "wall time"), ("cpu", "s", 1, "CPU time (user+sys)"),
                               ("maxrss_kb", "MB", 1 / 1024, "peak RSS")):
    a, b = col(s, key), col(e, key)
    ratio = statistics.median(a) / statistics.median(b)
    lines.append("| %s | %s | %s | %.2f× |" % (name, fmt(a, unit, scale), fmt(b, unit, scale), ratio))
t = statistics.median(col(s, "cpu")) / statistics.median(col(e, "cpu"))
m = statistics.median(col(s, "maxrss_kb")) / statistics.median(col(e, "maxrss_kb"))
lines += ["", "Targets (issue 3): time at most 0.7× e2fsck's — CPU-time ratio %.2f× (%s; wall time on a "
          "loaded machine mostly measures waiting for a CPU); memory no more than e2fsck's — %.2f× (%s)."
          % (t, "met" if t <= 0.7 else "NOT met", m, "met" if m <= 1.0 else "NOT met"),
          "<!-- end fsck -->"]
section = "\n".join(lines) + "\n"
try:
    text = open(results).read()
except FileNotFoundError:
    text = "# Benchmark results\n\n"
if "<!-- begin fsck -->" in text:
    text = re.sub(r"<!-- begin fsck -->.*?<!-- end fsck -->\n?", lambda _: section, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n" + section
open(results, "w").write(text)
print(section)
