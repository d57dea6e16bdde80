// SPDX-License-Identifier: GPL-2.0
/* Checks on the target before anything is written: is it mounted, what does it hold. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "mkfs.h"

/* Shared with fsck: format/lib/mounted.c (a device, or an image file backing a mounted loop device). */
bool device_is_mounted(const char *device)
{
	return stalefs_device_is_mounted(device);
}

/* Name of a filesystem (or swap) found on the device, or NULL. */
const char *device_existing_fs(const char *device)
{
	static const struct {
		u64 off;
		const char *magic;
		size_t len;
		const char *name;
	} sigs[] = {
		{ 1024, "SFLS", 4, "stalefs" },
		{ 1080, "\x53\xef", 2, "ext2/ext3/ext4" },
		{ 0, "XFSB", 4, "xfs" },
		{ 65600, "_BHRfS_M", 8, "btrfs" },
		{ 4086, "SWAPSPACE2", 10, "swap" },
	};
	char buf[16];
	const char *found = NULL;
	struct stalefs_io *io;
	size_t i;

	/* Through the library: a region (IMAGE?offset=N) is read where it starts. */
	if (stalefs_io_open(device, false, false, &io))
		return NULL;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]) && !found; i++)
		if (stalefs_io_pread(io, sigs[i].off, (u32)sigs[i].len, buf) == 0 &&
		    memcmp(buf, sigs[i].magic, sigs[i].len) == 0)
			found = sigs[i].name;
	stalefs_io_close(io);
	return found;
}
