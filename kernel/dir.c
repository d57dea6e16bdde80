// SPDX-License-Identifier: GPL-2.0
/*
 * Directories: linear blocks of entries (FORMAT.md section 8), read and
 * written through the buffer cache as metadata.  Entries never move, so a
 * readdir position (the byte offset in the directory) stays valid while
 * entries come and go.
 *
 * Large directories get an in-memory index (dir_index.c) that lookups and
 * adds use instead of walking every block; every edit here keeps it exact.
 *
 * Locking: the VFS holds the directory's i_rwsem, shared for lookup and
 * readdir, exclusive for every change, so block edits never race.  Every
 * change runs in the caller's journal handle (namei.c): dir_change() gives
 * the block to the transaction and locks it, stalefs_dir_dirty() journals it.
 */
#include <linux/iversion.h>
#include "stalefs.h"
#include "dir_index.h"
#include "journal.h"
#include "stale.h"

static const unsigned char ft_to_dt[STALEFS_FT_MAX] = {
	[STALEFS_FT_UNKNOWN] = DT_UNKNOWN,
	[STALEFS_FT_REG] = DT_REG,
	[STALEFS_FT_DIR] = DT_DIR,
	[STALEFS_FT_CHRDEV] = DT_CHR,
	[STALEFS_FT_BLKDEV] = DT_BLK,
	[STALEFS_FT_FIFO] = DT_FIFO,
	[STALEFS_FT_SOCK] = DT_SOCK,
	[STALEFS_FT_SYMLINK] = DT_LNK,
};

static u32 dir_blocks(struct inode *dir)
{
	return (u32)min_t(u64, dir->i_size >> dir->i_sb->s_blocksize_bits,
			  STALEFS_MAX_FILE_BLOCKS);
}

/* Physical block of directory block lblk; directories have no holes. */
static int dir_map(struct inode *dir, u32 lblk, u64 *pblk)
{
	struct stalefs_inode_info *ei = STALEFS_I(dir);
	struct stalefs_ext ex;
	int found;

	down_read(&ei->i_map_sem);
	found = stalefs_ext_lookup(dir, lblk, &ex);
	up_read(&ei->i_map_sem);
	if (!found || ex.flags) {
		stalefs_error(dir->i_sb, dir->i_ino, 0,
			      "directory block %u is a hole or not a written extent", lblk);
		return -EUCLEAN;
	}
	*pblk = ex.pblk + (lblk - ex.lblk);
	return 0;
}

struct buffer_head *stalefs_dir_bread(struct inode *dir, u32 lblk, int *err)
{
	struct super_block *sb = dir->i_sb;
	struct buffer_head *bh;
	u64 pblk;
	int rule;

	*err = dir_map(dir, lblk, &pblk);
	if (*err)
		return NULL;
	bh = sb_bread(sb, pblk);
	if (!bh) {
		stalefs_error(sb, dir->i_ino, pblk, "cannot read directory block");
		*err = -EIO;
		return NULL;
	}
	/*
	 * The header is checked on every use (cheap, and a block claimed by
	 * two directories must fail for the second); the entry walk and the
	 * checksum once per read from disk.
	 */
	rule = stalefs_verify_dirblock_header(bh->b_data, pblk, dir->i_ino, lblk);
	if (!rule && !buffer_stalefs_verified(bh)) {
		rule = stalefs_verify_dirblock_csum(STALEFS_SB(sb)->csum_seed, bh->b_data,
						    sb->s_blocksize);
		if (!rule)
			rule = stalefs_verify_dirblock(bh->b_data, sb->s_blocksize, pblk,
						       dir->i_ino, lblk);
		if (!rule)
			set_buffer_stalefs_verified(bh);
	}
	if (rule) {
		stalefs_error(sb, dir->i_ino, pblk, "%s", stalefs_rule_msg(rule));
		brelse(bh);
		*err = -EUCLEAN;
		return NULL;
	}
	return bh;
}

/*
 * Start reading directory blocks [lblk, lblk+n) that are not cached: a cold
 * walk of a big directory (readdir, building its index) would otherwise wait
 * on each block in turn.
 */
