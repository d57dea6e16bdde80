// SPDX-License-Identifier: GPL-2.0
/*
 * A mounted filesystem grows through the kernel: STALEFS_IOC_RESIZE_FS on
 * its mount point (the shape of ext4's EXT4_IOC_RESIZE_FS, kernel/resize.c),
 * which adds the groups in one transaction while writers go on.  Shrinking
 * needs the filesystem unmounted, as with ext4.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <unistd.h>
#include "stalefs_ioctl.h"
#include "resize.h"

int resize_online(const struct resize_opts *o, const char *mnt, u64 cur_blocks, u32 block_size,
		  u64 new_blocks)
{
	struct statfs st;
	u64 arg = new_blocks;
	int fd, err = 0;

	printf("Filesystem at %s is mounted on %s; on-line resizing required\n", o->device, mnt);
	if (new_blocks < cur_blocks) {
		fprintf(stderr, "%s: On-line shrinking not supported: unmount %s to shrink it to %llu "
			"(%uk) blocks; nothing was changed\n", program_name, mnt,
			(unsigned long long)new_blocks, block_size / 1024);
		return RESIZE_ERROR;
	}
	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		com_err(program_name, errno, "while opening the mount point %s", mnt);
		return RESIZE_ERROR;
	}
	printf("Resizing the filesystem on %s to %llu (%uk) blocks.\n", o->device,
	       (unsigned long long)new_blocks, block_size / 1024);
	if (ioctl(fd, STALEFS_IOC_RESIZE_FS, &arg) < 0)
		err = errno;
	if (!err && fstatfs(fd, &st) < 0)
		err = errno;
	close(fd);
	if (err) {
		com_err(program_name, err, "while trying to grow %s on-line (mounted on %s)", o->device, mnt);
		if (err == EPERM)
			fprintf(stderr, "%s: growing a mounted filesystem needs CAP_SYS_RESOURCE (run as root)\n",
				program_name);
		else if (err == ENOSPC)
			fprintf(stderr, "%s: the device under %s is smaller than %llu blocks (a loop device "
				"follows its file after losetup -c)\n", program_name, mnt,
				(unsigned long long)new_blocks);
		else if (err == EROFS)
			fprintf(stderr, "%s: %s is mounted read-only\n", program_name, mnt);
		else if (err == ENOTTY)
			fprintf(stderr, "%s: the stalefs module mounted on %s cannot grow a filesystem\n",
				program_name, mnt);
		return RESIZE_ERROR;
	}
	/* The kernel leaves off a last group too small for its own metadata: say what it reached. */
	printf("The filesystem on %s is now %llu (%uk) blocks long.\n\n", o->device,
	       (unsigned long long)st.f_blocks, block_size / 1024);
	return RESIZE_OK;
}
