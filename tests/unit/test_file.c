/*
 * File data through the library: random writes checked against an in-memory
 * model, sparse holes, UNWRITTEN and STALE extents (zeros versus the disk's
 * old content), truncate down and up, punch, and i_blocks.
 */
#include <errno.h>
#include <unistd.h>
#include "unit.h"

#define MODEL_MAX (3u << 20)

/* Superblock free count against the bitmap (the allocator suite checks per group). */
static void free_count_matches(stalefs_fs *fs)
{
	u64 b, zeros = 0;

	for (b = 0; b < fs->geom.blocks_count; b++)
		zeros += !stalefs_test_block(fs, b);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), zeros);
}

/* i_blocks is data blocks plus tree node blocks. */
static void i_blocks_matches(stalefs_fs *fs, u32 ino)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	u64 data = 0;
	u32 i;

	ck_ok(stalefs_read_inode(fs, ino, &inode));
	ck_ok(stalefs_extent_read(fs, ino, &inode, &l));
	for (i = 0; i < l.count; i++)
		data += l.ext[i].len;
	ck_assert_uint_eq(le64_to_cpu(inode.i_blocks), data + l.tree_blocks);
	stalefs_extent_list_free(&l);
}

static void compare_file(stalefs_fs *fs, u32 ino, const u8 *model, u64 size)
{
	u8 *buf = malloc(size + 4096);
	size_t got;
	struct stalefs_inode inode;

	ck_ok(stalefs_read_inode(fs, ino, &inode));
	ck_assert_uint_eq(le64_to_cpu(inode.i_size), size);
	/* Ask for more than there is: reads stop at i_size. */
	ck_ok(stalefs_file_read(fs, ino, 0, buf, size + 4096, &got));
	ck_assert_uint_eq(got, size);
	ck_assert_msg(memcmp(buf, model, size) == 0, "file content differs from the model");
	free(buf);
}

static u32 new_file(stalefs_fs *fs, const char *name)
{
	u32 ino;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, name, STALEFS_S_IFREG | 0644, 0, 0, &ino));
	return ino;
}

START_TEST(random_writes_against_model)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 32 << 20, _i ? 1024 : 4096);
	u8 *model = calloc(MODEL_MAX, 1), *data = malloc(65536), *written;
	u64 size = 0, rng = 0xF11E + (u64)_i, b;
	u32 ino = new_file(fs, "data"), op, bs = fs->block_size;

	written = calloc(MODEL_MAX / bs, 1);
	for (op = 0; op < 300; op++) {
		u64 off = unit_rand(&rng) % (MODEL_MAX - 65536);
		size_t len = 1 + (size_t)(unit_rand(&rng) % (op % 5 ? 3000 : 65536));

		/* Cluster most writes so that they overlap and partly rewrite blocks. */
		if (op % 3)
			off %= 256 * 1024;
		unit_fill(&rng, data, len);
		ck_ok(stalefs_file_write(fs, ino, off, data, len));
		memcpy(model + off, data, len);
		for (b = off / bs; b <= (off + len - 1) / bs; b++)
			written[b] = 1;
		if (off + len > size)
			size = off + len;
		if (op % 50 == 0)
			compare_file(fs, ino, model, size);
	}
	compare_file(fs, ino, model, size);
	/* Reads at odd offsets and lengths. */
	for (op = 0; op < 200; op++) {
		u64 off = unit_rand(&rng) % size;
		size_t len = (size_t)(unit_rand(&rng) % 9000), got;

		ck_ok(stalefs_file_read(fs, ino, off, data, len, &got));
		ck_assert_uint_eq(got, off + len > size ? size - off : len);
		ck_assert(memcmp(data, model + off, got) == 0);
	}
	fs = scratch_reopen(&s);
	compare_file(fs, ino, model, size);
	/* Blocks never written are holes: unmapped. */
	for (b = 0; b < (size + bs - 1) / bs; b++) {
		u64 pblk;
		u16 flags;

		ck_ok(stalefs_bmap(fs, ino, (u32)b, &pblk, &flags));
		hot_assert((pblk != 0) == written[b], "block %llu: mapped %d, written %d", (unsigned long long)b,
			   pblk != 0, written[b]);
		hot_assert(flags == 0, "block %llu has flags %u", (unsigned long long)b, flags);
	}
	i_blocks_matches(fs, ino);
	free_count_matches(fs);
	free(model);
	free(data);
	free(written);
	scratch_done(&s);
}
END_TEST

