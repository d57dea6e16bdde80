#!/usr/bin/env python3
"""Turn the raw figures of bench/vm/treebench.sh or bench/vm/agingbench.sh
($VM_RESULTS/NAME.jsonl and info.txt) into the "vm-tree" or "vm-aging"
section of bench/RESULTS.md (issue 26): stalefs, ext4 and XFS in the same
boot, medians, min - max, stalefs against the better peer and whether the
issue's targets were met.

    tree-report.py tree|aging --results DIR --load LOAD --src-dirs DIRS --commit C --cmd CMD --wall S --out RESULTS.md
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from report import commit, load_runs, med, merge, read_info, sh, utc_now  # noqa: E402  bench/report.py

FSS = ("stalefs", "ext4", "xfs")
NAMES = {"stalefs": "stalefs", "ext4": "ext4", "xfs": "XFS"}


def secs(x):
    return "%.2f" % x if x < 10 else "%.1f" % x


def spread(v, f):
    return "%s (%s – %s)" % (f(med(v)), f(min(v)), f(max(v))) if v else "–"


def mbps(row):
    return row["bytes"] / row["seconds"] / 1e6


def kib_per_req(rows, kind):
    """Mean KiB per read or write request over ROWS (the device's counters)."""
    req = sum(r["%s_req" % kind] for r in rows)
    return sum(r["%s_kib" % kind] for r in rows) / req if req else 0


def header(title, a, conf, src, disk):
    return ["## %s" % title, "",
            "- date: %s; stalefs commit %s; `%s`, %s s wall on the host" % (
                utc_now(), a.commit or commit(a.top), a.cmd, a.wall),
            "- guest: Linux %s under `qemu-system-x86_64 -accel tcg` (%s), %s vCPUs, %d MiB; host load "
            "average when the run started: %s" % (
                conf.get("kernel", "?"), sh("qemu-system-x86_64 --version | head -1"), conf.get("cpus", "?"),
                int(conf.get("mem_kb", 0)) // 1024, a.load),
            "- tree: `%s` of Debian's linux-source-6.1 (%s): %s files of %.1f MB, %s directories, %s "
            "symlinks; an uncompressed tar made once on the host (`bench_srctree`, bench/lib.sh), copied "
            "into the guest's tmpfs before anything is timed; %s" % (
                a.src_dirs, sh("dpkg-query -W -f '${Version}' linux-source-6.1") or "?",
                "{:,}".format(src["files"]), src["bytes"] / 1e6, "{:,}".format(src["dirs"]),
                src["symlinks"], conf.get("tar", "?")),
            "- disks: %s; qemu `cache=none` over a host file written in full beforehand (run-vm `:full`); "
            "`mkfs.stalefs -E nodiscard`, `mke2fs -t ext4 -E nodiscard,lazy_itable_init=0,"
            "lazy_journal_init=0`, `mkfs.xfs -K`, default mount options" % disk,
            "- cold reads: unmount, `sync; echo 3 > /proc/sys/vm/drop_caches`, mount (drop_caches alone leaves "
            "the metadata the journal or log still pins cached), then `bench/vm/treeread` reads every "
            "regular file once, in full, in readdir order (as `find -type f | xargs cat`; O_NOATIME, 128 KiB "
            "reads) and counts the files and bytes it read, which must be what the phase before left"]


def tree_section(a, runs, conf, src):
    reps = max((r["run"] for rows in runs.values() for r in rows), default=0)
    body = header("In the VM: many files (stalefs against ext4 and XFS; issue 26)", a, conf, src,
                  "one 2 GiB virtio-blk disk, a fresh filesystem for every run")
    body += ["- %d runs of each filesystem, interleaved (stalefs, ext4, XFS, stalefs, ...). untar: "
             "`tar -xf` of the tarball from tmpfs + `sync`; read: the cold read; rm: `rm -rf` of the tree "
             "+ `sync`. Checked untimed: after untar the tree's files, directories, symlinks, bytes and "
             "contents equal the tarball's (`treeread --sum`); after rm nothing is left; every stalefs run "
             "ends with a clean `fsck.stalefs -fn`" % reps, "",
             "| phase | stalefs, s | ext4, s | XFS, s | stalefs ÷ better peer (time) | target ≤ 1.0× |",
             "|---|---:|---:|---:|---:|---|"]
    what = {"untar": "untar + sync", "read": "cold read of every file", "rm": "`rm -rf` + sync"}
    for phase in ("untar", "read", "rm"):
        t = {fs: [r["seconds"] for r in runs.get((fs, phase), [])] for fs in FSS}
        if not all(t.values()):
            continue
        best = min(med(t["ext4"]), med(t["xfs"]))
        r = med(t["stalefs"]) / best
        body.append("| %s | %s | %s | %s | %.2f× | %s |" % (
            what[phase], spread(t["stalefs"], secs), spread(t["ext4"], secs), spread(t["xfs"], secs), r,
            "met" if r <= 1.0 else "**missed**"))
    body += ["", "Seconds, median (min – max); the ratio is of the medians. The device's requests "
             "(`/sys/block/DEV/stat`, medians per run) and extents per file (`filefrag`, first run):", "",
             "| | stalefs | ext4 | XFS |", "|---|---:|---:|---:|"]
    rows = []
    for phase, kind, label in (("untar", "wr", "untar: write requests"), ("untar", "wr", "untar: KiB per write"),
                               ("read", "rd", "read: read requests"), ("read", "rd", "read: KiB per read"),
                               ("read", None, "read: MB/s"), ("rm", "wr", "rm: write requests")):
        cells = []
        for fs in FSS:
            rr = runs.get((fs, phase), [])
            if not rr:
                cells.append("–")
            elif kind is None:
                cells.append("%.1f" % med([mbps(x) for x in rr]))
            elif label.startswith(phase + ": KiB"):
                cells.append("%.1f" % kib_per_req(rr, kind))
            else:
                cells.append("{:,}".format(int(med([x["%s_req" % kind] for x in rr]))))
        rows.append("| %s | %s |" % (label, " | ".join(cells)))
    ext = [runs.get((fs, "extents"), [{}])[0] for fs in FSS]
    rows.append("| extents per non-empty file (files with more than one) | %s |" % " | ".join(
        "%.3f (%s)" % (e["extents_per_file"], "{:,}".format(e["fragmented"])) if e else "–" for e in ext))
    body += rows + [""]
    return body


def aging_section(a, runs, conf, src):
    rounds = max((r["round"] for rows in runs.values() for r in rows), default=0)
    place = {fs: runs.get((fs, "place"), [{}])[0] for fs in FSS}
    body = header("In the VM: aging (stalefs against ext4 and XFS; issue 26)", a, conf, src,
                  "six 1 GiB virtio-blk disks, two per filesystem (aged, fresh copy)")
    body += ["- after Conway et al., FAST '17 (\"File Systems Fated for Senescence? Nonsense, Says "
             "Science!\"), every step interleaved across the three filesystems: other files "
             "(`agetree fill`, 1–16 MiB each) fill each filesystem so that it is %s%% used once the tree is "
             "in (stalefs %s%%, ext4 %s%%, XFS %s%% after `tar -xf` + `sync`); then %d rounds of "
             "`bench/vm/agetree age TREE %s ROUND %s` + `sync`: %s%% of the files deleted, %s%% rewritten "
             "(half truncated and written anew at 0.5–1.5× their size, half appended to by up to half "
             "their size), as many created as were deleted (sizes and directories picked from the tree), in "
             "shuffled order; the same seed, so the same tree on every filesystem; a cold read after each "
             "round" % (conf.get("full_pct", "?"), place["stalefs"].get("used_pct", "?"),
                        place["ext4"].get("used_pct", "?"), place["xfs"].get("used_pct", "?"), rounds,
                        conf.get("seed", "?"), conf.get("pct", "?"), conf.get("pct", "?"), conf.get("pct", "?")),
             "- fresh copy: after the last round, `cp -a` of the aged tree onto a new filesystem of the same "
             "kind (its second disk, empty), + `sync`; then %s cold reads of the aged tree and of its copy, "
             "alternating, the three filesystems interleaved" % conf.get("end_reps", "?"),
             "- checked untimed: the placed tree equals the tarball (`treeread --sum`); every read read "
             "the files and bytes `agetree` left; the three aged trees are identical (same files, bytes and "
             "checksum), and so is each fresh copy; every stalefs filesystem, aged and fresh, checks clean "
             "(`fsck.stalefs -fn`)", "",
             "Cold read of the whole tree after each round, MB/s (bytes read ÷ seconds), and the read "
             "requests the device saw during it (`/sys/block/DEV/stat`: unlike the time, not swayed by the "
             "load on the host):", "",
             "| round | stalefs | ext4 | XFS | stalefs ÷ better peer | read requests, stalefs / ext4 / XFS "
             "| disk used, stalefs / ext4 / XFS |",
             "|---:|---:|---:|---:|---:|---|---|"]
    curve = {}
    for fs in FSS:
        for r in runs.get((fs, "read"), []):
            curve.setdefault(r["round"], {})[fs] = r
    for rnd in sorted(curve):
        row = curve[rnd]
        if len(row) < 3:
            continue
        v = {fs: mbps(row[fs]) for fs in FSS}
        body.append("| %d | %.1f | %.1f | %.1f | %.2f× | %s | %s |" % (
            rnd, v["stalefs"], v["ext4"], v["xfs"], v["stalefs"] / max(v["ext4"], v["xfs"]),
            " / ".join("{:,}".format(row[fs]["rd_req"]) for fs in FSS),
            " / ".join("%.1f%%" % row[fs]["used_pct"] for fs in FSS)))
    body += ["", "At the end (%s reads each, median (min – max)), and extents per non-empty file "
             "(`filefrag`; in brackets, the files with more than one):" % conf.get("end_reps", "?"), "",
             "| | stalefs | ext4 | XFS |", "|---|---:|---:|---:|"]
    final = {fs: [mbps(r) for r in runs.get((fs, "final"), [])] for fs in FSS}
    fresh = {fs: [mbps(r) for r in runs.get((fs, "fresh"), [])] for fs in FSS}
    ratio = {fs: med(final[fs]) / med(fresh[fs]) if final[fs] and fresh[fs] else None for fs in FSS}

    def row(label, f):
        body.append("| %s | %s |" % (label, " | ".join(f(fs) for fs in FSS)))

    def ext(phase, rnd):
        def cell(fs):
            e = [r for r in runs.get((fs, phase), []) if r["round"] == rnd]
            return "%.3f (%s)" % (e[0]["extents_per_file"], "{:,}".format(e[0]["fragmented"])) if e else "–"
        return cell

    f1 = "%.1f".__mod__
    row("aged tree, MB/s", lambda fs: spread(final[fs], f1))
    row("its fresh copy, MB/s", lambda fs: spread(fresh[fs], f1))
    row("**aged ÷ fresh copy**", lambda fs: "%.2f×" % ratio[fs] if ratio[fs] is not None else "–")
    def reqs(fs, phase):
        return med([r["rd_req"] for r in runs.get((fs, phase), [])] or [0])
    row("read requests, aged / fresh", lambda fs: "{:,} / {:,} ({:.2f}×)".format(
        int(reqs(fs, "final")), int(reqs(fs, "fresh")), reqs(fs, "final") / (reqs(fs, "fresh") or 1)))
    row("KiB per read request, aged / fresh", lambda fs: "%.1f / %.1f" % (
        kib_per_req(runs.get((fs, "final"), []), "rd"), kib_per_req(runs.get((fs, "fresh"), []), "rd")))
    row("aging round (+ sync), s", lambda fs: spread([r["seconds"] for r in runs.get((fs, "age"), [])], secs))
    row("`cp -a` to the fresh filesystem (+ sync), s",
        lambda fs: spread([r["seconds"] for r in runs.get((fs, "copy"), [])], secs))
    row("extents per file, round 0", ext("extents", 0))
    row("extents per file, round %d" % rounds, ext("extents", rounds))
    row("extents per file, fresh copy", ext("fresh-extents", rounds))
    body.append("")
    verdicts = []
    if ratio["stalefs"] is not None:
        verdicts.append("stalefs's aged tree reads at ≥ 0.8× its fresh copy: **%s** (%.2f×)" % (
            "met" if ratio["stalefs"] >= 0.8 else "missed", ratio["stalefs"]))
        peers = [fs for fs in ("ext4", "xfs") if ratio[fs] is not None]
        ahead = all(med(final["stalefs"]) > med(final[fs]) for fs in peers)
        verdicts.append("its aged tree reads faster than ext4's and XFS's: **%s** (%s MB/s against %s)" % (
            "met" if ahead else "missed", f1(med(final["stalefs"])),
            " and ".join("%s %s" % (NAMES[fs], f1(med(final[fs]))) for fs in peers)))
        keeps = all(ratio["stalefs"] >= ratio[fs] for fs in peers)
        verdicts.append("it keeps more of its fresh-copy speed than they do: **%s**" % ("met" if keeps else "missed"))
    body += ["Targets: " + "; ".join(verdicts) + ".", ""]
    return body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench", choices=("tree", "aging"))
    ap.add_argument("--results", required=True, help="the scenario's results dir (…/treebench.results)")
    ap.add_argument("--load", default="?")
    ap.add_argument("--src-dirs", default="?")
    ap.add_argument("--commit", help="the commit the run measured (default: the checkout's)")
    ap.add_argument("--cmd", default="?", help="the command that ran the benchmark")
    ap.add_argument("--wall", default="?", help="seconds the whole run took on the host")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    a.top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    runs = load_runs(os.path.join(a.results, "%sbench.jsonl" % a.bench), "fs", "phase")
    conf = read_info(a.results)
    src = json.loads(conf["src"])
    body = (tree_section if a.bench == "tree" else aging_section)(a, runs, conf, src)
    print(merge(a.out, "vm-" + a.bench, body))


if __name__ == "__main__":
    main()
