/*
 * Allocator invariants on scratch filesystems: allocations never overlap
 * group metadata or each other, the free counts of groups and superblock
 * always equal the zeros of the bitmaps, uninitialised groups come to life on
 * first use with bitmaps whose checksums verify after a reopen, and inode
 * allocation keeps off the reserved inodes and zeroes never-used table slots.
 */
#include "unit.h"

static void groups_of_1024(struct stalefs_mkfs_params *p)
{
	p->blocks_per_group = 1024;
}

/* 8 groups of 1024 one-KiB blocks. */
static stalefs_fs *mk8(struct scratch *s)
{
	stalefs_fs *fs = scratch_mkfs_with(s, 8 << 20, 1024, groups_of_1024);

	ck_assert_uint_eq(fs->geom.groups_count, 8);
	return fs;
}

/* Metadata of a group per its descriptor: superblock/GDT copy, bitmaps, inode table. */
static bool is_meta(stalefs_fs *fs, u64 b)
{
	const struct stalefs_geom *g = &fs->geom;
	u32 grp = stalefs_block_group(g, b);
	const struct stalefs_group_desc *d = &fs->groups[grp].desc;
	u64 first = stalefs_group_first_block(g, grp);
	u64 bb = le64_to_cpu(d->bg_block_bitmap), ib = le64_to_cpu(d->bg_inode_bitmap);
	u64 it = le64_to_cpu(d->bg_inode_table);

	return (b >= first && b < first + stalefs_group_super_blocks(g, grp)) ||
	       (b >= bb && b < bb + g->block_bitmap_blocks) || (b >= ib && b < ib + g->inode_bitmap_blocks) ||
	       (b >= it && b < it + g->inode_table_blocks);
}

/* Group and superblock free counts against the bitmaps' zero bits. */
static void check_counts(stalefs_fs *fs)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 total_b = 0, total_i = 0;
	u32 grp;

	for (grp = 0; grp < g->groups_count; grp++) {
		u64 first = stalefs_group_first_block(g, grp), b, fb = 0;
		u32 n = stalefs_group_nblocks(g, grp), i, fi = 0;

		for (b = first; b < first + n; b++) {
			fb += !stalefs_test_block(fs, b);
			if (is_meta(fs, b))
				hot_assert(stalefs_test_block(fs, b), "metadata block %llu is free", (unsigned long long)b);
		}
		for (i = 1; i <= g->inodes_per_group; i++)
			fi += !stalefs_test_inode(fs, grp * g->inodes_per_group + i);
		ck_assert_msg(le32_to_cpu(fs->groups[grp].desc.bg_free_blocks_count) == fb,
			      "group %u: free blocks count %u, bitmap has %llu free", grp,
			      le32_to_cpu(fs->groups[grp].desc.bg_free_blocks_count), (unsigned long long)fb);
		ck_assert_msg(le32_to_cpu(fs->groups[grp].desc.bg_free_inodes_count) == fi,
			      "group %u: free inodes count %u, bitmap has %u free", grp,
			      le32_to_cpu(fs->groups[grp].desc.bg_free_inodes_count), fi);
		total_b += fb;
		total_i += fi;
	}
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), total_b);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_free_inodes_count), total_i);
}

/* Read every initialised bitmap from disk and verify it against its descriptor. */
static void check_bitmaps_on_disk(stalefs_fs *fs)
{
	const struct stalefs_geom *g = &fs->geom;
	u8 *buf = malloc((size_t)g->block_size * (g->block_bitmap_blocks + g->inode_bitmap_blocks));
	u32 grp;

	for (grp = 0; grp < g->groups_count; grp++) {
		const struct stalefs_group_desc *d = &fs->groups[grp].desc;

		ck_assert_int_eq(stalefs_verify_desc_csum(fs->seed, grp, d), 0);
		ck_assert_int_eq(stalefs_verify_desc(g, grp, d), 0);
		ck_ok(stalefs_io_read(fs->io, le64_to_cpu(d->bg_block_bitmap), g->block_bitmap_blocks, buf));
		ck_assert_msg(stalefs_verify_block_bitmap_csum(fs->seed, grp, d, buf,
							       g->block_bitmap_blocks * g->block_size) == 0,
			      "group %u: block bitmap checksum", grp);
		ck_ok(stalefs_io_read(fs->io, le64_to_cpu(d->bg_inode_bitmap), g->inode_bitmap_blocks, buf));
		ck_assert_msg(stalefs_verify_inode_bitmap_csum(fs->seed, grp, d, buf,
							       g->inode_bitmap_blocks * g->block_size) == 0,
			      "group %u: inode bitmap checksum", grp);
	}
	free(buf);
}

