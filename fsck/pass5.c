// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 5: the bitmaps on disk against the computed ones (which the library
 * now holds, including what repairs allocated or freed), reported as one
 * latched list of differences per bitmap; bitmap checksums; then the free
 * block, free inode and directory counts of each group and the totals.
 */
#include <stdio.h>
#include <stdlib.h>
#include "fsck.h"

struct diff_run {
	struct fsck_ctx *ctx;
	int used_code, free_code;
	bool open;
	bool used;		/* the run is of in-use (+) or free (-) differences */
	u64 start, end;		/* [start, end] */
	bool any;
};

static void run_flush(struct diff_run *r)
{
	char buf[64];
	struct problem_ctx p;

	if (!r->open)
		return;
	if (r->start == r->end)
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->start);
	else
		snprintf(buf, sizeof(buf), "(%llu--%llu)", (unsigned long long)r->start,
			 (unsigned long long)r->end);
	memset(&p, 0, sizeof(p));
	p.str = buf;
	fix_problem(r->ctx, r->used ? r->used_code : r->free_code, &p);
	r->open = false;
	r->any = true;
}

static void run_add(struct diff_run *r, u64 n, bool used)
{
	if (r->open && r->used == used && r->end + 1 == n) {
		r->end = n;
		return;
	}
	run_flush(r);
	r->open = true;
	r->used = used;
	r->start = r->end = n;
}

/*
 * Differences in one group's bitmap: truth (computed) against what the disk
 * says.  Bits a repair changed since the swap (truth differs from snap) are
 * the repair's own doing: written, not reported.
 */
static bool compare_maps(struct diff_run *r, const u8 *truth, const u8 *disk, const u8 *snap, u64 nbits,
			 u64 base)
{
	u64 i;
	bool differ = false;

	if (memcmp(truth, disk, (nbits + 7) / 8) == 0)
		return false;
	for (i = 0; i < nbits; i++) {
		bool t = bit_test(truth, i), d = bit_test(disk, i);

		if (snap && bit_test(snap, i) != t)
			continue;
		if (t != d) {
			run_add(r, base + i, t);
			differ = true;
		}
	}
	return differ;
}

static void check_block_bitmaps(struct fsck_ctx *ctx, bool *differs)
{
	stalefs_fs *fs = ctx->fs;
	const struct stalefs_geom *g = &fs->geom;
	struct diff_run r = { ctx, PR_5_BBITMAP_USED, PR_5_BBITMAP_FREE, false, false, 0, 0, false };
	u8 *tmp_t = malloc(bb_bytes(ctx)), *tmp_d = malloc(bb_bytes(ctx)), *tmp_s = malloc(bb_bytes(ctx));
	u32 grp;

	for (grp = 0; grp < g->groups_count; grp++) {
		struct group_info *gi = &ctx->groups[grp];
		const u8 *truth = fs->groups[grp].block_bitmap, *disk = gi->orig_bb, *snap = gi->snap_bb;

		fsck_check_cancel(ctx);
		if (!truth && !gi->orig_bb_loaded)
			continue;	/* uninitialised and owning nothing: both are the metadata */
		if (!truth) {
			group_meta_bitmap(ctx, grp, tmp_t);
			truth = tmp_t;
		}
		if (!gi->orig_bb_loaded) {
			group_meta_bitmap(ctx, grp, tmp_d);
			disk = tmp_d;
		}
		if (gi->snap_taken && !snap) {
			group_meta_bitmap(ctx, grp, tmp_s);
			snap = tmp_s;
		}
		differs[grp] = compare_maps(&r, truth, disk, snap, stalefs_group_nblocks(g, grp),
					    stalefs_group_first_block(g, grp));
	}
	run_flush(&r);
	free(tmp_t);
	free(tmp_d);
	free(tmp_s);
}

