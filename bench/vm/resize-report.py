#!/usr/bin/env python3
"""Turn bench/vm/resizebench.sh's raw figures ($VM_RESULTS/resize.jsonl and
info.txt) into the "vm-resize" section of bench/RESULTS.md: fstrim of a
4 GiB filesystem with 100,000 one-block free extents and an online grow of
1 GiB to 1 TiB, stalefs against ext4 in the same boot, medians, min - max,
the ratio and whether issue 27's target (stalefs no slower) was met."""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from report import commit, load_runs, med, merge, read_info, sh, utc_now  # noqa: E402  bench/report.py

ROWS = (("fstrim", "`fstrim -v` of a 4 GiB filesystem whose free space includes %s one-block extents "
         "(the first FITRIM after mount)", "ext4"),
        ("grow", "online grow of 1 GiB to 1 TiB on a loop device over a sparse file "
         "(`resize.stalefs /dev/loopN` against `resize2fs /dev/loopN`, mounted)", "ext4"))


def secs(x):
    return "%.3f" % x if x < 10 else "%.1f" % x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True, help="the scenario's results dir (…/resizebench.results)")
    ap.add_argument("--load", default="?")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    runs = load_runs(os.path.join(a.results, "resize.jsonl"), "bench", "fs")
    conf = read_info(a.results)
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    extents = "?"
    for (b, _fs), rows in runs.items():
        if b == "fstrim" and rows:
            extents = "{:,}".format(rows[0].get("extents", 0))
    body = ["## In the VM: fstrim and online grow (stalefs against ext4; issue 27)", "",
            "- date: %s; stalefs commit %s" % (utc_now(), commit(top)),
            "- guest: Linux %s under `qemu-system-x86_64 -accel tcg` (%s), %s vCPUs; %s; host load "
            "average when the run started: %s" % (conf.get("kernel", "?"),
                                                   sh("qemu-system-x86_64 --version | head -1"),
                                                   conf.get("cpus", "?"), conf.get("e2fsprogs", "?"), a.load),
            "- fstrim disk: a 4 GiB virtio-blk disk, qemu `cache=none,discard=unmap` over a sparse host "
            "file (discard_granularity %s bytes); both filesystems made with `-E nodiscard`, then "
            "`bench/vm/holes.c` preallocates 2 × N blocks and punches every other one out, sync, "
            "remount, and the timed `fstrim -v`" % conf.get("discard_granularity", "?"),
            "- grow: a 1 GiB sparse file in the guest's tmpfs (`$VM_SCRATCH`), `losetup`, mkfs `-E nodiscard`, mount, "
            "`truncate -s 1T`, `losetup -c`, then the timed resize while mounted",
            "- every run ends with a clean `fsck.stalefs -fn` / `e2fsck -fn`; raw figures in "
            "`build/bench/vm-resize-logs/resizebench.results/resize.jsonl`", "",
            "| figure | stalefs, s | ext4, s | runs | stalefs ÷ ext4 (time) | target ≤ 1.0× |",
            "|---|---:|---:|---:|---:|---|"]
    notes = []
    for bench, what, peer in ROWS:
        s = [r["seconds"] for r in runs.get((bench, "stalefs"), [])]
        p = [r["seconds"] for r in runs.get((bench, peer), [])]
        if not s and not p:
            continue

        def cell(v):
            return "%s (%s – %s)" % (secs(med(v)), secs(min(v)), secs(max(v))) if v else "–"
        r = med(s) / med(p) if s and p and med(p) > 0 else None
        label = what % extents if "%s" in what else what
        body.append("| %s | %s | %s | %d / %d | %s | %s |" % (
            label, cell(s), cell(p), len(s), len(p), "%.2f×" % r if r is not None else "–",
            ("met" if r <= 1.0 else "**missed**") if r is not None else "–"))
        if bench == "fstrim":
            for fs in ("stalefs", peer):
                b = [x.get("bytes", 0) for x in runs.get((bench, fs), [])]
                if b:
                    notes.append("%s trimmed %s bytes (median)" % (fs, "{:,}".format(int(med(b)))))
        if bench == "grow":
            for fs in ("stalefs", peer):
                b = [x.get("f_blocks", 0) for x in runs.get((bench, fs), [])]
                if b:
                    notes.append("%s's size after the grow: %s blocks of 4 KiB (`stat -f`)" % (
                        fs, "{:,}".format(int(med(b)))))
    body += ["", "Seconds, median (min – max). " + "; ".join(notes) + ".", ""]
    block = merge(a.out, "vm-resize", body)
    print(block)


if __name__ == "__main__":
    main()
