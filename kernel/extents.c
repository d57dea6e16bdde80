// SPDX-License-Identifier: GPL-2.0
/*
 * Extent maps.
 *
 * Each inode's mapping is held in memory as one sorted array of extents,
 * loaded and fully verified when the inode is read (every tree block's
 * magic, owner, checksum and the global order of the leaves), and written
 * back as a tree whenever it changes.  Writing packs the leaves into the
 * node blocks the inode already owns, in the same order, and only dirties
 * a node whose bytes changed, so an append touches one leaf and a
 * conversion touches the leaves around it.
 *
 * Why an array and not in-place tree edits: every operation (allocation,
 * unwritten conversion splitting an extent in three, punch, merge of
 * neighbours) becomes a small array edit that cannot leave a half-split
 * node behind, and the tree shape is always the minimal one for the count,
 * so depth never exceeds what FORMAT.md allows for the file size.
 *
 * Locking: callers hold i_map_sem (read for lookups, write for changes).
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include "stalefs.h"
#include "stale.h"

static u32 ext_node_cap(struct super_block *sb)
{
	return stalefs_extblock_max_entries(sb->s_blocksize);
}

/* Leaves holding only entries below i_dirty_from need not be rewritten. */
static void ext_touch(struct stalefs_inode_info *ei, u32 idx)
{
	if (idx < ei->i_dirty_from)
		ei->i_dirty_from = idx;
}

static int ext_reserve(struct stalefs_inode_info *ei, u32 need)
{
	struct stalefs_ext *n;
	u32 cap;

	if (need <= ei->i_ext_cap)
		return 0;
	cap = max_t(u32, 8, ei->i_ext_cap * 2);
	while (cap < need)
		cap *= 2;
	n = kvmalloc_array(cap, sizeof(*n), GFP_NOFS);
	if (!n)
		return -ENOMEM;
	if (ei->i_next)
		memcpy(n, ei->i_ext, ei->i_next * sizeof(*n));
	kvfree(ei->i_ext);
	ei->i_ext = n;
	ei->i_ext_cap = cap;
	return 0;
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

	memset(ei->i_data, 0, sizeof(ei->i_data));
	eh->eh_magic = cpu_to_le16(STALEFS_EXT_MAGIC);
	eh->eh_max = cpu_to_le16(STALEFS_ROOT_EXTENTS);
	ei->i_next = 0;
	ei->i_dirty_from = 0;
}

void stalefs_ext_release(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);

	kvfree(ei->i_ext);
	ei->i_ext = NULL;
	ei->i_next = ei->i_ext_cap = 0;
	kfree(ei->i_nodes);
	ei->i_nodes = NULL;
	ei->i_nnodes = 0;
}

/* ---- loading: verify everything, bounded by the depth ---- */

struct ext_walk {
	struct inode *inode;
	u64 prev_end;		/* end of the last leaf extent seen, for global order */
};

static int walk_node(struct ext_walk *w, const struct stalefs_extent_header *eh,
		     u64 lo, u64 hi, u64 blocknr);

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
	err = ext_reserve(ei, ei->i_next + n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		const struct stalefs_extent *ex = &stalefs_eh_extents(eh)[i];
		struct stalefs_ext *m = &ei->i_ext[ei->i_next];

		m->lblk = le32_to_cpu(ex->ee_lblk);
		m->len = le16_to_cpu(ex->ee_len);
		m->pblk = le64_to_cpu(ex->ee_pblk);
		m->flags = le16_to_cpu(ex->ee_flags);
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
		ei->i_next++;
	}
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
	if (err)
		stalefs_ext_release(inode);
	/*
	 * Memory and disk agree, but i_nodes is in walk (pre-)order, while
	 * stalefs_ext_save() reuses i_nodes[0..leaves) as the leaves and the
	 * rest as index levels above them.  With one level of leaves under the
	 * root the two orders are the same; deeper, an index node comes first,
	 * so a save that kept the leaves below its first edit would point the
	 * index at the wrong blocks.  The first save of a deeper tree therefore
	 * rebuilds every node (once: afterwards the order is the save's own).
	 */
	ei->i_dirty_from = le16_to_cpu(eh->eh_depth) >= 2 ? 0 : U32_MAX;
	return err;
}

/* ---- lookups and array edits ---- */

