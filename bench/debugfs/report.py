#!/usr/bin/env python3
"""Summarise debugfs.jsonl into the "debugfs" section of bench/RESULTS.md
(medians, min - max, ratios).  usage: report.py RAW LOADAVG RESULTS.md"""
import os
import platform
import sys

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import report  # noqa: E402  bench/report.py, the shared helpers

raw, load, results = sys.argv[1:4]
runs = report.load_runs(raw, "bench", "label")


def col(bench, label):
    return lambda key: [r[key] for r in runs[(bench, label)]]


e2ver = report.sh("debugfs -V 2>&1 | head -1")
n = len(runs[("ls", "stalefs")])
lines = ["## debugfs: ls -l of 100,000 entries, ncheck of 1,000 inodes", "",
         "`debugfs.stalefs` against e2fsprogs' `debugfs` (%s), each on an image populated from the same tree "
         "by `mkfs.stalefs -d` and `mke2fs -t ext4 -d` (4 GiB sparse files): `bench/gentree.py`'s 100,000 "
         "files in 10,000 directories plus `/flat`, one directory of 100,000 empty files. Page cache warm; "
         "%d interleaved runs each; median (min – max). Load average at start: %s. Machine: %s, %s."
         % (e2ver, n, load, platform.machine(), platform.platform()), ""]
titles = {"ls": "`-R 'ls -l /flat'` (100,000 files and . and ..)",
          "ncheck": "`-R 'ncheck I1 ... I1000'` (ten files of each of 100 directories spread over the tree)"}
for bench in ("ls", "ncheck"):
    lines += ["### %s" % titles[bench], "", "| | debugfs.stalefs | e2fsprogs debugfs | ratio |", "|---|---|---|---|"]
    lines += report.rusage_rows(col(bench, "stalefs"), col(bench, "ext4"))
    lines.append("")
lines += ["Commands: `debugfs.stalefs -R CMD $WORK/stalefs.img`, `debugfs -R CMD $WORK/ext4.img`, "
          "each timed by `/usr/bin/time` (bench/fsck/rusage.py); script `bench/debugfs/debugfs.sh`."]
print(report.merge(results, "debugfs", lines) + "\n")
