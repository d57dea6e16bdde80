// SPDX-License-Identifier: GPL-2.0
/*
 * Giving free space back to the device: FITRIM (fstrim) and the discard
 * mount option.
 *
 * The one rule: never discard a block that the last committed state still
 * references, or a power cut could leave a committed file pointing at
 * trimmed blocks.  A block freed by a transaction waits in sbi->pending
 * (journal.c) until that transaction commits; online discard happens in
 * the commit callback, after the commit, while the block is still held
 * back from the allocator, and FITRIM skips pending blocks altogether.
 *
 * FITRIM takes a group's free extents under alloc_lock and marks them busy
 * (the allocator skips them, as it skips pending ones) while their discard
 * runs without the lock, so writers are held up only for the scan; ext4
 * marks the extent used in its buddy for the same reason.  The semantics
 * are ext4's (range start and length in bytes, minlen raised to the
 * device's discard granularity, EINVAL for a start past the end, a length
 * under a block or a minlen over a group; range.len comes back as the bytes
 * discarded).
 */
#include <linux/blkdev.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "stalefs.h"
#include "journal.h"

/* Extents one group's pass discards at a time: bounds what the allocator has to skip. */
#define TRIM_BATCH	256

/* ---- blocks the allocator must leave alone for now ---- */

/* Under alloc_lock: the busy extent holding block, or the first after it, as an index. */
static u32 busy_search(const struct stalefs_sb_info *sbi, u64 block)
{
	u32 lo = 0, hi = sbi->trim_nbusy;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;
		const struct stalefs_trim_ext *e = &sbi->trim_busy[mid];

		if (block >= e->start + e->len)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

u64 stalefs_busy_skip(struct super_block *sb, u64 block, u64 *limit)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u64 skip = stalefs_pending_skip(sb, block, limit);
	u32 i;

	if (skip || !sbi->trim_nbusy)
		return skip;
	i = busy_search(sbi, block);
	if (i == sbi->trim_nbusy)
		return 0;
	if (sbi->trim_busy[i].start <= block)
		return sbi->trim_busy[i].start + sbi->trim_busy[i].len;
	*limit = min(*limit, sbi->trim_busy[i].start);
	return 0;
}

/* ---- issuing discards ---- */

void stalefs_discard_begin(struct super_block *sb, struct stalefs_discard *dc)
{
	dc->sb = sb;
	dc->bio = NULL;
	dc->err = 0;
	dc->blocks = 0;
	blk_start_plug(&dc->plug);
}

/* Queue [start, start+len): one bio chain for all of them, waited for once. */
void stalefs_discard_add(struct stalefs_discard *dc, u64 start, u64 len)
{
	struct super_block *sb = dc->sb;
	int shift = sb->s_blocksize_bits - SECTOR_SHIFT;
	int err;

	if (dc->err || !len)
		return;
	err = __blkdev_issue_discard(sb->s_bdev, (sector_t)start << shift, (sector_t)len << shift,
				     GFP_NOFS, &dc->bio);
	if (err)
		dc->err = err;
	else
		dc->blocks += len;
}

int stalefs_discard_finish(struct stalefs_discard *dc)
{
	int err = dc->err;

	if (dc->bio) {
		int e2 = submit_bio_wait(dc->bio);

		bio_put(dc->bio);
		/* A device that stopped taking discards: nothing was lost, nothing to report. */
		if (!err && e2 != -EOPNOTSUPP)
			err = e2;
	}
	blk_finish_plug(&dc->plug);
	return err;
}

/*
 * Without a journal a freed block is reusable at once (there is no commit
 * to wait for): the discard goes out now, under alloc_lock, as ext4 does
 * in its no-journal mode.
 */
void stalefs_discard_now(struct super_block *sb, u64 start, u32 len)
{
	struct stalefs_discard dc;
	int err;

	if (!STALEFS_SB(sb)->discard)
		return;
	stalefs_discard_begin(sb, &dc);
	stalefs_discard_add(&dc, start, len);
	err = stalefs_discard_finish(&dc);
	if (err && err != -EOPNOTSUPP)
		pr_warn_ratelimited("stalefs (%s): discard of blocks %llu-%llu failed (error %d)\n",
				    sb->s_id, start, start + len - 1, err);
}

