// SPDX-License-Identifier: GPL-2.0
/*
 * Namespace operations: lookup, create, mknod, symlink, link, unlink,
 * mkdir, rmdir, rename (NOREPLACE, EXCHANGE), and symlink reading.
 */
#include <linux/slab.h>
#include <linux/namei.h>
#include "stalefs.h"

#define STALEFS_LINK_MAX 65000

static struct dentry *stalefs_lookup(struct inode *dir, struct dentry *dentry,
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

/* Link a fresh inode into dir; on failure the inode is dropped. */
static int add_nondir(struct inode *dir, struct dentry *dentry, struct inode *inode)
{
	int err = stalefs_dir_add(dir, &dentry->d_name, inode->i_ino, inode->i_mode);

	if (err) {
		inode_dec_link_count(inode);
		discard_new_inode(inode);
		return err;
	}
	d_instantiate_new(dentry, inode);
	return 0;
}

static int stalefs_create(struct user_namespace *mnt_userns, struct inode *dir,
			  struct dentry *dentry, umode_t mode, bool excl)
{
	struct inode *inode = stalefs_new_inode(dir, mode, &dentry->d_name);

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	stalefs_set_ops(inode);
	return add_nondir(dir, dentry, inode);
}

/* O_TMPFILE: an inode with no name (nlink 0) until linkat gives it one. */
static int stalefs_tmpfile(struct user_namespace *mnt_userns, struct inode *dir,
			   struct file *file, umode_t mode)
{
	struct inode *inode = stalefs_new_inode(dir, mode, NULL);

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	stalefs_set_ops(inode);
	d_tmpfile(file, inode);
	unlock_new_inode(inode);
	return finish_open_simple(file, 0);
}

static int stalefs_mknod(struct user_namespace *mnt_userns, struct inode *dir,
			 struct dentry *dentry, umode_t mode, dev_t rdev)
{
	struct inode *inode;

	if (!S_ISREG(mode) && !S_ISCHR(mode) && !S_ISBLK(mode) && !S_ISFIFO(mode) &&
	    !S_ISSOCK(mode))
		return -EINVAL;
	inode = stalefs_new_inode(dir, mode, &dentry->d_name);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	if (!S_ISREG(mode))
		init_special_inode(inode, inode->i_mode, rdev);
	stalefs_set_ops(inode);
	mark_inode_dirty(inode);
	return add_nondir(dir, dentry, inode);
}

static int stalefs_symlink(struct user_namespace *mnt_userns, struct inode *dir,
			   struct dentry *dentry, const char *symname)
{
	struct super_block *sb = dir->i_sb;
	size_t len = strlen(symname);
	struct stalefs_inode_info *ei;
	struct inode *inode;
	int err;

	if (len == 0)
		return -ENOENT;
	if (len >= sb->s_blocksize || len > STALEFS_SYMLINK_MAX)
		return -ENAMETOOLONG;
	inode = stalefs_new_inode(dir, S_IFLNK | 0777, &dentry->d_name);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	ei = STALEFS_I(inode);
	if (len <= STALEFS_INLINE_SYMLINK_MAX) {
		/* Short target: in the inode itself, no block. */
		memset(ei->i_data, 0, sizeof(ei->i_data));
		memcpy(ei->i_data, symname, len);
		ei->i_dflags |= STALEFS_INODE_INLINE_FL;
	} else {
		struct stalefs_ext ex;
		struct buffer_head *bh;

		down_write(&ei->i_map_sem);
		err = stalefs_ext_alloc_range(inode, 0, 1, 0, &ex);
		up_write(&ei->i_map_sem);
		if (err)
			goto fail;
		bh = sb_getblk(sb, ex.pblk);
		if (!bh) {
			err = -ENOMEM;
			goto fail;
		}
		lock_buffer(bh);
		memset(bh->b_data, 0, sb->s_blocksize);
		memcpy(bh->b_data, symname, len);
		set_buffer_uptodate(bh);
		unlock_buffer(bh);
		mark_buffer_dirty_inode(bh, inode);
		brelse(bh);
	}
	inode->i_size = len;
	stalefs_set_ops(inode);
	mark_inode_dirty(inode);
	return add_nondir(dir, dentry, inode);
fail:
	inode_dec_link_count(inode);
	discard_new_inode(inode);
	return err;
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

static int stalefs_link(struct dentry *old_dentry, struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	int err;

	if (inode->i_nlink >= STALEFS_LINK_MAX)
		return -EMLINK;
	inode->i_ctime = current_time(inode);
	inode_inc_link_count(inode);
	ihold(inode);
	err = stalefs_dir_add(dir, &dentry->d_name, inode->i_ino, inode->i_mode);
	if (err) {
		inode_dec_link_count(inode);
		iput(inode);
		return err;
	}
	d_instantiate(dentry, inode);
	return 0;
}

static int stalefs_unlink(struct inode *dir, struct dentry *dentry)
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
	return 0;
}

static int stalefs_mkdir(struct user_namespace *mnt_userns, struct inode *dir,
			 struct dentry *dentry, umode_t mode)
{
	struct inode *inode;
	int err;

	if (dir->i_nlink >= STALEFS_LINK_MAX)
		return -EMLINK;
	inode = stalefs_new_inode(dir, S_IFDIR | mode, &dentry->d_name);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	stalefs_set_ops(inode);
	set_nlink(inode, 2);
	err = stalefs_dir_init(inode, dir);
	if (err)
		goto fail;
	err = stalefs_dir_add(dir, &dentry->d_name, inode->i_ino, inode->i_mode);
	if (err)
		goto fail;
	inode_inc_link_count(dir);
	d_instantiate_new(dentry, inode);
	return 0;
fail:
	clear_nlink(inode);
	mark_inode_dirty(inode);
	discard_new_inode(inode);
	return err;
}

static int stalefs_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	int err;

	err = stalefs_dir_is_empty(inode);
	if (err < 0)
		return err;
	if (!err)
		return -ENOTEMPTY;
	err = stalefs_unlink(dir, dentry);
	if (err)
		return err;
	inode->i_size = 0;
	clear_nlink(inode);
	mark_inode_dirty(inode);
	inode_dec_link_count(dir);
	return 0;
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
	stalefs_dir_set(old_dir, &opos, new_inode->i_ino, new_inode->i_mode);
	brelse(opos.bh);
	err = find_exact(new_dir, new_dentry, &npos);
	if (err)
		goto out_dd;
	stalefs_dir_set(new_dir, &npos, old_inode->i_ino, old_inode->i_mode);
	brelse(npos.bh);
	if (odd.bh)
		stalefs_dir_set(old_inode, &odd, new_dir->i_ino, S_IFDIR);
	if (ndd.bh)
		stalefs_dir_set(new_inode, &ndd, old_dir->i_ino, S_IFDIR);
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

static int stalefs_rename(struct user_namespace *mnt_userns, struct inode *old_dir,
			  struct dentry *old_dentry, struct inode *new_dir,
			  struct dentry *new_dentry, unsigned int flags)
{
	struct inode *old_inode = d_inode(old_dentry), *new_inode = d_inode(new_dentry);
	bool is_dir = S_ISDIR(old_inode->i_mode);
	struct stalefs_dir_pos opos, npos, dd = { };
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if (flags & RENAME_EXCHANGE)
		return stalefs_exchange(old_dir, old_dentry, new_dir, new_dentry);

	if (is_dir && old_dir != new_dir) {
		err = stalefs_dir_dotdot(old_inode, &dd);
		if (err)
			return err;
	}
	if (new_inode) {
		if (is_dir) {
			err = stalefs_dir_is_empty(new_inode);
			if (err <= 0) {
				err = err ? err : -ENOTEMPTY;
				goto out;
			}
		}
		err = find_exact(new_dir, new_dentry, &npos);
		if (err)
			goto out;
		stalefs_dir_set(new_dir, &npos, old_inode->i_ino, old_inode->i_mode);
		brelse(npos.bh);
		new_inode->i_ctime = current_time(new_inode);
		if (is_dir)
			drop_nlink(new_inode);
		inode_dec_link_count(new_inode);
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
	stalefs_dir_delete(old_dir, &opos);
	brelse(opos.bh);
	old_inode->i_ctime = current_time(old_inode);
	mark_inode_dirty(old_inode);
	if (is_dir) {
		if (dd.bh)
			stalefs_dir_set(old_inode, &dd, new_dir->i_ino, S_IFDIR);
		inode_dec_link_count(old_dir);
	}
out:
	brelse(dd.bh);
	return err;
}

const struct inode_operations stalefs_dir_inode_operations = {
	.lookup		= stalefs_lookup,
	.create		= stalefs_create,
	.link		= stalefs_link,
	.unlink		= stalefs_unlink,
	.symlink	= stalefs_symlink,
	.mkdir		= stalefs_mkdir,
	.rmdir		= stalefs_rmdir,
	.mknod		= stalefs_mknod,
	.rename		= stalefs_rename,
	.tmpfile	= stalefs_tmpfile,
	.setattr	= stalefs_setattr,
	.getattr	= stalefs_getattr,
	.fileattr_get	= stalefs_fileattr_get,
	.fileattr_set	= stalefs_fileattr_set,
};

const struct inode_operations stalefs_special_inode_operations = {
	.setattr	= stalefs_setattr,
	.getattr	= stalefs_getattr,
};

const struct inode_operations stalefs_symlink_inode_operations = {
	.get_link	= stalefs_get_link,
	.setattr	= stalefs_setattr,
	.getattr	= stalefs_getattr,
};

const struct inode_operations stalefs_fast_symlink_inode_operations = {
	.get_link	= simple_get_link,
	.setattr	= stalefs_setattr,
	.getattr	= stalefs_getattr,
};
