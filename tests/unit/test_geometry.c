/*
 * Geometry: which groups hold superblock backups (sparse_super), the short
 * last group, per-group metadata counts and placement, inode location, and
 * the backups mkfs really writes.
 */
#include "unit.h"

/* FORMAT.md section 1: group 0, group 1 and the powers of 3, 5 and 7. */
static bool spec_has_backup(u32 group)
{
	static const u32 list[] = { 0, 1, 3, 5, 7, 9, 25, 27, 49, 81, 125, 243, 343, 625, 729, 2187, 2401,
				    3125, 6561 };
	size_t i;

	for (i = 0; i < sizeof(list) / sizeof(list[0]); i++)
		if (list[i] == group)
			return true;
	return false;
}

START_TEST(sparse_super_groups)
{
	struct stalefs_geom g;
	u32 i, n = 0;

	/* 8000 groups of 256 four-KiB blocks (125 GDT blocks fit in group 0). */
	ck_assert_int_eq(stalefs_geom_init(&g, 12, 256ULL * 8000, 256, 16, STALEFS_INODE_SIZE, true), 0);
	ck_assert_uint_eq(g.groups_count, 8000);
	for (i = 0; i < g.groups_count; i++) {
		ck_assert_msg(stalefs_group_has_super(&g, i) == spec_has_backup(i), "group %u: has_super %d", i,
			      stalefs_group_has_super(&g, i));
		n += stalefs_group_has_super(&g, i);
	}
	ck_assert_uint_eq(n, 19);
	ck_assert_int_eq(stalefs_geom_init(&g, 10, 256ULL * 100, 256, 16, STALEFS_INODE_SIZE, false), 0);
	for (i = 0; i < g.groups_count; i++)
		ck_assert(stalefs_group_has_super(&g, i));
}
END_TEST

START_TEST(short_last_group)
{
	struct stalefs_geom g;
	u32 meta;

	ck_assert_int_eq(stalefs_geom_init(&g, 12, 32768ULL * 3 + 1000, 32768, 8192, STALEFS_INODE_SIZE, true), 0);
	ck_assert_uint_eq(g.groups_count, 4);
	ck_assert_uint_eq(stalefs_group_nblocks(&g, 0), 32768);
	ck_assert_uint_eq(stalefs_group_nblocks(&g, 2), 32768);
	ck_assert_uint_eq(stalefs_group_nblocks(&g, 3), 1000);
	ck_assert_uint_eq(stalefs_group_first_block(&g, 3), 3 * 32768);
	ck_assert_uint_eq(stalefs_block_group(&g, 3 * 32768 - 1), 2);
	ck_assert_uint_eq(stalefs_block_group(&g, 3 * 32768), 3);
	/* A last group no larger than its own metadata is refused (group 3 holds a backup). */
	meta = stalefs_group_meta_blocks(&g, 3);
	ck_assert_uint_eq(meta, 1 + 1 + 1 + 1 + 8192 / 16);
	ck_assert_int_eq(stalefs_geom_init(&g, 12, 32768ULL * 3 + meta, 32768, 8192, STALEFS_INODE_SIZE, true),
			 STALEFS_R_SB_BLOCKS_COUNT);
	ck_assert_int_eq(stalefs_geom_init(&g, 12, 32768ULL * 3 + meta + 1, 32768, 8192, STALEFS_INODE_SIZE, true), 0);
}
END_TEST

START_TEST(metadata_counts)
{
	static const u32 logs[] = { 10, 11, 12 };
	size_t k;

	for (k = 0; k < 3; k++) {
		struct stalefs_geom g;
		u32 bs = 1u << logs[k], bpg = 8 * bs, ipg = bs / 256 * 64, groups = 200, i;
		u32 want_gdt = (groups + bs / 64 - 1) / (bs / 64);

		ck_assert_int_eq(stalefs_geom_init(&g, logs[k], (u64)bpg * groups, bpg, ipg, STALEFS_INODE_SIZE, true), 0);
		ck_assert_uint_eq(g.block_size, bs);
		ck_assert_uint_eq(g.sb_block, bs == 1024 ? 1 : 0);
		ck_assert_uint_eq(g.inodes_per_block, bs / 256);
		ck_assert_uint_eq(g.desc_per_block, bs / 64);
		ck_assert_uint_eq(g.gdt_blocks, want_gdt);
		ck_assert_uint_eq(g.block_bitmap_blocks, 1);
		ck_assert_uint_eq(g.inode_bitmap_blocks, 1);
		ck_assert_uint_eq(g.inode_table_blocks, 64);
		ck_assert_uint_eq(g.inodes_count, ipg * groups);
		for (i = 0; i < groups; i++) {
			u32 sup = i == 0 ? g.sb_block + 1 + want_gdt : (spec_has_backup(i) ? 1 + want_gdt : 0);
			u64 bb, ib, it, first = stalefs_group_first_block(&g, i);

			ck_assert_uint_eq(stalefs_group_super_blocks(&g, i), sup);
			ck_assert_uint_eq(stalefs_group_meta_blocks(&g, i), sup + 1 + 1 + 64);
			stalefs_group_default_layout(&g, i, &bb, &ib, &it);
			ck_assert_uint_eq(bb, first + sup);
			ck_assert_uint_eq(ib, first + sup + 1);
			ck_assert_uint_eq(it, first + sup + 2);
		}
	}
}
END_TEST

