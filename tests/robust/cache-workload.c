// SPDX-License-Identifier: GPL-2.0
/*
 * cache-workload: the recorded workloads of the volatile-cache power-cut
 * test (tests/vm/scenarios/robust-powercut-cache.sh), each in one process:
 * an exec costs 0.1-0.3 s in the TCG guest and a workload makes hundreds
 * of calls.
 *
 *   cache-workload NAME MNT STATE DMNAME LAST_EVENT SEED [STALE_GID]
 *
 * Runs workload NAME (unwritten, reuse, names, tree, mix, grow) on the file
 * system mounted at MNT, which sits on the dm-log-writes device DMNAME.
 * Promises go to STATE/events in powercut-check's format:
 *   - after an fsync/fdatasync/syncfs returns (and the directories that
 *     name the file were fsynced), a mark "eN" is sent and "N sync PATH
 *     COPY" recorded, COPY (in STATE/exp/) holding what the file reads;
 *     after an unlink or rename made durable by fsync of the directory,
 *     "N gone PATH";
 *   - before anything changes a path with a promise, a mark and "N touch
 *     PATH" (the driver tracks promises, so no change slips by); before a
 *     synced file is unlinked, "N unlinking PATH" instead: until the
 *     unlink is durable the file is gone or whole;
 *   - "0 file-id ID INO" for every file it creates: its data are records
 *     naming ID and their own offset (data-record.h), so the checker can
 *     tell another file's data from this one's;
 *   - "0 stale-ino INO" for a file given NO_HIDE_STALE blocks.
 * Marks are numbered on from LAST_EVENT; the last one used is printed as
 * "last-event N".  DMNAME "-" means no dm-log-writes device (the FUSE
 * server's SIGKILL test, tests/fuse): marks are only numbered, and a
 * promise is one its event line was written for before the crash.  FUSE
 * passes no syncfs(2) to its server, so there each syncfs is followed by an
 * fsync of the mount's root, which stalefs-fuse makes a commit of
 * everything (what syncfs means).  SEED moves the random offsets.  With STALE_GID (stalefs
 * mounted with nohide_stale_gid=STALE_GID) the mix workload also allocates
 * with NO_HIDE_STALE; without it that part is skipped, and said so.  Every
 * workload ends with work in flight (no promise); the caller unmounts.
 * The tree workload expects 1 KiB blocks, the others work with any size.
 * The grow workload expects a file system smaller than its device and
 * grows it twice (STALEFS_IOC_RESIZE_FS, ext4's EXT4_IOC_RESIZE_FS
 * number): after each grow returns a mark is sent and "grew eN BLOCKS"
 * printed, the promise that the file system is at least that large.
 * Any failing call ends the run with exit status 1 and the call named.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/fs.h>
#include <linux/falloc.h>
#include "stalefs_ioctl.h"
#include "data-record.h"
#include "workload-io.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define MAX_IO (4 * MiB)
#define MAX_PATHS 1024

enum promise { NONE, CONTENT, GONE, UNLINKING };

/* Every path the workload touched: the file it names (id) and its promise. */
static struct {
	char path[200];
	uint32_t id;		/* 0: names no file of ours now */
	enum promise what;
} paths[MAX_PATHS];
static int npaths;

static int mnt = -1, dm_control = -1;
static const char *mnt_path, *state, *dm_name;
static FILE *events;
static long ev;			/* the last mark sent */
static uint32_t next_id = 1;
static uint16_t next_tag = 1;
static uint64_t rng;
static unsigned char *buf;	/* MAX_IO bytes, aligned for O_DIRECT */

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	workload_vdie("cache-workload", fmt, ap);
}

static uint64_t rnd(void)
{
	return xorshift64(&rng);
}

/* ---- marks, promises and the path table ---- */

/* A mark eN in the log (without dmsetup's exec). */
static void mark(void)
{
	char name[32];

	ev++;
	if (dm_control < 0)
		return;	/* DMNAME "-": events are numbered, nothing records them */
	snprintf(name, sizeof(name), "e%ld", ev);
	if (dmlog_mark(dm_control, dm_name, name))
		die("mark %s on %s", name, dm_name);
}

static void event(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(events, fmt, ap);
	va_end(ap);
	if (fflush(events) == EOF)
		die("%s/events", state);
}

