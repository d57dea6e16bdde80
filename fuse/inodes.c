// SPDX-License-Identifier: GPL-2.0
/*
 * Inodes as the kernel sees them: attributes, lookups and the lookup counts
 * forget gives back, and the open counts.  An inode whose last name goes
 * while the kernel still holds it (open, or just looked up) is flagged
 * ORPHAN in the same transaction, and freed when the last reference goes --
 * or, after a crash, by fsck or the next mount.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "stalefs_fuse.h"

/* How long the kernel may trust what we say: nothing changes the image but this server. */
#define ATTR_TIMEOUT 60.0

struct sfuse_node *sfuse_node_get(struct sfuse *s, u32 ino, bool create)
{
	u32 b;
	struct sfuse_node *n;

	if (!s->nodes) {
		s->nbuckets = 4096;
		s->nodes = calloc(s->nbuckets, sizeof(*s->nodes));
		if (!s->nodes)
			return NULL;
	}
	b = (ino * 2654435761u) % s->nbuckets;
	for (n = s->nodes[b]; n; n = n->next)
		if (n->ino == ino)
			return n;
	if (!create)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->ino = ino;
	n->next = s->nodes[b];
	s->nodes[b] = n;
	return n;
}

static void node_remove(struct sfuse *s, u32 ino)
{
	struct sfuse_node **pp;

	if (!s->nodes)
		return;
	for (pp = &s->nodes[(ino * 2654435761u) % s->nbuckets]; *pp; pp = &(*pp)->next)
		if ((*pp)->ino == ino) {
			struct sfuse_node *n = *pp;

			*pp = n->next;
			free(n);
			return;
		}
}

void sfuse_node_maybe_release(struct sfuse *s, u32 ino)
{
	struct sfuse_node *n = sfuse_node_get(s, ino, false);
	struct stalefs_inode inode;
	struct stalefs_orphan_result r;
	errcode_t err;

	if (n && (n->nlookup || n->nopen))
		return;
	node_remove(s, ino);
	if (sfuse_writable(s) || stalefs_read_inode(s->fs, ino, &inode))
		return;
	if (inode.i_links_count || !(le32_to_cpu(inode.i_flags) & STALEFS_INODE_ORPHAN_FL))
		return;
	err = stalefs_orphan_finish(s->fs, ino, &r);
	if (err)
		sfuse_report(ino, err, "freeing an unlinked inode");
	else
		sfuse_changed(s);
}

void sfuse_stat_from_inode(const struct sfuse *s, u32 ino, const struct stalefs_inode *inode, struct stat *st)
{
	u16 mode = le16_to_cpu(inode->i_mode);

	memset(st, 0, sizeof(*st));
	st->st_ino = sfuse_fino(ino);
	st->st_mode = mode;
	st->st_nlink = le16_to_cpu(inode->i_links_count);
	st->st_uid = le32_to_cpu(inode->i_uid);
	st->st_gid = le32_to_cpu(inode->i_gid);
	if ((mode & STALEFS_S_IFMT) == STALEFS_S_IFCHR || (mode & STALEFS_S_IFMT) == STALEFS_S_IFBLK) {
		u32 ma, mi;

		stalefs_decode_dev(le32_to_cpu(inode->i_rdev), &ma, &mi);
		st->st_rdev = makedev(ma, mi);
	}
	st->st_size = (off_t)le64_to_cpu(inode->i_size);
	st->st_blksize = s->fs->block_size;
	st->st_blocks = (blkcnt_t)(le64_to_cpu(inode->i_blocks) * (s->fs->block_size / 512));
	st->st_atim.tv_sec = (time_t)le64_to_cpu(inode->i_atime);
	st->st_atim.tv_nsec = le32_to_cpu(inode->i_atime_nsec);
	st->st_mtim.tv_sec = (time_t)le64_to_cpu(inode->i_mtime);
	st->st_mtim.tv_nsec = le32_to_cpu(inode->i_mtime_nsec);
	st->st_ctim.tv_sec = (time_t)le64_to_cpu(inode->i_ctime);
	st->st_ctim.tv_nsec = le32_to_cpu(inode->i_ctime_nsec);
}

