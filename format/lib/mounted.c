// SPDX-License-Identifier: GPL-2.0
/*
 * Is a device (or an image file) mounted?  Shared by mkfs and fsck, which must
 * both refuse to write under a mounted filesystem.  An image file counts as
 * mounted when a loop device backed by it is mounted.
 */
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "libstalefs.h"

/* A loop device whose backing file is the target (same device and inode). */
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

bool stalefs_device_is_mounted(const char *device)
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
