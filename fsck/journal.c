// SPDX-License-Identifier: GPL-2.0
/*
 * The journal (FORMAT.md 12), dealt with before anything else is checked,
 * as e2fsck does:
 *
 *   - the superblock's journal fields against has_journal and needs_recovery;
 *   - where the journal is: one run inside one group's data blocks, clear of
 *     that group's bitmaps and inode table;
 *   - its jbd2 superblock, by the library's verifier: a corrupt one is made
 *     new (what the log held is lost, which the question says), one with
 *     features this tool does not know makes the journal unusable;
 *   - replay: with needs_recovery and a log, -y and -p write the committed
 *     transactions in place; -n replays them into the I/O layer's in-memory
 *     overlay, so that the check sees the filesystem as it will be after
 *     recovery while the device stays exactly as it is.  A log that cannot
 *     be replayed is a problem whose answer says what is lost;
 *   - an abort the kernel recorded in the journal superblock (s_errno).
 *
 * Replaying is not a repair (the kernel's mount does the same), so it does
 * not count as a change in the exit status, as with e2fsck.  An unusable
 * journal is cleared (has_journal goes, its blocks are freed once the
 * bitmaps are read); after the passes a new one of the default size is made
 * where there is room (journal_recreate).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck.h"

static bool has_journal(const stalefs_fs *fs)
{
	return le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
}

static bool needs_recovery(const stalefs_fs *fs)
{
	return le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER;
}

void fsck_use_overlay(struct fsck_ctx *ctx)
{
	errcode_t err;

	if (!(ctx->options & OPT_READONLY) || stalefs_io_is_overlay(ctx->fs->io))
		return;
	err = stalefs_set_overlay(ctx->fs);
	if (err)
		fsck_fatal(ctx, err, "while keeping changes in memory (-n)");
}

/* What recovery and repairs wrote goes to the device now: a later halt (preen, ^C) keeps it. */
static void write_out(struct fsck_ctx *ctx)
{
	errcode_t err;

	if (ctx->options & OPT_READONLY)
		return;
	err = stalefs_io_flush(ctx->fs->io);
	if (err)
		fsck_library_error(ctx, err, "while writing the journal's changes");
}

/* A journal of this filesystem at [start, start+len)?  (has_journal lost, the rest intact.) */
static bool journal_present(struct fsck_ctx *ctx, u64 start, u32 len)
{
	stalefs_fs *fs = ctx->fs;
	u8 *buf;
	bool ok;

	if (!stalefs_journal_range_ok(&fs->geom, start, len))
		return false;
	buf = malloc(fs->block_size);
	if (!buf)
		fsck_fatal(ctx, STALEFS_ERR_NO_MEMORY, "while reading the journal superblock");
	ok = stalefs_io_read(fs->io, start, 1, buf) == 0 &&
	     stalefs_jsb_verify((const struct stalefs_jbd2_super *)buf, &fs->sb) == 0;
	free(buf);
	return ok;
}

