#!/bin/bash
# stalefs.ko namespace: create, mkdir, unlink, rmdir, rename (plain,
# NOREPLACE, EXCHANGE, WHITEOUT, over files and dirs, across dirs), link, symlinks
# (inline and block), mknod, setattr, nanosecond times, big directories,
# readdir stability; checked after drop_caches and after a remount.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/s
"$MKFS_STALEFS" -q -F "$dev"
mkdir -p $mnt
mount -t stalefs "$dev" $mnt
cd $mnt

note "files and directories"
echo a >a
mkdir d1 d1/sub
echo b >d1/b
assert_eq 3 "$(stat -c %h d1)" "d1 links"
assert_errno EEXIST mkdir d1
assert_errno ENOTEMPTY rmdir d1
assert_errno ENOENT rm nonexistent
assert_errno ENAMETOOLONG touch "$(printf 'x%.0s' {1..256})"
touch "$(printf 'y%.0s' {1..255})"

note "link and unlink"
ln a a2
assert_eq 2 "$(stat -c %h a)"
rm a
assert_eq a "$(cat a2)"
assert_eq 1 "$(stat -c %h a2)"

note "symlinks: inline and in a block"
short=$(printf 's%.0s' {1..119})
long=$(printf 'L%.0s' {1..120})/$(printf 'm%.0s' {1..2000})
ln -s "$short" sl_short
ln -s "$long" sl_long
ln -s a2 sl_a2
assert_eq "$short" "$(readlink sl_short)"
assert_eq "$long" "$(readlink sl_long)"
assert_eq a "$(cat sl_a2)"
assert_eq 0 "$(stat -c %b sl_short)" "inline symlink blocks"

note "mknod: fifo, char, block, socket"
mkfifo fifo
mknod cdev c 1 3
mknod bdev b 7 0
python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.bind("sock")'
assert_eq "fifo" "$(stat -c %F fifo)"
assert_eq "character special file 1:3" "$(stat -c '%F %t:%T' cdev)"
assert_eq "block special file 7:0" "$(stat -c '%F %t:%T' bdev)"
assert_eq "socket" "$(stat -c %F sock)"

note "setattr: chmod, chown, utimes with nanoseconds, truncate"
chmod 640 a2
chown 1234:5678 a2
touch -d '2001-02-03 04:05:06.123456789' a2
assert_eq "640 1234 5678" "$(stat -c '%a %u %g' a2)"
assert_eq "2001-02-03 04:05:06.123456789" "$(stat -c %y a2 | cut -c1-29)"
printf 'hello world' >t
truncate -s 5 t
assert_eq hello "$(cat t)"
truncate -s 10000 t
assert_eq 10000 "$(stat -c %s t)"
assert_eq "hello" "$(head -c 5 t)"
assert_eq 0 "$(tail -c +6 t | tr -d '\0' | wc -c)" "extended part is zeros"

note "chattr/lsattr: immutable, append-only, nodump, noatime"
echo attr >attrf
chattr +i attrf
assert_errno EPERM sh -c "echo more >>attrf"
assert_errno EPERM rm attrf
chattr -i +a attrf
echo more >>attrf
assert_errno EPERM sh -c "echo over >attrf"
chattr -a +d +A attrf
assert_eq "dA" "$(lsattr -d attrf | awk '{print $1}' | tr -d '-')"

note "rename"
mv a2 d1/moved
assert_errno ENOENT stat a2
mkdir d2
mv d1/sub d2/sub
assert_eq 2 "$(stat -c %h d1)" "d1 lost a subdir"
assert_eq 3 "$(stat -c %h d2)" "d2 gained a subdir"
assert_eq "$mnt/d2" "$(cd d2/sub/.. && pwd -P)"
echo x >x; echo y >y
python3 - <<'PY'
import ctypes, os, errno
libc = ctypes.CDLL(None, use_errno=True)
AT = -100
def rn(a, b, flags):
    r = libc.renameat2(AT, a.encode(), AT, b.encode(), flags)
    return 0 if r == 0 else ctypes.get_errno()
assert rn("x", "y", 1) == errno.EEXIST, "NOREPLACE"
assert rn("x", "y", 2) == 0, "EXCHANGE"
assert open("x").read() == "y\n" and open("y").read() == "x\n"
assert rn("d1", "y", 2) == 0, "EXCHANGE dir and file"
assert os.path.isdir("y") and open("d1").read() == "x\n"
assert rn("y", "d1", 2) == 0
# RENAME_WHITEOUT (overlayfs): the old name becomes a char 0:0 whiteout
open("w1", "w").write("w\n")
assert rn("w1", "w2", 4) == 0, "WHITEOUT"
st = os.lstat("w1")
assert os.path.exists("w2") and open("w2").read() == "w\n"
import stat as S
assert S.S_ISCHR(st.st_mode) and st.st_rdev == 0 and st.st_nlink == 1, "whiteout is char 0:0"
open("w3", "w").write("3\n")
assert rn("w3", "w2", 4 | 1) == errno.EEXIST, "WHITEOUT|NOREPLACE over a name"
assert rn("w3", "w2", 4) == 0, "WHITEOUT over a name"
assert S.S_ISCHR(os.lstat("w3").st_mode) and open("w2").read() == "3\n"
os.mkdir("wd"); os.mkdir("wd/in")
assert rn("wd/in", "wdin", 4) == 0, "WHITEOUT of a directory"
assert S.S_ISCHR(os.lstat("wd/in").st_mode) and os.path.isdir("wdin")
assert os.stat("wd").st_nlink == 2, "wd lost its subdir link"
assert rn("x", "y", 4 | 2) == errno.EINVAL, "WHITEOUT with EXCHANGE"
for n in ("w1", "w2", "w3", "wd/in"):
    os.unlink(n)
