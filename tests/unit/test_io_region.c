/*
 * IMAGE?offset=N[&size=M]: a filesystem at a byte offset inside an image.  Every
 * read and write lands N bytes in, the region's size is the device's, nothing
 * passes its end (blocks through the cache, many blocks, byte ranges, zeroing,
 * overlay mode), bad syntax is refused, and a plain name with a '?' that
 * exists is that file.  The bytes around the region are checked unchanged.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include "unit.h"

#define IMG (24ULL << 20)
#define OFF (3ULL << 20)
#define SIZE (16ULL << 20)

/* A scratch image of IMG bytes filled with a pattern, reached as dir/img (unlinked by done()). */
struct region_img {
	char dir[64], path[128], name[192];
	int fd;
};

static u8 pattern_at(u64 off)
{
	return (u8)(off * 131 + (off >> 12) * 7 + 1);
}

static void img_make(struct region_img *r, const char *file)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	u8 *buf = malloc(1 << 20);
	u64 off, i;

	ck_assert_ptr_nonnull(buf);
	snprintf(r->dir, sizeof(r->dir), "%s/stalefs-region-XXXXXX", tmp);
	ck_assert_ptr_nonnull(mkdtemp(r->dir));
	snprintf(r->path, sizeof(r->path), "%s/%s", r->dir, file);
	r->fd = open(r->path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(r->fd, 0);
	for (off = 0; off < IMG; off += 1 << 20) {
		for (i = 0; i < (1 << 20); i++)
			buf[i] = pattern_at(off + i);
		ck_assert_int_eq(pwrite(r->fd, buf, 1 << 20, (off_t)off), 1 << 20);
	}
	free(buf);
}

static void img_done(struct region_img *r)
{
	close(r->fd);
	unlink(r->path);
	rmdir(r->dir);
}

/* The bytes outside [start, end) still hold the pattern. */
static void expect_outside_untouched(const struct region_img *r, u64 start, u64 end)
{
	u8 *buf = malloc(IMG);
	u64 i;

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(pread(r->fd, buf, IMG, 0), (ssize_t)IMG);
	for (i = 0; i < IMG; i++)
		if ((i < start || i >= end) && buf[i] != pattern_at(i))
			break;
	ck_assert_msg(i == IMG, "byte %llu outside the region [%llu, %llu) changed", (unsigned long long)i,
		      (unsigned long long)start, (unsigned long long)end);
	free(buf);
}

START_TEST(parse_names)
{
	struct region_img r;
	struct stalefs_io_name n;
	char name[256];

	img_make(&r, "disk.img");
	snprintf(name, sizeof(name), "%s?offset=1M&size=2G", r.path);
	ck_ok(stalefs_io_parse_name(name, &n));
	ck_assert(n.region);
	ck_assert_str_eq(n.path, r.path);
	ck_assert_uint_eq(n.offset, 1ULL << 20);
	ck_assert_uint_eq(n.size, 2ULL << 30);
	stalefs_io_name_free(&n);
	/* Either order, plain bytes. */
	snprintf(name, sizeof(name), "%s?size=4096&offset=512", r.path);
	ck_ok(stalefs_io_parse_name(name, &n));
	ck_assert(n.region && n.offset == 512 && n.size == 4096);
	stalefs_io_name_free(&n);
	/* No region: the path as it is. */
	ck_ok(stalefs_io_parse_name(r.path, &n));
	ck_assert(!n.region && n.offset == 0 && n.size == 0);
	ck_assert_str_eq(n.path, r.path);
	stalefs_io_name_free(&n);
	/* A '?' in a name whose first part does not exist: a plain (missing) path. */
	ck_ok(stalefs_io_parse_name("/nonexistent/x?offset=1M", &n));
	ck_assert(!n.region);
	ck_assert_str_eq(n.path, "/nonexistent/x?offset=1M");
	stalefs_io_name_free(&n);
	img_done(&r);
}
END_TEST