START_TEST(fresh_fs_counts)
{
	struct scratch s;
	stalefs_fs *fs = mk8(&s);
	u32 grp;

	check_counts(fs);
	/* mkfs initialises only group 0 (and the groups of root and lost+found). */
	for (grp = 1; grp < 8; grp++) {
		u16 f = le16_to_cpu(fs->groups[grp].desc.bg_flags);

		if (grp != stalefs_ino_group(&fs->geom, le32_to_cpu(fs->sb.s_lpf_ino)))
			ck_assert_msg(f & STALEFS_BG_INODE_UNINIT, "group %u inode bitmap initialised by mkfs", grp);
	}
	fs = scratch_reopen(&s);
	check_counts(fs);
	check_bitmaps_on_disk(fs);
	scratch_done(&s);
}
END_TEST

START_TEST(random_alloc_free_rounds)
{
	struct scratch s;
	stalefs_fs *fs = mk8(&s);
	u64 n = fs->geom.blocks_count, b, rng = 0xA110C;
	u8 *initial = calloc(n, 1), *mine = calloc(n, 1);
	struct { u64 start; u32 len; } *held = calloc(4096, sizeof(*held));
	u32 nheld = 0, round;

	for (b = 0; b < n; b++)
		initial[b] = stalefs_test_block(fs, b);
	for (round = 0; round < 1500; round++) {
		if (nheld < 4096 && (unit_rand(&rng) % 3 != 0 || nheld == 0)) {
			u64 goal = unit_rand(&rng) % n, start;
			u32 want = 1 + (u32)(unit_rand(&rng) % 40), got;
			errcode_t err = stalefs_alloc_blocks(fs, goal, want, &start, &got);

			if (err == STALEFS_ERR_NO_SPACE)
				continue;
			ck_ok(err);
			ck_assert_uint_ge(got, 1);
			ck_assert_uint_le(got, want);
			for (b = start; b < start + got; b++) {
				hot_assert(!is_meta(fs, b), "allocated metadata block %llu", (unsigned long long)b);
				hot_assert(!initial[b] && !mine[b], "block %llu allocated twice", (unsigned long long)b);
				hot_assert(stalefs_test_block(fs, b), "allocated block %llu not marked", (unsigned long long)b);
				mine[b] = 1;
			}
			held[nheld].start = start;
			held[nheld++].len = got;
		} else {
			u32 k = (u32)(unit_rand(&rng) % nheld);

			ck_ok(stalefs_free_blocks(fs, held[k].start, held[k].len));
			for (b = held[k].start; b < held[k].start + held[k].len; b++) {
				hot_assert(!stalefs_test_block(fs, b), "freed block %llu still marked", (unsigned long long)b);
				mine[b] = 0;
			}
			held[k] = held[--nheld];
		}
		if (round % 250 == 0)
			check_counts(fs);
	}
	check_counts(fs);
	fs = scratch_reopen(&s);
	check_counts(fs);
	check_bitmaps_on_disk(fs);
	for (b = 0; b < n; b++)
		hot_assert(stalefs_test_block(fs, b) == (initial[b] || mine[b]),
			      "block %llu: bitmap disagrees with what was allocated", (unsigned long long)b);
	free(initial);
	free(mine);
	free(held);
	scratch_done(&s);
}
END_TEST

