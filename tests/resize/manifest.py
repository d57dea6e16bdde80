#!/usr/bin/env python3
"""What a filesystem holds, independent of where: every name with its type, mode, owner,
size, link count, flags and extended attributes, and a hash of each regular file's and
symlink's content, one line per name, sorted.  Inode and block numbers are left out: a
shrink renumbers inodes and moves blocks, and must change nothing else.

    manifest.py DEBUGFS IMAGE > manifest
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

debugfs, image = sys.argv[1], sys.argv[2]


def run(requests, js=True):
    """Run requests in one debugfs session; the outputs, one per request, in order."""
    args = [debugfs] + (['-j'] if js else []) + ['-f', '-', image]
    out = subprocess.run(args, input=''.join(r + '\n' for r in requests), capture_output=True,
                         text=True, errors="replace", check=False).stdout
    chunks, cur = [], None
    for line in out.splitlines():
        if line.startswith('debugfs: '):
            if cur is not None:
                chunks.append(cur)
            cur = []
        elif cur is not None:
            cur.append(line)
    if cur is not None:
        chunks.append(cur)
    assert len(chunks) == len(requests), (len(chunks), len(requests))
    return chunks


entries = []          # (path, entry dict)
dirs = ['/']
while dirs:
    listed = run(['ls -l "%s"' % d for d in dirs])
    nxt = []
    for d, lines in zip(dirs, listed):
        doc = json.loads(''.join(lines))
        for e in doc['entries']:
            if e['name'] in ('.', '..') or not e['ino']:
                continue
            path = os.path.join(d, e['name'])
            entries.append((path, e))
            if e['file_type'] == 2:
                nxt.append(path)
    dirs = nxt

xattrs = run(['ea_list "%s"' % p for p, _ in entries], js=False)
lines = []
with tempfile.TemporaryDirectory() as tmp:
    # By inode number: dump does not follow a symlink named so.  A symlink held in the inode
    # is not dumped: its target comes from stat.
    dumps = []
    for i, (p, e) in enumerate(entries):
        if e['file_type'] in (1, 7):
            dumps.append((p, e['ino'], os.path.join(tmp, str(i))))
    run(['dump <%d> "%s"' % (ino, f) for p, ino, f in dumps], js=False)
    links = [(p, ino) for p, ino, f in dumps if not os.path.exists(f)]
    stats = run(['stat <%d>' % ino for p, ino in links], js=False)
    content = {}
    for p, ino, f in dumps:
        if os.path.exists(f):
            content[p] = hashlib.sha256(open(f, 'rb').read()).hexdigest()[:16]
    for (p, ino), st in zip(links, stats):
        dest = [l for l in st if l.startswith('Fast link dest:')]
        content[p] = dest[0].split(':', 1)[1].strip() if dest else 'unreadable'
    # Big attribute values show only their size in ea_list: hash each value too.
    for (p, e), xl in zip(entries, xattrs):
        names = [l.split()[0] for l in xl if l.startswith('  ')]
        vals = []
        if names:
            outs = []
            for n in names:
                outs.append(os.path.join(tmp, 'x%d' % len(outs)))
            run(['ea_get -f "%s" "%s" %s' % (o, p, n) for o, n in zip(outs, names)], js=False)
            for n, o in zip(names, outs):
                vals.append('%s=%s' % (n, hashlib.sha256(open(o, 'rb').read()).hexdigest()[:12]))
        lines.append('%s type=%d mode=%o uid=%d gid=%d size=%d links=%d flags=%x data=%s xattrs=%s' % (
            p, e['file_type'], e['mode'], e['uid'], e['gid'], e['size'], e['links_count'],
            e['flags'], content.get(p, '-'), ','.join(vals) or '-'))
for l in sorted(lines):
    print(l)
