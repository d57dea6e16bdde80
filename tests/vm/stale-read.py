#!/usr/bin/env python3
# stale-read.py MODE FILE: read FILE through MODE (buffered, direct, mmap)
# and summarise what came back, 4 KiB block by block, against the pattern
# the stale scenarios write over the whole device before mkfs (0xab):
#   size=N pattern=P zero=Z other=O
# P blocks are wholly the pattern (old disk contents), Z wholly zero.
# stale-read.py all FILE...: every file through every path, one line each:
#   FILE buffered:P direct:P mmap:P      (P: blocks showing the pattern)
import mmap
import os
import sys

PAT = 0xAB
BS = 4096


def read_buffered(path):
    with open(path, "rb") as f:
        return f.read()


def read_direct(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        size = os.fstat(fd).st_size
        buf = mmap.mmap(-1, 1 << 20)  # page aligned, as O_DIRECT wants
        out = bytearray()
        off = 0
        while off < size:
            n = os.preadv(fd, [buf], off)
            if n <= 0:
                break
            out += buf[:n]
            off += n
        return bytes(out[:size])
    finally:
        os.close(fd)


def read_mmap(path):
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if not size:
            return b""
        with mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ) as m:
            return m[:]


READERS = {"buffered": read_buffered, "direct": read_direct, "mmap": read_mmap}


def pattern_blocks(data):
    return sum(1 for i in range(0, len(data), BS) if data[i:i + BS].count(PAT) == len(data[i:i + BS]))


def main():
    mode = sys.argv[1]
    if mode == "all":
        for path in sys.argv[2:]:
            print(path, " ".join(f"{m}:{pattern_blocks(r(path))}" for m, r in READERS.items()))
        return
    data = READERS[mode](sys.argv[2])
    pat = zero = other = 0
    for i in range(0, len(data), BS):
        b = data[i:i + BS]
        if b.count(PAT) == len(b):
            pat += 1
        elif b.count(0) == len(b):
            zero += 1
        else:
            other += 1
    print(f"size={len(data)} pattern={pat} zero={zero} other={other}")


main()