START_TEST(uninit_group_first_use)
{
	struct scratch s;
	stalefs_fs *fs = mk8(&s);
	const struct stalefs_geom *g = &fs->geom;	/* reset after each reopen */
	u32 grp = 6, got;
	u64 first = stalefs_group_first_block(g, grp), start, b;
	u64 free_before = le32_to_cpu(fs->groups[grp].desc.bg_free_blocks_count);

	ck_assert(le16_to_cpu(fs->groups[grp].desc.bg_flags) & STALEFS_BG_BLOCK_UNINIT);
	ck_assert_uint_eq(le32_to_cpu(fs->groups[grp].desc.bg_block_bitmap_csum), 0);
	ck_ok(stalefs_alloc_blocks(fs, first, 10, &start, &got));
	ck_assert_uint_eq(got, 10);
	/* The first free block of a fresh group is right after its metadata. */
	ck_assert_uint_eq(start, first + stalefs_group_meta_blocks(g, grp));
	fs = scratch_reopen(&s);
	g = &fs->geom;
	ck_assert_msg(!(le16_to_cpu(fs->groups[grp].desc.bg_flags) & STALEFS_BG_BLOCK_UNINIT),
		      "block bitmap still uninitialised after use");
	ck_assert_uint_ne(le32_to_cpu(fs->groups[grp].desc.bg_block_bitmap_csum), 0);
	ck_assert_uint_eq(le32_to_cpu(fs->groups[grp].desc.bg_free_blocks_count), free_before - 10);
	/* Groups nobody touched stay uninitialised: mkfs and allocation are lazy. */
	ck_assert(le16_to_cpu(fs->groups[7].desc.bg_flags) & STALEFS_BG_BLOCK_UNINIT);
	for (b = first; b < first + stalefs_group_nblocks(g, grp); b++)
		hot_assert(stalefs_test_block(fs, b) == (is_meta(fs, b) || (b >= start && b < start + 10)),
			   "block %llu: wrong bitmap bit", (unsigned long long)b);
	check_bitmaps_on_disk(fs);
	check_counts(fs);
	scratch_done(&s);
}
END_TEST

/* A corrupted bitmap on disk is refused at open (and accepted with IGNORE_CSUM). */
START_TEST(bad_bitmap_csum_refused)
{
	struct scratch s;
	stalefs_fs *fs = mk8(&s);
	u8 *buf = malloc(1024);
	u64 bb = le64_to_cpu(fs->groups[0].desc.bg_block_bitmap);

	ck_ok(stalefs_io_read(fs->io, bb, 1, buf));
	buf[1000] ^= 0x01;	/* a block near the group's end, normally free */
	ck_ok(stalefs_io_write(fs->io, bb, 1, buf));
	ck_ok(stalefs_close(fs));
	s.fs = NULL;
	ck_err(stalefs_open(s.path, STALEFS_OPEN_RW, 0, 0, &s.fs), STALEFS_ERR_BITMAP_CSUM);
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_IGNORE_CSUM, 0, 0, &s.fs));
	ck_assert(s.fs->groups[0].bb_bad_csum);
	free(buf);
	scratch_done(&s);
}
END_TEST

/* A bitmap that cannot be read counts as full: nothing is allocated from it, and a
 * checker comparing against it sees every free block (never the buffer's leftovers). */
START_TEST(unreadable_bitmap_full)
{
	struct scratch s;
	stalefs_fs *fs = mk8(&s);
	size_t i, len = (size_t)fs->geom.block_bitmap_blocks * fs->block_size;

	ck_ok(stalefs_close(fs));
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_NO_BITMAPS, 0, 0, &s.fs));
	fs = s.fs;
	ck_assert_uint_eq(le16_to_cpu(fs->groups[0].desc.bg_flags) & STALEFS_BG_BLOCK_UNINIT, 0);
	fs->groups[0].desc.bg_block_bitmap = cpu_to_le64(fs->geom.blocks_count + 100);
	ck_assert_int_ne(stalefs_read_bitmaps(fs), 0);
	ck_assert_ptr_nonnull(fs->groups[0].block_bitmap);
	for (i = 0; i < len; i++)
		hot_assert(fs->groups[0].block_bitmap[i] == 0xff, "byte %zu of the unreadable bitmap is 0x%02x",
			   i, fs->groups[0].block_bitmap[i]);
	ck_assert(stalefs_test_block(fs, stalefs_group_first_block(&fs->geom, 0) + 1000));
	scratch_done(&s);
}
END_TEST

