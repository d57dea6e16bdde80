// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attributes: reading, changing and listing an inode's two regions
 * (FORMAT.md 14), and the handlers for user., trusted. and security. names.
 * Entry layout and edits are format/core's (xattr_rules.c), shared with the
 * tools; placement is theirs too: the in-inode area first, then the block.
 *
 * Nothing is trusted before it verifies: a region that fails its rules or
 * its checksum is reported and the call fails with EUCLEAN, as ext4 does.
 * A change edits copies of both regions and writes back what changed, so a
 * failure (no space, no block) leaves the attributes as they were.
 */
#include <linux/slab.h>
#include <linux/security.h>
#include <linux/posix_acl_xattr.h>
#include "xattr.h"
#include "journal.h"

/* The two regions of an inode, as read and verified. */
struct xregions {
	struct buffer_head *ibh;	/* inode table block; NULL when slots have no area */
	u8 *area;			/* inside ibh */
	u32 area_len;
	bool area_used;			/* the area holds a header (and so entries) */
	struct buffer_head *xbh;	/* the xattr block, NULL when there is none */
};

static void regions_put(struct xregions *x)
{
	brelse(x->ibh);
	brelse(x->xbh);
}

int stalefs_xattr_credits(struct super_block *sb)
{
	return 2 + stalefs_credits_alloc(sb, 1);
}

static int region_damage(struct inode *inode, u64 block, int rule)
{
	stalefs_error(inode->i_sb, inode->i_ino, block, "%s", stalefs_rule_msg(rule));
	return -EUCLEAN;
}

/* Read and verify both regions; the caller holds i_xattr_sem. */
static int regions_load(struct inode *inode, struct xregions *x)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u64 blk = STALEFS_I(inode)->i_xattr_block;
	u32 offset;
	int err = 0, rule;

	memset(x, 0, sizeof(*x));
	x->area_len = stalefs_xattr_ibody_len(&sbi->geom);
	if (x->area_len) {
		x->ibh = stalefs_inode_bh(sb, inode->i_ino, &offset, &err);
		if (!x->ibh)
			return err;
		x->area = x->ibh->b_data + offset + STALEFS_INODE_SIZE;
		x->area_used = !stalefs_xattr_ibody_empty(x->area);
		if (x->area_used) {
			rule = stalefs_verify_xattr_ibody(x->area, x->area_len);
			if (!rule)
				rule = stalefs_verify_xattr_ibody_csum(sbi->csum_seed, inode->i_ino,
								       inode->i_generation, x->area,
								       x->area_len);
			if (rule) {
				err = region_damage(inode, x->ibh->b_blocknr, rule);
				goto fail;
			}
		}
	}
	if (!blk)
		return 0;
	if (!stalefs_blocks_valid(sb, blk, 1)) {
		stalefs_error(sb, inode->i_ino, blk, "xattr block is outside the data area");
		err = -EUCLEAN;
		goto fail;
	}
	x->xbh = sb_bread(sb, blk);
	if (!x->xbh) {
		stalefs_error(sb, inode->i_ino, blk, "cannot read xattr block");
		err = -EIO;
		goto fail;
	}
	rule = stalefs_verify_xattr_block(x->xbh->b_data, sb->s_blocksize, blk, inode->i_ino,
					  inode->i_generation);
	if (!rule)
		rule = stalefs_verify_xattr_block_csum(sbi->csum_seed, x->xbh->b_data, sb->s_blocksize);
	if (rule) {
		err = region_damage(inode, blk, rule);
		goto fail;
	}
	return 0;
fail:
	regions_put(x);
	return err;
}

static u8 *area_region(u8 *area, u32 area_len, u32 *len)
{
	*len = area_len - (u32)sizeof(struct stalefs_xattr_ibody_header);
	return stalefs_xattr_ibody_region(area);
}

static u8 *block_region(struct super_block *sb, u8 *block, u32 *len)
{
	*len = stalefs_xattr_block_region_len(sb->s_blocksize);
	return stalefs_xattr_block_region(block);
}

