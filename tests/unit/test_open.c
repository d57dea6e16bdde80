/*
 * Opening damaged filesystems: what the verifiers find in the superblock,
 * descriptors and inodes reaches the caller as the right error, and the
 * escape hatches (IGNORE_CSUM, FORCE, read-only for unknown ro_compat,
 * backup superblocks) do what they say and no more.
 */
#include "unit.h"

/* Rewrite the primary superblock through a callback; fix_csum recomputes the checksum. */
static void edit_super(struct scratch *s, void (*edit)(struct stalefs_super_block *sb), bool fix_csum)
{
	struct stalefs_io *io;
	struct stalefs_super_block sb;

	ck_ok(stalefs_io_open(s->path, true, false, &io));
	ck_ok(stalefs_read_super(io, STALEFS_SUPER_OFFSET, &sb));
	edit(&sb);
	if (fix_csum)
		stalefs_super_set_csum(&sb);
	ck_ok(stalefs_io_pwrite(io, STALEFS_SUPER_OFFSET, sizeof(sb), &sb));
	ck_ok(stalefs_io_close(io));
}

static void flip_label(struct stalefs_super_block *sb) { sb->s_volume_name[5] ^= 0x40; }
static void bad_magic(struct stalefs_super_block *sb) { sb->s_magic = cpu_to_le32(0xEF53); }
static void unknown_incompat(struct stalefs_super_block *sb) { sb->s_feature_incompat |= cpu_to_le32(0x8000); }
static void unknown_ro_compat(struct stalefs_super_block *sb) { sb->s_feature_ro_compat |= cpu_to_le32(0x8000); }
static void bad_first_ino(struct stalefs_super_block *sb) { sb->s_first_ino = cpu_to_le32(20); }
static void group_nr_1(struct stalefs_super_block *sb) { sb->s_block_group_nr = cpu_to_le32(1); }

static void made(struct scratch *s)
{
	scratch_mkfs(s, 32 << 20, 1024);
	ck_ok(stalefs_close(s->fs));
	s->fs = NULL;
}

START_TEST(super_checksum)
{
	struct scratch s;

	made(&s);
	edit_super(&s, flip_label, false);
	ck_err(stalefs_open(s.path, 0, 0, 0, &s.fs), STALEFS_ERR_SB_CSUM);
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_IGNORE_CSUM, 0, 0, &s.fs));
	ck_assert_int_eq(s.fs->sb_rule, STALEFS_R_SB_CSUM);
	ck_ok(stalefs_close(s.fs));
	/* The backup in group 1 is intact: fsck -b would start from it. */
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_RW, 8192, 1024, &s.fs));
	ck_assert_int_eq(s.fs->sb_rule, 0);
	/* Opening from a backup writes the primary back on flush. */
	ck_ok(stalefs_close(s.fs));
	ck_ok(stalefs_open(s.path, 0, 0, 0, &s.fs));
	scratch_done(&s);
}
END_TEST

START_TEST(super_rules)
{
	struct scratch s;

	made(&s);
	edit_super(&s, bad_magic, true);
	ck_err(stalefs_open(s.path, STALEFS_OPEN_FORCE, 0, 0, &s.fs), STALEFS_ERR_BAD_MAGIC);
	scratch_done(&s);

	made(&s);
	edit_super(&s, unknown_incompat, true);
	ck_err(stalefs_open(s.path, 0, 0, 0, &s.fs), STALEFS_ERR_UNSUPP_FEATURE);
	ck_err(stalefs_open(s.path, STALEFS_OPEN_FORCE, 0, 0, &s.fs), STALEFS_ERR_UNSUPP_FEATURE);
	scratch_done(&s);

	/* Unknown ro_compat: reading is safe, writing is not. */
	made(&s);
	edit_super(&s, unknown_ro_compat, true);
	ck_err(stalefs_open(s.path, STALEFS_OPEN_RW, 0, 0, &s.fs), STALEFS_ERR_RO_UNSUPP_FEATURE);
	ck_ok(stalefs_open(s.path, 0, 0, 0, &s.fs));
	scratch_done(&s);

	made(&s);
	edit_super(&s, bad_first_ino, true);
	ck_err(stalefs_open(s.path, 0, 0, 0, &s.fs), STALEFS_ERR_SB_CORRUPT);
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_FORCE, 0, 0, &s.fs));
	ck_assert_int_eq(s.fs->sb_rule, STALEFS_R_SB_FIRST_INO);
	scratch_done(&s);
}
END_TEST

/* Byte offset of group's descriptor in the primary table. */
static u64 desc_offset(stalefs_fs *fs, u32 group)
{
	return (u64)(fs->geom.sb_block + 1) * fs->block_size + (u64)group * STALEFS_DESC_SIZE;
}

