// SPDX-License-Identifier: GPL-2.0
/*
 * Directories: blocks of rec_len-chained entries behind a checksummed header
 * (FORMAT.md section 8).  Entries never move, so (block, offset) positions
 * stay valid; a removed entry's space joins the entry before it.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

bool stalefs_name_valid(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len > STALEFS_NAME_LEN)
		return false;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return false;
	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == '\0')
			return false;
	return true;
}

struct dir_ctx {
	stalefs_fs *fs;
	u32 dir;
	struct stalefs_inode inode;
	struct stalefs_extent_list map;
	u32 nblocks;
	u8 *buf;
};

static errcode_t dir_open(stalefs_fs *fs, u32 dir, struct dir_ctx *c)
{
	errcode_t err;

	memset(c, 0, sizeof(*c));
	c->fs = fs;
	c->dir = dir;
	err = stalefs_read_inode(fs, dir, &c->inode);
	if (err)
		return err;
	if ((le16_to_cpu(c->inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFDIR)
		return STALEFS_ERR_NOT_DIR;
	err = stalefs_extent_read(fs, dir, &c->inode, &c->map);
	if (err)
		return err;
	c->nblocks = (u32)(le64_to_cpu(c->inode.i_size) / fs->block_size);
	c->buf = stalefs_xmalloc(fs->block_size);
	return 0;
}

static void dir_close(struct dir_ctx *c)
{
	stalefs_extent_list_free(&c->map);
	free(c->buf);
}

/*
 * The last directory block content known to carry a good checksum (one we
 * just stamped, or just verified), with the seed it was checked under.  A
 * checksum is a pure function of seed and bytes, so the same bytes need no
 * second CRC: adding entries one after another (mkfs -d) re-reads the block
 * it wrote a moment ago, and comparing 4 KiB costs far less than a CRC.
 */
static _Thread_local struct {
	u32 seed, size;
	u8 data[1u << STALEFS_MAX_LOG_BLOCK];
} dir_csum_ok;

static void dir_csum_remember(u32 seed, const u8 *buf, u32 size)
{
	dir_csum_ok.seed = seed;
	dir_csum_ok.size = size;
	memcpy(dir_csum_ok.data, buf, size);
}

static bool dir_csum_known_good(u32 seed, const u8 *buf, u32 size)
{
	return dir_csum_ok.size == size && dir_csum_ok.seed == seed && memcmp(dir_csum_ok.data, buf, size) == 0;
}

/* Read and verify directory block lblk into c->buf; *pblk gets its location. */
static errcode_t dir_read_block(struct dir_ctx *c, u32 lblk, u64 *pblk)
{
	stalefs_fs *fs = c->fs;
	u32 idx;
	int rule;
	errcode_t err;

	if (!stalefs_extent_list_find(&c->map, lblk, &idx) ||
	    (c->map.ext[idx].flags & STALEFS_EXT_UNWRITTEN))
		return STALEFS_ERR_DIR_CORRUPT;	/* directories have no holes */
	*pblk = c->map.ext[idx].pblk + (lblk - c->map.ext[idx].lblk);
	err = stalefs_read_block(fs, *pblk, c->buf);
	if (err)
		return err;
	rule = stalefs_verify_dirblock(c->buf, fs->block_size, *pblk, c->dir, lblk);
	if (rule)
		return STALEFS_ERR_DIR_CORRUPT;
	if (!(fs->flags & STALEFS_OPEN_IGNORE_CSUM) && !dir_csum_known_good(fs->seed, c->buf, fs->block_size)) {
		if (stalefs_verify_dirblock_csum(fs->seed, c->buf, fs->block_size))
			return STALEFS_ERR_DIR_CSUM;
		dir_csum_remember(fs->seed, c->buf, fs->block_size);
	}
	return 0;
}

static errcode_t dir_write_block(struct dir_ctx *c, u64 pblk)
{
	stalefs_dirblock_set_csum(c->fs->seed, c->buf, c->fs->block_size);
	dir_csum_remember(c->fs->seed, c->buf, c->fs->block_size);
	return stalefs_write_block(c->fs, pblk, c->buf);
}

