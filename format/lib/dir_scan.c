// SPDX-License-Identifier: GPL-2.0
/*
 * The tolerant directory scan: every block the directory's extent tree maps,
 * with its verdict, and every entry that can still be parsed.  The strict
 * stalefs_dir_iterate (dir.c) parses its verified blocks with the same
 * stalefs_dirblock_entries; debugfs's ls, ncheck, rdump and friends are a
 * policy over stalefs_dir_scan that names each damaged block and goes on.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

/*
 * A removed entry left in [off, end): the shape a live entry has (a valid file type, a name
 * without '/' or NUL, a rec_len that could have held it, an inode number of this
 * filesystem).  Anything else in the tail is not reported: it is what was written over.
 */
static bool removed_entry_at(const stalefs_fs *fs, const u8 *buf, u32 off, u32 end)
{
	const struct stalefs_dir_entry *de = (const void *)(buf + off);
	u32 ino, rec_len, i;

	if (end - off < sizeof(*de) || !de->name_len || STALEFS_DIR_REC_LEN(de->name_len) > end - off)
		return false;
	ino = le32_to_cpu(de->inode);
	rec_len = le16_to_cpu(de->rec_len);
	if (!ino || ino > fs->geom.inodes_count || de->file_type == STALEFS_FT_UNKNOWN ||
	    de->file_type >= STALEFS_FT_MAX || rec_len % 4 || rec_len < STALEFS_DIR_REC_LEN(de->name_len))
		return false;
	for (i = 0; i < de->name_len; i++)
		if (de->name[i] == '/' || de->name[i] == '\0')
			return false;
	return true;
}

/* The removed entries in the tail [off, end) of a live entry's rec_len, in order. */
static int removed_entries(stalefs_fs *fs, const u8 *buf, u32 lblk, u64 pblk, u32 off, u32 end,
			   const struct stalefs_dir_scan_ops *ops, void *priv)
{
	struct stalefs_dirent_info info;
	int ret;

	while (off + sizeof(struct stalefs_dir_entry) <= end) {
		const struct stalefs_dir_entry *de = (const void *)(buf + off);

		if (!removed_entry_at(fs, buf, off, end)) {
			off += 4;	/* entries start at multiples of 4 */
			continue;
		}
		memset(&info, 0, sizeof(info));
		info.lblk = lblk;
		info.pblk = pblk;
		info.offset = off;
		info.ino = le32_to_cpu(de->inode);
		info.rec_len = le16_to_cpu(de->rec_len);
		info.file_type = de->file_type;
		info.name_len = de->name_len;
		memcpy(info.name, de->name, info.name_len);
		info.name[info.name_len] = '\0';
		info.deleted = true;
		ret = ops->entry ? ops->entry(fs, &info, priv) : 0;
		if (ret)
			return ret;
		/* Not its rec_len: entries removed after it were merged into it and lie inside. */
		off += STALEFS_DIR_REC_LEN(de->name_len);
	}
	return 0;
}

