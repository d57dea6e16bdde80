// SPDX-License-Identifier: GPL-2.0
/*
 * stress-workload: the recorded run of the stress-replay test
 * (tests/vm/scenarios/robust-stress-replay.sh): several processes at once
 * running a seeded random mix of every namespace and data operation over
 * hundreds of directories, so that allocation reaches many groups, each
 * making promises the checker (promises.h) holds the disk to at every cut.
 *
 *   stress-workload MNT STATE DMNAME WORKERS OPS SEED [STALE_GID]
 *
 * MNT is the file system on the dm-log-writes device DMNAME.  The parent
 * makes DIRS shared directories (d000...), then WORKERS processes each run
 * OPS operations on files they alone own (names w<K>...; a shared
 * directory holds everybody's), so each knows what its files hold.
 * Promises go to STATE/events (powercut-check's format, promises.h), the
 * copies of what files read when their fsync returned to STATE/exp/.  A
 * mark "eN" is sent with each promise and before each change to a path
 * with one; marks are numbered under a lock, so their numbers follow the
 * log's order.  The last one is printed as "last-event N".  STATE/trace
 * gets a line for every call, with its time (trace()).
 *
 * The operations: create, buffered / O_DIRECT / mmap writes, appends,
 * truncate, fallocate (allocate, keep-size, punch, zero range), fsync and
 * fdatasync of the file and its directories, syncfs, unlink, rename
 * (plain, NOREPLACE, EXCHANGE, WHITEOUT) within and across directories,
 * hard links, symlinks (inline and block), private subdirectories (made,
 * renamed, removed), user.* attributes set and removed, O_TMPFILE files
 * linked in or left to be freed, and, with STALE_GID (stalefs mounted with
 * nohide_stale_gid=STALE_GID), writes into a NO_HIDE_STALE file confined
 * to that group.  Any call that fails unexpectedly ends the run (exit 1)
 * naming the worker, the call and the path.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include "stalefs_ioctl.h"
#include "data-record.h"
#include "workload-io.h"

#define KiB 1024ULL
#define MAX_IO (256 * KiB)
#define MAX_FILE (512 * KiB)	/* writes stay below: the device is small */
#define DIRS 200
#define MAX_NAMES 4096
#define MAX_INODES 4096
#define NAME_LEN 96

enum kind { K_FREE, K_REG, K_DIR, K_SYMLINK, K_WHITEOUT };

/* A name one worker owns, relative to the mount. */
struct name {
	char path[NAME_LEN];
	enum kind kind;
	int inode;		/* K_REG: index in inodes[] */
	bool promised;		/* a promise holds for this path (content, attributes, link target) */
	int children;		/* K_DIR: names of ours inside */
};

/* A regular file: its data id and its names (hard links). */
struct inode {
	uint32_t id;
	int names[4];
	int nnames;
	bool stale;		/* the NO_HIDE_STALE file: never unlinked */
	int nattrs;
};

struct shared {
	long ev;		/* the last mark sent, under the lock */
};

static struct name names[MAX_NAMES];
static int nnames;
static struct inode inodes[MAX_INODES];
static int ninodes;

static int mnt = -1, dm_control = -1, lock_fd = -1, events_fd = -1, trace_fd = -1;
static const char *mnt_path, *state, *dm_name;
static struct shared *sh;
static int worker;
static uint64_t rng;
static uint32_t next_id;
static uint16_t next_tag = 1;
static unsigned seq;		/* fresh names and copies */
static long stale_gid = -1;
static unsigned char *buf;	/* MAX_IO bytes, aligned for O_DIRECT */

static void die(const char *fmt, ...)
{
	char who[64];
	va_list ap;

	snprintf(who, sizeof(who), "stress-workload: worker %d", worker);
	va_start(ap, fmt);
	workload_vdie(who, fmt, ap);
}

static uint64_t rnd(void)
{
	return xorshift64(&rng);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* ---- marks and events ---- */

static void send_mark(long n)
{
	char name[32];

	snprintf(name, sizeof(name), "e%ld", n);
	if (dmlog_mark(dm_control, dm_name, name))
		die("mark %s on %s", name, dm_name);
}

/* A new mark, numbered in the log's order: the number and the send happen under one lock. */
static long mark(void)
{
	long n;

	if (flock(lock_fd, LOCK_EX) < 0)
		die("lock %s/lock", state);
	n = ++sh->ev;
	send_mark(n);
	if (flock(lock_fd, LOCK_UN) < 0)
		die("unlock %s/lock", state);
	return n;
}

/* One line, one write: O_APPEND keeps the workers' lines whole. */
static void event(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) || write(events_fd, line, (size_t)n) != n)
		die("write %s/events", state);
}

