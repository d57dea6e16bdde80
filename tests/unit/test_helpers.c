/*
 * The small shared helpers: feature names, size parsing, mode and file type
 * mapping, and the allocator's summary recount and free-bit searches.
 */
#include "unit.h"

START_TEST(feature_names)
{
	static const struct {
		const char *name;
		int kind;
		u32 bit;
	} known[] = {
		{ "lazy_itable", 0, STALEFS_FEATURE_COMPAT_LAZY_ITABLE },
		{ "nohide_stale", 1, STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE },
		{ "sparse_super", 1, STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER },
		{ "extents", 2, STALEFS_FEATURE_INCOMPAT_EXTENTS },
		{ "filetype", 2, STALEFS_FEATURE_INCOMPAT_FILETYPE },
	};
	size_t i;
	int kind;
	u32 bit;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		ck_ok(stalefs_feature_parse(known[i].name, &kind, &bit));
		ck_assert_int_eq(kind, known[i].kind);
		ck_assert_uint_eq(bit, known[i].bit);
		ck_assert_str_eq(stalefs_feature_name(known[i].kind, known[i].bit), known[i].name);
	}
	ck_ok(stalefs_feature_parse("SPARSE_SUPER", &kind, &bit));
	ck_assert_uint_eq(bit, STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER);
	ck_ok(stalefs_feature_parse("FEATURE_I7", &kind, &bit));
	ck_assert_int_eq(kind, 2);
	ck_assert_uint_eq(bit, 1u << 7);
	ck_ok(stalefs_feature_parse("feature_c31", &kind, &bit));
	ck_assert_int_eq(kind, 0);
	ck_assert_uint_eq(bit, 1u << 31);
	ck_err(stalefs_feature_parse("FEATURE_R32", &kind, &bit), STALEFS_ERR_BAD_ARGUMENT);
	ck_err(stalefs_feature_parse("FEATURE_X1", &kind, &bit), STALEFS_ERR_BAD_ARGUMENT);
	ck_err(stalefs_feature_parse("FEATURE_I", &kind, &bit), STALEFS_ERR_BAD_ARGUMENT);
	ck_ok(stalefs_feature_parse("has_journal", &kind, &bit));
	ck_assert_int_eq(kind, 0);
	ck_assert_uint_eq(bit, STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	ck_ok(stalefs_feature_parse("needs_recovery", &kind, &bit));
	ck_assert_int_eq(kind, 2);
	ck_assert_uint_eq(bit, STALEFS_FEATURE_INCOMPAT_RECOVER);
	ck_assert_ptr_null(stalefs_feature_name(0, 0x8000));
	ck_assert_ptr_null(stalefs_feature_name(1, STALEFS_FEATURE_COMPAT_LAZY_ITABLE + 0x100));
}
END_TEST

