// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attributes through libstalefs (FORMAT.md 14), and POSIX ACLs
 * kept in step with the mode: an access ACL that says no more than the mode
 * is not stored (the mode says it), one that says more sets the mode's
 * group bits to its mask; chmod rewrites the ACL; a new inode gets its
 * directory's default ACL (acl.c).  A filesystem without the xattr feature
 * answers EOPNOTSUPP, as the kernel module does.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/xattr.h>
#include "stalefs_fuse.h"

static int lib_flags(int flags)
{
	return ((flags & XATTR_CREATE) ? STALEFS_XATTR_CREATE : 0) | ((flags & XATTR_REPLACE) ? STALEFS_XATTR_REPLACE : 0);
}

/* A stored attribute in a fresh buffer (NULL and *err when there is none or it cannot be read). */
static void *get_attr(u32 ino, const char *name, size_t *size, errcode_t *err)
{
	void *buf;

	*err = stalefs_xattr_get(S.fs, ino, name, NULL, 0, size);
	if (*err)
		return NULL;
	buf = malloc(*size ? *size : 1);
	if (!buf) {
		*err = STALEFS_ERR_NO_MEMORY;
		return NULL;
	}
	*err = stalefs_xattr_get(S.fs, ino, name, buf, *size, size);
	if (*err) {
		free(buf);
		return NULL;
	}
	return buf;
}

errcode_t sfuse_inherit_acl(struct sfuse *s, u32 dir, u32 ino, u16 *mode, mode_t umask)
{
	void *def, *acl;
	size_t size;
	bool equiv;
	errcode_t err;

	if (!s->acl)
		return 0;	/* the kernel applied the umask */
	def = get_attr(dir, SFUSE_ACL_DEFAULT, &size, &err);
	if (err == STALEFS_ERR_XATTR_NOT_FOUND) {
		*mode &= (u16)~umask;
		return 0;
	}
	if (!err && sfuse_acl_valid(def, size))
		err = STALEFS_ERR_XATTR_CORRUPT;
	if (err) {
		free(def);
		return err;
	}
	acl = malloc(size);
	if (!acl) {
		free(def);
		return STALEFS_ERR_NO_MEMORY;
	}
	/* The default ACL replaces the umask (acl(5)). */
	sfuse_acl_create(def, size, acl, mode, &equiv);
	if (!equiv)
		err = stalefs_xattr_set(s->fs, ino, SFUSE_ACL_ACCESS, acl, size, 0);
	if (!err && S_ISDIR(*mode))
		err = stalefs_xattr_set(s->fs, ino, SFUSE_ACL_DEFAULT, def, size, 0);
	free(acl);
	free(def);
	return err;
}

errcode_t sfuse_acl_follow_mode(struct sfuse *s, u32 ino, u16 mode)
{
	size_t size;
	errcode_t err;
	void *acl = get_attr(ino, SFUSE_ACL_ACCESS, &size, &err);

	if (err == STALEFS_ERR_XATTR_NOT_FOUND)
		return 0;
	if (!err && sfuse_acl_valid(acl, size))
		err = STALEFS_ERR_XATTR_CORRUPT;
	if (!err) {
		sfuse_acl_chmod(acl, size, mode);
		err = stalefs_xattr_set(s->fs, ino, SFUSE_ACL_ACCESS, acl, size, STALEFS_XATTR_REPLACE);
	}
	free(acl);
	return err;
}

void sfuse_getxattr(fuse_req_t req, fuse_ino_t fino, const char *name, size_t size)
{
	u32 ino = sfuse_ino(fino);
	size_t len = 0;
	char *buf = NULL;
	errcode_t err;

	if (!S.xattr_ok) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	if (size && !(buf = malloc(size))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_lock(&S.lock);
	err = stalefs_xattr_get(S.fs, ino, name, buf, size, &len);
	if (err)
		sfuse_report(ino, err, "reading an extended attribute");
	pthread_mutex_unlock(&S.lock);
	if (err)
		fuse_reply_err(req, sfuse_errno(err));
	else if (!size)
		fuse_reply_xattr(req, len);
	else
		fuse_reply_buf(req, buf, len);
	free(buf);
}

struct names {
	char *buf;
	size_t len, cap;
};

static int name_cb(const char *name, const void *value, size_t size, void *priv)
{
	struct names *n = priv;
	size_t l = strlen(name) + 1;

	(void)value;
	(void)size;
	if (n->len + l > n->cap) {
		char *b = realloc(n->buf, (n->len + l) * 2);

		if (!b)
			return -1;
		n->buf = b;
		n->cap = (n->len + l) * 2;
	}
	memcpy(n->buf + n->len, name, l);
	n->len += l;
	return 0;
}

void sfuse_listxattr(fuse_req_t req, fuse_ino_t fino, size_t size)
{
	struct names n = { NULL, 0, 0 };
	u32 ino = sfuse_ino(fino);
	errcode_t err;

	if (!S.xattr_ok) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	pthread_mutex_lock(&S.lock);
	err = stalefs_xattr_iterate(S.fs, ino, name_cb, &n);
	if (err)
		sfuse_report(ino, err, "listing extended attributes");
	pthread_mutex_unlock(&S.lock);
	if (err)
		fuse_reply_err(req, err == -1 ? ENOMEM : sfuse_errno(err));
	else if (!size)
		fuse_reply_xattr(req, n.len);
	else if (n.len > size)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, n.buf, n.len);
	free(n.buf);
}