/*
 * What each worker did, one line a call ("SECONDS.NS wK what"), into
 * STATE/trace: when a cut fails, the log says which blocks and the trace
 * says which calls made them.
 */
static void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace(const char *fmt, ...)
{
	char line[512];
	struct timespec t;
	va_list ap;
	int n;

	clock_gettime(CLOCK_REALTIME, &t);
	n = snprintf(line, sizeof(line), "%lld.%09ld w%d ", (long long)t.tv_sec, t.tv_nsec, worker);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(trace_fd, line, (size_t)n) != n)
		die("write %s/trace", state);
}

/* ---- the name table ---- */

static int new_name(const char *path, enum kind kind)
{
	int i;

	for (i = 0; i < nnames && names[i].kind != K_FREE; i++)
		;
	if (i == MAX_NAMES) {
		errno = ENOSPC;
		die("name table full");
	}
	if (i == nnames)
		nnames++;
	memset(&names[i], 0, sizeof(names[i]));
	snprintf(names[i].path, NAME_LEN, "%s", path);
	names[i].kind = kind;
	names[i].inode = -1;
	return i;
}

/* The directory a path lies in ("" for the root). */
static void parent_of(const char *path, char *out)
{
	const char *s = strrchr(path, '/');

	if (!s) {
		out[0] = 0;
		return;
	}
	memcpy(out, path, (size_t)(s - path));
	out[s - path] = 0;
}

/* Our name of a private subdirectory, or -1 (a shared directory or the root). */
static int own_dir(const char *dir)
{
	for (int i = 0; i < nnames; i++)
		if (names[i].kind == K_DIR && !strcmp(names[i].path, dir))
			return i;
	return -1;
}

static void drop_name(int i)
{
	char dir[NAME_LEN];
	int d;

	parent_of(names[i].path, dir);
	d = own_dir(dir);
	if (d >= 0)
		names[d].children--;
	if (names[i].kind == K_REG) {
		struct inode *in = &inodes[names[i].inode];
		for (int k = 0; k < in->nnames; k++)
			if (in->names[k] == i)
				in->names[k] = in->names[--in->nnames];
	}
	names[i].kind = K_FREE;
}

static void add_child(const char *path)
{
	char dir[NAME_LEN];
	int d;

	parent_of(path, dir);
	d = own_dir(dir);
	if (d >= 0)
		names[d].children++;
}

/* Before anything changes path i: its promise ends, with a mark. */
static void touch(int i)
{
	if (!names[i].promised)
		return;
	event("%ld touch %s\n", mark(), names[i].path);
	names[i].promised = false;
}

static void touch_inode(int ino)
{
	for (int k = 0; k < inodes[ino].nnames; k++)
		touch(inodes[ino].names[k]);
}

/* touch() every name of ours at or under path. */
static void touch_tree(const char *path)
{
	size_t n = strlen(path);

	for (int i = 0; i < nnames; i++)
		if (names[i].kind != K_FREE && !strncmp(names[i].path, path, n) &&
		    (names[i].path[n] == 0 || names[i].path[n] == '/'))
			touch(i);
}

/* A random live name of a kind, or -1. */
static int pick(enum kind kind)
{
	int n = 0, want;

	for (int i = 0; i < nnames; i++)
		n += names[i].kind == kind;
	if (!n)
		return -1;
	want = (int)below((uint64_t)n);
	for (int i = 0; i < nnames; i++)
		if (names[i].kind == kind && want-- == 0)
			return i;
	return -1;
}

/* Where a new name goes: a shared directory, or now and then a private one. */
static void new_path(char *out, const char *what)
{
	int d = below(4) == 0 ? pick(K_DIR) : -1;

	seq++;
	if (d >= 0)
		snprintf(out, NAME_LEN, "%s/w%d%s%u", names[d].path, worker, what, seq);
	else
		snprintf(out, NAME_LEN, "d%03u/w%d%s%u", (unsigned)below(DIRS), worker, what, seq);
}

/* ---- durability ---- */

static void xclose(int fd, const char *path)
{
	if (close(fd) < 0)
		die("close %s", path);
}