static int slot(const char *path)
{
	for (int i = 0; i < npaths; i++)
		if (!strcmp(paths[i].path, path))
			return i;
	if (npaths == MAX_PATHS || strlen(path) >= sizeof(paths[0].path)) {
		errno = ENAMETOOLONG;
		die("path table: %s", path);
	}
	snprintf(paths[npaths].path, sizeof(paths[0].path), "%s", path);
	return npaths++;
}

/* Before anything changes path: its promise (content or gone) ends, with a mark. */
static void change(const char *path)
{
	int i = slot(path);

	if (paths[i].what == NONE)
		return;
	mark();
	event("%ld touch %s\n", ev, path);
	paths[i].what = NONE;
}

/* change() path and everything under it (a directory being renamed or removed). */
static void change_tree(const char *path)
{
	size_t n = strlen(path);

	change(path);
	for (int i = 0; i < npaths; i++)
		if (!strncmp(paths[i].path, path, n) && paths[i].path[n] == '/')
			change(paths[i].path);
}

static void copy_out(const char *path, const char *copy)
{
	if (copy_file_out(mnt, path, copy, buf, MAX_IO))
		die("save %s as %s", path, copy);
}

/* The n paths' fsync (or syncfs) returned: one mark, save what they read, promise it. */
static void durable_list(const char *const *list, int n)
{
	mark();
	for (int i = 0; i < n; i++) {
		char copy[512], flat[200];
		snprintf(flat, sizeof(flat), "%s", list[i]);
		for (char *c = flat; *c; c++)
			if (*c == '/')
				*c = '_';
		snprintf(copy, sizeof(copy), "%s/exp/%ld.%s", state, ev, flat);
		copy_out(list[i], copy);
		event("%ld sync %s %s\n", ev, list[i], copy);
		paths[slot(list[i])].what = CONTENT;
	}
}

/* durable_list() of the arguments, NULL-terminated. */
static void durable(const char *path, ...)
{
	const char *list[16];
	int n = 0;
	va_list ap;

	va_start(ap, path);
	for (const char *p = path; p; p = va_arg(ap, const char *)) {
		if (n == 16) {
			errno = E2BIG;
			die("durable: more than 16 paths");
		}
		list[n++] = p;
	}
	va_end(ap);
	durable_list(list, n);
}

/* The unlink (or rename away) of path and an fsync of its directory returned. */
static void gone(const char *path)
{
	mark();
	event("%ld gone %s\n", ev, path);
	paths[slot(path)].what = GONE;
}

/* ---- operations (paths relative to the mount) ---- */

/* Open path for writing; a new file gets an id, registered with its inode. */
static int open_w(const char *path, int flags)
{
	int i = slot(path);
	int fd = openat(mnt, path, O_WRONLY | O_CLOEXEC | flags);

	if (fd < 0 && errno == ENOENT) {
		struct stat st;
		fd = openat(mnt, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | flags, 0644);
		if (fd < 0 || fstat(fd, &st) < 0)
			die("create %s", path);
		paths[i].id = next_id++;
		event("0 file-id %" PRIu32 " %llu\n", paths[i].id, (unsigned long long)st.st_ino);
	}
	if (fd < 0)
		die("open %s", path);
	if (!paths[i].id) {
		errno = EINVAL;
		die("%s exists but was not made by this workload", path);
	}
	return fd;
}

static void xclose(int fd, const char *path)
{
	if (close(fd) < 0)
		die("close %s", path);
}

enum how { BUF, DIO };

/* Write [off, off+len) of path with fresh records (buffered or O_DIRECT). */
static void wr(const char *path, uint64_t off, uint64_t len, enum how how)
{
	change(path);
	int fd = open_w(path, how == DIO ? O_DIRECT : 0);
	if (len > MAX_IO || len % DATA_RECORD || off % DATA_RECORD) {
		errno = EINVAL;
		die("write %s %" PRIu64 "+%" PRIu64, path, off, len);
	}
	data_fill(buf, (size_t)len, paths[slot(path)].id, next_tag++, off);
	if (pwrite(fd, buf, (size_t)len, (off_t)off) != (ssize_t)len)
		die("%s write %s at %" PRIu64 "+%" PRIu64, how == DIO ? "O_DIRECT" : "buffered", path, off, len);
	xclose(fd, path);
}