/* An inode the kernel may be given: in use, verified. */
static errcode_t read_live(struct sfuse *s, u32 ino, struct stalefs_inode *inode)
{
	errcode_t err;

	if (!stalefs_ino_valid(s->fs, ino) || (ino < STALEFS_FIRST_INO && ino != STALEFS_ROOT_INO))
		return STALEFS_ERR_BAD_INODE_NUM;
	err = stalefs_read_inode(s->fs, ino, inode);
	if (!err && !inode->i_mode)
		err = STALEFS_ERR_INODE_FREE;
	return err;
}

int sfuse_fill_entry(struct sfuse *s, u32 ino, struct fuse_entry_param *e)
{
	struct stalefs_inode inode;
	struct sfuse_node *n;
	errcode_t err = read_live(s, ino, &inode);

	if (err) {
		sfuse_report(ino, err, "reading an inode a directory names");
		return sfuse_errno(err);
	}
	n = sfuse_node_get(s, ino, true);
	if (!n)
		return ENOMEM;
	memset(e, 0, sizeof(*e));
	e->ino = sfuse_fino(ino);
	e->generation = le32_to_cpu(inode.i_generation);
	sfuse_stat_from_inode(s, ino, &inode, &e->attr);
	e->attr_timeout = ATTR_TIMEOUT;
	e->entry_timeout = ATTR_TIMEOUT;
	n->nlookup++;
	return 0;
}

void sfuse_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	u32 ino;
	errcode_t err;
	int rc;

	pthread_mutex_lock(&S.lock);
	err = stalefs_lookup(S.fs, sfuse_ino(parent), name, strlen(name), &ino);
	if (err == STALEFS_ERR_NOT_FOUND) {
		pthread_mutex_unlock(&S.lock);
		/* A negative entry the kernel may cache: names appear only through us. */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = ATTR_TIMEOUT;
		fuse_reply_entry(req, &e);
		return;
	}
	if (err) {
		sfuse_report(sfuse_ino(parent), err, "looking up a name");
		rc = sfuse_errno(err);
	} else {
		rc = sfuse_fill_entry(&S, ino, &e);
	}
	pthread_mutex_unlock(&S.lock);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_entry(req, &e);
}

static void forget_one(u32 ino, u64 nlookup)
{
	struct sfuse_node *n = sfuse_node_get(&S, ino, false);

	if (!n)
		return;
	n->nlookup = nlookup < n->nlookup ? n->nlookup - nlookup : 0;
	if (!n->nlookup && !n->nopen)
		sfuse_node_maybe_release(&S, ino);
}

void sfuse_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	pthread_mutex_lock(&S.lock);
	forget_one(sfuse_ino(ino), nlookup);
	pthread_mutex_unlock(&S.lock);
	fuse_reply_none(req);
}

void sfuse_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	size_t i;

	pthread_mutex_lock(&S.lock);
	for (i = 0; i < count; i++)
		forget_one(sfuse_ino(forgets[i].ino), forgets[i].nlookup);
	pthread_mutex_unlock(&S.lock);
	fuse_reply_none(req);
}

