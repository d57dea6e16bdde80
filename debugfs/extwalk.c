// SPDX-License-Identifier: GPL-2.0
/*
 * A forgiving extent tree walker for inspection.  The library's walker stops
 * at a node that fails verification; a forensic tool must still show what
 * such a node holds (an extent flagged UNWRITTEN|STALE is exactly what the
 * user is looking for), so this one reports each node's verdict and then
 * shows its entries anyway, as far as they fit the node.
 */
#include <stdlib.h>
#include "debugfs.h"
#include "extwalk.h"

struct xw_ctx {
	u32 ino, gen;
	const struct xw_ops *ops;
	void *priv;
	int bad_nodes;
	/* Tree blocks already entered: a damaged tree whose index entries all name
	 * the same block would otherwise be walked an exponential number of times. */
	u64 *seen;
	size_t nseen, cap;
};

/* Remember block; false if it was entered before (or memory ran out). */
static bool first_visit(struct xw_ctx *c, u64 block)
{
	size_t i;

	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == block)
			return false;
	if (c->nseen == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		u64 *s = realloc(c->seen, cap * sizeof(*s));

		if (!s)
			return false;
		c->seen = s;
		c->cap = cap;
	}
	c->seen[c->nseen++] = block;
	return true;
}

static int visit(struct xw_ctx *c, const struct stalefs_extent_header *eh, u32 cap, int expect_depth,
		 u32 level, u64 node_block, int block_rule)
{
	struct xw_node n;
	u32 i, entries;
	int ret;

	memset(&n, 0, sizeof(n));
	n.level = level;
	n.block = node_block;
	n.entries = le16_to_cpu(eh->eh_entries);
	n.max = le16_to_cpu(eh->eh_max);
	n.depth = le16_to_cpu(eh->eh_depth);
	n.magic = le16_to_cpu(eh->eh_magic);
	n.rule = block_rule ? block_rule
			    : stalefs_verify_extent_node(&dbg.fs->geom, eh, cap, expect_depth);
	if (n.rule)
		c->bad_nodes++;
	if (c->ops->node) {
		ret = c->ops->node(&n, c->priv);
		if (ret)
			return ret;
	}
	if (n.magic != STALEFS_EXT_MAGIC)
		return 0;	/* not a node at all: its bytes mean nothing */
	entries = n.entries < cap ? n.entries : cap;
	for (i = 0; i < entries; i++) {
		struct xw_entry e;

		memset(&e, 0, sizeof(e));
		e.node = &n;
		e.index = i;
		e.is_index = n.depth > 0;
		if (e.is_index) {
			const struct stalefs_extent_idx *ix = &stalefs_eh_index(eh)[i];

			e.lblk = le32_to_cpu(ix->ei_lblk);
			e.pblk = le64_to_cpu(ix->ei_pblk);
		} else {
			const struct stalefs_extent *ex = &stalefs_eh_extents(eh)[i];

			e.lblk = le32_to_cpu(ex->ee_lblk);
			e.len = le16_to_cpu(ex->ee_len);
			e.pblk = le64_to_cpu(ex->ee_pblk);
			e.flags = le16_to_cpu(ex->ee_flags);
		}
		if (c->ops->entry) {
			ret = c->ops->entry(&e, c->priv);
			if (ret)
				return ret;
		}
		if (e.is_index && level < STALEFS_EXT_MAX_DEPTH && n.depth <= STALEFS_EXT_MAX_DEPTH) {
			u8 *buf;
			int rule = 0;
			errcode_t err;

			if (!first_visit(c, e.pblk)) {
				struct xw_node bad = { .level = level + 1, .block = e.pblk,
						       .why = "tree block is named twice in the tree (not walked again)" };

				c->bad_nodes++;
				if (c->ops->node && (ret = c->ops->node(&bad, c->priv)))
					return ret;
				continue;
			}
			if (e.pblk >= dbg.fs->geom.blocks_count || e.pblk == 0) {
				struct xw_node bad = { .level = level + 1, .block = e.pblk,
						       .rule = STALEFS_R_EXT_PBLK_RANGE };

				c->bad_nodes++;
				if (c->ops->node && (ret = c->ops->node(&bad, c->priv)))
					return ret;
				continue;
			}
			buf = malloc(dbg.fs->block_size);
			if (!buf)
				return -1;
			err = stalefs_read_block(dbg.fs, e.pblk, buf);
			if (err) {
				struct xw_node bad = { .level = level + 1, .block = e.pblk, .err = err };

				free(buf);
				c->bad_nodes++;
				if (c->ops->node && (ret = c->ops->node(&bad, c->priv)))
					return ret;
				continue;
			}
			if (c->ops->tree_block)
				c->ops->tree_block(e.pblk, c->priv);
			rule = stalefs_verify_extblock_header(buf, e.pblk, c->ino, c->gen);
			if (!rule)
				rule = stalefs_verify_extblock_csum(dbg.fs->seed, buf, dbg.fs->block_size);
			if (!rule) {
				int r = stalefs_verify_extent_node(&dbg.fs->geom, stalefs_extblock_eh(buf),
								   stalefs_extblock_max_entries(dbg.fs->block_size),
								   (int)n.depth - 1);
				rule = r;
			}
			ret = visit(c, stalefs_extblock_eh(buf), stalefs_extblock_max_entries(dbg.fs->block_size),
				    (int)n.depth - 1, level + 1, e.pblk, rule);
			free(buf);
			if (ret)
				return ret;
		}
	}
	return 0;
}

const char *xw_node_problem(const struct xw_node *n)
{
	if (n->err)
		return error_message(n->err);
	if (n->why)
		return n->why;
	return n->rule ? stalefs_rule_msg(n->rule) : NULL;
}

int xw_walk(u32 ino, const struct stalefs_inode *inode, const struct xw_ops *ops, void *priv)
{
	struct xw_ctx c = { .ino = ino, .gen = le32_to_cpu(inode->i_generation), .ops = ops, .priv = priv };
	int ret;

	ret = visit(&c, stalefs_inode_eh(inode), STALEFS_ROOT_EXTENTS, -1, 0, 0, 0);
	free(c.seen);
	if (ret < 0)
		return ret;
	return c.bad_nodes;
}
