// SPDX-License-Identifier: GPL-2.0
/*
 * A shrink's first pass: every block an inode holds past the new end --
 * file data, directory and symlink blocks, extent tree nodes, its xattr
 * block -- is copied below it and the inode pointed at the copy, as
 * resize2fs' block mover does, a few inodes per transaction.
 *
 * What makes a kill harmless: file data is copied straight to blocks the
 * committed state holds free (inside a transaction the allocator never
 * hands out a block the transaction freed: format/lib/txn.c), and the transaction that points the extents at
 * the copies also frees the originals, so before its commit the old blocks
 * are the file's and after it the new ones are.  Directory, symlink and
 * xattr blocks are metadata: their copies are written with the rest of the
 * transaction (a directory block names its own block number, an xattr
 * block too: both are rewritten for their new place).  UNWRITTEN extents
 * read as zeros wherever they lie: only their blocks move, nothing is
 * copied.
 */
#include <stdio.h>
#include <stdlib.h>
#include "resize.h"

/* Data copied per read and write. */
#define COPY_CHUNK	256

/* Blocks of a transaction's budget this inode's step holds (metadata written through it). */
struct step {
	u32 ino;
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	bool meta;		/* directory or symlink: its blocks are metadata */
};

/* A piece of a mapping moving: lblk..lblk+len from old to new. */
struct move {
	u32 lblk, len;
	u64 from, to;
	u16 flags;
};

static bool is_meta_file(const struct stalefs_inode *inode)
{
	u16 fmt = le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT;

	return fmt == STALEFS_S_IFDIR || fmt == STALEFS_S_IFLNK;
}

struct node_scan {
	u64 end;
	bool past;
};

static int node_past_cb(stalefs_fs *fs, const struct stalefs_extent_walk *w, void *priv)
{
	struct node_scan *ns = priv;

	(void)fs;
	if (w->node_block >= ns->end)
		ns->past = true;
	return 0;
}

/* Does the inode's tree have a node block past end? */
static errcode_t nodes_past(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode, u64 end, bool *past)
{
	struct node_scan ns = { end, false };
	errcode_t err = stalefs_extent_walk(fs, ino, inode, node_past_cb, &ns);

	*past = ns.past;
	return err;
}