START_TEST(bad_syntax)
{
	static const char *const bad[] = {
		"?", "?offset", "?offset=", "?offset=abc", "?offset=1x", "?offset=-1", "?size=1M",
		"?offset=1M&", "?&offset=1M", "?offset=1M&&size=1M", "?offset=1M&offset=2M",
		"?offset=1M&size=0", "?offset=1M&size=1M&size=2M", "?offset=1M&bogus=1", "?foo=1",
		"?OFFSET=1M", "?offset=18446744073709551615&size=2", "?offset=1M&size=",
	};
	struct region_img r;
	struct stalefs_io_name n;
	struct stalefs_io *io;
	stalefs_fs *fs;
	char name[256];
	size_t i;

	img_make(&r, "disk.img");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", r.path, bad[i]);
		ck_assert_msg(stalefs_io_parse_name(name, &n) == STALEFS_ERR_BAD_REGION, "\"%s\" accepted", bad[i]);
		ck_err(stalefs_io_open(name, false, false, &io), STALEFS_ERR_BAD_REGION);
		ck_err(stalefs_open(name, 0, 0, 0, &fs), STALEFS_ERR_BAD_REGION);
		ck_assert(stalefs_io_error(STALEFS_ERR_BAD_REGION));
	}
	/* The message says what the syntax is. */
	ck_assert_ptr_nonnull(strstr(error_message(STALEFS_ERR_BAD_REGION), "IMAGE?offset=N"));
	img_done(&r);
}
END_TEST

START_TEST(outside_the_image)
{
	struct region_img r;
	struct stalefs_io *io;
	char name[256];

	img_make(&r, "disk.img");
	snprintf(name, sizeof(name), "%s?offset=%llu", r.path, (unsigned long long)IMG);
	ck_err(stalefs_io_open(name, false, false, &io), STALEFS_ERR_REGION_OUTSIDE);
	snprintf(name, sizeof(name), "%s?offset=100M", r.path);
	ck_err(stalefs_io_open(name, true, false, &io), STALEFS_ERR_REGION_OUTSIDE);
	ck_assert(stalefs_io_error(STALEFS_ERR_REGION_OUTSIDE));
	/* A file may be shorter than a region with size=: it grows when written. */
	snprintf(name, sizeof(name), "%s?offset=20M&size=16M", r.path);
	ck_ok(stalefs_io_open(name, true, false, &io));
	ck_ok(stalefs_io_close(io));
	img_done(&r);
}
END_TEST

START_TEST(offsets_honoured)
{
	struct region_img r;
	struct stalefs_io *io;
	char name[256];
	u8 blk[4096], many[4 * 4096], got[4 * 4096], raw[4096];
	u64 bytes, st = 11;

	img_make(&r, "disk.img");
	snprintf(name, sizeof(name), "%s?offset=3M&size=16M", r.path);
	ck_ok(stalefs_io_open(name, true, false, &io));
	ck_ok(stalefs_io_size(io, &bytes));
	ck_assert_uint_eq(bytes, SIZE);
	stalefs_io_set_block_size(io, 4096);
	/* Reads see the image N bytes in. */
	ck_ok(stalefs_io_read(io, 0, 1, blk));
	ck_assert_int_eq(blk[0], pattern_at(OFF));
	ck_assert_int_eq(blk[4095], pattern_at(OFF + 4095));
	ck_ok(stalefs_io_pread(io, 1000, 16, got));
	ck_assert_int_eq(got[0], pattern_at(OFF + 1000));
	/* One block through the cache, several past it, a byte range: all land N bytes in. */
	unit_fill(&st, blk, sizeof(blk));
	unit_fill(&st, many, sizeof(many));
	ck_ok(stalefs_io_write(io, 5, 1, blk));
	ck_ok(stalefs_io_write(io, 100, 4, many));
	ck_ok(stalefs_io_pwrite(io, 7 * 4096 + 10, 20, "twenty bytes, no nul"));
	ck_ok(stalefs_io_zero(io, 200, 3));
	ck_ok(stalefs_io_flush(io));
	ck_assert_int_eq(pread(r.fd, raw, 4096, (off_t)(OFF + 5 * 4096)), 4096);
	ck_assert_mem_eq(raw, blk, 4096);
	ck_assert_int_eq(pread(r.fd, got, sizeof(got), (off_t)(OFF + 100 * 4096)), (ssize_t)sizeof(got));
	ck_assert_mem_eq(got, many, sizeof(many));
	ck_assert_int_eq(pread(r.fd, raw, 20, (off_t)(OFF + 7 * 4096 + 10)), 20);
	ck_assert_mem_eq(raw, "twenty bytes, no nul", 20);
	memset(blk, 0, sizeof(blk));
	ck_assert_int_eq(pread(r.fd, raw, 4096, (off_t)(OFF + 201 * 4096)), 4096);
	ck_assert_mem_eq(raw, blk, 4096);
	/* And read back through the region. */
	ck_ok(stalefs_io_read_uncached(io, 100, 4, got));
	ck_assert_mem_eq(got, many, sizeof(many));
	/* The last block of the region is the last one there is. */
	ck_ok(stalefs_io_write(io, SIZE / 4096 - 1, 1, blk));
	ck_ok(stalefs_io_close(io));
	expect_outside_untouched(&r, OFF, OFF + SIZE);
	img_done(&r);
}
END_TEST

