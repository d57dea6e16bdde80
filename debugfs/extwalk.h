/* SPDX-License-Identifier: GPL-2.0 */
/* The forgiving extent tree walker (extwalk.c): every node, with its verdict. */
#ifndef DEBUGFS_EXTWALK_H
#define DEBUGFS_EXTWALK_H

#include "libstalefs.h"

struct xw_node {
	u32 level;		/* 0 = root in the inode */
	u64 block;		/* 0 for the root */
	u32 entries, max, depth, magic;	/* as the header says */
	int rule;		/* verifier rule it breaks (0: fine) */
	errcode_t err;		/* could not be read */
	const char *why;	/* another problem, in words */
};

/* What is wrong with a node, in words; NULL when nothing is. */
const char *xw_node_problem(const struct xw_node *n);

struct xw_entry {
	const struct xw_node *node;
	u32 index;
	bool is_index;
	u32 lblk, len;		/* len 0 for index entries */
	u64 pblk;		/* child node for index entries */
	u16 flags;
};

struct xw_ops {
	int (*node)(const struct xw_node *n, void *priv);	/* nonzero stops */
	int (*entry)(const struct xw_entry *e, void *priv);	/* nonzero stops */
	void (*tree_block)(u64 block, void *priv);		/* each tree block read */
};

/* Returns the number of bad nodes met, or <0 if a callback stopped the walk. */
int xw_walk(u32 ino, const struct stalefs_inode *inode, const struct xw_ops *ops, void *priv);

#endif