/* One block of a directory or symlink to its new place: a directory block names it. */
static errcode_t copy_meta_block(struct resize_ctx *c, const struct step *s, u64 from, u64 to, u8 *buf)
{
	stalefs_fs *fs = c->fs;
	errcode_t err = stalefs_read_block(fs, from, buf);

	if (err)
		return err;
	if ((le16_to_cpu(s->inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR) {
		struct stalefs_dir_block *db = (struct stalefs_dir_block *)buf;

		db->db_blocknr = cpu_to_le64(to);
		stalefs_dirblock_set_csum(fs->seed, buf, fs->block_size);
	}
	return stalefs_write_block(fs, to, buf);
}

/* File data straight to the new blocks (free in the committed state), UNWRITTEN left as is. */
static errcode_t copy_data(struct resize_ctx *c, const struct move *m, u8 *buf)
{
	stalefs_fs *fs = c->fs;
	u32 done, n;
	errcode_t err = 0;

	if (m->flags & STALEFS_EXT_UNWRITTEN)
		return 0;
	for (done = 0; done < m->len && !err; done += n) {
		n = m->len - done < COPY_CHUNK ? m->len - done : COPY_CHUNK;
		err = stalefs_io_read(fs->io, m->from + done, n, buf);
		if (!err)
			err = stalefs_io_write_data(fs->io, m->to + done, n, buf);
	}
	return err;
}

/*
 * The part of extent e past end (at most max blocks of it), split over free runs below the
 * end.
 */
static errcode_t plan_extent(struct resize_ctx *c, const struct stalefs_ext *e, u64 end,
			     u32 max, struct move **moves, u32 *n, u32 *cap, u64 *goal)
{
	u64 skip = e->pblk >= end ? 0 : end - e->pblk;
	u32 lblk = e->lblk + (u32)skip, left = e->len - (u32)skip;
	errcode_t err;

	if (left > max)
		left = max;
	while (left) {
		u64 start;
		u32 got;

		err = stalefs_alloc_blocks(c->fs, *goal, left, &start, &got);
		if (err)
			return err;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*moves = stalefs_xrealloc(*moves, *cap * sizeof(**moves));
		}
		(*moves)[(*n)++] = (struct move){ .lblk = lblk, .len = got,
						  .from = e->pblk + (lblk - e->lblk), .to = start,
						  .flags = e->flags };
		*goal = start + got;
		lblk += got;
		left -= got;
	}
	return 0;
}

/* Log blocks rewriting the tree costs: its new nodes and the inode's table block. */
static u32 tree_cost(const struct stalefs_extent_list *l, u32 block_size)
{
	return l->count / stalefs_extblock_max_entries(block_size) + 4;
}

/* The groups a step's runs touch: each costs its bitmap blocks and a descriptor block. */
struct groups_seen {
	u32 *g;
	u32 n, cap;
};

static u32 group_cost(struct resize_ctx *c, struct groups_seen *gs, u64 block)
{
	u32 grp = stalefs_block_group(&c->old, block), i;

	for (i = 0; i < gs->n; i++)
		if (gs->g[i] == grp)
			return 0;
	if (gs->n == gs->cap) {
		gs->cap = gs->cap ? gs->cap * 2 : 16;
		gs->g = stalefs_xrealloc(gs->g, gs->cap * sizeof(*gs->g));
	}
	gs->g[gs->n++] = grp;
	return c->old.block_bitmap_blocks + 1;
}

/*
 * Move what s maps past the end, as much as `budget` log blocks allow (a directory's or
 * symlink's blocks are metadata: a log block each; a file's data does not go through the
 * log, only the bitmaps its runs touch).  *cost says what it took; *more whether anything
 * is left past the end.
 */
static errcode_t move_extents(struct resize_ctx *c, struct step *s, u32 budget, u32 *cost, bool *more,
			      u8 *buf)
{
	stalefs_fs *fs = c->fs;
	u64 end = c->ng.blocks_count, goal = 0;
	u32 n = 0, cap = 0, i, k, spent = 0;
	struct groups_seen gs = { NULL, 0, 0 };
	struct move *moves = NULL;
	errcode_t err = 0;

	*more = false;
	for (i = 0; i < s->l.count && !err; i++) {
		const struct stalefs_ext *e = &s->l.ext[i];
		u32 before = n;

		if (e->pblk + e->len <= end)
			continue;
		if (spent >= budget) {
			*more = true;
			break;
		}
		err = plan_extent(c, e, end, s->meta ? budget - spent : ~0u, &moves, &n, &cap, &goal);
		for (k = before; k < n; k++) {
			spent += s->meta ? moves[k].len : 0;
			spent += group_cost(c, &gs, moves[k].from) + group_cost(c, &gs, moves[k].to);
		}
	}
	*cost = spent;
	/* Copies first, then the map: the extents now point at the copies. */
	for (k = 0; k < n && !err; k++) {
		const struct move *m = &moves[k];
		u32 b;

		if (c->o->debug & RESIZE_DEBUG_BMOVE)
			printf("inode %u: moving %u block(s) %llu -> %llu\n", s->ino, m->len,
			       (unsigned long long)m->from, (unsigned long long)m->to);
		if (!s->meta) {
			err = copy_data(c, m, buf);
			continue;
		}
		for (b = 0; b < m->len && !err; b++)
			err = copy_meta_block(c, s, m->from + b, m->to + b, buf);
	}
	for (k = 0; k < n && !err; k++)
		err = stalefs_extent_list_set(&s->l, moves[k].lblk, moves[k].len, moves[k].to, moves[k].flags,
					      NULL);
	/* The tree is written afresh below the end (its old nodes freed), then the inode. */
	if (!err)
		err = stalefs_extent_write(fs, s->ino, &s->inode, &s->l);
	if (!err)
		err = stalefs_write_inode(fs, s->ino, &s->inode);
	for (k = 0; k < n && !err; k++) {
		err = stalefs_free_blocks(fs, moves[k].from, moves[k].len);
		c->moved_blocks += moves[k].len;
	}
	if (!err && *more == false)
		for (; i < s->l.count; i++)
			*more |= s->l.ext[i].pblk + s->l.ext[i].len > end;
	free(gs.g);
	free(moves);
	return err;
}

/* The xattr block to a new place: it names its own block number. */
static errcode_t move_xattr_block(struct resize_ctx *c, struct step *s, u8 *buf)
{
	stalefs_fs *fs = c->fs;
	u64 from = le64_to_cpu(s->inode.i_xattr_block), to;
	struct stalefs_xattr_block *xb = (struct stalefs_xattr_block *)buf;
	errcode_t err = stalefs_alloc_block(fs, 0, &to);

	if (!err)
		err = stalefs_read_block(fs, from, buf);
	if (err)
		return err;
	xb->xb_blocknr = cpu_to_le64(to);
	stalefs_xattr_block_set_csum(fs->seed, buf, fs->block_size);
	err = stalefs_write_block(fs, to, buf);
	if (!err) {
		s->inode.i_xattr_block = cpu_to_le64(to);
		err = stalefs_write_inode(fs, s->ino, &s->inode);
	}
	if (!err)
		err = stalefs_free_blocks(fs, from, 1);
	if (!err && (c->o->debug & RESIZE_DEBUG_BMOVE))
		printf("inode %u: moving its xattr block %llu -> %llu\n", s->ino, (unsigned long long)from,
		       (unsigned long long)to);
	c->moved_blocks++;
	return err;
}

/* Make room for `need` log blocks in the running transaction: commit it if they do not fit. */
static errcode_t room_for(struct resize_ctx *c, u32 need, u32 *used)
{
	errcode_t err;

	if (*used + need <= stalefs_txn_room(c->fs) / 2)
		return 0;
	err = resize_commit(c);
	*used = 0;
	return err;
}

/* Everything inode ino holds past the end, moved; commits as the log fills. */
static errcode_t move_inode(struct resize_ctx *c, u32 ino, u8 *buf, u32 *used)
{
	stalefs_fs *fs = c->fs;
	u64 end = c->ng.blocks_count;
	u32 half = stalefs_txn_room(fs) / 2, i, cost;
	bool more = false;
	struct step s = { .ino = ino };
	errcode_t err;

	err = stalefs_read_inode(fs, ino, &s.inode);
	if (err)
		return err;
	if (stalefs_inode_has_extents(&s.inode)) {
		err = stalefs_extent_read(fs, ino, &s.inode, &s.l);
		if (!err)
			err = nodes_past(fs, ino, &s.inode, end, &more);
		if (err)
			goto out;
		for (i = 0; i < s.l.count; i++)
			more |= s.l.ext[i].pblk + s.l.ext[i].len > end;
	}
	s.meta = is_meta_file(&s.inode);
	while (more) {
		/* Its tree, and half a transaction for its runs (a directory's blocks, the bitmaps). */
		u32 tree = tree_cost(&s.l, fs->block_size), budget = half / 2;

		if (tree + budget > half || budget < 2 * (c->old.block_bitmap_blocks + 1) + 1) {
			fprintf(stderr, "%s: inode %u's extent tree is too large for one transaction of the "
				"journal\n", program_name, ino);
			err = STALEFS_ERR_JOURNAL_FULL;
			goto out;
		}
		err = room_for(c, tree + budget, used);
		if (!err)
			err = move_extents(c, &s, budget, &cost, &more, buf);
		if (err)
			goto out;
		*used += tree + cost;
	}
	if (le64_to_cpu(s.inode.i_xattr_block) >= end) {
		err = room_for(c, 8, used);
		if (!err)
			err = move_xattr_block(c, &s, buf);
		*used += 8;
	}
out:
	stalefs_extent_list_free(&s.l);
	return err;
}

/* Does inode ino hold anything past the end?  (Cheap tests first: most do not.) */
static errcode_t holds_past(struct resize_ctx *c, u32 ino, bool *past)
{
	stalefs_fs *fs = c->fs;
	u64 end = c->ng.blocks_count;
	struct stalefs_inode inode;
	struct stalefs_extent_list l = { 0 };
	errcode_t err = stalefs_read_inode(fs, ino, &inode);
	u32 i;

	*past = false;
	if (err)
		return err;
	if (le64_to_cpu(inode.i_xattr_block) >= end) {
		*past = true;
		return 0;
	}
	if (!stalefs_inode_has_extents(&inode))
		return 0;
	err = stalefs_extent_read(fs, ino, &inode, &l);
	for (i = 0; !err && i < l.count && !*past; i++)
		*past = l.ext[i].pblk + l.ext[i].len > end;
	if (!err && !*past)
		err = nodes_past(fs, ino, &inode, end, past);
	stalefs_extent_list_free(&l);
	return err;
}

errcode_t resize_move_blocks(struct resize_ctx *c)
{
	stalefs_fs *fs = c->fs;
	u8 *buf = stalefs_xmalloc((size_t)COPY_CHUNK * fs->block_size);
	u32 ino, used = 0, count = c->old.inodes_count;
	errcode_t err = 0;

	for (ino = 1; ino <= count && !err; ino++) {
		bool past;

		resize_progress(c, "Relocating blocks", ino, count);
		if ((ino < STALEFS_FIRST_INO && ino != STALEFS_ROOT_INO) || !stalefs_test_inode(fs, ino))
			continue;
		err = holds_past(c, ino, &past);
		if (!err && past)
			err = move_inode(c, ino, buf, &used);
		if (err)
			fprintf(stderr, "%s: while moving the blocks of inode %u\n", program_name, ino);
	}
	if (!err && used)
		err = resize_commit(c);
	free(buf);
	return err;
}
