#!/usr/bin/env python3
"""Turn the VM benchmark's raw figures (bench/vm/fsbench.sh's $VM_RESULTS:
fio/BENCH.CASE.REP.json and meta.jsonl) into the "vm" section of
bench/RESULTS.md: a table per figure with the median, min - max and the
number of runs, the ratios the issue's targets are stated in, and whether
each target was met."""
import argparse
import glob
import json
import os
import sys

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from report import commit, med, merge, read_info, sh, utc_now  # noqa: E402  bench/report.py, the shared helpers

FS = ("stalefs", "ext4", "xfs")
RAND_CASES = (("stalefs", "unwritten", "stalefs, unwritten (fallocate)"),
              ("stalefs", "nohide", "stalefs, NO_HIDE_STALE (stalefs-falloc --no-hide-stale)"),
              ("stalefs", "overwrite", "stalefs, overwrite (file written first)"),
              ("stalefs-nj", "unwritten", "stalefs without a journal, unwritten"),
              ("stalefs-nj", "overwrite", "stalefs without a journal, overwrite"),
              ("ext4", "unwritten", "ext4, unwritten (fallocate)"),
              ("ext4", "overwrite", "ext4, overwrite"),
              ("xfs", "unwritten", "xfs, unwritten (fallocate)"),
              ("xfs", "overwrite", "xfs, overwrite"))
SEQ = (("seq-write-buffered", "write", "buffered write, 1 MiB, fsync at the end"),
       ("seq-read-buffered", "read", "buffered read, 1 MiB, cold cache"),
       ("seq-write-direct", "write", "O_DIRECT write, 1 MiB"),
       ("seq-read-direct", "read", "O_DIRECT read, 1 MiB"))
META = (("one", "create", "create (+ syncfs)"), ("one", "stat", "stat by path, cold cache"),
        ("one", "ls", "`ls -l` (readdir + lstat), cold cache"), ("one", "unlink", "unlink (+ syncfs)"),
        ("many", "create", "create (+ syncfs)"), ("many", "stat", "stat by path, cold cache"),
        ("many", "unlink", "unlink (+ syncfs)"))


def spread(v, f):
    return "%s – %s" % (f(min(v)), f(max(v)))


def verdict(ok):
    return "met" if ok else "**missed**"


def load_fio(results):
    """{(bench, case): [json job, ...]} from fio/BENCH.CASE.REP.json."""
    out = {}
    for p in sorted(glob.glob(os.path.join(results, "fio", "*.json"))):
        bench, case, _rep = os.path.basename(p)[:-5].split(".")
        with open(p) as f:
            text = f.read()
        job = json.loads(text[text.index("{"):])["jobs"][0]
        out.setdefault((bench, case), []).append(job)
    return out


def info(results):
    """read_info(), with fsbench.sh's last line ("rand_reps 3 seq_reps 2 ...") split into its pairs."""
    d = read_info(results)
    if "rand_reps" in d:
        parts = ["rand_reps"] + d["rand_reps"].split()
        d.update(zip(parts[0::2], parts[1::2]))
    return d


def rand_section(fio, mode, title, what):
    lines = ["### %s" % title, "", what, "",
             "| case | IOPS, median | min – max | runs | ÷ stalefs unwritten |", "|---|---:|---:|---:|---:|"]
    iops = {}
    for fs, how, label in RAND_CASES:
        jobs = fio.get(("rand-" + mode, "%s-%s" % (fs, how)), [])
        if not jobs:
            continue
        iops[(fs, how)] = [j["write"]["iops"] for j in jobs]
    base = iops.get(("stalefs", "unwritten"))
    for fs, how, label in RAND_CASES:
        v = iops.get((fs, how))
        if not v:
            continue
        lines.append("| %s | %.0f | %s | %d | %s |" % (
            label, med(v), spread(v, lambda x: "%.0f" % x), len(v),
            "%.2f×" % (med(v) / med(base)) if base else "–"))
    lines.append("")
    if base:
        checks = []
        for key, need, name in ((("ext4", "unwritten"), 1.0, "ext4 unwritten"),
                                (("xfs", "unwritten"), 1.0, "XFS unwritten"),
                                (("stalefs", "overwrite"), 0.9, "stalefs overwrite"),
                                (("stalefs", "nohide"), 0.9, "stalefs NO_HIDE_STALE")):
            if key in iops:
                r = med(base) / med(iops[key])
                checks.append("≥ %.1f× %s: %.2f× (%s)" % (need, name, r, verdict(r >= need)))
        lines += ["Targets for stalefs unwritten: " + "; ".join(checks) + ".", ""]
    cost = []
    for how in ("unwritten", "overwrite"):
        a, b = iops.get(("stalefs", how)), iops.get(("stalefs-nj", how))
        if a and b:
            cost.append("%s %.2f×" % (how, med(a) / med(b)))
    if cost:
        lines += ["With the journal ÷ without (IOPS): " + ", ".join(cost) + ".", ""]
    return lines


