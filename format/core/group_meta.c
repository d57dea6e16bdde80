// SPDX-License-Identifier: GPL-2.0
/*
 * A group's own metadata blocks (FORMAT.md section 4): the superblock copy
 * and descriptor table at its start, the two bitmaps and the inode table
 * where its descriptor places them.  Every user of "is this block group
 * metadata?" (the module's allocator and map loader, the library's
 * uninitialised bitmaps, fsck's maps and descriptor checks, the verifier)
 * asks here, so the answer cannot differ between them.
 */
#ifndef __KERNEL__
#include <string.h>
#endif
#include "stalefs_core.h"

void stalefs_group_meta_ranges(const struct stalefs_geom *g, u32 group,
			       const struct stalefs_group_desc *d,
			       struct stalefs_brange r[STALEFS_GM_COUNT])
{
	r[STALEFS_GM_SUPER].start = stalefs_group_first_block(g, group);
	r[STALEFS_GM_SUPER].len = stalefs_group_super_blocks(g, group);
	r[STALEFS_GM_BLOCK_BITMAP].start = le64_to_cpu(d->bg_block_bitmap);
	r[STALEFS_GM_BLOCK_BITMAP].len = g->block_bitmap_blocks;
	r[STALEFS_GM_INODE_BITMAP].start = le64_to_cpu(d->bg_inode_bitmap);
	r[STALEFS_GM_INODE_BITMAP].len = g->inode_bitmap_blocks;
	r[STALEFS_GM_INODE_TABLE].start = le64_to_cpu(d->bg_inode_table);
	r[STALEFS_GM_INODE_TABLE].len = g->inode_table_blocks;
}

static bool ranges_overlap(u64 a, u64 alen, u64 b, u64 blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

bool stalefs_group_meta_overlaps(const struct stalefs_geom *g, u32 group,
				 const struct stalefs_group_desc *d, u64 start, u64 len)
{
	struct stalefs_brange r[STALEFS_GM_COUNT];
	int k;

	stalefs_group_meta_ranges(g, group, d, r);
	for (k = 0; k < STALEFS_GM_COUNT; k++)
		if (ranges_overlap(start, len, r[k].start, r[k].len))
			return true;
	return false;
}

bool stalefs_range_on_group_meta(const struct stalefs_geom *g, stalefs_desc_fn desc, void *priv,
				 u64 start, u64 len)
{
	u32 grp, last;

	if (len == 0)
		return false;
	/* The boot area and primary superblock belong to no group's data. */
	if (start <= g->sb_block)
		return true;
	last = stalefs_block_group(g, start + len - 1);
	for (grp = stalefs_block_group(g, start); grp <= last && grp < g->groups_count; grp++)
		if (stalefs_group_meta_overlaps(g, grp, desc(priv, grp), start, len))
			return true;
	return false;
}

bool stalefs_group_data_holds(const struct stalefs_geom *g, u32 group, u64 start, u64 len)
{
	u64 first = stalefs_group_first_block(g, group) + stalefs_group_super_blocks(g, group);
	u64 end = stalefs_group_first_block(g, group) + stalefs_group_nblocks(g, group);

	return start >= first && start + len <= end && start + len > start;
}

u32 stalefs_desc_misplaced(const struct stalefs_geom *g, u32 group, const struct stalefs_group_desc *d)
{
	struct stalefs_brange r[STALEFS_GM_COUNT];
	const struct stalefs_brange *bb = &r[STALEFS_GM_BLOCK_BITMAP];
	const struct stalefs_brange *ib = &r[STALEFS_GM_INODE_BITMAP];
	const struct stalefs_brange *it = &r[STALEFS_GM_INODE_TABLE];
	u32 bad = 0;

	stalefs_group_meta_ranges(g, group, d, r);
	if (!stalefs_group_data_holds(g, group, bb->start, bb->len))
		bad |= 1u << STALEFS_GM_BLOCK_BITMAP;
	if (!stalefs_group_data_holds(g, group, ib->start, ib->len) ||
	    ranges_overlap(ib->start, ib->len, bb->start, bb->len))
		bad |= 1u << STALEFS_GM_INODE_BITMAP;
	if (!stalefs_group_data_holds(g, group, it->start, it->len) ||
	    ranges_overlap(it->start, it->len, bb->start, bb->len) ||
	    ranges_overlap(it->start, it->len, ib->start, ib->len))
		bad |= 1u << STALEFS_GM_INODE_TABLE;
	return bad;
}

void stalefs_group_uninit_block_bitmap(const struct stalefs_geom *g, u32 group,
				       const struct stalefs_group_desc *d, u8 *map, u32 bytes)
{
	struct stalefs_brange r[STALEFS_GM_COUNT];
	u64 first = stalefs_group_first_block(g, group), bits = (u64)bytes * 8, b;
	int k;

	memset(map, 0, bytes);
	stalefs_group_meta_ranges(g, group, d, r);
	/* Only the part inside the group: a damaged descriptor may point elsewhere. */
	for (k = 0; k < STALEFS_GM_COUNT; k++)
		for (b = r[k].start; b < r[k].start + r[k].len; b++)
			if (b >= first && b - first < bits)
				map[(b - first) >> 3] |= (u8)(1u << ((b - first) & 7));
	for (b = stalefs_group_nblocks(g, group); b < bits; b++)
		map[b >> 3] |= (u8)(1u << (b & 7));
}
