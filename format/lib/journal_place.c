// SPDX-License-Identifier: GPL-2.0
/*
 * How big the journal is and where it goes (FORMAT.md 12, mkfs.stalefs(8)),
 * and making it.
 *
 * Size: ext4's table (ext2fs_default_journal_size) by filesystem size, but a
 * stalefs journal is one contiguous run inside one group's data area, so it
 * is capped to 7/8 of the largest such area -- the rest of that group stays
 * for data -- and a filesystem whose groups cannot hold jbd2's minimum of
 * 1024 blocks gets none.
 *
 * Place: the middle group, as ext4 puts its journal mid-disk (half the
 * seeks from either end), right after that group's inode table; else the
 * following groups in turn, wrapping round to group 0.
 */
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include "libstalefs.h"
#include "lib_internal.h"

/* Group 0 of a new filesystem keeps this much room for the root and lost+found. */
#define GROUP0_RESERVE 8

/* The default journal size for a filesystem of this many blocks, before any cap. */
static u32 size_by_table(u64 blocks)
{
	static const struct {
		u64 below;	/* filesystem blocks */
		u32 journal;	/* journal blocks */
	} table[] = {
		{ STALEFS_JOURNAL_MIN_FS_BLOCKS, 0 },
		{ 32768, 1024 },		/* 4 MiB of journal at 4 KiB blocks */
		{ 256 * 1024, 4096 },
		{ 512 * 1024, 8192 },
		{ 4096 * 1024, 16384 },
		{ 8192 * 1024, 32768 },
		{ 16384 * 1024, 65536 },
		{ 32768 * 1024, 131072 },	/* 512 MiB */
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (blocks < table[i].below)
			return table[i].journal;
	return 262144;				/* 1 GiB at 4 KiB blocks */
}

/* A fresh group's data area: after its metadata in mkfs's layout, to the group's end. */
static void fresh_data_area(const struct stalefs_geom *g, u32 group, u64 *start, u64 *len)
{
	u64 bb, ib, it;
	u64 end = stalefs_group_first_block(g, group) + stalefs_group_nblocks(g, group);

	stalefs_group_default_layout(g, group, &bb, &ib, &it);
	*start = it + g->inode_table_blocks;
	*len = end > *start ? end - *start : 0;
	if (group == 0)
		*len = *len > GROUP0_RESERVE ? *len - GROUP0_RESERVE : 0;
}

u32 stalefs_journal_max_blocks(const struct stalefs_geom *g)
{
	u64 best = 0, start, len;
	u32 i;

	for (i = 0; i < g->groups_count; i++) {
		fresh_data_area(g, i, &start, &len);
		if (len > best)
			best = len;
	}
	return best > 0xFFFFFFFFULL ? 0xFFFFFFFFu : (u32)best;
}

u32 stalefs_journal_default_blocks(const struct stalefs_geom *g)
{
	u32 size = size_by_table(g->blocks_count);
	u32 cap = (u32)((u64)stalefs_journal_max_blocks(g) * 7 / 8);

	if (size > cap)
		size = cap;
	return size < STALEFS_JOURNAL_MIN_BLOCKS ? 0 : size;
}

/* The k-th group to try: the middle one, then the following ones, wrapping round. */
static u32 nth_choice(const struct stalefs_geom *g, u32 k)
{
	return (u32)(((u64)g->groups_count / 2 + k) % g->groups_count);
}

errcode_t stalefs_journal_plan(const struct stalefs_geom *g, u64 blocks, u64 *start)
{
	u64 s, len;
	u32 k;

	if (blocks < STALEFS_JOURNAL_MIN_BLOCKS)
		return STALEFS_ERR_JOURNAL_TOO_SMALL;
	for (k = 0; k < g->groups_count; k++) {
		fresh_data_area(g, nth_choice(g, k), &s, &len);
		if (len >= blocks) {
			*start = s;
			return 0;
		}
	}
	return STALEFS_ERR_JOURNAL_NO_ROOM;
}

errcode_t stalefs_journal_place(stalefs_fs *fs, u64 blocks, u64 *start)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 limit = fs->alloc_end && fs->alloc_end < g->blocks_count ? fs->alloc_end : g->blocks_count;
	u32 k;

	if (blocks < STALEFS_JOURNAL_MIN_BLOCKS)
		return STALEFS_ERR_JOURNAL_TOO_SMALL;
	if (!fs->bitmaps_loaded)
		return STALEFS_ERR_NO_BITMAPS;
	for (k = 0; k < g->groups_count; k++) {
		u32 group = nth_choice(g, k);
		u64 first = stalefs_group_first_block(g, group) + stalefs_group_super_blocks(g, group);
		u64 end = stalefs_group_first_block(g, group) + stalefs_group_nblocks(g, group);
		u64 b, run = 0;

		/* A shrink keeps it below alloc_end. */
		if (end > limit)
			end = limit;

		if (le32_to_cpu(fs->groups[group].desc.bg_free_blocks_count) < blocks)
			continue;
		/* The bitmap marks the group's bitmaps and inode table, so a free run avoids them. */
		for (b = first; b < end; b++) {
			run = stalefs_test_block(fs, b) ? 0 : run + 1;
			if (run == blocks) {
				*start = b + 1 - blocks;
				return 0;
			}
		}
	}
	return STALEFS_ERR_JOURNAL_NO_ROOM;
}

