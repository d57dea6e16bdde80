#!/usr/bin/env python3
"""Compare a stalefs timeline with TSK's fls -m -r of the same tree on ext4.

Usage: bodycmp.py OURS FLS SOURCE_DIR

Both are bodyfiles (MD5|name|inode|mode|UID|GID|size|atime|mtime|ctime|crtime).
fls prints names as they are, '|' included, so its lines are split from the
right (the last nine fields are fixed); ours escape '|' and '%' as mactime's
%XX, decoded here.  Every entry must be in both with the same mode string,
owner, group, size and four times; what legitimately differs is said and
checked for what it must be instead:

  * the root "/" is ours alone (fls leaves it out);
  * inode numbers are each filesystem's own: names sharing an inode (hard
    links) must share one in both, and "$OrphanFiles" is numbered after the
    last inode of each;
  * a symlink's " -> target": fls shows it only when the target is kept in
    the inode; ours always, and the target must be the source's readlink;
  * lost+found's size: mke2fs gives it four blocks, mkfs.stalefs one.
Exit status 0 when they match, 1 with one line per difference.
"""
import os
import re
import sys


def decode(s):
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), s)


def parse(path, ours):
    entries = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            fields = line.split("|")
            if len(fields) < 11:
                raise SystemExit(f"{path}: not a bodyfile line: {line!r}")
            name = "|".join(fields[1:-9])
            if ours:
                name = decode(name)
            link = None
            m = re.match(r"^(.*?) -> (.*?)((?: \(deleted(?:-realloc)?\))?)$", name)
            if m:
                name, link = m.group(1) + m.group(3), m.group(2)
            ino, mode, uid, gid, size, a, mt, c, cr = fields[-9:]
            if name in entries:
                raise SystemExit(f"{path}: {name!r} listed twice")
            entries[name] = dict(ino=ino, mode=mode, uid=uid, gid=gid, size=size,
                                 times=(a, mt, c, cr), link=link, md5=fields[0])
    return entries


def main():
    ours, fls, src = parse(sys.argv[1], True), parse(sys.argv[2], False), sys.argv[3]
    bad = []
    if "/" not in ours:
        bad.append("ours: no line for the root /")
    else:
        del ours["/"]
    for name in sorted(set(ours) | set(fls)):
        if name not in ours:
            bad.append(f"{name!r}: in fls only")
            continue
        if name not in fls:
            bad.append(f"{name!r}: in ours only")
            continue
        o, t = ours[name], fls[name]
        for k in ("mode", "uid", "gid", "times"):
            if o[k] != t[k]:
                bad.append(f"{name!r}: {k} {o[k]} (ours) != {t[k]} (fls)")
        if o["size"] != t["size"] and name != "/lost+found":
            bad.append(f"{name!r}: size {o['size']} (ours) != {t['size']} (fls)")
        if o["mode"].startswith("l/") and "deleted" not in name:
            want = os.readlink(os.path.join(src, name.lstrip("/")))
            if o["link"] != want:
                bad.append(f"{name!r}: our symlink target {o['link']!r}, the source's {want!r}")
            if t["link"] is not None and t["link"] != want:
                bad.append(f"{name!r}: fls's symlink target {t['link']!r}, the source's {want!r}")
    # Hard links: the same partition of names into inodes.
    def groups(entries):
        by = {}
        for name, e in entries.items():
            if "deleted" not in name and name != "/$OrphanFiles":
                by.setdefault(e["ino"], set()).add(name)
        return sorted(sorted(g) for g in by.values())
    if groups(ours) != groups(fls):
        bad.append(f"names sharing an inode differ: ours {groups(ours)} fls {groups(fls)}")
    for line in bad:
        print(line)
    print(f"bodycmp: {len(fls)} fls entries, {len(ours)} of ours (+ the root), {len(bad)} difference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
