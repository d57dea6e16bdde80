// SPDX-License-Identifier: GPL-2.0
/*
 * Block and inode allocation: group descriptors, bitmaps, free summaries,
 * and the per-group orphan counts.
 *
 * Everything here runs under sbi->alloc_lock.  Bitmaps are read through the
 * buffer cache and verified against the checksum in their descriptor the
 * first time; a group whose bitmap was never written (BLOCK_UNINIT,
 * INODE_UNINIT) gets it built on its first allocation, as FORMAT.md
 * section 4 says.  Every change re-checksums the bitmap and descriptor.
 *
 * With a journal every change is journaled (journal.h): access is taken on
 * the bitmap blocks and the descriptor block before bits change, and only
 * the bitmap blocks whose bits changed are journaled (the checksum lives in
 * the descriptor).  What is written outside the journal is what no
 * committed state depends on until it is on disk: a bitmap built for an
 * uninitialised group and inode table slots zeroed past the unused-inode
 * mark are written and waited for before the transaction that starts
 * relying on them can commit.  Blocks freed by a transaction that has not
 * committed are not handed out (journal.c: sbi->pending).
 */
#include <linux/slab.h>
#include <linux/bitops.h>
#include <linux/random.h>
#include "stalefs.h"
#include "journal.h"

int stalefs_load_groups(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom *g = &sbi->geom;
	u32 i, grp;

	sbi->gd_bh = kcalloc(g->gdt_blocks, sizeof(*sbi->gd_bh), GFP_KERNEL);
	if (!sbi->gd_bh)
		return -ENOMEM;
	for (i = 0; i < g->gdt_blocks; i++) {
		u64 where = stalefs_gdt_block_loc(g, 0, i);	/* FORMAT.md 4: META_BG */

		sbi->gd_bh[i] = sb_bread(sb, where);
		if (!sbi->gd_bh[i]) {
			stalefs_error(sb, 0, where, "cannot read group descriptors");
			return -EIO;
		}
	}
	for (grp = 0; grp < g->groups_count; grp++) {
		struct buffer_head *bh;
		struct stalefs_group_desc *d = stalefs_get_desc(sb, grp, &bh);
		int rule = stalefs_verify_desc_csum(sbi->csum_seed, grp, d);

		if (!rule)
			rule = stalefs_verify_desc(g, grp, d);
		if (rule) {
			stalefs_error(sb, 0, bh->b_blocknr, "group %u: %s", grp,
				      stalefs_rule_msg(rule));
			return -EUCLEAN;
		}
	}
	return 0;
}

void stalefs_put_groups(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u32 i;

	if (!sbi->gd_bh)
		return;
	for (i = 0; i < sbi->geom.gdt_blocks; i++)
		brelse(sbi->gd_bh[i]);
	kvfree(sbi->gd_bh);	/* resize.c may have made it with kvcalloc */
	sbi->gd_bh = NULL;
}

struct stalefs_group_desc *stalefs_get_desc(struct super_block *sb, u32 group,
					    struct buffer_head **bhp)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u32 per = sbi->geom.desc_per_block;
	struct buffer_head *bh = sbi->gd_bh[group / per];

	if (bhp)
		*bhp = bh;
	return (struct stalefs_group_desc *)bh->b_data + group % per;
}

u64 stalefs_count_free_blocks(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u64 n = 0;
	u32 grp;

	for (grp = 0; grp < sbi->geom.groups_count; grp++)
		n += le32_to_cpu(stalefs_get_desc(sb, grp, NULL)->bg_free_blocks_count);
	return n;
}

/* Inodes flagged STALE in the whole filesystem (the groups' counts, FORMAT.md 10). */
u64 stalefs_count_stale_inodes(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u64 n = 0;
	u32 grp;

	for (grp = 0; grp < sbi->geom.groups_count; grp++)
		n += le32_to_cpu(stalefs_get_desc(sb, grp, NULL)->bg_stale_count);
	return n;
}

u32 stalefs_count_free_inodes(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u32 n = 0;
	u32 grp;

	for (grp = 0; grp < sbi->geom.groups_count; grp++)
		n += le32_to_cpu(stalefs_get_desc(sb, grp, NULL)->bg_free_inodes_count);
	return n;
}

/* ---- descriptors ---- */