START_TEST(sizes)
{
	static const struct {
		const char *s;
		u64 bytes;
	} good[] = {
		{ "0", 0 }, { "4096", 4096 }, { "1K", 1024 }, { "1k", 1024 }, { "3M", 3ULL << 20 },
		{ "2G", 2ULL << 30 }, { "1T", 1ULL << 40 }, { "64GiB", 64ULL << 30 }, { "5KB", 5120 },
		{ "16777215T", 16777215ULL << 40 },
	};
	static const char *const bad[] = { "", "K", "-1", "1X", "1.5G", "1KK", "1 K", "1B", "16777216T",
					   "99999999999999999999", " 1" };
	size_t i;
	u64 v;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ck_assert_msg(stalefs_parse_size(good[i].s, &v) == 0, "\"%s\" refused", good[i].s);
		ck_assert_msg(v == good[i].bytes, "\"%s\" gave %llu", good[i].s, (unsigned long long)v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(stalefs_parse_size(bad[i], &v) != 0, "\"%s\" accepted", bad[i]);
	ck_assert_int_ne(stalefs_parse_size(NULL, &v), 0);
}
END_TEST

START_TEST(modes_and_types)
{
	static const struct {
		u16 mode;
		u8 ft;
	} map[] = {
		{ STALEFS_S_IFREG | 0644, STALEFS_FT_REG }, { STALEFS_S_IFDIR | 0755, STALEFS_FT_DIR },
		{ STALEFS_S_IFCHR, STALEFS_FT_CHRDEV }, { STALEFS_S_IFBLK, STALEFS_FT_BLKDEV },
		{ STALEFS_S_IFIFO, STALEFS_FT_FIFO }, { STALEFS_S_IFSOCK, STALEFS_FT_SOCK },
		{ STALEFS_S_IFLNK | 0777, STALEFS_FT_SYMLINK }, { 0644, STALEFS_FT_UNKNOWN },
		{ 0170000, STALEFS_FT_UNKNOWN }, { 0030000, STALEFS_FT_UNKNOWN },
	};
	struct stalefs_inode in;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		ck_assert_uint_eq(stalefs_mode_to_ft(map[i].mode), map[i].ft);
		ck_assert_uint_eq(stalefs_ft_from_mode(map[i].mode), map[i].ft);
		ck_assert_int_eq(stalefs_mode_valid(map[i].mode), map[i].ft != STALEFS_FT_UNKNOWN);
	}
	/* The Linux values. */
	ck_assert_uint_eq(STALEFS_S_IFREG, 0100000);
	ck_assert_uint_eq(STALEFS_S_IFDIR, 0040000);
	ck_assert_uint_eq(STALEFS_S_IFLNK, 0120000);
	/* Only regular files, directories and block-backed symlinks have extent trees. */
	memset(&in, 0, sizeof(in));
	in.i_mode = cpu_to_le16(STALEFS_S_IFREG);
	ck_assert(stalefs_inode_has_extents(&in));
	in.i_mode = cpu_to_le16(STALEFS_S_IFDIR);
	ck_assert(stalefs_inode_has_extents(&in));
	in.i_mode = cpu_to_le16(STALEFS_S_IFLNK);
	ck_assert(stalefs_inode_has_extents(&in));
	in.i_flags = cpu_to_le32(STALEFS_INODE_INLINE_FL);
	ck_assert(!stalefs_inode_has_extents(&in));
	in.i_flags = 0;
	in.i_mode = cpu_to_le16(STALEFS_S_IFCHR);
	ck_assert(!stalefs_inode_has_extents(&in));
	in.i_mode = cpu_to_le16(STALEFS_S_IFIFO);
	ck_assert(!stalefs_inode_has_extents(&in));
}
END_TEST

/* recount rebuilds every summary from the bitmaps. */
START_TEST(recount_and_find)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 1024);
	u64 free_b = le64_to_cpu(fs->sb.s_free_blocks_count), blk, b;
	u32 free_i = le32_to_cpu(fs->sb.s_free_inodes_count), ino;

	fs->sb.s_free_blocks_count = cpu_to_le64(7);
	fs->sb.s_free_inodes_count = cpu_to_le32(7);
	fs->groups[1].desc.bg_free_blocks_count = cpu_to_le32(3);
	fs->groups[0].desc.bg_free_inodes_count = cpu_to_le32(3);
	stalefs_recount(fs);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free_b);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_free_inodes_count), free_i);
	/* Group 1 holds nothing but its metadata and the journal (the middle group of two). */
	ck_assert_uint_eq(stalefs_block_group(&fs->geom, le64_to_cpu(fs->sb.s_journal_block)), 1);
	ck_assert_uint_eq(le32_to_cpu(fs->groups[1].desc.bg_free_blocks_count),
			  stalefs_group_nblocks(&fs->geom, 1) - stalefs_group_meta_blocks(&fs->geom, 1) -
			  le32_to_cpu(fs->sb.s_journal_blocks));
	/* First free block and inode: the first zero bits. */
	ck_ok(stalefs_find_free_block(fs, 0, &blk));
	for (b = 0; b < blk; b++)
		ck_assert(stalefs_test_block(fs, b));
	ck_assert(!stalefs_test_block(fs, blk));
	ck_ok(stalefs_find_free_inode(fs, 0, &ino));
	ck_assert_uint_eq(ino, STALEFS_FIRST_INO + 1);
	ck_ok(stalefs_find_free_inode(fs, fs->geom.inodes_count, &ino));
	ck_assert_uint_eq(ino, fs->geom.inodes_count);
	ck_err(stalefs_find_free_block(fs, fs->geom.blocks_count, &blk), STALEFS_ERR_NO_SPACE);
	scratch_done(&s);
}
END_TEST

Suite *helpers_suite(void)
{
	Suite *s = suite_create("helpers");
	TCase *tc = tcase_create("helpers");

	tcase_add_test(tc, feature_names);
	tcase_add_test(tc, sizes);
	tcase_add_test(tc, modes_and_types);
	tcase_add_test(tc, recount_and_find);
	suite_add_tcase(s, tc);
	return s;
}
