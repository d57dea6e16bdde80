// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the resize kill tests: counts the writes a tool makes
 * to one image file (pwrite, pwritev, write, fallocate, ftruncate, fsync)
 * and kills the process (SIGKILL) at the Nth, optionally after losing what
 * a power cut would lose.
 *
 *   KILLSHIM_FILE=img       the image (others are left alone)
 *   KILLSHIM_AT=N           die just before write event N (1-based); unset: never
 *   KILLSHIM_COUNT=path     at exit, write the number of events seen there
 *   KILLSHIM_POWERCUT=seed  at the kill, each write since the last fsync is lost or
 *                           kept by a coin seeded so (later writes win where they
 *                           overlap), as a volatile write cache may lose them
 *
 * An fsync (or fdatasync) makes everything before it durable: the record of
 * what a power cut could undo starts again.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

struct undo {
	off_t off;
	size_t len;
	unsigned char *old;	/* the bytes the write replaced */
};

static dev_t img_dev;
static ino_t img_ino;
static int have_img = -1;
static long events, kill_at = -1;
static struct undo *undos;
static size_t nundo, capundo;
static unsigned long long seed;
static int powercut;

static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_fallocate)(int, int, off_t, off_t);
static int (*real_ftruncate)(int, off_t);
static int (*real_truncate)(const char *, off_t);

static void init(void)
{
	struct stat st;
	const char *f;

	if (have_img >= 0)
		return;
	real_pwrite = dlsym(RTLD_NEXT, "pwrite64");
	real_pwritev = dlsym(RTLD_NEXT, "pwritev64");
	real_pread = dlsym(RTLD_NEXT, "pread64");
	real_write = dlsym(RTLD_NEXT, "write");
	real_fsync = dlsym(RTLD_NEXT, "fsync");
	real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
	real_fallocate = dlsym(RTLD_NEXT, "fallocate64");
	real_ftruncate = dlsym(RTLD_NEXT, "ftruncate64");
	real_truncate = dlsym(RTLD_NEXT, "truncate64");
	f = getenv("KILLSHIM_FILE");
	have_img = f && stat(f, &st) == 0;
	if (have_img) {
		img_dev = st.st_dev;
		img_ino = st.st_ino;
	}
	if (getenv("KILLSHIM_AT"))
		kill_at = atol(getenv("KILLSHIM_AT"));
	if (getenv("KILLSHIM_POWERCUT")) {
		powercut = 1;
		seed = strtoull(getenv("KILLSHIM_POWERCUT"), NULL, 0) * 2654435761ULL + 1;
	}
}

static int is_img(int fd)
{
	struct stat st;

	init();
	return have_img && fstat(fd, &st) == 0 && st.st_dev == img_dev && st.st_ino == img_ino;
}

static int coin(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (seed >> 33) & 1;
}

/*
 * Undo, latest first, a random choice of the writes since the last fsync, 512-byte sector by
 * sector: a sector a later kept write covers keeps that write's bytes.
 */
static void lose_unsynced(int fd)
{
	unsigned char *kept;
	off_t span = 0, s;
	size_t i;

	for (i = 0; i < nundo; i++)
		if (undos[i].off + (off_t)undos[i].len > span)
			span = undos[i].off + (off_t)undos[i].len;
	kept = calloc(1, (size_t)(span / 512) + 1);
	if (!kept)
		return;
	for (i = nundo; i-- > 0;) {
		struct undo *u = &undos[i];
		off_t first = u->off / 512, last = (u->off + (off_t)u->len - 1) / 512;

		if (coin()) {
			for (s = first; s <= last; s++)
				kept[s] = 1;
			continue;
		}
		for (s = first; s <= last; s++) {
			off_t from = s * 512 > u->off ? s * 512 : u->off;
			off_t to = (s + 1) * 512 < u->off + (off_t)u->len ? (s + 1) * 512 : u->off + (off_t)u->len;

			if (!kept[s])
				real_pwrite(fd, u->old + (from - u->off), (size_t)(to - from), from);
		}
	}
	free(kept);
}

/* A write event: maybe the last one; else, under the power-cut model, remember what it replaces. */
static void event(int fd, off_t off, size_t len)
{
	events++;
	if (events == kill_at) {
		if (powercut)
			lose_unsynced(fd);
		kill(getpid(), SIGKILL);
	}
	if (powercut && len) {
		struct undo *u;
		ssize_t got;

		if (nundo == capundo) {
			capundo = capundo ? capundo * 2 : 64;
			undos = realloc(undos, capundo * sizeof(*undos));
		}
		u = &undos[nundo++];
		u->off = off;
		u->len = len;
		u->old = calloc(1, len);
		got = real_pread(fd, u->old, len, off);
		(void)got;	/* past the end of the file: zeros, as the undo of an extension */
	}
}

static void synced(void)
{
	size_t i;

	for (i = 0; i < nundo; i++)
		free(undos[i].old);
	nundo = 0;
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	if (is_img(fd))
		event(fd, off, len);
	return real_pwrite(fd, buf, len, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return pwrite64(fd, buf, len, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t off)
{
	if (is_img(fd)) {
		size_t len = 0;
		int i;

		for (i = 0; i < n; i++)
			len += iov[i].iov_len;
		event(fd, off, len);
	}
	return real_pwritev(fd, iov, n, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	return pwritev64(fd, iov, n, off);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	if (is_img(fd))
		event(fd, lseek(fd, 0, SEEK_CUR), len);
	return real_write(fd, buf, len);
}

int fallocate64(int fd, int mode, off_t off, off_t len)
{
	if (is_img(fd))
		event(fd, off, (size_t)len);
	return real_fallocate(fd, mode, off, len);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	return fallocate64(fd, mode, off, len);
}

int ftruncate64(int fd, off_t len)
{
	if (is_img(fd))
		event(fd, len, 0);
	return real_ftruncate(fd, len);
}

int ftruncate(int fd, off_t len)
{
	return ftruncate64(fd, len);
}

int truncate64(const char *path, off_t len)
{
	struct stat st;

	init();
	if (have_img && stat(path, &st) == 0 && st.st_dev == img_dev && st.st_ino == img_ino)
		event(-1, len, 0);
	return real_truncate(path, len);
}

int truncate(const char *path, off_t len)
{
	return truncate64(path, len);
}

/* The kill may come just before the sync: what it would have made durable may be lost. */
int fsync(int fd)
{
	int img = is_img(fd), r;

	if (img)
		event(fd, 0, 0);
	r = real_fsync(fd);
	if (img && r == 0)
		synced();
	return r;
}

int fdatasync(int fd)
{
	int img = is_img(fd), r;

	if (img)
		event(fd, 0, 0);
	r = real_fdatasync(fd);
	if (img && r == 0)
		synced();
	return r;
}

__attribute__((destructor)) static void report(void)
{
	const char *p = getenv("KILLSHIM_COUNT");
	FILE *f;

	if (!p)
		return;
	f = fopen(p, "w");
	if (f) {
		fprintf(f, "%ld\n", events);
		fclose(f);
	}
}
