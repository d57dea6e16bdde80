// SPDX-License-Identifier: GPL-2.0
/*
 * Names: create, mknod, mkdir, symlink, link, unlink, rmdir, rename (with
 * RENAME_NOREPLACE, RENAME_EXCHANGE and RENAME_WHITEOUT), and reading
 * directories.  New inodes get the caller's owner, the directory's group
 * when it is set-group-ID (as every Unix file system does), and the
 * directory's default ACL or the caller's umask (xattrs.c).
 */
#include <errno.h>
#include <stdlib.h>
#include "stalefs_fuse.h"

/* Directory positions are byte offsets into the directory: entries never move (dir.c). */
struct dir_fill {
	fuse_req_t req;
	char *buf;
	size_t size, used;
	u64 from;
	bool plus;
	int err;
};

static bool is_dot(const char *name)
{
	return (name[0] == '.' && name[1] == '\0') || (name[0] == '.' && name[1] == '.' && name[2] == '\0');
}

static int fill_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct dir_fill *f = priv;
	u64 pos = (u64)de->lblk * fs->block_size + de->offset, next = pos + de->rec_len;
	size_t need;

	if (pos < f->from)
		return 0;
	if (f->plus) {
		struct fuse_entry_param e;

		memset(&e, 0, sizeof(e));
		if (is_dot(de->name) || sfuse_fill_entry(&S, de->ino, &e)) {
			/* No attributes (and no lookup counted): "." and "..", or an inode that does
			 * not verify -- its lookup will say so. */
			memset(&e, 0, sizeof(e));
			e.attr.st_ino = sfuse_fino(de->ino);
			e.attr.st_mode = (mode_t)stalefs_ft_to_mode(de->file_type);
		}
		need = fuse_add_direntry_plus(f->req, f->buf + f->used, f->size - f->used, de->name, &e, (off_t)next);
		if (need > f->size - f->used) {
			/* Did not fit: the lookup it counted is given back. */
			if (e.ino) {
				struct sfuse_node *n = sfuse_node_get(&S, de->ino, false);

				if (n && n->nlookup && !--n->nlookup)
					sfuse_node_maybe_release(&S, de->ino);
			}
			return 1;
		}
	} else {
		struct stat st;

		memset(&st, 0, sizeof(st));
		st.st_ino = sfuse_fino(de->ino);
		st.st_mode = (mode_t)stalefs_ft_to_mode(de->file_type);
		need = fuse_add_direntry(f->req, f->buf + f->used, f->size - f->used, de->name, &st, (off_t)next);
		if (need > f->size - f->used)
			return 1;
	}
	f->used += need;
	return 0;
}

static void do_readdir(fuse_req_t req, fuse_ino_t fino, size_t size, off_t off, bool plus)
{
	struct dir_fill f = { req, malloc(size ? size : 1), size, 0, (u64)off, plus, 0 };
	u32 ino = sfuse_ino(fino);
	errcode_t err;

	if (!f.buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_lock(&S.lock);
	err = stalefs_dir_iterate_from(S.fs, ino, (u32)((u64)off / S.fs->block_size), 0, fill_cb, &f);
	pthread_mutex_unlock(&S.lock);
	if (err && !f.used) {
		sfuse_report(ino, err, "reading a directory");
		fuse_reply_err(req, sfuse_errno(err));
	} else {
		/* Damage part way: what came before it is listed (the next call reports it). */
		fuse_reply_buf(req, f.buf, f.used);
	}
	free(f.buf);
}

void sfuse_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	do_readdir(req, ino, size, off, false);
}

void sfuse_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	do_readdir(req, ino, size, off, true);
}