os.rmdir("wd"); os.rmdir("wdin")
os.mkdir("e1"); os.mkdir("e2"); os.mkdir("e2/inner")
assert rn("e1", "e2/inner", 2) == 0, "EXCHANGE dirs across parents"
print("renameat2 ok")
PY
assert_eq "$mnt/e2" "$(cd e2/inner/.. && pwd -P)"
mkdir over; mv d2/sub over
rmdir over/sub 2>/dev/null || true
mkdir tgt; mkdir src2; mv -T src2 tgt
assert_errno ENOENT stat src2
mkdir full; touch full/f; mkdir src3
assert_errno ENOTEMPTY mv -T src3 full

note "O_TMPFILE, then linkat gives it a name; an unlinked open file"
python3 - <<'PY'
import os
fd = os.open("/mnt/s", os.O_TMPFILE | os.O_RDWR, 0o600)
os.write(fd, b"anonymous")
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, AT_EMPTY_PATH = -100, 0x1000
assert libc.linkat(fd, b"", AT_FDCWD, b"/mnt/s/named", AT_EMPTY_PATH) == 0, os.strerror(ctypes.get_errno())
os.close(fd)
assert open("/mnt/s/named").read() == "anonymous"
fd = os.open("/mnt/s/gone", os.O_CREAT | os.O_RDWR)
os.unlink("/mnt/s/gone")
os.write(fd, b"x" * 100000)
os.lseek(fd, 0, 0)
assert os.read(fd, 100000) == b"x" * 100000
os.close(fd)
print("tmpfile and open-unlinked ok")
PY
assert_eq anonymous "$(cat named)"

note "big directory: many entries, deletes, readdir"
mkdir big
for i in $(seq 1 600); do : >big/file_with_a_longish_name_$i; done
assert_eq 600 "$(ls big | wc -l)"
for i in $(seq 1 600 | awk 'NR%3==0'); do rm big/file_with_a_longish_name_$i; done
assert_eq 400 "$(ls big | wc -l)"
python3 - <<'PY'
import os
# readdir while entries come and go: every entry present throughout is seen once.
d = "/mnt/s/big"
seen = []
it = os.scandir(d)
for n, e in enumerate(it):
    seen.append(e.name)
    if n == 50:
        for i in range(1000, 1100):
            open(os.path.join(d, "new%d" % i), "w").close()
        for i in range(1, 30):
            p = os.path.join(d, "file_with_a_longish_name_%d" % (i * 3 + 1))
            if os.path.exists(p) and ("file_with_a_longish_name_%d" % (i * 3 + 1)) not in seen:
                pass
stable = {"file_with_a_longish_name_%d" % i for i in range(1, 601) if i % 3 != 0}
assert len(seen) == len(set(seen)), "duplicate in readdir"
assert stable <= set(seen), "stable entries missing"
print("readdir stable ok", len(seen))
PY
ls -la >$VM_SCRATCH/before.txt
ls -laR big d1 d2 e2 >>$VM_SCRATCH/before.txt

note "after drop_caches"
cd /
drop_caches
cd $mnt
ls -la >$VM_SCRATCH/after.txt
ls -laR big d1 d2 e2 >>$VM_SCRATCH/after.txt
diff $VM_SCRATCH/before.txt $VM_SCRATCH/after.txt
assert_eq "$long" "$(readlink sl_long)"

note "after remount"
cd /
umount $mnt
mount -t stalefs "$dev" $mnt
cd $mnt
ls -la >$VM_SCRATCH/after2.txt
ls -laR big d1 d2 e2 >>$VM_SCRATCH/after2.txt
diff $VM_SCRATCH/before.txt $VM_SCRATCH/after2.txt
assert_eq "$short" "$(readlink sl_short)"
assert_eq "$long" "$(readlink sl_long)"
assert_eq "2001-02-03 04:05:06.123456789" "$(stat -c %y d1/moved | cut -c1-29)"
assert_eq "character special file 1:3" "$(stat -c '%F %t:%T' cdev)"
assert_eq "dA" "$(lsattr -d attrf | awk '{print $1}' | tr -d '-')"

note "remove everything"
rm -rf big d1 d2 e1 e2 tgt full src3 over
find . -mindepth 1 -maxdepth 1 ! -name lost+found -exec rm -rf {} +
ls -la
df -k $mnt
cd /
umount $mnt
fsck_clean "$dev"
echo "kernel-namespace passed"
