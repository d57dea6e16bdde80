#!/usr/bin/env python3
"""Run one command several times on a fresh sparse target and measure it.

Each run: delete the target, create it sparse at --size (untimed), sync, then
spawn the command and wait for it.  Measured per run:
  - wall time from spawn to reaped exit;
  - wchar and write_bytes of the child.  A reaped child's I/O accounting is
    added to its parent's, so the difference in our own /proc/self/io across
    the wait is the child's (we write nothing ourselves in between);
  - bytes allocated in the target afterwards (st_blocks * 512), because some
    tools zero ranges with fallocate or punch them, which no write counter sees.
Prints one JSON object (label, command, per-run lists, exit codes) on stdout.
A non-zero exit of the measured command fails the whole measurement loudly.
"""
import argparse
import json
import os
import sys
import time


def read_io():
    vals = {}
    with open("/proc/self/io") as f:
        for line in f:
            k, v = line.split(":")
            vals[k.strip()] = int(v)
    return vals


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    if s[-1].upper() in mult:
        return int(s[:-1]) * mult[s[-1].upper()]
    return int(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--target", required=True, help="image file, recreated sparse before each run")
    ap.add_argument("--size", required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no command")
    size = parse_size(a.size)
    out = {"label": a.label, "command": cmd, "size": a.size, "runs": a.runs,
           "seconds": [], "wchar": [], "write_bytes": [], "allocated": []}
    devnull = os.open(os.devnull, os.O_WRONLY)
    for _ in range(a.runs):
        try:
            os.unlink(a.target)
        except FileNotFoundError:
            pass
        fd = os.open(a.target, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644)
        os.ftruncate(fd, size)
        os.close(fd)
        os.sync()
        before = read_io()
        t0 = time.perf_counter_ns()
        pid = os.posix_spawnp(cmd[0], cmd, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
        _, status = os.waitpid(pid, 0)
        t1 = time.perf_counter_ns()
        after = read_io()
        rc = os.waitstatus_to_exitcode(status)
        if rc != 0:
            sys.exit("measure.py: %s exited %d: %s" % (a.label, rc, " ".join(cmd)))
        out["seconds"].append((t1 - t0) / 1e9)
        out["wchar"].append(after["wchar"] - before["wchar"])
        out["write_bytes"].append(after["write_bytes"] - before["write_bytes"])
        out["allocated"].append(os.stat(a.target).st_blocks * 512)
    os.unlink(a.target)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
