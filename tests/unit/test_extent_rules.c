/*
 * The format core's extent rules (format/core/extent_rules.c), which the
 * module's extent map and the library's extent list both edit by: leaf
 * entry encoding, merging, splitting, searching, node heads and the index
 * levels a tree needs.
 */
#include "unit.h"

START_TEST(encode_decode_round_trip)
{
	struct stalefs_ext e = { 0xFFFFFFF0u, STALEFS_EXT_MAX_LEN, 0x123456789AULL, STALEFS_EXT_UNWRITTEN }, back;
	struct stalefs_extent d;
	const u8 *raw = (const u8 *)&d;

	stalefs_ext_encode(&d, &e);
	/* Little-endian on disk, at the offsets FORMAT.md gives. */
	ck_assert_uint_eq(raw[0], 0xF0);
	ck_assert_uint_eq(raw[3], 0xFF);
	ck_assert_uint_eq(le16_to_cpu(d.ee_len), STALEFS_EXT_MAX_LEN);
	ck_assert_uint_eq(le64_to_cpu(d.ee_pblk), 0x123456789AULL);
	stalefs_ext_decode(&d, &back);
	ck_assert_uint_eq(back.lblk, e.lblk);
	ck_assert_uint_eq(back.len, e.len);
	ck_assert_uint_eq(back.pblk, e.pblk);
	ck_assert_uint_eq(back.flags, e.flags);
	ck_assert_uint_eq(stalefs_ext_end(&back), 0xFFFFFFF0ULL + STALEFS_EXT_MAX_LEN);
}
END_TEST

START_TEST(merge_rules)
{
	struct stalefs_ext a = { 10, 5, 100, 0 }, b = { 15, 3, 105, 0 };

	ck_assert(stalefs_ext_mergeable(&a, &b));
	ck_assert(!stalefs_ext_mergeable(&b, &a));		/* order matters */
	b.pblk = 106;
	ck_assert(!stalefs_ext_mergeable(&a, &b));		/* not contiguous on disk */
	b.pblk = 105;
	b.lblk = 16;
	ck_assert(!stalefs_ext_mergeable(&a, &b));		/* a hole between */
	b.lblk = 15;
	b.flags = STALEFS_EXT_UNWRITTEN;
	ck_assert(!stalefs_ext_mergeable(&a, &b));		/* different flags */
	b.flags = 0;
	a.len = STALEFS_EXT_MAX_LEN - 3;
	b.lblk = 10 + a.len;
	b.pblk = 100 + a.len;
	ck_assert(stalefs_ext_mergeable(&a, &b));		/* exactly the longest extent */
	b.len = 4;
	ck_assert(!stalefs_ext_mergeable(&a, &b));		/* one block too long */
}
END_TEST

START_TEST(split_and_search)
{
	struct stalefs_ext e = { 100, 50, 1000, STALEFS_EXT_STALE }, tail;
	struct stalefs_ext run[3] = { { 0, 10, 500, 0 }, { 20, 5, 600, 0 }, { 30, 1, 700, 0 } };

	stalefs_ext_split(&e, 120, &tail);
	ck_assert_uint_eq(e.lblk, 100);
	ck_assert_uint_eq(e.len, 20);
	ck_assert_uint_eq(tail.lblk, 120);
	ck_assert_uint_eq(tail.len, 30);
	ck_assert_uint_eq(tail.pblk, 1020);
	ck_assert_uint_eq(tail.flags, STALEFS_EXT_STALE);
	ck_assert(stalefs_ext_mergeable(&e, &tail));		/* a split undone by a merge */
	ck_assert_uint_eq(stalefs_ext_array_search(run, 3, 0), 0);
	ck_assert_uint_eq(stalefs_ext_array_search(run, 3, 9), 0);
	ck_assert_uint_eq(stalefs_ext_array_search(run, 3, 10), 1);	/* the hole: the next one */
	ck_assert_uint_eq(stalefs_ext_array_search(run, 3, 24), 1);
	ck_assert_uint_eq(stalefs_ext_array_search(run, 3, 25), 2);
	ck_assert_uint_eq(stalefs_ext_array_search(run, 3, 31), 3);
	ck_assert_uint_eq(stalefs_ext_array_search(run, 0, 5), 0);
}
END_TEST