/* The entry named (index, name) in either region: its region, length and offset. */
static u8 *locate(struct super_block *sb, u8 *area, u32 area_len, u8 *block, u8 index,
		  const char *name, u32 name_len, u32 *len, u32 *off)
{
	u8 *r;
	int o;

	if (area && !stalefs_xattr_ibody_empty(area)) {
		r = area_region(area, area_len, len);
		o = stalefs_xattr_find(r, *len, index, name, name_len);
		if (o >= 0) {
			*off = o;
			return r;
		}
	}
	if (block) {
		r = block_region(sb, block, len);
		o = stalefs_xattr_find(r, *len, index, name, name_len);
		if (o >= 0) {
			*off = o;
			return r;
		}
	}
	return NULL;
}

int stalefs_xattr_read(struct inode *inode, u8 index, const char *name, void *buf, size_t size)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct stalefs_xattr_ref ref;
	struct xregions x;
	u32 len, off, name_len = strlen(name);
	u8 *r;
	int err;

	if (!stalefs_has_xattr(inode->i_sb))
		return -EOPNOTSUPP;
	if (name_len > STALEFS_XATTR_NAME_MAX)
		return -ERANGE;
	down_read(&ei->i_xattr_sem);
	err = regions_load(inode, &x);
	if (err)
		goto out;
	r = locate(inode->i_sb, x.area, x.area_len, x.xbh ? (u8 *)x.xbh->b_data : NULL, index,
		   name, name_len, &len, &off);
	if (!r || !stalefs_xattr_entry_at(r, len, off, &ref)) {
		err = -ENODATA;
	} else if (!size) {
		err = ref.value_size;
	} else if (ref.value_size > size) {
		err = -ERANGE;
	} else {
		memcpy(buf, ref.value, ref.value_size);
		err = ref.value_size;
	}
	regions_put(&x);
out:
	up_read(&ei->i_xattr_sem);
	return err;
}

/* Whether names of this index are shown to the caller (ext4's rules). */
static bool index_listed(struct dentry *dentry, u8 index)
{
	switch (index) {
	case STALEFS_XATTR_INDEX_TRUSTED:
		return capable(CAP_SYS_ADMIN);
	case STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS:
	case STALEFS_XATTR_INDEX_POSIX_ACL_DEFAULT:
		return IS_POSIXACL(d_inode(dentry));
	default:
		return true;
	}
}

/* Append the names of one region to buf (or only count them when size is 0). */
static int list_region(struct dentry *dentry, const u8 *r, u32 len, char *buf, size_t size,
		       size_t *used)
{
	struct stalefs_xattr_ref ref;
	u32 off = 0;

	while (stalefs_xattr_entry_at(r, len, off, &ref)) {
		const char *prefix = stalefs_xattr_prefix(ref.index);
		size_t plen = strlen(prefix), n = plen + ref.name_len + 1;

		off += stalefs_xattr_entry_len(ref.name_len, ref.value_size);
		if (!index_listed(dentry, ref.index))
			continue;
		if (size) {
			if (*used + n > size)
				return -ERANGE;
			memcpy(buf + *used, prefix, plen);
			memcpy(buf + *used + plen, ref.name, ref.name_len);
			buf[*used + n - 1] = '\0';
		}
		*used += n;
	}
	return 0;
}

ssize_t stalefs_listxattr(struct dentry *dentry, char *buf, size_t size)
{
	struct inode *inode = d_inode(dentry);
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct xregions x;
	size_t used = 0;
	u32 len;
	u8 *r;
	int err;

	if (!stalefs_has_xattr(inode->i_sb))
		return 0;
	down_read(&ei->i_xattr_sem);
	err = regions_load(inode, &x);
	if (err)
		goto out;
	if (x.area_used) {
		r = area_region(x.area, x.area_len, &len);
		err = list_region(dentry, r, len, buf, size, &used);
	}
	if (!err && x.xbh) {
		r = block_region(inode->i_sb, x.xbh->b_data, &len);
		err = list_region(dentry, r, len, buf, size, &used);
	}
	regions_put(&x);
out:
	up_read(&ei->i_xattr_sem);
	return err ? err : (ssize_t)used;
}

/*
 * Copy a changed region into its buffer, in the handle.  owner: the inode
 * the buffer belongs to (its xattr block), NULL for the table block, which
 * holds other inodes too.
 */