int stalefs_dirblock_entries(stalefs_fs *fs, const void *block, u32 lblk, u64 pblk,
			     const struct stalefs_dir_scan_ops *ops, void *priv)
{
	const u8 *buf = block;
	u32 bs = fs->block_size, off = sizeof(struct stalefs_dir_block);
	struct stalefs_dirent_info info;
	bool deleted = ops->flags & STALEFS_DIR_ITER_DELETED;
	int ret;

	while (off < bs) {
		const struct stalefs_dir_entry *de = (const void *)(buf + off);
		int rule = stalefs_verify_dirent_fit(block, bs, off);

		memset(&info, 0, sizeof(info));
		info.lblk = lblk;
		info.pblk = pblk;
		info.offset = off;
		if (rule == STALEFS_R_DIR_REC_LEN) {
			/* The chain is broken here: nothing after it can be found. */
			info.rec_len = bs - off >= sizeof(*de) ? le16_to_cpu(de->rec_len) : 0;
			return ops->bad_entry ? ops->bad_entry(fs, &info, rule, priv) : 0;
		}
		info.ino = le32_to_cpu(de->inode);
		info.rec_len = le16_to_cpu(de->rec_len);
		info.file_type = de->file_type;
		if (rule) {
			info.name_len = de->name_len;
			ret = ops->bad_entry ? ops->bad_entry(fs, &info, rule, priv) : 0;
		} else if (info.ino || (ops->flags & STALEFS_DIR_ITER_EMPTY) || (deleted && de->name_len)) {
			/* An unused slot shows the name it still holds, where one fits. */
			info.name_len = STALEFS_DIR_REC_LEN(de->name_len) <= info.rec_len ? de->name_len : 0;
			memcpy(info.name, de->name, info.name_len);
			info.name[info.name_len] = '\0';
			info.deleted = deleted && !info.ino && info.name_len;
			ret = ops->entry ? ops->entry(fs, &info, priv) : 0;
		} else {
			ret = 0;
		}
		if (!ret && !rule && deleted) {
			/* What a slot's own entry (its name, if it still holds one) does not use. */
			u32 used = info.ino || info.name_len ? STALEFS_DIR_REC_LEN(info.name_len) : 0;

			if (info.rec_len > used)
				ret = removed_entries(fs, buf, lblk, pblk, off + used, off + info.rec_len, ops, priv);
		}
		if (ret)
			return ret;
		off += info.rec_len;
	}
	return 0;
}

struct dir_blocks {
	struct { u32 lblk; u64 pblk; } *v;
	size_t n, cap;
};

static int collect(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	struct dir_blocks *b = priv;
	u32 i;

	(void)fs;
	if (e->is_index || e->len > STALEFS_EXT_MAX_LEN)
		return 0;
	for (i = 0; i < e->len; i++) {
		if (b->n == b->cap) {
			b->cap = b->cap ? b->cap * 2 : 16;
			b->v = stalefs_xrealloc(b->v, b->cap * sizeof(*b->v));
		}
		b->v[b->n].lblk = e->lblk + i;
		b->v[b->n].pblk = e->pblk + i;
		b->n++;
	}
	return 0;
}

/* One block: its verdict, then (unless it is no directory block at all) its entries. */
static int scan_block(stalefs_fs *fs, u32 dir, u32 lblk, u64 pblk, u8 *buf,
		      const struct stalefs_dir_scan_ops *ops, void *priv)
{
	struct stalefs_dirblock_info b = { dir, lblk, pblk, 0, 0 };
	int ret;

	b.err = stalefs_read_block(fs, pblk, buf);
	if (!b.err && le32_to_cpu(*(const __le32 *)buf) != STALEFS_DIRBLK_MAGIC)
		b.rule = STALEFS_R_DIR_MAGIC;
	if (b.err || b.rule)
		return ops->bad_block ? ops->bad_block(fs, &b, priv) : 0;
	b.rule = stalefs_verify_dirblock(buf, fs->block_size, pblk, dir, lblk);
	if (!b.rule)
		b.rule = stalefs_verify_dirblock_csum(fs->seed, buf, fs->block_size);
	if (b.rule && ops->bad_block) {
		ret = ops->bad_block(fs, &b, priv);
		if (ret)
			return ret;
	}
	return stalefs_dirblock_entries(fs, buf, lblk, pblk, ops, priv);
}

int stalefs_dir_scan(stalefs_fs *fs, u32 dir, const struct stalefs_inode *inode,
		     const struct stalefs_dir_scan_ops *ops, void *priv)
{
	static const struct stalefs_xscan_ops collect_ops = { .entry = collect };
	struct dir_blocks b = { NULL, 0, 0 };
	int bad_nodes, ret = 0;
	size_t i;
	u8 *buf;

	bad_nodes = stalefs_extent_scan(fs, dir, inode, &collect_ops, &b);
	if (bad_nodes && ops->bad_tree)
		ret = ops->bad_tree(fs, dir, bad_nodes, priv);
	buf = stalefs_xmalloc(fs->block_size);
	for (i = 0; i < b.n && !ret; i++)
		ret = scan_block(fs, dir, b.v[i].lblk, b.v[i].pblk, buf, ops, priv);
	free(buf);
	free(b.v);
	return ret;
}