/* ---- FITRIM ---- */

/*
 * The group's block bitmap as it stands (under alloc_lock), into map:
 * read and verified, or, never written, made up from the geometry with the
 * journal's blocks marked (as alloc.c builds it).
 */
static int group_bitmap(struct super_block *sb, u32 group, u8 *map)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	const struct stalefs_geom *g = &sbi->geom;
	struct stalefs_group_desc *d = stalefs_get_desc(sb, group, NULL);
	u32 bytes = g->block_bitmap_blocks << sb->s_blocksize_bits, i;
	u64 first = stalefs_group_first_block(g, group), b;
	u32 crc = 0;

	if (le16_to_cpu(d->bg_flags) & STALEFS_BG_BLOCK_UNINIT) {
		stalefs_group_uninit_block_bitmap(g, group, d, map, bytes);
		for (b = sbi->journal_start; b < sbi->journal_start + sbi->journal_blocks; b++)
			if (b >= first && b - first < stalefs_group_nblocks(g, group))
				__set_bit_le(b - first, map);
		return 0;
	}
	for (i = 0; i < g->block_bitmap_blocks; i++) {
		struct buffer_head *bh = sb_bread(sb, le64_to_cpu(d->bg_block_bitmap) + i);

		if (!bh)
			return -EIO;
		memcpy(map + (i << sb->s_blocksize_bits), bh->b_data, sb->s_blocksize);
		brelse(bh);
	}
	crc = stalefs_bitmap_csum(sbi->csum_seed, group, map, bytes);
	if (crc != le32_to_cpu(d->bg_block_bitmap_csum)) {
		stalefs_error(sb, 0, le64_to_cpu(d->bg_block_bitmap),
			      "group %u: bitmap checksum does not match", group);
		return -EUCLEAN;
	}
	return 0;
}

/*
 * Under alloc_lock: the free extents of at least minlen blocks in group
 * bits [*from, last], skipping blocks a commit has not released, into
 * sbi->trim_busy (at most TRIM_BATCH); *from says where the next pass goes
 * on.  Returns how many.
 */
static u32 collect_free(struct super_block *sb, u32 group, const u8 *map, u32 *from, u32 last,
			u32 minlen)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u64 first = stalefs_group_first_block(&sbi->geom, group);
	u32 n = 0, bit = *from;
	/*
	 * What is busy is not allocatable meanwhile: never more than half of what is free past
	 * the conversion reserve, so a writer does not meet ENOSPC because of a trim.
	 */
	u64 spare = sbi->free_blocks > sbi->resv_blocks ? (sbi->free_blocks - sbi->resv_blocks) / 2 : 0;

	while (bit <= last && n < TRIM_BATCH && spare >= minlen) {
		u64 limit, skip;
		u32 end;

		bit = find_next_zero_bit_le(map, last + 1, bit);
		if (bit > last)
			break;
		skip = stalefs_pending_skip(sb, first + bit, &limit);
		if (skip) {
			bit = (u32)min_t(u64, skip - first, (u64)last + 1);
			continue;
		}
		end = find_next_bit_le(map, last + 1, bit);
		if (limit != U64_MAX && limit - first < end)
			end = (u32)(limit - first);
		if (end - bit > spare)
			end = bit + (u32)spare;
		if (end - bit >= minlen) {
			sbi->trim_busy[n].start = first + bit;
			sbi->trim_busy[n].len = end - bit;
			spare -= end - bit;
			n++;
		}
		bit = end;
	}
	*from = bit;
	return n;
}