errcode_t stalefs_dir_iterate(stalefs_fs *fs, u32 dir, int flags, stalefs_dir_iter_fn fn, void *priv)
{
	return stalefs_dir_iterate_from(fs, dir, 0, flags, fn, priv);
}

errcode_t stalefs_dir_iterate_from(stalefs_fs *fs, u32 dir, u32 first_lblk, int flags, stalefs_dir_iter_fn fn,
				   void *priv)
{
	struct dir_ctx c;
	errcode_t err;
	u32 lblk;

	err = dir_open(fs, dir, &c);
	if (err) {
		dir_close(&c);
		return err;
	}
	for (lblk = first_lblk; lblk < c.nblocks; lblk++) {
		u64 pblk;
		int ret;

		err = dir_read_block(&c, lblk, &pblk);
		if (err)
			break;
		ret = stalefs_dirblock_entries(fs, c.buf, lblk, pblk,
					       &(struct stalefs_dir_scan_ops){ .flags = flags, .entry = fn }, priv);
		if (ret > 0)
			goto out;
		if (ret < 0) {
			err = (errcode_t)-ret;
			goto out;
		}
	}
out:
	dir_close(&c);
	return err;
}

/* The entry name in the block in c->buf: its offset (and the entry before it), or 0. */
static u32 find_in_block(struct dir_ctx *c, const char *name, u32 len, u32 *prev_off)
{
	u32 off = sizeof(struct stalefs_dir_block), prev = 0, bs = c->fs->block_size;

	/* The block verified (dir_read_block): its rec_len chain is sound. */
	while (off + sizeof(struct stalefs_dir_entry) <= bs) {
		const struct stalefs_dir_entry *de = (const void *)(c->buf + off);
		u32 rec = le16_to_cpu(de->rec_len);

		if (de->inode && de->name_len == len && memcmp(de->name, name, len) == 0) {
			if (prev_off)
				*prev_off = prev;
			return off;
		}
		if (rec < sizeof(*de))
			break;
		prev = off;
		off += rec;
	}
	return 0;
}

static errcode_t dx_read(void *ctx, u32 lblk, const u8 **block)
{
	struct dir_ctx *c = ctx;
	u64 pblk;
	errcode_t err = dir_read_block(c, lblk, &pblk);

	*block = c->buf;
	return err;
}

/* The directory's index (dir_index.c), when the filesystem keeps them and it has one. */
static struct dx_dir *dir_dx(struct dir_ctx *c)
{
	if (!c->fs->dir_index)
		return NULL;
	return stalefs_dirindex_get(c->fs, c->dir, &c->inode, c->nblocks, dx_read, c);
}

/*
 * Find name in an open directory: the block holding it in c->buf, where it is and the entry
 * before it.  Through the index the blocks its hash names, else every block in order.
 * STALEFS_ERR_NOT_FOUND when it is not there.
 */
static errcode_t find_name(struct dir_ctx *c, struct dx_dir *dx, const char *name, u32 len, u32 *lblk,
			   u64 *pblk, u32 *off, u32 *prev)
{
	u32 cand[16], n, i;
	errcode_t err;

	if (dx) {
		n = stalefs_dirindex_candidates(dx, name, len, cand, 16);
		for (i = 0; i < n; i++) {
			err = dir_read_block(c, cand[i], pblk);
			if (err)
				return err;
			*off = find_in_block(c, name, len, prev);
			if (*off) {
				*lblk = cand[i];
				return 0;
			}
		}
		/* The index is exact (and names sharing a hash are few): absent. */
		if (n < 16)
			return STALEFS_ERR_NOT_FOUND;
	}
	for (i = 0; i < c->nblocks; i++) {
		err = dir_read_block(c, i, pblk);
		if (err)
			return err;
		*off = find_in_block(c, name, len, prev);
		if (*off) {
			*lblk = i;
			return 0;
		}
	}
	return STALEFS_ERR_NOT_FOUND;
}

