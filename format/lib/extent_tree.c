// SPDX-License-Identifier: GPL-2.0
/*
 * Extent trees on disk: reading a whole tree into an extent list (verifying
 * every node), walking it node by node, and writing a list back as a tree
 * (leaves filled in order, index levels added until the root fits the inode).
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

/*
 * stalefs_extent_walk is a policy over the tolerant scan (extent_scan.c): a
 * node that breaks a rule is reported and ends the walk; a tree block that
 * cannot be used (unreadable, wrong header or checksum, named twice) is
 * reported and skipped, or ends the walk when strict.
 */
struct walk_ctx {
	stalefs_fs *fs;
	stalefs_extent_walk_fn fn;
	void *priv;
	bool strict;		/* stop with an error at the first bad node */
	errcode_t err;
	int ret;		/* what stopped the walk: the callback's value, or -1 */
	struct stalefs_extent_walk parent;	/* the index entry whose child is being entered */
};

static errcode_t rule_error(int rule)
{
	if (rule == STALEFS_R_EXTBLK_CSUM)
		return STALEFS_ERR_EXTENT_CSUM;
	return STALEFS_ERR_EXTENT_CORRUPT;
}

static int stop(struct walk_ctx *c, int ret)
{
	c->ret = ret;
	return -1;
}

/* A node that breaks a rule: reported, and the walk ends. */
static int bad_node(struct walk_ctx *c, const struct stalefs_xnode *n, int rule)
{
	struct stalefs_extent_walk w;

	memset(&w, 0, sizeof(w));
	w.level = n->level;
	w.node_block = n->block;
	w.rule = rule;
	c->err = rule_error(rule);
	if (c->fn)
		c->fn(c->fs, &w, c->priv);
	return stop(c, -1);
}

static int walk_node_cb(stalefs_fs *fs, const struct stalefs_xnode *n, void *priv)
{
	struct walk_ctx *c = priv;
	int rule;

	if (n->level == 0)
		return n->rule ? bad_node(c, n, n->rule) : 0;
	rule = n->block_rule;
	if (!rule && n->csum_bad && !(fs->flags & STALEFS_OPEN_IGNORE_CSUM))
		rule = STALEFS_R_EXTBLK_CSUM;
	if (n->err || n->revisit || rule) {
		struct stalefs_extent_walk bad = c->parent;

		bad.level = n->level;
		bad.node_block = n->block;
		bad.rule = rule ? rule : STALEFS_R_EXTBLK_MAGIC;
		c->err = n->err ? n->err : rule_error(bad.rule);
		if (c->fn)
			c->fn(fs, &bad, c->priv);
		return c->strict ? stop(c, -1) : STALEFS_XSCAN_SKIP;
	}
	/* The scan judged the whole node unless the (ignored) checksum came first. */
	rule = n->csum_bad ? stalefs_verify_extent_node(&fs->geom, n->eh, n->cap, n->expect_depth) : n->rule;
	return rule ? bad_node(c, n, rule) : 0;
}

static int walk_entry_cb(stalefs_fs *fs, const struct stalefs_xentry *x, void *priv)
{
	struct walk_ctx *c = priv;
	const struct stalefs_xnode *n = x->node;
	struct stalefs_extent_walk w;
	int ret;

	memset(&w, 0, sizeof(w));
	w.depth = n->depth;
	w.level = n->level;
	w.node_block = n->block;
	w.index = x->index;
	w.entries = n->entries;
	w.max = n->cap;
	w.is_index = x->is_index;
	w.e.lblk = x->lblk;
	w.e.len = x->is_index ? 0 : x->len;
	w.e.pblk = x->pblk;
	w.e.flags = x->is_index ? 0 : x->flags;
	/* Every entry must lie in the range its parent index promised. */
	if (x->lblk < n->lo || (u64)x->lblk + (x->is_index ? 1 : x->len) > n->hi) {
		w.rule = STALEFS_R_EXT_UNSORTED;
		c->err = STALEFS_ERR_EXTENT_CORRUPT;
		if (c->fn)
			c->fn(fs, &w, c->priv);
		return c->strict ? stop(c, -1) : STALEFS_XSCAN_SKIP;
	}
	if (c->fn) {
		ret = c->fn(fs, &w, c->priv);
		if (ret)
			return stop(c, ret);
	}
	if (x->is_index)
		c->parent = w;
	return 0;
}

