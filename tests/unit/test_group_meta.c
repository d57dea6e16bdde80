/*
 * A group's own metadata (format/core/group_meta.c): the ranges a descriptor
 * places, overlap with a range (across groups, and a group without a
 * superblock copy), descriptor placement checks, and the bitmap of an
 * uninitialised group.
 */
#include "unit.h"

/* 4 groups of 1024 one-KiB blocks, 64 inodes a group, sparse_super: group 2 has no copy. */
static void geom4(struct stalefs_geom *g, struct stalefs_group_desc d[4])
{
	u32 i;

	ck_assert_int_eq(stalefs_geom_init(g, 10, 4096, 1024, 64, STALEFS_INODE_SIZE, true), 0);
	for (i = 0; i < 4; i++) {
		u64 bb, ib, it;

		stalefs_group_default_layout(g, i, &bb, &ib, &it);
		memset(&d[i], 0, sizeof(d[i]));
		d[i].bg_block_bitmap = cpu_to_le64(bb);
		d[i].bg_inode_bitmap = cpu_to_le64(ib);
		d[i].bg_inode_table = cpu_to_le64(it);
	}
}

static const struct stalefs_group_desc *desc_of(void *priv, u32 group)
{
	return &((const struct stalefs_group_desc *)priv)[group];
}

START_TEST(ranges_follow_descriptor)
{
	struct stalefs_geom g;
	struct stalefs_group_desc d[4];
	struct stalefs_brange r[STALEFS_GM_COUNT];
	u64 total = 0;
	int k;

	geom4(&g, d);
	stalefs_group_meta_ranges(&g, 1, &d[1], r);
	ck_assert_uint_eq(r[STALEFS_GM_SUPER].start, stalefs_group_first_block(&g, 1));
	ck_assert_uint_eq(r[STALEFS_GM_SUPER].len, stalefs_group_super_blocks(&g, 1));
	ck_assert_uint_eq(r[STALEFS_GM_BLOCK_BITMAP].start, le64_to_cpu(d[1].bg_block_bitmap));
	ck_assert_uint_eq(r[STALEFS_GM_INODE_TABLE].len, g.inode_table_blocks);
	for (k = 0; k < STALEFS_GM_COUNT; k++)
		total += r[k].len;
	ck_assert_uint_eq(total, stalefs_group_meta_blocks(&g, 1));
	stalefs_group_meta_ranges(&g, 2, &d[2], r);
	ck_assert_uint_eq(r[STALEFS_GM_SUPER].len, 0);
}
END_TEST

START_TEST(overlap_edges)
{
	struct stalefs_geom g;
	struct stalefs_group_desc d[4];
	u64 it2, g2, g3;

	geom4(&g, d);
	it2 = le64_to_cpu(d[2].bg_inode_table);
	g2 = stalefs_group_first_block(&g, 2);
	g3 = stalefs_group_first_block(&g, 3);
	/* Touching the inode table's first and last block, and just past it. */
	ck_assert(stalefs_group_meta_overlaps(&g, 2, &d[2], it2 - 5, 6));
	ck_assert(stalefs_group_meta_overlaps(&g, 2, &d[2], it2 + g.inode_table_blocks - 1, 1));
	ck_assert(!stalefs_group_meta_overlaps(&g, 2, &d[2], it2 + g.inode_table_blocks, 10));
	/* Group 2 has no superblock copy: with its bitmaps placed further in, a range
	 * across its first block is data, not metadata (the empty range is no range). */
	ck_assert(stalefs_group_meta_overlaps(&g, 2, &d[2], g2 - 1, 2));
	d[2].bg_inode_table = cpu_to_le64(g2 + 20);
	d[2].bg_block_bitmap = cpu_to_le64(g2 + 20 + g.inode_table_blocks);
	d[2].bg_inode_bitmap = cpu_to_le64(g2 + 21 + g.inode_table_blocks);
	ck_assert_uint_eq(stalefs_desc_misplaced(&g, 2, &d[2]), 0);
	ck_assert(!stalefs_group_meta_overlaps(&g, 2, &d[2], g2 - 1, 4));
	ck_assert(!stalefs_range_on_group_meta(&g, desc_of, d, g2 - 4, 8));
	ck_assert(stalefs_range_on_group_meta(&g, desc_of, d, g2 - 4, 25));
	/* Group 3 has one: a range running into it from group 2's tail touches it. */
	ck_assert(stalefs_range_on_group_meta(&g, desc_of, d, g3 - 4, 5));
	ck_assert(!stalefs_range_on_group_meta(&g, desc_of, d, g3 - 4, 4));
	/* The boot area and primary superblock. */
	ck_assert(stalefs_range_on_group_meta(&g, desc_of, d, 0, 1));
	ck_assert(stalefs_range_on_group_meta(&g, desc_of, d, g.sb_block, 1));
	ck_assert(!stalefs_range_on_group_meta(&g, desc_of, d, 5, 0));
}
END_TEST

