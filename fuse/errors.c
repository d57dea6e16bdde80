// SPDX-License-Identifier: GPL-2.0
/*
 * libstalefs errors as the errno values file system calls report, in one
 * table: damage is EUCLEAN (the kernel module's and ext4's EFSCORRUPTED), the
 * device failing is EIO.  Damage and I/O errors are logged once per inode
 * and kind, so a damaged image does not flood the log while it is walked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>
#include "stalefs_fuse.h"

static const struct {
	errcode_t err;
	int errnum;
} table[] = {
	{ STALEFS_ERR_NOT_FOUND, ENOENT },
	{ STALEFS_ERR_EXISTS, EEXIST },
	{ STALEFS_ERR_NAME_TOO_LONG, ENAMETOOLONG },
	{ STALEFS_ERR_BAD_NAME, EINVAL },
	{ STALEFS_ERR_NOT_DIR, ENOTDIR },
	{ STALEFS_ERR_IS_DIR, EISDIR },
	{ STALEFS_ERR_DIR_NOT_EMPTY, ENOTEMPTY },
	{ STALEFS_ERR_NO_SPACE, ENOSPC },
	{ STALEFS_ERR_NO_INODES, ENOSPC },
	{ STALEFS_ERR_FILE_TOO_BIG, EFBIG },
	{ STALEFS_ERR_RO_FILSYS, EROFS },
	{ STALEFS_ERR_TOO_MANY_LINKS, EMLINK },
	{ STALEFS_ERR_SYMLINK_LOOP, ELOOP },
	{ STALEFS_ERR_NOT_REGULAR, EINVAL },
	{ STALEFS_ERR_BAD_ARGUMENT, EINVAL },
	{ STALEFS_ERR_NO_MEMORY, ENOMEM },
	{ STALEFS_ERR_XATTR_NOT_FOUND, ENODATA },
	{ STALEFS_ERR_XATTR_EXISTS, EEXIST },
	{ STALEFS_ERR_XATTR_RANGE, ERANGE },
	{ STALEFS_ERR_XATTR_NO_SPACE, ENOSPC },
	{ STALEFS_ERR_XATTR_BAD_NAME, EOPNOTSUPP },
	{ STALEFS_ERR_NO_STALE_GID, EOPNOTSUPP },
	{ STALEFS_ERR_STALE_UNCONFINED, EPERM },
	{ STALEFS_ERR_JOURNAL_ABORTED, EROFS },
	{ STALEFS_ERR_JOURNAL_FULL, ENOSPC },
	/* the device */
	{ STALEFS_ERR_SHORT_READ, EIO },
	{ STALEFS_ERR_SHORT_WRITE, EIO },
	{ STALEFS_ERR_PAST_REGION, EIO },
	{ STALEFS_ERR_NO_BITMAPS, EIO },
};

int sfuse_errno(errcode_t err)
{
	size_t i;

	if (err > 0 && err < 4096)
		return (int)err;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].err == err)
			return table[i].errnum;
	/* Everything else a library call can return is damage it found: a checksum, a rule a
	 * verifier names, a block or inode number that cannot be. */
	return EUCLEAN;
}

/* Damage and device errors worth a line; what users cause (ENOENT, EEXIST ...) is not. */
static bool worth_reporting(errcode_t err)
{
	int e = sfuse_errno(err);

	return e == EUCLEAN || e == EIO || err == STALEFS_ERR_STALE_UNCONFINED;
}

void sfuse_report(u32 ino, errcode_t err, const char *what)
{
	static struct {
		u32 ino;
		errcode_t err;
	} seen[256];
	static unsigned next;
	unsigned i;

	if (!worth_reporting(err))
		return;
	for (i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		if (seen[i].ino == ino && seen[i].err == err)
			return;
	seen[next].ino = ino;
	seen[next].err = err;
	next = (next + 1) % (sizeof(seen) / sizeof(seen[0]));
	S.errors_reported++;
	if (ino)
		sfuse_log(LOG_ERR, "%s: inode %u: %s while %s", S.opts.image, ino, error_message(err), what);
	else
		sfuse_log(LOG_ERR, "%s: %s while %s", S.opts.image, error_message(err), what);
}

void sfuse_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (S.use_syslog) {
		vsyslog(prio, fmt, ap);
	} else {
		fprintf(stderr, "%s: ", program_name);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		fflush(stderr);
	}
	va_end(ap);
}
