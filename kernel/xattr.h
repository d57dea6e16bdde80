/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extended attributes (FORMAT.md 14) and the POSIX ACLs kept in them.
 *
 * An inode's attributes live in two regions: the in-inode area (its table
 * slot past byte 256, when s_inode_size is larger) and one external block
 * it alone owns (i_xattr_block).  i_xattr_sem guards both; lock order:
 * (handle start), i_xattr_sem, i_map_sem, alloc_lock, buffer locks.
 */
#ifndef STALEFS_KERNEL_XATTR_H
#define STALEFS_KERNEL_XATTR_H

#include <linux/xattr.h>
#include <linux/posix_acl.h>
#include "stalefs.h"

extern const struct xattr_handler *stalefs_xattr_handlers[];

static inline bool stalefs_has_xattr(struct super_block *sb)
{
	return le32_to_cpu(STALEFS_SB(sb)->raw->s_feature_ro_compat) &
	       STALEFS_FEATURE_RO_COMPAT_XATTR;
}

/* Credits of one attribute change: the inode's table block, its xattr block, an allocation. */
int stalefs_xattr_credits(struct super_block *sb);

ssize_t stalefs_listxattr(struct dentry *dentry, char *buf, size_t size);
int stalefs_xattr_read(struct inode *inode, u8 index, const char *name, void *buf, size_t size);
/* value NULL removes; flags XATTR_CREATE / XATTR_REPLACE.  Starts its own transaction. */
int stalefs_xattr_change(struct inode *inode, u8 index, const char *name, const void *value,
		      size_t size, int flags);
/*
 * The same, the inode's mode set to mode in the same transaction (an ACL's,
 * stalefs_set_acl); absent_ok: removing what is not there is no error.
 */
int stalefs_xattr_change_mode(struct inode *inode, u8 index, const char *name,
			      const void *value, size_t size, int flags, umode_t mode,
			      bool absent_ok);
/* The same inside the caller's handle, which counted stalefs_xattr_credits(). */
int stalefs_xattr_change_handle(struct inode *inode, u8 index, const char *name,
			     const void *value, size_t size, int flags);

/*
 * A new inode, in its creation handle: its slot's area is zeroed (a slot's
 * earlier life may have left attributes there), then the ACLs inherited
 * from dir and the security labels the LSMs give it are stored.
 */
int stalefs_xattr_init_new(struct inode *inode, struct inode *dir, const struct qstr *qstr);
/* Free the inode's xattr block (if it is the inode's own), in the caller's handle. */
void stalefs_xattr_drop(struct inode *inode);

/* acl.c */
struct posix_acl *stalefs_get_acl(struct inode *inode, int type, bool rcu);
int stalefs_set_acl(struct user_namespace *mnt_userns, struct inode *inode,
		    struct posix_acl *acl, int type);
/* A new inode's inherited ACL (not NULL), in its creation handle. */
int stalefs_acl_store(struct inode *inode, int type, struct posix_acl *acl);

#endif /* STALEFS_KERNEL_XATTR_H */
