// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX ACLs: kept as the system.posix_acl_access and _default attributes in
 * the kernel's posix_acl_xattr encoding (FORMAT.md 14), ids as the initial
 * user namespace sees them, so that mkfs -d copies them byte for byte.
 */
#include <linux/slab.h>
#include "xattr.h"
#include <linux/posix_acl_xattr.h>

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

/* An ACL as its attribute's value (kmalloc'd), or NULL and size 0 for none. */
static int acl_encode(struct posix_acl *acl, void **value, size_t *size)
{
	int err;

	*value = NULL;
	*size = 0;
	if (!acl)
		return 0;
	*size = posix_acl_xattr_size(acl->a_count);
	*value = kmalloc(*size, GFP_NOFS);
	if (!*value)
		return -ENOMEM;
	err = posix_acl_to_xattr(&init_user_ns, acl, *value, *size);
	if (err < 0) {
		kfree(*value);
		*value = NULL;
		return err;
	}
	return 0;
}

/* Store one ACL (not NULL), in the caller's handle: a new inode's inherited ones. */
int stalefs_acl_store(struct inode *inode, int type, struct posix_acl *acl)
{
	void *value;
	size_t size;
	int err;

	if (type == ACL_TYPE_DEFAULT && !S_ISDIR(inode->i_mode))
		return acl ? -EACCES : 0;
	err = acl_encode(acl, &value, &size);
	if (err)
		return err;
	err = stalefs_xattr_change_handle(inode, acl_index(type), "", value, size, 0);
	if (!err)
		set_cached_acl(inode, type, acl);
	kfree(value);
	return err;
}

/* ->set_acl (setfacl, chmod through posix_acl_chmod): the ACL and the mode it implies, together. */
int stalefs_set_acl(struct user_namespace *mnt_userns, struct inode *inode,
		    struct posix_acl *acl, int type)
{
	umode_t mode = inode->i_mode;
	void *value;
	size_t size;
	int err;

	if (type == ACL_TYPE_DEFAULT && !S_ISDIR(inode->i_mode))
		return acl ? -EACCES : 0;
	if (type == ACL_TYPE_ACCESS && acl) {
		/* An ACL the mode says all of goes away; the mode takes what it can. */
		err = posix_acl_update_mode(mnt_userns, inode, &mode, &acl);
		if (err)
			return err;
	}
	err = acl_encode(acl, &value, &size);
	if (err)
		return err;
	err = stalefs_xattr_change_mode(inode, acl_index(type), "", value, size, 0, mode, true);
	if (!err)
		set_cached_acl(inode, type, acl);
	kfree(value);
	return err;
}