/* Before a descriptor changes: its block joins the transaction. */
static int desc_access(struct super_block *sb, struct buffer_head *bh)
{
	return stalefs_get_write_access(sb, bh);
}

/* A descriptor changed: checksum it and journal it (or let writeback carry it). */
static void desc_dirty(struct super_block *sb, u32 group, struct stalefs_group_desc *d,
		       struct buffer_head *bh)
{
	lock_buffer(bh);
	stalefs_desc_set_csum(STALEFS_SB(sb)->csum_seed, group, d);
	unlock_buffer(bh);
	stalefs_dirty_metadata(NULL, sb, bh);
}

/* ---- bitmaps ---- */

/* A bitmap: one or more blocks, checksummed as one. */
struct stalefs_bitmap {
	struct buffer_head *bh[4];
	struct buffer_head **bhs;
	u32 nblocks;
	u32 bits;		/* bits that matter (group blocks or inodes) */
	u32 lo, hi;		/* blocks [lo, hi) joined the transaction for a change */
};

static void bitmap_release(struct stalefs_bitmap *bm)
{
	u32 i;

	if (!bm->bhs)
		return;
	for (i = 0; i < bm->nblocks; i++)
		brelse(bm->bhs[i]);
	if (bm->bhs != bm->bh)
		kfree(bm->bhs);
	bm->bhs = NULL;
}

static u32 bitmap_csum(struct super_block *sb, u32 group, struct stalefs_bitmap *bm)
{
	u32 crc = stalefs_bitmap_csum(STALEFS_SB(sb)->csum_seed, group,
				      bm->bhs[0]->b_data, sb->s_blocksize);
	u32 i;

	for (i = 1; i < bm->nblocks; i++)
		crc = stalefs_crc32_le(crc, bm->bhs[i]->b_data, sb->s_blocksize);
	return crc;
}

static bool bm_test(struct super_block *sb, struct stalefs_bitmap *bm, u32 bit)
{
	u32 per = sb->s_blocksize * 8;

	return test_bit_le(bit % per, bm->bhs[bit / per]->b_data);
}

static void bm_set(struct super_block *sb, struct stalefs_bitmap *bm, u32 bit, bool on)
{
	u32 per = sb->s_blocksize * 8;

	if (on)
		__set_bit_le(bit % per, bm->bhs[bit / per]->b_data);
	else
		__clear_bit_le(bit % per, bm->bhs[bit / per]->b_data);
}

/* First clear bit in [from, bm->bits), or bm->bits. */
static u32 bm_find_zero(struct super_block *sb, struct stalefs_bitmap *bm, u32 from)
{
	u32 per = sb->s_blocksize * 8;

	while (from < bm->bits) {
		u32 b = from / per;
		u32 lim = min(per, bm->bits - b * per);
		u32 r = find_next_zero_bit_le(bm->bhs[b]->b_data, lim, from % per);

		if (r < lim)
			return b * per + r;
		from = (b + 1) * per;
	}
	return bm->bits;
}

/* Before bits [first, last] change: their blocks join the transaction. */
static int bitmap_access(struct super_block *sb, struct stalefs_bitmap *bm, u32 first, u32 last)
{
	u32 per = sb->s_blocksize * 8, b;
	int err;

	for (b = first / per; b <= last / per && b < bm->nblocks; b++) {
		if (b >= bm->lo && b < bm->hi)
			continue;
		err = stalefs_get_write_access(sb, bm->bhs[b]);
		if (err)
			return err;
		if (bm->lo == bm->hi) {
			bm->lo = b;
			bm->hi = b + 1;
		} else {
			bm->lo = min(bm->lo, b);
			bm->hi = max(bm->hi, b + 1);
		}
	}
	return 0;
}

/* Bits changed: the checksum (in the descriptor) and the blocks that hold them. */
static void bitmap_dirty(struct super_block *sb, u32 group, struct stalefs_bitmap *bm,
			 __le32 *csum)
{
	u32 i;

	stalefs_assert_mutex(&STALEFS_SB(sb)->alloc_lock);
	*csum = cpu_to_le32(bitmap_csum(sb, group, bm));
	for (i = bm->lo; i < bm->hi; i++)
		stalefs_dirty_metadata(NULL, sb, bm->bhs[i]);
}

/*
 * Write and wait for blocks changed outside the journal: a transaction that
 * relies on them must not commit before they are on disk (the commit's
 * cache flush then covers them).  Without a journal writeback carries them.
 */
