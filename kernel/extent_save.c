// SPDX-License-Identifier: GPL-2.0
/*
 * Saving an inode's extent array (extents.c) as its on-disk tree.
 *
 * Leaves keep their ranges from one save to the next: leaf j holds the
 * extents that start in [key j, key j+1) (the first leaf from 0, the last
 * to the end), and only a leaf whose range holds the start of an edited
 * extent is rebuilt.  A conversion in the middle of a big file so rewrites
 * one leaf and the index nodes above it, where packing the array from its
 * start would rewrite (and dirty) every leaf after the edit.
 *
 * A leaf that outgrows its block splits: after its untouched head when
 * the edits were at its end (appends), else into even parts with room to
 * grow.  A leaf left empty goes.  The leaves are packed afresh when their
 * shape is unknown (never saved, or loaded with an empty leaf) or when they
 * have grown sparse (more than twice the minimal count), so the tree is at
 * most one level deeper than the minimal one.
 *
 * Node blocks are reused: a kept leaf keeps its block; index nodes and new
 * leaves take the blocks left over (old index nodes, dropped leaves) before
 * new ones are allocated near the file's end; what is still left is freed.
 * write_node() dirties a block only when its bytes change.
 *
 * With a journal the nodes a save changes are journaled in the caller's
 * handle; a node given back is revoked.  A full repack is chosen only if the
 * handle can hold it (the leaves-keep-their-ranges plan stays within what
 * the handle was started with: journal.c, stalefs_credits_tree).
 *
 * Locking: callers hold i_map_sem for writing, inside a journal handle.
 */
#include <linux/slab.h>
#include "stalefs.h"
#include "stale.h"
#include "journal.h"

struct leaf_plan {
	u32 s, e;	/* the array's extents [s, e) */
	u64 pblk;	/* 0 until a block is assigned */
	bool dirty;	/* contents changed since the last save */
};

struct save_plan {
	struct leaf_plan *leaves;
	u32 nleaves, leaves_cap;
	u64 *spare;		/* old node blocks not kept as their leaf's block */
	u32 nspare, spare_used;
	u64 *fresh;		/* blocks this save allocated (freed if it fails) */
	u32 nfresh;
	u64 last_node;		/* allocation goal: after the last node placed */
	u32 level_count[STALEFS_EXT_MAX_DEPTH + 1];	/* [0]: leaves */
	u32 depth, nindex;
};