/* Discard the free extents of one group within bits [from, last]; returns blocks discarded. */
static s64 trim_group(struct super_block *sb, u32 group, u32 from, u32 last, u32 minlen, u8 *map)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_discard dc;
	s64 trimmed = 0;
	int err = 0;
	u32 i, n;

	while (from <= last) {
		mutex_lock(&sbi->alloc_lock);
		if (le32_to_cpu(stalefs_get_desc(sb, group, NULL)->bg_free_blocks_count) < minlen) {
			mutex_unlock(&sbi->alloc_lock);
			break;
		}
		err = group_bitmap(sb, group, map);
		if (err) {
			mutex_unlock(&sbi->alloc_lock);
			break;
		}
		n = collect_free(sb, group, map, &from, last, minlen);
		sbi->trim_nbusy = n;
		mutex_unlock(&sbi->alloc_lock);
		if (!n)
			break;
		stalefs_discard_begin(sb, &dc);
		for (i = 0; i < n; i++)
			stalefs_discard_add(&dc, sbi->trim_busy[i].start, sbi->trim_busy[i].len);
		err = stalefs_discard_finish(&dc);
		trimmed += dc.blocks;
		mutex_lock(&sbi->alloc_lock);
		sbi->trim_nbusy = 0;
		mutex_unlock(&sbi->alloc_lock);
		if (err || fatal_signal_pending(current))
			break;
		cond_resched();
	}
	return err ? err : trimmed;
}

static int trim_fs(struct super_block *sb, struct fstrim_range *range)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	const struct stalefs_geom *g = &sbi->geom;
	u32 bits = sb->s_blocksize_bits, grp, first_grp, last_grp;
	u64 blocks = READ_ONCE(g->blocks_count), start, end, minlen, trimmed = 0;
	u8 *map;
	int err = 0;

	start = range->start >> bits;
	minlen = range->minlen >> bits;
	if (minlen > g->blocks_per_group || start >= blocks || range->len < sb->s_blocksize)
		return -EINVAL;
	if (!minlen)
		minlen = 1;
	end = range->len >> bits;
	end = end > blocks - start ? blocks - 1 : start + end - 1;
	/* Nothing before the first group's data can be free. */
	if (start <= g->sb_block)
		start = g->sb_block + 1;
	if (start > end)
		goto out;
	map = kvmalloc(g->block_bitmap_blocks << bits, GFP_KERNEL);
	if (!map)
		return -ENOMEM;
	first_grp = stalefs_block_group(g, start);
	last_grp = stalefs_block_group(g, end);
	mutex_lock(&sbi->trim_mutex);
	for (grp = first_grp; grp <= last_grp; grp++) {
		u64 gfirst = stalefs_group_first_block(g, grp);
		u32 from = grp == first_grp ? (u32)(start - gfirst) : 0;
		u32 last = grp == last_grp ? (u32)(end - gfirst) : stalefs_group_nblocks(g, grp) - 1;
		s64 n = trim_group(sb, grp, from, last, (u32)minlen, map);

		if (n < 0) {
			err = (int)n;
			break;
		}
		trimmed += n;
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
	}
	mutex_unlock(&sbi->trim_mutex);
	kvfree(map);
out:
	range->len = trimmed << bits;
	return err;
}

long stalefs_ioc_fitrim(struct file *file, struct fstrim_range __user *urange)
{
	struct super_block *sb = file_inode(file)->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct block_device *bdev = sb->s_bdev;
	struct fstrim_range range;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!bdev_max_discard_sectors(bdev))
		return -EOPNOTSUPP;
	if (stalefs_forced_shutdown(sb))
		return -EIO;
	/* Without the journal replayed the bitmaps may not say what is free (ext4 and XFS agree). */
	if (sbi->norecovery || bdev_read_only(bdev))
		return -EROFS;
	if (copy_from_user(&range, urange, sizeof(range)))
		return -EFAULT;
	range.minlen = max_t(u64, range.minlen, bdev_discard_granularity(bdev));
	err = trim_fs(sb, &range);
	if (err && err != -EINTR)
		return err;
	if (copy_to_user(urange, &range, sizeof(range)))
		return -EFAULT;
	return err;
}

int stalefs_trim_init(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);

	mutex_init(&sbi->trim_mutex);
	sbi->trim_busy = kcalloc(TRIM_BATCH, sizeof(*sbi->trim_busy), GFP_KERNEL);
	return sbi->trim_busy ? 0 : -ENOMEM;
}

void stalefs_trim_release(struct super_block *sb)
{
	kfree(STALEFS_SB(sb)->trim_busy);
	STALEFS_SB(sb)->trim_busy = NULL;
}