static int do_walk(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode, stalefs_extent_walk_fn fn,
		   void *priv, bool strict, errcode_t *err)
{
	static const struct stalefs_xscan_ops ops = { .node = walk_node_cb, .entry = walk_entry_cb };
	struct walk_ctx c;

	memset(&c, 0, sizeof(c));
	c.fs = fs;
	c.fn = fn;
	c.priv = priv;
	c.strict = strict;
	*err = 0;
	if (!stalefs_inode_has_extents(inode))
		return 0;
	stalefs_extent_scan(fs, ino, inode, &ops, &c);
	*err = c.err;
	return c.ret;
}

errcode_t stalefs_extent_walk(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode,
			      stalefs_extent_walk_fn fn, void *priv)
{
	errcode_t err;
	int ret = do_walk(fs, ino, inode, fn, priv, false, &err);

	if (ret < 0 && !err)
		err = STALEFS_ERR_EXTENT_CORRUPT;
	return err;
}

static int collect_cb(stalefs_fs *fs, const struct stalefs_extent_walk *w, void *priv)
{
	struct stalefs_extent_list *l = priv;

	(void)fs;
	if (w->rule)
		return -1;
	if (w->is_index) {
		l->tree_blocks++;
		return 0;
	}
	if (stalefs_extent_list_append(l, w->e.lblk, w->e.len, w->e.pblk, w->e.flags))
		return -1;
	return 0;
}

errcode_t stalefs_extent_read(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode,
			      struct stalefs_extent_list *l)
{
	errcode_t err;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = do_walk(fs, ino, inode, collect_cb, l, true, &err);
	if (ret < 0) {
		stalefs_extent_list_free(l);
		return err ? err : STALEFS_ERR_EXTENT_CORRUPT;
	}
	return 0;
}

struct block_vec {
	u64 *b;
	u32 n, cap;
};

static void vec_push(struct block_vec *v, u64 block)
{
	if (v->n == v->cap) {
		v->cap = v->cap * 2 + 16;
		v->b = stalefs_xrealloc(v->b, v->cap * sizeof(*v->b));
	}
	v->b[v->n++] = block;
}

static int node_blocks_cb(stalefs_fs *fs, const struct stalefs_extent_walk *w, void *priv)
{
	(void)fs;
	if (w->is_index && !w->rule)
		vec_push(priv, w->e.pblk);
	return 0;
}

/* Free the node blocks of the tree now in the inode (the data blocks are the caller's). */
errcode_t stalefs_extent_free_nodes(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode)
{
	struct block_vec nodes = { NULL, 0, 0 };
	errcode_t err = 0, werr;
	u32 i;

	do_walk(fs, ino, inode, node_blocks_cb, &nodes, false, &werr);
	for (i = 0; i < nodes.n && !err; i++)
		err = stalefs_free_blocks(fs, nodes.b[i], 1);
	free(nodes.b);
	return err;
}

/* One level of the tree being built: entries as (lblk, pblk-or-extent). */
struct level_entry {
	u32 lblk;
	u64 pblk;
};

errcode_t stalefs_extent_write(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode,
			       struct stalefs_extent_list *l)
{
	u32 per_block = stalefs_extblock_max_entries(fs->block_size);
	u32 gen = le32_to_cpu(inode->i_generation);
	struct stalefs_extent_header *root = (struct stalefs_extent_header *)inode->i_block;
	u32 level_count[STALEFS_EXT_MAX_DEPTH + 1];
	struct level_entry *level = NULL;
	u32 nlevel = 0, depth = 0, nindex, lvl, i, j;
	u64 data_blocks = 0, node_blocks = 0, goal;
	bool stale = false;
	u8 *buf = NULL;
	errcode_t err;