/* Index of the first extent ending after lblk (i_next if none). */
static u32 ext_search(struct stalefs_inode_info *ei, u32 lblk)
{
	u32 lo = 0, hi = ei->i_next;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		const struct stalefs_ext *e = &ei->i_ext[mid];

		if ((u64)e->lblk + e->len <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int stalefs_ext_lookup(struct inode *inode, u32 lblk, struct stalefs_ext *ex)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u32 i = ext_search(ei, lblk);

	if (i < ei->i_next && ei->i_ext[i].lblk <= lblk) {
		*ex = ei->i_ext[i];
		return 1;
	}
	ex->lblk = lblk;
	ex->pblk = STALEFS_HOLE_PBLK;
	ex->flags = 0;
	ex->len = i < ei->i_next ? ei->i_ext[i].lblk - lblk : 0;
	return 0;
}

static bool ext_mergeable(const struct stalefs_ext *a, const struct stalefs_ext *b)
{
	return (u64)a->lblk + a->len == b->lblk && a->pblk + a->len == b->pblk &&
	       a->flags == b->flags && a->len + b->len <= STALEFS_EXT_MAX_LEN;
}

/* Merge neighbours in [from, to] (indices clamped); keeps the array minimal. */
static void ext_merge_around(struct stalefs_inode_info *ei, u32 from, u32 to)
{
	u32 i;

	if (from > 0)
		from--;
	if (to >= ei->i_next)
		to = ei->i_next ? ei->i_next - 1 : 0;
	i = from;
	while (i < to && i + 1 < ei->i_next) {
		if (ext_mergeable(&ei->i_ext[i], &ei->i_ext[i + 1])) {
			ext_touch(ei, i);
			ei->i_ext[i].len += ei->i_ext[i + 1].len;
			memmove(&ei->i_ext[i + 1], &ei->i_ext[i + 2],
				(ei->i_next - i - 2) * sizeof(ei->i_ext[0]));
			ei->i_next--;
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
	struct stalefs_ext *e;
	u32 d;
	int err;

	if (x >= STALEFS_MAX_FILE_BLOCKS)
		return 0;
	i = ext_search(ei, (u32)x);
	if (i >= ei->i_next || ei->i_ext[i].lblk >= x)
		return 0;
	err = ext_reserve(ei, ei->i_next + 1);
	if (err)
		return err;
	ext_touch(ei, i);
	e = &ei->i_ext[i];
	d = (u32)(x - e->lblk);
	memmove(&ei->i_ext[i + 1], &ei->i_ext[i], (ei->i_next - i) * sizeof(*e));
	ei->i_next++;
	e->len = d;
	e[1].lblk += d;
	e[1].pblk += d;
	e[1].len -= d;
	return 0;
}

int stalefs_ext_insert(struct inode *inode, const struct stalefs_ext *ex)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u32 i;
	int err;

	err = ext_reserve(ei, ei->i_next + 1);
	if (err)
		return err;
	i = ext_search(ei, ex->lblk);
	if (i < ei->i_next && ei->i_ext[i].lblk < (u64)ex->lblk + ex->len)
		return -EEXIST;	/* callers only fill holes */
	ext_touch(ei, i);
	memmove(&ei->i_ext[i + 1], &ei->i_ext[i], (ei->i_next - i) * sizeof(*ex));
	ei->i_ext[i] = *ex;
	ei->i_next++;
	ext_merge_around(ei, i, i + 1);
	ei->i_map_seq++;
	return 0;
}

/* Change flags 'from' to 'to' on every block of [lblk, lblk+len) that has them. */
int stalefs_ext_convert(struct inode *inode, u32 lblk, u32 len, u16 from, u16 to)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u64 end = (u64)lblk + len;
	u32 i, first;
	int err;

	err = ext_split_at(ei, lblk);
	if (!err)
		err = ext_split_at(ei, end);
	if (err)
		return err;
	first = i = ext_search(ei, lblk);
	for (; i < ei->i_next && ei->i_ext[i].lblk < end; i++) {
		if (ei->i_ext[i].flags == from) {
			ext_touch(ei, i);
			ei->i_ext[i].flags = to;
		}
	}
	ext_merge_around(ei, first, i);
	ei->i_map_seq++;
	return stalefs_ext_save(inode);
}

/* Unmap [lblk, lblk+len) and free its blocks. */
int stalefs_ext_remove(struct inode *inode, u32 lblk, u64 len)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u64 end = min_t(u64, (u64)lblk + len, STALEFS_MAX_FILE_BLOCKS);
	u32 i, j;
	int err;

	if (!len)
		return 0;
	err = ext_split_at(ei, lblk);
	if (!err)
		err = ext_split_at(ei, end);
	if (err)
		return err;
	i = j = ext_search(ei, lblk);
	while (j < ei->i_next && ei->i_ext[j].lblk < end) {
		/* Directory and symlink blocks live in the buffer cache: forget them. */
		stalefs_free_blocks(inode, ei->i_ext[j].pblk, ei->i_ext[j].len,
				    !S_ISREG(inode->i_mode));
		j++;
	}
	if (j == i)
		return 0;
	ext_touch(ei, i);
	memmove(&ei->i_ext[i], &ei->i_ext[j], (ei->i_next - j) * sizeof(ei->i_ext[0]));
	ei->i_next -= j - i;
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
		if (ei->i_next && ei->i_ext[0].pblk > ei->i_ext[0].lblk - lblk)
			return ei->i_ext[0].pblk - (ei->i_ext[0].lblk - lblk);
		return 0;
	}
	p = &ei->i_ext[i - 1];
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
	int err = 0, serr;

	while (cur < end) {
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
		err = stalefs_new_blocks(inode, ext_goal(inode, (u32)cur), (u32)want, &pblk, &got);
		if (err)
			break;
		ex.lblk = (u32)cur;
		ex.len = got;
		ex.pblk = pblk;
		ex.flags = flags;
		err = stalefs_ext_insert(inode, &ex);
		if (err) {
			stalefs_free_blocks(inode, pblk, got, false);
			break;
		}
		if (!any && first)
			*first = ex;
		any = true;
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

	for (i = 0; i < ei->i_next; i++)
		n += ei->i_ext[i].len;
	return n;
}

