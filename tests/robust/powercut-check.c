// SPDX-License-Identifier: GPL-2.0
/*
 * powercut-check: the two userspace halves of the power-cut test.
 *
 *   powercut-check fill TARGET [SIZE]
 *       cover TARGET (a device, or a file made SIZE bytes long) with the
 *       fill pattern (fill-pattern.h)
 *   powercut-check verify MNT EVENTS UPTO
 *       after a replay to some cut point (and fsck), with the image mounted
 *       at MNT: check the workload's EVENTS numbered <= UPTO (the last mark
 *       the cut includes) as promises.h says: every fsync'd file holds
 *       what it held, durable unlinks stay done, and no file reads data it
 *       was never given (the fill pattern outside NO_HIDE_STALE inodes,
 *       another file's records, misplaced ones).
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "fill-pattern.h"
#include "promises.h"

static void usage(void)
{
	fprintf(stderr, "Usage: powercut-check fill TARGET [SIZE]\n"
			"       powercut-check verify MNT EVENTS UPTO\n");
	exit(2);
}

static int fill(const char *target, const char *size_arg)
{
	static unsigned char buf[1 << 20];
	uint64_t size;
	int fd = open(target, O_WRONLY | O_CLOEXEC | (size_arg ? O_CREAT | O_TRUNC : 0), 0644);

	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", target, strerror(errno));
		return 1;
	}
	if (size_arg) {
		char *end;
		errno = 0;
		size = strtoull(size_arg, &end, 10);
		if (errno || *end || !size || size % FILL_BLOCK) {
			fprintf(stderr, "powercut-check: SIZE must be a multiple of %d bytes\n", FILL_BLOCK);
			return 2;
		}
	} else if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		fprintf(stderr, "%s: not a block device and no SIZE given\n", target);
		return 2;
	}
	for (uint64_t off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf);
		for (size_t b = 0; b < n; b += FILL_BLOCK)
			fill_block(buf + b, (off + b) / FILL_BLOCK);
		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n) {
			fprintf(stderr, "%s: write at %" PRIu64 ": %s\n", target, off, strerror(errno));
			return 1;
		}
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fprintf(stderr, "%s: %s\n", target, strerror(errno));
		return 1;
	}
	return 0;
}

static int verify(const char *mnt, const char *events, const char *upto_arg)
{
	char *end;
	long upto = strtol(upto_arg, &end, 10);
	struct promises *p;
	int failures;

	if (*end || upto < 0) {
		fprintf(stderr, "powercut-check: UPTO must be an event number\n");
		return 2;
	}
	p = promises_load(events, upto);
	if (!p)
		return 2;
	failures = promises_verify(p, mnt, stdout);
	promises_free(p);
	return failures < 0 ? 2 : failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "fill"))
		return fill(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 5 && !strcmp(argv[1], "verify"))
		return verify(argv[2], argv[3], argv[4]);
	usage();
}