static int write_now(struct super_block *sb, struct buffer_head **bhs, u32 n)
{
	u32 i;
	int err = 0;

	for (i = 0; i < n; i++) {
		if (!stalefs_has_journal(sb)) {
			mark_buffer_dirty(bhs[i]);
			continue;
		}
		mark_buffer_dirty(bhs[i]);
		write_dirty_buffer(bhs[i], REQ_SYNC);
	}
	if (!stalefs_has_journal(sb))
		return 0;
	for (i = 0; i < n; i++) {
		wait_on_buffer(bhs[i]);
		if (!buffer_uptodate(bhs[i]))
			err = -EIO;
	}
	return err;
}

/*
 * Read (or, when 'uninit', build) a bitmap of 'nblocks' blocks at 'start'.
 * 'csum' is the descriptor's checksum field.  A built bitmap is written out
 * at once (write_now): it is not journaled, so the transaction that marks
 * the group initialised must find it on disk.
 */
static int bitmap_get(struct super_block *sb, u32 group, u64 start, u32 nblocks,
		      u32 bits, bool uninit, __le32 csum, struct stalefs_bitmap *bm)
{
	u32 i;

	stalefs_assert_mutex(&STALEFS_SB(sb)->alloc_lock);
	memset(bm, 0, sizeof(*bm));
	bm->nblocks = nblocks;
	bm->bits = bits;
	if (nblocks <= ARRAY_SIZE(bm->bh)) {
		bm->bhs = bm->bh;
	} else {
		bm->bhs = kcalloc(nblocks, sizeof(*bm->bhs), GFP_NOFS);
		if (!bm->bhs)
			return -ENOMEM;
	}
	for (i = 0; i < nblocks; i++) {
		bm->bhs[i] = uninit ? sb_getblk(sb, start + i) : sb_bread(sb, start + i);
		if (!bm->bhs[i]) {
			bm->nblocks = i;
			bitmap_release(bm);
			stalefs_error(sb, 0, start + i, "cannot read bitmap of group %u", group);
			return -EIO;
		}
	}
	if (uninit) {
		for (i = 0; i < nblocks; i++) {
			lock_buffer(bm->bhs[i]);
			memset(bm->bhs[i]->b_data, 0, sb->s_blocksize);
			set_buffer_uptodate(bm->bhs[i]);
			set_buffer_stalefs_verified(bm->bhs[i]);
			unlock_buffer(bm->bhs[i]);
		}
		/* Bits past the end of the group or the inode count are set. */
		for (i = bits; i < nblocks * sb->s_blocksize * 8; i++)
			bm_set(sb, bm, i, true);
		return 0;
	}
	if (!buffer_stalefs_verified(bm->bhs[0])) {
		if (bitmap_csum(sb, group, bm) != le32_to_cpu(csum)) {
			stalefs_error(sb, 0, start, "group %u: bitmap checksum does not match",
				      group);
			bitmap_release(bm);
			return -EUCLEAN;
		}
		set_buffer_stalefs_verified(bm->bhs[0]);
	}
	return 0;
}

static void mark_range(struct super_block *sb, struct stalefs_bitmap *bm, u64 gfirst,
		       u64 start, u64 len)
{
	u64 b;

	for (b = start; b < start + len; b++)
		if (b >= gfirst && b - gfirst < bm->bits)
			bm_set(sb, bm, (u32)(b - gfirst), true);
}

/* The journal's blocks in this group (it lies in one group), in use from mkfs on. */
static void mark_journal(struct super_block *sb, struct stalefs_bitmap *bm, u64 gfirst)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);

	if (sbi->journal_blocks)
		mark_range(sb, bm, gfirst, sbi->journal_start, sbi->journal_blocks);
}

/* Take an uninitialised bitmap into use: built, written, the flag cleared (journaled). */
static int bitmap_init_done(struct super_block *sb, u32 group, struct stalefs_group_desc *d,
			    struct buffer_head *dbh, struct stalefs_bitmap *bm, u16 flag,
			    __le32 *csum)
{
	int err = write_now(sb, bm->bhs, bm->nblocks);

	if (!err)
		err = desc_access(sb, dbh);
	if (err)
		return err;
	d->bg_flags = cpu_to_le16(le16_to_cpu(d->bg_flags) & ~flag);
	*csum = cpu_to_le32(bitmap_csum(sb, group, bm));
	desc_dirty(sb, group, d, dbh);
	return 0;
}

