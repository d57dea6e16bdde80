#!/usr/bin/env python3
"""Write an mkfs.xfs protofile (mkfs.xfs -p, see mkfs.xfs(8)) describing a tree:
directories, regular files (copied from their source path), symlinks, fifos.
xfsprogs 6.1 takes only a protofile, not a directory, for -p."""
import os
import stat
import sys


def mode_field(st, kind):
    m = st.st_mode
    return "%s%s%s%03o" % (kind, "u" if m & stat.S_ISUID else "-",
                           "g" if m & stat.S_ISGID else "-", m & 0o777)


def walk(path, depth, out):
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        st = os.lstat(full)
        if any(c.isspace() for c in name):
            sys.exit("protofile.py: cannot describe a name with spaces: %r" % full)
        ind = " " * depth
        if stat.S_ISDIR(st.st_mode):
            out.append("%s%s %s %d %d" % (ind, name, mode_field(st, "d"), st.st_uid, st.st_gid))
            walk(full, depth + 1, out)
            out.append("%s$" % ind)
        elif stat.S_ISREG(st.st_mode):
            out.append("%s%s %s %d %d %s" % (ind, name, mode_field(st, "-"), st.st_uid, st.st_gid,
                                             os.path.abspath(full)))
        elif stat.S_ISLNK(st.st_mode):
            out.append("%s%s %s %d %d %s" % (ind, name, mode_field(st, "l"), st.st_uid, st.st_gid,
                                             os.readlink(full)))
        elif stat.S_ISFIFO(st.st_mode):
            out.append("%s%s %s %d %d" % (ind, name, mode_field(st, "p"), st.st_uid, st.st_gid))
        else:
            sys.exit("protofile.py: unsupported file type: %s" % full)


def main():
    root = sys.argv[1]
    st = os.stat(root)
    out = ["stalefs-bench", "0 0", "%s %d %d" % (mode_field(st, "d"), st.st_uid, st.st_gid)]
    walk(root, 1, out)
    out.append("$")
    print("\n".join(out))


if __name__ == "__main__":
    main()