/* The superblock's journal fields against has_journal and needs_recovery (FORMAT.md 2, 3). */
static void check_fields(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_super_block *sb = &fs->sb;
	u64 start = le64_to_cpu(sb->s_journal_block);
	u32 len = le32_to_cpu(sb->s_journal_blocks), pad = le32_to_cpu(sb->s_journal_pad);
	struct problem_ctx p;

	memset(&p, 0, sizeof(p));
	p.blk = start;
	p.num = len;
	if (!has_journal(fs) && (start || len || pad)) {
		ctx->force_check = true;
		if (pad == 0 && journal_present(ctx, start, len)) {
			/* Only the bit is gone: the journal is there, sound and this filesystem's. */
			if (fix_problem(ctx, PR_0_JOURNAL_FEATURE_LOST, &p)) {
				sb->s_feature_compat = cpu_to_le32(le32_to_cpu(sb->s_feature_compat) |
								   STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
				stalefs_mark_super_dirty(fs);
			}
		} else if (fix_problem(ctx, PR_0_JOURNAL_FIELDS_NO_FEATURE, &p)) {
			sb->s_journal_block = 0;
			sb->s_journal_blocks = 0;
			sb->s_journal_pad = 0;
			stalefs_mark_super_dirty(fs);
		}
	}
	if (needs_recovery(fs) && !has_journal(fs)) {
		ctx->force_check = true;
		if (fix_problem(ctx, PR_0_JOURNAL_RECOVER_NO_JOURNAL, &p))
			stalefs_journal_clear_recover(fs);
	}
	if (has_journal(fs) && pad) {
		p.num = pad;
		if (fix_problem(ctx, PR_0_JOURNAL_PAD, &p)) {
			sb->s_journal_pad = 0;
			stalefs_mark_super_dirty(fs);
		}
	}
}

static bool overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

/* Where the group's metadata is: the descriptor's place when it is inside the group, else
 * mkfs' (where pass 0 puts a pointer that is not). */
static u64 meta_place(const struct stalefs_geom *g, u32 group, u64 recorded, u64 len, u64 dflt)
{
	u64 first = stalefs_group_first_block(g, group) + stalefs_group_super_blocks(g, group);
	u64 end = stalefs_group_first_block(g, group) + stalefs_group_nblocks(g, group);

	return recorded >= first && recorded + len <= end && recorded + len > recorded ? recorded : dflt;
}

struct meta_run {
	const char *what;
	u64 at, len;
};

/* Why the recorded run cannot be the journal (into why), or false when it can. */
static bool location_bad(struct fsck_ctx *ctx, char *why, size_t n)
{
	stalefs_fs *fs = ctx->fs;
	const struct stalefs_geom *g = &fs->geom;
	u64 start = le64_to_cpu(fs->sb.s_journal_block), dbb, dib, dit;
	u32 len = le32_to_cpu(fs->sb.s_journal_blocks), group;
	const struct stalefs_group_desc *d;
	struct meta_run meta[3];
	size_t i;

	if (!stalefs_journal_range_ok(g, start, len)) {
		snprintf(why, n, "is not one run of at least %u blocks inside one group's data blocks",
			 STALEFS_JOURNAL_MIN_BLOCKS);
		return true;
	}
	group = stalefs_block_group(g, start);
	d = &fs->groups[group].desc;
	stalefs_group_default_layout(g, group, &dbb, &dib, &dit);
	meta[0] = (struct meta_run){ "block bitmap",
		meta_place(g, group, le64_to_cpu(d->bg_block_bitmap), g->block_bitmap_blocks, dbb),
		g->block_bitmap_blocks };
	meta[1] = (struct meta_run){ "inode bitmap",
		meta_place(g, group, le64_to_cpu(d->bg_inode_bitmap), g->inode_bitmap_blocks, dib),
		g->inode_bitmap_blocks };
	meta[2] = (struct meta_run){ "inode table",
		meta_place(g, group, le64_to_cpu(d->bg_inode_table), g->inode_table_blocks, dit),
		g->inode_table_blocks };
	for (i = 0; i < 3; i++) {
		if (overlaps(start, len, meta[i].at, meta[i].len)) {
			snprintf(why, n, "overlaps the %s of group %u (block %llu)", meta[i].what, group,
				 (unsigned long long)meta[i].at);
			return true;
		}
	}
	return false;
}

/*
 * Give an unusable journal up: has_journal and needs_recovery go, and its blocks (when they
 * are the journal's own run) are freed once the bitmaps are read.  A new journal is made
 * after the passes.
 */
static void clear_journal(struct fsck_ctx *ctx, bool free_blocks)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_super_block *sb = &fs->sb;

	if (free_blocks) {
		ctx->journal_free_pending = true;
		ctx->journal_free_start = le64_to_cpu(sb->s_journal_block);
		ctx->journal_free_len = le32_to_cpu(sb->s_journal_blocks);
	}
	sb->s_feature_compat = cpu_to_le32(le32_to_cpu(sb->s_feature_compat) & ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	sb->s_journal_block = 0;
	sb->s_journal_blocks = 0;
	sb->s_journal_pad = 0;
	stalefs_journal_clear_recover(fs);
	ctx->journal_ok = false;
	ctx->journal_cleared = true;
}

/* " (and what is lost)" for a journal given up while the filesystem needs recovery. */
static const char *loss(const stalefs_fs *fs)
{
	return needs_recovery(fs) ? ", and the changes it holds that are not yet in place are lost" : "";
}

/* The jbd2 superblock; true when it is sound (the journal can be replayed and used). */
static bool check_jsb(struct fsck_ctx *ctx, struct stalefs_jbd2_super *jsb)
{
	stalefs_fs *fs = ctx->fs;
	struct problem_ctx p;
	char why[256];
	errcode_t err = stalefs_journal_read_super(fs, jsb);
	int rule = err ? -1 : stalefs_jsb_verify(jsb, &fs->sb);

	if (!rule)
		return true;
	ctx->force_check = true;
	memset(&p, 0, sizeof(p));
	if (rule == STALEFS_JSB_FEATURES_UNKNOWN) {
		snprintf(why, sizeof(why), "it has features this fsck.stalefs does not know (compat 0x%x, "
			 "incompat 0x%x, ro_compat 0x%x)%s", be32toh(jsb->s_feature_compat),
			 be32toh(jsb->s_feature_incompat), be32toh(jsb->s_feature_ro_compat), loss(fs));
		p.str = why;
		if (fix_problem(ctx, PR_0_JOURNAL_UNSUPP, &p))
			clear_journal(ctx, true);
		else if (needs_recovery(fs))
			ctx->recovery_left = true;
		return false;
	}
	p.str = err ? error_message(err) : stalefs_jsb_rule_msg(rule);
	if (fix_problem(ctx, needs_recovery(fs) ? PR_0_JOURNAL_BAD_SUPER_RECOVER : PR_0_JOURNAL_BAD_SUPER, &p)) {
		err = stalefs_journal_reset(fs);
		if (err)
			fsck_library_error(ctx, err, "while writing a new journal superblock");
		write_out(ctx);
	} else if (needs_recovery(fs)) {
		ctx->recovery_left = true;
	}
	return false;
}

/* Drop what the log holds (zeroed, marked empty, needs_recovery cleared). */
static void discard(struct fsck_ctx *ctx)
{
	errcode_t err = stalefs_journal_discard(ctx->fs);

	if (err)
		fsck_library_error(ctx, err, "while clearing the journal");
	write_out(ctx);
}

static void replay(struct fsck_ctx *ctx, const struct stalefs_jbd2_super *jsb)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_journal_recovery r;
	struct problem_ctx p;
	errcode_t err;

	memset(&p, 0, sizeof(p));
	if (!jsb->s_start) {
		/* needs_recovery over an empty log (a crash as it was being cleared): nothing is
		 * lost or wrong, so the bit just goes, quietly, as e2fsck does. */
		if (needs_recovery(fs) && !(ctx->options & OPT_READONLY))
			stalefs_journal_clear_recover(fs);
		return;
	}
	ctx->force_check = true;
	if (!needs_recovery(fs)) {
		/* Transactions nobody asked to replay: jbd2 would replay them at the next mount. */
		p.num = be32toh(jsb->s_start);
		if (!fix_problem(ctx, PR_0_JOURNAL_DATA_NO_RECOVER, &p)) {
			if (fix_problem(ctx, PR_0_JOURNAL_CLEAR_DATA, &p))
				discard(ctx);
			return;
		}
	}
	if (ctx->options & OPT_READONLY) {
		fsck_use_overlay(ctx);
		printf("%s: recovering journal in memory only (-n: the device is not written)\n", ctx->name);
	} else {
		printf("%s: recovering journal\n", ctx->name);
	}
	err = stalefs_journal_recover(fs, &r);
	/* A resize's transaction held the superblock: it may name another journal now (a shrink moves
	 * it), and another size (the library took its geometry). */
	if (!err && r.super_replayed && has_journal(fs)) {
		ctx->journal_start = le64_to_cpu(fs->sb.s_journal_block);
		ctx->journal_len = le32_to_cpu(fs->sb.s_journal_blocks);
	}
	if (!err) {
		printf("%s: %u transaction%s replayed, %llu block%s written\n", ctx->name, r.transactions,
		       r.transactions == 1 ? "" : "s", (unsigned long long)r.blocks_replayed,
		       r.blocks_replayed == 1 ? "" : "s");
		write_out(ctx);
		return;
	}
	p.str = r.detail[0] ? r.detail : error_message(err);
	if (err == STALEFS_ERR_JOURNAL_BLOCK_CSUM || err == STALEFS_ERR_JOURNAL_BAD_TARGET) {
		p.num = r.bad_blocks;
		if (fix_problem(ctx, PR_0_JOURNAL_BLOCKS_BAD, &p))
			discard(ctx);
		else
			ctx->recovery_left = true;
		return;
	}
	if (fix_problem(ctx, PR_0_JOURNAL_CORRUPT, &p))
		discard(ctx);
	else
		ctx->recovery_left = true;
}

