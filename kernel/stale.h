/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NO_HIDE_STALE: confined stale allocation (docs/DESIGN.md section 2).
 *
 * The rest of the module calls these few hooks; everything about who may
 * allocate stale blocks, and which files may hold them, lives in stale.c.
 */
#ifndef STALEFS_STALE_H
#define STALEFS_STALE_H

#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/seq_file.h>

/*
 * Mount: arm the feature (given: nohide_stale_gid=gid was passed), record the
 * permitted group when none is, refuse a different one.  Without the option
 * the mount is disarmed.  Used by fill_super and by remount.
 */
int stalefs_stale_mount(struct super_block *sb, struct fs_context *fc, bool given, u32 gid,
			bool will_be_ro);
void stalefs_stale_show_options(struct seq_file *seq, struct super_block *sb);

/* file_operations: STALEFS_IOC_FALLOCATE and STALEFS_IOC_STALE_INFO. */
long stalefs_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* ->fallocate with FALLOC_FL_NO_HIDE_STALE, once the VFS checks are done. */
long stalefs_stale_fallocate(struct file *file, int mode, loff_t offset, loff_t len);

/*
 * setattr: EPERM when the change would let an inode holding STALE extents
 * escape its group (a new gid other than the permitted one, or adding read
 * permission for others), armed or not.
 */
int stalefs_stale_setattr_check(struct user_namespace *mnt_userns, struct inode *inode,
				const struct iattr *attr);

/* After a write of [pos, pos+len): STALE extents it wholly rewrote lose the mark. */
void stalefs_stale_written(struct inode *inode, loff_t pos, ssize_t len, bool direct);

/* Under i_map_sem (write), in a handle: the inode's STALE flag follows its extents. */
void stalefs_stale_sync_flag(struct inode *inode);

/* Reads of a file holding STALE extents: 0, or EPERM if it is not confined. */
int stalefs_stale_may_read(struct inode *inode);

#endif /* STALEFS_STALE_H */