START_TEST(sparse_holes)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 4096);
	u32 ino = new_file(fs, "sparse");
	u8 blk[4096], buf[4096];
	u64 pblk, free0 = le64_to_cpu(fs->sb.s_free_blocks_count);
	u16 flags;
	size_t got;
	struct stalefs_inode inode;

	memset(blk, 0x77, sizeof(blk));
	ck_ok(stalefs_file_write(fs, ino, 0, blk, 4096));
	ck_ok(stalefs_file_write(fs, ino, 1000ULL * 4096 + 10, blk, 100));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 2);
	ck_ok(stalefs_read_inode(fs, ino, &inode));
	ck_assert_uint_eq(le64_to_cpu(inode.i_size), 1000ULL * 4096 + 110);
	ck_assert_uint_eq(le64_to_cpu(inode.i_blocks), 2);
	ck_ok(stalefs_bmap(fs, ino, 500, &pblk, &flags));
	ck_assert_uint_eq(pblk, 0);
	ck_ok(stalefs_file_read(fs, ino, 500 * 4096, buf, 4096, &got));
	ck_assert_uint_eq(got, 4096);
	memset(blk, 0, sizeof(blk));
	ck_assert(memcmp(buf, blk, 4096) == 0);
	/* The written block's head (before offset 10) reads as zeros. */
	ck_ok(stalefs_file_read(fs, ino, 1000ULL * 4096, buf, 110, &got));
	ck_assert_uint_eq(got, 110);
	ck_assert(memcmp(buf, blk, 10) == 0);
	ck_assert_uint_eq(buf[10], 0x77);
	ck_assert_uint_eq(buf[109], 0x77);
	scratch_done(&s);
}
END_TEST

static void with_stale_gid(struct stalefs_mkfs_params *p)
{
	p->stale_gid = 4242;
}

/* Fill every free block with a pattern, as if old files had lived there. */
static void paint_free_blocks(stalefs_fs *fs, u8 pattern)
{
	u8 *blk = malloc(fs->block_size);
	u64 b;

	memset(blk, pattern, fs->block_size);
	for (b = 1; b < fs->geom.blocks_count; b++)
		if (!stalefs_test_block(fs, b))
			ck_ok(stalefs_io_write(fs->io, b, 1, blk));
	free(blk);
}