errcode_t stalefs_lookup(stalefs_fs *fs, u32 dir, const char *name, size_t len, u32 *ino)
{
	struct dir_ctx c;
	u32 lblk, off, prev;
	u64 pblk;
	errcode_t err;

	if (len == 0 || len > STALEFS_NAME_LEN)
		return len ? STALEFS_ERR_NAME_TOO_LONG : STALEFS_ERR_NOT_FOUND;
	err = dir_open(fs, dir, &c);
	if (!err)
		err = find_name(&c, dir_dx(&c), name, (u32)len, &lblk, &pblk, &off, &prev);
	if (!err)
		*ino = le32_to_cpu(((const struct stalefs_dir_entry *)(c.buf + off))->inode);
	dir_close(&c);
	return err;
}

/* A name was added to (or removed from) block lblk, in c->buf: the index follows, and the
 * directory's times. */
static errcode_t dir_changed(struct dir_ctx *c, struct dx_dir *dx, const char *name, u32 len, u32 lblk,
			     bool added)
{
	if (dx) {
		if (added)
			stalefs_dirindex_add(dx, name, len, lblk);
		else
			stalefs_dirindex_remove(dx, name, len, lblk);
		stalefs_dirindex_set_room(dx, lblk, stalefs_dirindex_block_room(c->buf, c->fs->block_size));
	}
	stalefs_inode_set_times_now(&c->inode, false, true, true);
	return stalefs_write_inode(c->fs, c->dir, &c->inode);
}

/* Try to place an entry in c->buf; true on success. */
static bool place_entry(struct dir_ctx *c, const char *name, u32 len, u32 ino, u8 ft)
{
	u32 off = stalefs_dirblock_find_room(c->buf, c->fs->block_size, len);

	if (!off)
		return false;
	stalefs_dirblock_place(c->buf, off, ino, name, len, ft);
	return true;
}

errcode_t stalefs_link(stalefs_fs *fs, u32 dir, const char *name, u32 ino, u8 file_type)
{
	struct dir_ctx c;
	struct dx_dir *dx;
	u32 len = (u32)strlen(name), lblk, start;
	u64 pblk;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (len > STALEFS_NAME_LEN)
		return STALEFS_ERR_NAME_TOO_LONG;
	if (len == 0 || memchr(name, '/', len))
		return STALEFS_ERR_BAD_NAME;
	err = dir_open(fs, dir, &c);
	if (err)
		goto out;
	dx = dir_dx(&c);
	if (dx) {
		/* The first block with room (where the scan below would put it too). */
		lblk = stalefs_dirindex_first_room(dx, STALEFS_DIR_REC_LEN(len));
		if (lblk != ~0u) {
			err = dir_read_block(&c, lblk, &pblk);
			if (err)
				goto out;
			if (place_entry(&c, name, len, ino, file_type)) {
				err = dir_write_block(&c, pblk);
				goto placed;
			}
			stalefs_dirindex_drop(fs, dir);	/* not what the index said: never trust it again */
			dx = NULL;
		} else {
			lblk = c.nblocks;
			goto append;
		}
	}
	/* Filling a directory: resume where the last entry went rather than rescanning. */
	start = (fs->dir_hint_ino == dir && fs->dir_hint_lblk < c.nblocks) ? fs->dir_hint_lblk : 0;
	for (lblk = start; lblk < c.nblocks; lblk++) {
		err = dir_read_block(&c, lblk, &pblk);
		if (err)
			goto out;
		if (place_entry(&c, name, len, ino, file_type)) {
			err = dir_write_block(&c, pblk);
			goto placed;
		}
	}
append:
	/* No room: a new block at the end. */
	if (c.nblocks >= STALEFS_MAX_FILE_BLOCKS - 1) {
		err = STALEFS_ERR_FILE_TOO_BIG;
		goto out;
	}
	lblk = c.nblocks;
	{
		u64 goal = c.map.count ? c.map.ext[c.map.count - 1].pblk + c.map.ext[c.map.count - 1].len
				       : stalefs_group_first_block(&fs->geom, stalefs_ino_group(&fs->geom, dir));

		err = stalefs_alloc_block(fs, goal, &pblk);
	}
	if (err)
		goto out;
	stalefs_dirblock_init(c.buf, fs->block_size, pblk, dir, lblk);
	place_entry(&c, name, len, ino, file_type);
	err = dir_write_block(&c, pblk);
	if (!err)
		err = stalefs_extent_list_set(&c.map, lblk, 1, pblk, 0, NULL);
	if (!err)
		err = stalefs_extent_write(fs, dir, &c.inode, &c.map);
	if (err)
		goto out;
	c.inode.i_size = cpu_to_le64((u64)(lblk + 1) * fs->block_size);
placed:
	fs->dir_hint_ino = dir;
	fs->dir_hint_lblk = lblk;
	if (!err)
		err = dir_changed(&c, dx, name, len, lblk, true);
out:
	dir_close(&c);
	return err;
}