/* Index of the first extent starting at or after lblk. */
static u32 first_from(const struct stalefs_inode_info *ei, u32 lblk)
{
	u32 lo = 0, hi = ei->i_map.n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (EXT(ei, mid).lblk < lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int plan_push(struct save_plan *p, u32 s, u32 e, u64 pblk, bool dirty)
{
	if (p->nleaves == p->leaves_cap) {
		u32 cap = max_t(u32, 16, p->leaves_cap * 2);
		struct leaf_plan *n = krealloc_array(p->leaves, cap, sizeof(*n), GFP_NOFS);

		if (!n)
			return -ENOMEM;
		p->leaves = n;
		p->leaves_cap = cap;
	}
	p->leaves[p->nleaves++] = (struct leaf_plan){ .s = s, .e = e, .pblk = pblk, .dirty = dirty };
	return 0;
}

/* Full leaves from the array's start; every old node block is spare. */
static int plan_packed(struct stalefs_inode_info *ei, u32 cap, struct save_plan *p)
{
	u32 s;
	int err;

	p->nleaves = 0;
	memcpy(p->spare, ei->i_nodes, ei->i_nnodes * sizeof(u64));
	p->nspare = ei->i_nnodes;
	for (s = 0; s < ei->i_map.n; s += cap) {
		err = plan_push(p, s, min(ei->i_map.n, s + cap), 0, true);
		if (err)
			return err;
	}
	return 0;
}

/* The leaves of the last save, each rebuilt only if an edit touched its range. */
static int plan_stable(struct stalefs_inode_info *ei, u32 cap, struct save_plan *p)
{
	u32 nl = ei->i_nleaves, j;
	int err = 0;

	p->nleaves = 0;
	p->nspare = 0;
	for (j = 0; j < nl && !err; j++) {
		u64 lo = j ? ei->i_leaf_key[j] : 0;
		u64 hi = j + 1 < nl ? ei->i_leaf_key[j + 1] : U64_MAX;
		u32 s = j ? first_from(ei, ei->i_leaf_key[j]) : 0;
		u32 e = j + 1 < nl ? first_from(ei, ei->i_leaf_key[j + 1]) : ei->i_map.n;
		bool dirty = ei->i_leaf_dirty ? test_bit(j, ei->i_leaf_dirty) :
			     ei->i_dirty_lo < hi && ei->i_dirty_hi >= lo;
		u32 count = e - s, parts, k;

		if (!count) {
			p->spare[p->nspare++] = ei->i_nodes[j];
		} else if (count <= cap) {
			err = plan_push(p, s, e, ei->i_nodes[j], dirty);
		} else {
			/*
			 * Outgrown.  Edits at its end (appends, an unwritten
			 * file filled in order) keep the untouched head as one
			 * leaf and put the rest in full ones, and so does the
			 * file's last leaf whatever was edited in it: that is
			 * where a file grows, and a batch of appends saved
			 * at once (conversions wait in memory, iomap.c) would
			 * otherwise leave a trail of half-full leaves.  Edits
			 * inside split it evenly, with room on both sides.
			 */
			u32 head = first_from(ei, (u32)min_t(u64, ei->i_dirty_lo, U32_MAX));

			head = head > s ? min(head - s, cap) : 0;
			if (j + 1 == nl)
				head = cap;
			if (head >= cap - cap / 4) {
				err = plan_push(p, s, s + head, ei->i_nodes[j], true);
				for (k = s + head; k < e && !err; k += cap)
					err = plan_push(p, k, min(e, k + cap), 0, true);
				continue;
			}
			parts = max_t(u32, 2, DIV_ROUND_UP(count, cap - cap / 4));
			for (k = 0; k < parts && !err; k++)
				err = plan_push(p, s + (u32)((u64)count * k / parts),
						s + (u32)((u64)count * (k + 1) / parts),
						k ? 0 : ei->i_nodes[j], true);
		}
	}
	/* The old index nodes are spare too: the index is rebuilt every save. */
	for (j = nl; j < ei->i_nnodes; j++)
		p->spare[p->nspare++] = ei->i_nodes[j];
	return err;
}

/*
 * Can the current handle hold the plan: its changed leaves, every index
 * node, the node blocks taken and given back, the inode?  If not, extend
 * the handle if the transaction has room.  Asked before any node block is
 * taken, while a smaller plan can still be chosen instead.
 */
static bool plan_fits(struct inode *inode, const struct save_plan *p)
{
	struct super_block *sb = inode->i_sb;
	handle_t *handle = stalefs_handle(sb);
	u32 dirty = 0, i, fresh, spare;
	int need, have;

	if (!handle)
		return true;
	for (i = 0; i < p->nleaves; i++)
		dirty += p->leaves[i].dirty;
	fresh = p->nindex + p->nleaves;
	fresh = fresh > p->nspare ? fresh - p->nspare : 0;
	spare = p->nspare;
	need = 1 + dirty + p->nindex + stalefs_credits_alloc(sb, fresh) +
	       stalefs_credits_alloc(sb, spare);
	have = jbd2_handle_buffer_credits(handle);
	if (need <= have)
		return true;
	return jbd2_journal_extend(handle, need - have, spare) == 0;
}

/* Index levels above the leaves, up to a root of STALEFS_ROOT_EXTENTS entries. */
static int plan_levels(struct save_plan *p, u32 cap)
{
	return stalefs_ext_tree_levels(p->nleaves, cap, p->level_count, &p->depth,
				       &p->nindex) ? -EFBIG : 0;
}

/* A block for a new node: a spare one, else a new one a little ahead of the data. */
static int take_block(struct inode *inode, struct save_plan *p, u64 *pblk)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u64 goal = 0, b;
	u32 got;
	int err;

	if (p->spare_used < p->nspare) {
		*pblk = p->spare[p->spare_used++];
		return 0;
	}
	/* Never at a data goal, or nodes would fill the file's holes. */
	if (ei->i_map.n)
		goal = EXT(ei, ei->i_map.n - 1).pblk + EXT(ei, ei->i_map.n - 1).len + 256;
	if (p->last_node + 1 > goal)
		goal = p->last_node + 1;
	err = stalefs_new_blocks(inode, goal, 1, &b, &got);
	if (err)
		return err;
	p->fresh[p->nfresh++] = b;
	p->last_node = b;
	*pblk = b;
	return 0;
}

/* Write one node block; only dirty it when its bytes change. */
static int write_node(struct inode *inode, u64 pblk, const void *img)
{
	struct super_block *sb = inode->i_sb;
	struct buffer_head *bh = sb_getblk(sb, pblk);
	bool same;
	int err;

	if (!bh)
		return -ENOMEM;
	lock_buffer(bh);
	same = buffer_uptodate(bh) && !memcmp(bh->b_data, img, sb->s_blocksize);
	unlock_buffer(bh);
	if (same) {
		brelse(bh);
		return 0;
	}
	/* The whole block is rewritten: its old contents need not be read. */
	err = stalefs_get_write_access(sb, bh);
	if (!err) {
		lock_buffer(bh);
		memcpy(bh->b_data, img, sb->s_blocksize);
		set_buffer_uptodate(bh);
		set_buffer_stalefs_verified(bh);
		unlock_buffer(bh);
		err = stalefs_dirty_metadata(inode, sb, bh);
	}
	brelse(bh);
	return err;
}

static void node_init(struct inode *inode, void *img, u64 pblk, u16 depth, u16 entries)
{
	stalefs_extblock_init(img, inode->i_sb->s_blocksize, pblk, inode->i_ino,
			      inode->i_generation, depth, entries);
}

/* Memory write_tree() needs, taken before any block changes hands. */
struct tree_bufs {
	void *img;		/* one node's image */
	u32 *firsts, *next;	/* first lblk under each node of a level */
};

/*
 * Rebuild the dirty leaves and every index node, then the root; keys gets
 * each leaf's first lblk.  write_node() cannot fail for want of memory
 * (sb_getblk retries), so the root is always rewritten to the new nodes.
 */
static int write_tree(struct inode *inode, const struct save_plan *p, const u64 *nodes,
		      u32 *keys, struct tree_bufs *b)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct stalefs_extent_header *root = (void *)ei->i_data;
	u32 *firsts = b->firsts, *next = b->next, i, c, lvl, node = 0;
	void *img = b->img;
	int err = 0;

	for (i = 0; i < p->nleaves && !err; i++, node++) {
		const struct leaf_plan *l = &p->leaves[i];
		struct stalefs_extent *d;
		u32 k;

		keys[i] = firsts[i] = EXT(ei, l->s).lblk;
		if (!l->dirty)
			continue;
		node_init(inode, img, nodes[node], 0, l->e - l->s);
		d = stalefs_eh_extents(stalefs_extblock_eh(img));
		for (k = l->s; k < l->e; k++)
			stalefs_ext_encode(&d[k - l->s], &EXT(ei, k));
		stalefs_extblock_set_csum(sbi->csum_seed, img, sb->s_blocksize);
		err = write_node(inode, nodes[node], img);
	}
	/* Index levels: each entry names its child's first block. */
	for (lvl = 1; lvl < p->depth && !err; lvl++) {
		u32 child0 = node - p->level_count[lvl - 1];
		u32 cap = stalefs_extblock_max_entries(sb->s_blocksize);

		for (i = 0; i < p->level_count[lvl] && !err; i++, node++) {
			u32 s = i * cap, e = min(p->level_count[lvl - 1], s + cap), k;
			struct stalefs_extent_idx *d;

			node_init(inode, img, nodes[node], lvl, e - s);
			d = stalefs_eh_index(stalefs_extblock_eh(img));
			for (k = s; k < e; k++) {
				d[k - s].ei_lblk = cpu_to_le32(firsts[k]);
				d[k - s].ei_pblk = cpu_to_le64(nodes[child0 + k]);
			}
			stalefs_extblock_set_csum(sbi->csum_seed, img, sb->s_blocksize);
			err = write_node(inode, nodes[node], img);
			next[i] = firsts[s];
		}
		swap(firsts, next);
	}
	if (err)
		return err;
	memset(ei->i_data, 0, sizeof(ei->i_data));
	c = p->level_count[p->depth - 1];
	stalefs_eh_init(root, c, STALEFS_ROOT_EXTENTS, p->depth);
	for (i = 0; i < c; i++) {
		stalefs_eh_index(root)[i].ei_lblk = cpu_to_le32(firsts[i]);
		stalefs_eh_index(root)[i].ei_pblk = cpu_to_le64(nodes[node - c + i]);
	}
	return 0;
}

