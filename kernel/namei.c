// SPDX-License-Identifier: GPL-2.0
/*
 * Namespace operations: lookup, create, mknod, symlink, link, unlink,
 * mkdir, rmdir, rename (NOREPLACE, EXCHANGE), and symlink reading.
 *
 * Each change is one transaction (journal.h): the new inode, its directory
 * entry and every link count commit together or not at all.  An inode
 * whose last link goes is flagged ORPHAN in the same transaction (orphan.c)
 * and freed when it is evicted, in transactions of its own; a new inode a
 * failed operation gives up is flagged too and dropped only once the
 * transaction is stopped (eviction starts its own).
 */
#include <linux/slab.h>
#include <linux/namei.h>
#include "stalefs.h"
#include "journal.h"
#include "xattr.h"

/*
 * Credits of a namespace change: a new inode (its bitmap block, descriptor,
 * the table blocks lazy initialisation may touch), entries added to dir
 * (the block, or a new block: its allocation and the directory's tree),
 * entries changed in place, and the inodes whose table slots change (each
 * may need its group's descriptor for the orphan count).
 */
static int ns_credits(struct inode *dir, bool new_inode, int adds, int changes, int inodes)
{
	struct super_block *sb = dir->i_sb;
	const struct stalefs_geom *g = &STALEFS_SB(sb)->geom;
	int c = changes + 2 * inodes + 2;

	if (new_inode)
		c += g->inode_bitmap_blocks + 1 + 2 + 1 + stalefs_credits_alloc(sb, 1) +
		     stalefs_credits_tree(dir, 1) + stalefs_xattr_credits(sb);
	if (adds)
		c += adds * (1 + stalefs_credits_alloc(sb, 1) + stalefs_credits_tree(dir, 1));
	return c;
}

static handle_t *ns_start(struct inode *dir, bool new_inode, int adds, int changes, int inodes)
{
	return stalefs_journal_start(dir->i_sb, ns_credits(dir, new_inode, adds, changes, inodes),
				     stalefs_revokes_tree(dir, 1));
}

/*
 * A new inode the operation could not link: flagged ORPHAN in the
 * transaction (a crash leaves it for the orphan cleanup), dropped once the
 * transaction is stopped.
 */
static void ns_fail_new(struct inode *dir, handle_t *handle, struct inode *inode)
{
	clear_nlink(inode);
	stalefs_orphan_add(inode);
	mark_inode_dirty(inode);
	stalefs_journal_stop(dir->i_sb, handle);
	discard_new_inode(inode);
}

static struct dentry *stalefs_vn_lookup(struct inode *dir, struct dentry *dentry,
				     unsigned int flags)
{
	struct stalefs_dir_pos pos;
	struct inode *inode = NULL;
	u32 ino;
	int err;

	if (dentry->d_name.len > STALEFS_NAME_LEN)
		return ERR_PTR(-ENAMETOOLONG);
	err = stalefs_dir_find(dir, &dentry->d_name, &pos);
	if (err && err != -ENOENT)
		return ERR_PTR(err);
	if (!err) {
		ino = le32_to_cpu(pos.de->inode);
		brelse(pos.bh);
		inode = stalefs_iget(dir->i_sb, ino);
		if (IS_ERR(inode))
			return ERR_CAST(inode);
	}
	return d_splice_alias(inode, dentry);
}

/* Link a fresh inode into dir, in the handle; on failure the inode is dropped. */
static int add_nondir(struct inode *dir, struct dentry *dentry, struct inode *inode,
		      handle_t *handle)
{
	int err = stalefs_dir_add(dir, &dentry->d_name, inode->i_ino, inode->i_mode);

	if (err) {
		ns_fail_new(dir, handle, inode);
		return err;
	}
	err = stalefs_journal_stop(dir->i_sb, handle);
	d_instantiate_new(dentry, inode);
	return err;
}

