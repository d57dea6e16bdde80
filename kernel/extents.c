// SPDX-License-Identifier: GPL-2.0
/*
 * Extent maps.
 *
 * Each inode's mapping is held in memory as one sorted array of extents,
 * loaded and fully verified when the inode is read (every tree block's
 * magic, owner, checksum and the global order of the leaves), and written
 * back as a tree whenever it changes (extent_save.c: only the leaves whose
 * range an edit touched are rebuilt).
 *
 * Why an array and not in-place tree edits: every operation (allocation,
 * unwritten conversion splitting an extent in three, punch, merge of
 * neighbours) becomes a small array edit that cannot leave a half-split
 * node behind; the tree is rebuilt from the array, so its shape is never
 * worse than twice the minimal leaf count (extent_save.c).
 *
 * Edits are bounded (STALEFS_EDIT_EXTENTS extents, STALEFS_ALLOC_EXTENTS
 * new ones, STALEFS_REVOKE_BLOCKS freed metadata blocks per call) so that
 * one transaction always holds an edit and its save; callers loop.
 *
 * Locking: callers hold i_map_sem (read for lookups, write for changes),
 * and, for changes, a journal handle taken before it.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include "stalefs.h"
#include "stale.h"
#include "journal.h"

static u32 ext_node_cap(struct super_block *sb)
{
	return stalefs_extblock_max_entries(sb->s_blocksize);
}

/* The leaf (as last saved) whose range holds lblk: the last whose key is at most lblk. */
static u32 leaf_of(const struct stalefs_inode_info *ei, u64 lblk)
{
	u32 lo = 1, hi = ei->i_nleaves;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (ei->i_leaf_key[mid] <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/*
 * An extent starting at lblk is created, changed or removed: the leaf whose
 * range holds that start must be rebuilt at the next save.  The bitmap says
 * which leaves exactly, so that a batch of scattered edits (conversions of
 * random writes) rebuilds only the leaves they touched.
 */
static void ext_touch(struct stalefs_inode_info *ei, u64 lblk)
{
	/* Clean is lo > hi (U64_MAX, 0). */
	if (lblk < ei->i_dirty_lo)
		ei->i_dirty_lo = lblk;
	if (lblk > ei->i_dirty_hi)
		ei->i_dirty_hi = lblk;
	if (ei->i_leaf_dirty && ei->i_nleaves)
		__set_bit(leaf_of(ei, lblk), ei->i_leaf_dirty);
}

/* A fresh (clean) dirty-leaf bitmap for nleaves leaves; NULL if memory is short. */
void stalefs_ext_reset_dirty(struct stalefs_inode_info *ei, u32 nleaves)
{
	kfree(ei->i_leaf_dirty);
	ei->i_leaf_dirty = nleaves ? kcalloc(BITS_TO_LONGS(nleaves), sizeof(long), GFP_NOFS) : NULL;
}

/* i_nstale counts the STALE extents, so no save has to scan for one. */
static void ext_count(struct stalefs_inode_info *ei, u16 flags, int delta)
{
	if (flags & STALEFS_EXT_STALE)
		ei->i_nstale += delta;
}

static int nodes_add(struct stalefs_inode_info *ei, u64 pblk)
{
	u64 *n;

	n = krealloc(ei->i_nodes, (ei->i_nnodes + 1) * sizeof(u64), GFP_NOFS);
	if (!n)
		return -ENOMEM;
	ei->i_nodes = n;
	ei->i_nodes[ei->i_nnodes++] = pblk;
	return 0;
}

void stalefs_ext_init_empty(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct stalefs_extent_header *eh = (void *)ei->i_data;

	stalefs_extent_root_init(eh);
	stalefs_emap_free(&ei->i_map);
	ei->i_nstale = 0;
	ei->i_dirty_lo = U64_MAX;
	ei->i_dirty_hi = 0;
	ei->i_repack = true;
}

void stalefs_ext_release(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);

	stalefs_emap_free(&ei->i_map);
	ei->i_nstale = 0;
	stalefs_ext_forget_nodes(ei);
}

/* The node list and leaf keys go (the blocks themselves are the caller's business). */
void stalefs_ext_forget_nodes(struct stalefs_inode_info *ei)
{
	kfree(ei->i_nodes);
	ei->i_nodes = NULL;
	ei->i_nnodes = 0;
	kfree(ei->i_leaf_key);
	ei->i_leaf_key = NULL;
	kfree(ei->i_leaf_dirty);
	ei->i_leaf_dirty = NULL;
	ei->i_nleaves = 0;
}

/* ---- loading: verify everything, bounded by the depth ---- */

struct ext_walk {
	struct inode *inode;
	u64 prev_end;		/* end of the last leaf extent seen, for global order */
	struct {
		u32 pos;	/* where the leaf sits in i_nodes (pre-order) */
		u32 entries;
	} *leaves;		/* in order */
	u32 nleaves, leaf_cap;
};

static int walk_node(struct ext_walk *w, const struct stalefs_extent_header *eh,
		     u64 lo, u64 hi, u64 blocknr);

static int leaf_add(struct ext_walk *w, u32 pos, u32 entries)
{
	if (w->nleaves == w->leaf_cap) {
		u32 cap = max_t(u32, 16, w->leaf_cap * 2);
		void *p = krealloc_array(w->leaves, cap, sizeof(*w->leaves), GFP_NOFS);

		if (!p)
			return -ENOMEM;
		w->leaves = p;
		w->leaf_cap = cap;
	}
	w->leaves[w->nleaves].pos = pos;
	w->leaves[w->nleaves++].entries = entries;
	return 0;
}

static int walk_child(struct ext_walk *w, u64 pblk, int depth, u64 lo, u64 hi)
{
	struct inode *inode = w->inode;
	struct super_block *sb = inode->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct buffer_head *bh;
	int rule, err;
	u32 i;

	/* A block named twice is a loop or a shared node: both are corruption. */
	for (i = 0; i < ei->i_nnodes; i++) {
		if (ei->i_nodes[i] == pblk) {
			stalefs_error(sb, inode->i_ino, pblk, "extent tree names a node twice");
			return -EUCLEAN;
		}
	}
	if (!stalefs_blocks_valid(sb, pblk, 1)) {
		stalefs_error(sb, inode->i_ino, pblk, "extent tree node lies on group metadata");
		return -EUCLEAN;
	}
	bh = sb_bread(sb, pblk);
	if (!bh) {
		stalefs_error(sb, inode->i_ino, pblk, "cannot read extent tree node");
		return -EIO;
	}
	rule = stalefs_verify_extblock_header(bh->b_data, pblk, inode->i_ino,
					      inode->i_generation);
	if (!rule)
		rule = stalefs_verify_extblock_csum(sbi->csum_seed, bh->b_data, sb->s_blocksize);
	if (!rule)
		rule = stalefs_verify_extent_node(&sbi->geom, stalefs_extblock_eh(bh->b_data),
						  ext_node_cap(sb), depth);
	if (rule) {
		stalefs_error(sb, inode->i_ino, pblk, "%s", stalefs_rule_msg(rule));
		brelse(bh);
		return -EUCLEAN;
	}
	err = nodes_add(ei, pblk);
	if (!err && depth == 0)
		err = leaf_add(w, ei->i_nnodes - 1, le16_to_cpu(stalefs_extblock_eh(bh->b_data)->eh_entries));
	if (!err)
		err = walk_node(w, stalefs_extblock_eh(bh->b_data), lo, hi, pblk);
	brelse(bh);
	return err;
}

static int walk_node(struct ext_walk *w, const struct stalefs_extent_header *eh,
		     u64 lo, u64 hi, u64 blocknr)
{
	struct inode *inode = w->inode;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u32 n = le16_to_cpu(eh->eh_entries);
	int depth = le16_to_cpu(eh->eh_depth);
	u32 i;
	int err;

	if (depth > 0) {
		const struct stalefs_extent_idx *ix = stalefs_eh_index(eh);

		for (i = 0; i < n; i++) {
			u64 clo = le32_to_cpu(ix[i].ei_lblk);
			u64 chi = i + 1 < n ? le32_to_cpu(ix[i + 1].ei_lblk) : hi;

			if (clo < lo || clo >= hi) {
				stalefs_error(inode->i_sb, inode->i_ino, blocknr,
					      "extent index outside its parent's range");
				return -EUCLEAN;
			}
			err = walk_child(w, le64_to_cpu(ix[i].ei_pblk), depth - 1, clo, chi);
			if (err)
				return err;
		}
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct stalefs_ext one, *m = &one;

		stalefs_ext_decode(&stalefs_eh_extents(eh)[i], m);
		if (m->lblk < lo || (u64)m->lblk + m->len > hi || m->lblk < w->prev_end) {
			stalefs_error(inode->i_sb, inode->i_ino, blocknr,
				      "extent out of order or outside its index range");
			return -EUCLEAN;
		}
		if (!stalefs_blocks_valid(inode->i_sb, m->pblk, m->len)) {
			stalefs_error(inode->i_sb, inode->i_ino, blocknr,
				      "extent at logical block %u maps group metadata", m->lblk);
			return -EUCLEAN;
		}
		w->prev_end = (u64)m->lblk + m->len;
		err = stalefs_emap_insert(&ei->i_map, ei->i_map.n, m);
		if (err)
			return err;
		ext_count(ei, m->flags, 1);
	}
	return 0;
}

/*
 * i_nodes is in walk (pre-)order; extent_save.c wants the leaves first, in
 * order, each with its first extent's lblk as key, then the index nodes.
 */
static int leaves_first(struct inode *inode, struct ext_walk *w)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u64 *nodes;
	u32 *keys = NULL;
	u32 i, k, ext = 0;

	ei->i_dirty_lo = U64_MAX;
	ei->i_dirty_hi = 0;
	ei->i_repack = false;
	if (!w->nleaves)
		return 0;
	nodes = kmalloc_array(ei->i_nnodes, sizeof(*nodes), GFP_NOFS);
	keys = kmalloc_array(w->nleaves, sizeof(*keys), GFP_NOFS);
	if (!nodes || !keys) {
		kfree(nodes);
		kfree(keys);
		return -ENOMEM;
	}
	for (i = 0; i < w->nleaves; i++) {
		nodes[i] = ei->i_nodes[w->leaves[i].pos];
		ei->i_nodes[w->leaves[i].pos] = 0;	/* (a node is never block 0) */
	}
	k = w->nleaves;
	for (i = 0; i < ei->i_nnodes; i++)
		if (ei->i_nodes[i])
			nodes[k++] = ei->i_nodes[i];
	kfree(ei->i_nodes);
	ei->i_nodes = nodes;
	/*
	 * Keys: leaves hold the array in order, so leaf i starts where the
	 * previous ones' entries end.  An empty leaf gets the next leaf's key
	 * (past the end: U32_MAX, after every extent), an empty range: the
	 * next save gives its block back, and no save needs to repack every
	 * leaf (which a journal transaction might not hold).
	 */
	for (i = 0; i < w->nleaves; i++) {
		keys[i] = ext < ei->i_map.n ? EXT(ei, ext).lblk : U32_MAX;
		ext += w->leaves[i].entries;
	}
	ei->i_leaf_key = keys;
	ei->i_nleaves = w->nleaves;
	stalefs_ext_reset_dirty(ei, w->nleaves);
	ei->i_repack = false;
	return 0;
}

