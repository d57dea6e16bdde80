// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 0: open the filesystem (falling back to a backup superblock when the
 * primary is unusable, as e2fsck does), then check the superblock fields and
 * every group descriptor: checksums, where the bitmaps and inode tables are,
 * flags; then the unused-inode marks (itable_mark.c).  Free counts are left
 * to pass 5, which counts them from the computed maps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "fsck.h"

static int open_flags(struct fsck_ctx *ctx)
{
	int flags = STALEFS_OPEN_IGNORE_CSUM | STALEFS_OPEN_FORCE | STALEFS_OPEN_NO_BITMAPS;

	/* A journal that needs recovery is replayed first (journal.c). */
	if (!(ctx->options & OPT_READONLY))
		flags |= STALEFS_OPEN_RW | STALEFS_OPEN_EXCLUSIVE | STALEFS_OPEN_JOURNAL;
	return flags;
}

/* Look for a sound backup superblock: group 1 of each plausible geometry. */
static errcode_t open_backup(struct fsck_ctx *ctx, stalefs_fs **ret, u64 *where)
{
	static const u32 sizes[] = { 4096, 1024, 2048 };
	u32 i, log;

	for (i = 0; i < 3; i++) {
		u32 bs = sizes[i];
		u64 first = 8ULL * bs;

		/* mkfs' usual blocks-per-group first, then every other power of two. */
		for (log = 0; log <= STALEFS_MAX_LOG_GROUP + 1; log++) {
			u64 bpg = log == 0 ? first : 1ULL << (log - 1);
			stalefs_fs *fs;

			if (bpg < STALEFS_MIN_BLOCKS_PER_GROUP || bpg > (1ULL << STALEFS_MAX_LOG_GROUP) ||
			    (log > 0 && bpg == first))
				continue;
			if (stalefs_open(ctx->device, open_flags(ctx), bpg, bs, &fs))
				continue;
			if (fs->sb_rule == 0) {
				*ret = fs;
				*where = bpg;
				return 0;
			}
			stalefs_free(fs);
		}
	}
	return STALEFS_ERR_BAD_MAGIC;
}

/* Groups whose bitmaps or inode table lie outside the group (or on each other). */
static u32 misplaced_groups(stalefs_fs *fs)
{
	u32 g, n = 0;

	for (g = 0; g < fs->geom.groups_count; g++) {
		int rule = stalefs_verify_desc(&fs->geom, g, &fs->groups[g].desc);

		n += rule == STALEFS_R_BG_BLOCK_BITMAP || rule == STALEFS_R_BG_INODE_BITMAP ||
		     rule == STALEFS_R_BG_INODE_TABLE;
	}
	return n;
}

/*
 * A wrecked descriptor table (several groups, or all, pointing outside
 * themselves: a zeroed or overwritten table block) cannot be mended field by
 * field: nothing says where the bitmaps and tables were.  A backup's
 * descriptors can, as e2fsck's "trying backup blocks" does; one misplaced
 * pointer is left to the relocation below.
 */
static stalefs_fs *use_backup_descs(struct fsck_ctx *ctx, stalefs_fs *fs)
{
	u32 bad = misplaced_groups(fs);
	struct problem_ctx p;
	stalefs_fs *bfs;
	u64 where;

	if (bad < 2 && bad < fs->geom.groups_count)
		return fs;
	if (open_backup(ctx, &bfs, &where))
		return fs;
	if (bfs->geom.blocks_count != fs->geom.blocks_count || misplaced_groups(bfs)) {
		stalefs_free(bfs);
		return fs;
	}
	memset(&p, 0, sizeof(p));
	p.num = bad;
	p.num2 = fs->geom.groups_count;
	p.blk = where;
	fix_problem(ctx, PR_0_DESC_BACKUP, &p);
	stalefs_free(fs);
	ctx->fs = bfs;
	ctx->used_backup = true;
	if (!(ctx->options & OPT_READONLY))
		ctx->changed = true;
	return bfs;
}