static int write_back(struct super_block *sb, struct inode *owner, struct buffer_head *bh,
		      u8 *dst, const u8 *src, u32 len, bool fresh)
{
	int err = stalefs_get_write_access(sb, bh);

	if (err)
		return err;
	lock_buffer(bh);
	memcpy(dst, src, len);
	if (fresh)
		set_buffer_uptodate(bh);
	unlock_buffer(bh);
	return stalefs_dirty_metadata(owner, sb, bh);
}

/* A new xattr block near the inode's table, and a buffer for it. */
static int new_block(struct inode *inode, struct buffer_head **bhp)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_geom *g = &STALEFS_SB(sb)->geom;
	u64 goal = le64_to_cpu(stalefs_get_desc(sb, stalefs_ino_group(g, inode->i_ino),
						NULL)->bg_inode_table);
	u64 pblk;
	u32 got;
	int err;

	err = stalefs_new_blocks(inode, goal, 1, &pblk, &got);
	if (err)
		return err;
	*bhp = sb_getblk(sb, pblk);
	if (!*bhp) {
		stalefs_free_file_blocks(inode, pblk, 1, true);
		return -ENOMEM;
	}
	return 0;
}

/* Change (index, name) on copies of the regions, then write them back. */
static int set_locked(struct inode *inode, u8 index, const char *name, const void *value,
		      size_t size, int flags)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u32 name_len = strlen(name), elen, len, off;
	struct buffer_head *nbh = NULL, *bh;
	struct xregions x;
	u8 *area = NULL, *block = NULL, *r;
	bool area_dirty = false, block_dirty = false;
	int err;

	if (name_len > STALEFS_XATTR_NAME_MAX)
		return -ERANGE;
	/* A value no region could hold: ext4 says ENOSPC too (without ea_inode). */
	if (size > 0xFFFF)
		return -ENOSPC;
	elen = stalefs_xattr_entry_len(name_len, size);
	err = regions_load(inode, &x);
	if (err)
		return err;
	err = -ENOMEM;
	if (x.area) {
		area = kmemdup(x.area, x.area_len, GFP_NOFS);
		if (!area)
			goto out;
	}
	if (x.xbh) {
		block = kmemdup(x.xbh->b_data, sb->s_blocksize, GFP_NOFS);
		if (!block)
			goto out;
	}
	r = locate(sb, area, x.area_len, block, index, name, name_len, &len, &off);
	err = 0;
	if (r && (flags & XATTR_CREATE))
		err = -EEXIST;
	else if (!r && ((flags & XATTR_REPLACE) || !value))
		err = -ENODATA;
	if (err)
		goto out;
	/* The old value goes first, so the new one may take its room. */
	if (r) {
		stalefs_xattr_remove(r, len, off);
		if (area && r == stalefs_xattr_ibody_region(area))
			area_dirty = true;
		else
			block_dirty = true;
	}
	if (!value)
		goto store;
	if (area) {
		if (stalefs_xattr_ibody_empty(area))
			stalefs_xattr_ibody_init(area, x.area_len);
		r = area_region(area, x.area_len, &len);
		if (stalefs_xattr_append(r, len, index, name, name_len, value, size) == 0) {
			area_dirty = true;
			goto store;
		}
		if (!area_dirty && stalefs_xattr_region_used(r, len) == 0)
			memset(area, 0, x.area_len);	/* initialised for nothing */
	}
	if (!block) {
		if (elen > stalefs_xattr_block_region_len(sb->s_blocksize)) {
			err = -ENOSPC;
			goto out;
		}
		block = kzalloc(sb->s_blocksize, GFP_NOFS);
		if (!block) {
			err = -ENOMEM;
			goto out;
		}
		err = new_block(inode, &nbh);
		if (err)
			goto out;
		stalefs_xattr_block_init(block, sb->s_blocksize, nbh->b_blocknr, inode->i_ino,
					 inode->i_generation);
	}
	r = block_region(sb, block, &len);
	if (stalefs_xattr_append(r, len, index, name, name_len, value, size) != 0) {
		err = -ENOSPC;
		goto out;
	}
	block_dirty = true;