static bool all_bytes(const u8 *p, size_t n, u8 v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

START_TEST(unwritten_reads_zeros_stale_reads_disk)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, 8 << 20, 4096, with_stale_gid);
	u32 uw = new_file(fs, "unwritten"), st = new_file(fs, "stale");
	u8 buf[8 * 4096], disk[4096];
	size_t got;
	u64 pblk;
	u16 flags;
	struct stalefs_inode inode;

	paint_free_blocks(fs, 0xD5);
	ck_ok(stalefs_truncate(fs, uw, 8 * 4096));
	ck_ok(stalefs_truncate(fs, st, 8 * 4096));
	ck_ok(stalefs_fallocate(fs, uw, 0, 8, false));
	ck_ok(stalefs_fallocate(fs, st, 0, 8, true));

	/* Both are allocated on painted blocks. */
	ck_ok(stalefs_bmap(fs, uw, 3, &pblk, &flags));
	ck_assert_uint_ne(pblk, 0);
	ck_assert_uint_eq(flags, STALEFS_EXT_UNWRITTEN);
	ck_ok(stalefs_io_read(fs->io, pblk, 1, disk));
	ck_assert(all_bytes(disk, 4096, 0xD5));
	ck_ok(stalefs_bmap(fs, st, 3, &pblk, &flags));
	ck_assert_uint_ne(pblk, 0);
	ck_assert_uint_eq(flags, STALEFS_EXT_STALE);

	ck_ok(stalefs_file_read(fs, uw, 0, buf, sizeof(buf), &got));
	ck_assert_uint_eq(got, sizeof(buf));
	ck_assert_msg(all_bytes(buf, sizeof(buf), 0), "UNWRITTEN blocks must read as zeros");
	ck_ok(stalefs_file_read(fs, st, 0, buf, sizeof(buf), &got));
	ck_assert_uint_eq(got, sizeof(buf));
	ck_assert_msg(all_bytes(buf, sizeof(buf), 0xD5), "STALE blocks must read the disk's old content");

	/* The inode's STALE flag follows its extents. */
	ck_ok(stalefs_read_inode(fs, st, &inode));
	ck_assert(le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL);
	ck_assert_uint_eq(le64_to_cpu(inode.i_blocks), 8);
	ck_assert_uint_eq(le64_to_cpu(inode.i_size), 8 * 4096);
	ck_ok(stalefs_read_inode(fs, uw, &inode));
	ck_assert(!(le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL));

	/* A partial write into an unwritten block: the rest of that block reads zeros, not the disk;
	 * that block alone becomes written. */
	ck_ok(stalefs_file_write(fs, uw, 2 * 4096 + 100, "hello", 5));
	ck_ok(stalefs_file_read(fs, uw, 2 * 4096, buf, 4096, &got));
	ck_assert(all_bytes(buf, 100, 0));
	ck_assert(memcmp(buf + 100, "hello", 5) == 0);
	ck_assert(all_bytes(buf + 105, 4096 - 105, 0));
	ck_ok(stalefs_bmap(fs, uw, 2, &pblk, &flags));
	ck_assert_uint_eq(flags, 0);
	ck_ok(stalefs_bmap(fs, uw, 1, &pblk, &flags));
	ck_assert_uint_eq(flags, STALEFS_EXT_UNWRITTEN);
	ck_ok(stalefs_bmap(fs, uw, 3, &pblk, &flags));
	ck_assert_uint_eq(flags, STALEFS_EXT_UNWRITTEN);

	/* A partial write into a stale block keeps its old bytes around it (still STALE);
	 * whole-block writes clear STALE, and the inode flag goes with the last one. */
	ck_ok(stalefs_file_write(fs, st, 4096 + 10, "xy", 2));
	ck_ok(stalefs_file_read(fs, st, 4096, buf, 4096, &got));
	ck_assert(all_bytes(buf, 10, 0xD5));
	ck_assert(memcmp(buf + 10, "xy", 2) == 0);
	ck_assert(all_bytes(buf + 12, 4096 - 12, 0xD5));
	ck_ok(stalefs_bmap(fs, st, 1, &pblk, &flags));
	ck_assert_uint_eq(flags, STALEFS_EXT_STALE);
	memset(buf, 0x11, sizeof(buf));
	ck_ok(stalefs_file_write(fs, st, 0, buf, sizeof(buf)));
	ck_ok(stalefs_bmap(fs, st, 1, &pblk, &flags));
	ck_assert_uint_eq(flags, 0);
	ck_ok(stalefs_read_inode(fs, st, &inode));
	ck_assert(!(le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL));
	ck_assert_int_eq(stalefs_verify_inode(&fs->geom, st, &inode), 0);

	/* fallocate stale over unwritten converts it; written data is left alone. */
	ck_ok(stalefs_fallocate(fs, uw, 0, 8, true));
	ck_ok(stalefs_bmap(fs, uw, 5, &pblk, &flags));
	ck_assert_uint_eq(flags, STALEFS_EXT_STALE);
	ck_ok(stalefs_bmap(fs, uw, 2, &pblk, &flags));
	ck_assert_uint_eq(flags, 0);
	ck_ok(stalefs_file_read(fs, uw, 2 * 4096 + 100, buf, 5, &got));
	ck_assert(memcmp(buf, "hello", 5) == 0);
	ck_ok(stalefs_file_read(fs, uw, 5 * 4096, buf, 4096, &got));
	ck_assert(all_bytes(buf, 4096, 0xD5));

	fs = scratch_reopen(&s);
	ck_ok(stalefs_file_read(fs, uw, 5 * 4096, buf, 4096, &got));
	ck_assert(all_bytes(buf, 4096, 0xD5));
	i_blocks_matches(fs, uw);
	i_blocks_matches(fs, st);
	free_count_matches(fs);
	scratch_done(&s);
}
END_TEST

