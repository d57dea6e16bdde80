/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * stalefs user API: the NO_HIDE_STALE allocation request, shutdown, and the
 * settings of a mounted filesystem's superblock.
 *
 * Linux's vfs_fallocate() rejects FALLOC_FL_NO_HIDE_STALE (0x04) before a
 * filesystem sees it, so stalefs takes the request through this ioctl on a
 * file descriptor open for writing.  Installed as <stalefs/stalefs_ioctl.h>;
 * the kernel module and the tools include this same file.
 */
#ifndef STALEFS_IOCTL_H
#define STALEFS_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#ifndef FALLOC_FL_KEEP_SIZE
#define FALLOC_FL_KEEP_SIZE		0x01
#endif
#ifndef FALLOC_FL_NO_HIDE_STALE
#define FALLOC_FL_NO_HIDE_STALE		0x04
#endif

/* Mode bits the ioctl accepts; any other bit is EINVAL. */
#define STALEFS_FALLOC_MODES	(FALLOC_FL_KEEP_SIZE | FALLOC_FL_NO_HIDE_STALE)

struct stalefs_falloc_args {
	__u64 offset;		/* bytes */
	__u64 length;		/* bytes, > 0 */
	__u32 mode;		/* FALLOC_FL_KEEP_SIZE | FALLOC_FL_NO_HIDE_STALE */
	__u32 reserved;		/* must be 0 */
};

/*
 * Allocate [offset, offset+length) like fallocate(2).  With
 * FALLOC_FL_NO_HIDE_STALE, holes and unwritten extents in the range become
 * STALE extents (not zeroed; they read back what the disk held).  Errors:
 * EOPNOTSUPP the mount is not armed (no nohide_stale_gid= option);
 * EPERM caller not in the permitted group (nor CAP_SYS_RAWIO), or the file is
 * not confined (its group is not the permitted one, or others may read it);
 * EINVAL bad mode bits, reserved != 0, length 0, or offset+length overflows;
 * EBADF not open for writing; ENODEV not a regular file; ETXTBSY swapfile;
 * EFBIG past the size limit; ENOSPC; EROFS.
 */
#define STALEFS_IOC_FALLOCATE	_IOW('S', 0x01, struct stalefs_falloc_args)

/* Reports the permitted group recorded in the superblock (or 0xFFFFFFFF) and whether the mount is armed. */
struct stalefs_stale_info {
	__u32 stale_gid;
	__u32 armed;		/* 1 when mounted with nohide_stale_gid= */
	__u64 reserved[2];
};
#define STALEFS_IOC_STALE_INFO	_IOR('S', 0x02, struct stalefs_stale_info)

/*
 * Shut the filesystem down (CAP_SYS_ADMIN), as XFS_IOC_GOINGDOWN and ext4's
 * EXT4_IOC_SHUTDOWN do (same number, same flags, so xfs_io's "shutdown"
 * works): from then on nothing more is written and every operation fails
 * with EIO, leaving the disk as a crash at that moment would.  DEFAULT
 * freezes the filesystem first (everything done so far is written),
 * LOGFLUSH commits the journal first, NOLOGFLUSH stops at once.
 */
#define STALEFS_GOING_FLAGS_DEFAULT	0x0
#define STALEFS_GOING_FLAGS_LOGFLUSH	0x1
#define STALEFS_GOING_FLAGS_NOLOGFLUSH	0x2
#define STALEFS_IOC_GOINGDOWN	_IOR('X', 125, __u32)

/*
 * The check schedule and error behaviour of a mounted filesystem, changed
 * through the kernel (tunefs.stalefs on a mounted device; ext4's
 * EXT4_IOC_SET_TUNE_SB_PARAM does the same job).  The fields are the
 * superblock's of the same names (stalefs_format.h); only those whose bit is
 * in `set` change.  The label goes through the generic FS_IOC_GETFSLABEL /
 * FS_IOC_SETFSLABEL (<linux/fs.h>; at most STALEFS_LABEL_MAX bytes).
 * SET_TUNE errors: EPERM without CAP_SYS_ADMIN; EINVAL an unknown bit in
 * `set`, a reserved field not 0, s_errors not a STALEFS_ERRORS_* value,
 * s_max_mnt_count above STALEFS_MAX_MNT_COUNT_LIMIT; EROFS read-only; EIO
 * shut down, or the superblock write failed.  s_errors is the on-disk
 * default: an errors= mount option stays in force until a remount gives
 * another (without one, the mount follows the new default at once).
 * GET_TUNE reads the superblock as the kernel holds it, with every bit of
 * STALEFS_TUNE_ALL in `set`; anyone may ask.
 */
#define STALEFS_TUNE_ERRORS		0x01	/* s_errors */
#define STALEFS_TUNE_MAX_MNT_COUNT	0x02	/* s_max_mnt_count */
#define STALEFS_TUNE_MNT_COUNT		0x04	/* s_mnt_count */
#define STALEFS_TUNE_CHECKINTERVAL	0x08	/* s_checkinterval */
#define STALEFS_TUNE_LASTCHECK		0x10	/* s_lastcheck */
#define STALEFS_TUNE_ALL		0x1f

struct stalefs_tune {
	__u32 set;		/* STALEFS_TUNE_* */
	__u16 s_errors;		/* STALEFS_ERRORS_* */
	__u16 reserved0;	/* must be 0 */
	__u32 s_max_mnt_count;	/* 0: no mount-count check */
	__u32 s_mnt_count;
	__u32 s_checkinterval;	/* seconds, 0: no time-based check */
	__u32 reserved1;	/* must be 0 */
	__s64 s_lastcheck;	/* seconds since the epoch */
	__u64 reserved[2];	/* must be 0 */
};
#define STALEFS_IOC_SET_TUNE	_IOW('S', 0x03, struct stalefs_tune)
#define STALEFS_IOC_GET_TUNE	_IOR('S', 0x04, struct stalefs_tune)

/*
 * Grow a mounted filesystem to `*arg` blocks (CAP_SYS_RESOURCE), the number
 * and shape of ext4's EXT4_IOC_RESIZE_FS; resize.stalefs uses it when the
 * device is mounted.  New groups, their descriptors and backups, the short
 * last group made whole, in one transaction (FORMAT.md 12).  A last group
 * too small to hold its own metadata is left off, as mkfs does: statfs
 * says the size reached.  Errors: EPERM; EINVAL a smaller size (shrinking
 * needs the filesystem unmounted) or one the format cannot take; ENOSPC
 * larger than the device; EROFS read-only; EIO shut down; EFAULT.
 */
#define STALEFS_IOC_RESIZE_FS	_IOW('f', 16, __u64)

#endif /* STALEFS_IOCTL_H */