static void falloc(const char *path, int mode, uint64_t off, uint64_t len)
{
	change(path);
	int fd = open_w(path, 0);
	if (fallocate(fd, mode, (off_t)off, (off_t)len) < 0)
		die("fallocate %s mode 0x%x %" PRIu64 "+%" PRIu64, path, mode, off, len);
	xclose(fd, path);
}

static void truncate_(const char *path, uint64_t size)
{
	change(path);
	int fd = open_w(path, 0);
	if (size % DATA_RECORD || ftruncate(fd, (off_t)size) < 0)
		die("truncate %s to %" PRIu64, path, size);
	xclose(fd, path);
}

/* fsync (or fdatasync) a file or directory. */
static void sync_path(const char *path, int datasync)
{
	int fd = openat(mnt, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("open %s to fsync it", path);
	if ((datasync ? fdatasync(fd) : fsync(fd)) < 0)
		die("%s %s", datasync ? "fdatasync" : "fsync", path);
	xclose(fd, path);
}

static void fsync_(const char *path) { sync_path(path, 0); }
static void fdatasync_(const char *path) { sync_path(path, 1); }

static void syncfs_(void)
{
	if (syncfs(mnt) < 0)
		die("syncfs %s", mnt_path);
	if (dm_control < 0 && fsync(mnt) < 0)
		die("fsync %s (for syncfs)", mnt_path);
}

static void mkd(const char *path)
{
	change(path);
	if (mkdirat(mnt, path, 0755) < 0)
		die("mkdir %s", path);
}

static void rmd(const char *path)
{
	change_tree(path);
	if (unlinkat(mnt, path, AT_REMOVEDIR) < 0)
		die("rmdir %s", path);
}

static void unl(const char *path)
{
	int i = slot(path);

	/* A synced file stays whole until its unlink commits: a promise too (promises.h). */
	if (paths[i].what == CONTENT) {
		mark();
		event("%ld unlinking %s\n", ev, path);
		paths[i].what = UNLINKING;
	} else {
		change(path);
	}
	if (unlinkat(mnt, path, 0) < 0)
		die("unlink %s", path);
	paths[slot(path)].id = 0;
}

/* Rename a file or a directory; ids move with the names. */
static void ren(const char *from, const char *to)
{
	size_t n = strlen(from);

	change_tree(from);
	change_tree(to);
	if (renameat(mnt, from, mnt, to) < 0)
		die("rename %s to %s", from, to);
	paths[slot(to)].id = paths[slot(from)].id;
	paths[slot(from)].id = 0;
	for (int i = 0, end = npaths; i < end; i++) {
		if (strncmp(paths[i].path, from, n) || paths[i].path[n] != '/' || !paths[i].id)
			continue;
		char moved[sizeof(paths[0].path) + 64];
		snprintf(moved, sizeof(moved), "%s%s", to, paths[i].path + n);
		paths[slot(moved)].id = paths[i].id;
		paths[i].id = 0;
	}
}

static void lnk(const char *from, const char *to)
{
	change(to);
	if (linkat(mnt, from, mnt, to, 0) < 0)
		die("link %s to %s", from, to);
	paths[slot(to)].id = paths[slot(from)].id;
}

/* ---- the workloads ---- */

/*
 * O_DIRECT and buffered writes into unwritten (preallocated) extents.  The
 * files are created and settled by syncfs first, so what follows tests the
 * conversion of written blocks, not the creation of the files.
 */
static void w_unwritten(void)
{
	mkd("u");
	falloc("u/dio", 0, 0, 2 * MiB);
	falloc("u/buf", FALLOC_FL_KEEP_SIZE, 0, 1 * MiB);
	falloc("u/mixed", 0, 0, 512 * KiB);
	falloc("u/ext", FALLOC_FL_KEEP_SIZE, 0, 64 * KiB);
	syncfs_();
	durable("u/dio", "u/buf", "u/mixed", "u/ext", NULL);

	wr("u/dio", 128 * KiB, 64 * KiB, DIO);
	wr("u/dio", 1 * MiB, 4 * KiB, DIO);
	wr("u/dio", 2 * MiB - 8 * KiB, 8 * KiB, DIO);
	fsync_("u/dio");
	durable("u/dio", NULL);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 8; i++)
			wr("u/dio", rnd() % 512 * 4 * KiB, 4 * KiB, DIO);
		fdatasync_("u/dio");
		durable("u/dio", NULL);
	}

	/* Preallocated past EOF: the size must come back with the data. */
	wr("u/buf", 0, 100 * KiB, BUF);
	fdatasync_("u/buf");
	durable("u/buf", NULL);
	wr("u/buf", 300 * KiB, 40 * KiB, BUF);
	fsync_("u/buf");
	durable("u/buf", NULL);
	for (int i = 0; i < 12; i++)
		wr("u/buf", (uint64_t)i * 80 * KiB + 4 * KiB, 4 * KiB, BUF);
	fdatasync_("u/buf");
	durable("u/buf", NULL);

	/* Appending O_DIRECT writes, into the preallocation and past it. */
	for (int i = 0; i < 4; i++)
		wr("u/ext", (uint64_t)i * 32 * KiB, 32 * KiB, DIO);
	fsync_("u/ext");
	durable("u/ext", NULL);

	/* Both kinds in one file. */
	wr("u/mixed", 0, 64 * KiB, BUF);
	wr("u/mixed", 256 * KiB, 64 * KiB, DIO);
	wr("u/mixed", 64 * KiB, 8 * KiB, BUF);
	fsync_("u/mixed");
	durable("u/mixed", NULL);

	/* In flight at the end. */
	wr("u/dio", 1536 * KiB, 64 * KiB, DIO);
	wr("u/buf", 900 * KiB, 16 * KiB, BUF);
	wr("u/mixed", 400 * KiB, 16 * KiB, DIO);
	falloc("u/late", 0, 0, 1 * MiB);
	wr("u/late", 512 * KiB, 128 * KiB, BUF);
}