START_TEST(bigger_bitmaps)
{
	struct stalefs_geom g;

	/* 2^16 blocks per 1 KiB group need 8 bitmap blocks; 16384 inodes need 2. */
	ck_assert_int_eq(stalefs_geom_init(&g, 10, 1ULL << 18, 1u << 16, 16384, STALEFS_INODE_SIZE, true), 0);
	ck_assert_uint_eq(g.block_bitmap_blocks, 8);
	ck_assert_uint_eq(g.inode_bitmap_blocks, 2);
	ck_assert_uint_eq(g.inode_table_blocks, 4096);
}
END_TEST

START_TEST(geom_init_rejects)
{
	struct stalefs_geom g;

	ck_assert_int_eq(stalefs_geom_init(&g, 9, 1 << 20, 8192, 2048, STALEFS_INODE_SIZE, true), STALEFS_R_SB_BLOCK_SIZE);
	ck_assert_int_eq(stalefs_geom_init(&g, 13, 1 << 20, 8192, 2048, STALEFS_INODE_SIZE, true), STALEFS_R_SB_BLOCK_SIZE);
	ck_assert_int_eq(stalefs_geom_init(&g, 12, 1 << 20, 8193, 2048, STALEFS_INODE_SIZE, true), STALEFS_R_SB_BLOCKS_PER_GROUP);
	ck_assert_int_eq(stalefs_geom_init(&g, 12, 1 << 20, 1u << 29, 2048, STALEFS_INODE_SIZE, true), STALEFS_R_SB_BLOCKS_PER_GROUP);
	ck_assert_int_eq(stalefs_geom_init(&g, 12, 1 << 20, 8192, 0, STALEFS_INODE_SIZE, true), STALEFS_R_SB_INODES_PER_GROUP);
	ck_assert_int_eq(stalefs_geom_init(&g, 12, 1 << 20, 8192, 2047, STALEFS_INODE_SIZE, true), STALEFS_R_SB_INODES_PER_GROUP);
	/* More inode table than the group holds. */
	ck_assert_int_eq(stalefs_geom_init(&g, 12, 1 << 20, 256, 4096, STALEFS_INODE_SIZE, true), STALEFS_R_SB_INODES_PER_GROUP);
	ck_assert_int_eq(stalefs_geom_init(&g, 12, STALEFS_MAX_BLOCKS, 1u << 28, 16, STALEFS_INODE_SIZE, true), STALEFS_R_SB_BLOCKS_COUNT);
	ck_assert_int_eq(stalefs_geom_init(&g, 12, STALEFS_MAX_BLOCKS - 1, 1u << 28, 16, STALEFS_INODE_SIZE, true), 0);
}
END_TEST

START_TEST(inode_location)
{
	struct stalefs_geom g;
	struct stalefs_group_desc d;
	u32 ipg = 2048, ino;
	u64 block;
	u32 off;

	ck_assert_int_eq(stalefs_geom_init(&g, 12, 32768ULL * 4, 32768, ipg, STALEFS_INODE_SIZE, true), 0);
	memset(&d, 0, sizeof(d));
	d.bg_inode_table = cpu_to_le64(70000);
	for (ino = 1; ino <= g.inodes_count; ino += 97) {
		u32 slot = (ino - 1) % ipg;

		ck_assert_uint_eq(stalefs_ino_group(&g, ino), (ino - 1) / ipg);
		stalefs_ino_locate(&g, &d, ino, &block, &off);
		ck_assert_uint_eq(block, 70000 + slot / 16);
		ck_assert_uint_eq(off, (slot % 16) * 256);
	}
	/* Edges: the first and last inode of a group. */
	ck_assert_uint_eq(stalefs_ino_group(&g, ipg), 0);
	ck_assert_uint_eq(stalefs_ino_group(&g, ipg + 1), 1);
	stalefs_ino_locate(&g, &d, ipg, &block, &off);
	ck_assert_uint_eq(block, 70000 + ipg / 16 - 1);
	ck_assert_uint_eq(off, 15 * 256);
	stalefs_ino_locate(&g, &d, ipg + 1, &block, &off);
	ck_assert_uint_eq(block, 70000);
	ck_assert_uint_eq(off, 0);
}
END_TEST