errcode_t stalefs_unlink(stalefs_fs *fs, u32 dir, const char *name, u32 *ret_ino)
{
	struct dir_ctx c;
	struct dx_dir *dx = NULL;
	u32 len = (u32)strlen(name), lblk, off, prev;
	u64 pblk;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = dir_open(fs, dir, &c);
	if (!err) {
		dx = dir_dx(&c);
		err = find_name(&c, dx, name, len, &lblk, &pblk, &off, &prev);
	}
	if (err)
		goto out;
	if (ret_ino)
		*ret_ino = le32_to_cpu(((const struct stalefs_dir_entry *)(c.buf + off))->inode);
	stalefs_dirblock_remove(c.buf, off, prev);
	err = dir_write_block(&c, pblk);
	if (!err)
		err = dir_changed(&c, dx, name, len, lblk, false);
	if (fs->dir_hint_ino == dir && fs->dir_hint_lblk > lblk)
		fs->dir_hint_lblk = lblk;
out:
	dir_close(&c);
	return err;
}

errcode_t stalefs_dir_set_entry(stalefs_fs *fs, u32 dir, const char *name, u32 ino, u8 file_type)
{
	struct dir_ctx c;
	u32 lblk, off, prev;
	u64 pblk;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = dir_open(fs, dir, &c);
	if (!err)
		err = find_name(&c, dir_dx(&c), name, (u32)strlen(name), &lblk, &pblk, &off, &prev);
	if (!err) {
		struct stalefs_dir_entry *de = (void *)(c.buf + off);

		de->inode = cpu_to_le32(ino);
		de->file_type = file_type;
		err = dir_write_block(&c, pblk);
	}
	dir_close(&c);
	return err;
}

errcode_t stalefs_dir_init(stalefs_fs *fs, u32 dir, struct stalefs_inode *inode, u32 parent)
{
	struct dir_ctx c;
	u64 pblk;
	errcode_t err;

	memset(&c, 0, sizeof(c));
	c.fs = fs;
	c.dir = dir;
	err = stalefs_alloc_block(fs, stalefs_group_first_block(&fs->geom, stalefs_ino_group(&fs->geom, dir)),
				  &pblk);
	if (err)
		return err;
	c.buf = stalefs_xmalloc(fs->block_size);
	stalefs_dirblock_init_dots(c.buf, fs->block_size, pblk, dir, parent);
	err = dir_write_block(&c, pblk);
	if (!err)
		err = stalefs_extent_list_set(&c.map, 0, 1, pblk, 0, NULL);
	if (!err)
		err = stalefs_extent_write(fs, dir, inode, &c.map);
	if (!err)
		inode->i_size = cpu_to_le64(fs->block_size);
	dir_close(&c);
	return err;
}

static int empty_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	(void)fs;
	if ((de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;	/* (a stalefs_dirent_info, not an on-disk entry) */
	*(bool *)priv = false;
	return 1;
}

errcode_t stalefs_dir_is_empty(stalefs_fs *fs, u32 dir, bool *empty)
{
	*empty = true;
	return stalefs_dir_iterate(fs, dir, 0, empty_cb, empty);
}
