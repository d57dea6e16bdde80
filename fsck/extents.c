// SPDX-License-Identifier: GPL-2.0
/*
 * The extent tree scanner.  The library's walker stops at the first bad
 * node; a checker has to judge every entry on its own, keep what is sound
 * and say exactly what it drops.  The same walk runs twice for a damaged
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

static void leaf_entry(struct walk *w, const struct stalefs_extent *ex, u64 lo, u64 hi)
{
	struct fsck_ctx *ctx = w->ctx;
	struct extent_scan *s = w->s;
	const struct stalefs_geom *g = &ctx->fs->geom;
	struct stalefs_ext e;
	struct problem_ctx p;
	u16 fix_mask = 0;

	e.lblk = le32_to_cpu(ex->ee_lblk);
	e.len = le16_to_cpu(ex->ee_len);
	e.flags = le16_to_cpu(ex->ee_flags);
	e.pblk = le64_to_cpu(ex->ee_pblk);
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

static bool extblock_ok(struct walk *w, u8 *buf, u64 blk, u32 expect_depth, int *rule)
{
	struct fsck_ctx *ctx = w->ctx;
	const struct stalefs_extent_header *eh = stalefs_extblock_eh(buf);
	u32 max = stalefs_extblock_max_entries(ctx->fs->block_size);

	*rule = stalefs_verify_extblock_header(buf, blk, w->s->ino, le32_to_cpu(w->s->inode->i_generation));
	if (*rule)
		return false;
	if (le16_to_cpu(eh->eh_magic) != STALEFS_EXT_MAGIC)
		*rule = STALEFS_R_EXT_MAGIC;
	else if (le16_to_cpu(eh->eh_max) != max)
		*rule = STALEFS_R_EXT_MAX;
	else if (le16_to_cpu(eh->eh_entries) > max)
		*rule = STALEFS_R_EXT_ENTRIES;
	else if (le16_to_cpu(eh->eh_depth) != expect_depth)
		*rule = STALEFS_R_EXT_DEPTH;
	else if (expect_depth > 0 && le16_to_cpu(eh->eh_entries) == 0)
		*rule = STALEFS_R_EXT_ENTRIES;
	return *rule == 0;
}

static void walk_node(struct walk *w, const struct stalefs_extent_header *eh, u32 depth, u64 lo, u64 hi);

static void index_entries(struct walk *w, const struct stalefs_extent_header *eh, u32 depth, u64 lo, u64 hi)
{
	struct fsck_ctx *ctx = w->ctx;
	struct extent_scan *s = w->s;
	const struct stalefs_extent_idx *ix = stalefs_eh_index(eh);
	u32 n = le16_to_cpu(eh->eh_entries), i;
	u64 prev = 0;
	bool have_prev = false;
	u8 *buf = NULL;

	for (i = 0; i < n; i++) {
		u32 lblk = le32_to_cpu(ix[i].ei_lblk);
		u64 pblk = le64_to_cpu(ix[i].ei_pblk);
		u64 next = hi;
		struct problem_ctx p;
		int rule;
		u32 k;

		fsck_check_cancel(ctx);
		memset(&p, 0, sizeof(p));
		p.ino = s->ino;
		p.lblk = lblk;
		p.blk = pblk;
		for (k = i + 1; k < n; k++)
			if (le32_to_cpu(ix[k].ei_lblk) > lblk) {
				next = le32_to_cpu(ix[k].ei_lblk);
				break;
			}
		if (next > hi)
			next = hi;
		if (ix[i].ei_reserved != 0)
			entry_problem(w, PR_1_EXT_IDX_RESERVED, &p, FIX_STRUCT);
		if (lblk < lo || lblk >= hi || (have_prev && lblk <= prev)) {
			p.num2 = have_prev ? prev : lo;
			entry_problem(w, PR_1_EXT_UNSORTED, &p, FIX_STRUCT);
			continue;
		}
		if (pblk == 0 || pblk >= ctx->fs->geom.blocks_count || block_range_in_meta(ctx, pblk, 1)) {
			entry_problem(w, PR_1_EXT_IDX_BAD, &p, FIX_STRUCT);
			continue;
		}
		if (!buf)
			buf = malloc(ctx->fs->block_size);
		if (!buf || stalefs_read_block(ctx->fs, pblk, buf)) {
			p.rule = STALEFS_R_EXTBLK_MAGIC;
			entry_problem(w, PR_1_EXT_NODE_BAD, &p, FIX_STRUCT);
			continue;
		}
		if (!extblock_ok(w, buf, pblk, depth - 1, &rule)) {
			p.rule = rule;
			entry_problem(w, PR_1_EXT_NODE_BAD, &p, FIX_STRUCT);
			continue;
		}
		if (stalefs_verify_extblock_csum(ctx->fs->seed, buf, ctx->fs->block_size))
			entry_problem(w, PR_1_EXT_NODE_CSUM, &p, FIX_STRUCT);
		prev = lblk;
		have_prev = true;
		if (s->node)
			s->node(ctx, s, pblk);
		walk_node(w, stalefs_extblock_eh(buf), depth - 1, lblk, next);
	}
	free(buf);
}

static void walk_node(struct walk *w, const struct stalefs_extent_header *eh, u32 depth, u64 lo, u64 hi)
{
	u32 n = le16_to_cpu(eh->eh_entries), i;

	if (depth + 1 > w->s->depth)
		w->s->depth = depth + 1;
	if (depth > 0) {
		index_entries(w, eh, depth, lo, hi);
		return;
	}
	for (i = 0; i < n; i++)
		leaf_entry(w, &stalefs_eh_extents(eh)[i], lo, hi);
}

void scan_extents(struct fsck_ctx *ctx, struct extent_scan *s)
{
	const struct stalefs_extent_header *eh = stalefs_inode_eh(s->inode);
	struct walk w;
	int rule = 0;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	w.s = s;
	s->fixes = 0;
	s->declined = false;
	s->root_bad = false;
	s->clear_inode = false;
	s->depth = 0;
	if (le16_to_cpu(eh->eh_magic) != STALEFS_EXT_MAGIC)
		rule = STALEFS_R_EXT_MAGIC;
	else if (le16_to_cpu(eh->eh_max) != STALEFS_ROOT_EXTENTS)
		rule = STALEFS_R_EXT_MAX;
	else if (le16_to_cpu(eh->eh_entries) > STALEFS_ROOT_EXTENTS)
		rule = STALEFS_R_EXT_ENTRIES;
	else if (le16_to_cpu(eh->eh_depth) > STALEFS_EXT_MAX_DEPTH)
		rule = STALEFS_R_EXT_DEPTH;
	else if (le16_to_cpu(eh->eh_depth) > 0 && le16_to_cpu(eh->eh_entries) == 0)
		rule = STALEFS_R_EXT_ENTRIES;
	if (rule) {
		s->root_bad = true;
		if (s->report) {
			struct problem_ctx p;

			memset(&p, 0, sizeof(p));
			p.ino = s->ino;
			p.rule = rule;
			s->clear_inode = fix_problem(ctx, PR_1_EXT_ROOT_BAD, &p);
			if (!s->clear_inode)
				s->declined = true;
		}
		return;
	}
	walk_node(&w, eh, le16_to_cpu(eh->eh_depth), 0, STALEFS_MAX_FILE_BLOCKS + 1);
}