	if (!stalefs_inode_has_extents(inode))
		return STALEFS_ERR_BAD_ARGUMENT;
	err = stalefs_extent_free_nodes(fs, ino, inode);
	if (err)
		return err;
	stalefs_extent_list_normalise(l);
	for (i = 0; i < l->count; i++) {
		data_blocks += l->ext[i].len;
		stale |= (l->ext[i].flags & STALEFS_EXT_STALE) != 0;
	}
	memset(inode->i_block, 0, sizeof(inode->i_block));
	if (l->count <= STALEFS_ROOT_EXTENTS) {
		stalefs_eh_init(root, l->count, STALEFS_ROOT_EXTENTS, 0);
		for (i = 0; i < l->count; i++)
			stalefs_ext_encode(&stalefs_eh_extents(root)[i], &l->ext[i]);
		goto done;
	}
	/* Full leaves in order, then the index levels the format core plans above them. */
	if (stalefs_ext_tree_levels((l->count + per_block - 1) / per_block, per_block, level_count,
				    &depth, &nindex))
		return STALEFS_ERR_EXTENT_TOO_DEEP;
	buf = stalefs_xmalloc(fs->block_size);
	goal = l->ext[0].pblk;
	/* Each level's node blocks are written as they fill. */
	for (lvl = 0; lvl < depth; lvl++) {
		u32 n_in = lvl == 0 ? l->count : nlevel;
		u32 n_out = level_count[lvl];
		struct level_entry *next = stalefs_xcalloc(n_out, sizeof(*next));

		for (j = 0; j < n_out; j++) {
			struct stalefs_extent_block *eb = (struct stalefs_extent_block *)buf;
			u32 first = j * per_block, cnt = n_in - first < per_block ? n_in - first : per_block;
			u64 blk;

			err = stalefs_alloc_block(fs, goal, &blk);
			if (err) {
				free(next);
				goto out;
			}
			goal = blk + 1;
			node_blocks++;
			stalefs_extblock_init(buf, fs->block_size, blk, ino, gen, lvl, cnt);
			for (i = 0; i < cnt; i++) {
				if (lvl == 0) {
					stalefs_ext_encode(&stalefs_eh_extents(&eb->eb_hdr)[i], &l->ext[first + i]);
				} else {
					struct stalefs_extent_idx *ix = &stalefs_eh_index(&eb->eb_hdr)[i];

					ix->ei_lblk = cpu_to_le32(level[first + i].lblk);
					ix->ei_pblk = cpu_to_le64(level[first + i].pblk);
				}
			}
			stalefs_extblock_set_csum(fs->seed, buf, fs->block_size);
			err = stalefs_write_block(fs, blk, buf);
			if (err) {
				free(next);
				goto out;
			}
			next[j].lblk = lvl == 0 ? l->ext[first].lblk : level[first].lblk;
			next[j].pblk = blk;
		}
		free(level);
		level = next;
		nlevel = n_out;
	}
	stalefs_eh_init(root, nlevel, STALEFS_ROOT_EXTENTS, depth);
	for (i = 0; i < nlevel; i++) {
		stalefs_eh_index(root)[i].ei_lblk = cpu_to_le32(level[i].lblk);
		stalefs_eh_index(root)[i].ei_pblk = cpu_to_le64(level[i].pblk);
	}
done:
	/* i_blocks counts the xattr block too (FORMAT.md 14): it is not the tree's to drop. */
	inode->i_blocks = cpu_to_le64(data_blocks + node_blocks + (inode->i_xattr_block ? 1 : 0));
	/* The group counts its STALE inodes (FORMAT.md 10, S6). */
	if (stale != !!(le32_to_cpu(inode->i_flags) & STALEFS_INODE_STALE_FL))
		stalefs_adjust_stale_count(fs, ino, stale ? 1 : -1);
	if (stale)
		inode->i_flags = cpu_to_le32(le32_to_cpu(inode->i_flags) | STALEFS_INODE_STALE_FL);
	else
		inode->i_flags = cpu_to_le32(le32_to_cpu(inode->i_flags) & ~STALEFS_INODE_STALE_FL);
	l->tree_blocks = node_blocks;
	err = 0;
out:
	free(level);
	free(buf);
	return err;
}
