// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX ACLs: kept as the system.posix_acl_access and _default attributes in
 * the kernel's posix_acl_xattr encoding (FORMAT.md 14), ids as the initial
 * user namespace sees them, so that mkfs -d copies them byte for byte.
 */
#include <linux/slab.h>
#include "xattr.h"
#include <linux/posix_acl_xattr.h>
#include "journal.h"

static u8 acl_index(int type)
{
	return type == ACL_TYPE_ACCESS ? STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS :
					 STALEFS_XATTR_INDEX_POSIX_ACL_DEFAULT;
}

struct posix_acl *stalefs_get_acl(struct inode *inode, int type, bool rcu)
{
	struct posix_acl *acl;
	void *value = NULL;
	int size;

	if (rcu)
		return ERR_PTR(-ECHILD);
	/* The value may change between sizing and reading it: ERANGE says try again. */
	do {
		kfree(value);
		value = NULL;
		size = stalefs_xattr_read(inode, acl_index(type), "", NULL, 0);
		if (size <= 0)
			break;
		value = kmalloc(size, GFP_NOFS);
		if (!value)
			return ERR_PTR(-ENOMEM);
		size = stalefs_xattr_read(inode, acl_index(type), "", value, size);
	} while (size == -ERANGE);
	if (size == -ENODATA || size == -EOPNOTSUPP || size == 0)
		acl = NULL;
	else if (size < 0)
		acl = ERR_PTR(size);
	else
		acl = posix_acl_from_xattr(&init_user_ns, value, size);
	kfree(value);
	return acl;
}

/* Store (or, acl NULL, remove) one ACL, in the caller's handle. */
int stalefs_acl_store(struct inode *inode, int type, struct posix_acl *acl)
{
	void *value = NULL;
	size_t size = 0;
	int err;

	if (type == ACL_TYPE_DEFAULT && !S_ISDIR(inode->i_mode))
		return acl ? -EACCES : 0;
	if (acl) {
		size = posix_acl_xattr_size(acl->a_count);
		value = kmalloc(size, GFP_NOFS);
		if (!value)
			return -ENOMEM;
		err = posix_acl_to_xattr(&init_user_ns, acl, value, size);
		if (err < 0)
			goto out;
	}
	err = stalefs_xattr_change_handle(inode, acl_index(type), "", value, size, 0);
	if (err == -ENODATA && !acl)
		err = 0;	/* removing what is not there */
	if (!err)
		set_cached_acl(inode, type, acl);
out:
	kfree(value);
	return err;
}

/* ->set_acl (setfacl, chmod through posix_acl_chmod): the ACL and the mode it implies, together. */
int stalefs_set_acl(struct user_namespace *mnt_userns, struct inode *inode,
		    struct posix_acl *acl, int type)
{
	struct super_block *sb = inode->i_sb;
	umode_t mode = inode->i_mode;
	handle_t *handle;
	int err, err2, retries = 0;

	if (type == ACL_TYPE_ACCESS && acl) {
		/* An ACL the mode says all of goes away; the mode takes what it can. */
		err = posix_acl_update_mode(mnt_userns, inode, &mode, &acl);
		if (err)
			return err;
	}
retry:
	handle = stalefs_journal_start(sb, stalefs_xattr_credits(sb), 1);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	err = stalefs_acl_store(inode, type, acl);
	if (!err) {
		inode->i_mode = mode;
		inode->i_ctime = current_time(inode);
		err = stalefs_inode_to_table(inode, false, true);
	}
	err2 = stalefs_journal_stop(sb, handle);
	if (err == -ENOSPC && stalefs_should_retry_alloc(sb, &retries))
		goto retry;
	return err ? err : err2;
}