START_TEST(tree_levels)
{
	u32 count[STALEFS_EXT_MAX_DEPTH + 1], depth, nindex, cap = 100, leaves, i;

	/* Leaves that the root indexes directly. */
	ck_assert_int_eq(stalefs_ext_tree_levels(STALEFS_ROOT_EXTENTS, cap, count, &depth, &nindex), 0);
	ck_assert_uint_eq(depth, 1);
	ck_assert_uint_eq(nindex, 0);
	/* One more: a level of index nodes. */
	ck_assert_int_eq(stalefs_ext_tree_levels(STALEFS_ROOT_EXTENTS + 1, cap, count, &depth, &nindex), 0);
	ck_assert_uint_eq(depth, 2);
	ck_assert_uint_eq(count[1], 1);
	ck_assert_uint_eq(nindex, 1);
	/* The largest tree the depth limit allows, and one leaf past it. */
	leaves = STALEFS_ROOT_EXTENTS;
	for (i = 1; i < STALEFS_EXT_MAX_DEPTH; i++)
		leaves *= cap;
	ck_assert_int_eq(stalefs_ext_tree_levels(leaves, cap, count, &depth, &nindex), 0);
	ck_assert_uint_eq(depth, STALEFS_EXT_MAX_DEPTH);
	ck_assert_uint_eq(count[depth - 1], STALEFS_ROOT_EXTENTS);
	ck_assert_int_eq(stalefs_ext_tree_levels(leaves + 1, cap, count, &depth, &nindex), -1);
}
END_TEST

START_TEST(node_heads_verify)
{
	u32 bs = 1024;
	u8 *blk = calloc(1, bs);
	u8 iblock[STALEFS_IBLOCK_SIZE];
	struct stalefs_geom g;
	const struct stalefs_ext one = { 5, 2, 4000, 0 };

	ck_assert_ptr_nonnull(blk);
	ck_assert_int_eq(stalefs_geom_init(&g, 10, 8192, 8192, 256, STALEFS_INODE_SIZE, true), 0);
	memset(blk, 0xAB, bs);
	stalefs_extblock_init(blk, bs, 777, 12, 34, 0, 1);
	stalefs_ext_encode(stalefs_eh_extents(stalefs_extblock_eh(blk)), &one);
	ck_assert_int_eq(stalefs_verify_extblock_header(blk, 777, 12, 34), 0);
	ck_assert_int_eq(stalefs_verify_extblock_header(blk, 778, 12, 34), STALEFS_R_EXTBLK_BLOCKNR);
	ck_assert_int_eq(stalefs_verify_extblock_header(blk, 777, 12, 35), STALEFS_R_EXTBLK_OWNER);
	ck_assert_int_eq(stalefs_verify_extent_node(&g, stalefs_extblock_eh(blk),
						    stalefs_extblock_max_entries(bs), 0), 0);
	ck_assert_uint_eq(blk[bs - 1], 0);	/* the rest is zeroed */
	memset(iblock, 0xAB, sizeof(iblock));
	stalefs_extent_root_init((struct stalefs_extent_header *)iblock);
	ck_assert_int_eq(stalefs_verify_extent_node(&g, (struct stalefs_extent_header *)iblock,
						    STALEFS_ROOT_EXTENTS, 0), 0);
	ck_assert_uint_eq(iblock[STALEFS_IBLOCK_SIZE - 1], 0);
	free(blk);
}
END_TEST

Suite *extent_rules_suite(void)
{
	Suite *s = suite_create("extent_rules");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, encode_decode_round_trip);
	tcase_add_test(tc, merge_rules);
	tcase_add_test(tc, split_and_search);
	tcase_add_test(tc, tree_levels);
	tcase_add_test(tc, node_heads_verify);
	suite_add_tcase(s, tc);
	return s;
}