static int stalefs_vn_create(struct user_namespace *mnt_userns, struct inode *dir,
			  struct dentry *dentry, umode_t mode, bool excl)
{
	handle_t *handle = ns_start(dir, true, 1, 0, 2);
	struct inode *inode;

	if (IS_ERR(handle))
		return PTR_ERR(handle);
	inode = stalefs_new_inode(dir, mode, &dentry->d_name);
	if (IS_ERR(inode)) {
		stalefs_journal_stop(dir->i_sb, handle);
		return PTR_ERR(inode);
	}
	stalefs_set_ops(inode);
	return add_nondir(dir, dentry, inode, handle);
}

/* O_TMPFILE: an inode with no name (nlink 0, an orphan) until linkat gives it one. */
static int stalefs_vn_tmpfile(struct user_namespace *mnt_userns, struct inode *dir,
			   struct file *file, umode_t mode)
{
	handle_t *handle = ns_start(dir, true, 0, 0, 1);
	struct inode *inode;
	int err;

	if (IS_ERR(handle))
		return PTR_ERR(handle);
	inode = stalefs_new_inode(dir, mode, NULL);
	if (IS_ERR(inode)) {
		stalefs_journal_stop(dir->i_sb, handle);
		return PTR_ERR(inode);
	}
	stalefs_set_ops(inode);
	err = stalefs_orphan_add(inode);
	d_tmpfile(file, inode);
	stalefs_journal_stop(dir->i_sb, handle);
	unlock_new_inode(inode);
	return err ? err : finish_open_simple(file, 0);
}

static int stalefs_vn_mknod(struct user_namespace *mnt_userns, struct inode *dir,
			 struct dentry *dentry, umode_t mode, dev_t rdev)
{
	handle_t *handle;
	struct inode *inode;

	if (!S_ISREG(mode) && !S_ISCHR(mode) && !S_ISBLK(mode) && !S_ISFIFO(mode) &&
	    !S_ISSOCK(mode))
		return -EINVAL;
	handle = ns_start(dir, true, 1, 0, 2);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	inode = stalefs_new_inode(dir, mode, &dentry->d_name);
	if (IS_ERR(inode)) {
		stalefs_journal_stop(dir->i_sb, handle);
		return PTR_ERR(inode);
	}
	if (!S_ISREG(mode))
		init_special_inode(inode, inode->i_mode, rdev);
	stalefs_set_ops(inode);
	mark_inode_dirty(inode);
	return add_nondir(dir, dentry, inode, handle);
}

/* A target too long for the inode: one block, journaled as metadata. */
static int symlink_block(struct inode *inode, const char *symname, size_t len)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct stalefs_ext ex;
	struct buffer_head *bh;
	int err;

	down_write(&ei->i_map_sem);
	err = stalefs_ext_alloc_range(inode, 0, 1, 0, &ex);
	up_write(&ei->i_map_sem);
	if (err)
		return err;
	bh = sb_getblk(sb, ex.pblk);
	if (!bh)
		return -ENOMEM;
	err = stalefs_get_write_access(sb, bh);
	if (!err) {
		lock_buffer(bh);
		memset(bh->b_data, 0, sb->s_blocksize);
		memcpy(bh->b_data, symname, len);
		set_buffer_uptodate(bh);
		unlock_buffer(bh);
		err = stalefs_dirty_metadata(inode, sb, bh);
	}
	brelse(bh);
	return err;
}

static int stalefs_vn_symlink(struct user_namespace *mnt_userns, struct inode *dir,
			   struct dentry *dentry, const char *symname)
{
	struct super_block *sb = dir->i_sb;
	size_t len = strlen(symname);
	struct stalefs_inode_info *ei;
	struct inode *inode;
	handle_t *handle;
	int err;