/* Punch, truncate and unlink, then new files on the freed blocks. */
static void w_reuse(void)
{
	mkd("r");
	fsync_(".");

	wr("r/old1", 0, 3 * MiB, BUF);
	fsync_("r/old1");
	fsync_("r");
	durable("r/old1", NULL);
	wr("r/old2", 0, 1 * MiB, DIO);
	fsync_("r/old2");
	fsync_("r");
	durable("r/old2", NULL);

	falloc("r/old1", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 512 * KiB, 2 * MiB);
	fsync_("r/old1");
	durable("r/old1", NULL);
	unl("r/old2");
	fsync_("r");
	gone("r/old2");

	wr("r/n1", 0, 1 * MiB, DIO);
	fsync_("r/n1");
	fsync_("r");
	durable("r/n1", NULL);
	falloc("r/n2", 0, 0, 2 * MiB);
	for (int i = 0; i < 8; i++)
		wr("r/n2", (uint64_t)i * 256 * KiB, 256 * KiB, BUF);
	fdatasync_("r/n2");
	fsync_("r");
	durable("r/n2", NULL);

	truncate_("r/old1", 256 * KiB);
	fsync_("r/old1");
	durable("r/old1", NULL);
	wr("r/n3", 0, 2560 * KiB, BUF);
	fsync_("r/n3");
	fsync_("r");
	durable("r/n3", NULL);

	/* Unlinked with no fsync, its blocks reused at once; one directory fsync covers both. */
	wr("r/t", 0, 1 * MiB, BUF);
	fsync_("r/t");
	fsync_("r");
	durable("r/t", NULL);
	unl("r/t");
	wr("r/u", 0, 1 * MiB, DIO);
	fsync_("r/u");
	fsync_("r");
	durable("r/u", NULL);
	gone("r/t");

	/* A punch in one file, the blocks taken by another. */
	falloc("r/n1", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 512 * KiB);
	wr("r/n4", 0, 512 * KiB, DIO);
	fsync_("r/n4");
	fsync_("r");
	durable("r/n4", NULL);
	fsync_("r/n1");
	durable("r/n1", NULL);

	/* In flight at the end. */
	unl("r/n3");
	wr("r/n5", 0, 2 * MiB, BUF);
	falloc("r/n2", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1 * MiB);
	wr("r/n6", 0, 512 * KiB, DIO);
}

