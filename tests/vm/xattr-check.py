#!/usr/bin/python3
"""The xattr system calls' edge cases on one directory, as ext4 answers them.

    xattr-check.py DIR

Creates files under DIR and checks flags (XATTR_CREATE, XATTR_REPLACE),
ERANGE for short buffers and long names, ENODATA, E2BIG and ENOSPC, empty
values, many attributes.  Prints one line per check; exits 1 at the first
answer that differs, saying what was expected.
"""
import ctypes
import errno
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.getxattr.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
libc.getxattr.restype = ctypes.c_ssize_t
libc.listxattr.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
libc.listxattr.restype = ctypes.c_ssize_t


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def expect_errno(want, fn, *args):
    try:
        fn(*args)
    except OSError as e:
        if e.errno != want:
            fail("%s%r: expected %s, got %s" % (fn.__name__, args[1:], errno.errorcode[want],
                                               errno.errorcode.get(e.errno, e.errno)))
        print("ok: %s%r -> %s" % (fn.__name__, args[1:2], errno.errorcode[want]))
        return
    fail("%s%r: expected %s, it succeeded" % (fn.__name__, args[1:], errno.errorcode[want]))


def expect_eq(want, got, what):
    if want != got:
        fail("%s: expected %r, got %r" % (what, want, got))
    print("ok: " + what)


def raw_get(path, name, size):
    buf = ctypes.create_string_buffer(max(size, 1))
    n = libc.getxattr(path.encode(), name.encode(), buf if size else None, size)
    return n, ctypes.get_errno()


def raw_list(path, size):
    buf = ctypes.create_string_buffer(max(size, 1))
    n = libc.listxattr(path.encode(), buf if size else None, size)
    return n, ctypes.get_errno()


def main():
    d = sys.argv[1]
    f = os.path.join(d, "flags")
    open(f, "w").close()

    # CREATE and REPLACE
    expect_errno(errno.ENODATA, os.setxattr, f, "user.a", b"1", os.XATTR_REPLACE)
    os.setxattr(f, "user.a", b"1", os.XATTR_CREATE)
    expect_errno(errno.EEXIST, os.setxattr, f, "user.a", b"2", os.XATTR_CREATE)
    os.setxattr(f, "user.a", b"22", os.XATTR_REPLACE)
    expect_eq(b"22", os.getxattr(f, "user.a"), "replace took the new value")
    expect_errno(errno.ENODATA, os.getxattr, f, "user.none")
    expect_errno(errno.ENODATA, os.removexattr, f, "user.none")

    # empty values are values
    os.setxattr(f, "user.empty", b"")
    expect_eq(b"", os.getxattr(f, "user.empty"), "empty value")
    expect_eq(0, raw_get(f, "user.empty", 0)[0], "empty value's size")

    # ERANGE: short buffers; the size query itself
    os.setxattr(f, "user.ten", b"0123456789")
    expect_eq((10, 0), (raw_get(f, "user.ten", 0)[0], 0), "getxattr size query")
    n, e = raw_get(f, "user.ten", 9)
    expect_eq((-1, errno.ERANGE), (n, e), "getxattr with a 9-byte buffer: ERANGE")
    total, _ = raw_list(f, 0)
    names = sorted(os.listxattr(f))
    expect_eq(sorted(["user.a", "user.empty", "user.ten"]), names, "listxattr names")
    expect_eq(sum(len(x) + 1 for x in names), total, "listxattr size query")
    n, e = raw_list(f, total - 1)
    expect_eq((-1, errno.ERANGE), (n, e), "listxattr with a short buffer: ERANGE")

    # names: 255 bytes of suffix at most (the VFS counts the prefix: 250 here)
    long_ok = "user." + "n" * 250
    os.setxattr(f, long_ok, b"v")
    expect_eq(b"v", os.getxattr(f, long_ok), "250-byte suffix")
    expect_errno(errno.ERANGE, os.setxattr, f, "user." + "n" * 251, b"v")
    expect_errno(errno.EOPNOTSUPP, os.setxattr, f, "bogus.name", b"v")
    os.removexattr(f, long_ok)

    # sizes: more than XATTR_SIZE_MAX is E2BIG (VFS), more than a block ENOSPC
    g = os.path.join(d, "sizes")
    open(g, "w").close()
    expect_errno(errno.E2BIG, os.setxattr, g, "user.huge", b"x" * 65537)
    expect_errno(errno.ENOSPC, os.setxattr, g, "user.big", b"x" * 65536)
    bs = os.statvfs(d).f_bsize
    expect_errno(errno.ENOSPC, os.setxattr, g, "user.big", b"x" * bs)
    expect_eq([], os.listxattr(g), "a failed set leaves nothing")

    # fill: values until ENOSPC; all read back; a replace by a larger value
    # that does not fit keeps the old one
    i = 0
    while True:
        try:
            os.setxattr(g, "user.fill%03d" % i, bytes([i % 251]) * 100)
        except OSError as e:
            if e.errno != errno.ENOSPC:
                fail("filling: expected ENOSPC, got %s" % errno.errorcode[e.errno])
            break
        i += 1
        if i > 1000:
            fail("filling: 1000 values of 100 bytes fit in one inode")
    print("ok: %d values of 100 bytes before ENOSPC" % i)
    if i < 8:
        fail("only %d values fit" % i)
    for k in range(i):
        expect_eq(bytes([k % 251]) * 100, os.getxattr(g, "user.fill%03d" % k), None or "fill%03d" % k)
    expect_errno(errno.ENOSPC, os.setxattr, g, "user.fill000", b"y" * 1000)
    expect_eq(bytes([0]) * 100, os.getxattr(g, "user.fill000"), "failed replace kept the old value")
    for k in range(i):
        os.removexattr(g, "user.fill%03d" % k)
    expect_eq([], os.listxattr(g), "all removed")

    # trusted and security: root sees them listed
    t = os.path.join(d, "ns")
    open(t, "w").close()
    os.setxattr(t, "trusted.t", b"T")
    os.setxattr(t, "security.s", b"S")
    expect_eq(["security.s", "trusted.t"], sorted(os.listxattr(t)), "trusted and security listed")
    # directories and symlinks hold attributes too (user. only on files and dirs)
    sd = os.path.join(d, "sub")
    os.mkdir(sd)
    os.setxattr(sd, "user.dir", b"D")
    expect_eq(b"D", os.getxattr(sd, "user.dir"), "directory attribute")
    ln = os.path.join(d, "link")
    os.symlink("flags", ln)
    os.setxattr(ln, "trusted.l", b"L", follow_symlinks=False)
    expect_eq(b"L", os.getxattr(ln, "trusted.l", follow_symlinks=False), "symlink attribute")
    expect_errno(errno.EPERM, lambda p, n, v: os.setxattr(p, n, v, follow_symlinks=False),
                 ln, "user.l", b"x")
    print("xattr-check: all passed")


main()