	if (len == 0)
		return -ENOENT;
	if (len >= sb->s_blocksize || len > STALEFS_SYMLINK_MAX)
		return -ENAMETOOLONG;
	/* The target's block: one more block, its allocation, the symlink's own root. */
	handle = stalefs_journal_start(sb, ns_credits(dir, true, 1, 1, 2) +
				       stalefs_credits_alloc(sb, 1) + 1, stalefs_revokes_tree(dir, 1));
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	inode = stalefs_new_inode(dir, S_IFLNK | 0777, &dentry->d_name);
	if (IS_ERR(inode)) {
		stalefs_journal_stop(sb, handle);
		return PTR_ERR(inode);
	}
	ei = STALEFS_I(inode);
	if (len <= STALEFS_INLINE_SYMLINK_MAX) {
		/* Short target: in the inode itself, no block. */
		memset(ei->i_data, 0, sizeof(ei->i_data));
		memcpy(ei->i_data, symname, len);
		ei->i_dflags |= STALEFS_INODE_INLINE_FL;
	} else {
		err = symlink_block(inode, symname, len);
		if (err) {
			ns_fail_new(dir, handle, inode);
			return err;
		}
	}
	inode->i_size = len;
	stalefs_set_ops(inode);
	mark_inode_dirty(inode);
	return add_nondir(dir, dentry, inode, handle);
}

static const char *stalefs_get_link(struct dentry *dentry, struct inode *inode,
				    struct delayed_call *done)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct super_block *sb = inode->i_sb;
	struct buffer_head *bh;
	struct stalefs_ext ex;
	char *link;
	int found;

	if (!dentry)
		return ERR_PTR(-ECHILD);
	down_read(&ei->i_map_sem);
	found = stalefs_ext_lookup(inode, 0, &ex);
	up_read(&ei->i_map_sem);
	if (!found || ex.flags) {
		stalefs_error(sb, inode->i_ino, 0, "symlink has no written block");
		return ERR_PTR(-EUCLEAN);
	}
	bh = sb_bread(sb, ex.pblk);
	if (!bh)
		return ERR_PTR(-EIO);
	link = kmalloc(inode->i_size + 1, GFP_KERNEL);
	if (!link) {
		brelse(bh);
		return ERR_PTR(-ENOMEM);
	}
	/* i_size < block size was checked when the inode was read. */
	memcpy(link, bh->b_data, inode->i_size);
	link[inode->i_size] = 0;
	brelse(bh);
	set_delayed_call(done, kfree_link, link);
	return link;
}

static int stalefs_vn_link(struct dentry *old_dentry, struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	bool was_orphan = !inode->i_nlink;
	handle_t *handle;
	int err;

	if (inode->i_nlink >= STALEFS_LINK_MAX)
		return -EMLINK;
	handle = ns_start(dir, false, 1, 0, 2);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	inode->i_ctime = current_time(inode);
	inode_inc_link_count(inode);
	ihold(inode);
	err = stalefs_dir_add(dir, &dentry->d_name, inode->i_ino, inode->i_mode);
	if (err) {
		inode_dec_link_count(inode);
		stalefs_journal_stop(dir->i_sb, handle);
		iput(inode);
		return err;
	}
	/* An O_TMPFILE file given its name: no longer an orphan. */
	if (was_orphan)
		err = stalefs_orphan_del(inode);
	stalefs_journal_stop(dir->i_sb, handle);
	d_instantiate(dentry, inode);
	return err;
}

/* The entry of dentry in dir goes; its inode loses the link (an orphan at zero). */
static int unlink_in(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	struct stalefs_dir_pos pos;
	int err;

	err = stalefs_dir_find(dir, &dentry->d_name, &pos);
	if (err)
		return err;
	if (le32_to_cpu(pos.de->inode) != inode->i_ino) {
		stalefs_error(dir->i_sb, dir->i_ino, pos.bh->b_blocknr,
			      "entry changed under unlink");
		brelse(pos.bh);
		return -EUCLEAN;
	}
	err = stalefs_dir_delete(dir, &pos);
	brelse(pos.bh);
	if (err)
		return err;
	inode->i_ctime = dir->i_ctime;
	inode_dec_link_count(inode);
	if (!inode->i_nlink)
		err = stalefs_orphan_add(inode);
	return err;
}