def fs_cells(values, show, unit=""):
    """One cell "MEDIAN[UNIT] (MIN – MAX)" per filesystem of FS ("–" where VALUES(fs) is empty),
    and the medians {fs: median}; SHOW formats one number."""
    cells, meds = [], {}
    for fs in FS:
        v = values(fs)
        if v:
            meds[fs] = med(v)
            cells.append("%s%s (%s)" % (show(med(v)), unit, spread(v, show)))
        else:
            cells.append("–")
    return cells, meds


def seq_section(fio):
    lines = ["### Sequential, 256 MiB, one file", "",
             "| figure | stalefs MB/s | ext4 MB/s | xfs MB/s | stalefs ÷ better peer | target ≥ 0.9× |",
             "|---|---:|---:|---:|---:|---|"]
    for bench, rw, label in SEQ:
        cells, meds = fs_cells(lambda fs: [j[rw]["bw_bytes"] / 1e6 for j in fio.get((bench, fs), [])],
                               lambda x: "%.0f" % x)
        peer = max([meds[f] for f in ("ext4", "xfs") if f in meds] or [0])
        r = meds["stalefs"] / peer if peer and "stalefs" in meds else None
        lines.append("| %s | %s | %s | %s |" % (label, " | ".join(cells), "%.2f×" % r if r else "–",
                                                verdict(r >= 0.9) if r else "–"))
    lines += ["", "Median (min – max) of fio's bandwidth (MB = 10⁶ bytes); the buffered write's time includes "
              "the final fsync (fio `--end_fsync=1`).", ""]
    return lines


def meta_section(results, conf):
    rows = []
    with open(os.path.join(results, "meta.jsonl")) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    t = {}
    nfiles = {}
    for r in rows:
        res = r["result"]
        t.setdefault((r["set"], res["op"], r["fs"]), []).append(res["seconds"])
        nfiles[(r["set"], res["op"])] = res["files"]
    sets = {"one": "%s files in one directory" % conf.get("meta_small", "?"),
            "many": "%s files in %s directories" % (conf.get("meta_big", "?"), conf.get("meta_dirs", "?"))}
    lines = ["### Metadata (bench/vm/dirbench.c)", "",
             "| set | operation | stalefs | ext4 | xfs | stalefs ÷ better peer (time) | target |",
             "|---|---|---:|---:|---:|---:|---|"]
    for st, op, label in META:
        # Issue 13: create and unlink no slower than the better peer; stat and ls within 1/0.9.
        limit = 1.0 if op in ("create", "unlink") else 1 / 0.9
        cells, meds = fs_cells(lambda fs: t.get((st, op, fs)), lambda x: "%.2f" % x, " s")
        peer = min([meds[f] for f in ("ext4", "xfs") if f in meds] or [0])
        r = meds["stalefs"] / peer if peer and "stalefs" in meds else None
        lines.append("| %s | %s | %s | %s | %s |" % (sets[st], label, " | ".join(cells),
                                                     "%.2f×" % r if r else "–",
                                                     "≤ %.2f×: %s" % (limit, verdict(r <= limit)) if r else "–"))
    lines += ["", "Seconds for the whole phase, median (min – max); `ls` lists %s entries ('.' and '..' "
              "included). Targets: create and unlink no slower than the better peer (issue 13), stat and "
              "`ls` within 1/0.9 = 1.11× of its time (issue 7)." % nfiles.get(("one", "ls"), "?"), ""]
    lines += journal_cost(t, sets)
    return lines


