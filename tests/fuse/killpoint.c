// SPDX-License-Identifier: GPL-2.0
/*
 * killpoint.so: preloaded into stalefs-fuse by the crash test, it kills the
 * process (SIGKILL, as `kill -9` would) just before its Nth write or flush
 * to a file: KILLPOINT_AT=N.  The server writes only its image with
 * pwrite/pwritev (replies to the kernel go through write/writev on
 * /dev/fuse), so every N is a point between two of the image's writes or
 * flushes: inside a transaction's log, between its log and its commit
 * block, in the middle of a checkpoint, before the log is emptied.
 * KILLPOINT_COUNT=FILE instead writes to FILE the number of each flush, one
 * a line (the test's way to learn how many points a workload has, and where
 * the commits are: a transaction's log, commit block, checkpoint and empty
 * log follow its first flush); the file is opened at the first write, before
 * the server's sandbox closes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/uio.h>

static unsigned long at, seen;
static int count_fd = -1;
static int ready;

static void setup(void)
{
	const char *s = getenv("KILLPOINT_AT"), *c = getenv("KILLPOINT_COUNT");

	at = s ? strtoul(s, NULL, 10) : 0;
	if (c)
		count_fd = open(c, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ready = 1;
}

static void point(int flush)
{
	if (!ready)
		setup();
	seen++;
	if (at && seen >= at)
		raise(SIGKILL);
	/* write(2), not pwrite: that is us. */
	if (count_fd >= 0 && flush)
		dprintf(count_fd, "%lu\n", seen);
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	point(0);
	return NEXT(pwrite64)(fd, buf, n, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
	point(0);
	return NEXT(pwritev64)(fd, iov, cnt, off);
}

int fsync(int fd)
{
	point(1);
	return NEXT(fsync)(fd);
}

int fdatasync(int fd)
{
	point(1);
	return NEXT(fdatasync)(fd);
}