/* Few enough extents for the inode itself: no node blocks at all. */
static void save_in_root(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct stalefs_extent_header *root = (void *)ei->i_data;
	u32 i;

	for (i = 0; i < ei->i_nnodes; i++)
		stalefs_free_file_blocks(inode, ei->i_nodes[i], 1, true);
	stalefs_ext_forget_nodes(ei);
	memset(ei->i_data, 0, sizeof(ei->i_data));
	stalefs_eh_init(root, ei->i_map.n, STALEFS_ROOT_EXTENTS, 0);
	for (i = 0; i < ei->i_map.n; i++)
		stalefs_ext_encode(&stalefs_eh_extents(root)[i], &EXT(ei, i));
}

static int save_tree(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u32 cap = stalefs_extblock_max_entries(inode->i_sb->s_blocksize);
	struct save_plan p = { 0 };
	struct tree_bufs b = { 0 };
	u64 *nodes = NULL;
	u32 *keys = NULL, i, total;
	bool repacked = false;
	int err = -ENOMEM;

	p.spare = kmalloc_array(max_t(u32, ei->i_nnodes, 1), sizeof(u64), GFP_NOFS);
	if (!p.spare)
		goto out;
	for (i = 0; i < ei->i_nnodes; i++)
		p.last_node = max(p.last_node, ei->i_nodes[i]);
	if (ei->i_repack || !ei->i_nleaves)
		err = plan_packed(ei, cap, &p);
	else
		err = plan_stable(ei, cap, &p);
	if (!err && p.nleaves > 2 * DIV_ROUND_UP(ei->i_map.n, cap) + 1) {
		err = plan_packed(ei, cap, &p);	/* grown sparse */
		repacked = true;
	}
	if (!err)
		err = plan_levels(&p, cap);
	if (err == -EFBIG && !ei->i_repack && ei->i_nleaves) {
		err = plan_packed(ei, cap, &p);	/* the minimal tree may still fit */
		repacked = true;
		if (!err)
			err = plan_levels(&p, cap);
	}
	if (!err && !plan_fits(inode, &p) && repacked) {
		/* A repack the transaction cannot hold: the stable plan instead. */
		err = plan_stable(ei, cap, &p);
		if (!err)
			err = plan_levels(&p, cap);
		if (!err)
			plan_fits(inode, &p);
	}
	if (err)
		goto out;

	err = -ENOMEM;
	total = p.nleaves + p.nindex;
	nodes = kmalloc_array(total, sizeof(u64), GFP_NOFS);
	keys = kmalloc_array(p.nleaves, sizeof(u32), GFP_NOFS);
	p.fresh = kmalloc_array(total, sizeof(u64), GFP_NOFS);
	b.img = kmalloc(inode->i_sb->s_blocksize, GFP_NOFS);
	b.firsts = kmalloc_array(p.nleaves, sizeof(u32), GFP_NOFS);
	b.next = kmalloc_array(p.nleaves, sizeof(u32), GFP_NOFS);
	if (!nodes || !keys || !p.fresh || !b.img || !b.firsts || !b.next)
		goto out;
	err = 0;
	for (i = 0; i < total && !err; i++) {
		if (i < p.nleaves && p.leaves[i].pblk) {
			nodes[i] = p.leaves[i].pblk;
			continue;
		}
		err = take_block(inode, &p, &nodes[i]);
		if (!err && i < p.nleaves)
			p.leaves[i].pblk = nodes[i];
	}
	if (err) {
		for (i = 0; i < p.nfresh; i++)
			stalefs_free_file_blocks(inode, p.fresh[i], 1, true);
		goto out;
	}

	/* From here the new blocks are the inode's, whatever happens. */
	for (i = p.spare_used; i < p.nspare; i++)
		stalefs_free_file_blocks(inode, p.spare[i], 1, true);
	kfree(ei->i_nodes);
	ei->i_nodes = nodes;
	ei->i_nnodes = total;
	nodes = NULL;
	err = write_tree(inode, &p, ei->i_nodes, keys, &b);
	kfree(ei->i_leaf_key);
	ei->i_leaf_key = keys;
	ei->i_nleaves = p.nleaves;
	stalefs_ext_reset_dirty(ei, p.nleaves);
	keys = NULL;
	/* A failed write leaves some leaves unwritten: the next save packs all. */
	ei->i_repack = err != 0;
out:
	kfree(p.leaves);
	kfree(p.spare);
	kfree(p.fresh);
	kfree(nodes);
	kfree(keys);
	kfree(b.img);
	kfree(b.firsts);
	kfree(b.next);
	return err;
}

int stalefs_ext_save(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	int err = 0;

	stalefs_assert_rwsem_write(&ei->i_map_sem);
	/* With a journal every save is part of the caller's transaction. */
	WARN_ON_ONCE(stalefs_has_journal(inode->i_sb) && !stalefs_handle(inode->i_sb));
	/* stale.c: the inode's STALE flag follows its extents (fsck's S5) */
	stalefs_stale_sync_flag(inode);
	if (ei->i_map.n <= STALEFS_ROOT_EXTENTS)
		save_in_root(inode);
	else
		err = save_tree(inode);
	if (!err) {
		ei->i_dirty_lo = U64_MAX;
		ei->i_dirty_hi = 0;
	}
	WRITE_ONCE(ei->i_root_gen, ei->i_root_gen + 1);	/* inode.c copy_to_table */
	/* Whatever conversions waited in memory are in this save (iomap.c). */
	ei->i_save_pending = false;
	ei->i_pending_edits = 0;
	if (stalefs_has_journal(inode->i_sb)) {
		int err2 = stalefs_inode_to_table(inode, true, true);

		return err ? err : err2;
	}
	mark_inode_dirty(inode);
	return err;
}