/* The kernel records a journal abort in s_errno (negated errno); e2fsck clears it after replay. */
static void check_errno(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_jbd2_super jsb;
	struct problem_ctx p;
	s32 e;

	if (stalefs_journal_read_super(fs, &jsb) || stalefs_jsb_verify(&jsb, &fs->sb))
		return;
	e = (s32)be32toh(jsb.s_errno);
	if (!e)
		return;
	ctx->force_check = true;
	memset(&p, 0, sizeof(p));
	p.num = (u64)(e < 0 ? -(s64)e : e);
	p.str = strerror((int)p.num);
	if (fix_problem(ctx, PR_0_JOURNAL_ERRNO, &p)) {
		errcode_t err;

		jsb.s_errno = 0;
		err = stalefs_journal_write_super(fs, &jsb);
		if (err)
			fsck_library_error(ctx, err, "while clearing the journal's error");
		write_out(ctx);
	}
}

void journal_check(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	bool sb_csum_ok = !stalefs_verify_super_csum(&fs->sb);
	struct stalefs_jbd2_super jsb;
	struct problem_ctx p;
	char why[256], msg[384];

	check_fields(ctx);
	if (has_journal(fs)) {
		memset(&p, 0, sizeof(p));
		p.blk = le64_to_cpu(fs->sb.s_journal_block);
		p.num = le32_to_cpu(fs->sb.s_journal_blocks);
		if (location_bad(ctx, why, sizeof(why))) {
			ctx->force_check = true;
			snprintf(msg, sizeof(msg), "%s: it cannot be used%s", why, loss(fs));
			p.str = msg;
			if (fix_problem(ctx, PR_0_JOURNAL_BAD_LOCATION, &p))
				clear_journal(ctx, false);	/* those blocks are not (all) its own */
			else if (needs_recovery(fs))
				ctx->recovery_left = true;
		} else {
			ctx->journal_ok = true;
			ctx->journal_start = p.blk;
			ctx->journal_len = (u32)p.num;
			if (check_jsb(ctx, &jsb))
				replay(ctx, &jsb);
			if (has_journal(fs))
				check_errno(ctx);
		}
	}
	/* The superblock in memory changed (features, fields): a checksum that was right stays so. */
	if (sb_csum_ok)
		stalefs_super_set_csum(&fs->sb);
}