/* Writing zeros (buf NULL) zeroes mapped blocks and leaves holes as holes (libstalefs.h). */
START_TEST(null_write_keeps_holes)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 4096);
	u32 ino = new_file(fs, "z");
	u8 blk[4096], buf[7 * 4096];
	u64 pblk, free0;
	u16 flags;
	size_t got;

	memset(blk, 0xEE, sizeof(blk));
	ck_ok(stalefs_file_write(fs, ino, 0, blk, 4096));
	ck_ok(stalefs_file_write(fs, ino, 5 * 4096, blk, 4096));
	free0 = le64_to_cpu(fs->sb.s_free_blocks_count);
	ck_ok(stalefs_file_write(fs, ino, 2048, NULL, 7 * 4096 - 2048));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0);
	ck_ok(stalefs_bmap(fs, ino, 3, &pblk, &flags));
	ck_assert_uint_eq(pblk, 0);
	ck_ok(stalefs_bmap(fs, ino, 6, &pblk, &flags));
	ck_assert_uint_eq(pblk, 0);
	ck_ok(stalefs_file_read(fs, ino, 0, buf, sizeof(buf), &got));
	ck_assert_uint_eq(got, 7 * 4096);
	ck_assert(all_bytes(buf, 2048, 0xEE));
	ck_assert(all_bytes(buf + 2048, sizeof(buf) - 2048, 0));
	i_blocks_matches(fs, ino);
	scratch_done(&s);
}
END_TEST

/*
 * fallocate(stale) over several unwritten extents, the first of which merges
 * with a stale neighbour when converted: every unwritten one must turn STALE.
 */
START_TEST(stale_over_many_unwritten)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, 8 << 20, 4096, with_stale_gid);
	u32 ino = new_file(fs, "f"), other = new_file(fs, "other"), b;
	u64 pblk, p3, p6;
	u16 flags;

	ck_ok(stalefs_truncate(fs, ino, 12 * 4096));
	ck_ok(stalefs_fallocate(fs, ino, 0, 3, true));
	ck_ok(stalefs_fallocate(fs, ino, 3, 3, false));
	ck_ok(stalefs_file_write(fs, other, 0, "x", 1));	/* takes the block after them */
	ck_ok(stalefs_fallocate(fs, ino, 6, 3, false));
	ck_ok(stalefs_fallocate(fs, ino, 10, 2, false));
	ck_ok(stalefs_bmap(fs, ino, 5, &p3, &flags));
	ck_ok(stalefs_bmap(fs, ino, 6, &p6, &flags));
	ck_assert_msg(p6 != p3 + 1, "test setup: blocks 5 and 6 should not be contiguous");
	ck_ok(stalefs_fallocate(fs, ino, 0, 12, true));
	for (b = 0; b < 12; b++) {
		ck_ok(stalefs_bmap(fs, ino, b, &pblk, &flags));
		ck_assert_uint_ne(pblk, 0);
		ck_assert_msg(flags == STALEFS_EXT_STALE, "block %u has flags %u, expected STALE", b, flags);
	}
	i_blocks_matches(fs, ino);
	scratch_done(&s);
}
END_TEST

/* Running out of space part way: what was allocated is mapped (and freed with the file), not leaked. */
START_TEST(no_space_part_way)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 4096);
	u32 ino = new_file(fs, "f"), got;
	u64 start, last = 0;
	u8 *data = calloc(10, 4096);

	while (stalefs_alloc_blocks(fs, 0, 64, &start, &got) == 0)
		last = start + got - 5;
	ck_ok(stalefs_free_blocks(fs, last, 5));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), 5);
	ck_err(stalefs_file_write(fs, ino, 0, data, 10 * 4096), STALEFS_ERR_NO_SPACE);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), 0);
	ck_ok(stalefs_truncate(fs, ino, 0));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), 5);
	ck_err(stalefs_fallocate(fs, ino, 0, 10, false), STALEFS_ERR_NO_SPACE);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), 0);
	ck_ok(stalefs_punch(fs, ino, 0, 10));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), 5);
	i_blocks_matches(fs, ino);
	free_count_matches(fs);
	free(data);
	scratch_done(&s);
}
END_TEST

START_TEST(stale_needs_permitted_group)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 4096);
	u32 ino = new_file(fs, "f"), dir;
	u64 free0 = le64_to_cpu(fs->sb.s_free_blocks_count);

	ck_err(stalefs_fallocate(fs, ino, 0, 4, true), STALEFS_ERR_NO_STALE_GID);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0);
	ck_ok(stalefs_fallocate(fs, ino, 0, 4, false));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 4);
	/* Only regular files. */
	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "d", 0755, 0, 0, &dir));
	ck_err(stalefs_fallocate(fs, dir, 0, 1, false), STALEFS_ERR_NOT_REGULAR);
	scratch_done(&s);
}
END_TEST

