/*
 * Overlay I/O mode: every write (blocks through the cache, byte ranges,
 * zeroing, flush, close) lands in memory, reads see it, and the device's
 * bytes are the same afterwards -- also for a journal replayed in overlay
 * mode, which is what fsck -n does.
 */
#include <fcntl.h>
#include <unistd.h>
#include "unit.h"

#define IMG_BYTES (8ULL << 20)

/* The whole image, to compare with afterwards. */
static u8 *snapshot(const struct scratch *s)
{
	u8 *img = malloc(IMG_BYTES);

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(pread(s->fd, img, IMG_BYTES, 0), (ssize_t)IMG_BYTES);
	return img;
}

static void expect_unchanged(const struct scratch *s, const u8 *before)
{
	u8 *now = snapshot(s);
	u64 i;

	for (i = 0; i < IMG_BYTES && now[i] == before[i]; i++)
		;
	ck_assert_msg(i == IMG_BYTES, "the device changed at byte %llu", (unsigned long long)i);
	free(now);
}

START_TEST(writes_stay_in_memory)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 1024);
	u8 *before, blk[1024], got[1024];
	u32 ino;
	u64 b;
	static const char msg[] = "written in the overlay, never on the disk";
	u64 st = 5;

	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	before = snapshot(&s);
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_OVERLAY, 0, 0, &s.fs));
	fs = s.fs;
	ck_assert(stalefs_io_is_overlay(fs->io));
	ck_assert(fs->flags & STALEFS_OPEN_RW);
	/* Files, directories, allocation: the whole library writes as usual. */
	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "d", 0755, 0, 0, &ino));
	ck_ok(stalefs_create(fs, ino, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_file_write(fs, ino, 0, msg, sizeof(msg)));
	ck_ok(stalefs_file_write(fs, ino, 300000, msg, sizeof(msg)));
	/* Raw blocks, many at once (past the cache) and one (through it). */
	{
		u8 *many = malloc(16 * 1024);

		unit_fill(&st, many, 16 * 1024);
		ck_ok(stalefs_io_write(fs->io, 5000, 16, many));
		ck_ok(stalefs_io_read(fs->io, 5000, 16, many + 0));
		free(many);
	}
	unit_fill(&st, blk, sizeof(blk));
	ck_ok(stalefs_write_block(fs, 6000, blk));
	/* Byte ranges across chunk boundaries, over what the device holds. */
	ck_ok(stalefs_io_pwrite(fs->io, 4096 * 3 - 10, 20, "0123456789abcdefghij"));
	ck_ok(stalefs_io_pread(fs->io, 4096 * 3 - 12, 24, got));
	ck_assert_mem_eq(got + 2, "0123456789abcdefghij", 20);
	ck_assert_mem_eq(got, before + 4096 * 3 - 12, 2);
	ck_assert_mem_eq(got + 22, before + 4096 * 3 + 10, 2);
	/* Zeroing: a whole range, and a block that was written before. */
	ck_ok(stalefs_io_zero(fs->io, 6000, 1));
	ck_ok(stalefs_read_block(fs, 6000, got));
	for (b = 0; b < sizeof(got); b++)
		hot_assert(got[b] == 0, "byte %llu of a zeroed block", (unsigned long long)b);
	ck_ok(stalefs_io_zero(fs->io, 1, 4000));	/* the superblock too, in memory */
	ck_ok(stalefs_io_pread(fs->io, STALEFS_SUPER_OFFSET, 4, got));
	ck_assert_uint_eq(got[0] | got[1] | got[2] | got[3], 0);
	ck_ok(stalefs_io_flush(fs->io));
	expect_unchanged(&s, before);
	/* The superblock and descriptors go out at close: to memory. */
	stalefs_mark_super_dirty(fs);
	fs->write_backups = true;
	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	expect_unchanged(&s, before);
	/* And the filesystem on the device is the one made, with none of that. */
	ck_ok(stalefs_open(s.path, 0, 0, 0, &s.fs));
	ck_err(stalefs_lookup(s.fs, STALEFS_ROOT_INO, "d", 1, &ino), STALEFS_ERR_NOT_FOUND);
	free(before);
	scratch_done(&s);
}
END_TEST

