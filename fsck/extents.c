// SPDX-License-Identifier: GPL-2.0
/*
 * The checker's policy over the library's tolerant scan (stalefs_extent_scan):
 * a checker has to judge every entry on its own, keep what is sound and say
 * exactly what it drops.  The same walk runs twice for a damaged
 * inode: in pass 1 it reports and asks (report = true), after the maps are
 * swapped it runs silently with the accepted fixes to produce the list the
 * tree is rebuilt from.  Both runs decide identically, so what pass 1
 * claimed is exactly what the rebuilt tree holds.
 */
#include <stdlib.h>
#include "fsck.h"

struct walk {
	struct fsck_ctx *ctx;
	struct extent_scan *s;
	u64 prev_end;		/* end of the last extent kept, in walk order */
	u32 asked;		/* FIX_* already asked about for this inode */
	u8 answers;		/* ... and their answers */
	/* per level: the start of the last index entry kept (entries must rise) */
	u64 prev[STALEFS_EXT_MAX_DEPTH + 1];
	bool have_prev[STALEFS_EXT_MAX_DEPTH + 1];
};

static bool is_reg(const struct stalefs_inode *inode)
{
	return (le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFREG;
}

static bool is_dir(const struct stalefs_inode *inode)
{
	return (le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
}

u16 extent_fixed_flags(struct fsck_ctx *ctx, const struct stalefs_inode *inode, u16 flags, u8 fixes)
{
	if (fixes & FIX_FLAGS)
		flags &= STALEFS_EXT_FLAGS_ALL;
	if ((fixes & FIX_S1) && (flags & STALEFS_EXT_STALE) && (flags & STALEFS_EXT_UNWRITTEN))
		flags &= (u16)~STALEFS_EXT_STALE;
	/* A directory's blocks are its own checksummed entries: nothing foreign to hide. */
	if ((fixes & FIX_S2) && (flags & STALEFS_EXT_STALE) && !is_reg(inode))
		flags = is_dir(inode) ? (u16)(flags & ~STALEFS_EXT_STALE)
				      : (u16)((flags & ~STALEFS_EXT_STALE) | STALEFS_EXT_UNWRITTEN);
	if ((fixes & FIX_S3) && (flags & STALEFS_EXT_STALE) && ctx->stale_gid == STALEFS_STALE_GID_NONE)
		flags = (u16)((flags & ~STALEFS_EXT_STALE) | STALEFS_EXT_UNWRITTEN);
	if ((fixes & FIX_HIDE) && (flags & STALEFS_EXT_STALE))
		flags = (u16)((flags & ~STALEFS_EXT_STALE) | STALEFS_EXT_UNWRITTEN);
	return flags;
}

/*
 * A problem with one entry.  Reporting: ask (once per kind and inode for the
 * flag fixes), record the answer.  Silent: the answer is what was accepted.
 */
static bool entry_problem(struct walk *w, int code, struct problem_ctx *p, u8 fix)
{
	struct extent_scan *s = w->s;
	bool ans;

	if (!s->report)
		return (s->accepted & fix) != 0;
	if (fix != FIX_STRUCT && (w->asked & fix))
		return (w->answers & fix) != 0;
	ans = fix_problem(w->ctx, code, p);
	w->asked |= fix;
	if (ans) {
		w->answers |= fix;
		s->fixes |= fix;
	} else {
		s->declined = true;
	}
	return ans;
}

static void leaf_entry(struct walk *w, const struct stalefs_xentry *x, u64 lo, u64 hi)
{
	struct fsck_ctx *ctx = w->ctx;
	struct extent_scan *s = w->s;
	const struct stalefs_geom *g = &ctx->fs->geom;
	struct stalefs_ext e = { .lblk = x->lblk, .len = x->len, .pblk = x->pblk, .flags = x->flags };
	struct problem_ctx p;
	u16 fix_mask = 0;

	memset(&p, 0, sizeof(p));
	p.ino = s->ino;
	p.lblk = e.lblk;
	p.blk = e.pblk;
	p.num = e.len;
	/* Entries that cannot be kept: dropped (the blocks are not claimed). */
	if (e.len == 0 || e.len > STALEFS_EXT_MAX_LEN) {
		entry_problem(w, PR_1_EXT_LEN, &p, FIX_STRUCT);
		return;
	}
	if ((u64)e.lblk + e.len > STALEFS_MAX_FILE_BLOCKS) {
		entry_problem(w, PR_1_EXT_LBLK_RANGE, &p, FIX_STRUCT);
		return;
	}
	if (e.pblk == 0 || e.pblk >= g->blocks_count || e.pblk + e.len > g->blocks_count) {
		entry_problem(w, PR_1_EXT_RANGE, &p, FIX_STRUCT);
		return;
	}
	if (block_range_in_meta(ctx, e.pblk, e.len)) {
		entry_problem(w, PR_1_EXT_META, &p, FIX_STRUCT);
		return;
	}
	if (e.lblk < lo || (u64)e.lblk + e.len > hi || (u64)e.lblk + e.len <= w->prev_end) {
		p.num2 = w->prev_end;
		entry_problem(w, PR_1_EXT_UNSORTED, &p, FIX_STRUCT);
		return;
	}
	if (e.lblk < w->prev_end) {
		p.num2 = w->prev_end;
		entry_problem(w, PR_1_EXT_OVERLAP, &p, FIX_STRUCT);
		return;
	}
	/* Flag problems: the extent stays, its flags are corrected. */
	if (e.flags & ~STALEFS_EXT_FLAGS_ALL) {
		p.num = e.flags;
		if (entry_problem(w, PR_1_EXT_FLAGS_UNKNOWN, &p, FIX_FLAGS))
			fix_mask |= FIX_FLAGS;
		p.num = e.len;
	}
	if ((e.flags & STALEFS_EXT_STALE) && (e.flags & STALEFS_EXT_UNWRITTEN)) {
		if (entry_problem(w, PR_1_S1_BOTH, &p, FIX_S1))
			fix_mask |= FIX_S1;
	} else if ((e.flags & STALEFS_EXT_STALE) && !is_reg(s->inode)) {
		p.str = is_dir(s->inode) ? "directory" : "symlink";
		if (entry_problem(w, PR_1_S2_NOT_REG, &p, FIX_S2))
			fix_mask |= FIX_S2;
	} else if ((e.flags & STALEFS_EXT_STALE) && ctx->stale_gid == STALEFS_STALE_GID_NONE) {
		if (entry_problem(w, PR_1_S3_NO_FEATURE, &p, FIX_S3))
			fix_mask |= FIX_S3;
	}
	e.flags = extent_fixed_flags(ctx, s->inode, e.flags, (u8)(fix_mask | (s->report ? 0 : s->accepted)));
	/* Both flags still set (the fix was declined): do not count it as exposed. */
	w->prev_end = (u64)e.lblk + e.len;
	if (s->extent)
		s->extent(ctx, s, &e);
}

/* An index entry: judged before the scan reads the child it names. */
static int index_entry(struct walk *w, const struct stalefs_xentry *x)
{
	struct fsck_ctx *ctx = w->ctx;
	const struct stalefs_xnode *n = x->node;
	struct problem_ctx p;

	fsck_check_cancel(ctx);
	if (x->index == 0)
		w->have_prev[n->level] = false;
	memset(&p, 0, sizeof(p));
	p.ino = w->s->ino;
	p.lblk = x->lblk;
	p.blk = x->pblk;
	if (x->reserved != 0)
		entry_problem(w, PR_1_EXT_IDX_RESERVED, &p, FIX_STRUCT);
	if (x->lblk < n->lo || x->lblk >= n->hi || (w->have_prev[n->level] && x->lblk <= w->prev[n->level])) {
		p.num2 = w->have_prev[n->level] ? w->prev[n->level] : n->lo;
		entry_problem(w, PR_1_EXT_UNSORTED, &p, FIX_STRUCT);
		return STALEFS_XSCAN_SKIP;
	}
	if (x->pblk == 0 || x->pblk >= ctx->fs->geom.blocks_count || block_range_in_meta(ctx, x->pblk, 1)) {
		entry_problem(w, PR_1_EXT_IDX_BAD, &p, FIX_STRUCT);
		return STALEFS_XSCAN_SKIP;
	}
	return 0;
}

static int scan_entry(stalefs_fs *fs, const struct stalefs_xentry *x, void *priv)
{
	struct walk *w = priv;

	(void)fs;
	if (x->is_index)
		return index_entry(w, x);
	leaf_entry(w, x, x->node->lo, x->node->hi);
	return 0;
}

/* The root: unusable as a whole, or a tree to walk. */
static int root_node(struct walk *w, const struct stalefs_xnode *n)
{
	struct extent_scan *s = w->s;
	struct problem_ctx p;

	if (!n->header_rule)
		return 0;
	s->root_bad = true;
	if (s->report) {
		memset(&p, 0, sizeof(p));
		p.ino = s->ino;
		p.rule = n->header_rule;
		s->clear_inode = fix_problem(w->ctx, PR_1_EXT_ROOT_BAD, &p);
		if (!s->clear_inode)
			s->declined = true;
	}
	return STALEFS_XSCAN_SKIP;
}

/* A tree block an accepted index entry names: kept, or dropped with its subtree. */
static int child_node(struct walk *w, const struct stalefs_xnode *n)
{
	struct extent_scan *s = w->s;
	struct problem_ctx p;
	int rule = n->block_rule ? n->block_rule : n->header_rule;

	memset(&p, 0, sizeof(p));
	p.ino = s->ino;
	p.lblk = (u32)n->lo;
	p.blk = n->block;
	if (n->revisit) {
		entry_problem(w, PR_1_EXT_NODE_TWICE, &p, FIX_STRUCT);
		return STALEFS_XSCAN_SKIP;
	}
	if (n->err || rule) {
		p.rule = n->err ? STALEFS_R_EXTBLK_MAGIC : rule;
		entry_problem(w, PR_1_EXT_NODE_BAD, &p, FIX_STRUCT);
		return STALEFS_XSCAN_SKIP;
	}
	if (n->csum_bad)
		entry_problem(w, PR_1_EXT_NODE_CSUM, &p, FIX_STRUCT);
	w->prev[n->level - 1] = n->lo;
	w->have_prev[n->level - 1] = true;
	if (s->node)
		s->node(w->ctx, s, n->block);
	return 0;
}

static int scan_node(stalefs_fs *fs, const struct stalefs_xnode *n, void *priv)
{
	struct walk *w = priv;
	int ret;

	(void)fs;
	ret = n->level == 0 ? root_node(w, n) : child_node(w, n);
	if (!ret && n->depth + 1 > w->s->depth)
		w->s->depth = n->depth + 1;
	return ret;
}

void scan_extents(struct fsck_ctx *ctx, struct extent_scan *s)
{
	static const struct stalefs_xscan_ops ops = { .node = scan_node, .entry = scan_entry };
	struct walk w;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.s = s;
	s->fixes = 0;
	s->declined = false;
	s->root_bad = false;
	s->clear_inode = false;
	s->depth = 0;
	stalefs_extent_scan(ctx->fs, s->ino, s->inode, &ops, &w);
}