START_TEST(truncate_down_and_up)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 4096);
	u32 ino = new_file(fs, "t");
	u8 *data = malloc(10 * 4096), *buf = malloc(10 * 4096);
	u64 free0 = le64_to_cpu(fs->sb.s_free_blocks_count), pblk;
	u16 flags;
	size_t got;
	u64 rng = 3;

	unit_fill(&rng, data, 10 * 4096);
	ck_ok(stalefs_file_write(fs, ino, 0, data, 10 * 4096));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 10);
	/* Down to 5.5 blocks: blocks 6..9 freed, the tail of block 5 zeroed. */
	ck_ok(stalefs_truncate(fs, ino, 5 * 4096 + 2048));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 6);
	ck_ok(stalefs_file_read(fs, ino, 0, buf, 10 * 4096, &got));
	ck_assert_uint_eq(got, 5 * 4096 + 2048);
	ck_assert(memcmp(buf, data, got) == 0);
	/* Up again: the old bytes do not come back. */
	ck_ok(stalefs_truncate(fs, ino, 10 * 4096));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 6);
	ck_ok(stalefs_bmap(fs, ino, 7, &pblk, &flags));
	ck_assert_uint_eq(pblk, 0);
	ck_ok(stalefs_file_read(fs, ino, 0, buf, 10 * 4096, &got));
	ck_assert_uint_eq(got, 10 * 4096);
	ck_assert(memcmp(buf, data, 5 * 4096 + 2048) == 0);
	ck_assert(all_bytes(buf + 5 * 4096 + 2048, 10 * 4096 - (5 * 4096 + 2048), 0));
	/* To zero: everything freed. */
	ck_ok(stalefs_truncate(fs, ino, 0));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0);
	i_blocks_matches(fs, ino);
	fs = scratch_reopen(&s);
	ck_ok(stalefs_file_read(fs, ino, 0, buf, 4096, &got));
	ck_assert_uint_eq(got, 0);
	free_count_matches(fs);
	free(data);
	free(buf);
	scratch_done(&s);
}
END_TEST

START_TEST(punch_holes)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 4096);
	u32 ino = new_file(fs, "p");
	u8 *data = malloc(10 * 4096), *buf = malloc(10 * 4096);
	u64 free0 = le64_to_cpu(fs->sb.s_free_blocks_count), pblk;
	u16 flags;
	size_t got;
	u64 rng = 4;

	unit_fill(&rng, data, 10 * 4096);
	ck_ok(stalefs_file_write(fs, ino, 0, data, 10 * 4096));
	ck_ok(stalefs_punch(fs, ino, 3, 3));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 7);
	memset(data + 3 * 4096, 0, 3 * 4096);
	ck_ok(stalefs_file_read(fs, ino, 0, buf, 10 * 4096, &got));
	ck_assert_uint_eq(got, 10 * 4096);
	ck_assert(memcmp(buf, data, got) == 0);
	ck_ok(stalefs_bmap(fs, ino, 4, &pblk, &flags));
	ck_assert_uint_eq(pblk, 0);
	/* Rewriting the hole fills it again. */
	memset(data + 4 * 4096, 0x3C, 4096);
	ck_ok(stalefs_file_write(fs, ino, 4 * 4096, data + 4 * 4096, 4096));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 8);
	fs = scratch_reopen(&s);
	ck_ok(stalefs_file_read(fs, ino, 0, buf, 10 * 4096, &got));
	ck_assert(memcmp(buf, data, got) == 0);
	i_blocks_matches(fs, ino);
	free_count_matches(fs);
	free(data);
	free(buf);
	scratch_done(&s);
}
END_TEST

START_TEST(limits)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 4096);
	u32 ino = new_file(fs, "big");
	struct stalefs_inode inode;

	/* The last logical block (2^32 - 2) is writable; the one after is not. */
	ck_ok(stalefs_file_write(fs, ino, (STALEFS_MAX_FILE_BLOCKS - 1) * 4096, "z", 1));
	ck_err(stalefs_file_write(fs, ino, STALEFS_MAX_FILE_BLOCKS * 4096, "z", 1), STALEFS_ERR_FILE_TOO_BIG);
	ck_err(stalefs_fallocate(fs, ino, 0xFFFFFFF0u, 0x10, false), STALEFS_ERR_FILE_TOO_BIG);
	ck_ok(stalefs_read_inode(fs, ino, &inode));
	ck_assert_uint_eq(le64_to_cpu(inode.i_size), (STALEFS_MAX_FILE_BLOCKS - 1) * 4096 + 1);
	ck_assert_int_eq(stalefs_verify_inode(&fs->geom, ino, &inode), 0);
	/* Writing on a read-only filesystem. */
	ck_ok(stalefs_close(s.fs));
	ck_ok(stalefs_open(s.path, 0, 0, 0, &s.fs));
	ck_err(stalefs_file_write(s.fs, ino, 0, "z", 1), STALEFS_ERR_RO_FILSYS);
	ck_err(stalefs_truncate(s.fs, ino, 0), STALEFS_ERR_RO_FILSYS);
	scratch_done(&s);
}
END_TEST

