#!/usr/bin/env python3
"""Summarise fsck.jsonl into the "fsck" section of bench/RESULTS.md (medians, min-max, ratios).
usage: report.py RAW LOADAVG RESULTS.md"""
import os
import platform
import sys

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import report  # noqa: E402  bench/report.py, the shared helpers

raw, load, results = sys.argv[1:4]
runs = report.load_runs(raw, "label")


def col(label):
    return lambda key: [r[key] for r in runs[label]]


s, e = "stalefs", "ext4"
lines = ["## fsck -fn on 100,000 files in 10,000 directories", "",
         "`fsck.stalefs -fn` against `e2fsck -fn`, images populated by `mkfs.stalefs -d` and "
         "`mke2fs -t ext4 -d` from the same `bench/gentree.py` tree; page cache warm; "
         "%d interleaved runs each; median (min – max). Load average at start: %s. Machine: %s, %s."
         % (len(runs[s]), load, platform.machine(), platform.platform()), "",
         "| | fsck.stalefs | e2fsck | ratio |", "|---|---|---|---|"]
lines += report.rusage_rows(col(s), col(e))
t = report.med(col(s)("cpu")) / report.med(col(e)("cpu"))
m = report.med(col(s)("maxrss_kb")) / report.med(col(e)("maxrss_kb"))
lines += ["", "Targets (issue 3): time at most 0.7× e2fsck's — CPU-time ratio %.2f× (%s; wall time on a "
          "loaded machine mostly measures waiting for a CPU); memory no more than e2fsck's — %.2f× (%s)."
          % (t, "met" if t <= 0.7 else "NOT met", m, "met" if m <= 1.0 else "NOT met")]
print(report.merge(results, "fsck", lines) + "\n")