void journal_after_bitmaps(struct fsck_ctx *ctx)
{
	errcode_t err;

	if (!ctx->journal_free_pending)
		return;
	ctx->journal_free_pending = false;
	err = stalefs_free_blocks(ctx->fs, ctx->journal_free_start, ctx->journal_free_len);
	if (err)
		fsck_library_error(ctx, err, "while freeing the cleared journal's blocks");
}

void journal_recreate(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	struct problem_ctx p;
	char why[160];
	u64 start = 0;
	u32 blocks;
	errcode_t err = 0;

	if (!ctx->journal_cleared || (ctx->options & OPT_READONLY) || has_journal(fs))
		return;
	memset(&p, 0, sizeof(p));
	/* Where a journal of the default size would go, before offering one (e2fsck's size too). */
	blocks = stalefs_journal_default_blocks(&fs->geom);
	if (!blocks)
		snprintf(why, sizeof(why), "the filesystem is too small for a journal of the default size");
	else if ((err = stalefs_journal_place(fs, blocks, &start)) == STALEFS_ERR_JOURNAL_NO_ROOM)
		snprintf(why, sizeof(why), "no group has %u free blocks in a row for one", blocks);
	else if (err)
		snprintf(why, sizeof(why), "%s", error_message(err));
	if (!blocks || err) {
		p.str = why;
		fix_problem(ctx, PR_6_JOURNAL_NOT_CREATED, &p);
		return;
	}
	if (!fix_problem(ctx, PR_6_RECREATE_JOURNAL, &p))
		return;
	err = stalefs_journal_create(fs, start, blocks);
	if (err) {
		fsck_library_error(ctx, err, "while recreating the journal");
		return;
	}
	p.num = blocks;
	p.blk = start;
	fix_problem(ctx, PR_6_JOURNAL_CREATED, &p);
	ctx->free_blocks_counted -= blocks;
}