START_TEST(fill_and_empty)
{
	struct scratch s;
	stalefs_fs *fs = mk8(&s);
	u64 total_free = le64_to_cpu(fs->sb.s_free_blocks_count), count = 0, start;
	u32 got;
	errcode_t err;
	struct { u64 start; u32 len; } *runs = calloc(total_free, sizeof(*runs));
	u64 nruns = 0, i;

	while ((err = stalefs_alloc_blocks(fs, 0, 1000, &start, &got)) == 0) {
		runs[nruns].start = start;
		runs[nruns++].len = got;
		count += got;
	}
	ck_err(err, STALEFS_ERR_NO_SPACE);
	ck_assert_uint_eq(count, total_free);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), 0);
	check_counts(fs);
	/* Freeing a free block changes nothing; block 0 and the end are refused. */
	ck_ok(stalefs_free_blocks(fs, runs[0].start, runs[0].len));
	ck_ok(stalefs_free_blocks(fs, runs[0].start, runs[0].len));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), runs[0].len);
	ck_err(stalefs_free_blocks(fs, 0, 1), STALEFS_ERR_BAD_BLOCK_NUM);
	ck_err(stalefs_free_blocks(fs, fs->geom.blocks_count - 1, 2), STALEFS_ERR_BAD_BLOCK_NUM);
	for (i = 1; i < nruns; i++)
		ck_ok(stalefs_free_blocks(fs, runs[i].start, runs[i].len));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), total_free);
	fs = scratch_reopen(&s);
	check_counts(fs);
	check_bitmaps_on_disk(fs);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), total_free);
	free(runs);
	scratch_done(&s);
}
END_TEST

START_TEST(read_only_refuses)
{
	struct scratch s;
	u64 start;
	u32 ino;

	scratch_mkfs(&s, 4 << 20, 4096);
	ck_ok(stalefs_close(s.fs));
	ck_ok(stalefs_open(s.path, 0, 0, 0, &s.fs));
	ck_err(stalefs_alloc_block(s.fs, 0, &start), STALEFS_ERR_RO_FILSYS);
	ck_err(stalefs_alloc_inode(s.fs, STALEFS_ROOT_INO, STALEFS_S_IFREG, &ino), STALEFS_ERR_RO_FILSYS);
	scratch_done(&s);
}
END_TEST

START_TEST(inode_alloc_reserved_and_unused)
{
	struct scratch s;
	stalefs_fs *fs = mk8(&s);
	const struct stalefs_geom *g = &fs->geom;
	struct stalefs_group_desc *d0 = &fs->groups[0].desc;
	u32 ipg = g->inodes_per_group, mark = ipg - le32_to_cpu(d0->bg_itable_unused), i, ino;
	struct stalefs_inode garbage, raw;
	u8 *seen = calloc(g->inodes_count + 1, 1);
	int rule;

	ck_assert_uint_ge(mark, STALEFS_FIRST_INO - 1);
	/* Slots past the mark may hold anything: put garbage there first. */
	memset(&garbage, 0xAB, sizeof(garbage));
	for (i = mark; i < ipg; i++)
		ck_ok(stalefs_write_inode_raw(fs, i + 1, &garbage));
	/* Regular files from the root stay in group 0 while it has room. */
	for (i = 0; i < 20; i++) {
		u32 before = ipg - le32_to_cpu(d0->bg_itable_unused);

		ck_ok(stalefs_alloc_inode(fs, STALEFS_ROOT_INO, STALEFS_S_IFREG | 0644, &ino));
		ck_assert_uint_ge(ino, STALEFS_FIRST_INO);
		ck_assert_msg(!seen[ino], "inode %u handed out twice", ino);
		seen[ino] = 1;
		ck_assert(stalefs_test_inode(fs, ino));
		if (stalefs_ino_group(g, ino) == 0 && ino - 1 >= before)
			ck_assert_uint_eq(le32_to_cpu(d0->bg_itable_unused), ipg - ino);
		/* The slot was zeroed when it joined the initialised part. */
		ck_ok(stalefs_read_inode_raw(fs, ino, &raw, &rule));
		ck_assert_int_eq(rule, 0);
		ck_assert_uint_eq(raw.i_mode, 0);
		ck_assert_uint_eq(raw.i_checksum, 0);
		ck_assert_uint_eq(raw.i_generation, 0);
	}
	/* Past the new mark the garbage is untouched (and reads as nothing). */
	mark = ipg - le32_to_cpu(d0->bg_itable_unused);
	ck_assert_uint_lt(mark, ipg);
	ck_ok(stalefs_read_inode_raw(fs, mark + 1, &raw, &rule));
	ck_assert_uint_eq(raw.i_mode, 0);
	{
		u8 *blk = malloc(g->block_size);
		u64 block;
		u32 off;

		stalefs_ino_locate(g, d0, mark + 1, &block, &off);
		ck_ok(stalefs_io_read(fs->io, block, 1, blk));
		ck_assert_uint_eq(blk[off], 0xAB);
		free(blk);
	}
	/* Reserved inodes are never handed out even when freed; nothing below 11 appears. */
	for (i = 1; i < STALEFS_FIRST_INO; i++)
		ck_assert(stalefs_test_inode(fs, i));
	ck_ok(stalefs_free_inode(fs, 5, false));
	ck_ok(stalefs_alloc_inode(fs, STALEFS_ROOT_INO, STALEFS_S_IFREG | 0644, &ino));
	ck_assert_uint_ge(ino, STALEFS_FIRST_INO);
	ck_assert(!stalefs_test_inode(fs, 5));
	stalefs_mark_inode(fs, 5);
	fs->groups[0].desc.bg_free_inodes_count = cpu_to_le32(le32_to_cpu(fs->groups[0].desc.bg_free_inodes_count) - 1);
	fs->sb.s_free_inodes_count = cpu_to_le32(le32_to_cpu(fs->sb.s_free_inodes_count) - 1);
	check_counts(fs);
	fs = scratch_reopen(&s);
	check_counts(fs);
	check_bitmaps_on_disk(fs);
	free(seen);
	scratch_done(&s);
}
END_TEST