static void check_inode_bitmaps(struct fsck_ctx *ctx, bool *differs)
{
	stalefs_fs *fs = ctx->fs;
	const struct stalefs_geom *g = &fs->geom;
	struct diff_run r = { ctx, PR_5_IBITMAP_USED, PR_5_IBITMAP_FREE, false, false, 0, 0, false };
	u8 *tmp_t = malloc(ib_bytes(ctx)), *tmp_d = malloc(ib_bytes(ctx)), *tmp_s = malloc(ib_bytes(ctx));
	u32 grp;

	for (grp = 0; grp < g->groups_count; grp++) {
		struct group_info *gi = &ctx->groups[grp];
		const u8 *truth = fs->groups[grp].inode_bitmap, *disk = gi->orig_ib, *snap = gi->snap_ib;

		if (!truth && !gi->orig_ib_loaded)
			continue;
		if (!truth) {
			inode_pad_bitmap(ctx, tmp_t);
			truth = tmp_t;
		}
		if (!gi->orig_ib_loaded) {
			inode_pad_bitmap(ctx, tmp_d);
			disk = tmp_d;
		}
		if (gi->snap_taken && !snap) {
			inode_pad_bitmap(ctx, tmp_s);
			snap = tmp_s;
		}
		differs[grp] = compare_maps(&r, truth, disk, snap, g->inodes_per_group,
					    (u64)grp * g->inodes_per_group + 1);
	}
	run_flush(&r);
	free(tmp_t);
	free(tmp_d);
	free(tmp_s);
}

static u32 count_zero_bits(const u8 *map, u64 nbits)
{
	u64 i;
	u32 n = 0;

	for (i = 0; i + 64 <= nbits; i += 64) {
		u64 w;

		memcpy(&w, map + i / 8, 8);
		n += 64 - (u32)__builtin_popcountll(w);
	}
	for (; i < nbits; i++)
		n += !bit_test(map, i);
	return n;
}

static void check_counts(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	const struct stalefs_geom *g = &fs->geom;
	u64 total_blocks = 0;
	u32 total_inodes = 0, grp, i;
	struct problem_ctx p;

	for (grp = 0; grp < g->groups_count; grp++) {
		struct stalefs_group *sg = &fs->groups[grp];
		struct group_info *gi = &ctx->groups[grp];
		struct stalefs_group_desc *d = &sg->desc;
		u32 fb, fi, dirs = 0;

		fb = sg->block_bitmap ? count_zero_bits(sg->block_bitmap, stalefs_group_nblocks(g, grp))
				      : stalefs_group_nblocks(g, grp) - stalefs_group_meta_blocks(g, grp);
		fi = sg->inode_bitmap ? count_zero_bits(sg->inode_bitmap, g->inodes_per_group) : g->inodes_per_group;
		if (gi->ft)
			for (i = 0; i < g->inodes_per_group; i++)
				dirs += gi->ft[i] == STALEFS_FT_DIR;
		memset(&p, 0, sizeof(p));
		p.group = grp;
		if (le32_to_cpu(d->bg_free_blocks_count) != fb) {
			p.num = le32_to_cpu(d->bg_free_blocks_count);
			p.num2 = fb;
			if (fix_problem(ctx, PR_5_GROUP_FREE_BLOCKS, &p)) {
				d->bg_free_blocks_count = cpu_to_le32(fb);
				stalefs_mark_desc_dirty(fs, grp);
			}
		}
		if (le32_to_cpu(d->bg_free_inodes_count) != fi) {
			p.num = le32_to_cpu(d->bg_free_inodes_count);
			p.num2 = fi;
			if (fix_problem(ctx, PR_5_GROUP_FREE_INODES, &p)) {
				d->bg_free_inodes_count = cpu_to_le32(fi);
				stalefs_mark_desc_dirty(fs, grp);
			}
		}
		if (le32_to_cpu(d->bg_used_dirs_count) != dirs) {
			p.num = le32_to_cpu(d->bg_used_dirs_count);
			p.num2 = dirs;
			if (fix_problem(ctx, PR_5_GROUP_DIRS, &p)) {
				d->bg_used_dirs_count = cpu_to_le32(dirs);
				stalefs_mark_desc_dirty(fs, grp);
			}
		}
		/* Orphans were finished before pass 1: what is left flagged is all a group may count. */
		if (le32_to_cpu(d->bg_orphan_count) != gi->orphans) {
			p.num = le32_to_cpu(d->bg_orphan_count);
			p.num2 = gi->orphans;
			if (fix_problem(ctx, PR_5_GROUP_ORPHANS, &p)) {
				d->bg_orphan_count = cpu_to_le32(gi->orphans);
				stalefs_mark_desc_dirty(fs, grp);
			}
		}
		/* S6: the count is what lets a run that skips the full check audit cheaply. */
		if (le32_to_cpu(d->bg_stale_count) != gi->stale) {
			p.num = le32_to_cpu(d->bg_stale_count);
			p.num2 = gi->stale;
			if (fix_problem(ctx, PR_5_GROUP_STALE, &p)) {
				d->bg_stale_count = cpu_to_le32(gi->stale);
				stalefs_mark_desc_dirty(fs, grp);
			}
		}
		total_blocks += fb;
		total_inodes += fi;
	}
	/* With a journal these lag after a crash: PR_JOURNAL_LAZY in the table says what then. */
	memset(&p, 0, sizeof(p));
	if (le64_to_cpu(fs->sb.s_free_blocks_count) != total_blocks) {
		p.num = le64_to_cpu(fs->sb.s_free_blocks_count);
		p.num2 = total_blocks;
		if (fix_problem(ctx, PR_5_FREE_BLOCKS, &p)) {
			fs->sb.s_free_blocks_count = cpu_to_le64(total_blocks);
			stalefs_mark_super_dirty(fs);
		}
	}
	if (le32_to_cpu(fs->sb.s_free_inodes_count) != total_inodes) {
		p.num = le32_to_cpu(fs->sb.s_free_inodes_count);
		p.num2 = total_inodes;
		if (fix_problem(ctx, PR_5_FREE_INODES, &p)) {
			fs->sb.s_free_inodes_count = cpu_to_le32(total_inodes);
			stalefs_mark_super_dirty(fs);
		}
	}
	ctx->free_blocks_counted = total_blocks;
	ctx->free_inodes_counted = total_inodes;
}