static void size_mismatch_exit(struct fsck_ctx *ctx)
{
	struct stalefs_super_block sb;
	struct stalefs_io *io;
	u64 bytes = 0;

	if (stalefs_io_open(ctx->device, false, false, &io) == 0) {
		if (stalefs_read_super(io, STALEFS_SUPER_OFFSET, &sb) == 0 && stalefs_io_size(io, &bytes) == 0 &&
		    le32_to_cpu(sb.s_log_block_size) <= 2) {
			u32 bs = 1024u << le32_to_cpu(sb.s_log_block_size);

			printf("The filesystem size (according to the superblock) is %llu blocks\n"
			       "The physical size of the device is %llu blocks\n"
			       "Either the superblock or the partition table is likely to be corrupt!\n",
			       (unsigned long long)le64_to_cpu(sb.s_blocks_count),
			       (unsigned long long)(bytes / bs));
		}
		stalefs_io_close(io);
	}
	fsck_exit(FSCK_ERROR);
}

int fsck_open(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = NULL;
	errcode_t err;
	u64 where = 0;
	int rule;

	err = stalefs_open(ctx->device, open_flags(ctx), ctx->sb_block, ctx->block_size, &fs);
	if (err && ctx->sb_block) {
		com_err(ctx->program, err, "while trying to open %s using the superblock at block %llu",
			ctx->device, (unsigned long long)ctx->sb_block);
		fsck_exit(FSCK_ERROR);
	}
	if (err == STALEFS_ERR_UNSUPP_FEATURE || stalefs_io_error(err) /* the device or its name */) {
		com_err(ctx->program, err, "while trying to open %s", ctx->device);
		if (err == STALEFS_ERR_UNSUPP_FEATURE)
			fprintf(stderr, "%s: this fsck.stalefs does not know the filesystem's "
				"incompatible features; nothing was checked or written\n", ctx->program);
		fsck_exit(FSCK_ERROR);
	}
	rule = err ? 0 : fs->sb_rule;
	if (!err && rule == STALEFS_R_SB_RO_COMPAT_UNKNOWN && !(ctx->options & OPT_READONLY)) {
		fprintf(stderr, "%s: %s has unsupported read-only compatible features; "
			"it can only be checked with -n\n", ctx->program, ctx->device);
		stalefs_free(fs);
		fsck_exit(FSCK_ERROR);
	}
	/* Structural damage the fields checks below cannot mend: a backup, if there is one. */
	if (err || rule == STALEFS_R_SB_REV || rule == STALEFS_R_SB_INCOMPAT_MISSING ||
	    rule == STALEFS_R_SB_INODE_SIZE || rule == STALEFS_R_SB_DESC_SIZE) {
		const char *why = err ? error_message(err) : stalefs_rule_msg(rule);
		char whybuf[256];
		stalefs_fs *bfs;

		snprintf(whybuf, sizeof(whybuf), "%s", why);
		if (open_backup(ctx, &bfs, &where)) {
			if (fs)
				stalefs_free(fs);
			com_err(ctx->program, err ? err : STALEFS_ERR_SB_CORRUPT, "while trying to open %s",
				ctx->device);
			if (err == STALEFS_ERR_DEVICE_TOO_SMALL)
				size_mismatch_exit(ctx);
			fprintf(stderr, "\nThe superblock could not be read or does not describe a valid "
				"stalefs filesystem,\nand no backup superblock was found.  If the device is "
				"valid and holds a stalefs\nfilesystem, try fsck.stalefs -b <block> with a "
				"backup superblock.\n");
			fsck_exit(FSCK_ERROR);
		}
		if (fs)
			stalefs_free(fs);
		fs = bfs;
		ctx->used_backup = true;
		ctx->fs = fs;
		{
			struct problem_ctx p;

			memset(&p, 0, sizeof(p));
			p.str = whybuf;
			p.blk = where;
			fix_problem(ctx, PR_0_SB_CORRUPT, &p);
		}
		if (!(ctx->options & OPT_READONLY))
			ctx->changed = true;
	}
	ctx->fs = fs;
	if (!ctx->used_backup && !ctx->sb_block)
		fs = use_backup_descs(ctx, fs);
	if (ctx->sb_block)
		ctx->used_backup = true;	/* -b: the primary is rewritten from it */
	/* The journal first: a replay rewrites descriptors, bitmaps and inodes. */
	journal_check(ctx);
	if (ctx->used_backup) {
		u32 g;

		/*
		 * A backup's descriptors are as old as the backup: groups it calls
		 * uninitialised may have been used since.  Scan everything, as
		 * e2fsck does; pass 5 rewrites bitmaps and counts.
		 */
		for (g = 0; g < fs->geom.groups_count; g++) {
			struct stalefs_group_desc *d = &fs->groups[g].desc;

			d->bg_flags = cpu_to_le16(le16_to_cpu(d->bg_flags) & ~STALEFS_BG_FLAGS_ALL);
			d->bg_itable_unused = 0;
			stalefs_mark_desc_dirty(fs, g);
		}
	}
	if (ctx->options & OPT_READONLY)
		stalefs_io_set_cache_limit(fs->io, (256u << 10) / fs->block_size);
	ctx->stale_gid = le32_to_cpu(fs->sb.s_stale_gid);
	if (!(le32_to_cpu(fs->sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE))
		ctx->stale_gid = STALEFS_STALE_GID_NONE;
	return 0;
}

static void check_super(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_super_block *sb = &fs->sb;
	struct problem_ctx p;
	u32 ro = le32_to_cpu(sb->s_feature_ro_compat);
	u32 gid = le32_to_cpu(sb->s_stale_gid);
	u32 lpf = le32_to_cpu(sb->s_lpf_ino);
	u16 errors = le16_to_cpu(sb->s_errors);

	memset(&p, 0, sizeof(p));
	if (!ctx->used_backup && stalefs_verify_super_csum(sb)) {
		p.num = le32_to_cpu(sb->s_checksum);
		p.num2 = stalefs_super_csum(sb);
		if (fix_problem(ctx, PR_0_SB_CSUM, &p))
			stalefs_mark_super_dirty(fs);
	}
	if (le32_to_cpu(sb->s_first_ino) != STALEFS_FIRST_INO) {
		p.num = le32_to_cpu(sb->s_first_ino);
		if (fix_problem(ctx, PR_0_SB_FIRST_INO, &p)) {
			sb->s_first_ino = cpu_to_le32(STALEFS_FIRST_INO);
			stalefs_mark_super_dirty(fs);
		}
	}
	if (le16_to_cpu(sb->s_state) & ~(STALEFS_STATE_CLEAN | STALEFS_STATE_ERRORS)) {
		p.num = le16_to_cpu(sb->s_state);
		if (fix_problem(ctx, PR_0_SB_STATE, &p)) {
			sb->s_state = cpu_to_le16(le16_to_cpu(sb->s_state) &
						  (STALEFS_STATE_CLEAN | STALEFS_STATE_ERRORS));
			stalefs_mark_super_dirty(fs);
		}
	}
	if (errors < STALEFS_ERRORS_CONTINUE || errors > STALEFS_ERRORS_PANIC) {
		p.num = errors;
		if (fix_problem(ctx, PR_0_SB_ERRORS, &p)) {
			sb->s_errors = cpu_to_le16(STALEFS_ERRORS_CONTINUE);
			stalefs_mark_super_dirty(fs);
		}
	}
	if (le64_to_cpu(sb->s_r_blocks_count) > fs->geom.blocks_count) {
		p.num = le64_to_cpu(sb->s_r_blocks_count);
		p.num2 = fs->geom.blocks_count;
		if (fix_problem(ctx, PR_0_SB_R_BLOCKS, &p)) {
			/* mkfs' default: 5% for root. */
			sb->s_r_blocks_count = cpu_to_le64(fs->geom.blocks_count / 20);
			stalefs_mark_super_dirty(fs);
		}
	}
	if (lpf != 0 && (lpf < STALEFS_FIRST_INO || lpf > fs->geom.inodes_count)) {
		p.num = lpf;
		if (fix_problem(ctx, PR_0_SB_LPF_RANGE, &p)) {
			sb->s_lpf_ino = 0;	/* pass 3 records the real one */
			stalefs_mark_super_dirty(fs);
		}
	}
	/*
	 * The feature bit and the recorded group come together.  A group without
	 * the bit: the bit was lost (the group is the specific fact), set it.  The
	 * bit without a group: no group can be guessed, clear the bit; any STALE
	 * extent is then hidden by the S3 check.
	 */
	if ((ro & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE) && gid == STALEFS_STALE_GID_NONE) {
		if (fix_problem(ctx, PR_0_SB_STALE_NO_GID, &p)) {
			sb->s_feature_ro_compat = cpu_to_le32(ro & ~STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE);
			stalefs_mark_super_dirty(fs);
		}
	} else if (!(ro & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE) && gid != STALEFS_STALE_GID_NONE) {
		p.num = gid;
		if (fix_problem(ctx, PR_0_SB_STALE_GID_NO_FEATURE, &p)) {
			sb->s_feature_ro_compat = cpu_to_le32(ro | STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE);
			stalefs_mark_super_dirty(fs);
		}
	}
	ro = le32_to_cpu(sb->s_feature_ro_compat);
	ctx->stale_gid = (ro & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE) ? le32_to_cpu(sb->s_stale_gid)
								     : STALEFS_STALE_GID_NONE;
	if (!ctx->used_backup && le32_to_cpu(sb->s_block_group_nr) != 0) {
		p.num = le32_to_cpu(sb->s_block_group_nr);
		if (fix_problem(ctx, PR_0_SB_GROUP_NR, &p)) {
			sb->s_block_group_nr = 0;
			stalefs_mark_super_dirty(fs);
		}
	}
}

static bool check_desc_locations(struct fsck_ctx *ctx, u32 group, bool force)
{
	const struct stalefs_geom *g = &ctx->fs->geom;
	struct stalefs_group_desc *d = &ctx->fs->groups[group].desc;
	struct problem_ctx p;
	u64 bb = le64_to_cpu(d->bg_block_bitmap), ib = le64_to_cpu(d->bg_inode_bitmap);
	u64 it = le64_to_cpu(d->bg_inode_table), dbb, dib, dit;
	u32 misplaced = stalefs_desc_misplaced(g, group, d);
	bool bb_ok = !(misplaced & (1u << STALEFS_GM_BLOCK_BITMAP));
	bool ib_ok = !(misplaced & (1u << STALEFS_GM_INODE_BITMAP));
	bool it_ok = !(misplaced & (1u << STALEFS_GM_INODE_TABLE));
	bool moved = false;

	stalefs_group_default_layout(g, group, &dbb, &dib, &dit);
	/* Still overlapping after a relocation: everything goes back to mkfs' places. */
	if (force) {
		bb_ok = bb == dbb;
		ib_ok = ib == dib;
		it_ok = it == dit;
	} else if ((!bb_ok && bb == dbb) || (!ib_ok && ib == dib) || (!it_ok && it == dit)) {
		/* Bad where mkfs would put it: something else sits there; the next round moves all. */
		return true;
	}
	memset(&p, 0, sizeof(p));
	p.group = group;
	/* Back to where mkfs puts them: a damaged pointer usually means the data is still there. */
	if (!bb_ok) {
		p.blk = bb;
		if (fix_problem(ctx, PR_0_BB_LOCATION, &p)) {
			d->bg_block_bitmap = cpu_to_le64(dbb);
			stalefs_mark_desc_dirty(ctx->fs, group);
			moved = true;
		}
	}
	if (!ib_ok) {
		p.blk = ib;
		if (fix_problem(ctx, PR_0_IB_LOCATION, &p)) {
			d->bg_inode_bitmap = cpu_to_le64(dib);
			stalefs_mark_desc_dirty(ctx->fs, group);
			moved = true;
		}
	}
	if (!it_ok) {
		p.blk = it;
		if (fix_problem(ctx, PR_0_IT_LOCATION, &p)) {
			d->bg_inode_table = cpu_to_le64(dit);
			stalefs_mark_desc_dirty(ctx->fs, group);
			moved = true;
		}
	}
	return moved;
}

/*
 * What makes a backup superblock another filesystem's, or no superblock at all: NULL when
 * it is this one's (perhaps older: FORMAT.md 12 lets a backup lag its primary).
 */
static const char *backup_damage(const stalefs_fs *fs, u32 group, const struct stalefs_super_block *b)
{
	const struct stalefs_super_block *p = &fs->sb;

	if (le32_to_cpu(b->s_magic) != STALEFS_SUPER_MAGIC)
		return "is missing (no superblock magic)";
	if (stalefs_verify_super_csum(b))
		return "fails its checksum";
	if (le32_to_cpu(b->s_block_group_nr) != group)
		return "names another group";
	if (memcmp(b->s_uuid, p->s_uuid, sizeof(p->s_uuid)) || b->s_csum_seed != p->s_csum_seed ||
	    b->s_log_block_size != p->s_log_block_size || b->s_blocks_per_group != p->s_blocks_per_group ||
	    b->s_inodes_per_group != p->s_inodes_per_group || b->s_inode_size != p->s_inode_size)
		return "describes another filesystem";
	if (stalefs_verify_super(b) && stalefs_verify_super(b) != STALEFS_R_SB_RO_COMPAT_UNKNOWN)
		return "does not verify";
	return NULL;
}

/* Does the backup say what the primary says of the filesystem's shape and features? */
static bool backup_current(const struct stalefs_super_block *p, const struct stalefs_super_block *b)
{
	u32 recover = cpu_to_le32(STALEFS_FEATURE_INCOMPAT_RECOVER);

	return b->s_blocks_count == p->s_blocks_count && b->s_inodes_count == p->s_inodes_count &&
	       b->s_gdt_blocks == p->s_gdt_blocks && b->s_first_meta_bg == p->s_first_meta_bg &&
	       b->s_feature_compat == p->s_feature_compat && b->s_feature_ro_compat == p->s_feature_ro_compat &&
	       (b->s_feature_incompat | recover) == (p->s_feature_incompat | recover) &&
	       b->s_journal_block == p->s_journal_block && b->s_journal_blocks == p->s_journal_blocks &&
	       b->s_stale_gid == p->s_stale_gid;
}

/*
 * Every group that should hold a superblock copy holds one of this filesystem: a grow
 * writes them for its new groups before it commits, a shrink rewrites them.  A backup that
 * lags the primary is rewritten quietly when fsck writes (as e2fsck does); one missing or
 * damaged is reported.
 */
static void check_backups(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_super_block b;
	struct problem_ctx p;
	bool stale = false;
	u32 g;

	if (ctx->used_backup)
		return;		/* they are all rewritten from the one used */
	memset(&p, 0, sizeof(p));
	for (g = 1; g < fs->geom.groups_count; g++) {
		const char *why;

		if (!stalefs_group_has_super(&fs->geom, g))
			continue;
		p.group = g;
		p.blk = stalefs_group_first_block(&fs->geom, g);
		if (stalefs_read_super(fs->io, stalefs_super_offset(&fs->geom, g), &b))
			why = "cannot be read";
		else
			why = backup_damage(fs, g, &b);
		if (why) {
			p.str = why;
			if (fix_problem(ctx, PR_0_BACKUP_SB_BAD, &p))
				fs->write_backups = true;
		} else if (!backup_current(&fs->sb, &b)) {
			stale = true;
		}
	}
	if (stale && !(ctx->options & OPT_READONLY))
		fs->write_backups = true;
}

void check_super_and_groups(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	struct problem_ctx p;
	u32 g;
	errcode_t err;

	check_super(ctx);
	check_backups(ctx);
	memset(&p, 0, sizeof(p));
	for (g = 0; g < fs->geom.groups_count; g++) {
		struct stalefs_group_desc *d = &fs->groups[g].desc;
		u16 flags = le16_to_cpu(d->bg_flags);

		p.group = g;
		/* A backup's descriptors are rewritten anyway; their checksums are its own. */
		if (!ctx->used_backup && stalefs_verify_desc_csum(fs->seed, g, d)) {
			p.num = le32_to_cpu(d->bg_checksum);
			p.num2 = stalefs_desc_csum(fs->seed, g, d);
			if (fix_problem(ctx, PR_0_GDESC_CSUM, &p)) {
				/*
				 * Nothing in it can be trusted, its marks of what was never
				 * used least: scan the whole group, as e2fsck does; pass 5
				 * rewrites bitmaps and counts.
				 */
				d->bg_flags = cpu_to_le16(le16_to_cpu(d->bg_flags) & ~STALEFS_BG_FLAGS_ALL);
				d->bg_itable_unused = 0;
				flags = le16_to_cpu(d->bg_flags);
				stalefs_mark_desc_dirty(fs, g);
			}
		}
		/* A relocation can make another pointer overlap it: look again (the defaults never overlap). */
		for (int round = 0; round < 3 && check_desc_locations(ctx, g, round == 2); round++)
			;
		if (flags & ~STALEFS_BG_FLAGS_ALL) {
			p.num = flags;
			if (fix_problem(ctx, PR_0_BG_FLAGS, &p)) {
				d->bg_flags = cpu_to_le16(flags & STALEFS_BG_FLAGS_ALL);
				stalefs_mark_desc_dirty(fs, g);
			}
		}
	}
	err = stalefs_read_bitmaps(fs);
	if (err) {
		/* Unreadable bitmaps are rebuilt in pass 5; the library treats them as full meanwhile. */
		p.group = 0;
		p.str = error_message(err);
		fix_problem(ctx, PR_0_BITMAP_READ, &p);
	}
	fs->bitmaps_loaded = true;
	check_itable_marks(ctx);
}
