/*
 * Orphans (FORMAT.md 13) and the repairs fsck makes to a journal: finishing
 * an orphan with no links (freed with its blocks) and one with links (a
 * regular file cut to its size, any other type only unflagged), the group's
 * bg_orphan_count following every step, the delete path dropping the flag
 * and the count, a journal made new where it is, and a filesystem opened
 * read-only switched to overlay mode without the device changing.
 */
#include <errno.h>
#include <unistd.h>
#include "unit.h"

#define IMG_BYTES (8ULL << 20)

static u32 orphan_count(stalefs_fs *fs, u32 ino)
{
	return le32_to_cpu(fs->groups[stalefs_ino_group(&fs->geom, ino)].desc.bg_orphan_count);
}

/* A regular file of `blocks` blocks, flagged ORPHAN and counted, with `links` links. */
static u32 make_orphan(stalefs_fs *fs, const char *name, u32 blocks, u16 links, u64 size)
{
	struct stalefs_inode inode;
	u8 *data = calloc(blocks, fs->block_size);
	u32 ino;

	ck_assert_ptr_nonnull(data);
	memset(data, 'x', (size_t)blocks * fs->block_size);
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, name, STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_file_write(fs, ino, 0, data, (size_t)blocks * fs->block_size));
	free(data);
	ck_ok(stalefs_read_inode(fs, ino, &inode));
	inode.i_links_count = cpu_to_le16(links);
	inode.i_size = cpu_to_le64(size);
	inode.i_flags = cpu_to_le32(le32_to_cpu(inode.i_flags) | STALEFS_INODE_ORPHAN_FL);
	ck_ok(stalefs_write_inode(fs, ino, &inode));
	stalefs_orphan_count_adjust(fs, ino, 1);
	return ino;
}

START_TEST(unlinked_orphan_freed)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	struct stalefs_orphan_result r;
	struct stalefs_inode inode;
	u64 free_before = le64_to_cpu(fs->sb.s_free_blocks_count);
	u32 ifree_before = le32_to_cpu(fs->sb.s_free_inodes_count);
	u32 ino = make_orphan(fs, "gone", 10, 0, 10 * 4096);

	ck_assert_uint_eq(orphan_count(fs, ino), 1);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free_before - 10);
	ck_ok(stalefs_orphan_finish(fs, ino, &r));
	ck_assert(r.freed);
	ck_assert_uint_eq(r.links, 0);
	ck_assert_uint_eq(r.size, 10 * 4096);
	ck_assert_uint_eq(r.blocks_freed, 10);
	ck_assert_uint_eq(orphan_count(fs, ino), 0);
	ck_assert(!stalefs_test_inode(fs, ino));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free_before);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_free_inodes_count), ifree_before);
	/* What is left of the slot (for lsdel) no longer says ORPHAN. */
	fs = scratch_reopen(&s);
	ck_ok(stalefs_read_inode(fs, ino, &inode));
	ck_assert(!(le32_to_cpu(inode.i_flags) & STALEFS_INODE_ORPHAN_FL));
	ck_assert_uint_ne(le64_to_cpu(inode.i_dtime), 0);
	ck_assert_uint_eq(orphan_count(fs, ino), 0);
	scratch_done(&s);
}
END_TEST

START_TEST(truncation_finished)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	struct stalefs_orphan_result r;
	struct stalefs_inode inode;
	u64 free_before = le64_to_cpu(fs->sb.s_free_blocks_count), pblk;
	u16 flags;
	/* 10 blocks, the size already cut to 3.5 blocks: blocks 0-3 stay. */
	u32 ino = make_orphan(fs, "cut", 10, 1, 3 * 4096 + 2048);

	ck_ok(stalefs_orphan_finish(fs, ino, &r));
	ck_assert(!r.freed);
	ck_assert_uint_eq(r.blocks_freed, 6);
	ck_assert_uint_eq(orphan_count(fs, ino), 0);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free_before - 4);
	fs = scratch_reopen(&s);
	ck_ok(stalefs_read_inode(fs, ino, &inode));
	ck_assert(!(le32_to_cpu(inode.i_flags) & STALEFS_INODE_ORPHAN_FL));
	ck_assert_uint_eq(le64_to_cpu(inode.i_blocks), 4);
	ck_assert_uint_eq(le64_to_cpu(inode.i_size), 3 * 4096 + 2048);
	ck_assert_uint_eq(le16_to_cpu(inode.i_links_count), 1);
	ck_ok(stalefs_bmap(fs, ino, 3, &pblk, &flags));
	ck_assert_uint_ne(pblk, 0);
	ck_ok(stalefs_bmap(fs, ino, 4, &pblk, &flags));
	ck_assert_uint_eq(pblk, 0);
	scratch_done(&s);
}
END_TEST

