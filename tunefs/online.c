// SPDX-License-Identifier: GPL-2.0
/*
 * Changing a mounted filesystem: through the kernel, at its mount point.
 * The kernel holds the superblock in a buffer it rewrites and writes back
 * on its own, so tunefs must not write the device under it; the label goes
 * through the generic FS_IOC_SETFSLABEL and the check schedule and error
 * behaviour through STALEFS_IOC_SET_TUNE, which change that buffer under its
 * lock and write it (kernel/tune.c), as tune2fs does with ext4's ioctls.
 * Only those settings: -U, -G and the journal stay for an unmounted
 * filesystem.  The kernel checks every value against the same limits
 * (stalefs_format.h) that options.c already applied.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fs.h>
#include "stalefs_ioctl.h"
#include "tunefs.h"

bool tune_online_possible(const struct tune_opts *o)
{
	return !(o->set_uuid || o->set_stale_gid || o->add_journal || o->remove_journal || o->add_xattr ||
		 o->remove_xattr);
}

/* What an ioctl's refusal means for the user; nothing was changed by it. */
static void ioctl_failed(const struct tune_opts *o, const char *mnt, const char *what, int err)
{
	fprintf(stderr, "%s: while %s of %s (mounted on %s): %s\n", program_name, what, o->device, mnt,
		strerror(err));
	if (err == EPERM || err == EACCES)
		fprintf(stderr, "%s: changing a mounted filesystem needs CAP_SYS_ADMIN (run as root)\n",
			program_name);
	else if (err == EROFS)
		fprintf(stderr, "%s: %s is mounted read-only: remount it read-write, or unmount it, first\n",
			program_name, mnt);
	else if (err == EIO)
		fprintf(stderr, "%s: the filesystem is shut down or cannot write its superblock: unmount it "
			"and run fsck.stalefs\n", program_name);
}

static int set_tune(const struct tune_opts *o, const char *mnt, int fd)
{
	struct stalefs_tune t;

	memset(&t, 0, sizeof(t));
	if (o->set_errors) {
		t.set |= STALEFS_TUNE_ERRORS;
		t.s_errors = o->errors;
	}
	if (o->set_max_mnt) {
		t.set |= STALEFS_TUNE_MAX_MNT_COUNT;
		t.s_max_mnt_count = o->max_mnt;
	}
	if (o->set_mnt_count) {
		t.set |= STALEFS_TUNE_MNT_COUNT;
		t.s_mnt_count = o->mnt_count;
	}
	if (o->set_interval) {
		t.set |= STALEFS_TUNE_CHECKINTERVAL;
		t.s_checkinterval = o->interval;
	}
	if (o->set_lastcheck) {
		t.set |= STALEFS_TUNE_LASTCHECK;
		t.s_lastcheck = o->lastcheck;
	}
	if (!t.set)
		return TUNEFS_OK;
	if (ioctl(fd, STALEFS_IOC_SET_TUNE, &t) < 0) {
		ioctl_failed(o, mnt, "changing the settings", errno);
		return TUNEFS_ERROR;
	}
	tune_report_plain(o);
	return TUNEFS_OK;
}

int tune_online(const struct tune_opts *o)
{
	char mnt[PATH_MAX], label[FSLABEL_MAX];
	struct stalefs_tune probe;
	bool read_only;
	int fd, rc;

	if (!stalefs_mount_point(o->device, mnt, sizeof(mnt), &read_only)) {
		fprintf(stderr, "%s: %s is mounted, but not by the kernel module here (through stalefs-fuse, or "
			"in another mount namespace): unmount it first; nothing was changed\n", program_name,
			o->device);
		return TUNEFS_ERROR;
	}
	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open the mount point %s of %s: %s; nothing was changed\n",
			program_name, mnt, o->device, strerror(errno));
		return TUNEFS_ERROR;
	}
	/* GET_TUNE came with the others: without it the module is too old for any of them. */
	if (ioctl(fd, STALEFS_IOC_GET_TUNE, &probe) < 0) {
		if (errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP)
			fprintf(stderr, "%s: %s is mounted, and the stalefs module loaded cannot change a mounted "
				"filesystem (it predates STALEFS_IOC_SET_TUNE); unmount it first; nothing was "
				"changed\n", program_name, o->device);
		else
			ioctl_failed(o, mnt, "reading the settings", errno);
		close(fd);
		return TUNEFS_ERROR;
	}
	/* The settings first: a refusal there (EPERM, EROFS) leaves the label alone too. */
	rc = set_tune(o, mnt, fd);
	if (!rc && o->set_label) {
		memset(label, 0, sizeof(label));
		memcpy(label, o->label, strlen(o->label));	/* options.c: at most STALEFS_LABEL_MAX bytes */
		if (ioctl(fd, FS_IOC_SETFSLABEL, label) < 0) {
			ioctl_failed(o, mnt, "setting the label", errno);
			rc = TUNEFS_ERROR;
		}
	}
	close(fd);
	return rc;
}
