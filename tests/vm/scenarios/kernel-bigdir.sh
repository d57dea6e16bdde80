#!/bin/bash
# Large directories and their in-memory index (kernel/dir_index.c): a
# directory of thousands of entries is filled, looked up, thinned, refilled
# (new names must reuse the freed room, as the linear walk would) and
# renamed within and across directories, with every lookup and the listing
# checked against a model of what the directory holds: a name the index
# forgot reads as absent, one it kept too long as present.  The index is
# rebuilt from the blocks after drop_caches and after a remount, and the
# directory must not have grown past what the entries need.
# needs: stalefs
# disk: scratch:256M
. "$STALEFS_ROOT/tests/vm/lib.sh"
dev=$VM_DISK_SCRATCH
mnt=/mnt/b
"$MKFS_STALEFS" -q -F -b 1024 "$dev"
mkdir -p $mnt
mount -t stalefs "$dev" $mnt
mkdir $mnt/big $mnt/other

# One Python process per phase: thousands of calls, checked against a model.
phase() {
	python3 - "$1" "$mnt" <<'PY'
import errno, os, random, sys
phase, mnt = sys.argv[1], sys.argv[2]
big, other = os.path.join(mnt, "big"), os.path.join(mnt, "other")
model_path = "/run/bigdir-model"
model = set(open(model_path).read().split()) if os.path.exists(model_path) else set()
rng = random.Random(phase)

def check_all(candidates):
    for n in candidates:
        try:
            os.stat(os.path.join(big, n))
            present = True
        except FileNotFoundError:
            present = False
        assert present == (n in model), "%s: lookup says %s, model says %s" % (n, present, n in model)
    listed = set(os.listdir(big))
    assert listed == model, "listing: %d extra, %d missing" % (len(listed - model), len(model - listed))

names = ["entry-%05d-%s" % (i, "x" * (i % 40)) for i in range(6000)]
if phase == "fill":
    for n in names[:4000]:
        open(os.path.join(big, n), "w").close()
        model.add(n)
    check_all(names)
elif phase == "thin":
    for n in rng.sample(sorted(model), 2500):
        os.unlink(os.path.join(big, n))
        model.discard(n)
    for n in rng.sample(sorted(model), 50):
        try:
            os.mkdir(os.path.join(big, n))
            raise AssertionError("mkdir over an existing name succeeded: " + n)
        except FileExistsError:
            pass
    check_all(names)
elif phase == "refill":
    for n in names[4000:]:
        open(os.path.join(big, n), "w").close()
        model.add(n)
    check_all(names)
elif phase == "rename":
    moved = rng.sample(sorted(model), 300)
    for i, n in enumerate(moved):
        if i % 2:
            os.rename(os.path.join(big, n), os.path.join(other, n))
            model.discard(n)
        else:
            new = "renamed-" + n
            os.rename(os.path.join(big, n), os.path.join(big, new))
            model.discard(n)
            model.add(new)
            names.append(new)
    # Over an existing name: the target's entry takes the new inode.
    a, b = sorted(model)[:2]
    os.rename(os.path.join(big, a), os.path.join(big, b))
    model.discard(a)
    check_all(names + ["renamed-" + n for n in moved])
elif phase == "verify":
    check_all(names + [n for n in os.listdir(big) if n.startswith("renamed-")])
open(model_path, "w").write("\n".join(sorted(model)))
print("%s: %d entries" % (phase, len(model)))
PY
}

note "fill 4,000 entries, thin to 1,500, refill 2,000 more"
rm -f /run/bigdir-model
phase fill
size_full=$(stat -c %s $mnt/big)
phase thin
phase refill
size_refilled=$(stat -c %s $mnt/big)
# The 2,000 new names fit into the room 2,500 deletions left: the directory
# may not grow by more than a few blocks.
echo "directory size: $size_full bytes full, $size_refilled after thin + refill"
((size_refilled <= size_full + 4 * 1024)) ||
	fail "refilled directory grew from $size_full to $size_refilled bytes: freed room not reused"

note "renames within and across directories"
phase rename

note "index rebuilt from the blocks: after drop_caches, after a remount"
drop_caches
phase verify
umount $mnt
fsck_clean "$dev"
mount -t stalefs "$dev" $mnt
phase verify
phase thin
umount $mnt
fsck_clean "$dev"
note "kernel-bigdir passed"