void sfuse_opendir(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	struct stalefs_inode inode;
	u32 ino = sfuse_ino(fino);
	errcode_t err;

	pthread_mutex_lock(&S.lock);
	err = stalefs_read_inode(S.fs, ino, &inode);
	if (!err && (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFDIR)
		err = STALEFS_ERR_NOT_DIR;
	if (err)
		sfuse_report(ino, err, "opening a directory");
	pthread_mutex_unlock(&S.lock);
	if (err) {
		fuse_reply_err(req, sfuse_errno(err));
		return;
	}
	fi->cache_readdir = 1;
	fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

void sfuse_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

void sfuse_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	(void)ino;
	(void)datasync;
	(void)fi;
	sfuse_reply_commit(req);
}

/* Owner, group and mode of a new inode in dir, as the caller asks (before its ACL). */
static errcode_t new_owner(fuse_req_t req, u32 dir, u32 *uid, u32 *gid, mode_t *mode)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct stalefs_inode d;
	errcode_t err = stalefs_read_inode(S.fs, dir, &d);

	if (err)
		return err;
	if ((le16_to_cpu(d.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFDIR)
		return STALEFS_ERR_NOT_DIR;
	*uid = ctx->uid;
	*gid = ctx->gid;
	if (le16_to_cpu(d.i_mode) & S_ISGID) {
		*gid = le32_to_cpu(d.i_gid);
		if (S_ISDIR(*mode))
			*mode |= S_ISGID;
	}
	return 0;
}

/* A new inode's directory-given ACL and final mode (and a device's number). */
static errcode_t finish_new(fuse_req_t req, u32 dir, u32 ino, mode_t mode, dev_t rdev)
{
	struct stalefs_inode inode;
	u16 m = (u16)mode;
	errcode_t err = sfuse_inherit_acl(&S, dir, ino, &m, fuse_req_ctx(req)->umask);

	if (err)
		return err;
	err = stalefs_read_inode(S.fs, ino, &inode);
	if (err)
		return err;
	inode.i_mode = cpu_to_le16((u16)((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) | (m & 07777)));
	if (S_ISCHR(mode) || S_ISBLK(mode))
		inode.i_rdev = cpu_to_le32(stalefs_encode_dev(major(rdev), minor(rdev)));
	return stalefs_write_inode(S.fs, ino, &inode);
}

/* The library calls that make an inode, one per kind. */
static errcode_t make_inode(u32 dir, const char *name, mode_t mode, const char *target, u32 uid, u32 gid,
			    u32 *ino)
{
	struct stalefs_inode d;
	errcode_t err;

	if (S_ISDIR(mode)) {
		err = stalefs_read_inode(S.fs, dir, &d);
		if (!err && le16_to_cpu(d.i_links_count) >= STALEFS_LINK_MAX)
			err = STALEFS_ERR_TOO_MANY_LINKS;
		return err ? err : stalefs_mkdir(S.fs, dir, name, (u16)(mode & 07777), uid, gid, ino);
	}
	if (target)
		return stalefs_symlink(S.fs, dir, name, target, uid, gid, ino);
	return stalefs_create(S.fs, dir, name, (u16)mode, uid, gid, ino);
}

/* Make a name, commit-and-retry once when out of space only because of blocks freed by the
 * running transaction; reply with the entry (and open it for create). */
static void new_entry(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev,
		      const char *target, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	u32 dir = sfuse_ino(parent), ino = 0, uid, gid;
	errcode_t err = 0;
	int rc;

	pthread_mutex_lock(&S.lock);
	rc = sfuse_writable(&S);
	if (rc)
		goto out;
	err = new_owner(req, dir, &uid, &gid, &mode);
	if (!err) {
		err = make_inode(dir, name, mode, target, uid, gid, &ino);
		if (err == STALEFS_ERR_NO_SPACE && stalefs_txn_busy_blocks(S.fs) && !sfuse_commit(&S))
			err = make_inode(dir, name, mode, target, uid, gid, &ino);
	}
	if (!err && !target)
		err = finish_new(req, dir, ino, mode, rdev);
	if (err) {
		sfuse_report(dir, err, "making a name");
		rc = sfuse_errno(err);
		if (ino)
			sfuse_changed(&S);
		goto out;
	}
	sfuse_changed(&S);
	rc = sfuse_fill_entry(&S, ino, &e);
	if (!rc && fi) {
		sfuse_node_get(&S, ino, true)->nopen++;
		fi->keep_cache = 1;
	}
out:
	pthread_mutex_unlock(&S.lock);
	if (rc)
		fuse_reply_err(req, rc);
	else if (fi)
		fuse_reply_create(req, &e, fi);
	else
		fuse_reply_entry(req, &e);
}

void sfuse_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi)
{
	new_entry(req, parent, name, (mode & 07777) | S_IFREG, 0, NULL, fi);
}

void sfuse_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	if (!S_ISREG(mode) && !S_ISCHR(mode) && !S_ISBLK(mode) && !S_ISFIFO(mode) && !S_ISSOCK(mode)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	new_entry(req, parent, name, mode, rdev, NULL, NULL);
}

void sfuse_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	new_entry(req, parent, name, (mode & 07777) | S_IFDIR, 0, NULL, NULL);
}

void sfuse_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	if (strlen(link) > STALEFS_SYMLINK_MAX || strlen(link) >= S.fs->block_size) {
		fuse_reply_err(req, ENAMETOOLONG);
		return;
	}
	new_entry(req, parent, name, S_IFLNK | 0777, 0, link, NULL);
}