static int block_bitmap_get(struct super_block *sb, u32 group, struct stalefs_group_desc *d,
			    struct buffer_head *dbh, struct stalefs_bitmap *bm)
{
	struct stalefs_geom *g = &STALEFS_SB(sb)->geom;
	bool uninit = le16_to_cpu(d->bg_flags) & STALEFS_BG_BLOCK_UNINIT;
	u64 first = stalefs_group_first_block(g, group);
	struct stalefs_brange meta[STALEFS_GM_COUNT];
	int err, k;

	err = bitmap_get(sb, group, le64_to_cpu(d->bg_block_bitmap), g->block_bitmap_blocks,
			 stalefs_group_nblocks(g, group), uninit, d->bg_block_bitmap_csum, bm);
	if (err || !uninit)
		return err;
	/* Never written: the group's own metadata (and the journal) in use, the rest free. */
	stalefs_group_meta_ranges(g, group, d, meta);
	for (k = 0; k < STALEFS_GM_COUNT; k++)
		mark_range(sb, bm, first, meta[k].start, meta[k].len);
	mark_journal(sb, bm, first);
	err = bitmap_init_done(sb, group, d, dbh, bm, STALEFS_BG_BLOCK_UNINIT,
			       &d->bg_block_bitmap_csum);
	if (err)
		bitmap_release(bm);
	return err;
}

/* Is block b one of the group's own metadata blocks, or the journal's?  Guards against a bad bitmap. */
static bool is_group_meta(struct super_block *sb, u32 group, struct stalefs_group_desc *d, u64 b)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);

	return stalefs_group_meta_overlaps(&sbi->geom, group, d, b, 1) ||
	       (b >= sbi->journal_start && b < sbi->journal_start + sbi->journal_blocks);
}

static const struct stalefs_group_desc *sb_desc(void *sb, u32 group)
{
	return stalefs_get_desc(sb, group, NULL);
}

/* [pblk, pblk+len) lies inside the filesystem and overlaps no group's own metadata. */
bool stalefs_meta_free(struct super_block *sb, u64 pblk, u64 len)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom *g = &sbi->geom;
	u64 end = pblk + len;

	if (pblk == 0 || len == 0 || end > g->blocks_count || end < pblk)
		return false;
	return !stalefs_range_on_group_meta(g, sb_desc, sb, pblk, len);
}

/*
 * [pblk, pblk+len) is neither group metadata nor the journal: what every
 * extent and tree node read from disk must satisfy, so that a damaged map
 * can never direct file writes onto metadata or the log.
 */
bool stalefs_blocks_valid(struct super_block *sb, u64 pblk, u64 len)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);

	if (sbi->journal_blocks && pblk < sbi->journal_start + sbi->journal_blocks &&
	    sbi->journal_start < pblk + len)
		return false;
	return stalefs_meta_free(sb, pblk, len);
}

/*
 * The first free block at or after bit 'from' of the group that no
 * uncommitted free holds back (nor, with 'windows', another file's
 * allocation window), or bm->bits; *limit (a bit) is where a run starting
 * there must stop.
 */
static u32 find_usable(struct inode *inode, struct stalefs_bitmap *bm, u64 gfirst, u32 from,
		       bool windows, u32 *limit)
{
	struct super_block *sb = inode->i_sb;

	for (;;) {
		u32 bit = bm_find_zero(sb, bm, from);
		u64 end, next;

		*limit = bm->bits;
		if (bit >= bm->bits)
			return bit;
		end = stalefs_busy_skip(sb, gfirst + bit, &next);	/* trim.c */
		if (!end && windows)
			end = stalefs_window_skip(inode, gfirst + bit, &next);
		if (!end) {
			if (next - gfirst < bm->bits)
				*limit = (u32)(next - gfirst);
			return bit;
		}
		if (end - gfirst >= bm->bits)
			return bm->bits;
		from = (u32)(end - gfirst);
	}
}

/*
 * A new file's first blocks, while the file is no larger than this, go
 * where the last such file's ended (sbi->small_goal), not to its
 * directory's group: files made one after another, as an untar makes them
 * across many directories, then lie one after another on disk, and their
 * writeback merges into long requests (ext4's mballoc does the same with
 * its locality groups).  bench/RESULTS.md, "many files".
 */
