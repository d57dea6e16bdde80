/*
 * Making filesystems through the library: stalefs_mkfs_layout for many sizes
 * and block sizes (the superblock it computes verifies and describes the
 * geometry asked for), the smallest device that works and the one block too
 * small, bad arguments, and what stalefs_mkfs leaves on disk.
 */
#include <fcntl.h>
#include <unistd.h>
#include "unit.h"

static const struct {
	u64 bytes;
	u32 bs;
} layouts[] = {
	{ 1 << 20, 1024 }, { 1 << 20, 2048 }, { 2 << 20, 4096 }, { 8 << 20, 1024 }, { 64ULL << 20, 4096 },
	{ 100ULL << 20, 2048 }, { 1ULL << 30, 1024 }, { (1ULL << 30) + 12345, 4096 }, { 64ULL << 30, 4096 },
	{ 1ULL << 40, 4096 }, { 1ULL << 40, 1024 }, { 16ULL << 40, 4096 }, { 256ULL << 40, 4096 },
	{ 256ULL << 40, 1024 }, { 1ULL << 50, 4096 }, { ((1ULL << 48) - 1) * 4096, 4096 },
};

START_TEST(layout_sizes)
{
	struct stalefs_mkfs_params p;
	struct stalefs_super_block sb;
	struct stalefs_geom g, g2;
	u64 bytes = layouts[_i].bytes, want_blocks;
	u32 bs = layouts[_i].bs, ipb = bs / 256;

	stalefs_mkfs_defaults(&p, bytes, bs);
	ck_ok(stalefs_mkfs_layout(&p, &sb, &g));
	want_blocks = bytes / bs;
	ck_assert_uint_eq(g.block_size, bs);
	ck_assert_uint_le(g.blocks_count, want_blocks);
	/* Only a last group too small for its metadata may be left off. */
	ck_assert_uint_gt(g.blocks_count + g.blocks_per_group, want_blocks);
	ck_assert_uint_eq(g.blocks_per_group & (g.blocks_per_group - 1), 0);
	ck_assert_uint_ge(g.blocks_per_group, STALEFS_MIN_BLOCKS_PER_GROUP);
	/* Bigger devices get bigger groups, up to 2^28 blocks, rather than more groups. */
	if (g.blocks_per_group < (1u << STALEFS_MAX_LOG_GROUP))
		ck_assert_uint_le(g.groups_count, 1024);
	ck_assert_uint_eq(g.groups_count, (g.blocks_count + g.blocks_per_group - 1) / g.blocks_per_group);
	ck_assert_uint_eq(g.inodes_per_group % ipb, 0);
	ck_assert_uint_ge(g.inodes_per_group, 16);
	ck_assert_uint_eq((u64)g.inodes_count, (u64)g.inodes_per_group * g.groups_count);
	/* About one inode per 16 KiB, unless the 2^32 limit bites. */
	if (bytes / 16384 < 0xF0000000ULL)
		ck_assert_uint_ge((u64)g.inodes_count + (u64)ipb * g.groups_count, g.blocks_count * bs / 16384);
	ck_assert_uint_gt(stalefs_group_nblocks(&g, g.groups_count - 1), stalefs_group_meta_blocks(&g, g.groups_count - 1));
	ck_assert_uint_ge(stalefs_group_nblocks(&g, 0), stalefs_group_meta_blocks(&g, 0) + 8);
	/* The superblock says the same, and verifies. */
	ck_assert_int_eq(stalefs_verify_super(&sb), 0);
	ck_assert_int_eq(stalefs_geom_from_super(&g2, &sb), 0);
	ck_assert_mem_eq(&g, &g2, sizeof(g));
	ck_assert_uint_eq(le64_to_cpu(sb.s_r_blocks_count), g.blocks_count * 5 / 100);
	ck_assert_uint_eq(le32_to_cpu(sb.s_csum_seed), stalefs_csum_seed_from_uuid(p.uuid));
	ck_assert(le32_to_cpu(sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER);
	ck_assert_uint_eq(le32_to_cpu(sb.s_stale_gid), STALEFS_STALE_GID_NONE);
	ck_assert(!(le32_to_cpu(sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE));
}
END_TEST

/* The smallest device at each block size works end to end; one block less is too small. */
START_TEST(smallest_device)
{
	static const u32 sizes[] = { 1024, 2048, 4096 };
	u32 bs = sizes[_i];
	struct stalefs_mkfs_params p;
	struct stalefs_super_block sb;
	struct stalefs_geom g;
	u64 blocks;
	struct scratch s;
	u32 ino;

	stalefs_mkfs_defaults(&p, 0, bs);
	for (blocks = 1; blocks < 4096; blocks++) {
		errcode_t err;

		p.blocks_count = blocks;
		err = stalefs_mkfs_layout(&p, &sb, &g);
		if (!err)
			break;
		hot_assert(err == STALEFS_ERR_DEVICE_TOO_SMALL, "%llu blocks: %s",
			   (unsigned long long)blocks, error_message(err));
	}
	ck_assert_uint_lt(blocks, 4096);
	ck_assert_uint_gt(blocks, 8);
	p.blocks_count = blocks - 1;
	ck_err(stalefs_mkfs_layout(&p, &sb, &g), STALEFS_ERR_DEVICE_TOO_SMALL);
	p.blocks_count = 0;
	ck_err(stalefs_mkfs_layout(&p, &sb, &g), STALEFS_ERR_DEVICE_TOO_SMALL);

	/* The smallest one really holds root, lost+found and a small file. */
	scratch_mkfs(&s, blocks * bs, bs);
	ck_assert_uint_eq(s.fs->geom.blocks_count, blocks);
	ck_ok(stalefs_create(s.fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_file_write(s.fs, ino, 0, "tiny", 4));
	scratch_reopen(&s);
	ck_ok(stalefs_namei(s.fs, STALEFS_ROOT_INO, "/f", false, &ino));
	scratch_done(&s);
}
END_TEST

START_TEST(bad_arguments)
{
	struct stalefs_mkfs_params p;
	struct stalefs_super_block sb;
	struct stalefs_geom g;
	static const u32 bad_bs[] = { 0, 512, 3072, 8192, 65536 };
	size_t i;

	for (i = 0; i < sizeof(bad_bs) / sizeof(bad_bs[0]); i++) {
		stalefs_mkfs_defaults(&p, 64 << 20, 4096);
		p.block_size = bad_bs[i];
		ck_err(stalefs_mkfs_layout(&p, &sb, &g), STALEFS_ERR_BAD_ARGUMENT);
	}
	stalefs_mkfs_defaults(&p, 64 << 20, 4096);
	p.blocks_per_group = 1000;
	ck_err(stalefs_mkfs_layout(&p, &sb, &g), STALEFS_ERR_BAD_ARGUMENT);
	stalefs_mkfs_defaults(&p, 64 << 20, 4096);
	p.blocks_count = STALEFS_MAX_BLOCKS;
	ck_assert_int_ne(stalefs_mkfs_layout(&p, &sb, &g), 0);
}
END_TEST

/* A last group too small for its metadata is left off, as mke2fs does. */
START_TEST(short_last_group_dropped)
{
	struct stalefs_mkfs_params p;
	struct stalefs_super_block sb;
	struct stalefs_geom g;

	stalefs_mkfs_defaults(&p, (3 * 1024 + 5) * 1024ULL, 1024);
	p.blocks_per_group = 1024;
	ck_ok(stalefs_mkfs_layout(&p, &sb, &g));
	ck_assert_uint_eq(g.blocks_count, 3 * 1024);
	ck_assert_uint_eq(g.groups_count, 3);
	stalefs_mkfs_defaults(&p, (3 * 1024 + 200) * 1024ULL, 1024);
	p.blocks_per_group = 1024;
	ck_ok(stalefs_mkfs_layout(&p, &sb, &g));
	ck_assert_uint_eq(g.blocks_count, 3 * 1024 + 200);
	ck_assert_uint_eq(g.groups_count, 4);
}
END_TEST

static void custom(struct stalefs_mkfs_params *p)
{
	u32 i;

	for (i = 0; i < 16; i++)
		p->uuid[i] = (u8)(i * 11);
	strcpy(p->label, "unit-label");
	p->stale_gid = 777;
	p->inodes_count = 1000;
	p->errors = STALEFS_ERRORS_RO;
	p->root_uid = 1234;
	p->root_gid = 5678;
	p->root_mode = 0710;
	p->reserved_percent = 10;
	p->zero_itables = true;
	p->blocks_per_group = 2048;
}

START_TEST(params_recorded)
{
	struct scratch s;
	stalefs_fs *fs;
	struct stalefs_inode root, lpf;
	u32 i, ino;
	u8 uuid[16];

	scratch_mkfs_with(&s, 16 << 20, 1024, custom);
	fs = scratch_reopen(&s);
	for (i = 0; i < 16; i++)
		uuid[i] = (u8)(i * 11);
	ck_assert_mem_eq(fs->sb.s_uuid, uuid, 16);
	ck_assert_uint_eq(fs->seed, stalefs_csum_seed_from_uuid(uuid));
	ck_assert_str_eq(fs->sb.s_volume_name, "unit-label");
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_stale_gid), 777);
	ck_assert(le32_to_cpu(fs->sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE);
	ck_assert_uint_ge(fs->geom.inodes_count, 1000);
	ck_assert_uint_lt(fs->geom.inodes_count, 1000 + fs->geom.groups_count * fs->geom.inodes_per_block);
	ck_assert_uint_eq(le16_to_cpu(fs->sb.s_errors), STALEFS_ERRORS_RO);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_r_blocks_count), fs->geom.blocks_count / 10);
	ck_assert_uint_eq(fs->geom.blocks_per_group, 2048);
	ck_assert_uint_eq(le16_to_cpu(fs->sb.s_state), STALEFS_STATE_CLEAN);
	for (i = 1; i < fs->geom.groups_count; i++)
		ck_assert_uint_eq(le32_to_cpu(fs->groups[i].desc.bg_itable_unused), 0);
	ck_ok(stalefs_read_inode(fs, STALEFS_ROOT_INO, &root));
	ck_assert_uint_eq(le16_to_cpu(root.i_mode), STALEFS_S_IFDIR | 0710);
	ck_assert_uint_eq(le32_to_cpu(root.i_uid), 1234);
	ck_assert_uint_eq(le32_to_cpu(root.i_gid), 5678);
	ck_assert_uint_eq(le16_to_cpu(root.i_links_count), 3);
	ck_assert_uint_eq(le64_to_cpu(root.i_size), 1024);
	ck_assert_uint_eq(le64_to_cpu(root.i_blocks), 1);
	ck_ok(stalefs_lookup(fs, STALEFS_ROOT_INO, "lost+found", 10, &ino));
	ck_assert_uint_eq(ino, le32_to_cpu(fs->sb.s_lpf_ino));
	ck_assert_uint_eq(ino, STALEFS_FIRST_INO);
	ck_ok(stalefs_read_inode(fs, ino, &lpf));
	ck_assert_uint_eq(le16_to_cpu(lpf.i_mode), STALEFS_S_IFDIR | 0700);
	ck_assert_uint_eq(le16_to_cpu(lpf.i_links_count), 2);
	ck_assert_uint_eq(le32_to_cpu(lpf.i_uid), 0);
	scratch_done(&s);
}
END_TEST