/* Create, rename, replace, link and unlink, with fsync of files and directories. */
static void w_names(void)
{
	char a[64], b[64];

	mkd("n");
	fsync_(".");
	mkd("n/a");
	mkd("n/b");
	mkd("n/c");
	fsync_("n");
	for (int i = 1; i <= 8; i++) {
		snprintf(a, sizeof(a), "n/a/f%d", i);
		wr(a, 0, (uint64_t)i * 1536, BUF);
		fsync_(a);
	}
	fsync_("n/a");
	durable("n/a/f1", "n/a/f2", "n/a/f3", "n/a/f4", "n/a/f5", "n/a/f6", "n/a/f7", "n/a/f8", NULL);

	/* Moved to another directory: both directories fsynced. */
	ren("n/a/f1", "n/b/g1");
	fsync_("n/b");
	fsync_("n/a");
	durable("n/b/g1", NULL);
	gone("n/a/f1");

	/* Replaced through a temporary file (the safe-save idiom). */
	wr("n/a/f2.tmp", 0, 6 * KiB, BUF);
	fsync_("n/a/f2.tmp");
	ren("n/a/f2.tmp", "n/a/f2");
	fsync_("n/a");
	durable("n/a/f2", NULL);
	gone("n/a/f2.tmp");

	unl("n/a/f3");
	fsync_("n/a");
	gone("n/a/f3");

	/* A second name: the file's link count and the new entry. */
	lnk("n/b/g1", "n/b/h1");
	fsync_("n/b/h1");
	fsync_("n/b");
	durable("n/b/h1", "n/b/g1", NULL);

	/* Many small files, each fsynced, then their directory. */
	for (int i = 0; i < 40; i++) {
		snprintf(a, sizeof(a), "n/c/s%02d", i);
		wr(a, 0, 2 * KiB, BUF);
		fsync_(a);
	}
	fsync_("n/c");
	static char small[40][16];
	const char *list[40];
	for (int i = 0; i < 40; i++) {
		snprintf(small[i], sizeof(small[i]), "n/c/s%02d", i);
		list[i] = small[i];
	}
	durable_list(list, 40);

	/* A directory renamed with its file, and one removed. */
	mkd("n/d1");
	fsync_("n");
	wr("n/d1/x", 0, 8 * KiB, DIO);
	fsync_("n/d1/x");
	fsync_("n/d1");
	durable("n/d1/x", NULL);
	ren("n/d1", "n/d2");
	fsync_("n");
	durable("n/d2/x", NULL);
	gone("n/d1");
	mkd("n/e");
	fsync_("n");
	rmd("n/e");
	fsync_("n");
	gone("n/e");

	/* Unlink half of the small files, then new ones take their inodes and blocks. */
	for (int i = 0; i < 40; i += 2) {
		snprintf(a, sizeof(a), "n/c/s%02d", i);
		unl(a);
	}
	for (int i = 0; i < 10; i++) {
		snprintf(a, sizeof(a), "n/c/t%02d", i);
		wr(a, 0, 4 * KiB, BUF);
		fsync_(a);
	}
	fsync_("n/c");
	for (int i = 0; i < 40; i += 2) {
		snprintf(a, sizeof(a), "n/c/s%02d", i);
		gone(a);
	}
	durable("n/c/t00", "n/c/t03", "n/c/t09", NULL);

	/* In flight at the end: renames and creates with no fsync. */
	for (int i = 4; i <= 8; i++) {
		snprintf(a, sizeof(a), "n/a/f%d", i);
		snprintf(b, sizeof(b), "n/b/f%d", i);
		ren(a, b);
	}
	wr("n/a/late", 0, 16 * KiB, BUF);
	unl("n/c/s01");
}

/*
 * Extent tree splits (1 KiB blocks): every other block of a preallocated
 * file written, so each write splits an unwritten extent and the leaves
 * fill and split; a written file punched every other block.
 */