#define STALEFS_SMALL_FILE	(64 << 10)

/*
 * Up to 'want' free blocks, the first at 'goal' or after it.  lblk_end:
 * for file data, the end of the logical range they will map (the file's
 * allocation window follows it, alloc_window.c); 0 for metadata.  Other
 * files' windows are stepped around on the first pass over the groups
 * and taken from on the second.
 */
int stalefs_new_data_blocks(struct inode *inode, u64 goal, u32 want, u64 lblk_end, u64 *pblk,
			    u32 *got)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom *g = &sbi->geom;
	u32 g0, i;
	int err = -ENOSPC;
	bool windows = true;
	bool small = lblk_end && !goal && S_ISREG(inode->i_mode) &&
		     (lblk_end << sb->s_blocksize_bits) <= STALEFS_SMALL_FILE;

	if (!want)
		return -EINVAL;
	mutex_lock(&sbi->alloc_lock);
	if (small)
		goal = sbi->small_goal;
	if (goal == 0 || goal >= g->blocks_count)
		goal = stalefs_group_first_block(g, STALEFS_I(inode)->i_dir_group);
	g0 = stalefs_block_group(g, goal);
	if (sbi->free_blocks <= le64_to_cpu(sbi->raw->s_r_blocks_count) &&
	    !capable(CAP_SYS_RESOURCE))
		goto out;
	/* Only unwritten conversion may take the reserve (see resv_blocks). */
	if (sbi->free_blocks <= sbi->resv_blocks && !STALEFS_I(inode)->i_converting)
		goto out;
again:
	for (i = 0; i < g->groups_count; i++) {
		u32 grp = (g0 + i) % g->groups_count;
		struct buffer_head *dbh;
		struct stalefs_group_desc *d = stalefs_get_desc(sb, grp, &dbh);
		struct stalefs_bitmap bm;
		u64 first = stalefs_group_first_block(g, grp);
		u32 start = 0, bit, n, k, limit, zeros;

		if (!le32_to_cpu(d->bg_free_blocks_count))
			continue;
		err = block_bitmap_get(sb, grp, d, dbh, &bm);
		if (err)
			goto out;
		if (grp == g0 && goal > first)
			start = (u32)(goal - first);
		bit = find_usable(inode, &bm, first, start, windows, &limit);
		if (bit >= bm.bits && start)
			bit = find_usable(inode, &bm, first, 0, windows, &limit);
		if (bit >= bm.bits) {
			zeros = bm_find_zero(sb, &bm, 0);
			bitmap_release(&bm);
			err = -ENOSPC;
			/* Free blocks held back until a commit are not damage. */
			if (zeros >= bm.bits)
				stalefs_error(sb, inode->i_ino, first,
					      "group %u: free count says free blocks, bitmap has none",
					      grp);
			continue;
		}
		if (is_group_meta(sb, grp, d, first + bit)) {
			bitmap_release(&bm);
			stalefs_error(sb, inode->i_ino, first + bit,
				      "block bitmap marks group metadata free");
			err = -EUCLEAN;
			goto out;
		}
		for (n = 1; n < want && bit + n < limit && !bm_test(sb, &bm, bit + n) &&
			    !is_group_meta(sb, grp, d, first + bit + n); n++)
			;
		n = min(n, le32_to_cpu(d->bg_free_blocks_count));
		err = bitmap_access(sb, &bm, bit, bit + n - 1);
		if (!err)
			err = desc_access(sb, dbh);
		if (err) {
			bitmap_release(&bm);
			goto out;
		}
		for (k = 0; k < n; k++)
			bm_set(sb, &bm, bit + k, true);
		bitmap_dirty(sb, grp, &bm, &d->bg_block_bitmap_csum);
		bitmap_release(&bm);
		le32_add_cpu(&d->bg_free_blocks_count, -n);
		desc_dirty(sb, grp, d, dbh);
		sbi->free_blocks -= n;
		*pblk = first + bit;
		*got = n;
		inode_add_bytes(inode, (loff_t)n << sb->s_blocksize_bits);
		if (lblk_end)
			stalefs_window_moved(inode, lblk_end - (want - n), first + bit, n, first + limit);
		if (small)
			sbi->small_goal = first + bit + n;
		err = 0;
		goto out;
	}
	/* Nothing free outside the windows: take from them. */
	if (windows && err == -ENOSPC && !RB_EMPTY_ROOT(&sbi->windows)) {
		windows = false;
		goto again;
	}