START_TEST(fresh_fs_is_consistent)
{
	static const u32 sizes[] = { 1024, 2048, 4096 };
	struct scratch s;
	stalefs_fs *fs;
	u32 i, bs = sizes[_i];
	u64 used = 0, b;

	scratch_mkfs(&s, 64 << 20, bs);
	fs = scratch_reopen(&s);
	ck_assert_int_eq(stalefs_verify_super(&fs->sb), 0);
	ck_assert_int_eq(stalefs_verify_super_csum(&fs->sb), 0);
	ck_assert_int_eq(fs->bad_desc_count, 0);
	for (i = 0; i < fs->geom.groups_count; i++) {
		ck_assert_int_eq(stalefs_verify_desc(&fs->geom, i, &fs->groups[i].desc), 0);
		ck_assert_int_eq(stalefs_verify_desc_csum(fs->seed, i, &fs->groups[i].desc), 0);
	}
	/* In use: every group's metadata, the journal, the root's and lost+found's directory blocks. */
	ck_assert(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	for (b = 0; b < fs->geom.blocks_count; b++)
		used += stalefs_test_block(fs, b);
	for (i = 0, b = 0; i < fs->geom.groups_count; i++)
		b += stalefs_group_meta_blocks(&fs->geom, i);
	ck_assert_uint_eq(used, b + le32_to_cpu(fs->sb.s_journal_blocks) + 2);
	for (b = 0; b < le32_to_cpu(fs->sb.s_journal_blocks); b++)
		hot_assert(stalefs_test_block(fs, le64_to_cpu(fs->sb.s_journal_block) + b), "journal block %llu free",
			   (unsigned long long)b);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), fs->geom.blocks_count - used);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_free_inodes_count), fs->geom.inodes_count - 11);
	/* Reserved inodes 1-10 and lost+found in 11, whatever the number of groups. */
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_lpf_ino), STALEFS_FIRST_INO);
	for (i = 1; i <= 11; i++)
		ck_assert(stalefs_test_inode(fs, i));
	scratch_done(&s);
}
END_TEST

