#!/usr/bin/env python3
"""Summarise timeline.jsonl into the "timeline" section of bench/RESULTS.md
(medians, min - max, ratios against fls).  usage: report.py RAW LOADAVG RESULTS.md"""
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


tsk = report.sh("fls -V 2>&1 | head -1")
n = len(runs["fls"])
entries = runs["fls"][0]["entries"]
lines = ["## timeline: a bodyfile of 100,000 inodes against TSK's fls -m", "",
         "`stalefs-timeline IMAGE` and `debugfs.stalefs -R timeline IMAGE` against The Sleuth Kit's "
         "`fls -m / -r IMAGE` (%s), each on an image populated from the same tree by `mkfs.stalefs -d` and "
         "`mke2fs -t ext4 -d` (4 GiB sparse files): `bench/gentree.py`'s %s files and directories "
         "(100,000 files in 10,000 directories). Every entry's path and size was checked in each output before "
         "timing. Page cache warm; %d interleaved runs each; median (min – max); a ratio under 1 means stalefs "
         "is faster. Load average at start: %s. Machine: %s, %s."
         % (tsk, f"{int(entries):,}", n, load, platform.machine(), platform.platform()), ""]
for label, title in (("stalefs-timeline", "`stalefs-timeline`"), ("debugfs-timeline", "`debugfs.stalefs -R timeline`")):
    lines += ["### %s against `fls -m / -r`" % title, "", "| | %s | fls -m / -r | ratio |" % label, "|---|---|---|---|"]
    lines += report.rusage_rows(col(label), col("fls"))
    lines.append("")
lines += ["Commands: `stalefs-timeline $WORK/stalefs.img`, `debugfs.stalefs -R timeline $WORK/stalefs.img`, "
          "`fls -m / -r $WORK/ext4.img`, output to /dev/null, each timed by `/usr/bin/time` (bench/fsck/rusage.py); "
          "script `bench/forensics/timeline.sh`."]
print(report.merge(results, "timeline", lines) + "\n")