START_TEST(misplaced_descriptor)
{
	struct stalefs_geom g;
	struct stalefs_group_desc d[4];
	u64 bb;

	geom4(&g, d);
	ck_assert_uint_eq(stalefs_desc_misplaced(&g, 1, &d[1]), 0);
	/* Inode bitmap on the block bitmap: the inode bitmap is the one named. */
	bb = le64_to_cpu(d[1].bg_block_bitmap);
	d[1].bg_inode_bitmap = cpu_to_le64(bb);
	ck_assert_uint_eq(stalefs_desc_misplaced(&g, 1, &d[1]), 1u << STALEFS_GM_INODE_BITMAP);
	ck_assert_int_eq(stalefs_verify_desc(&g, 1, &d[1]), STALEFS_R_BG_INODE_BITMAP);
	/* Block bitmap on the superblock copy; inode table in another group. */
	geom4(&g, d);
	d[1].bg_block_bitmap = cpu_to_le64(stalefs_group_first_block(&g, 1));
	d[1].bg_inode_table = cpu_to_le64(stalefs_group_first_block(&g, 2) + 100);
	ck_assert_uint_eq(stalefs_desc_misplaced(&g, 1, &d[1]),
			  (1u << STALEFS_GM_BLOCK_BITMAP) | (1u << STALEFS_GM_INODE_TABLE));
	ck_assert_int_eq(stalefs_verify_desc(&g, 1, &d[1]), STALEFS_R_BG_BLOCK_BITMAP);
	ck_assert(!stalefs_group_data_holds(&g, 1, stalefs_group_first_block(&g, 2) - 1, 2));
	ck_assert(!stalefs_group_data_holds(&g, 1, ~0ULL - 1, 4));	/* wraps */
}
END_TEST

START_TEST(uninit_bitmap)
{
	struct stalefs_geom g;
	struct stalefs_group_desc d[4];
	u32 bytes, b, set = 0;
	u8 *map;
	u64 first, it;

	geom4(&g, d);
	bytes = g.block_bitmap_blocks * g.block_size;
	map = calloc(1, bytes);
	ck_assert_ptr_nonnull(map);
	memset(map, 0xA5, bytes);
	stalefs_group_uninit_block_bitmap(&g, 3, &d[3], map, bytes);
	first = stalefs_group_first_block(&g, 3);
	it = le64_to_cpu(d[3].bg_inode_table);
	for (b = 0; b < stalefs_group_nblocks(&g, 3); b++) {
		bool want = stalefs_group_meta_overlaps(&g, 3, &d[3], first + b, 1);

		ck_assert_msg(!!(map[b / 8] & (1u << (b % 8))) == want, "block %u", b);
		set += want;
	}
	ck_assert_uint_eq(set, stalefs_group_meta_blocks(&g, 3));
	ck_assert(map[(it - first) / 8] & (1u << ((it - first) % 8)));
	/* Past the group's last block: all set (the last group is short). */
	for (b = stalefs_group_nblocks(&g, 3); b < bytes * 8; b++)
		ck_assert(map[b / 8] & (1u << (b % 8)));
	/* A descriptor pointing outside the group marks nothing there. */
	d[3].bg_inode_table = cpu_to_le64(5);
	stalefs_group_uninit_block_bitmap(&g, 3, &d[3], map, bytes);
	ck_assert(!(map[(it - first) / 8] & (1u << ((it - first) % 8))));
	free(map);
}
END_TEST

Suite *group_meta_suite(void)
{
	Suite *s = suite_create("group_meta");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, ranges_follow_descriptor);
	tcase_add_test(tc, overlap_edges);
	tcase_add_test(tc, misplaced_descriptor);
	tcase_add_test(tc, uninit_bitmap);
	suite_add_tcase(s, tc);
	return s;
}
