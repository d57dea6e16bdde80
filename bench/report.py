#!/usr/bin/env python3
"""Turn raw measurements (JSON lines from measure.py, tagged with bench and
case) into Markdown tables and merge them into bench/RESULTS.md: each
benchmark owns the text between its begin/end markers, so benchmarks written
by other scripts are left alone.

Also the shared module of the other benchmarks' reports (bench/fsck,
bench/debugfs, bench/vm: they put bench/ first on sys.path and
`import report`): merge() for a RESULTS.md section, load_runs() for JSON
lines, read_info() for a VM benchmark's info.txt, med(), sh(), utc_now(),
commit(), and the wall/CPU/RSS table of rusage.py's figures (fmt_spread(),
rusage_rows())."""
import argparse
import datetime
import json
import os
import platform
import re
import shlex
import statistics
import subprocess

PEERS = ("ext4", "xfs")
TOOLS = ("stalefs",) + PEERS
TITLES = {
    "mkfs": "mkfs on sparse files",
    "mkfs-d": "mkfs -d: populating from a tree of 100,000 files",
}


def load_runs(raw, *keys):
    """JSON lines of RAW grouped by the value of KEYS: {value: [row, ...]},
    {(value, value): [row, ...]} for two keys."""
    runs = {}
    for line in open(raw):
        if not line.strip():
            continue
        d = json.loads(line)
        k = tuple(d[key] for key in keys)
        runs.setdefault(k[0] if len(k) == 1 else k, []).append(d)
    return runs