int stalefs_ext_load(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct stalefs_sb_info *sbi = STALEFS_SB(inode->i_sb);
	const struct stalefs_extent_header *eh = (void *)ei->i_data;
	struct ext_walk w = { .inode = inode };
	int rule, err;

	rule = stalefs_verify_extent_node(&sbi->geom, eh, STALEFS_ROOT_EXTENTS, -1);
	if (rule) {
		stalefs_error(inode->i_sb, inode->i_ino, 0, "extent root: %s",
			      stalefs_rule_msg(rule));
		return -EUCLEAN;
	}
	err = walk_node(&w, eh, 0, STALEFS_MAX_FILE_BLOCKS, 0);
	if (!err)
		err = leaves_first(inode, &w);
	kfree(w.leaves);
	if (err)
		stalefs_ext_release(inode);
	return err;
}

/* ---- lookups and array edits ---- */

/* Index of the first extent ending after lblk (i_next if none). */
static u32 ext_search(struct stalefs_inode_info *ei, u32 lblk)
{
	return stalefs_emap_search(&ei->i_map, lblk);
}

int stalefs_ext_lookup(struct inode *inode, u32 lblk, struct stalefs_ext *ex)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u32 i;

	stalefs_assert_rwsem(&ei->i_map_sem);
	i = ext_search(ei, lblk);

	if (i < ei->i_map.n && EXT(ei, i).lblk <= lblk) {
		*ex = EXT(ei, i);
		return 1;
	}
	ex->lblk = lblk;
	ex->pblk = STALEFS_HOLE_PBLK;
	ex->flags = 0;
	ex->len = i < ei->i_map.n ? EXT(ei, i).lblk - lblk : 0;
	return 0;
}

