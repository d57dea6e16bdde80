// SPDX-License-Identifier: GPL-2.0
/*
 * The tolerant extent tree scan: every node is visited with its verdict and
 * the caller decides what to make of it.  fsck judges each entry and repairs,
 * debugfs shows what a damaged node still holds, stalefs_extent_walk() stops
 * at the first bad node; all three are policies over this one walk.
 *
 * The scan itself only refuses what no policy could use: a node whose magic
 * is wrong (its bytes mean nothing), an index naming a block outside the
 * filesystem, and a tree block named a second time (a damaged tree whose
 * index entries all name one block would otherwise be walked an exponential
 * number of times).
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

struct scan_ctx {
	stalefs_fs *fs;
	u32 ino, gen;
	const struct stalefs_xscan_ops *ops;
	void *priv;
	int bad_nodes;
	u64 *seen;		/* tree blocks entered so far */
	size_t nseen, cap;
};

/* Remember block; false if it was entered before. */
static bool first_visit(struct scan_ctx *c, u64 block)
{
	size_t i;

	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == block)
			return false;
	if (c->nseen == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->seen = stalefs_xrealloc(c->seen, c->cap * sizeof(*c->seen));
	}
	c->seen[c->nseen++] = block;
	return true;
}

static bool node_bad(const struct stalefs_xnode *n)
{
	return n->err || n->revisit || n->rule;
}

/* Tell the caller about a node; STALEFS_XSCAN_SKIP or stop values come back. */
static int report_node(struct scan_ctx *c, const struct stalefs_xnode *n)
{
	if (node_bad(n))
		c->bad_nodes++;
	return c->ops->node ? c->ops->node(c->fs, n, c->priv) : 0;
}

/* A node that has no entries to walk: only a stop matters. */
static int report_unread(struct scan_ctx *c, const struct stalefs_xnode *n)
{
	int ret = report_node(c, n);

	return ret == STALEFS_XSCAN_SKIP ? 0 : ret;
}

static void fill_header(struct stalefs_xnode *n, const struct stalefs_extent_header *eh)
{
	n->eh = eh;
	n->entries = le16_to_cpu(eh->eh_entries);
	n->max = le16_to_cpu(eh->eh_max);
	n->depth = le16_to_cpu(eh->eh_depth);
	n->magic = le16_to_cpu(eh->eh_magic);
	n->header_rule = stalefs_verify_extent_header(eh, n->cap, n->expect_depth);
}

/* The end of the range index entry i's child may cover: the next larger start. */
static u64 child_end(const struct stalefs_extent_header *eh, u32 entries, u32 i, u64 hi)
{
	const struct stalefs_extent_idx *ix = stalefs_eh_index(eh);
	u32 lblk = le32_to_cpu(ix[i].ei_lblk), k;

	for (k = i + 1; k < entries; k++)
		if (le32_to_cpu(ix[k].ei_lblk) > lblk)
			return le32_to_cpu(ix[k].ei_lblk) < hi ? le32_to_cpu(ix[k].ei_lblk) : hi;
	return hi;
}

static int visit(struct scan_ctx *c, const struct stalefs_xnode *n);

/* Read the child an index entry names, judge it and visit it. */
static int descend(struct scan_ctx *c, const struct stalefs_xnode *parent, const struct stalefs_xentry *e)
{
	stalefs_fs *fs = c->fs;
	struct stalefs_xnode n;
	u8 *buf;
	int ret;

	memset(&n, 0, sizeof(n));
	n.level = parent->level + 1;
	n.block = e->pblk;
	n.lo = e->lblk;
	n.hi = e->next;
	n.cap = stalefs_extblock_max_entries(fs->block_size);
	n.expect_depth = (int)parent->depth - 1;
	if (!first_visit(c, e->pblk)) {
		n.revisit = true;
		return report_unread(c, &n);
	}
	if (e->pblk == 0 || e->pblk >= fs->geom.blocks_count) {
		n.block_rule = n.rule = STALEFS_R_EXT_PBLK_RANGE;
		return report_unread(c, &n);
	}
	buf = stalefs_xmalloc(fs->block_size);
	n.err = stalefs_read_block(fs, e->pblk, buf);
	if (n.err) {
		free(buf);
		return report_unread(c, &n);
	}
	fill_header(&n, stalefs_extblock_eh(buf));
	n.block_rule = stalefs_verify_extblock_header(buf, e->pblk, c->ino, c->gen);
	n.csum_bad = stalefs_verify_extblock_csum(fs->seed, buf, fs->block_size) != 0;
	n.rule = n.block_rule ? n.block_rule
		 : n.csum_bad ? STALEFS_R_EXTBLK_CSUM
		 : stalefs_verify_extent_node(&fs->geom, n.eh, n.cap, n.expect_depth);
	ret = visit(c, &n);
	free(buf);
	return ret;
}

static int visit(struct scan_ctx *c, const struct stalefs_xnode *n)
{
	u32 i, entries;
	int ret = report_node(c, n);

	if (ret == STALEFS_XSCAN_SKIP)
		return 0;
	if (ret)
		return ret;
	if (n->magic != STALEFS_EXT_MAGIC)
		return 0;	/* not a node at all: its bytes mean nothing */
	entries = n->entries < n->cap ? n->entries : n->cap;
	for (i = 0; i < entries; i++) {
		struct stalefs_xentry e;

		memset(&e, 0, sizeof(e));
		e.node = n;
		e.index = i;
		e.is_index = n->depth > 0;
		if (e.is_index) {
			const struct stalefs_extent_idx *ix = &stalefs_eh_index(n->eh)[i];

			e.lblk = le32_to_cpu(ix->ei_lblk);
			e.pblk = le64_to_cpu(ix->ei_pblk);
			e.reserved = le32_to_cpu(ix->ei_reserved);
			e.next = child_end(n->eh, entries, i, n->hi);
		} else {
			struct stalefs_ext x;

			stalefs_ext_decode(&stalefs_eh_extents(n->eh)[i], &x);
			e.lblk = x.lblk;
			e.len = x.len;
			e.pblk = x.pblk;
			e.flags = x.flags;
		}
		ret = c->ops->entry ? c->ops->entry(c->fs, &e, c->priv) : 0;
		if (ret == STALEFS_XSCAN_SKIP)
			continue;
		if (ret)
			return ret;
		/* Depth is bounded however the headers lie, so the recursion is too. */
		if (e.is_index && n->level < STALEFS_EXT_MAX_DEPTH && n->depth <= STALEFS_EXT_MAX_DEPTH) {
			ret = descend(c, n, &e);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int stalefs_extent_scan(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode,
			const struct stalefs_xscan_ops *ops, void *priv)
{
	struct scan_ctx c = { fs, ino, le32_to_cpu(inode->i_generation), ops, priv, 0, NULL, 0, 0 };
	struct stalefs_xnode root;
	int ret;

	memset(&root, 0, sizeof(root));
	root.hi = STALEFS_MAX_FILE_BLOCKS + 1;
	root.cap = STALEFS_ROOT_EXTENTS;
	root.expect_depth = -1;
	fill_header(&root, stalefs_inode_eh(inode));
	root.rule = stalefs_verify_extent_node(&fs->geom, root.eh, root.cap, -1);
	ret = visit(&c, &root);
	free(c.seen);
	return ret ? ret : c.bad_nodes;
}

const char *stalefs_xnode_problem(const struct stalefs_xnode *n)
{
	if (n->err)
		return error_message(n->err);
	if (n->revisit)
		return "tree block is named twice in the tree (not walked again)";
	return n->rule ? stalefs_rule_msg(n->rule) : NULL;
}
