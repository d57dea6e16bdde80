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

/* A loop device whose backing file is `path` (dev, ino match). */
static bool file_backs_mounted_loop(const struct stat *target, const char *mounted_dev)
{
	char path[PATH_MAX], backing[PATH_MAX];
	const char *name = strrchr(mounted_dev, '/');
	struct stat st;
	FILE *f;
	bool match = false;

	if (!name || strncmp(name + 1, "loop", 4) != 0)
		return false;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name + 1);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(backing, sizeof(backing), f)) {
		backing[strcspn(backing, "\n")] = '\0';
		match = stat(backing, &st) == 0 && st.st_dev == target->st_dev && st.st_ino == target->st_ino;
	}
	fclose(f);
	return match;
}

bool device_is_mounted(const char *device)
{
	struct stat target, st;
	struct mntent *m;
	FILE *f;
	bool mounted = false;

	if (stat(device, &target) < 0)
		return false;
	f = setmntent("/proc/mounts", "r");
	if (!f)
		return false;
	while (!mounted && (m = getmntent(f))) {
		if (stat(m->mnt_fsname, &st) < 0)
			continue;
		if (S_ISBLK(target.st_mode) && S_ISBLK(st.st_mode) && st.st_rdev == target.st_rdev)
			mounted = true;
		else if (S_ISREG(target.st_mode) && S_ISBLK(st.st_mode) &&
			 file_backs_mounted_loop(&target, m->mnt_fsname))
			mounted = true;
	}
	endmntent(f);
	return mounted;
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
	size_t i;
	int fd = open(device, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]) && !found; i++)
		if (pread(fd, buf, sigs[i].len, (off_t)sigs[i].off) == (ssize_t)sigs[i].len &&
		    memcmp(buf, sigs[i].magic, sigs[i].len) == 0)
			found = sigs[i].name;
	close(fd);
	return found;
}