/* Reads inside the session see the overlay, file data included. */
START_TEST(reads_see_overlay)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	static const char msg[] = "overlay data";
	char buf[sizeof(msg)];
	size_t got;
	u32 ino;
	u8 *before;

	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	before = snapshot(&s);
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_OVERLAY, 0, 0, &s.fs));
	fs = s.fs;
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_file_write(fs, ino, 8192, msg, sizeof(msg)));
	/* Flushed out of the cache: now only the overlay has it. */
	ck_ok(stalefs_flush(fs));
	stalefs_io_set_cache_limit(fs->io, 1);
	ck_ok(stalefs_file_read(fs, ino, 8192, buf, sizeof(buf), &got));
	ck_assert_uint_eq(got, sizeof(msg));
	ck_assert_mem_eq(buf, msg, sizeof(msg));
	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	expect_unchanged(&s, before);
	free(before);
	scratch_done(&s);
}
END_TEST

/* An I/O channel opened for writing, switched to overlay: from then on nothing reaches the device. */
START_TEST(switch_to_overlay)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 1024);
	struct stalefs_io *io;
	u8 *before, blk[1024];

	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	before = snapshot(&s);
	ck_ok(stalefs_io_open(s.path, true, false, &io));
	stalefs_io_set_block_size(io, 1024);
	memset(blk, 0xAB, sizeof(blk));
	ck_ok(stalefs_io_write(io, 700, 1, blk));	/* dirty in the cache, not yet written */
	ck_ok(stalefs_io_set_overlay(io));
	ck_ok(stalefs_io_write(io, 701, 1, blk));
	ck_ok(stalefs_io_pwrite(io, 1024, 1024, blk));
	ck_ok(stalefs_io_close(io));
	expect_unchanged(&s, before);
	free(before);
	scratch_done(&s);
}
END_TEST

/* fsck -n's way: replay the journal in memory, look at the result, leave the device alone. */
START_TEST(recover_in_overlay)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 1024);
	struct stalefs_journal_recovery r;
	u8 blk[1024], got[1024], *before;
	u64 target = fs->geom.blocks_count - 10;

	unit_journal_block(fs, target, 11, blk);
	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	before = snapshot(&s);

	ck_ok(stalefs_open(s.path, STALEFS_OPEN_OVERLAY, 0, 0, &s.fs));
	fs = s.fs;
	ck_assert(le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER);
	ck_ok(stalefs_journal_recover(fs, &r));
	ck_assert_uint_eq(r.blocks_replayed, 1);
	ck_assert(!(le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER));
	ck_ok(stalefs_read_block(fs, target, got));
	ck_assert_mem_eq(got, blk, sizeof(blk));
	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	expect_unchanged(&s, before);
	/* Still to be replayed for real. */
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_RW | STALEFS_OPEN_JOURNAL, 0, 0, &s.fs));
	ck_assert(le32_to_cpu(s.fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER);
	ck_ok(stalefs_journal_recover(s.fs, &r));
	ck_assert_uint_eq(r.blocks_replayed, 1);
	ck_ok(stalefs_read_block(s.fs, target, got));
	ck_assert_mem_eq(got, blk, sizeof(blk));
	free(before);
	scratch_done(&s);
}
END_TEST

Suite *overlay_suite(void)
{
	Suite *s = suite_create("overlay");
	TCase *tc = tcase_create("overlay");

	tcase_add_test(tc, writes_stay_in_memory);
	tcase_add_test(tc, reads_see_overlay);
	tcase_add_test(tc, switch_to_overlay);
	tcase_add_test(tc, recover_in_overlay);
	suite_add_tcase(s, tc);
	return s;
}