void sfuse_getattr(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	struct stalefs_inode inode;
	struct stat st;
	u32 ino = sfuse_ino(fino);
	errcode_t err;

	(void)fi;
	pthread_mutex_lock(&S.lock);
	err = read_live(&S, ino, &inode);
	if (!err)
		sfuse_stat_from_inode(&S, ino, &inode, &st);
	else
		sfuse_report(ino, err, "reading its attributes");
	pthread_mutex_unlock(&S.lock);
	if (err)
		fuse_reply_err(req, sfuse_errno(err));
	else
		fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

void sfuse_set_times_now(struct stalefs_inode *inode, bool atime, bool mtime, bool ctime)
{
	stalefs_inode_set_times_now(inode, atime, mtime, ctime);
}

static void set_time(__le64 *sec, __le32 *nsec, const struct timespec *ts)
{
	*sec = cpu_to_le64((u64)ts->tv_sec);
	*nsec = cpu_to_le32((u32)ts->tv_nsec);
}

/* The changes setattr asks for, but the size, onto the inode; 0 or an errno. */
static int apply_attrs(struct sfuse *s, u32 ino, struct stalefs_inode *inode, const struct stat *attr, int to_set)
{
	u32 uid = (u32)attr->st_uid, gid = (u32)attr->st_gid;
	u16 mode = (u16)((le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT) | (attr->st_mode & 07777));

	/* A file holding STALE extents stays confined (docs/nohide-stale.md), whoever asks. */
	if (!stalefs_stale_attr_allowed(s->fs, inode, (to_set & FUSE_SET_ATTR_UID) ? &uid : NULL,
					(to_set & FUSE_SET_ATTR_GID) ? &gid : NULL,
					(to_set & FUSE_SET_ATTR_MODE) ? &mode : NULL))
		return EPERM;
	if (to_set & FUSE_SET_ATTR_MODE) {
		if (s->acl) {
			errcode_t err = sfuse_acl_follow_mode(s, ino, mode);

			if (err)
				return sfuse_errno(err);
		}
		inode->i_mode = cpu_to_le16(mode);
	}
	if (to_set & FUSE_SET_ATTR_UID)
		inode->i_uid = cpu_to_le32(uid);
	if (to_set & FUSE_SET_ATTR_GID)
		inode->i_gid = cpu_to_le32(gid);
	if (to_set & FUSE_SET_ATTR_ATIME_NOW)
		sfuse_set_times_now(inode, true, false, false);
	else if (to_set & FUSE_SET_ATTR_ATIME)
		set_time(&inode->i_atime, &inode->i_atime_nsec, &attr->st_atim);
	if (to_set & FUSE_SET_ATTR_MTIME_NOW)
		sfuse_set_times_now(inode, false, true, false);
	else if (to_set & FUSE_SET_ATTR_MTIME)
		set_time(&inode->i_mtime, &inode->i_mtime_nsec, &attr->st_mtim);
	if (to_set & FUSE_SET_ATTR_CTIME)
		set_time(&inode->i_ctime, &inode->i_ctime_nsec, &attr->st_ctim);
	else
		sfuse_set_times_now(inode, false, false, true);
	return 0;
}

void sfuse_setattr(fuse_req_t req, fuse_ino_t fino, struct stat *attr, int to_set, struct fuse_file_info *fi)
{
	struct stalefs_inode inode;
	struct stat st;
	u32 ino = sfuse_ino(fino);
	errcode_t err;
	int rc;

	(void)fi;
	pthread_mutex_lock(&S.lock);
	rc = sfuse_writable(&S);
	if (rc)
		goto out;
	err = read_live(&S, ino, &inode);
	if (!err && (to_set & FUSE_SET_ATTR_SIZE)) {
		if ((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFREG) {
			rc = (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR ? EISDIR : EINVAL;
			goto out;
		}
		if (attr->st_size < 0) {
			rc = EINVAL;
			goto out;
		}
		err = stalefs_truncate(S.fs, ino, (u64)attr->st_size);
		if (err == STALEFS_ERR_NO_SPACE && stalefs_txn_busy_blocks(S.fs) && !sfuse_commit(&S))
			err = stalefs_truncate(S.fs, ino, (u64)attr->st_size);
		if (!err)
			err = stalefs_read_inode(S.fs, ino, &inode);
		if (!err)
			sfuse_changed(&S);
	}
	if (err) {
		sfuse_report(ino, err, "changing its attributes");
		rc = sfuse_errno(err);
		goto out;
	}
	if (to_set & ~FUSE_SET_ATTR_SIZE) {
		rc = apply_attrs(&S, ino, &inode, attr, to_set);
		if (rc)
			goto out;
		err = stalefs_write_inode(S.fs, ino, &inode);
		if (err) {
			rc = sfuse_errno(err);
			goto out;
		}
		sfuse_changed(&S);
	}
	sfuse_stat_from_inode(&S, ino, &inode, &st);
out:
	pthread_mutex_unlock(&S.lock);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

void sfuse_readlink(fuse_req_t req, fuse_ino_t fino)
{
	char *target = malloc(STALEFS_SYMLINK_MAX + 2);
	u32 ino = sfuse_ino(fino);
	errcode_t err;

	if (!target) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_lock(&S.lock);
	err = stalefs_read_symlink(S.fs, ino, target, STALEFS_SYMLINK_MAX + 2);
	if (err)
		sfuse_report(ino, err, "reading a symbolic link");
	pthread_mutex_unlock(&S.lock);
	if (err)
		fuse_reply_err(req, err == STALEFS_ERR_BAD_ARGUMENT ? EINVAL : sfuse_errno(err));
	else
		fuse_reply_readlink(req, target);
	free(target);
}