/* Merge neighbours in [from, to] (indices clamped); keeps the array minimal. */
static void ext_merge_around(struct stalefs_inode_info *ei, u32 from, u32 to)
{
	u32 i;

	if (from > 0)
		from--;
	if (to >= ei->i_map.n)
		to = ei->i_map.n ? ei->i_map.n - 1 : 0;
	i = from;
	while (i < to && i + 1 < ei->i_map.n) {
		struct stalefs_ext *a = &EXT(ei, i), *b = &EXT(ei, i + 1);

		if (stalefs_ext_mergeable(a, b)) {
			ext_touch(ei, a->lblk);
			ext_touch(ei, b->lblk);
			ext_count(ei, b->flags, -1);
			a->len += b->len;
			stalefs_emap_delete(&ei->i_map, i + 1, 1);
			to--;
		} else {
			i++;
		}
	}
}

/* Split the extent containing x (strictly inside) so that one starts at x. */
static int ext_split_at(struct stalefs_inode_info *ei, u64 x)
{
	u32 i;
	struct stalefs_ext *e, head, tail;
	int err;

	if (x >= STALEFS_MAX_FILE_BLOCKS)
		return 0;
	i = ext_search(ei, (u32)x);
	if (i >= ei->i_map.n || EXT(ei, i).lblk >= x)
		return 0;
	/* The tail becomes a new extent after it. */
	head = EXT(ei, i);
	stalefs_ext_split(&head, (u32)x, &tail);
	err = stalefs_emap_insert(&ei->i_map, i + 1, &tail);
	if (err)
		return err;
	e = &EXT(ei, i);
	ext_touch(ei, e->lblk);
	ext_touch(ei, x);
	ext_count(ei, e->flags, 1);
	e->len = head.len;
	return 0;
}