START_TEST(super_offsets)
{
	struct stalefs_geom g;

	ck_assert_int_eq(stalefs_geom_init(&g, 10, 8192ULL * 4, 8192, 2048, STALEFS_INODE_SIZE, true), 0);
	ck_assert_uint_eq(stalefs_super_offset(&g, 0), 1024);
	ck_assert_uint_eq(stalefs_super_offset(&g, 1), 8192ULL * 1024);
	ck_assert_uint_eq(stalefs_super_offset(&g, 3), 3 * 8192ULL * 1024);
	ck_assert_int_eq(stalefs_geom_init(&g, 12, 32768ULL * 4, 32768, 2048, STALEFS_INODE_SIZE, true), 0);
	ck_assert_uint_eq(stalefs_super_offset(&g, 0), 1024);
	ck_assert_uint_eq(stalefs_super_offset(&g, 1), 32768ULL * 4096);
}
END_TEST

static void small_groups(struct stalefs_mkfs_params *p)
{
	p->blocks_per_group = 256;
}

/* mkfs writes a valid, self-describing copy in exactly the backup groups. */
START_TEST(backups_on_disk)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, 256 * 1024 * 30, 1024, small_groups);
	struct stalefs_io *io;
	u32 i, lpf;

	ck_assert_uint_eq(fs->geom.groups_count, 30);
	io = fs->io;
	for (i = 1; i < fs->geom.groups_count; i++) {
		struct stalefs_super_block sb;

		ck_ok(stalefs_read_super(io, stalefs_super_offset(&fs->geom, i), &sb));
		if (!spec_has_backup(i)) {
			ck_assert_msg(le32_to_cpu(sb.s_magic) != STALEFS_SUPER_MAGIC, "group %u has a superblock", i);
			continue;
		}
		ck_assert_msg(le32_to_cpu(sb.s_magic) == STALEFS_SUPER_MAGIC, "group %u lacks its backup", i);
		ck_assert_uint_eq(le32_to_cpu(sb.s_block_group_nr), i);
		ck_assert_int_eq(stalefs_verify_super(&sb), 0);
		ck_assert_int_eq(stalefs_verify_super_csum(&sb), 0);
		ck_assert_uint_eq(le64_to_cpu(sb.s_blocks_count), fs->geom.blocks_count);
	}
	/* Open from the backup in group 25, as fsck -b would: the same filesystem. */
	lpf = le32_to_cpu(s.fs->sb.s_lpf_ino);
	ck_assert_uint_eq(lpf, STALEFS_FIRST_INO);	/* FORMAT.md 5: mkfs makes lost+found there */
	ck_ok(stalefs_close(s.fs));
	ck_ok(stalefs_open(s.path, 0, 25 * 256, 0, &s.fs));
	ck_assert_uint_eq(s.fs->geom.groups_count, 30);
	ck_assert_uint_eq(le32_to_cpu(s.fs->sb.s_lpf_ino), lpf);
	ck_assert_uint_eq(s.fs->geom.blocks_count, 256 * 30);
	scratch_done(&s);
}
END_TEST

/*
 * FORMAT.md 4, META_BG: 1 KiB blocks (16 descriptors a block), 40 groups of 256 blocks, the
 * first descriptor block a table after each superblock copy in groups 0-15, blocks 1 and 2
 * in their meta groups' first, second and last groups.
 */