static int stalefs_vn_unlink(struct inode *dir, struct dentry *dentry)
{
	handle_t *handle = ns_start(dir, false, 0, 1, 2);
	int err, err2;

	if (IS_ERR(handle))
		return PTR_ERR(handle);
	err = unlink_in(dir, dentry);
	err2 = stalefs_journal_stop(dir->i_sb, handle);
	return err ? err : err2;
}

static int stalefs_vn_mkdir(struct user_namespace *mnt_userns, struct inode *dir,
			 struct dentry *dentry, umode_t mode)
{
	struct inode *inode;
	handle_t *handle;
	int err;

	if (dir->i_nlink >= STALEFS_LINK_MAX)
		return -EMLINK;
	/* The new directory's first block too: its allocation and its (root-only) tree. */
	handle = stalefs_journal_start(dir->i_sb, ns_credits(dir, true, 1, 1, 2) +
				       stalefs_credits_alloc(dir->i_sb, 1) + 1,
				       stalefs_revokes_tree(dir, 1));
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	inode = stalefs_new_inode(dir, S_IFDIR | mode, &dentry->d_name);
	if (IS_ERR(inode)) {
		stalefs_journal_stop(dir->i_sb, handle);
		return PTR_ERR(inode);
	}
	stalefs_set_ops(inode);
	set_nlink(inode, 2);
	err = stalefs_init_new_dir(inode, dir);
	if (err)
		goto fail;
	err = stalefs_dir_add(dir, &dentry->d_name, inode->i_ino, inode->i_mode);
	if (err)
		goto fail;
	inode_inc_link_count(dir);
	err = stalefs_journal_stop(dir->i_sb, handle);
	d_instantiate_new(dentry, inode);
	return err;
fail:
	ns_fail_new(dir, handle, inode);
	return err;
}

static int stalefs_vn_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	handle_t *handle;
	int err, err2;

	err = stalefs_empty_dir(inode);
	if (err < 0)
		return err;
	if (!err)
		return -ENOTEMPTY;
	handle = ns_start(dir, false, 0, 1, 2);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	err = unlink_in(dir, dentry);
	if (!err) {
		inode->i_size = 0;
		clear_nlink(inode);
		err = stalefs_orphan_add(inode);
		mark_inode_dirty(inode);
		inode_dec_link_count(dir);
	}
	err2 = stalefs_journal_stop(dir->i_sb, handle);
	return err ? err : err2;
}

static int find_exact(struct inode *dir, struct dentry *dentry, struct stalefs_dir_pos *pos)
{
	int err = stalefs_dir_find(dir, &dentry->d_name, pos);

	if (err)
		return err;
	if (le32_to_cpu(pos->de->inode) != d_inode(dentry)->i_ino) {
		stalefs_error(dir->i_sb, dir->i_ino, pos->bh->b_blocknr,
			      "directory entry does not match its dentry");
		brelse(pos->bh);
		return -EUCLEAN;
	}
	return 0;
}

static int stalefs_exchange(struct inode *old_dir, struct dentry *old_dentry,
			    struct inode *new_dir, struct dentry *new_dentry)
{
	struct inode *old_inode = d_inode(old_dentry), *new_inode = d_inode(new_dentry);
	bool old_is_dir = S_ISDIR(old_inode->i_mode), new_is_dir = S_ISDIR(new_inode->i_mode);
	struct stalefs_dir_pos opos, npos, odd = { }, ndd = { };
	int err;