int stalefs_ext_insert(struct inode *inode, const struct stalefs_ext *ex)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u32 i;
	int err;

	stalefs_assert_rwsem_write(&ei->i_map_sem);
	i = ext_search(ei, ex->lblk);
	if (i < ei->i_map.n && EXT(ei, i).lblk < (u64)ex->lblk + ex->len)
		return -EEXIST;	/* callers only fill holes */
	err = stalefs_emap_insert(&ei->i_map, i, ex);
	if (err)
		return err;
	ext_touch(ei, ex->lblk);
	ext_count(ei, ex->flags, 1);
	ext_merge_around(ei, i, i + 1);
	ei->i_map_seq++;
	return 0;
}

/*
 * Change flags 'from' to 'to' on the blocks of [lblk, lblk+len) that have
 * them, in memory only, for at most STALEFS_EDIT_EXTENTS extents: *next is
 * where the change stopped (lblk + len when it covered the range).
 * Returns how many extents changed, or an error.
 */
int stalefs_ext_convert_mem(struct inode *inode, u32 lblk, u32 len, u16 from, u16 to, u64 *next)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u64 end = (u64)lblk + len, stop = end;
	u32 i, first, changed = 0;
	int err;

	stalefs_assert_rwsem_write(&ei->i_map_sem);
	*next = lblk;
	err = ext_split_at(ei, lblk);
	if (err)
		return err;
	for (i = ext_search(ei, lblk); i < ei->i_map.n && EXT(ei, i).lblk < end; i++) {
		if (EXT(ei, i).flags != from)
			continue;
		if (changed == STALEFS_EDIT_EXTENTS) {
			stop = EXT(ei, i).lblk;
			break;
		}
		changed++;
	}
	err = ext_split_at(ei, stop);
	if (err)
		return err;
	first = i = ext_search(ei, lblk);
	for (; i < ei->i_map.n && EXT(ei, i).lblk < stop; i++) {
		if (EXT(ei, i).flags == from) {
			ext_touch(ei, EXT(ei, i).lblk);
			ext_count(ei, from, -1);
			ext_count(ei, to, 1);
			EXT(ei, i).flags = to;
		}
	}
	ext_merge_around(ei, first, i);
	ei->i_map_seq++;
	*next = stop;
	return changed;
}

/* As stalefs_ext_convert_mem, then saved (in the caller's transaction). */
int stalefs_ext_convert(struct inode *inode, u32 lblk, u32 len, u16 from, u16 to, u64 *next)
{
	int n = stalefs_ext_convert_mem(inode, lblk, len, from, to, next);

	return n < 0 ? n : stalefs_ext_save(inode);
}

/*
 * Unmap [lblk, lblk+len) and free its blocks, from the end backwards: at
 * most STALEFS_EDIT_EXTENTS extents and, for directories and symlinks (whose
 * blocks are metadata and get revoked), STALEFS_REVOKE_BLOCKS blocks per
 * call; *more says something is left.
 */
