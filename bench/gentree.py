#!/usr/bin/env python3
"""Generate the benchmark tree deterministically: the same seed gives the same
names, sizes, contents and times on every machine.

Default shape (issue 7): 100,000 regular files in 10,000 directories -- 100
top-level directories of 99 subdirectories each (100 + 9,900 = 10,000), ten
files in each.  Sizes are log-uniform from 1 byte to 32 KiB, with one file in
a hundred empty and one in a thousand 1 MiB; contents are slices of one
seeded random pool.  Every entry gets the same fixed mtime and atime.
"""
import argparse
import math
import os
import random

FIXED_TIME = 1700000000  # 2023-11-14, any fixed instant will do


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--top", type=int, default=100, help="top-level directories")
    ap.add_argument("--sub", type=int, default=99, help="subdirectories in each top-level one")
    ap.add_argument("--files", type=int, default=10, help="files in every directory")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    pool = rng.randbytes(2 << 20)
    os.makedirs(a.dir)
    dirs = []
    for t in range(a.top):
        top = os.path.join(a.dir, "d%03d" % t)
        os.mkdir(top)
        dirs.append(top)
        for s in range(a.sub):
            sub = os.path.join(top, "s%03d" % s)
            os.mkdir(sub)
            dirs.append(sub)
    nfiles = total = 0
    for d in dirs:
        for f in range(a.files):
            r = rng.random()
            if nfiles % 1000 == 999:
                size = 1 << 20
            elif r < 0.01:
                size = 0
            else:
                size = int(math.exp(rng.uniform(0, math.log(32768))))
            off = rng.randrange(0, len(pool) - size + 1)
            path = os.path.join(d, "f%02d-%d" % (f, nfiles))
            with open(path, "wb") as fh:
                fh.write(pool[off:off + size])
            os.utime(path, (FIXED_TIME, FIXED_TIME))
            nfiles += 1
            total += size
    for d in reversed(dirs):
        os.utime(d, (FIXED_TIME, FIXED_TIME))
    print("gentree: %d files, %d directories, %d bytes of data in %s" % (nfiles, len(dirs), total, a.dir))


if __name__ == "__main__":
    main()