void stalefs_dir_readahead(struct inode *dir, u32 lblk, u32 n)
{
	struct stalefs_inode_info *ei = STALEFS_I(dir);
	u32 end = min(dir_blocks(dir), lblk + n);
	struct blk_plug plug;

	blk_start_plug(&plug);
	down_read(&ei->i_map_sem);
	while (lblk < end) {
		struct stalefs_ext ex;

		if (!stalefs_ext_lookup(dir, lblk, &ex) || ex.flags)
			break;	/* dir_bread reports it when the walk gets there */
		for (; lblk < end && lblk < (u64)ex.lblk + ex.len; lblk++)
			sb_breadahead(dir->i_sb, ex.pblk + (lblk - ex.lblk));
	}
	up_read(&ei->i_map_sem);
	blk_finish_plug(&plug);
}

/* Entries were checked by the verifier; walking is bounded by rec_len > 0. */
#define for_each_de(bh, bs, de, off) \
	for ((off) = sizeof(struct stalefs_dir_block); \
	     (off) < (bs) && ((de) = (void *)((bh)->b_data + (off)), 1); \
	     (off) += le16_to_cpu((de)->rec_len))

/* Before a directory block changes: it joins the transaction, locked. */
static int dir_change(struct inode *dir, struct buffer_head *bh)
{
	int err = stalefs_get_write_access(dir->i_sb, bh);

	if (!err)
		lock_buffer(bh);
	return err;
}

/* Directory block edited (under lock_buffer): checksum and journal it. */
void stalefs_dir_dirty(struct inode *dir, struct buffer_head *bh)
{
	WARN_ON_ONCE(!buffer_locked(bh));	/* dir_change() locked it */
	stalefs_dirblock_set_csum(STALEFS_SB(dir->i_sb)->csum_seed, bh->b_data,
				  dir->i_sb->s_blocksize);
	unlock_buffer(bh);
	stalefs_dirty_metadata(dir, dir->i_sb, bh);
	dir->i_mtime = dir->i_ctime = current_time(dir);
	inode_inc_iversion(dir);
	mark_inode_dirty(dir);
}

static bool name_is(const struct stalefs_dir_entry *de, const char *name, u32 len)
{
	return de->inode && de->name_len == len && !memcmp(de->name, name, len);
}

/* Look for name in block lblk only: 0 and pos (holding the buffer), or an error. */
int stalefs_dir_find_in(struct inode *dir, u32 lblk, const struct qstr *name,
			struct stalefs_dir_pos *pos)
{
	u32 bs = dir->i_sb->s_blocksize, off;
	struct buffer_head *bh;
	struct stalefs_dir_entry *de, *prev = NULL;
	int err;

	bh = stalefs_dir_bread(dir, lblk, &err);
	if (!bh)
		return err;
	for_each_de(bh, bs, de, off) {
		if (name_is(de, name->name, name->len)) {
			pos->bh = bh;
			pos->de = de;
			pos->prev = prev;
			return 0;
		}
		prev = de;
	}
	brelse(bh);
	return -ENOENT;
}

int stalefs_dir_find(struct inode *dir, const struct qstr *name, struct stalefs_dir_pos *pos)
{
	u32 n = dir_blocks(dir), lblk;
	struct stalefs_dx *dx = stalefs_dx_get(dir, n);
	int err;

	if (dx)
		return stalefs_dx_find(dx, dir, name, pos);
	for (lblk = 0; lblk < n; lblk++) {
		err = stalefs_dir_find_in(dir, lblk, name, pos);
		if (err != -ENOENT)
			return err;
	}
	return -ENOENT;
}

static u32 block_lblk(struct buffer_head *bh)
{
	return le32_to_cpu(((struct stalefs_dir_block *)bh->b_data)->db_lblk);
}

/* A new, empty directory block at lblk (one free entry spanning it). */
static struct buffer_head *dir_new_block(struct inode *dir, u32 lblk, int *err)
{
	struct super_block *sb = dir->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(dir);
	struct buffer_head *bh;
	struct stalefs_ext ex;