START_TEST(past_the_end_refused)
{
	struct region_img r;
	struct stalefs_io *io;
	char name[256];
	u8 blk[2 * 4096];
	u64 last = SIZE / 4096 - 1;

	img_make(&r, "disk.img");
	memset(blk, 0xA5, sizeof(blk));
	snprintf(name, sizeof(name), "%s?offset=3M&size=16M", r.path);
	ck_ok(stalefs_io_open(name, true, false, &io));
	stalefs_io_set_block_size(io, 4096);
	ck_err(stalefs_io_read(io, last + 1, 1, blk), STALEFS_ERR_PAST_REGION);
	ck_err(stalefs_io_read(io, last, 2, blk), STALEFS_ERR_PAST_REGION);
	ck_err(stalefs_io_read_uncached(io, last, 2, blk), STALEFS_ERR_PAST_REGION);
	ck_err(stalefs_io_write(io, last, 2, blk), STALEFS_ERR_PAST_REGION);
	ck_err(stalefs_io_pread(io, SIZE - 2, 4, blk), STALEFS_ERR_PAST_REGION);
	ck_err(stalefs_io_pwrite(io, SIZE - 2, 4, blk), STALEFS_ERR_PAST_REGION);
	ck_err(stalefs_io_zero(io, last, 2), STALEFS_ERR_PAST_REGION);
	/* A block past the end through the cache fails when it is written back. */
	ck_ok(stalefs_io_write(io, last + 1, 1, blk));
	ck_err(stalefs_io_flush(io), STALEFS_ERR_PAST_REGION);
	stalefs_io_discard(io);
	ck_ok(stalefs_io_close(io));
	expect_outside_untouched(&r, OFF, OFF + SIZE);
	/* Without size=, the region ends where the image does. */
	snprintf(name, sizeof(name), "%s?offset=3M", r.path);
	ck_ok(stalefs_io_open(name, false, false, &io));
	stalefs_io_set_block_size(io, 4096);
	ck_ok(stalefs_io_read(io, (IMG - OFF) / 4096 - 1, 1, blk));
	ck_err(stalefs_io_read(io, (IMG - OFF) / 4096, 1, blk), STALEFS_ERR_PAST_REGION);
	ck_ok(stalefs_io_close(io));
	img_done(&r);
}
END_TEST

/* A whole filesystem in the region: made, written, checked, and nothing outside touched. */
START_TEST(filesystem_in_region)
{
	struct region_img r;
	struct stalefs_mkfs_params p;
	stalefs_fs *fs;
	char name[256], got[64];
	static const char msg[] = "a file in a partition";
	size_t n;
	u32 ino;

	img_make(&r, "disk.img");
	snprintf(name, sizeof(name), "%s?offset=3M&size=16M", r.path);
	stalefs_mkfs_defaults(&p, SIZE, 1024);
	ck_ok(stalefs_mkfs(name, &p, &fs));
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_file_write(fs, ino, 0, msg, sizeof(msg)));
	ck_ok(stalefs_close(fs));
	expect_outside_untouched(&r, OFF, OFF + SIZE);
	/* Not at offset 0, so the plain name finds no filesystem there. */
	ck_err(stalefs_open(r.path, 0, 0, 0, &fs), STALEFS_ERR_BAD_MAGIC);
	ck_ok(stalefs_open(name, 0, 0, 0, &fs));
	ck_assert_str_eq(fs->device_name, name);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "f", false, &ino));
	ck_ok(stalefs_file_read(fs, ino, 0, got, sizeof(got), &n));
	ck_assert_uint_eq(n, sizeof(msg));
	ck_assert_str_eq(got, msg);
	stalefs_free(fs);
	/* Without size= the region runs to the image's end, which is more than the filesystem needs. */
	snprintf(name, sizeof(name), "%s?offset=3M", r.path);
	ck_ok(stalefs_open(name, 0, 0, 0, &fs));
	stalefs_free(fs);
	/* A region too small for the filesystem it holds. */
	snprintf(name, sizeof(name), "%s?offset=3M&size=8M", r.path);
	ck_err(stalefs_open(name, 0, 0, 0, &fs), STALEFS_ERR_DEVICE_TOO_SMALL);
	img_done(&r);
}
END_TEST

