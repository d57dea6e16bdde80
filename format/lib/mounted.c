// SPDX-License-Identifier: GPL-2.0
/*
 * Is a device (or an image file) mounted, and where?  Shared by mkfs and fsck,
 * which must both refuse to write under a mounted filesystem, and tunefs,
 * which changes a mounted one through the kernel at its mount point.  An
 * image file counts as mounted when a loop device backed by it is mounted,
 * a disk when it or one of its partitions is; for IMAGE?offset=N[&size=M]
 * only a loop device or partition over bytes of that region counts.  A
 * stalefs-fuse mount of the image (type fuse.stalefs) counts too.
 */
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "libstalefs.h"

/* What is being looked for: a file or device, and the byte range of it in use ([start, end)). */
struct target {
	struct stat st;
	u64 start, end;
};

static bool target_of(const char *name, struct target *t)
{
	struct stalefs_io_name n;
	bool ok;

	if (stalefs_io_parse_name(name, &n))
		return false;
	ok = stat(n.path, &t->st) == 0;
	t->start = n.offset;
	t->end = n.region && n.size ? n.offset + n.size : ~0ULL;
	if (ok && n.part) {
		/* IMAGE?part=N: where its table puts it (unreadable: the whole image, to be safe). */
		struct stalefs_io *io;
		struct stalefs_io_info info;

		if (!stalefs_io_open(name, false, false, &io)) {
			stalefs_io_info(io, &info);
			t->start = info.offset;
			t->end = info.offset + info.size;
			stalefs_io_close(io);
		}
	}
	stalefs_io_name_free(&n);
	return ok;
}

/*
 * Does [start, start + len) (len 0: to the end) meet the target's range?  With same_fs, it
 * must start where the target does: that is where its filesystem is (tunefs changes a
 * mounted filesystem through the mount it finds, so another partition's will not do).
 */
static bool overlaps(const struct target *t, u64 start, u64 len, bool same_fs)
{
	u64 end = len ? start + len : ~0ULL;

	if (same_fs)
		return start == t->start;
	return start < t->end && t->start < end;
}

static FILE *sysfs_open(const char *dir, const char *file)
{
	char path[PATH_MAX + 32];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return NULL;
	return fopen(path, "r");
}

/* A number from a sysfs file (0 when it cannot be read). */
static u64 sysfs_u64(const char *dir, const char *file)
{
	unsigned long long v = 0;
	FILE *f = sysfs_open(dir, file);

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Loop device major:minor is backed by the target file, over a range that meets the target's. */
static bool loop_holds(const struct target *t, unsigned int major, unsigned int minor, bool same_fs)
{
	char dir[PATH_MAX], backing[PATH_MAX];
	struct stat st;
	bool match = false;
	FILE *f;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/loop", major, minor);
	f = sysfs_open(dir, "backing_file");
	if (!f)
		return false;
	if (fgets(backing, sizeof(backing), f)) {
		backing[strcspn(backing, "\n")] = '\0';
		match = stat(backing, &st) == 0 && st.st_dev == t->st.st_dev && st.st_ino == t->st.st_ino;
	}
	fclose(f);
	return match && overlaps(t, sysfs_u64(dir, "offset"), sysfs_u64(dir, "sizelimit"), same_fs);
}

/* Block device major:minor is a partition of the target disk, over a range that meets the target's. */
static bool partition_holds(const struct target *t, unsigned int major, unsigned int minor, bool same_fs)
{
	char link[PATH_MAX], dir[PATH_MAX], *slash;
	unsigned int pmaj, pmin;
	FILE *f;
	bool parent;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major, minor);
	if (!realpath(link, dir) || sysfs_u64(dir, "partition") == 0)
		return false;
	slash = strrchr(dir, '/');
	if (!slash)
		return false;
	*slash = '\0';
	f = sysfs_open(dir, "dev");
	if (!f)
		return false;
	parent = fscanf(f, "%u:%u", &pmaj, &pmin) == 2 && pmaj == major(t->st.st_rdev) &&
		 pmin == minor(t->st.st_rdev);
	fclose(f);
	*slash = '/';
	/* sysfs counts 512-byte sectors, whatever the device's own sector size. */
	return parent && overlaps(t, sysfs_u64(dir, "start") * 512, sysfs_u64(dir, "size") * 512, same_fs);
}

/* Does block device major:minor hold the target: it is the device (holding a region of it),
 * a partition of the disk over the target's range, or a loop device backed by the image
 * over that range?  same_fs: see overlaps(). */
static bool devno_holds(const struct target *t, unsigned int major, unsigned int minor, bool same_fs)
{
	if (S_ISBLK(t->st.st_mode))
		return (major == major(t->st.st_rdev) && minor == minor(t->st.st_rdev) &&
			(!same_fs || t->start == 0)) ||
		       partition_holds(t, major, minor, same_fs);
	return S_ISREG(t->st.st_mode) && loop_holds(t, major, minor, same_fs);
}

/* A stalefs-fuse mount (type fuse.stalefs) names its image as its source: the same file or
 * device, over bytes that meet the target's. */
static bool fuse_mount_holds(const struct target *t, const char *source)
{
	struct target f;

	if (!target_of(source, &f))
		return false;
	if (S_ISBLK(t->st.st_mode) ? !S_ISBLK(f.st.st_mode) || f.st.st_rdev != t->st.st_rdev
				   : f.st.st_dev != t->st.st_dev || f.st.st_ino != t->st.st_ino)
		return false;
	return f.start < t->end && t->start < f.end;
}

bool stalefs_device_is_mounted(const char *device)
{
	struct target t;
	struct stat st;
	struct mntent *m;
	FILE *f;
	bool mounted = false;

	if (!target_of(device, &t))
		return false;
	f = setmntent("/proc/mounts", "r");
	if (!f)
		return false;
	while (!mounted && (m = getmntent(f))) {
		if (strcmp(m->mnt_type, "fuse.stalefs") == 0)
			mounted = fuse_mount_holds(&t, m->mnt_fsname);
		else
			mounted = stat(m->mnt_fsname, &st) == 0 && S_ISBLK(st.st_mode) &&
				  devno_holds(&t, major(st.st_rdev), minor(st.st_rdev), false);
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

/*
 * By device number, from /proc/self/mountinfo (the mount table of this
 * process's namespace), not by the name /proc/mounts shows: that name may be
 * /dev/root or a path that no longer exists.  A read-write mount is preferred
 * over a read-only one (a bind mount may be read-only while the filesystem
 * is not); the first of each kind wins.
 */
bool stalefs_mount_point(const char *device, char *dir, size_t len, bool *read_only)
{
	struct target target;
	char *line = NULL;
	size_t cap = 0;
	bool found = false, found_rw = false;
	FILE *f;

	if (!target_of(device, &target))
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
		if (!devno_holds(&target, major, minor, true))
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
