// SPDX-License-Identifier: GPL-2.0
/*
 * holes: fragment a filesystem's free space for the FITRIM benchmark.
 *
 *   holes FILE COUNT BLOCK
 *
 * Preallocates 2 * COUNT blocks of BLOCK bytes to FILE (fallocate), then
 * punches every other block out, leaving COUNT free extents of one block
 * each between the ones the file keeps.  The same calls on every
 * filesystem, so the trim that follows faces the same free space.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>

int main(int argc, char **argv)
{
	long long count, bs, i;
	int fd;

	if (argc != 4 || (count = atoll(argv[2])) <= 0 || (bs = atoll(argv[3])) <= 0) {
		fprintf(stderr, "usage: holes FILE COUNT BLOCK\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || fallocate(fd, 0, 0, 2 * count * bs) < 0) {
		fprintf(stderr, "holes: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < count; i++)
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (2 * i + 1) * bs, bs) < 0) {
			fprintf(stderr, "holes: punching block %lld of %s: %s\n", 2 * i + 1, argv[1],
				strerror(errno));
			return 1;
		}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fprintf(stderr, "holes: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
