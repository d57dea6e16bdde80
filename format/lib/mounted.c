// SPDX-License-Identifier: GPL-2.0
/*
 * Is a device (or an image file) mounted, and where?  Shared by mkfs and fsck,
 * which must both refuse to write under a mounted filesystem, and tunefs,
 * which changes a mounted one through the kernel at its mount point.  An
 * image file counts as mounted when a loop device backed by it is mounted.
 */
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "libstalefs.h"

/* Does the loop device's sysfs backing_file (path) name the target (same device and inode)? */
static bool loop_backed_by(const char *path, const struct stat *target)
{
	char backing[PATH_MAX];
	struct stat st;
	FILE *f = fopen(path, "r");
	bool match = false;

	if (!f)
		return false;
	if (fgets(backing, sizeof(backing), f)) {
		backing[strcspn(backing, "\n")] = '\0';
		match = stat(backing, &st) == 0 && st.st_dev == target->st_dev && st.st_ino == target->st_ino;
	}
	fclose(f);
	return match;
}

/* A loop device whose backing file is the target. */
static bool file_backs_mounted_loop(const struct stat *target, const char *mounted_dev)
{
	char path[PATH_MAX];
	const char *name = strrchr(mounted_dev, '/');

	if (!name || strncmp(name + 1, "loop", 4) != 0)
		return false;
	snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", name + 1);
	return loop_backed_by(path, target);
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

/* mountinfo escapes space, tab, newline and backslash in a path as \ooo. */
static void unescape_mountinfo(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
		    s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* Does block device major:minor hold the target: it is the device, or a loop device backed by the image? */
static bool devno_holds(const struct stat *target, unsigned int major, unsigned int minor)
{
	char path[PATH_MAX];

	if (S_ISBLK(target->st_mode))
		return major == major(target->st_rdev) && minor == minor(target->st_rdev);
	if (!S_ISREG(target->st_mode))
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop/backing_file", major, minor);
	return loop_backed_by(path, target);
}

/*
 * By device number, from /proc/self/mountinfo (the mount table of this
 * process's namespace), not by the name /proc/mounts shows: that name may be
 * /dev/root or a path that no longer exists.  A read-write mount is preferred
 * over a read-only one (a bind mount may be read-only while the filesystem
 * is not); the first of each kind wins.
 */
bool stalefs_mount_point(const char *device, char *dir, size_t len, bool *read_only)
{
	struct stat target;
	char *line = NULL;
	size_t cap = 0;
	bool found = false, found_rw = false;
	FILE *f;

	if (stat(device, &target) < 0)
		return false;
	f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return false;
	while (!found_rw && getline(&line, &cap, f) > 0) {
		unsigned int major, minor;
		char mnt[PATH_MAX], opts[256];
		bool rw;

		/* "ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS ..." (proc(5)); the path fits PATH_MAX escaped or not. */
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s %255s", &major, &minor, mnt, opts) != 4)
			continue;
		if (!devno_holds(&target, major, minor))
			continue;
		rw = strncmp(opts, "rw", 2) == 0 && (opts[2] == '\0' || opts[2] == ',');
		if (found && !rw)
			continue;
		unescape_mountinfo(mnt);
		if (strlen(mnt) >= len)
			continue;
		strcpy(dir, mnt);
		*read_only = !rw;
		found = true;
		found_rw = rw;
	}
	free(line);
	fclose(f);
	return found;
}