	if (old_dir != new_dir && old_is_dir != new_is_dir) {
		struct inode *gains = old_is_dir ? new_dir : old_dir;

		if (gains->i_nlink >= STALEFS_LINK_MAX)
			return -EMLINK;
	}
	if (old_is_dir && old_dir != new_dir) {
		err = stalefs_dir_dotdot(old_inode, &odd);
		if (err)
			return err;
	}
	if (new_is_dir && old_dir != new_dir) {
		err = stalefs_dir_dotdot(new_inode, &ndd);
		if (err)
			goto out_dd;
	}
	err = find_exact(old_dir, old_dentry, &opos);
	if (err)
		goto out_dd;
	err = stalefs_dir_set(old_dir, &opos, new_inode->i_ino, new_inode->i_mode);
	brelse(opos.bh);
	if (err)
		goto out_dd;
	err = find_exact(new_dir, new_dentry, &npos);
	if (err)
		goto out_dd;
	err = stalefs_dir_set(new_dir, &npos, old_inode->i_ino, old_inode->i_mode);
	brelse(npos.bh);
	if (!err && odd.bh)
		err = stalefs_dir_set(old_inode, &odd, new_dir->i_ino, S_IFDIR);
	if (!err && ndd.bh)
		err = stalefs_dir_set(new_inode, &ndd, old_dir->i_ino, S_IFDIR);
	if (err)
		goto out_dd;
	if (old_dir != new_dir && old_is_dir != new_is_dir) {
		if (old_is_dir) {
			drop_nlink(old_dir);
			inc_nlink(new_dir);
		} else {
			drop_nlink(new_dir);
			inc_nlink(old_dir);
		}
		mark_inode_dirty(old_dir);
		mark_inode_dirty(new_dir);
	}
	old_inode->i_ctime = new_inode->i_ctime = current_time(old_inode);
	mark_inode_dirty(old_inode);
	mark_inode_dirty(new_inode);
out_dd:
	brelse(odd.bh);
	brelse(ndd.bh);
	return err;
}

/*
 * whiteout: RENAME_WHITEOUT's fresh char 0:0 inode (overlayfs), which takes
 * the old name in the same transaction; NULL for a plain rename.
 */
static int do_rename(struct inode *old_dir, struct dentry *old_dentry, struct inode *new_dir,
		     struct dentry *new_dentry, struct inode *whiteout)
{
	struct inode *old_inode = d_inode(old_dentry), *new_inode = d_inode(new_dentry);
	bool is_dir = S_ISDIR(old_inode->i_mode);
	struct stalefs_dir_pos opos, npos, dd = { };
	int err;

	if (is_dir && old_dir != new_dir) {
		err = stalefs_dir_dotdot(old_inode, &dd);
		if (err)
			return err;
	}
	if (new_inode) {
		if (is_dir) {
			err = stalefs_empty_dir(new_inode);
			if (err <= 0) {
				err = err ? err : -ENOTEMPTY;
				goto out;
			}
		}
		err = find_exact(new_dir, new_dentry, &npos);
		if (err)
			goto out;
		err = stalefs_dir_set(new_dir, &npos, old_inode->i_ino, old_inode->i_mode);
		brelse(npos.bh);
		if (err)
			goto out;
		new_inode->i_ctime = current_time(new_inode);
		if (is_dir)
			drop_nlink(new_inode);
		inode_dec_link_count(new_inode);
		/* The replaced inode's last link: an orphan until its last user closes it. */
		if (!new_inode->i_nlink) {
			err = stalefs_orphan_add(new_inode);
			if (err)
				goto out;
		}
	} else {
		if (is_dir && old_dir != new_dir && new_dir->i_nlink >= STALEFS_LINK_MAX) {
			err = -EMLINK;
			goto out;
		}
		err = stalefs_dir_add(new_dir, &new_dentry->d_name, old_inode->i_ino,
				      old_inode->i_mode);
		if (err)
			goto out;
		if (is_dir)
			inode_inc_link_count(new_dir);
	}
	/* Found again: the add may have split an entry in front of it. */
	err = find_exact(old_dir, old_dentry, &opos);
	if (err)
		goto out;
	if (whiteout)
		err = stalefs_dir_set(old_dir, &opos, whiteout->i_ino, whiteout->i_mode);
	else
		err = stalefs_dir_delete(old_dir, &opos);
	brelse(opos.bh);
	if (err)
		goto out;
	old_inode->i_ctime = current_time(old_inode);
	mark_inode_dirty(old_inode);
	if (is_dir) {
		if (dd.bh)
			err = stalefs_dir_set(old_inode, &dd, new_dir->i_ino, S_IFDIR);
		inode_dec_link_count(old_dir);
	}
out:
	brelse(dd.bh);
	return err;
}