static void sync_path(const char *path, bool datasync)
{
	int fd = openat(mnt, *path ? path : ".", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		die("open %s to fsync it", path);
	trace("%s %s", datasync ? "fdatasync" : "fsync", *path ? path : ".");
	if ((datasync ? fdatasync(fd) : fsync(fd)) < 0)
		die("%s %s", datasync ? "fdatasync" : "fsync", path);
	trace("%s %s done", datasync ? "fdatasync" : "fsync", *path ? path : ".");
	xclose(fd, path);
}

/* fsync every directory from path's up to the root: its name survives a crash. */
static void sync_dirs(const char *path)
{
	char dir[NAME_LEN];

	parent_of(path, dir);
	for (;;) {
		sync_path(dir, false);
		if (!*dir)
			break;
		parent_of(dir, dir);
	}
}

static void copy_out(const char *path, const char *copy)
{
	if (copy_file_out(mnt, path, copy, buf, MAX_IO))
		die("save %s as %s", path, copy);
}

/* The user.* attributes of path as promises.h lists them, into copy. */
static void xattrs_out(const char *path, const char *copy)
{
	int fd = openat(mnt, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *text;
	FILE *f;

	if (fd < 0)
		die("open %s to list its attributes", path);
	text = user_xattrs_text(fd);
	if (!text)
		die("list the attributes of %s", path);
	f = fopen(copy, "w");
	if (!f || fputs(text, f) == EOF || fclose(f) == EOF)
		die("%s", copy);
	free(text);
	xclose(fd, path);
}

/* Its fsync (and its directories') returned: promise what every name of the inode reads now. */
static void promise_inode(int ino, long n)
{
	for (int k = 0; k < inodes[ino].nnames; k++) {
		int i = inodes[ino].names[k];
		char copy[512];

		snprintf(copy, sizeof(copy), "%s/exp/%ld.w%d.%u", state, n, worker, ++seq);
		copy_out(names[i].path, copy);
		event("%ld sync %s %s\n", n, names[i].path, copy);
		snprintf(copy, sizeof(copy), "%s/exp/%ld.w%d.%u.x", state, n, worker, ++seq);
		xattrs_out(names[i].path, copy);
		event("%ld xattrs %s %s\n", n, names[i].path, copy);
		names[i].promised = true;
	}
}

/* fsync (or fdatasync) the file, then every directory naming it: then promise it. */
static void make_durable(int ino, bool datasync)
{
	struct inode *in = &inodes[ino];

	if (!in->nnames)
		return;
	sync_path(names[in->names[0]].path, datasync);
	for (int k = 0; k < in->nnames; k++)
		sync_dirs(names[in->names[k]].path);
	promise_inode(ino, mark());
}

/* ---- files ---- */

static int new_inode(uint32_t id)
{
	if (ninodes == MAX_INODES) {
		errno = ENOSPC;
		die("inode table full");
	}
	memset(&inodes[ninodes], 0, sizeof(inodes[0]));
	inodes[ninodes].id = id;
	return ninodes++;
}

static void attach(int ino, int i)
{
	names[i].inode = ino;
	inodes[ino].names[inodes[ino].nnames++] = i;
	add_child(names[i].path);
}

/* Register the inode behind fd as file id (the checker's record check needs it). */
static uint32_t register_fd(int fd, const char *what)
{
	struct stat st;
	uint32_t id = next_id++;

	if (fstat(fd, &st) < 0)
		die("stat %s", what);
	event("0 file-id %" PRIu32 " %llu\n", id, (unsigned long long)st.st_ino);
	return id;
}

static uint64_t file_size(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		die("stat %s", path);
	return (uint64_t)st.st_size;
}

static int open_name(int i, int flags)
{
	int fd = openat(mnt, names[i].path, flags | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		die("open %s", names[i].path);
	return fd;
}

/* Fresh records of the file's id over [off, off+len). */
static void fill(int ino, uint64_t off, uint64_t len)
{
	data_fill(buf, (size_t)len, inodes[ino].id, next_tag++, off);
}

static uint64_t rec_align(uint64_t v)
{
	return v / DATA_RECORD * DATA_RECORD;
}

static void op_create(void)
{
	char path[NAME_LEN];
	int fd, i, ino;
	uint64_t len = rec_align(below(64 * KiB) + DATA_RECORD);

	new_path(path, "f");
	fd = openat(mnt, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create %s", path);
	ino = new_inode(register_fd(fd, path));
	trace("create %s id %u write 0+%llu", path, inodes[ino].id, (unsigned long long)len);
	i = new_name(path, K_REG);
	attach(ino, i);
	fill(ino, 0, len);
	if (pwrite(fd, buf, len, 0) != (ssize_t)len)
		die("write %s", path);
	xclose(fd, path);
	if (below(3) == 0)
		make_durable(ino, false);
}

static void op_write(int how)
{
	int i = pick(K_REG), fd, ino;
	uint64_t off, len, size;

	if (i < 0)
		return;
	ino = names[i].inode;
	touch_inode(ino);
	fd = open_name(i, O_RDWR | (how == 1 ? O_DIRECT : 0));
	size = file_size(fd, names[i].path);
	if (how == 1) {		/* O_DIRECT: 4 KiB aligned, whatever the block size */
		off = below(MAX_FILE / (4 * KiB)) * 4 * KiB;
		len = (below(8) + 1) * 4 * KiB;
	} else if (how == 2) {	/* append */
		off = rec_align(size);
		len = rec_align(below(32 * KiB) + DATA_RECORD);
	} else {
		off = rec_align(below(MAX_FILE));
		len = rec_align(below(48 * KiB) + DATA_RECORD);
	}
	if (off + len > MAX_FILE) {
		xclose(fd, names[i].path);
		return;
	}
	fill(ino, off, len);
	trace("%s %s id %u %llu+%llu", how == 1 ? "dio" : how == 2 ? "append" : "write", names[i].path,
	      inodes[ino].id, (unsigned long long)off, (unsigned long long)len);
	if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len)
		die("%s write %s at %" PRIu64 "+%" PRIu64, how == 1 ? "O_DIRECT" : "buffered",
		    names[i].path, off, len);
	xclose(fd, names[i].path);
}

/* A write through a shared mapping, inside the file's size. */
static void op_mmap(void)
{
	int i = pick(K_REG), fd, ino;
	uint64_t size, off, len;
	unsigned char *map;

	if (i < 0)
		return;
	ino = names[i].inode;
	fd = open_name(i, O_RDWR);
	size = rec_align(file_size(fd, names[i].path));
	if (size < 2 * DATA_RECORD) {
		xclose(fd, names[i].path);
		return;
	}
	touch_inode(ino);
	off = rec_align(below(size));
	len = rec_align(below(size - off) + DATA_RECORD);
	if (off + len > size)
		len = size - off;
	if (len > MAX_IO)
		len = MAX_IO;	/* what the buffer holds */
	map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap %s", names[i].path);
	fill(ino, off, len);
	trace("mmap %s id %u %llu+%llu", names[i].path, inodes[ino].id, (unsigned long long)off,
	      (unsigned long long)len);
	memcpy(map + off, buf, (size_t)len);
	if (munmap(map, (size_t)size) < 0)
		die("munmap %s", names[i].path);
	xclose(fd, names[i].path);
}

static void op_truncate(void)
{
	int i = pick(K_REG), fd;

	if (i < 0 || inodes[names[i].inode].stale)
		return;
	touch_inode(names[i].inode);
	fd = open_name(i, O_WRONLY);
	uint64_t size = rec_align(below(MAX_FILE));
	trace("truncate %s id %u %llu", names[i].path, inodes[names[i].inode].id, (unsigned long long)size);
	if (ftruncate(fd, (off_t)size) < 0)
		die("truncate %s", names[i].path);
	xclose(fd, names[i].path);
}

static void op_fallocate(void)
{
	static const int modes[] = { 0, FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				     FALLOC_FL_ZERO_RANGE, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE };
	int i = pick(K_REG), fd, mode = modes[below(5)];
	uint64_t off = below(MAX_FILE / KiB) * KiB, len = (below(64) + 1) * KiB;

	if (i < 0 || off + len > MAX_FILE || inodes[names[i].inode].stale)
		return;
	touch_inode(names[i].inode);
	fd = open_name(i, O_WRONLY);
	trace("fallocate %s id %u mode 0x%x %llu+%llu", names[i].path, inodes[names[i].inode].id, mode,
	      (unsigned long long)off, (unsigned long long)len);
	if (fallocate(fd, mode, (off_t)off, (off_t)len) < 0)
		die("fallocate %s mode 0x%x %" PRIu64 "+%" PRIu64, names[i].path, mode, off, len);
	xclose(fd, names[i].path);
}

static void op_fsync(bool datasync)
{
	int i = pick(K_REG);

	if (i >= 0)
		make_durable(names[i].inode, datasync);
}

static void op_xattr(void)
{
	int i = pick(K_REG), ino, fd;
	char name[32], val[600];
	size_t len;

	if (i < 0)
		return;
	ino = names[i].inode;
	touch_inode(ino);
	fd = open_name(i, O_RDONLY);
	snprintf(name, sizeof(name), "user.w%d.%u", worker, (unsigned)below(6));
	trace("xattr %s id %u %s", names[i].path, inodes[ino].id, name);
	if (inodes[ino].nattrs && below(3) == 0) {
		if (fremovexattr(fd, name) < 0 && errno != ENODATA)
			die("removexattr %s %s", names[i].path, name);
	} else {
		/* Small ones fit an in-inode area, long ones spill to the block. */
		len = below(4) == 0 ? 200 + below(400) : 1 + below(40);
		for (size_t k = 0; k < len; k++)
			val[k] = (char)('a' + (rnd() % 26));
		if (fsetxattr(fd, name, val, len, 0) < 0)
			die("setxattr %s %s (%zu bytes)", names[i].path, name, len);
		inodes[ino].nattrs++;
	}
	xclose(fd, names[i].path);
	if (below(2) == 0)
		make_durable(ino, false);
}

/* The removal of path made durable: its directory fsynced, then the promise. */
static void gone(const char *path)
{
	sync_dirs(path);
	event("%ld gone %s\n", mark(), path);
}

static void op_unlink(void)
{
	int i = pick(below(4) == 0 ? K_WHITEOUT : K_REG);
	char path[NAME_LEN];

	if (i < 0 || (names[i].kind == K_REG && inodes[names[i].inode].stale))
		return;
	touch(i);
	snprintf(path, sizeof(path), "%s", names[i].path);
	trace("unlink %s", path);
	if (unlinkat(mnt, path, 0) < 0)
		die("unlink %s", path);
	drop_name(i);
	gone(path);
}

/* Rename one of our files (flags: 0, RENAME_NOREPLACE, RENAME_WHITEOUT) to a fresh name. */
static void op_rename(unsigned flags)
{
	int i = pick(K_REG), ino;
	char from[NAME_LEN], to[NAME_LEN];

	if (i < 0)
		return;
	ino = names[i].inode;
	new_path(to, "r");
	if (strlen(to) >= NAME_LEN - 1)
		return;
	/* NOREPLACE onto a name that exists must change nothing. */
	if (flags == RENAME_NOREPLACE && below(3) == 0) {
		int j = pick(K_REG);
		if (j >= 0 && j != i) {
			if (renameat2(mnt, names[i].path, mnt, names[j].path, RENAME_NOREPLACE) == 0 ||
			    errno != EEXIST) {
				if (!errno)
					errno = EEXIST;
				die("rename NOREPLACE %s onto %s did not fail with EEXIST", names[i].path,
				    names[j].path);
			}
		}
	}
	touch(i);
	snprintf(from, sizeof(from), "%s", names[i].path);
	trace("rename 0x%x %s %s id %u", flags, from, to, inodes[ino].id);
	if (renameat2(mnt, from, mnt, to, flags) < 0)
		die("rename%s %s to %s", flags == RENAME_WHITEOUT ? " WHITEOUT" : flags ? " NOREPLACE" : "",
		    from, to);
	drop_name(i);
	attach(ino, new_name(to, K_REG));
	if (flags == RENAME_WHITEOUT)
		add_child(names[new_name(from, K_WHITEOUT)].path);
	make_durable(ino, false);
	if (flags != RENAME_WHITEOUT)
		gone(from);
}

static void op_exchange(void)
{
	int a = pick(K_REG), b = pick(K_REG), ia, ib;

	if (a < 0 || b < 0 || a == b || names[a].inode == names[b].inode)
		return;
	ia = names[a].inode;
	ib = names[b].inode;
	touch_inode(ia);
	touch_inode(ib);
	trace("exchange %s id %u %s id %u", names[a].path, inodes[ia].id, names[b].path, inodes[ib].id);
	if (renameat2(mnt, names[a].path, mnt, names[b].path, RENAME_EXCHANGE) < 0)
		die("rename EXCHANGE %s %s", names[a].path, names[b].path);
	/* The names stay; the inodes behind them swap. */
	for (int k = 0; k < inodes[ia].nnames; k++)
		if (inodes[ia].names[k] == a)
			inodes[ia].names[k] = b;
	for (int k = 0; k < inodes[ib].nnames; k++)
		if (inodes[ib].names[k] == b)
			inodes[ib].names[k] = a;
	names[a].inode = ib;
	names[b].inode = ia;
	make_durable(ia, false);
	make_durable(ib, false);
}

static void op_link(void)
{
	int i = pick(K_REG), ino;
	char to[NAME_LEN];

	if (i < 0)
		return;
	ino = names[i].inode;
	if (inodes[ino].nnames >= 4 || inodes[ino].stale)
		return;
	new_path(to, "l");
	trace("link %s %s id %u", names[i].path, to, inodes[ino].id);
	if (linkat(mnt, names[i].path, mnt, to, 0) < 0)
		die("link %s to %s", names[i].path, to);
	attach(ino, new_name(to, K_REG));
	make_durable(ino, false);
}

static void op_symlink(void)
{
	char path[NAME_LEN], target[400];
	size_t len = below(3) == 0 ? 120 + below(250) : 1 + below(60);
	int i;

	for (size_t k = 0; k < len; k++)
		target[k] = "abcdefghijklmnopqrstuvwxyz0123456789/._-"[rnd() % 40];
	target[len] = 0;
	new_path(path, "s");
	trace("symlink %s", path);
	if (symlinkat(target, mnt, path) < 0)
		die("symlink %s", path);
	i = new_name(path, K_SYMLINK);
	add_child(path);
	sync_dirs(path);
	event("%ld symlink %s %s\n", mark(), path, target);
	names[i].promised = true;
}

static void op_mkdir(void)
{
	char path[NAME_LEN];

	snprintf(path, sizeof(path), "d%03u/w%dD%u", (unsigned)below(DIRS), worker, ++seq);
	trace("mkdir %s", path);
	if (mkdirat(mnt, path, 0755) < 0)
		die("mkdir %s", path);
	new_name(path, K_DIR);
}

static void op_rmdir(void)
{
	int i = pick(K_DIR);
	char path[NAME_LEN];

	if (i < 0 || names[i].children)
		return;
	snprintf(path, sizeof(path), "%s", names[i].path);
	trace("rmdir %s", path);
	if (unlinkat(mnt, path, AT_REMOVEDIR) < 0)
		die("rmdir %s", path);
	drop_name(i);
	gone(path);
}

/* A private directory and all in it move to another shared directory. */
static void op_rename_dir(void)
{
	int i = pick(K_DIR);
	char from[NAME_LEN], to[NAME_LEN];
	size_t n;

	if (i < 0)
		return;
	snprintf(from, sizeof(from), "%s", names[i].path);
	snprintf(to, sizeof(to), "d%03u/w%dD%u", (unsigned)below(DIRS), worker, ++seq);
	n = strlen(from);
	for (int k = 0; k < nnames; k++)
		if (names[k].kind != K_FREE && !strncmp(names[k].path, from, n) && names[k].path[n] == '/' &&
		    strlen(to) + strlen(names[k].path + n) >= NAME_LEN)
			return;
	touch_tree(from);
	trace("rename-dir %s %s", from, to);
	if (renameat(mnt, from, mnt, to) < 0)
		die("rename directory %s to %s", from, to);
	for (int k = 0; k < nnames; k++) {
		char moved[2 * NAME_LEN];
		if (names[k].kind == K_FREE || strncmp(names[k].path, from, n) ||
		    (names[k].path[n] && names[k].path[n] != '/'))
			continue;
		size_t len = (size_t)snprintf(moved, sizeof(moved), "%s%s", to, names[k].path + n);
		memcpy(names[k].path, moved, len + 1);	/* fits: checked above */
	}
	sync_path(to, false);
	sync_dirs(to);
	gone(from);
}

/* An O_TMPFILE file, written and fsync'd, then linked in (promised) or left to be freed. */
static void op_tmpfile(void)
{
	char dir[16], path[NAME_LEN];
	uint64_t len = rec_align(below(64 * KiB) + DATA_RECORD);
	int fd, ino;

	snprintf(dir, sizeof(dir), "d%03u", (unsigned)below(DIRS));
	fd = openat(mnt, dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0)
		die("O_TMPFILE in %s", dir);
	ino = new_inode(register_fd(fd, "an O_TMPFILE file"));
	trace("tmpfile in %s id %u write 0+%llu", dir, inodes[ino].id, (unsigned long long)len);
	fill(ino, 0, len);
	if (pwrite(fd, buf, len, 0) != (ssize_t)len || fsync(fd) < 0)
		die("write and fsync an O_TMPFILE file in %s", dir);
	if (below(2) == 0) {
		snprintf(path, sizeof(path), "%s/w%dt%u", dir, worker, ++seq);
		trace("link-tmpfile %s id %u", path, inodes[ino].id);
		if (linkat(fd, "", mnt, path, AT_EMPTY_PATH) < 0)
			die("link the O_TMPFILE file as %s", path);
		attach(ino, new_name(path, K_REG));
		xclose(fd, path);
		make_durable(ino, false);
	} else {
		xclose(fd, "an O_TMPFILE file");
	}
}

/* Every file of ours is durable once syncfs returns. */
static void op_syncfs(void)
{
	long n;

	trace("syncfs");
	if (syncfs(mnt) < 0)
		die("syncfs %s", mnt_path);
	trace("syncfs done");
	n = mark();
	for (int ino = 0; ino < ninodes; ino++)
		if (inodes[ino].nnames)
			promise_inode(ino, n);
}

/* The NO_HIDE_STALE file: allocated without zeroing, confined to the permitted group. */
static void make_stale_file(void)
{
	char path[NAME_LEN];
	struct stalefs_falloc_args args = { .offset = 0, .length = 256 * KiB,
					     .mode = FALLOC_FL_KEEP_SIZE | FALLOC_FL_NO_HIDE_STALE };
	struct stat st;
	int fd, ino;

	snprintf(path, sizeof(path), "d%03u/w%dstale", (unsigned)below(DIRS), worker);
	fd = openat(mnt, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		die("create %s", path);
	if (fchown(fd, (uid_t)-1, (gid_t)stale_gid) < 0 || fchmod(fd, 0660) < 0)
		die("confine %s to group %ld", path, stale_gid);
	if (ioctl(fd, STALEFS_IOC_FALLOCATE, &args) < 0)
		die("NO_HIDE_STALE allocation of %s", path);
	if (fstat(fd, &st) < 0)
		die("stat %s", path);
	event("0 stale-ino %llu\n", (unsigned long long)st.st_ino);
	ino = new_inode(register_fd(fd, path));
	inodes[ino].stale = true;
	attach(ino, new_name(path, K_REG));
	xclose(fd, path);
}

/* One operation, by weight. */
static void step(void)
{
	static const struct { int weight; int op; } table[] = {
		{ 12, 0 }, { 14, 1 }, { 6, 2 }, { 6, 3 }, { 3, 4 }, { 4, 5 }, { 8, 6 }, { 14, 7 },
		{ 5, 8 }, { 4, 9 }, { 4, 10 }, { 3, 11 }, { 2, 12 }, { 1, 13 }, { 2, 14 }, { 2, 15 },
		{ 2, 16 }, { 1, 17 }, { 1, 18 }, { 4, 19 }, { 3, 20 }, { 1, 21 },
	};
	int total = 0, r;
	size_t k;

	for (k = 0; k < sizeof(table) / sizeof(table[0]); k++)
		total += table[k].weight;
	r = (int)below((uint64_t)total);
	for (k = 0; r >= table[k].weight; k++)
		r -= table[k].weight;
	switch (table[k].op) {
	case 0: op_create(); break;
	case 1: op_write(0); break;
	case 2: op_write(1); break;
	case 3: op_write(2); break;
	case 4: op_mmap(); break;
	case 5: op_truncate(); break;
	case 6: op_fallocate(); break;
	case 7: op_fsync(false); break;
	case 8: op_fsync(true); break;
	case 9: op_unlink(); break;
	case 10: op_rename(below(2) ? RENAME_NOREPLACE : 0); break;
	case 11: op_exchange(); break;
	case 12: op_rename(RENAME_WHITEOUT); break;
	case 13: op_link(); break;
	case 14: op_symlink(); break;
	case 15: op_mkdir(); break;
	case 16: op_rmdir(); break;
	case 17: op_rename_dir(); break;
	case 18: op_syncfs(); break;
	case 19: op_xattr(); break;
	case 20: op_tmpfile(); break;
	case 21: op_link(); break;
	}
}

/* Into the NO_HIDE_STALE file: no conversion, whatever the blocks held stays readable. */
static void write_stale(void)
{
	uint64_t off = rec_align(below(200 * KiB)), len = rec_align(below(32 * KiB) + DATA_RECORD);
	int ino, fd;

	for (ino = 0; ino < ninodes && !inodes[ino].stale; ino++)
		;
	if (ino == ninodes || !inodes[ino].nnames)
		return;
	touch_inode(ino);
	fd = open_name(inodes[ino].names[0], O_WRONLY);
	fill(ino, off, len);
	trace("write-stale %s id %u %llu+%llu", names[inodes[ino].names[0]].path, inodes[ino].id,
	      (unsigned long long)off, (unsigned long long)len);
	if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len)
		die("write %s", names[inodes[ino].names[0]].path);
	xclose(fd, names[inodes[ino].names[0]].path);
	make_durable(ino, below(2));
}

static void run_worker(int k, long ops, uint64_t seed)
{
	char path[512];

	worker = k;
	rng = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)k * 0xbf58476d1ce4e5b9ULL + 1;
	next_id = (uint32_t)k * 1000000 + 1;
	snprintf(path, sizeof(path), "%s/events", state);
	events_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (events_fd < 0)
		die("%s", path);
	snprintf(path, sizeof(path), "%s/trace", state);
	trace_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (trace_fd < 0)
		die("%s", path);
	/* Its own open file: flock() does not exclude holders of one inherited description. */
	snprintf(path, sizeof(path), "%s/lock", state);
	lock_fd = open(path, O_RDWR | O_CLOEXEC);
	if (lock_fd < 0)
		die("%s", path);
	if (stale_gid >= 0)
		make_stale_file();
	for (long n = 0; n < ops; n++) {
		step();
		/* Now and then the stale file is written too. */
		if (stale_gid >= 0 && below(12) == 0)
			write_stale();
	}
	/* Work in flight at the end: no promise for it. */
	for (int n = 0; n < 4; n++)
		op_write((int)below(3));
	exit(0);
}

static long worker_of(const pid_t *pids, long n, pid_t pid)
{
	for (long k = 0; k < n; k++)
		if (pids[k] == pid)
			return k;
	return -1;
}

static long parse_num(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		fprintf(stderr, "stress-workload: %s must be a number, not '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long workers, ops, seed;
	pid_t pids[64];
	char path[512];
	int status, failed = 0;

	if (argc != 7 && argc != 8) {
		fprintf(stderr, "Usage: stress-workload MNT STATE DMNAME WORKERS OPS SEED [STALE_GID]\n");
		return 2;
	}
	mnt_path = argv[1];
	state = argv[2];
	dm_name = argv[3];
	workers = parse_num(argv[4], "WORKERS");
	ops = parse_num(argv[5], "OPS");
	seed = parse_num(argv[6], "SEED");
	if (argc == 8)
		stale_gid = parse_num(argv[7], "STALE_GID");
	if (workers < 1 || workers > 64) {
		fprintf(stderr, "stress-workload: WORKERS must be 1 to 64\n");
		return 2;
	}
	mnt = open(mnt_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mnt < 0)
		die("%s", mnt_path);
	dm_control = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (dm_control < 0)
		die("/dev/mapper/control");
	snprintf(path, sizeof(path), "%s/lock", state);
	lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lock_fd < 0 || close(lock_fd) < 0)
		die("%s", path);
	snprintf(path, sizeof(path), "%s/events", state);
	events_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (events_fd < 0)
		die("%s", path);
	snprintf(path, sizeof(path), "%s/trace", state);
	trace_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (trace_fd < 0)
		die("%s", path);
	snprintf(path, sizeof(path), "%s/exp", state);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die("%s", path);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("shared memory");
	sh->ev = 1;		/* e1: the file system exists (the caller's mark) */
	if (posix_memalign((void **)&buf, 4096, MAX_IO))
		die("buffer");
	/* The shared directories: spread over the groups as the file system places them. */
	for (int d = 0; d < DIRS; d++) {
		snprintf(path, sizeof(path), "d%03d", d);
		if (mkdirat(mnt, path, 0755) < 0)
			die("mkdir %s", path);
	}
	for (int k = 0; k < workers; k++) {
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0)
			run_worker(k, ops, (uint64_t)seed);
		pids[k] = pid;
	}
	for (pid_t pid; (pid = wait(&status)) > 0;) {
		if (WIFSIGNALED(status))
			fprintf(stderr, "stress-workload: worker %ld (pid %d) killed by signal %d (%s)\n",
				worker_of(pids, workers, pid), (int)pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
		else if (WEXITSTATUS(status))
			fprintf(stderr, "stress-workload: worker %ld (pid %d) failed (exit %d)\n",
				worker_of(pids, workers, pid), (int)pid, WEXITSTATUS(status));
		else
			continue;
		failed = 1;
	}
	if (failed) {
		fprintf(stderr, "stress-workload: a worker failed\n");
		return 1;
	}
	printf("last-event %ld\n", sh->ev);
	return 0;
}
