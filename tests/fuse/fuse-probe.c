// SPDX-License-Identifier: GPL-2.0
/*
 * fuse-probe: the system calls the FUSE tests need that no shell tool
 * makes, each printing its result (or the errno's name) on one line:
 *
 *   fuse-probe rename2 OLD NEW noreplace|exchange|whiteout
 *   fuse-probe seek FILE OFFSET data|hole      the offset lseek returns
 *   fuse-probe falloc FILE MODE OFFSET LENGTH  fallocate(2), MODE a number
 *   fuse-probe stale-ioctl FILE                STALEFS_IOC_FALLOCATE (NO_HIDE_STALE)
 *   fuse-probe read FILE                       read(2) of one byte
 *
 * Exit status 0 when the call succeeded, 1 when it failed (the errno is
 * printed either way), 2 for a usage error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include "stalefs_ioctl.h"

static int result(long rc)
{
	if (rc < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("%ld\n", rc);
	return 0;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0) {
		printf("open:%s\n", strerrorname_np(errno));
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "rename2")) {
		unsigned flags = !strcmp(argv[4], "noreplace") ? RENAME_NOREPLACE
				 : !strcmp(argv[4], "exchange") ? RENAME_EXCHANGE
				 : !strcmp(argv[4], "whiteout") ? RENAME_WHITEOUT : 0;

		if (!flags)
			return 2;
		return result(syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3], flags));
	}
	if (argc == 5 && !strcmp(argv[1], "seek")) {
		int fd = open_or_die(argv[2], O_RDONLY);

		return result((long)lseek(fd, strtoll(argv[3], NULL, 0), !strcmp(argv[4], "hole") ? SEEK_HOLE : SEEK_DATA));
	}
	if (argc == 6 && !strcmp(argv[1], "falloc")) {
		int fd = open_or_die(argv[2], O_RDWR);

		return result(fallocate(fd, (int)strtol(argv[3], NULL, 0), strtoll(argv[4], NULL, 0),
					strtoll(argv[5], NULL, 0)));
	}
	if (argc == 3 && !strcmp(argv[1], "stale-ioctl")) {
		struct stalefs_falloc_args a = { .offset = 0, .length = 65536, .mode = FALLOC_FL_KEEP_SIZE | 0x04 };
		int fd = open_or_die(argv[2], O_RDWR);

		return result(ioctl(fd, STALEFS_IOC_FALLOCATE, &a));
	}
	if (argc == 3 && !strcmp(argv[1], "read")) {
		char c;
		int fd = open(argv[2], O_RDONLY);

		if (fd < 0)
			return result(-1);
		return result(read(fd, &c, 1));
	}
	fprintf(stderr, "usage: fuse-probe rename2|seek|falloc|stale-ioctl|read ...\n");
	return 2;
}