/* Overlay mode at an offset (fsck -n's way): the journal replayed and a file written in
 * memory, read back, and the image unchanged; then replayed for real, at the offset. */
START_TEST(overlay_in_region)
{
	struct region_img r;
	struct stalefs_mkfs_params p;
	struct stalefs_journal_recovery rec;
	stalefs_fs *fs;
	char name[256], got[64];
	u8 *before = malloc(IMG), *after = malloc(IMG), blk[1024], back[1024];
	static const char msg[] = "kept in memory";
	u64 target;
	size_t n;
	u32 ino;

	ck_assert(before && after);
	img_make(&r, "disk.img");
	snprintf(name, sizeof(name), "%s?offset=3M&size=16M", r.path);
	stalefs_mkfs_defaults(&p, SIZE, 1024);
	ck_ok(stalefs_mkfs(name, &p, &fs));
	target = fs->geom.blocks_count - 10;
	unit_journal_block(fs, target, 3, blk);
	ck_ok(stalefs_close(fs));
	ck_assert_int_eq(pread(r.fd, before, IMG, 0), (ssize_t)IMG);

	ck_ok(stalefs_open(name, STALEFS_OPEN_OVERLAY, 0, 0, &fs));
	ck_ok(stalefs_journal_recover(fs, &rec));
	ck_assert_uint_eq(rec.blocks_replayed, 1);
	ck_ok(stalefs_read_block(fs, target, back));
	ck_assert_mem_eq(back, blk, sizeof(blk));
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	/* A byte range inside a chunk: the overlay reads the rest of it from the region. */
	ck_ok(stalefs_file_write(fs, ino, 10, msg, sizeof(msg)));
	ck_ok(stalefs_flush(fs));
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "f", false, &ino));
	ck_ok(stalefs_file_read(fs, ino, 10, got, sizeof(got), &n));
	ck_assert_str_eq(got, msg);
	ck_ok(stalefs_close(fs));
	ck_assert_int_eq(pread(r.fd, after, IMG, 0), (ssize_t)IMG);
	ck_assert_mem_eq(before, after, IMG);

	ck_ok(stalefs_open(name, STALEFS_OPEN_RW | STALEFS_OPEN_JOURNAL, 0, 0, &fs));
	ck_ok(stalefs_journal_recover(fs, &rec));
	ck_assert_uint_eq(rec.blocks_replayed, 1);
	ck_ok(stalefs_close(fs));
	ck_assert_int_eq(pread(r.fd, back, sizeof(back), (off_t)(OFF + target * 1024)), (ssize_t)sizeof(back));
	ck_assert_mem_eq(back, blk, sizeof(blk));
	expect_outside_untouched(&r, OFF, OFF + SIZE);
	free(before);
	free(after);
	img_done(&r);
}
END_TEST

/* A plain file whose name holds '?': it exists, so it is that file, at offset 0. */
START_TEST(question_mark_in_a_real_name)
{
	struct region_img r;
	struct stalefs_io *io;
	struct stalefs_io_name n;
	u8 b;

	img_make(&r, "odd?offset=1M");
	ck_ok(stalefs_io_parse_name(r.path, &n));
	ck_assert(!n.region);
	ck_assert_str_eq(n.path, r.path);
	stalefs_io_name_free(&n);
	ck_ok(stalefs_io_open(r.path, false, false, &io));
	ck_ok(stalefs_io_pread(io, 0, 1, &b));
	ck_assert_int_eq(b, pattern_at(0));
	ck_ok(stalefs_io_close(io));
	/* Not mounted, and a region of a missing image is not either. */
	ck_assert(!stalefs_device_is_mounted(r.path));
	ck_assert(!stalefs_device_is_mounted("/nonexistent?offset=1M"));
	img_done(&r);
}
END_TEST

Suite *io_region_suite(void)
{
	Suite *s = suite_create("io_region");
	TCase *tc = tcase_create("io_region");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, parse_names);
	tcase_add_test(tc, bad_syntax);
	tcase_add_test(tc, outside_the_image);
	tcase_add_test(tc, offsets_honoured);
	tcase_add_test(tc, past_the_end_refused);
	tcase_add_test(tc, filesystem_in_region);
	tcase_add_test(tc, overlay_in_region);
	tcase_add_test(tc, question_mark_in_a_real_name);
	suite_add_tcase(s, tc);
	return s;
}