static void w_tree(void)
{
	const uint64_t blocks = 1536;

	/* The files first, settled by syncfs: what follows is about their trees. */
	mkd("t");
	falloc("t/sparse", 0, 0, blocks * KiB);
	wr("t/holes", 0, 1 * MiB, BUF);
	falloc("t/buf", 0, 0, 512 * KiB);
	syncfs_();
	durable("t/sparse", "t/holes", "t/buf", NULL);
	/* Even blocks, in a seeded order, a promise every 128 writes. */
	uint64_t order[768];
	for (uint64_t i = 0; i < 768; i++)
		order[i] = 2 * i;
	for (uint64_t i = 767; i > 0; i--) {
		uint64_t j = rnd() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < 768; i++) {
		wr("t/sparse", order[i] * KiB, 1 * KiB, (i & 1) ? BUF : DIO);
		if (i % 128 == 127) {
			fsync_("t/sparse");
			durable("t/sparse", NULL);
		}
	}

	for (uint64_t b = 1; b < 1024; b += 2) {
		falloc("t/holes", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, b * KiB, 1 * KiB);
		if (b % 256 == 255) {
			fsync_("t/holes");
			durable("t/holes", NULL);
		}
	}

	for (uint64_t b = 0; b < 512; b += 2)
		wr("t/buf", b * KiB, 1 * KiB, BUF);
	fdatasync_("t/buf");
	durable("t/buf", NULL);

	/* In flight at the end: odd blocks of the sparse file. */
	for (uint64_t b = 1; b < 400; b += 2)
		wr("t/sparse", b * KiB, 1 * KiB, DIO);
}

/* NO_HIDE_STALE allocation (stalefs) and promises made by syncfs. */
static void w_mix(long stale_gid)
{
	char a[64];

	if (stale_gid >= 0) {
		/* First, so its inode number was nobody's before. */
		int fd = open_w("stale", 0);
		struct stalefs_falloc_args args = { .offset = 0, .length = 1 * MiB, .mode = FALLOC_FL_NO_HIDE_STALE };
		struct stat st;
		if (fchown(fd, (uid_t)-1, (gid_t)stale_gid) < 0 || fchmod(fd, 0660) < 0)
			die("confine stale to group %ld", stale_gid);
		if (ioctl(fd, STALEFS_IOC_FALLOCATE, &args) < 0)
			die("NO_HIDE_STALE allocation of stale");
		if (fstat(fd, &st) < 0)
			die("stat stale");
		xclose(fd, "stale");
		event("0 stale-ino %llu\n", (unsigned long long)st.st_ino);
		wr("stale", 256 * KiB, 64 * KiB, BUF);
		fsync_("stale");
		fsync_(".");
		durable("stale", NULL);
	} else {
		printf("cache-workload: mix without its NO_HIDE_STALE part (no STALE_GID)\n");
	}

	mkd("x");
	for (int i = 1; i <= 6; i++) {
		snprintf(a, sizeof(a), "x/f%d", i);
		wr(a, 0, (uint64_t)i * 12 * KiB, i % 2 ? BUF : DIO);
	}
	syncfs_();
	durable("x/f1", "x/f2", "x/f3", "x/f4", "x/f5", "x/f6", NULL);

	wr("x/f1", 4 * KiB, 4 * KiB, BUF);
	falloc("x/f2", FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 4 * KiB, 8 * KiB);
	truncate_("x/f3", 20 * KiB);
	falloc("x/p", 0, 0, 1 * MiB);
	wr("x/p", 64 * KiB, 128 * KiB, DIO);
	wr("x/p", 700 * KiB, 16 * KiB, BUF);
	syncfs_();
	durable("x/f1", "x/f2", "x/f3", "x/p", NULL);

	if (stale_gid >= 0) {
		/* Writing into the stale region needs no conversion. */
		wr("stale", 700 * KiB, 8 * KiB, BUF);
		fsync_("stale");
		durable("stale", NULL);
	}
	ren("x/f4", "x/f4b");
	unl("x/f5");
	wr("x/f6", 0, 8 * KiB, DIO);
	syncfs_();
	durable("x/f4b", "x/f6", NULL);
	gone("x/f4");
	gone("x/f5");

	/* In flight at the end: buffered, direct, preallocated and partly written. */
	wr("x/g", 0, 3 * MiB, BUF);
	wr("x/h", 0, 1 * MiB, DIO);
	falloc("x/i", 0, 0, 2 * MiB);
	wr("x/i", 512 * KiB, 128 * KiB, BUF);
	wr("x/i", 1900 * KiB, 4 * KiB, BUF);
	truncate_("x/f2", 10 * KiB);
}