/* Copying a sparse source fd keeps its holes. */
START_TEST(write_from_fd_sparse)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 4096);
	u32 ino = new_file(fs, "copy");
	char src[] = "/tmp/stalefs-unit-src-XXXXXX";
	int fd = mkstemp(src);
	u8 *data = malloc(4096 * 3), *buf = malloc(300 * 4096);
	u64 pblk, rng = 11;
	u16 flags;
	size_t got;

	ck_assert_int_ge(fd, 0);
	unlink(src);
	unit_fill(&rng, data, 3 * 4096);
	ck_assert_int_eq(pwrite(fd, data, 4096, 0), 4096);
	ck_assert_int_eq(pwrite(fd, data + 4096, 2 * 4096, 200 * 4096), 2 * 4096);
	ck_assert_int_eq(ftruncate(fd, 300 * 4096), 0);
	ck_ok(stalefs_file_write_from_fd(fs, ino, fd, 300 * 4096));
	close(fd);
	ck_ok(stalefs_bmap(fs, ino, 100, &pblk, &flags));
	ck_assert_uint_eq(pblk, 0);
	ck_ok(stalefs_bmap(fs, ino, 299, &pblk, &flags));
	ck_assert_uint_eq(pblk, 0);
	ck_ok(stalefs_bmap(fs, ino, 201, &pblk, &flags));
	ck_assert_uint_ne(pblk, 0);
	ck_ok(stalefs_file_read(fs, ino, 0, buf, 300 * 4096, &got));
	ck_assert_uint_eq(got, 300 * 4096);
	ck_assert(memcmp(buf, data, 4096) == 0);
	ck_assert(all_bytes(buf + 4096, 199 * 4096, 0));
	ck_assert(memcmp(buf + 200 * 4096, data + 4096, 2 * 4096) == 0);
	ck_assert(all_bytes(buf + 202 * 4096, 98 * 4096, 0));
	i_blocks_matches(fs, ino);

	/* A source whose size is not a multiple of the block size, data to the end. */
	ino = new_file(fs, "copy2");
	strcpy(src, "/tmp/stalefs-unit-src-XXXXXX");
	fd = mkstemp(src);
	ck_assert_int_ge(fd, 0);
	unlink(src);
	unit_fill(&rng, buf, 2 * 4096 + 100);
	ck_assert_int_eq(pwrite(fd, buf, 2 * 4096 + 100, 0), 2 * 4096 + 100);
	ck_ok(stalefs_file_write_from_fd(fs, ino, fd, 2 * 4096 + 100));
	close(fd);
	ck_ok(stalefs_file_read(fs, ino, 0, buf + 4 * 4096, 4 * 4096, &got));
	ck_assert_uint_eq(got, 2 * 4096 + 100);
	ck_assert(memcmp(buf, buf + 4 * 4096, got) == 0);
	i_blocks_matches(fs, ino);
	free(data);
	free(buf);
	scratch_done(&s);
}
END_TEST

/*
 * A file of data, a hole, an UNWRITTEN range and a partial last block: stalefs_file_map's runs
 * name exactly the bytes stalefs_file_read returns (data read back from the device at dev_off,
 * zeros for the rest), SEEK_DATA/SEEK_HOLE stop at the same places, and zero range turns whole
 * blocks UNWRITTEN, writes zeros into partial ones and allocates holes.
 */