/* ---- saving: the array packed into a tree of minimal depth ---- */

/* Write one node block; only dirty it when its bytes change. */
static int write_node(struct inode *inode, u64 pblk, const void *img)
{
	struct super_block *sb = inode->i_sb;
	struct buffer_head *bh = sb_getblk(sb, pblk);

	if (!bh)
		return -ENOMEM;
	lock_buffer(bh);
	if (!buffer_uptodate(bh) || memcmp(bh->b_data, img, sb->s_blocksize)) {
		memcpy(bh->b_data, img, sb->s_blocksize);
		set_buffer_uptodate(bh);
		set_buffer_stalefs_verified(bh);
		unlock_buffer(bh);
		mark_buffer_dirty_inode(bh, inode);
	} else {
		unlock_buffer(bh);
	}
	brelse(bh);
	return 0;
}

static void node_init(struct inode *inode, void *img, u64 pblk, u16 depth, u16 entries)
{
	struct stalefs_extent_block *eb = img;

	memset(img, 0, inode->i_sb->s_blocksize);
	eb->eb_magic = cpu_to_le32(STALEFS_EXTBLK_MAGIC);
	eb->eb_blocknr = cpu_to_le64(pblk);
	eb->eb_owner = cpu_to_le32(inode->i_ino);
	eb->eb_owner_gen = cpu_to_le32(inode->i_generation);
	eb->eb_hdr.eh_magic = cpu_to_le16(STALEFS_EXT_MAGIC);
	eb->eb_hdr.eh_entries = cpu_to_le16(entries);
	eb->eb_hdr.eh_max = cpu_to_le16(ext_node_cap(inode->i_sb));
	eb->eb_hdr.eh_depth = cpu_to_le16(depth);
}

static void put_extent(struct stalefs_extent *d, const struct stalefs_ext *s)
{
	d->ee_lblk = cpu_to_le32(s->lblk);
	d->ee_len = cpu_to_le16(s->len);
	d->ee_flags = cpu_to_le16(s->flags);
	d->ee_pblk = cpu_to_le64(s->pblk);
}