/* A directory with links keeps every block (its size says nothing about a truncation). */
START_TEST(directory_only_unflagged)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	struct stalefs_orphan_result r;
	struct stalefs_inode inode;
	u64 blocks;
	u32 ino;

	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "d", 0755, 0, 0, &ino));
	ck_ok(stalefs_read_inode(fs, ino, &inode));
	blocks = le64_to_cpu(inode.i_blocks);
	inode.i_size = 0;
	inode.i_flags = cpu_to_le32(le32_to_cpu(inode.i_flags) | STALEFS_INODE_ORPHAN_FL);
	ck_ok(stalefs_write_inode(fs, ino, &inode));
	stalefs_orphan_count_adjust(fs, ino, 1);
	ck_ok(stalefs_orphan_finish(fs, ino, &r));
	ck_assert(!r.freed);
	ck_assert_uint_eq(r.blocks_freed, 0);
	ck_ok(stalefs_read_inode(fs, ino, &inode));
	ck_assert_uint_eq(le64_to_cpu(inode.i_blocks), blocks);
	ck_assert(!(le32_to_cpu(inode.i_flags) & STALEFS_INODE_ORPHAN_FL));
	ck_assert_uint_eq(orphan_count(fs, ino), 0);
	scratch_done(&s);
}
END_TEST

START_TEST(not_an_orphan)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	struct stalefs_orphan_result r;
	u32 ino;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_err(stalefs_orphan_finish(fs, ino, &r), EINVAL);
	scratch_done(&s);
}
END_TEST

/* The delete path (debugfs kill_file, rm of the last link) keeps the count right, and a count
 * that is already 0 stays 0 rather than wrap. */
START_TEST(delete_drops_count)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	u32 a = make_orphan(fs, "a", 1, 0, 4096), b = make_orphan(fs, "b", 1, 0, 4096);

	ck_assert_uint_eq(orphan_count(fs, a), 2);
	ck_ok(stalefs_delete_inode(fs, a));
	ck_assert_uint_eq(orphan_count(fs, a), 1);
	fs->groups[stalefs_ino_group(&fs->geom, b)].desc.bg_orphan_count = 0;
	ck_ok(stalefs_delete_inode(fs, b));
	ck_assert_uint_eq(orphan_count(fs, b), 0);
	scratch_done(&s);
}
END_TEST

/* A journal superblock beyond repair: made new where the journal is, the log emptied. */
START_TEST(journal_reset)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	struct stalefs_jbd2_super jsb;
	u64 start = le64_to_cpu(fs->sb.s_journal_block);
	u8 *buf = calloc(1, fs->block_size);

	ck_assert_ptr_nonnull(buf);
	ck_assert(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	/* Garbage over the journal superblock and its first log block; needs_recovery set. */
	memset(buf, 0x5a, fs->block_size);
	ck_ok(stalefs_io_write(fs->io, start, 1, buf));
	ck_ok(stalefs_io_write(fs->io, start + 1, 1, buf));
	fs->sb.s_feature_incompat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_incompat) |
						STALEFS_FEATURE_INCOMPAT_RECOVER);
	ck_ok(stalefs_journal_read_super(fs, &jsb));
	ck_assert_int_ne(stalefs_jsb_verify(&jsb, &fs->sb), 0);
	ck_ok(stalefs_journal_reset(fs));
	ck_assert(!(le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER));
	fs = scratch_reopen(&s);
	ck_ok(stalefs_journal_read_super(fs, &jsb));
	ck_assert_int_eq(stalefs_jsb_verify(&jsb, &fs->sb), 0);
	ck_assert_uint_eq(be32toh(jsb.s_start), 0);
	ck_ok(stalefs_io_read(fs->io, start + 1, 1, buf));
	ck_assert_uint_eq(buf[0], 0);
	ck_assert_uint_eq(buf[fs->block_size - 1], 0);
	free(buf);
	scratch_done(&s);
}
END_TEST

/* Opened read-only, switched to overlay mode: writable, and the device never changes. */
START_TEST(set_overlay)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	u8 *before = malloc(IMG_BYTES), *after = malloc(IMG_BYTES);
	u32 ino;

	ck_assert_ptr_nonnull(before);
	ck_assert_ptr_nonnull(after);
	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	ck_assert_int_eq(pread(s.fd, before, IMG_BYTES, 0), (ssize_t)IMG_BYTES);
	ck_ok(stalefs_open(s.path, 0, 0, 0, &s.fs));
	fs = s.fs;
	ck_err(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino),
	       STALEFS_ERR_RO_FILSYS);
	ck_ok(stalefs_set_overlay(fs));
	ck_assert(stalefs_io_is_overlay(fs->io));
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_lookup(fs, STALEFS_ROOT_INO, "f", 1, &ino));
	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	ck_assert_int_eq(pread(s.fd, after, IMG_BYTES, 0), (ssize_t)IMG_BYTES);
	ck_assert(memcmp(before, after, IMG_BYTES) == 0);
	free(before);
	free(after);
	scratch_done(&s);
}
END_TEST

Suite *orphan_suite(void)
{
	Suite *su = suite_create("orphan");
	TCase *tc = tcase_create("orphan");

	tcase_add_test(tc, unlinked_orphan_freed);
	tcase_add_test(tc, truncation_finished);
	tcase_add_test(tc, directory_only_unflagged);
	tcase_add_test(tc, not_an_orphan);
	tcase_add_test(tc, delete_drops_count);
	tcase_add_test(tc, journal_reset);
	tcase_add_test(tc, set_overlay);
	suite_add_tcase(su, tc);
	return su;
}