def journal_cost(t, sets):
    """The metadata phases with and without the journal (the random cases have their rows above)."""
    lines = ["### What the journal costs: stalefs against stalefs -O ^has_journal", "",
             "| set | operation | with the journal | without | with ÷ without (time) |", "|---|---|---:|---:|---:|"]
    for st, op, label in META:
        a, b = t.get((st, op, "stalefs")), t.get((st, op, "stalefs-nj"))
        if not a or not b:
            continue
        lines.append("| %s | %s | %.2f s | %.2f s | %.2f× |" % (sets[st], label, med(a), med(b), med(a) / med(b)))
    lines += ["", "The random-write cases above have their no-journal rows (\"stalefs without a journal\").", ""]
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True, help="the scenario's results dir (…/fsbench.results)")
    ap.add_argument("--load", default="?")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    fio = load_fio(a.results)
    conf = info(a.results)
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    mounts = []
    p = os.path.join(a.results, "mounts.txt")
    if os.path.exists(p):
        mounts = ["    " + l.split(" ", 2)[2].strip() for l in open(p) if l.strip()]
    body = ["## In the VM: random writes, sequential I/O, metadata (stalefs, ext4, XFS)", "",
            "- date: %s; stalefs commit %s" % (utc_now(), commit(top)),
            "- guest: Linux %s under `qemu-system-x86_64 -accel tcg` (%s), %s vCPUs, %d MiB; host load "
            "average when the run started: %s" % (conf.get("kernel", "?"), sh("qemu-system-x86_64 --version | head -1"),
                                                   conf.get("cpus", "?"), int(conf.get("mem_kb", "0")) // 1024,
                                                   a.load),
            "- disk: one %d MiB virtio-blk disk, qemu `cache=none` (O_DIRECT on the host, an image file on the "
            "host's ext4), filled with a pattern first so every block of the image is allocated on the host; "
            "I/O scheduler %s; a fresh filesystem for every case (no discard: `mke2fs -E nodiscard,"
            "lazy_itable_init=0,lazy_journal_init=0`, `mkfs.xfs -K`, `mkfs.stalefs`), default mount options" % (
                int(conf.get("disk_bytes", "0")) >> 20, conf.get("scheduler", "?")),
            "- %s, `--ioengine=psync --fallocate=none`; repetitions: %s of the random cases, %s sequential, "
            "%s metadata, interleaved (every filesystem once per repetition); script `bench/vm/fsbench.sh`, "
            "run by `make bench-vm`" % (conf.get("fio", "fio ?"), conf.get("rand_reps", "?"),
                                        conf.get("seq_reps", "?"), conf.get("meta_reps", "?")),
            "- the mounts as /proc/mounts showed them:", ""] + mounts + [""]
    body += rand_section(fio, "direct", "Random 4 KiB writes, O_DIRECT, into a %s MiB preallocated file" %
                         conf.get("file_mb", "?"),
                         "`fio --rw=randwrite --bs=4k --direct=1 --time_based --runtime=%s --randrepeat=1` (the "
                         "same sequence of offsets every run, each block at most once)." % conf.get("rand_s", "?"))
    body += rand_section(fio, "fsync", "Random 4 KiB buffered writes, fsync after each, into a %s MiB "
                         "preallocated file" % conf.get("file_mb", "?"),
                         "`fio --rw=randwrite --bs=4k --fsync=1 --time_based --runtime=%s --randrepeat=1`." %
                         conf.get("rand_s", "?"))
    body += seq_section(fio)
    body += meta_section(a.results, conf)
    print(merge(a.out, "vm", body))


if __name__ == "__main__":
    main()