START_TEST(map_seek_and_zero_range)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16ULL << 20, 1024);
	u32 bs = 1024, ino = new_file(fs, "m"), n, i;
	u64 size = 7 * bs - 100, pos = 0, st = 5, r, pblk;
	struct stalefs_file_run runs[16];
	u8 data[7 * 1024], back[7 * 1024], dev[7 * 1024];
	size_t got;
	u16 flags;

	unit_fill(&st, data, sizeof(data));
	ck_ok(stalefs_file_write(fs, ino, 0, data, 2 * bs));		/* blocks 0-1: data */
	ck_ok(stalefs_fallocate(fs, ino, 4, 2, false));			/* 4-5: UNWRITTEN; 2-3: a hole */
	ck_ok(stalefs_file_write(fs, ino, 6 * bs, data + 6 * bs, bs - 100));	/* 6: data, partial */
	ck_ok(stalefs_file_read(fs, ino, 0, back, sizeof(back), &got));
	ck_assert_uint_eq(got, size);
	ck_ok(stalefs_file_map(fs, ino, 0, sizeof(back), runs, 16, &n));
	ck_assert_uint_eq(n, 3);
	ck_assert(!runs[0].zero && runs[0].len == 2 * bs);
	ck_assert(runs[1].zero && runs[1].len == 4 * bs);
	ck_assert(!runs[2].zero && runs[2].len == bs - 100);
	for (i = 0; i < n; i++) {
		if (runs[i].zero)
			memset(dev + pos, 0, runs[i].len);
		else
			ck_ok(stalefs_io_pread(fs->io, runs[i].dev_off, (u32)runs[i].len, dev + pos));
		pos += runs[i].len;
	}
	ck_assert_uint_eq(pos, size);
	ck_assert_mem_eq(dev, back, size);
	/* A range starting inside a block, and one run too many. */
	ck_ok(stalefs_file_map(fs, ino, 100, 50, runs, 16, &n));
	ck_assert(n == 1 && !runs[0].zero && runs[0].len == 50);
	ck_err(stalefs_file_map(fs, ino, 0, sizeof(back), runs, 2, &n), STALEFS_ERR_BAD_ARGUMENT);
	/* SEEK_DATA / SEEK_HOLE: UNWRITTEN is a hole. */
	ck_ok(stalefs_seek_data(fs, ino, 10, false, &r));
	ck_assert_uint_eq(r, 10);
	ck_ok(stalefs_seek_data(fs, ino, 10, true, &r));
	ck_assert_uint_eq(r, 2 * bs);
	ck_ok(stalefs_seek_data(fs, ino, 2 * bs, false, &r));
	ck_assert_uint_eq(r, 6 * bs);
	ck_ok(stalefs_seek_data(fs, ino, 6 * bs, true, &r));
	ck_assert_uint_eq(r, size);
	ck_err(stalefs_seek_data(fs, ino, size, false, &r), ENXIO);
	/* Zero range over [bs/2, 5 bs): block 0's second half zeroed in place, block 1 UNWRITTEN,
	 * the hole 2-3 allocated UNWRITTEN, 4 stays UNWRITTEN. */
	ck_ok(stalefs_zero_range(fs, ino, bs / 2, 5 * bs - bs / 2));
	memset(data + bs / 2, 0, 5 * bs - bs / 2);
	memset(data + 5 * bs, 0, bs);
	ck_ok(stalefs_file_read(fs, ino, 0, back, sizeof(back), &got));
	ck_assert_mem_eq(back, data, size);
	for (i = 1; i <= 5; i++) {
		ck_ok(stalefs_bmap(fs, ino, i, &pblk, &flags));
		ck_assert_msg(pblk && (flags & STALEFS_EXT_UNWRITTEN), "block %u after zero range: %llu, flags %#x", i,
			      (unsigned long long)pblk, flags);
	}
	ck_ok(stalefs_bmap(fs, ino, 0, &pblk, &flags));
	ck_assert(pblk && !(flags & STALEFS_EXT_UNWRITTEN));
	i_blocks_matches(fs, ino);
	free_count_matches(fs);
	scratch_done(&s);
}
END_TEST

Suite *file_suite(void)
{
	Suite *s = suite_create("file");
	TCase *tc = tcase_create("file");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, random_writes_against_model, 0, 2);
	tcase_add_test(tc, sparse_holes);
	tcase_add_test(tc, unwritten_reads_zeros_stale_reads_disk);
	tcase_add_test(tc, null_write_keeps_holes);
	tcase_add_test(tc, stale_over_many_unwritten);
	tcase_add_test(tc, no_space_part_way);
	tcase_add_test(tc, stale_needs_permitted_group);
	tcase_add_test(tc, truncate_down_and_up);
	tcase_add_test(tc, punch_holes);
	tcase_add_test(tc, limits);
	tcase_add_test(tc, write_from_fd_sparse);
	tcase_add_test(tc, map_seek_and_zero_range);
	suite_add_tcase(s, tc);
	return s;
}