out:
	mutex_unlock(&sbi->alloc_lock);
	return err;
}

int stalefs_new_blocks(struct inode *inode, u64 goal, u32 want, u64 *pblk, u32 *got)
{
	return stalefs_new_data_blocks(inode, goal, want, 0, pblk, got);
}

/*
 * Free [pblk, pblk+len).  metadata: the blocks held tree nodes, directory
 * or symlink blocks, which the journal may hold older copies of: revoke
 * them (or, without a journal, drop the buffers so writeback cannot put
 * them over their next owner).  Returns how many were freed.
 */
void stalefs_free_file_blocks(struct inode *inode, u64 pblk, u32 len, bool metadata)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom *g = &sbi->geom;

	if (!len)
		return;
	if (pblk == 0 || pblk >= g->blocks_count || len > g->blocks_count - pblk) {
		stalefs_error(sb, inode->i_ino, pblk, "freeing blocks outside the filesystem");
		return;
	}
	inode_sub_bytes(inode, (loff_t)len << sb->s_blocksize_bits);
	mutex_lock(&sbi->alloc_lock);
	while (len) {
		u32 grp = stalefs_block_group(g, pblk);
		u64 first = stalefs_group_first_block(g, grp);
		u32 off = (u32)(pblk - first);
		u32 n = min_t(u64, len, stalefs_group_nblocks(g, grp) - off);
		struct buffer_head *dbh;
		struct stalefs_group_desc *d = stalefs_get_desc(sb, grp, &dbh);
		struct stalefs_bitmap bm;
		u32 i, freed = 0;

		if (block_bitmap_get(sb, grp, d, dbh, &bm))
			break;
		if (bitmap_access(sb, &bm, off, off + n - 1) || desc_access(sb, dbh)) {
			bitmap_release(&bm);
			break;
		}
		for (i = 0; i < n; i++) {
			if (!bm_test(sb, &bm, off + i) || is_group_meta(sb, grp, d, pblk + i)) {
				stalefs_error(sb, inode->i_ino, pblk + i,
					      "freeing a block that is free or metadata");
				continue;
			}
			if (metadata)
				stalefs_forget_metadata(sb, pblk + i);
			bm_set(sb, &bm, off + i, false);
			freed++;
		}
		bitmap_dirty(sb, grp, &bm, &d->bg_block_bitmap_csum);
		bitmap_release(&bm);
		le32_add_cpu(&d->bg_free_blocks_count, freed);
		desc_dirty(sb, grp, d, dbh);
		sbi->free_blocks += freed;
		/* Not for reuse before this transaction commits. */
		stalefs_pending_free(sb, pblk, n);
		pblk += n;
		len -= n;
	}
	mutex_unlock(&sbi->alloc_lock);
}

static int inode_bitmap_get(struct super_block *sb, u32 group, struct stalefs_group_desc *d,
			    struct buffer_head *dbh, struct stalefs_bitmap *bm)
{
	struct stalefs_geom *g = &STALEFS_SB(sb)->geom;
	bool uninit = le16_to_cpu(d->bg_flags) & STALEFS_BG_INODE_UNINIT;
	int err;

	err = bitmap_get(sb, group, le64_to_cpu(d->bg_inode_bitmap), g->inode_bitmap_blocks,
			 g->inodes_per_group, uninit, d->bg_inode_bitmap_csum, bm);
	if (err || !uninit)
		return err;
	err = bitmap_init_done(sb, group, d, dbh, bm, STALEFS_BG_INODE_UNINIT,
			       &d->bg_inode_bitmap_csum);
	if (err)
		bitmap_release(bm);
	return err;
}

/*
 * Slots from the lazy-init mark up to 'slot' become initialised (zeroed)
 * slots.  The table blocks holding the mark and the slot may hold live
 * inodes too: journaled.  Blocks wholly between them hold nothing anyone
 * relies on yet: written directly, before the transaction that moves the
 * mark can commit.  The caller has access to the descriptor block.
 */
