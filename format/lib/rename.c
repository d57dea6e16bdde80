// SPDX-License-Identifier: GPL-2.0
/*
 * rename(2) on an open filesystem, as the kernel module's rename does it:
 * plain (replacing a target of the same kind, a directory only when
 * empty), RENAME_NOREPLACE and RENAME_EXCHANGE.  A directory that changes
 * parent gets its ".." and both parents' link counts.  Every edit is an
 * ordinary library write, so under the journaled write path (txn.c) the
 * whole rename is in one transaction.
 */
#include "libstalefs.h"
#include "lib_internal.h"

static bool is_dir(const struct stalefs_inode *inode)
{
	return (le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
}

static u8 ft_of(const struct stalefs_inode *inode)
{
	return stalefs_mode_to_ft(le16_to_cpu(inode->i_mode));
}

/* Is dir (or one of its ancestors) ino?  Walks ".." to the root, a bounded number of steps:
 * a damaged image may hold a loop. */
static errcode_t inside(stalefs_fs *fs, u32 dir, u32 ino, bool *yes)
{
	u32 steps;

	*yes = false;
	for (steps = 0; steps <= fs->geom.inodes_count; steps++) {
		u32 up;
		errcode_t err;

		if (dir == ino) {
			*yes = true;
			return 0;
		}
		if (dir == STALEFS_ROOT_INO)
			return 0;
		err = stalefs_lookup(fs, dir, "..", 2, &up);
		if (err)
			return err;
		dir = up;
	}
	return STALEFS_ERR_DIR_CORRUPT;
}

/* A name's entry loses its inode: a link less, and at none freed (or flagged ORPHAN). */
static errcode_t drop_target(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode, bool keep_orphans)
{
	u16 links = le16_to_cpu(inode->i_links_count);

	/* A directory's own "." goes with its name: nothing links it any more. */
	links = is_dir(inode) || links == 0 ? 0 : links - 1;
	inode->i_links_count = cpu_to_le16(links);
	stalefs_inode_set_times_now(inode, false, false, true);
	if (links)
		return stalefs_write_inode(fs, ino, inode);
	if (keep_orphans)
		return stalefs_orphan_list_add(fs, ino, inode);
	return stalefs_delete_inode(fs, ino);
}

static errcode_t exchange(stalefs_fs *fs, u32 olddir, const char *oldname, u32 src, struct stalefs_inode *si,
			  u32 newdir, const char *newname, u32 dst, struct stalefs_inode *di)
{
	errcode_t err = stalefs_dir_set_entry(fs, olddir, oldname, dst, ft_of(di));

	if (!err)
		err = stalefs_dir_set_entry(fs, newdir, newname, src, ft_of(si));
	if (!err && olddir != newdir) {
		int delta = (int)is_dir(si) - (int)is_dir(di);

		if (is_dir(si))
			err = stalefs_dir_set_entry(fs, src, "..", newdir, STALEFS_FT_DIR);
		if (!err && is_dir(di))
			err = stalefs_dir_set_entry(fs, dst, "..", olddir, STALEFS_FT_DIR);
		if (!err && delta)
			err = stalefs_adjust_links(fs, newdir, delta);
		if (!err && delta)
			err = stalefs_adjust_links(fs, olddir, -delta);
	}
	if (!err) {
		stalefs_inode_set_times_now(si, false, false, true);
		err = stalefs_write_inode(fs, src, si);
	}
	if (!err) {
		stalefs_inode_set_times_now(di, false, false, true);
		err = stalefs_write_inode(fs, dst, di);
	}
	return err;
}

errcode_t stalefs_rename(stalefs_fs *fs, u32 olddir, const char *oldname, u32 newdir, const char *newname,
			 int flags, bool keep_orphans, u32 *replaced)
{
	struct stalefs_inode si, di, nd;
	u32 src, dst = 0;
	bool loop;
	errcode_t err;

	*replaced = 0;
	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if ((flags & ~(STALEFS_RENAME_NOREPLACE | STALEFS_RENAME_EXCHANGE)) ||
	    (flags & STALEFS_RENAME_NOREPLACE && flags & STALEFS_RENAME_EXCHANGE))
		return STALEFS_ERR_BAD_ARGUMENT;
	if (!stalefs_name_valid(newname, strlen(newname)) || !stalefs_name_valid(oldname, strlen(oldname)))
		return strlen(newname) > STALEFS_NAME_LEN ? STALEFS_ERR_NAME_TOO_LONG : STALEFS_ERR_BAD_NAME;
	err = stalefs_lookup(fs, olddir, oldname, strlen(oldname), &src);
	if (!err)
		err = stalefs_read_inode(fs, src, &si);
	if (err)
		return err;
	err = stalefs_lookup(fs, newdir, newname, strlen(newname), &dst);
	if (err == STALEFS_ERR_NOT_FOUND)
		dst = 0;
	else if (err)
		return err;
	if (!dst && (flags & STALEFS_RENAME_EXCHANGE))
		return STALEFS_ERR_NOT_FOUND;
	if (dst && (flags & STALEFS_RENAME_NOREPLACE))
		return STALEFS_ERR_EXISTS;
	/* Two names of one inode: rename(2) does nothing. */
	if (dst == src)
		return 0;
	if (dst) {
		err = stalefs_read_inode(fs, dst, &di);
		if (err)
			return err;
	}
	/* A directory may not go inside itself. */
	if (is_dir(&si) && olddir != newdir) {
		err = inside(fs, newdir, src, &loop);
		if (!err && loop)
			err = STALEFS_ERR_BAD_ARGUMENT;
		if (err)
			return err;
	}
	if (dst && (flags & STALEFS_RENAME_EXCHANGE)) {
		if (is_dir(&di) && olddir != newdir) {
			err = inside(fs, olddir, dst, &loop);
			if (!err && loop)
				err = STALEFS_ERR_BAD_ARGUMENT;
			if (err)
				return err;
		}
		return exchange(fs, olddir, oldname, src, &si, newdir, newname, dst, &di);
	}
	if (dst) {
		bool empty;

		if (is_dir(&si) && !is_dir(&di))
			return STALEFS_ERR_NOT_DIR;
		if (!is_dir(&si) && is_dir(&di))
			return STALEFS_ERR_IS_DIR;
		if (is_dir(&di)) {
			err = stalefs_dir_is_empty(fs, dst, &empty);
			if (!err && !empty)
				err = STALEFS_ERR_DIR_NOT_EMPTY;
			if (err)
				return err;
		}
	} else if (is_dir(&si) && olddir != newdir) {
		err = stalefs_read_inode(fs, newdir, &nd);
		if (!err && le16_to_cpu(nd.i_links_count) >= STALEFS_LINK_MAX)
			err = STALEFS_ERR_TOO_MANY_LINKS;
		if (err)
			return err;
	}
	/* The new name first: an interrupted rename without a journal leaves two names, not none. */
	if (dst)
		err = stalefs_dir_set_entry(fs, newdir, newname, src, ft_of(&si));
	else
		err = stalefs_link(fs, newdir, newname, src, ft_of(&si));
	if (!err)
		err = stalefs_unlink(fs, olddir, oldname, NULL);
	if (!err && is_dir(&si) && olddir != newdir) {
		err = stalefs_dir_set_entry(fs, src, "..", newdir, STALEFS_FT_DIR);
		if (!err)
			err = stalefs_adjust_links(fs, olddir, -1);
		/* A replaced directory's ".." named newdir: the count stays. */
		if (!err && !dst)
			err = stalefs_adjust_links(fs, newdir, 1);
	} else if (!err && dst && is_dir(&di)) {
		err = stalefs_adjust_links(fs, newdir, -1);
	}
	if (!err) {
		stalefs_inode_set_times_now(&si, false, false, true);
		err = stalefs_write_inode(fs, src, &si);
	}
	if (!err && dst) {
		err = drop_target(fs, dst, &di, keep_orphans);
		if (!err)
			*replaced = dst;
	}
	return err;
}