store:
	if (area_dirty) {
		r = area_region(area, x.area_len, &len);
		if (stalefs_xattr_region_used(r, len) == 0)
			memset(area, 0, x.area_len);	/* all zero: no attributes */
		else
			stalefs_xattr_ibody_set_csum(sbi->csum_seed, inode->i_ino, inode->i_generation,
						     area, x.area_len);
		err = write_back(sb, NULL, x.ibh, x.area, area, x.area_len, false);
		if (err)
			goto out;
	}
	if (block_dirty) {
		r = block_region(sb, block, &len);
		if (!nbh && stalefs_xattr_region_used(r, len) == 0) {
			stalefs_free_file_blocks(inode, ei->i_xattr_block, 1, true);
			WRITE_ONCE(ei->i_xattr_block, 0);
		} else {
			stalefs_xattr_block_set_csum(sbi->csum_seed, block, sb->s_blocksize);
			bh = nbh ? nbh : x.xbh;
			err = write_back(sb, inode, bh, bh->b_data, block, sb->s_blocksize, nbh != NULL);
			if (err)
				goto out;
			if (nbh) {
				set_buffer_stalefs_verified(nbh);
				WRITE_ONCE(ei->i_xattr_block, nbh->b_blocknr);
				brelse(nbh);
				nbh = NULL;
			}
		}
	}
out:
	if (nbh) {
		/* Allocated and not used: back it goes, in the same transaction. */
		stalefs_free_file_blocks(inode, nbh->b_blocknr, 1, true);
		brelse(nbh);
	}
	kfree(area);
	kfree(block);
	regions_put(&x);
	return err;
}

int stalefs_xattr_change_handle(struct inode *inode, u8 index, const char *name,
			     const void *value, size_t size, int flags)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	int err;

	if (!stalefs_has_xattr(inode->i_sb))
		return -EOPNOTSUPP;
	down_write(&ei->i_xattr_sem);
	err = set_locked(inode, index, name, value, size, flags);
	up_write(&ei->i_xattr_sem);
	return err;
}

int stalefs_xattr_change_mode(struct inode *inode, u8 index, const char *name,
			      const void *value, size_t size, int flags, umode_t mode,
			      bool absent_ok)
{
	struct super_block *sb = inode->i_sb;
	handle_t *handle;
	int err, err2, retries = 0;

	if (!stalefs_has_xattr(sb))
		return -EOPNOTSUPP;
retry:
	handle = stalefs_journal_start(sb, stalefs_xattr_credits(sb), 1);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	err = stalefs_xattr_change_handle(inode, index, name, value, size, flags);
	if (err == -ENODATA && !value && absent_ok)
		err = 0;
	if (!err) {
		inode->i_mode = mode;
		inode->i_ctime = current_time(inode);
		err = stalefs_inode_to_table(inode, false, true);
	}
	err2 = stalefs_journal_stop(sb, handle);
	/* Blocks freed by transactions not yet committed come back at their commit. */
	if (err == -ENOSPC && stalefs_should_retry_alloc(sb, &retries))
		goto retry;
	return err ? err : err2;
}

int stalefs_xattr_change(struct inode *inode, u8 index, const char *name, const void *value,
			 size_t size, int flags)
{
	return stalefs_xattr_change_mode(inode, index, name, value, size, flags, inode->i_mode,
					 false);
}

/* Whether the block's header names this inode (its entries may be damaged). */
static bool block_owned(struct inode *inode, u64 blk)
{
	struct super_block *sb = inode->i_sb;
	struct buffer_head *bh;
	bool ours;

	if (!stalefs_blocks_valid(sb, blk, 1))
		return false;
	bh = sb_bread(sb, blk);
	if (!bh)
		return false;
	ours = !stalefs_verify_xattr_block_owner(bh->b_data, blk, inode->i_ino, inode->i_generation);
	brelse(bh);
	return ours;
}

void stalefs_xattr_drop(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u64 blk = ei->i_xattr_block;

	if (!blk)
		return;
	down_write(&ei->i_xattr_sem);
	/* A wrong pointer must not free another inode's block: fsck sorts out the leak. */
	if (block_owned(inode, blk))
		stalefs_free_file_blocks(inode, blk, 1, true);
	else
		stalefs_error(inode->i_sb, inode->i_ino, blk,
			      "xattr block is not this inode's: not freed");
	WRITE_ONCE(ei->i_xattr_block, 0);
	up_write(&ei->i_xattr_sem);
}