def read_info(results):
    """RESULTS/info.txt of a VM benchmark ("KEY VALUE..." lines) as a dict; {} without one."""
    d = {}
    p = os.path.join(results, "info.txt")
    if os.path.exists(p):
        for line in open(p):
            parts = line.split(None, 1)
            if parts:
                d[parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return d


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def commit(top):
    """The checkout's short commit, or "?"."""
    return sh("git -C %s rev-parse --short HEAD" % shlex.quote(top)) or "?"


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


def machine(top):
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return [
        "- date: %s" % utc_now(),
        "- machine: %d CPUs (`nproc`), %s, kernel %s, %s" % (os.cpu_count(), cpu, platform.release(),
                                                           platform.machine()),
        "- target directory on: %s; load average when the run started: %s" % (
            sh("findmnt -n -o FSTYPE,SOURCE -T %s" % shlex.quote(os.environ.get("BENCH_TMP", "/var/tmp"))),
            os.environ.get("BENCH_LOAD", "?")),
        "- stalefs: commit %s; %s; %s" % (commit(top), sh("mke2fs -V 2>&1 | head -1"), sh("mkfs.xfs -V")),
    ]


def med(v):
    return statistics.median(v)


def fmt_bytes(b):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return "%.1f %s" % (b / div, unit)
    return "%d B" % b


def fmt_time(s):
    return "%.1f ms" % (s * 1e3) if s < 1 else "%.2f s" % s


def ratio(a, b):
    if not b:
        return "–"
    r = a / b
    return "%.2f×" % r if r >= 0.1 else "%.3f×" % r


def fmt_spread(vals, unit, scale=1.0, digits=3):
    """median UNIT (min – max), each scaled by SCALE."""
    m = med(vals) * scale
    return "%.*f %s (%.*f – %.*f)" % (digits, m, unit, digits, min(vals) * scale, digits, max(vals) * scale)


# The figures of bench/fsck/rusage.py: key, unit, scale, row name.
RUSAGE = (("wall", "s", 1, "wall time"), ("cpu", "s", 1, "CPU time (user+sys)"),
          ("maxrss_kb", "MB", 1 / 1024, "peak RSS"))


def rusage_rows(a, b):
    """Table rows "| figure | A | B | A÷B |" of rusage.py's figures; A and B map a key to its runs' values."""
    rows = []
    for key, unit, scale, name in RUSAGE:
        va, vb = a(key), b(key)
        r = med(va) / med(vb) if med(vb) else float("nan")
        rows.append("| %s | %s | %s | %.2f× |" % (name, fmt_spread(va, unit, scale), fmt_spread(vb, unit, scale), r))
    return rows


def section(bench, rows, work):
    out = []
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])
    for case in cases:
        data = {}
        cmds = {}
        for r in rows:
            if r["case"] != case:
                continue
            d = data.setdefault(r["label"], {"seconds": [], "wchar": [], "write_bytes": [], "allocated": []})
            for k in d:
                d[k] += r[k]
            cmds[r["label"]] = " ".join(shlex.quote(c) for c in r["command"]).replace(work, "$WORK")
        n = min(len(d["seconds"]) for d in data.values())
        target = "a %s sparse file" % case if bench == "mkfs" else "a 4 GiB sparse file"
        out.append("### %s: %s (%d runs each, interleaved)" % (bench, target if bench == "mkfs" else case, n))
        out.append("")
        out.append("| tool | time, median | min – max | write() bytes (wchar) | write_bytes (page cache) "
                   "| allocated in the image after |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for t in TOOLS:
            if t not in data:
                continue
            d = data[t]
            out.append("| %s | %s | %s – %s | %s | %s | %s |" % (
                t, fmt_time(med(d["seconds"])), fmt_time(min(d["seconds"])), fmt_time(max(d["seconds"])),
                fmt_bytes(med(d["wchar"])), fmt_bytes(med(d["write_bytes"])), fmt_bytes(med(d["allocated"]))))
        out.append("")
        if "stalefs" in data:
            s = data["stalefs"]
            out.append("| stalefs ÷ peer | time | wchar | write_bytes | allocated |")
            out.append("|---|---:|---:|---:|---:|")
            for t in PEERS:
                if t in data:
                    p = data[t]
                    out.append("| ÷ %s | %s | %s | %s | %s |" % (
                        t, ratio(med(s["seconds"]), med(p["seconds"])), ratio(med(s["wchar"]), med(p["wchar"])),
                        ratio(med(s["write_bytes"]), med(p["write_bytes"])),
                        ratio(med(s["allocated"]), med(p["allocated"]))))
            out.append("")
            verdicts = []
            if "xfs" in data:
                faster = med(s["seconds"]) <= med(data["xfs"]["seconds"])
                what = "mkfs.xfs -p" if bench == "mkfs-d" else "mkfs.xfs"
                verdicts.append("no slower than %s: **%s** (%s vs %s)" % (
                    what, "met" if faster else "missed", fmt_time(med(s["seconds"])),
                    fmt_time(med(data["xfs"]["seconds"]))))
            if bench == "mkfs" and "ext4" in data:
                less = max(med(s["wchar"]), med(s["allocated"])) < min(med(data["ext4"]["wchar"]),
                                                                       med(data["ext4"]["allocated"]))
                verdicts.append("less written than mke2fs: **%s** (%s written, %s allocated vs %s, %s)" % (
                    "met" if less else "missed", fmt_bytes(med(s["wchar"])), fmt_bytes(med(s["allocated"])),
                    fmt_bytes(med(data["ext4"]["wchar"])), fmt_bytes(med(data["ext4"]["allocated"]))))
            if verdicts:
                out.append("Targets: " + "; ".join(verdicts) + ".")
                out.append("")
        out.append("Commands (`$WORK` is a fresh directory under /var/tmp; the target is deleted and "
                   "recreated sparse before every run):")
        out.append("")
        for t in TOOLS:
            if t in cmds:
                out.append("    %s" % cmds[t])
        out.append("")
    return out


def merge(results, name, body):
    """Put BODY (lines) between NAME's begin/end markers in RESULTS, replacing
    what was there or appending; the rest of the file is left alone.
    Returns the block written, markers included."""
    begin, end = "<!-- begin %s -->" % name, "<!-- end %s -->" % name
    block = "\n".join([begin] + body + [end])
    if os.path.exists(results):
        text = open(results).read()
    else:
        text = ("# Benchmark results\n\nWritten by `make bench` (scripts in bench/, see bench/README.md). "
                "Medians of several runs, min – max, and ratios against the peers measured in the same run.\n")
    pat = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if pat.search(text):
        text = pat.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(results, "w") as f:
        f.write(text)
    return block


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--gentree")
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.raw) if l.strip()]
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for bench in ("mkfs", "mkfs-d"):
        mine = [r for r in rows if r["bench"] == bench]
        if not mine:
            continue
        body = ["## %s" % TITLES[bench], ""] + machine(top) + [""]
        if bench == "mkfs-d" and a.gentree and os.path.exists(a.gentree):
            body += ["Tree: `python3 bench/gentree.py $WORK/tree` (seed fixed): %s; xfs gets "
                     "`bench/protofile.py $WORK/tree` (mkfs.xfs 6.1 takes only a protofile)." %
                     open(a.gentree).read().strip().replace("gentree: ", "").replace(a.work, "$WORK"), ""]
        body += section(bench, mine, a.work)
        merge(a.results, bench, body)


if __name__ == "__main__":
    main()