static u32 random_u32(void)
{
	u32 v;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = (u32)time(NULL) ^ (u32)clock();
	return v;
}

/* A journal's content made new at [start, start+blocks): the log zeroed, a fresh superblock. */
static errcode_t write_fresh(stalefs_fs *fs, u64 start, u32 blocks)
{
	struct stalefs_super_block sb;
	struct stalefs_jbd2_super jsb;
	errcode_t err;
	u8 *buf;

	/* A zeroed log holds nothing that could pass for a transaction, whatever the
	 * device held before; on an image file this is a hole punched, not gigabytes written. */
	err = stalefs_io_zero(fs->io, start + 1, blocks - 1);
	if (err)
		return err;
	/* A random first sequence: blocks of an earlier journal on the device cannot match it. */
	sb = fs->sb;
	sb.s_journal_blocks = cpu_to_le32(blocks);
	stalefs_jsb_init(&jsb, &sb, random_u32());
	buf = stalefs_xcalloc(1, fs->block_size);
	memcpy(buf, &jsb, sizeof(jsb));
	err = stalefs_io_write(fs->io, start, 1, buf);
	free(buf);
	return err;
}

/* A journal's blocks at [start, start + blocks): where one may lie, free, written fresh, taken. */
static errcode_t place_fresh(stalefs_fs *fs, u64 start, u32 blocks)
{
	const struct stalefs_geom *g = &fs->geom;
	errcode_t err;

	if (!stalefs_journal_range_ok(g, start, blocks))
		return STALEFS_ERR_BAD_BLOCK_NUM;
	if (!stalefs_block_range_free(fs, start, blocks))
		return STALEFS_ERR_JOURNAL_NO_ROOM;
	err = write_fresh(fs, start, blocks);
	if (err)
		return err;
	stalefs_mark_block_range(fs, start, blocks);
	stalefs_adjust_free_blocks(fs, stalefs_block_group(g, start), -(s64)blocks);
	return 0;
}

errcode_t stalefs_journal_create(stalefs_fs *fs, u64 start, u32 blocks)
{
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (!fs->bitmaps_loaded)
		return STALEFS_ERR_NO_BITMAPS;
	if (le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL)
		return STALEFS_ERR_JOURNAL_EXISTS;
	if (blocks < STALEFS_JOURNAL_MIN_BLOCKS)
		return STALEFS_ERR_JOURNAL_TOO_SMALL;
	err = place_fresh(fs, start, blocks);
	if (err)
		return err;
	fs->sb.s_journal_block = cpu_to_le64(start);
	fs->sb.s_journal_blocks = cpu_to_le32(blocks);
	fs->sb.s_journal_pad = 0;
	fs->sb.s_feature_compat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_compat) |
					      STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	stalefs_journal_clear_recover(fs);
	return 0;
}

errcode_t stalefs_journal_relocate(stalefs_fs *fs, u64 start)
{
	u64 old = le64_to_cpu(fs->sb.s_journal_block);
	u32 blocks = le32_to_cpu(fs->sb.s_journal_blocks);
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (!fs->bitmaps_loaded)
		return STALEFS_ERR_NO_BITMAPS;
	if (!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		return STALEFS_ERR_NO_JOURNAL;
	err = place_fresh(fs, start, blocks);
	if (err)
		return err;
	err = stalefs_free_blocks(fs, old, blocks);
	if (err)
		return err;
	fs->sb.s_journal_block = cpu_to_le64(start);
	stalefs_mark_super_dirty(fs);
	return 0;
}

errcode_t stalefs_journal_reset(stalefs_fs *fs)
{
	u64 start = le64_to_cpu(fs->sb.s_journal_block);
	u32 blocks = le32_to_cpu(fs->sb.s_journal_blocks);
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		return STALEFS_ERR_NO_JOURNAL;
	if (!stalefs_journal_range_ok(&fs->geom, start, blocks))
		return STALEFS_ERR_SB_CORRUPT;
	err = write_fresh(fs, start, blocks);
	if (err)
		return err;
	stalefs_journal_clear_recover(fs);
	return 0;
}