/* The ctime of an inode whose attributes changed (and, for an access ACL, its mode). */
static errcode_t touch(u32 ino, const u16 *mode)
{
	struct stalefs_inode inode;
	errcode_t err = stalefs_read_inode(S.fs, ino, &inode);

	if (err)
		return err;
	if (mode)
		inode.i_mode = cpu_to_le16(*mode);
	sfuse_set_times_now(&inode, false, false, true);
	return stalefs_write_inode(S.fs, ino, &inode);
}

/* system.posix_acl_access: the mode follows; an ACL the mode says all of is not kept. */
static errcode_t set_access_acl(u32 ino, const char *value, size_t size, int flags)
{
	struct stalefs_inode inode;
	bool equiv;
	u16 mode;
	errcode_t err = stalefs_read_inode(S.fs, ino, &inode);

	if (err)
		return err;
	mode = sfuse_acl_mode(value, size, le16_to_cpu(inode.i_mode), &equiv);
	if (!stalefs_stale_attr_allowed(S.fs, &inode, NULL, NULL, &mode))
		return EPERM;
	if (equiv) {
		err = stalefs_xattr_delete(S.fs, ino, SFUSE_ACL_ACCESS);
		if (err == STALEFS_ERR_XATTR_NOT_FOUND && !(flags & STALEFS_XATTR_REPLACE))
			err = 0;
	} else {
		err = stalefs_xattr_set(S.fs, ino, SFUSE_ACL_ACCESS, value, size, flags);
	}
	return err ? err : touch(ino, &mode);
}

void sfuse_setxattr(fuse_req_t req, fuse_ino_t fino, const char *name, const char *value, size_t size, int flags)
{
	u32 ino = sfuse_ino(fino);
	bool access = strcmp(name, SFUSE_ACL_ACCESS) == 0, def = strcmp(name, SFUSE_ACL_DEFAULT) == 0;
	errcode_t err = 0;
	int rc;

	if (!S.xattr_ok) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	if ((access || def) && sfuse_acl_valid(value, size)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	pthread_mutex_lock(&S.lock);
	rc = sfuse_writable(&S);
	if (rc)
		goto out;
	if (def) {
		struct stalefs_inode inode;

		err = stalefs_read_inode(S.fs, ino, &inode);
		if (!err && (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFDIR) {
			rc = EACCES;	/* only directories have default ACLs */
			goto out;
		}
	}
	if (!err && access)
		err = set_access_acl(ino, value, size, lib_flags(flags));
	else if (!err)
		err = stalefs_xattr_set(S.fs, ino, name, value, size, lib_flags(flags));
	if (err == STALEFS_ERR_NO_SPACE && stalefs_txn_busy_blocks(S.fs) && !sfuse_commit(&S))
		err = access ? set_access_acl(ino, value, size, lib_flags(flags))
			     : stalefs_xattr_set(S.fs, ino, name, value, size, lib_flags(flags));
	if (!err && !access)
		err = touch(ino, NULL);
	if (err) {
		sfuse_report(ino, err, "setting an extended attribute");
		rc = sfuse_errno(err);
	}
	sfuse_changed(&S);
out:
	pthread_mutex_unlock(&S.lock);
	fuse_reply_err(req, rc);
}

void sfuse_removexattr(fuse_req_t req, fuse_ino_t fino, const char *name)
{
	u32 ino = sfuse_ino(fino);
	errcode_t err;
	int rc;

	if (!S.xattr_ok) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	pthread_mutex_lock(&S.lock);
	rc = sfuse_writable(&S);
	if (!rc) {
		err = stalefs_xattr_delete(S.fs, ino, name);
		if (!err)
			err = touch(ino, NULL);
		if (err) {
			sfuse_report(ino, err, "removing an extended attribute");
			rc = sfuse_errno(err);
		}
		sfuse_changed(&S);
	}
	pthread_mutex_unlock(&S.lock);
	fuse_reply_err(req, rc);
}