/* Directories spread to other groups; the inode bitmap of an uninitialised group comes to life. */
START_TEST(inode_alloc_uninit_group)
{
	struct scratch s;
	stalefs_fs *fs = mk8(&s);
	const struct stalefs_geom *g = &fs->geom;
	u32 ino, grp, i, dirs_before;
	struct stalefs_inode raw;
	int rule;

	for (i = 0; i < 5; i++) {
		ck_ok(stalefs_alloc_inode(fs, STALEFS_ROOT_INO, STALEFS_S_IFDIR | 0755, &ino));
		grp = stalefs_ino_group(g, ino);
		if (grp != 0)
			break;
	}
	ck_assert_msg(grp != 0, "five directories all landed in group 0");
	dirs_before = le32_to_cpu(fs->groups[grp].desc.bg_used_dirs_count);
	ck_assert_uint_ge(dirs_before, 1);
	ck_assert_uint_eq(le32_to_cpu(fs->groups[grp].desc.bg_itable_unused), g->inodes_per_group - ((ino - 1) % g->inodes_per_group) - 1);
	ck_ok(stalefs_read_inode_raw(fs, ino, &raw, &rule));
	ck_assert_uint_eq(raw.i_mode, 0);
	fs = scratch_reopen(&s);
	ck_assert(!(le16_to_cpu(fs->groups[grp].desc.bg_flags) & STALEFS_BG_INODE_UNINIT));
	ck_assert(stalefs_test_inode(fs, ino));
	ck_assert_uint_eq(le32_to_cpu(fs->groups[grp].desc.bg_used_dirs_count), dirs_before);
	check_bitmaps_on_disk(fs);
	check_counts(fs);
	ck_ok(stalefs_free_inode(fs, ino, true));
	ck_assert_uint_eq(le32_to_cpu(fs->groups[grp].desc.bg_used_dirs_count), dirs_before - 1);
	check_counts(fs);
	scratch_done(&s);
}
END_TEST

START_TEST(inode_exhaustion)
{
	struct scratch s;
	stalefs_fs *fs = mk8(&s);
	u32 free_inodes = le32_to_cpu(fs->sb.s_free_inodes_count), n = 0, ino;
	errcode_t err;

	while ((err = stalefs_alloc_inode(fs, STALEFS_ROOT_INO, STALEFS_S_IFREG | 0600, &ino)) == 0)
		n++;
	ck_err(err, STALEFS_ERR_NO_INODES);
	ck_assert_uint_eq(n, free_inodes);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_free_inodes_count), 0);
	check_counts(fs);
	fs = scratch_reopen(&s);
	check_counts(fs);
	check_bitmaps_on_disk(fs);
	scratch_done(&s);
}
END_TEST

Suite *alloc_suite(void)
{
	Suite *s = suite_create("alloc");
	TCase *tc = tcase_create("alloc");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, fresh_fs_counts);
	tcase_add_test(tc, random_alloc_free_rounds);
	tcase_add_test(tc, uninit_group_first_use);
	tcase_add_test(tc, bad_bitmap_csum_refused);
	tcase_add_test(tc, unreadable_bitmap_full);
	tcase_add_test(tc, fill_and_empty);
	tcase_add_test(tc, read_only_refuses);
	tcase_add_test(tc, inode_alloc_reserved_and_unused);
	tcase_add_test(tc, inode_alloc_uninit_group);
	tcase_add_test(tc, inode_exhaustion);
	suite_add_tcase(s, tc);
	return s;
}