	down_write(&ei->i_map_sem);
	*err = stalefs_ext_alloc_range(dir, lblk, 1, 0, &ex);
	if (!*err && (ex.lblk != lblk || ex.flags))
		*err = -EUCLEAN;
	up_write(&ei->i_map_sem);
	if (*err)
		return NULL;
	bh = sb_getblk(sb, ex.pblk);
	if (!bh) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = dir_change(dir, bh);
	if (*err) {
		brelse(bh);
		return NULL;
	}
	stalefs_dirblock_init(bh->b_data, sb->s_blocksize, ex.pblk, dir->i_ino, lblk);
	set_buffer_uptodate(bh);
	set_buffer_stalefs_verified(bh);
	i_size_write(dir, (loff_t)(lblk + 1) << sb->s_blocksize_bits);
	return bh;	/* locked: the caller fills it and calls stalefs_dir_dirty */
}

/* Add the entry to block lblk if it has room: 1 added, 0 no room, <0 error. */
static int add_in_block(struct inode *dir, u32 lblk, const struct qstr *name, u32 ino,
			umode_t mode)
{
	struct buffer_head *bh;
	u32 off;
	int err;

	bh = stalefs_dir_bread(dir, lblk, &err);
	if (!bh)
		return err;
	off = stalefs_dirblock_find_room(bh->b_data, dir->i_sb->s_blocksize, name->len);
	if (!off) {
		brelse(bh);
		return 0;
	}
	err = dir_change(dir, bh);
	if (err) {
		brelse(bh);
		return err;
	}
	stalefs_dirblock_place(bh->b_data, off, ino, name->name, name->len, stalefs_mode_to_ft(mode));
	stalefs_dir_dirty(dir, bh);
	stalefs_dx_update(dir, bh, lblk, name->name, name->len, true);
	brelse(bh);
	return 1;
}

int stalefs_dir_add(struct inode *dir, const struct qstr *name, u32 ino, umode_t mode)
{
	u32 n = dir_blocks(dir), lblk;
	struct stalefs_dx *dx;
	struct buffer_head *bh;
	int err;

	WARN_ON_ONCE(!inode_is_locked(dir));
	dx = stalefs_dx_get(dir, n);

	if (dx) {
		/* The first block with room, as the walk below would find it. */
		lblk = stalefs_dx_room(dx, STALEFS_DIR_REC_LEN(name->len));
		if (lblk != STALEFS_DX_NONE) {
			err = add_in_block(dir, lblk, name, ino, mode);
			if (err)
				return err < 0 ? err : 0;
			stalefs_dx_drop(dir);	/* it was wrong about the room: walk */
			lblk = 0;
		} else {
			lblk = n;	/* no block has room */
		}
	} else {
		lblk = 0;
	}
	for (; lblk < n; lblk++) {
		err = add_in_block(dir, lblk, name, ino, mode);
		if (err)
			return err < 0 ? err : 0;
	}
	if (n >= STALEFS_MAX_FILE_BLOCKS - 1)
		return -ENOSPC;
	bh = dir_new_block(dir, n, &err);
	if (!bh)
		return err;
	stalefs_dirblock_place(bh->b_data, sizeof(struct stalefs_dir_block), ino, name->name,
			       name->len, stalefs_mode_to_ft(mode));
	stalefs_dir_dirty(dir, bh);
	stalefs_dx_update(dir, bh, n, name->name, name->len, true);
	brelse(bh);
	return 0;
}

int stalefs_dir_delete(struct inode *dir, struct stalefs_dir_pos *pos)
{
	char name[STALEFS_NAME_LEN];
	u32 len = pos->de->name_len;
	int err;

	WARN_ON_ONCE(!inode_is_locked(dir));

	memcpy(name, pos->de->name, len);
	err = dir_change(dir, pos->bh);
	if (err)
		return err;
	stalefs_dirblock_remove(pos->bh->b_data, (u8 *)pos->de - (u8 *)pos->bh->b_data,
				pos->prev ? (u8 *)pos->prev - (u8 *)pos->bh->b_data : 0);
	stalefs_dir_dirty(dir, pos->bh);
	stalefs_dx_update(dir, pos->bh, block_lblk(pos->bh), name, len, false);
	return 0;
}

