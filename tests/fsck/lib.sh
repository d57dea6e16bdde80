# Helpers for the corpus scripts (sourced by tests/fsck/run with MKFS, DEBUGFS,
# IMAGE and WORK set).  Every image starts from mkfs with a fixed UUID so that
# checksums printed in expectations do not change from run to run.
UUID=8a1c7f4e-5b2d-4e6f-9a3b-0c1d2e3f4a5b

# mkimg [size] [mkfs options...]: a fresh filesystem in $IMAGE.
mkimg() {
	local size=${1:-8M}
	shift || true
	rm -f "$IMAGE"
	"$MKFS" -q -F -U "$UUID" "$@" "$IMAGE" "$size" >/dev/null
}

# dfs "request" ...: run debugfs requests read-write, failing loudly.
dfs() {
	local req
	for req in "$@"; do
		"$DEBUGFS" -w -R "$req" "$IMAGE" >"$WORK/debugfs.out" 2>&1 || {
			echo "debugfs request failed: $req" >&2
			cat "$WORK/debugfs.out" >&2
			exit 1
		}
	done
}

# dfs_out "request": print what a read-only request says.
dfs_out() {
	"$DEBUGFS" -R "$1" "$IMAGE" 2>/dev/null
}

# A native file of n blocks of 4096 filled with a byte pattern.
native() {
	local name=$1 kib=$2
	head -c $((kib * 1024)) /dev/zero | tr '\0' 'x' >"$WORK/$name"
	echo "$WORK/$name"
}

# mkfile path kib: write a file of that size into the image.
mkfile() {
	dfs "write $(native "f$RANDOM" "$2") $1"
}

# ino path: inode number of a path.
ino() {
	dfs_out "stat $1" | sed -n 's/^Inode: *\([0-9]*\).*/\1/p' | head -1
}

# blk path lblk: physical block of a file's logical block.
blk() {
	dfs_out "bmap $1 $2" | tr -dc '0-9\n' | head -1
}