/* Grow the file system to blocks (of its block size); once the call returns the size is durable. */
static void grow_to(uint64_t blocks)
{
	uint64_t arg = blocks;

	if (ioctl(mnt, STALEFS_IOC_RESIZE_FS, &arg) < 0)
		die("grow %s to %llu blocks", mnt_path, (unsigned long long)blocks);
	mark();
	printf("grew e%ld %llu\n", ev, (unsigned long long)blocks);
}

/*
 * grow: files written before, between and after two online grows, the new
 * space used (the later files need blocks past the old end), a file
 * unlinked, and work in flight.  The grows cross into more groups (and,
 * with small groups, past the descriptor table: META_BG).
 */
static void w_grow(void)
{
	char dev[256];
	struct statfs st;
	uint64_t dev_bytes;
	int fd;

	snprintf(dev, sizeof(dev), "/dev/mapper/%s", dm_name);
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &dev_bytes) < 0)
		die("size of %s", dev);
	close(fd);
	if (fstatfs(mnt, &st) < 0)
		die("statfs %s", mnt_path);
	mkd("g");
	fsync_(".");
	wr("g/a", 0, 2 * MiB, BUF);
	fsync_("g/a");
	fsync_("g");
	durable("g/a", NULL);
	grow_to(dev_bytes / st.f_bsize * 2 / 3);
	wr("g/b", 0, 4 * MiB, DIO);
	wr("g/b", 4 * MiB, 2 * MiB, DIO);
	fsync_("g/b");
	fsync_("g");
	durable("g/b", NULL);
	wr("g/a", 1 * MiB, 256 * KiB, BUF);
	fdatasync_("g/a");
	durable("g/a", NULL);
	grow_to(dev_bytes / st.f_bsize);
	wr("g/c", 0, 4 * MiB, BUF);
	wr("g/c", 4 * MiB, 2 * MiB, BUF);
	fsync_("g/c");
	fsync_("g");
	durable("g/c", NULL);
	unl("g/b");
	fsync_("g");
	gone("g/b");
	/* In flight at the end. */
	wr("g/d", 0, 4 * MiB, BUF);
	wr("g/c", 0, 512 * KiB, DIO);
}

int main(int argc, char **argv)
{
	char *end;

	if (argc != 7 && argc != 8) {
		fprintf(stderr, "Usage: cache-workload unwritten|reuse|names|tree|mix|grow MNT STATE DMNAME LAST_EVENT SEED [STALE_GID]\n");
		return 2;
	}
	mnt_path = argv[2];
	state = argv[3];
	dm_name = argv[4];
	ev = strtol(argv[5], &end, 10);
	if (*end || ev < 0)
		return fprintf(stderr, "cache-workload: LAST_EVENT must be a number\n"), 2;
	rng = strtoull(argv[6], &end, 10) * 0x9e3779b97f4a7c15ULL + 1;
	if (*end)
		return fprintf(stderr, "cache-workload: SEED must be a number\n"), 2;
	long stale_gid = -1;
	if (argc == 8) {
		stale_gid = strtol(argv[7], &end, 10);
		if (*end || stale_gid < 0)
			return fprintf(stderr, "cache-workload: STALE_GID must be a group id\n"), 2;
	}
	buf = aligned_alloc(4096, MAX_IO);
	if (!buf)
		die("memory");
	mnt = open(mnt_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mnt < 0)
		die("%s", mnt_path);
	if (strcmp(dm_name, "-") != 0) {
		dm_control = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
		if (dm_control < 0)
			die("/dev/mapper/control");
	}
	char path[512];
	snprintf(path, sizeof(path), "%s/events", state);
	events = fopen(path, "a");
	if (!events)
		die("%s", path);
	snprintf(path, sizeof(path), "%s/exp", state);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		die("%s", path);

	const char *name = argv[1];
	if (!strcmp(name, "unwritten"))
		w_unwritten();
	else if (!strcmp(name, "reuse"))
		w_reuse();
	else if (!strcmp(name, "names"))
		w_names();
	else if (!strcmp(name, "tree"))
		w_tree();
	else if (!strcmp(name, "mix"))
		w_mix(stale_gid);
	else if (!strcmp(name, "grow"))
		w_grow();
	else
		return fprintf(stderr, "cache-workload: no workload '%s'\n", name), 2;
	if (fclose(events) == EOF)
		die("%s/events", state);
	printf("last-event %ld\n", ev);
	free(buf);
	return 0;
}