START_TEST(device_problems)
{
	struct stalefs_mkfs_params p;
	stalefs_fs *fs = NULL;
	char path[] = "/tmp/stalefs-unit-small-XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 4 << 20), 0);
	close(fd);
	/* Asked for more blocks than the file holds. */
	stalefs_mkfs_defaults(&p, 8 << 20, 4096);
	ck_err(stalefs_mkfs(path, &p, &fs), STALEFS_ERR_DEVICE_TOO_SMALL);
	ck_assert_ptr_null(fs);
	/* Nothing was written: the file is still all zeros at the superblock. */
	{
		u8 buf[1024], zero[1024] = { 0 };

		fd = open(path, O_RDONLY);
		ck_assert_int_eq(pread(fd, buf, 1024, 1024), 1024);
		close(fd);
		ck_assert(memcmp(buf, zero, 1024) == 0);
	}
	ck_err(stalefs_open(path, 0, 0, 0, &fs), STALEFS_ERR_BAD_MAGIC);
	unlink(path);
	stalefs_mkfs_defaults(&p, 8 << 20, 4096);
	ck_assert_int_ne(stalefs_mkfs("/nonexistent-dir/img", &p, &fs), 0);
}
END_TEST

Suite *mkfs_lib_suite(void)
{
	Suite *s = suite_create("mkfs_lib");
	TCase *tc = tcase_create("mkfs_lib");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, layout_sizes, 0, sizeof(layouts) / sizeof(layouts[0]));
	tcase_add_loop_test(tc, smallest_device, 0, 3);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, short_last_group_dropped);
	tcase_add_test(tc, params_recorded);
	tcase_add_loop_test(tc, fresh_fs_is_consistent, 0, 3);
	tcase_add_test(tc, device_problems);
	suite_add_tcase(s, tc);
	return s;
}