static int itable_init_upto(struct super_block *sb, u32 group, struct stalefs_group_desc *d,
			    u32 slot)
{
	struct stalefs_geom *g = &STALEFS_SB(sb)->geom;
	u32 mark = g->inodes_per_group - le32_to_cpu(d->bg_itable_unused);
	u32 ipb = g->inodes_per_block, s, end;
	int err;

	if (slot < mark)
		return 0;
	for (s = mark; s <= slot; s = end) {
		u64 blk = le64_to_cpu(d->bg_inode_table) + s / ipb;
		bool edge = s / ipb == mark / ipb || s / ipb == slot / ipb;
		/*
		 * A block starting at or past the mark holds no live inode: it
		 * need not be read, only zeroed (as ext4 does for an inode
		 * table block with no other inode in use).  Reading it cost an
		 * untar of 31,571 files 2,099 synchronous reads.
		 */
		bool fresh = !(s % ipb);
		struct buffer_head *bh = fresh ? sb_getblk(sb, blk) : sb_bread(sb, blk);

		end = min(slot + 1, (s / ipb + 1) * ipb);
		if (!bh)
			return -EIO;
		/* Up to date before the journal takes it (a block between edges is fresh too). */
		if (fresh) {
			lock_buffer(bh);
			if (!buffer_uptodate(bh)) {
				memset(bh->b_data, 0, bh->b_size);
				set_buffer_uptodate(bh);
			}
			unlock_buffer(bh);
		}
		if (edge) {
			err = stalefs_get_write_access(sb, bh);
			if (err) {
				brelse(bh);
				return err;
			}
		}
		lock_buffer(bh);
		memset(bh->b_data + (s % ipb) * g->inode_size, 0,
		       (end - s) * g->inode_size);
		unlock_buffer(bh);
		err = edge ? stalefs_dirty_metadata(NULL, sb, bh) : write_now(sb, &bh, 1);
		brelse(bh);
		if (err)
			return err;
	}
	d->bg_itable_unused = cpu_to_le32(g->inodes_per_group - slot - 1);
	return 0;
}

int stalefs_new_ino(struct inode *dir, umode_t mode, u32 *ino)
{
	struct super_block *sb = dir->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom *g = &sbi->geom;
	u32 g0, i;
	int err = -ENOSPC;

	mutex_lock(&sbi->alloc_lock);
	g0 = stalefs_ino_group(g, dir->i_ino);
	if (S_ISDIR(mode)) {
		/* Spread directories: the next group with at least average free inodes. */
		u32 avg = sbi->free_inodes / g->groups_count;

		for (i = 0; i < g->groups_count; i++) {
			u32 grp = (sbi->last_group + i) % g->groups_count;

			u32 f = le32_to_cpu(stalefs_get_desc(sb, grp, NULL)->bg_free_inodes_count);

			if (f && f >= avg) {
				g0 = grp;
				break;
			}
		}
		sbi->last_group = (g0 + 1) % g->groups_count;
	}
	for (i = 0; i < g->groups_count; i++) {
		u32 grp = (g0 + i) % g->groups_count;
		struct buffer_head *dbh;
		struct stalefs_group_desc *d = stalefs_get_desc(sb, grp, &dbh);
		struct stalefs_bitmap bm;
		u32 bit, start = grp == 0 ? STALEFS_FIRST_INO - 1 : 0;

		if (!le32_to_cpu(d->bg_free_inodes_count))
			continue;
		err = inode_bitmap_get(sb, grp, d, dbh, &bm);
		if (err)
			goto out;
		bit = bm_find_zero(sb, &bm, start);
		if (bit >= bm.bits) {
			bitmap_release(&bm);
			stalefs_error(sb, 0, le64_to_cpu(d->bg_inode_bitmap),
				      "group %u: free inode count says free, bitmap has none", grp);
			err = -ENOSPC;
			continue;
		}
		err = bitmap_access(sb, &bm, bit, bit);
		if (!err)
			err = desc_access(sb, dbh);
		if (!err)
			err = itable_init_upto(sb, grp, d, bit);
		if (err) {
			bitmap_release(&bm);
			goto out;
		}
		bm_set(sb, &bm, bit, true);
		bitmap_dirty(sb, grp, &bm, &d->bg_inode_bitmap_csum);
		bitmap_release(&bm);
		le32_add_cpu(&d->bg_free_inodes_count, -1);
		if (S_ISDIR(mode))
			le32_add_cpu(&d->bg_used_dirs_count, 1);
		desc_dirty(sb, grp, d, dbh);
		sbi->free_inodes--;
		*ino = grp * g->inodes_per_group + bit + 1;
		err = 0;
		goto out;
	}
out:
	mutex_unlock(&sbi->alloc_lock);
	return err;
}