int stalefs_ext_save(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct stalefs_extent_header *root = (void *)ei->i_data;
	u32 cap = ext_node_cap(sb);
	u32 n = ei->i_next;
	u32 level_count[STALEFS_EXT_MAX_DEPTH + 1];
	u32 *firsts = NULL, *next_firsts = NULL;
	u32 depth = 0, total = 0, c, i, lvl, node = 0, skip;
	void *img = NULL;
	int err = 0;

	/* stale.c: the inode's STALE flag follows its extents (fsck's S5) */
	stalefs_stale_sync_flag(inode);

	/* Shape: leaves of 'cap' extents, index levels until the root's 7 suffice. */
	c = n;
	while (c > STALEFS_ROOT_EXTENTS) {
		if (depth == STALEFS_EXT_MAX_DEPTH)
			return -EFBIG;
		c = DIV_ROUND_UP(c, cap);
		level_count[depth++] = c;
		total += c;
	}

	/*
	 * Same shape as on disk: leaves entirely below the first edited entry
	 * are unchanged and are not rebuilt (appends touch one leaf).
	 */
	skip = ei->i_nnodes == total && depth ? min(ei->i_dirty_from / cap, level_count[0]) : 0;

	/* Own exactly 'total' node blocks: allocate more, free the extra. */
	while (ei->i_nnodes < total) {
		/*
		 * A little ahead of the file's data, next to the previous node
		 * when that is further: never at a data goal, or nodes would
		 * fill the file's holes and break its contiguity.
		 */
		u64 goal = n ? ei->i_ext[n - 1].pblk + ei->i_ext[n - 1].len + 256 : 0;
		u64 pblk;
		u32 got;

		if (ei->i_nnodes && ei->i_nodes[ei->i_nnodes - 1] + 1 > goal)
			goal = ei->i_nodes[ei->i_nnodes - 1] + 1;
		err = stalefs_new_blocks(inode, goal, 1, &pblk, &got);
		if (err)
			return err;
		err = nodes_add(ei, pblk);
		if (err) {
			stalefs_free_blocks(inode, pblk, 1, true);
			return err;
		}
	}
	while (ei->i_nnodes > total) {
		ei->i_nnodes--;
		stalefs_free_blocks(inode, ei->i_nodes[ei->i_nnodes], 1, true);
	}

	memset(ei->i_data, 0, sizeof(ei->i_data));
	root->eh_magic = cpu_to_le16(STALEFS_EXT_MAGIC);
	root->eh_max = cpu_to_le16(STALEFS_ROOT_EXTENTS);
	root->eh_depth = cpu_to_le16(depth);
	if (depth == 0) {
		root->eh_entries = cpu_to_le16(n);
		for (i = 0; i < n; i++)
			put_extent(&stalefs_eh_extents(root)[i], &ei->i_ext[i]);
		goto out;
	}

	err = -ENOMEM;
	img = kmalloc(sb->s_blocksize, GFP_NOFS);
	firsts = kmalloc_array(level_count[0], sizeof(u32), GFP_NOFS);
	next_firsts = kmalloc_array(level_count[0], sizeof(u32), GFP_NOFS);
	if (!img || !firsts || !next_firsts)
		goto out;

	/* Leaves. */
	for (i = 0; i < level_count[0]; i++, node++) {
		u32 s = i * cap, e = min(n, s + cap), k;
		struct stalefs_extent *d;

		firsts[i] = ei->i_ext[s].lblk;
		if (i < skip)
			continue;
		node_init(inode, img, ei->i_nodes[node], 0, e - s);
		d = stalefs_eh_extents(stalefs_extblock_eh(img));
		for (k = s; k < e; k++)
			put_extent(&d[k - s], &ei->i_ext[k]);
		stalefs_extblock_set_csum(sbi->csum_seed, img, sb->s_blocksize);
		err = write_node(inode, ei->i_nodes[node], img);
		if (err)
			goto out;
	}
	/* Index levels above: each entry names its child's first block. */
	for (lvl = 1; lvl < depth; lvl++) {
		u32 child0 = node - level_count[lvl - 1];

		for (i = 0; i < level_count[lvl]; i++, node++) {
			u32 s = i * cap, e = min(level_count[lvl - 1], s + cap), k;
			struct stalefs_extent_idx *d;

			node_init(inode, img, ei->i_nodes[node], lvl, e - s);
			d = stalefs_eh_index(stalefs_extblock_eh(img));
			for (k = s; k < e; k++) {
				d[k - s].ei_lblk = cpu_to_le32(firsts[k]);
				d[k - s].ei_pblk = cpu_to_le64(ei->i_nodes[child0 + k]);
			}
			stalefs_extblock_set_csum(sbi->csum_seed, img, sb->s_blocksize);
			err = write_node(inode, ei->i_nodes[node], img);
			if (err)
				goto out;
			next_firsts[i] = firsts[s];
		}
		swap(firsts, next_firsts);
	}
	/* Root: indexes the top level. */
	c = level_count[depth - 1];
	root->eh_entries = cpu_to_le16(c);
	for (i = 0; i < c; i++) {
		stalefs_eh_index(root)[i].ei_lblk = cpu_to_le32(firsts[i]);
		stalefs_eh_index(root)[i].ei_pblk = cpu_to_le64(ei->i_nodes[node - c + i]);
	}
	err = 0;
out:
	if (!err)
		ei->i_dirty_from = U32_MAX;
	kfree(img);
	kfree(firsts);
	kfree(next_firsts);
	mark_inode_dirty(inode);
	return err;
}