START_TEST(meta_bg_layout)
{
	struct stalefs_geom old, g;
	struct stalefs_super_block sb;
	u64 where[8];
	u32 i, grp, idx, n;

	ck_assert_int_eq(stalefs_geom_init(&old, 10, 256ULL * 16, 256, 16, STALEFS_INODE_SIZE, true), 0);
	ck_assert_uint_eq(old.gdt_blocks, 1);
	ck_assert_uint_eq(old.first_meta_bg, 1);
	ck_assert(!old.meta_bg);
	ck_assert_int_eq(stalefs_geom_resize(&g, &old, 256ULL * 40, true, 1), 0);
	ck_assert(g.meta_bg);
	ck_assert_uint_eq(g.gdt_blocks, 3);
	ck_assert_uint_eq(g.first_meta_bg, 1);
	for (i = 0; i < 40; i++) {
		u32 want_gdt, want_sup;

		if (i < 16)
			want_gdt = spec_has_backup(i) ? 1 : 0;
		else
			want_gdt = i % 16 == 0 || i % 16 == 1 || i % 16 == 15;
		want_sup = (spec_has_backup(i) ? (i == 0 ? 2 : 1) : 0) + want_gdt;
		ck_assert_msg(stalefs_group_gdt_blocks(&g, i) == want_gdt, "group %u", i);
		ck_assert_msg(stalefs_group_super_blocks(&g, i) == want_sup, "group %u", i);
		ck_assert(stalefs_group_in_table(&g, i) == (i < 16));
	}
	/* Where the primary and backup views read each block. */
	ck_assert_uint_eq(stalefs_gdt_block_loc(&g, 0, 0), 2);
	ck_assert_uint_eq(stalefs_gdt_block_loc(&g, 3, 0), 3 * 256 + 1);
	ck_assert_uint_eq(stalefs_gdt_block_loc(&g, 25, 0), 256 + 1);	/* backup in a meta group: group 1's */
	ck_assert_uint_eq(stalefs_gdt_block_loc(&g, 0, 1), 16 * 256);	/* group 16 has no superblock */
	ck_assert_uint_eq(stalefs_gdt_block_loc(&g, 1, 1), 17 * 256);
	ck_assert_uint_eq(stalefs_gdt_block_loc(&g, 0, 2), 32 * 256);
	ck_assert_uint_eq(stalefs_gdt_block_loc(&g, 3, 2), 33 * 256);
	/* Copies: block 1 in groups 16, 17, 31; block 2 in 32 and 33 (47 does not exist). */
	n = stalefs_gdt_block_copies(&g, 1, where, 8);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(where[0], 16 * 256);
	ck_assert_uint_eq(where[1], 17 * 256);
	ck_assert_uint_eq(where[2], 31 * 256);
	n = stalefs_gdt_block_copies(&g, 2, where, 8);
	ck_assert_uint_eq(n, 2);
	n = stalefs_gdt_block_copies(&g, 0, where, 8);
	ck_assert_uint_eq(n, 6);	/* groups 0, 1, 3, 5, 7, 9: 25 and 27 lie in a meta group */
	ck_assert(stalefs_block_is_gdt(&g, 31 * 256, &grp, &idx));
	ck_assert_uint_eq(grp, 31);
	ck_assert_uint_eq(idx, 1);
	ck_assert(stalefs_block_is_gdt(&g, 2, &grp, &idx));
	ck_assert_uint_eq(idx, 0);
	ck_assert(!stalefs_block_is_gdt(&g, 25 * 256, &grp, &idx));	/* the superblock copy */
	ck_assert(!stalefs_block_is_gdt(&g, 25 * 256 + 1, &grp, &idx));
	/* The superblock fields: META_BG and s_first_meta_bg go together, within the table. */
	memset(&sb, 0, sizeof(sb));
	sb.s_log_block_size = 0;
	sb.s_blocks_count = cpu_to_le64(256 * 40);
	sb.s_blocks_per_group = cpu_to_le32(256);
	sb.s_inodes_per_group = cpu_to_le32(16);
	sb.s_inode_size = cpu_to_le16(256);
	sb.s_groups_count = cpu_to_le32(40);
	sb.s_inodes_count = cpu_to_le32(640);
	sb.s_gdt_blocks = cpu_to_le32(3);
	sb.s_feature_ro_compat = cpu_to_le32(STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER);
	sb.s_feature_incompat = cpu_to_le32(STALEFS_FEATURE_INCOMPAT_META_BG);
	ck_assert_int_eq(stalefs_geom_from_super(&g, &sb), STALEFS_R_SB_META_BG);
	sb.s_first_meta_bg = cpu_to_le32(4);
	ck_assert_int_eq(stalefs_geom_from_super(&g, &sb), STALEFS_R_SB_META_BG);
	sb.s_first_meta_bg = cpu_to_le32(1);
	ck_assert_int_eq(stalefs_geom_from_super(&g, &sb), 0);
	sb.s_feature_incompat = 0;
	ck_assert_int_eq(stalefs_geom_from_super(&g, &sb), STALEFS_R_SB_META_BG);
}
END_TEST

Suite *geometry_suite(void)
{
	Suite *s = suite_create("geometry");
	TCase *tc = tcase_create("geometry");

	tcase_add_test(tc, sparse_super_groups);
	tcase_add_test(tc, short_last_group);
	tcase_add_test(tc, metadata_counts);
	tcase_add_test(tc, bigger_bitmaps);
	tcase_add_test(tc, geom_init_rejects);
	tcase_add_test(tc, inode_location);
	tcase_add_test(tc, super_offsets);
	tcase_add_test(tc, backups_on_disk);
	tcase_add_test(tc, meta_bg_layout);
	suite_add_tcase(s, tc);
	return s;
}