/* The security labels an LSM gives a new inode. */
static int init_labels(struct inode *inode, const struct xattr *xattrs, void *unused)
{
	const struct xattr *xa;
	int err;

	for (xa = xattrs; xa->name; xa++) {
		err = stalefs_xattr_change_handle(inode, STALEFS_XATTR_INDEX_SECURITY, xa->name,
					       xa->value, xa->value_len, 0);
		if (err)
			return err;
	}
	return 0;
}

/* The slot's area zeroed, unless it already is (nothing to journal then). */
static int clear_area(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	u32 len = stalefs_xattr_ibody_len(&STALEFS_SB(sb)->geom), offset, i;
	struct buffer_head *bh;
	u8 *area;
	int err = 0;

	if (!len)
		return 0;
	bh = stalefs_inode_bh(sb, inode->i_ino, &offset, &err);
	if (!bh)
		return err;
	area = bh->b_data + offset + STALEFS_INODE_SIZE;
	for (i = 0; i < len && !area[i]; i++)
		;
	if (i < len) {
		err = stalefs_get_write_access(sb, bh);
		if (!err) {
			lock_buffer(bh);
			memset(area, 0, len);
			unlock_buffer(bh);
			err = stalefs_dirty_metadata(NULL, sb, bh);
		}
	}
	brelse(bh);
	return err;
}

int stalefs_xattr_init_new(struct inode *inode, struct inode *dir, const struct qstr *qstr)
{
	struct posix_acl *default_acl = NULL, *acl = NULL;
	int err;

	err = clear_area(inode);
	if (err)
		return err;
	/* With SB_POSIXACL the VFS leaves the umask to this (it applies it when dir has no ACL). */
	err = posix_acl_create(dir, &inode->i_mode, &default_acl, &acl);
	if (err)
		return err;
	if (default_acl)
		err = stalefs_acl_store(inode, ACL_TYPE_DEFAULT, default_acl);
	if (!err && acl)
		err = stalefs_acl_store(inode, ACL_TYPE_ACCESS, acl);
	posix_acl_release(default_acl);
	posix_acl_release(acl);
	if (err)
		return err;
	if (!stalefs_has_xattr(inode->i_sb))
		return 0;
	return security_inode_init_security(inode, dir, qstr, init_labels, NULL);
}

static int handler_get(const struct xattr_handler *h, struct dentry *unused, struct inode *inode,
		       const char *name, void *buf, size_t size)
{
	return stalefs_xattr_read(inode, h->flags, name, buf, size);
}

static int handler_set(const struct xattr_handler *h, struct user_namespace *mnt_userns,
		       struct dentry *unused, struct inode *inode, const char *name,
		       const void *value, size_t size, int flags)
{
	return stalefs_xattr_change(inode, h->flags, name, value, size, flags);
}

static bool trusted_list(struct dentry *dentry)
{
	return capable(CAP_SYS_ADMIN);
}

static const struct xattr_handler user_handler = {
	.prefix	= XATTR_USER_PREFIX,
	.flags	= STALEFS_XATTR_INDEX_USER,
	.get	= handler_get,
	.set	= handler_set,
};

static const struct xattr_handler trusted_handler = {
	.prefix	= XATTR_TRUSTED_PREFIX,
	.flags	= STALEFS_XATTR_INDEX_TRUSTED,
	.list	= trusted_list,
	.get	= handler_get,
	.set	= handler_set,
};

static const struct xattr_handler security_handler = {
	.prefix	= XATTR_SECURITY_PREFIX,
	.flags	= STALEFS_XATTR_INDEX_SECURITY,
	.get	= handler_get,
	.set	= handler_set,
};

const struct xattr_handler *stalefs_xattr_handlers[] = {
	&user_handler,
	&trusted_handler,
	&security_handler,
#ifdef CONFIG_FS_POSIX_ACL
	&posix_acl_access_xattr_handler,
	&posix_acl_default_xattr_handler,
#endif
	NULL
};