int stalefs_ext_remove(struct inode *inode, u32 lblk, u64 len, bool *more)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u64 end = min_t(u64, (u64)lblk + len, STALEFS_MAX_FILE_BLOCKS);
	bool metadata = !S_ISREG(inode->i_mode);
	u32 i0, i, j, k;
	u64 blocks = 0;
	int err;

	stalefs_assert_rwsem_write(&ei->i_map_sem);
	*more = false;
	if (!len || lblk >= end)
		return 0;
	err = ext_split_at(ei, lblk);
	if (!err)
		err = ext_split_at(ei, end);
	if (err)
		return err;
	i0 = ext_search(ei, lblk);
	j = ext_search(ei, (u32)min_t(u64, end, U32_MAX));
	if (end >= STALEFS_MAX_FILE_BLOCKS)
		j = ei->i_map.n;
	if (j == i0)
		return 0;
	/* The last few extents of the range; a metadata extent longer than the budget loses its tail. */
	if (metadata && EXT(ei, j - 1).len > STALEFS_REVOKE_BLOCKS) {
		const struct stalefs_ext *e = &EXT(ei, j - 1);

		err = ext_split_at(ei, (u64)e->lblk + e->len - STALEFS_REVOKE_BLOCKS);
		if (err)
			return err;
		j++;
	}
	for (k = j; k > i0 && j - k < STALEFS_EDIT_EXTENTS; k--) {
		if (metadata && blocks + EXT(ei, k - 1).len > STALEFS_REVOKE_BLOCKS)
			break;
		blocks += EXT(ei, k - 1).len;
	}
	*more = k > i0;
	for (i = k; i < j; i++) {
		/* Directory and symlink blocks are metadata: revoked, their buffers dropped. */
		stalefs_free_file_blocks(inode, EXT(ei, i).pblk, EXT(ei, i).len, metadata);
		ext_count(ei, EXT(ei, i).flags, -1);
	}
	ext_touch(ei, EXT(ei, k).lblk);
	ext_touch(ei, EXT(ei, j - 1).lblk);
	stalefs_emap_delete(&ei->i_map, k, j - k);
	ei->i_map_seq++;
	return stalefs_ext_save(inode);
}

/* Goal for new blocks at lblk: right after the extent before it, as ext4 does. */
static u64 ext_goal(struct inode *inode, u32 lblk)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u32 i = ext_search(ei, lblk);
	const struct stalefs_ext *p;

	if (i == 0) {
		/* Before the first extent: aim just below it, so the file stays in order. */
		if (ei->i_map.n && EXT(ei, 0).pblk > EXT(ei, 0).lblk - lblk)
			return EXT(ei, 0).pblk - (EXT(ei, 0).lblk - lblk);
		return 0;
	}
	p = &EXT(ei, i - 1);
	return p->pblk + (lblk - p->lblk);
}

/*
 * Fill the holes of [lblk, lblk+len) with new blocks flagged 'flags'.
 * Returns 0 once at least the first block is mapped; a later ENOSPC ends
 * the loop early (the caller looks up what it got).
 */
int stalefs_ext_alloc_range(struct inode *inode, u32 lblk, u32 len, u16 flags,
			    struct stalefs_ext *first)
{
	u64 end = min_t(u64, (u64)lblk + len, STALEFS_MAX_FILE_BLOCKS);
	u64 cur = lblk;
	bool any = false;
	int err = 0, serr, added = 0;

	stalefs_assert_rwsem_write(&STALEFS_I(inode)->i_map_sem);

	/* A few extents per call: one transaction holds them and the tree save. */
	while (cur < end && added < STALEFS_ALLOC_EXTENTS) {
		struct stalefs_ext ex;
		u64 want;
		u32 got;
		u64 pblk;

		if (stalefs_ext_lookup(inode, (u32)cur, &ex)) {
			cur = (u64)ex.lblk + ex.len;
			continue;
		}
		want = end - cur;
		if (ex.len && ex.len < want)
			want = ex.len;
		want = min_t(u64, want, STALEFS_EXT_MAX_LEN);
		err = stalefs_new_data_blocks(inode, ext_goal(inode, (u32)cur), (u32)want, cur + want,
					      &pblk, &got);
		if (err)
			break;
		ex.lblk = (u32)cur;
		ex.len = got;
		ex.pblk = pblk;
		ex.flags = flags;
		err = stalefs_ext_insert(inode, &ex);
		if (err) {
			stalefs_free_file_blocks(inode, pblk, got, false);
			break;
		}
		if (!any && first)
			*first = ex;
		any = true;
		added++;
		cur += got;
	}
	if (any) {
		serr = stalefs_ext_save(inode);
		if (serr)
			return serr;
		return cur >= end ? 0 : (err == -ENOSPC ? 0 : err);
	}
	return err;
}

u64 stalefs_ext_blocks(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u64 n = ei->i_nnodes;
	u32 i;

	for (i = 0; i < ei->i_map.n; i++)
		n += EXT(ei, i).len;
	return n;
}