void pass5(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	u32 ngroups = fs->geom.groups_count, grp;
	bool *bdiff = calloc(ngroups, sizeof(bool)), *idiff = calloc(ngroups, sizeof(bool));
	struct problem_ctx p;

	if (!bdiff || !idiff)
		fsck_fatal(ctx, STALEFS_ERR_NO_MEMORY, "while comparing bitmaps");
	pass_header(ctx, PR_5_PASS_HEADER);
	check_block_bitmaps(ctx, bdiff);
	if (end_latch(ctx, LATCH_BBITMAP)) {
		for (grp = 0; grp < ngroups; grp++)
			if (bdiff[grp]) {
				/* the library makes an uninitialised group's map up: give it a real one */
				if (!fs->groups[grp].block_bitmap)
					stalefs_mark_block(fs, stalefs_group_first_block(&fs->geom, grp));
				fs->groups[grp].bb_dirty = true;
			}
	}
	check_inode_bitmaps(ctx, idiff);
	if (end_latch(ctx, LATCH_IBITMAP)) {
		for (grp = 0; grp < ngroups; grp++)
			if (idiff[grp]) {
				if (!fs->groups[grp].inode_bitmap)
					stalefs_test_inode(fs, grp * fs->geom.inodes_per_group + 1);
				fs->groups[grp].ib_dirty = true;
			}
	}
	memset(&p, 0, sizeof(p));
	for (grp = 0; grp < ngroups; grp++) {
		struct stalefs_group *sg = &fs->groups[grp];

		p.group = grp;
		if (!bdiff[grp] && sg->bb_bad_csum && ctx->groups[grp].orig_bb_loaded) {
			if (fix_problem(ctx, PR_5_BB_CSUM, &p))
				sg->bb_dirty = true;
		}
		if (!idiff[grp] && sg->ib_bad_csum && ctx->groups[grp].orig_ib_loaded) {
			if (fix_problem(ctx, PR_5_IB_CSUM, &p))
				sg->ib_dirty = true;
		}
	}
	check_counts(ctx);
	free(bdiff);
	free(idiff);
}