int stalefs_dir_set(struct inode *dir, struct stalefs_dir_pos *pos, u32 ino, umode_t mode)
{
	int err;

	WARN_ON_ONCE(!inode_is_locked(dir));
	err = dir_change(dir, pos->bh);

	if (err)
		return err;
	pos->de->inode = cpu_to_le32(ino);
	pos->de->file_type = stalefs_mode_to_ft(mode);
	stalefs_dir_dirty(dir, pos->bh);
	return 0;
}

int stalefs_init_new_dir(struct inode *dir, struct inode *parent)
{
	struct buffer_head *bh;
	int err;

	bh = dir_new_block(dir, 0, &err);
	if (!bh)
		return err;
	stalefs_dirblock_init_dots(bh->b_data, dir->i_sb->s_blocksize, bh->b_blocknr, dir->i_ino,
				   parent->i_ino);
	stalefs_dir_dirty(dir, bh);
	brelse(bh);
	return 0;
}

int stalefs_empty_dir(struct inode *dir)
{
	u32 bs = dir->i_sb->s_blocksize, n = dir_blocks(dir), lblk, off;
	struct stalefs_dir_entry *de;
	int err;

	for (lblk = 0; lblk < n; lblk++) {
		struct buffer_head *bh = stalefs_dir_bread(dir, lblk, &err);

		if (!bh)
			return err;
		for_each_de(bh, bs, de, off) {
			if (!de->inode || stalefs_dirent_is_dots(de))
				continue;
			brelse(bh);
			return 0;
		}
		brelse(bh);
	}
	return 1;
}

/* The '..' entry (the second of block 0). */
int stalefs_dir_dotdot(struct inode *dir, struct stalefs_dir_pos *pos)
{
	static const struct qstr dotdot = QSTR_INIT("..", 2);
	int err = stalefs_dir_find_in(dir, 0, &dotdot, pos);

	if (err != -ENOENT)
		return err;
	stalefs_error(dir->i_sb, dir->i_ino, 0, "directory has no '..' entry");
	return -EUCLEAN;
}

static int stalefs_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	u32 bs = dir->i_sb->s_blocksize, bits = dir->i_sb->s_blocksize_bits;
	u32 n = dir_blocks(dir), lblk, off;
	struct stalefs_dir_entry *de;
	int err;

	if (ctx->pos < 0)
		return 0;
	for (lblk = ctx->pos >> bits; lblk < n; lblk++) {
		u32 start = lblk == (ctx->pos >> bits) ? ctx->pos & (bs - 1) : 0;
		struct buffer_head *bh;

		if (lblk == ctx->pos >> bits || lblk % STALEFS_DIR_READAHEAD == 0)
			stalefs_dir_readahead(dir, lblk, STALEFS_DIR_READAHEAD);
		bh = stalefs_dir_bread(dir, lblk, &err);
		if (!bh)
			return err;
		for_each_de(bh, bs, de, off) {
			if (off < start || !de->inode)
				continue;
			ctx->pos = ((loff_t)lblk << bits) + off;
			if (!dir_emit(ctx, de->name, de->name_len, le32_to_cpu(de->inode),
				      de->file_type < STALEFS_FT_MAX ?
				      ft_to_dt[de->file_type] : DT_UNKNOWN)) {
				brelse(bh);
				return 0;
			}
		}
		brelse(bh);
		ctx->pos = (loff_t)(lblk + 1) << bits;
	}
	return 0;
}

const struct file_operations stalefs_dir_operations = {
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= stalefs_readdir,
	.fsync		= stalefs_fsync,
	.unlocked_ioctl	= stalefs_ioctl,	/* stale.c: FS_IOC_GOINGDOWN and the label/tune ioctls (tune.c) on a directory too */
	.compat_ioctl	= compat_ptr_ioctl,
};