/* The inode's slot is free again; an orphan (FORMAT.md 13) stops being counted. */
void stalefs_free_ino(struct super_block *sb, u32 ino, bool dir, bool orphan)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom *g = &sbi->geom;
	u32 grp = stalefs_ino_group(g, ino);
	u32 bit = (ino - 1) % g->inodes_per_group;
	struct buffer_head *dbh;
	struct stalefs_group_desc *d;
	struct stalefs_bitmap bm;

	mutex_lock(&sbi->alloc_lock);
	d = stalefs_get_desc(sb, grp, &dbh);
	if (inode_bitmap_get(sb, grp, d, dbh, &bm))
		goto out;
	if (!bm_test(sb, &bm, bit)) {
		stalefs_error(sb, ino, le64_to_cpu(d->bg_inode_bitmap), "freeing a free inode");
		bitmap_release(&bm);
		goto out;
	}
	if (bitmap_access(sb, &bm, bit, bit) || desc_access(sb, dbh)) {
		bitmap_release(&bm);
		goto out;
	}
	bm_set(sb, &bm, bit, false);
	bitmap_dirty(sb, grp, &bm, &d->bg_inode_bitmap_csum);
	bitmap_release(&bm);
	le32_add_cpu(&d->bg_free_inodes_count, 1);
	if (dir && le32_to_cpu(d->bg_used_dirs_count))
		le32_add_cpu(&d->bg_used_dirs_count, -1);
	if (orphan && le32_to_cpu(d->bg_orphan_count))
		le32_add_cpu(&d->bg_orphan_count, -1);
	desc_dirty(sb, grp, d, dbh);
	sbi->free_inodes++;
out:
	mutex_unlock(&sbi->alloc_lock);
}

/*
 * The group of ino counts one inode more (delta 1) or less (-1) flagged
 * ORPHAN (FORMAT.md 13) or, stale, STALE (FORMAT.md 10).
 */
int stalefs_group_count(struct super_block *sb, u32 ino, bool stale, int delta)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u32 grp = stalefs_ino_group(&sbi->geom, ino);
	struct buffer_head *dbh;
	struct stalefs_group_desc *d;
	int err;

	mutex_lock(&sbi->alloc_lock);
	d = stalefs_get_desc(sb, grp, &dbh);
	err = desc_access(sb, dbh);
	if (!err) {
		__le32 *count = stale ? &d->bg_stale_count : &d->bg_orphan_count;

		if (delta > 0 || le32_to_cpu(*count))
			le32_add_cpu(count, delta);
		desc_dirty(sb, grp, d, dbh);
	}
	mutex_unlock(&sbi->alloc_lock);
	return err;
}

/*
 * resize.c: a grow makes the short last group whole.  The bits of its
 * blocks [from, to) (group-relative) were set as past the end: clear them
 * in the running transaction, with the free count.  An uninitialised bitmap
 * is built from the geometry when first used, which already says the
 * group is whole: only the count changes then.
 */
int stalefs_group_grow_bitmap(struct super_block *sb, u32 group, u32 from, u32 to)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct buffer_head *dbh;
	struct stalefs_group_desc *d = stalefs_get_desc(sb, group, &dbh);
	struct stalefs_bitmap bm;
	u32 i;
	int err;

	stalefs_assert_mutex(&sbi->alloc_lock);
	err = desc_access(sb, dbh);
	if (err)
		return err;
	if (!(le16_to_cpu(d->bg_flags) & STALEFS_BG_BLOCK_UNINIT)) {
		err = bitmap_get(sb, group, le64_to_cpu(d->bg_block_bitmap), sbi->geom.block_bitmap_blocks,
				 to, false, d->bg_block_bitmap_csum, &bm);
		if (err)
			return err;
		err = bitmap_access(sb, &bm, from, to - 1);
		if (err) {
			bitmap_release(&bm);
			return err;
		}
		for (i = from; i < to; i++)
			bm_set(sb, &bm, i, false);
		bitmap_dirty(sb, group, &bm, &d->bg_block_bitmap_csum);
		bitmap_release(&bm);
	}
	le32_add_cpu(&d->bg_free_blocks_count, to - from);
	desc_dirty(sb, group, d, dbh);
	return 0;
}