void sfuse_link(fuse_req_t req, fuse_ino_t fino, fuse_ino_t newparent, const char *newname)
{
	struct fuse_entry_param e;
	struct stalefs_inode inode;
	u32 ino = sfuse_ino(fino), dir = sfuse_ino(newparent), other;
	errcode_t err;
	int rc;

	pthread_mutex_lock(&S.lock);
	rc = sfuse_writable(&S);
	if (rc)
		goto out;
	err = stalefs_read_inode(S.fs, ino, &inode);
	if (!err && (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR)
		err = EPERM;
	else if (!err && le16_to_cpu(inode.i_links_count) >= STALEFS_LINK_MAX)
		err = STALEFS_ERR_TOO_MANY_LINKS;
	else if (!err && !inode.i_links_count)
		err = ENOENT;	/* unlinked while open: not linkable again */
	if (!err) {
		err = stalefs_lookup(S.fs, dir, newname, strlen(newname), &other);
		err = err == STALEFS_ERR_NOT_FOUND ? 0 : err ? err : STALEFS_ERR_EXISTS;
	}
	if (!err) {
		err = stalefs_link(S.fs, dir, newname, ino, stalefs_ft_from_mode(le16_to_cpu(inode.i_mode)));
		if (err == STALEFS_ERR_NO_SPACE && stalefs_txn_busy_blocks(S.fs) && !sfuse_commit(&S))
			err = stalefs_link(S.fs, dir, newname, ino, stalefs_ft_from_mode(le16_to_cpu(inode.i_mode)));
	}
	if (!err)
		err = stalefs_adjust_links(S.fs, ino, 1);
	if (err) {
		rc = sfuse_errno(err);
		goto out;
	}
	sfuse_changed(&S);
	rc = sfuse_fill_entry(&S, ino, &e);
out:
	pthread_mutex_unlock(&S.lock);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_entry(req, &e);
}

/* A name goes: its inode loses a link (a directory all of them), and at none becomes an orphan
 * until the kernel lets go of it. */
static void remove_name(fuse_req_t req, fuse_ino_t parent, const char *name, bool dir)
{
	struct stalefs_inode inode;
	u32 pdir = sfuse_ino(parent), ino;
	errcode_t err;
	bool empty;
	int rc;

	pthread_mutex_lock(&S.lock);
	rc = sfuse_writable(&S);
	if (rc)
		goto out;
	err = stalefs_lookup(S.fs, pdir, name, strlen(name), &ino);
	if (!err)
		err = stalefs_read_inode(S.fs, ino, &inode);
	if (!err && dir != ((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR))
		err = dir ? STALEFS_ERR_NOT_DIR : STALEFS_ERR_IS_DIR;
	if (!err && dir) {
		err = stalefs_dir_is_empty(S.fs, ino, &empty);
		if (!err && !empty)
			err = STALEFS_ERR_DIR_NOT_EMPTY;
	}
	if (!err)
		err = stalefs_unlink(S.fs, pdir, name, NULL);
	if (!err && dir)
		err = stalefs_adjust_links(S.fs, pdir, -1);
	if (!err) {
		u16 links = le16_to_cpu(inode.i_links_count);

		links = dir || !links ? 0 : links - 1;
		inode.i_links_count = cpu_to_le16(links);
		sfuse_set_times_now(&inode, false, false, true);
		err = links ? stalefs_write_inode(S.fs, ino, &inode) : stalefs_orphan_list_add(S.fs, ino, &inode);
	}
	if (err) {
		sfuse_report(pdir, err, "removing a name");
		rc = sfuse_errno(err);
		goto out;
	}
	sfuse_changed(&S);
	sfuse_node_maybe_release(&S, ino);
out:
	pthread_mutex_unlock(&S.lock);
	fuse_reply_err(req, rc);
}

void sfuse_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, false);
}

void sfuse_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_name(req, parent, name, true);
}

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#define RENAME_WHITEOUT (1 << 2)
#endif

void sfuse_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent, const char *newname,
		  unsigned int flags)
{
	u32 olddir = sfuse_ino(parent), newdir = sfuse_ino(newparent), replaced = 0, wh;
	int lflags = 0, rc;
	errcode_t err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (flags & RENAME_NOREPLACE)
		lflags |= STALEFS_RENAME_NOREPLACE;
	if (flags & RENAME_EXCHANGE)
		lflags |= STALEFS_RENAME_EXCHANGE;
	if ((flags & RENAME_WHITEOUT) && (flags & RENAME_EXCHANGE)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	pthread_mutex_lock(&S.lock);
	rc = sfuse_writable(&S);
	if (rc)
		goto out;
	err = stalefs_rename(S.fs, olddir, name, newdir, newname, lflags, true, &replaced);
	if (err == STALEFS_ERR_NO_SPACE && stalefs_txn_busy_blocks(S.fs) && !sfuse_commit(&S))
		err = stalefs_rename(S.fs, olddir, name, newdir, newname, lflags, true, &replaced);
	/* overlayfs moves a lower file away with a whiteout left in its place: char 0:0. */
	if (!err && (flags & RENAME_WHITEOUT)) {
		const struct fuse_ctx *ctx = fuse_req_ctx(req);

		err = stalefs_create(S.fs, olddir, name, STALEFS_S_IFCHR, ctx->uid, ctx->gid, &wh);
	}
	if (err) {
		sfuse_report(olddir, err, "renaming");
		rc = err == STALEFS_ERR_BAD_ARGUMENT ? EINVAL : sfuse_errno(err);
		goto out;
	}
	sfuse_changed(&S);
	if (replaced)
		sfuse_node_maybe_release(&S, replaced);
out:
	pthread_mutex_unlock(&S.lock);
	fuse_reply_err(req, rc);
}
