// SPDX-License-Identifier: GPL-2.0
/*
 * Sizes: the argument as resize2fs reads it, and the smallest size a
 * shrink can reach (-P, -M).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "resize.h"

int resize_parse_size(const char *s, u32 block_size, u64 *blocks)
{
	size_t n = s ? strlen(s) : 0, digits = s ? strspn(s, "0123456789") : 0;
	char num[32];
	u64 v;

	/* No unit: filesystem blocks; s: 512-byte sectors; K, M, G, T: binary units. */
	if (!digits || digits >= sizeof(num))
		return -1;
	if (digits == n - 1 && s[digits] == 's') {
		memcpy(num, s, digits);
		num[digits] = '\0';
		if (stalefs_parse_size(num, &v) || v > ~0ULL / 512)
			return -1;
		*blocks = v * 512 / block_size;
	} else {
		if (stalefs_parse_size(s, &v))
			return -1;
		*blocks = digits == n ? v : v / block_size;
	}
	return *blocks ? 0 : -1;
}

/* Blocks the data area of groups [0, groups) of geometry g holds. */
static u64 data_capacity(const struct stalefs_geom *g, u32 groups)
{
	u64 cap = 0;
	u32 i;

	for (i = 0; i < groups && i < g->groups_count; i++)
		cap += stalefs_group_nblocks(g, i) - stalefs_group_meta_blocks(g, i);
	return cap;
}

/*
 * As resize2fs' calculate_minimum_resize_size: enough groups for the inodes in
 * use (they are renumbered into the first groups), and enough data blocks for
 * what files hold now, the journal, and a margin for the tree nodes a move may
 * add (2% and 64 blocks); the last group as short as that allows.  The shrink
 * itself checks again, block by block, and refuses what does not fit.
 */
errcode_t resize_min_size(stalefs_fs *fs, int debug, u64 *blocks)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 used = g->blocks_count - le64_to_cpu(fs->sb.s_free_blocks_count), meta = 0, data, need;
	u32 used_inodes = g->inodes_count - le32_to_cpu(fs->sb.s_free_inodes_count);
	u32 journal = le32_to_cpu(fs->sb.s_journal_blocks), groups, i;
	/* Without a journal a shrink takes a temporary one of jbd2's smallest (shrink.c). */
	u32 room = journal ? journal : STALEFS_JOURNAL_MIN_BLOCKS;
	struct stalefs_geom ng;

	for (i = 0; i < g->groups_count; i++)
		meta += stalefs_group_meta_blocks(g, i);
	data = used > meta + journal ? used - meta - journal : 0;
	need = data + room + data / 50 + 64;
	groups = (used_inodes + g->inodes_per_group - 1) / g->inodes_per_group;
	if (groups == 0)
		groups = 1;
	if (debug & RESIZE_DEBUG_MIN_CALC)
		printf("min_size: %llu blocks used, %llu of them group metadata and %u the journal; "
		       "%u inodes in use need %u group(s); %llu data blocks needed\n",
		       (unsigned long long)used, (unsigned long long)meta, journal, used_inodes, groups,
		       (unsigned long long)need);
	for (; groups <= g->groups_count; groups++) {
		u64 want = (u64)groups << g->log_blocks_per_group, cap, before, last;

		if (stalefs_resize_geometry(g, want, &ng) || ng.groups_count != groups)
			continue;
		cap = data_capacity(&ng, groups);
		if (cap < need)
			continue;
		/* The last group: its metadata and what the others cannot hold. */
		before = data_capacity(&ng, groups - 1);
		last = stalefs_group_first_block(&ng, groups - 1) + stalefs_group_meta_blocks(&ng, groups - 1) +
		       (need > before ? need - before : 1);
		if (stalefs_resize_geometry(g, last, &ng) || ng.groups_count != groups)
			last = want;
		if (last > g->blocks_count)
			last = g->blocks_count;
		if (debug & RESIZE_DEBUG_MIN_CALC)
			printf("min_size: %u group(s) hold it: %llu blocks\n", groups, (unsigned long long)last);
		*blocks = last;
		return 0;
	}
	*blocks = g->blocks_count;
	return 0;
}