START_TEST(descriptor_damage)
{
	struct scratch s;
	struct stalefs_group_desc d;
	u64 off;
	stalefs_fs *fs = scratch_mkfs(&s, 32 << 20, 1024);
	u32 seed = fs->seed;

	ck_assert_uint_ge(fs->geom.groups_count, 3);
	off = desc_offset(fs, 2);
	ck_ok(stalefs_io_pread(fs->io, off, sizeof(d), &d));
	ck_assert_int_eq(stalefs_verify_desc_csum(fs->seed, 2, &d), 0);
	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	{
		struct stalefs_io *io;

		ck_ok(stalefs_io_open(s.path, true, false, &io));
		/* A bit flipped: checksum. */
		d.bg_used_dirs_count ^= cpu_to_le32(1);
		ck_ok(stalefs_io_pwrite(io, off, sizeof(d), &d));
		ck_ok(stalefs_io_close(io));
		ck_err(stalefs_open(s.path, 0, 0, 0, &s.fs), STALEFS_ERR_GD_CSUM);
		ck_ok(stalefs_open(s.path, STALEFS_OPEN_IGNORE_CSUM, 0, 0, &s.fs));
		ck_assert_int_eq(s.fs->bad_desc_count, 1);
		ck_ok(stalefs_close(s.fs));
		s.fs = NULL;
		/* A valid checksum over a descriptor breaking a rule: corrupt. */
		ck_ok(stalefs_io_open(s.path, true, false, &io));
		d.bg_used_dirs_count ^= cpu_to_le32(1);
		d.bg_inode_table = d.bg_block_bitmap;
		stalefs_desc_set_csum(seed, 2, &d);
		ck_ok(stalefs_io_pwrite(io, off, sizeof(d), &d));
		ck_ok(stalefs_io_close(io));
	}
	ck_err(stalefs_open(s.path, 0, 0, 0, &s.fs), STALEFS_ERR_GD_CORRUPT);
	scratch_done(&s);
}
END_TEST

/* The primary's table goes with the primary, whatever its s_block_group_nr says. */
START_TEST(primary_group_nr)
{
	struct scratch s;
	struct stalefs_group_desc d0;
	stalefs_fs *fs = scratch_mkfs(&s, 32 << 20, 1024);

	ck_assert_uint_ge(fs->geom.groups_count, 2);
	/* Only the primary table gets this change: group 1's backup keeps mkfs' copy. */
	fs->groups[0].desc.bg_used_dirs_count = cpu_to_le32(le32_to_cpu(fs->groups[0].desc.bg_used_dirs_count) + 1);
	stalefs_mark_desc_dirty(fs, 0);
	ck_ok(stalefs_flush(fs));
	d0 = fs->groups[0].desc;
	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	edit_super(&s, group_nr_1, true);
	ck_ok(stalefs_open(s.path, 0, 0, 0, &s.fs));
	ck_assert_int_eq(memcmp(&s.fs->groups[0].desc, &d0, sizeof(d0)), 0);
	scratch_done(&s);

	/* One group: no group 1 to read a table from (this once failed the open). */
	scratch_mkfs(&s, 8 << 20, 4096);
	ck_assert_uint_eq(s.fs->geom.groups_count, 1);
	ck_ok(stalefs_close(s.fs));
	s.fs = NULL;
	edit_super(&s, group_nr_1, true);
	ck_ok(stalefs_open(s.path, 0, 0, 0, &s.fs));
	scratch_done(&s);
}
END_TEST

START_TEST(inode_damage)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 4096);
	struct stalefs_inode inode, raw;
	u32 ino, other;
	int rule;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_read_inode(fs, ino, &inode));
	raw = inode;
	raw.i_uid ^= cpu_to_le32(1);
	ck_ok(stalefs_write_inode_raw(fs, ino, &raw));
	ck_err(stalefs_read_inode(fs, ino, &inode), STALEFS_ERR_INODE_CSUM);
	ck_ok(stalefs_read_inode_raw(fs, ino, &inode, &rule));
	ck_assert_int_eq(rule, STALEFS_R_INODE_CSUM);
	/* Checksum right, content wrong. */
	raw.i_uid ^= cpu_to_le32(1);
	raw.i_mtime_nsec = cpu_to_le32(2000000000u);
	stalefs_inode_set_csum(fs->seed, ino, &raw);
	ck_ok(stalefs_write_inode_raw(fs, ino, &raw));
	ck_err(stalefs_read_inode(fs, ino, &inode), STALEFS_ERR_INODE_CORRUPT);
	ck_ok(stalefs_read_inode_raw(fs, ino, &inode, &rule));
	ck_assert_int_eq(rule, STALEFS_R_INODE_NSEC);
	/* An inode copied over another one's slot. */
	raw.i_mtime_nsec = 0;
	stalefs_inode_set_csum(fs->seed, ino, &raw);
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "g", STALEFS_S_IFREG | 0644, 0, 0, &other));
	ck_ok(stalefs_write_inode_raw(fs, other, &raw));
	ck_ok(stalefs_read_inode_raw(fs, other, &inode, &rule));
	ck_assert_int_eq(rule, STALEFS_R_INODE_CSUM);
	ck_err(stalefs_read_inode(fs, other, &inode), STALEFS_ERR_INODE_CSUM);
	/* A slot past bg_itable_unused reads as nothing, whatever the disk holds there. */
	ck_ok(stalefs_write_inode_raw(fs, other + 1, &raw));
	ck_ok(stalefs_read_inode_raw(fs, other + 1, &inode, &rule));
	ck_assert_int_eq(rule, 0);
	ck_assert_uint_eq(inode.i_mode, 0);
	ck_err(stalefs_read_inode(fs, 0, &inode), STALEFS_ERR_BAD_INODE_NUM);
	ck_err(stalefs_read_inode(fs, fs->geom.inodes_count + 1, &inode), STALEFS_ERR_BAD_INODE_NUM);
	scratch_done(&s);
}
END_TEST

Suite *open_suite(void)
{
	Suite *s = suite_create("open");
	TCase *tc = tcase_create("open");

	tcase_add_test(tc, super_checksum);
	tcase_add_test(tc, super_rules);
	tcase_add_test(tc, descriptor_damage);
	tcase_add_test(tc, primary_group_nr);
	tcase_add_test(tc, inode_damage);
	suite_add_tcase(s, tc);
	return s;
}
