// SPDX-License-Identifier: GPL-2.0
/*
 * A shrink's second pass: inodes numbered past the new inode count (those
 * of the groups that go) get a number in a group that stays, as
 * resize2fs' inode mover does.  An inode's number is part of everything
 * that belongs to it (FORMAT.md 7): its checksum and i_ino, the owner field
 * of its tree nodes, directory blocks and xattr block, the checksum of its
 * in-inode xattr area.  So each of those is rewritten, every directory
 * entry naming it (its names, '.' if a directory, its subdirectories' '..')
 * is pointed at the new number, and the old slot is cleared and freed, all
 * in the transaction that moves the inode: a crash leaves it under one
 * number or the other, never both.
 *
 * The entries naming each moving inode are found first, by one scan of
 * every directory (the blocks have all been moved below the new end by
 * then, so their places do not change during this pass).
 */
#include <stdio.h>
#include <stdlib.h>
#include "resize.h"

/* A directory entry naming a moving inode: where it lies. */
struct ref {
	u32 ino;
	u64 pblk;
	u32 offset;
};

struct refs {
	struct ref *r;
	u32 n, cap;
	u32 limit;	/* inodes past this move */
};

static int collect_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct refs *rs = priv;

	(void)fs;
	if (de->ino <= rs->limit)
		return 0;
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 256;
		rs->r = stalefs_xrealloc(rs->r, rs->cap * sizeof(*rs->r));
	}
	rs->r[rs->n++] = (struct ref){ de->ino, de->pblk, de->offset };
	return 0;
}

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/* Every entry of every directory that names an inode past the limit, sorted by inode. */
static errcode_t find_refs(struct resize_ctx *c, struct refs *rs)
{
	stalefs_fs *fs = c->fs;
	u32 ino;
	errcode_t err = 0;

	for (ino = 1; ino <= c->old.inodes_count && !err; ino++) {
		struct stalefs_inode inode;

		resize_progress(c, "Scanning directories", ino, c->old.inodes_count);
		if ((ino < STALEFS_FIRST_INO && ino != STALEFS_ROOT_INO) || !stalefs_test_inode(fs, ino))
			continue;
		err = stalefs_read_inode(fs, ino, &inode);
		if (!err && (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR)
			err = stalefs_dir_iterate(fs, ino, 0, collect_cb, rs);
	}
	qsort(rs->r, rs->n, sizeof(*rs->r), cmp_ref);
	return err;
}

/* Set the owner field of a directory block to ino (the block keeps its place). */
static errcode_t reown_dir_block(stalefs_fs *fs, u64 pblk, u32 ino, u8 *buf)
{
	struct stalefs_dir_block *db = (struct stalefs_dir_block *)buf;
	errcode_t err = stalefs_read_block(fs, pblk, buf);

	if (err)
		return err;
	db->db_owner = cpu_to_le32(ino);
	stalefs_dirblock_set_csum(fs->seed, buf, fs->block_size);
	return stalefs_write_block(fs, pblk, buf);
}

/* Point the entry at (pblk, offset) at ino. */
static errcode_t repoint(stalefs_fs *fs, const struct ref *r, u32 ino, u8 *buf)
{
	struct stalefs_dir_entry *de;
	errcode_t err = stalefs_read_block(fs, r->pblk, buf);

	if (err)
		return err;
	de = (struct stalefs_dir_entry *)(buf + r->offset);
	if (le32_to_cpu(de->inode) != r->ino)
		return STALEFS_ERR_DIR_CORRUPT;	/* the scan saw it there: nothing else writes */
	de->inode = cpu_to_le32(ino);
	stalefs_dirblock_set_csum(fs->seed, buf, fs->block_size);
	return stalefs_write_block(fs, r->pblk, buf);
}

/* What the in-inode area, tree, directory blocks and xattr block of inode `from` say of it:
 * rewritten for `to`. */
static errcode_t reown(struct resize_ctx *c, u32 from, u32 to, struct stalefs_inode *inode, u8 *buf)
{
	stalefs_fs *fs = c->fs;
	u32 len = stalefs_xattr_ibody_len(&fs->geom), gen = le32_to_cpu(inode->i_generation), i, b;
	struct stalefs_extent_list l = { 0 };
	errcode_t err = 0;

	if (len) {
		u8 *area = stalefs_xmalloc(len);
		const struct stalefs_xattr_ibody_header *h = (const void *)area;

		err = stalefs_read_inode_area(fs, from, area);
		/* An area in use is seeded with the inode number: checksummed again for the new one. */
		if (!err && le32_to_cpu(h->xh_magic) == STALEFS_XATTR_MAGIC)
			stalefs_xattr_ibody_set_csum(fs->seed, to, gen, area, len);
		if (!err)
			err = stalefs_write_inode_area(fs, to, area);
		free(area);
	}
	if (!err && stalefs_inode_has_extents(inode)) {
		err = stalefs_extent_read(fs, from, inode, &l);
		for (i = 0; !err && i < l.count &&
			    (le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR; i++)
			for (b = 0; b < l.ext[i].len && !err; b++)
				err = reown_dir_block(fs, l.ext[i].pblk + b, to, buf);
		/* The tree written afresh under the new owner; the old nodes (owned by `from`) freed. */
		if (!err)
			err = stalefs_extent_free_nodes(fs, from, inode);
		if (!err) {
			stalefs_extent_root_init((struct stalefs_extent_header *)inode->i_block);
			err = stalefs_extent_write(fs, to, inode, &l);
		}
		stalefs_extent_list_free(&l);
	}
	if (!err && inode->i_xattr_block) {
		struct stalefs_xattr_block *xb = (struct stalefs_xattr_block *)buf;
		u64 xblk = le64_to_cpu(inode->i_xattr_block);

		err = stalefs_read_block(fs, xblk, buf);
		if (!err) {
			xb->xb_owner = cpu_to_le32(to);
			stalefs_xattr_block_set_csum(fs->seed, buf, fs->block_size);
			err = stalefs_write_block(fs, xblk, buf);
		}
	}
	return err;
}

/* Log blocks renumbering costs: the entries' blocks, a directory's own, its tree, some. */
static u32 cost_of(stalefs_fs *fs, const struct stalefs_inode *inode, const struct ref *r, u32 nrefs)
{
	u32 cost = 16, i;

	for (i = 0; i < nrefs; i++)
		cost += i == 0 || r[i].pblk != r[i - 1].pblk;
	/* A directory's blocks are rewritten (owner), and any file's tree nodes. */
	cost += (u32)(le64_to_cpu(inode->i_blocks) / (fs->block_size / 512) / 8 + 1);
	if ((le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR)
		cost += (u32)(le64_to_cpu(inode->i_size) / fs->block_size);
	return cost;
}

static errcode_t renumber_one(struct resize_ctx *c, u32 from, const struct ref *r, u32 nrefs, u8 *buf)
{
	stalefs_fs *fs = c->fs;
	struct stalefs_inode inode, zero;
	bool dir, stale;
	u32 to, i;
	errcode_t err = stalefs_read_inode(fs, from, &inode);

	if (err)
		return err;
	dir = (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
	stale = le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL;
	err = stalefs_alloc_inode(fs, STALEFS_ROOT_INO, le16_to_cpu(inode.i_mode), &to);
	if (!err)
		err = reown(c, from, to, &inode, buf);
	if (!err)
		err = stalefs_write_inode(fs, to, &inode);
	for (i = 0; i < nrefs && !err; i++)
		err = repoint(fs, &r[i], to, buf);
	if (err)
		return err;
	/* The old slot: cleared (a free slot holds zeros or a deleted inode) and freed. */
	memset(&zero, 0, sizeof(zero));
	err = stalefs_write_inode_raw(fs, from, &zero);
	if (!err)
		err = stalefs_write_inode_area(fs, from, NULL);
	if (!err)
		err = stalefs_free_inode(fs, from, dir);
	if (err)
		return err;
	if (stale) {
		stalefs_adjust_stale_count(fs, to, 1);
		stalefs_adjust_stale_count(fs, from, -1);
	}
	if (le32_to_cpu(fs->sb.s_lpf_ino) == from) {
		fs->sb.s_lpf_ino = cpu_to_le32(to);
		stalefs_mark_super_dirty(fs);
	}
	if (c->o->debug & RESIZE_DEBUG_INODEMAP)
		printf("Inode moved %u->%u\n", from, to);
	c->moved_inodes++;
	return 0;
}

errcode_t resize_renumber(struct resize_ctx *c)
{
	stalefs_fs *fs = c->fs;
	struct refs rs = { .limit = c->ng.inodes_count };
	u32 half = stalefs_txn_room(fs) / 2, used = 0, ino, k = 0, total = 0, done = 0;
	u8 *buf = stalefs_xmalloc(fs->block_size);
	errcode_t err = 0;

	for (ino = c->ng.inodes_count + 1; ino <= c->old.inodes_count; ino++)
		total += stalefs_test_inode(fs, ino);
	if (!total)
		goto out;
	err = find_refs(c, &rs);
	for (ino = c->ng.inodes_count + 1; ino <= c->old.inodes_count && !err; ino++) {
		struct stalefs_inode inode;
		u32 first, cost;

		if (!stalefs_test_inode(fs, ino))
			continue;
		while (k < rs.n && rs.r[k].ino < ino)
			k++;
		first = k;
		while (k < rs.n && rs.r[k].ino == ino)
			k++;
		err = stalefs_read_inode(fs, ino, &inode);
		if (err)
			break;
		cost = cost_of(fs, &inode, rs.r + first, k - first);
		if (cost > half) {
			fprintf(stderr, "%s: inode %u is named from more directory blocks than one transaction "
				"of the journal holds\n", program_name, ino);
			err = STALEFS_ERR_JOURNAL_FULL;
			break;
		}
		if (used + cost > half) {
			err = resize_commit(c);
			used = 0;
		}
		if (!err)
			err = renumber_one(c, ino, rs.r + first, k - first, buf);
		if (err)
			fprintf(stderr, "%s: while renumbering inode %u\n", program_name, ino);
		used += cost;
		resize_progress(c, "Renumbering inodes", ++done, total);
	}
	if (!err && used)
		err = resize_commit(c);
out:
	free(rs.r);
	free(buf);
	return err;
}
