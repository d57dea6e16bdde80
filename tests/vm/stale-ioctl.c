// SPDX-License-Identifier: GPL-2.0
/*
 * stale-ioctl: issue stalefs's ioctls exactly as asked and report the
 * outcome by errno name, so VM scenarios can assert the precise error
 * (stalefs-falloc explains refusals in prose instead).
 *
 *   stale-ioctl falloc [-r|-a] [-k] [-n] [-m MODE] [-R RESERVED] OFFSET LENGTH FILE
 *       -r open read-only (EBADF), -a open O_WRONLY|O_APPEND, -k KEEP_SIZE, -n no NO_HIDE_STALE bit,
 *       -m MODE the raw mode word instead, -R the reserved field
 *   stale-ioctl info FILE       prints "stale_gid=G armed=A"
 *   stale-ioctl goingdown FLAGS PATH   FS_IOC_GOINGDOWN on PATH (a file or directory)
 *   stale-ioctl resize BLOCKS PATH     STALEFS_IOC_RESIZE_FS on PATH
 *   stale-ioctl fitrim START LEN MINLEN PATH   FITRIM; prints "ok trimmed=BYTES"
 *
 * Prints "ok" and exits 0, or prints "errno NAME" and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include "stalefs_ioctl.h"

static void usage(void)
{
	fprintf(stderr, "usage: stale-ioctl falloc [-r|-a] [-k] [-n] [-m MODE] [-R RESERVED] OFFSET LENGTH FILE\n"
			"       stale-ioctl info FILE\n"
			"       stale-ioctl goingdown FLAGS PATH\n"
			"       stale-ioctl resize BLOCKS PATH\n"
			"       stale-ioctl fitrim START LEN MINLEN PATH\n");
	exit(2);
}

static unsigned long long num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || !*s)
		usage();
	return v;
}

static int report(int rc)
{
	if (rc == 0) {
		printf("ok\n");
		return 0;
	}
	printf("errno %s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "unknown");
	return 1;
}

int main(int argc, char **argv)
{
	struct stalefs_falloc_args a = { .mode = FALLOC_FL_NO_HIDE_STALE };
	int flags = O_WRONLY, fd, c;
	const char *file;

	if (argc < 3)
		usage();
	if (strcmp(argv[1], "info") == 0) {
		struct stalefs_stale_info info;

		if (argc != 3)
			usage();
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, STALEFS_IOC_STALE_INFO, &info) < 0)
			return report(-1);
		printf("stale_gid=%u armed=%u\n", info.stale_gid, info.armed);
		return 0;
	}
	if (strcmp(argv[1], "goingdown") == 0) {
		__u32 how;

		if (argc != 4)
			usage();
		how = (__u32)num(argv[2]);
		fd = open(argv[3], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return report(-1);
		return report(ioctl(fd, STALEFS_IOC_GOINGDOWN, &how));
	}
	if (strcmp(argv[1], "resize") == 0) {
		__u64 blocks;

		if (argc != 4)
			usage();
		blocks = num(argv[2]);
		fd = open(argv[3], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return report(-1);
		return report(ioctl(fd, STALEFS_IOC_RESIZE_FS, &blocks));
	}
	if (strcmp(argv[1], "fitrim") == 0) {
		struct fstrim_range r;

		if (argc != 6)
			usage();
		r.start = num(argv[2]);
		r.len = num(argv[3]);
		r.minlen = num(argv[4]);
		fd = open(argv[5], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, FITRIM, &r) < 0)
			return report(-1);
		printf("ok trimmed=%llu\n", (unsigned long long)r.len);
		return 0;
	}
	if (strcmp(argv[1], "falloc") != 0)
		usage();
	optind = 2;
	while ((c = getopt(argc, argv, "raknm:R:")) != -1) {
		switch (c) {
		case 'r': flags = O_RDONLY; break;
		case 'a': flags = O_WRONLY | O_APPEND; break;
		case 'k': a.mode |= FALLOC_FL_KEEP_SIZE; break;
		case 'n': a.mode &= ~FALLOC_FL_NO_HIDE_STALE; break;
		case 'm': a.mode = (__u32)num(optarg); break;
		case 'R': a.reserved = (__u32)num(optarg); break;
		default: usage();
		}
	}
	if (optind + 3 != argc)
		usage();
	a.offset = num(argv[optind]);
	a.length = num(argv[optind + 1]);
	file = argv[optind + 2];
	fd = open(file, flags | O_CLOEXEC);
	if (fd < 0) {
		printf("open: ");
		return report(-1);
	}
	return report(ioctl(fd, STALEFS_IOC_FALLOCATE, &a));
}
