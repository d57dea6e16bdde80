#!/usr/bin/python3
"""Everything a tree says about itself, one line per entry, sorted, for
comparing one tree seen through two implementations (the FUSE server and the
kernel module):

    tree-manifest.py DIR

Per entry: path, type, mode (with set-id and sticky bits), owner, group,
size, blocks, mtime (ns), which entry it is a hard link of (the first path
of its inode, not the inode number: the root's differs between the two), a
regular file's SHA-256, a symlink's target, a device's numbers, and every
extended attribute (ACLs included) with the SHA-256 of its value.  Access
and change times are left out (reading and remounting move them).
"""
import hashlib
import os
import stat
import sys


def sha(data):
    return hashlib.sha256(data).hexdigest()[:20]


def main():
    top = sys.argv[1]
    first = {}
    lines = []
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(dirs + files) if root == top else sorted(dirs + files):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, top)
            st = os.lstat(path)
            link = first.setdefault((st.st_ino, st.st_dev), rel) if not stat.S_ISDIR(st.st_mode) else rel
            f = [rel, "%o" % st.st_mode, "%d:%d" % (st.st_uid, st.st_gid), "size=%d" % st.st_size,
                 "blocks=%d" % st.st_blocks, "mtime=%d" % st.st_mtime_ns, "nlink=%d" % st.st_nlink]
            if link != rel:
                f.append("hardlink-of=" + link)
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as fh:
                    f.append("sha=" + sha(fh.read()))
            elif stat.S_ISLNK(st.st_mode):
                f.append("target=" + os.readlink(path))
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                f.append("rdev=%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev)))
            if not stat.S_ISLNK(st.st_mode):
                for x in sorted(os.listxattr(path)):
                    f.append("xattr:%s=%s" % (x, sha(os.getxattr(path, x))))
            lines.append(" ".join(f))
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