static int stalefs_vn_rename(struct user_namespace *mnt_userns, struct inode *old_dir,
			  struct dentry *old_dentry, struct inode *new_dir,
			  struct dentry *new_dentry, unsigned int flags)
{
	struct inode *whiteout = NULL;
	bool wh = flags & RENAME_WHITEOUT;
	handle_t *handle;
	int err, err2;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	/*
	 * An entry added to new_dir, up to three changed in place ('..'s too),
	 * four inodes; a whiteout is a new inode and a fifth.
	 */
	handle = stalefs_journal_start(old_dir->i_sb, ns_credits(new_dir, wh, 1, 3, 4 + wh),
				       stalefs_revokes_tree(new_dir, 1));
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	if (wh) {
		whiteout = stalefs_new_inode(old_dir, S_IFCHR | WHITEOUT_MODE, &old_dentry->d_name);
		if (IS_ERR(whiteout)) {
			stalefs_journal_stop(old_dir->i_sb, handle);
			return PTR_ERR(whiteout);
		}
		init_special_inode(whiteout, whiteout->i_mode, WHITEOUT_DEV);
		stalefs_set_ops(whiteout);
		mark_inode_dirty(whiteout);
	}
	if (flags & RENAME_EXCHANGE)
		err = stalefs_exchange(old_dir, old_dentry, new_dir, new_dentry);
	else
		err = do_rename(old_dir, old_dentry, new_dir, new_dentry, whiteout);
	if (whiteout) {
		if (err) {
			ns_fail_new(old_dir, handle, whiteout);
			return err;
		}
		err = stalefs_journal_stop(old_dir->i_sb, handle);
		unlock_new_inode(whiteout);
		iput(whiteout);
		return err;
	}
	err2 = stalefs_journal_stop(old_dir->i_sb, handle);
	return err ? err : err2;
}

const struct inode_operations stalefs_dir_inode_operations = {
	.lookup		= stalefs_vn_lookup,
	.create		= stalefs_vn_create,
	.link		= stalefs_vn_link,
	.unlink		= stalefs_vn_unlink,
	.symlink	= stalefs_vn_symlink,
	.mkdir		= stalefs_vn_mkdir,
	.rmdir		= stalefs_vn_rmdir,
	.mknod		= stalefs_vn_mknod,
	.rename		= stalefs_vn_rename,
	.tmpfile	= stalefs_vn_tmpfile,
	.setattr	= stalefs_setattr,
	.getattr	= stalefs_getattr,
	.fileattr_get	= stalefs_fileattr_get,
	.fileattr_set	= stalefs_fileattr_set,
	.listxattr	= stalefs_listxattr,
	.get_acl	= stalefs_get_acl,
	.set_acl	= stalefs_set_acl,
};

const struct inode_operations stalefs_special_inode_operations = {
	.setattr	= stalefs_setattr,
	.getattr	= stalefs_getattr,
	.listxattr	= stalefs_listxattr,
	.get_acl	= stalefs_get_acl,
	.set_acl	= stalefs_set_acl,
};

const struct inode_operations stalefs_symlink_inode_operations = {
	.get_link	= stalefs_get_link,
	.setattr	= stalefs_setattr,
	.getattr	= stalefs_getattr,
	.listxattr	= stalefs_listxattr,
};

const struct inode_operations stalefs_fast_symlink_inode_operations = {
	.get_link	= simple_get_link,
	.setattr	= stalefs_setattr,
	.getattr	= stalefs_getattr,
	.listxattr	= stalefs_listxattr,
};
