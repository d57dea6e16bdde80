// SPDX-License-Identifier: GPL-2.0
/*
 * The bitmaps, by hand: freeb / setb / testb, freei / seti / testi, ffb / ffi.
 * Setting or clearing a bit also moves the group and superblock free counts
 * (as e2fsprogs' debugfs does) unless --bitmap-only asks for a bitmap that
 * disagrees with its counts.
 */
#include <stdlib.h>
#include "debugfs.h"

static void adjust_block_counts(u64 block, int delta)
{
	stalefs_adjust_free_blocks(dbg.fs, stalefs_block_group(&dbg.fs->geom, block), delta);
}

static void adjust_inode_counts(u32 ino, int delta)
{
	stalefs_adjust_free_inodes(dbg.fs, stalefs_ino_group(&dbg.fs->geom, ino), delta);
}

void dbg_claim_block(u64 block)
{
	if (stalefs_test_block(dbg.fs, block))
		return;
	stalefs_mark_block(dbg.fs, block);
	adjust_block_counts(block, -1);
}

void dbg_claim_inode(u32 ino, bool is_dir)
{
	if (stalefs_test_inode(dbg.fs, ino))
		return;
	stalefs_mark_inode(dbg.fs, ino);
	adjust_inode_counts(ino, -1);
	if (is_dir) {
		struct stalefs_group_desc *d = &dbg.fs->groups[stalefs_ino_group(&dbg.fs->geom, ino)].desc;

		d->bg_used_dirs_count = cpu_to_le32(le32_to_cpu(d->bg_used_dirs_count) + 1);
	}
}

/* Parse "[--bitmap-only] WHAT [COUNT]"; returns the index of WHAT or 0 on a usage error. */
static int parse_common(int argc, const char *const *argv, bool with_count, bool *bitmap_only)
{
	int i = 1;

	*bitmap_only = false;
	if (i < argc && strcmp(argv[i], "--bitmap-only") == 0) {
		*bitmap_only = true;
		i++;
	}
	if (argc - i < 1 || argc - i > (with_count ? 2 : 1))
		return 0;
	return i;
}

enum op { OP_FREE, OP_SET, OP_TEST };

static void block_op(int argc, const char *const *argv, enum op op)
{
	bool bitmap_only;
	int i = parse_common(argc, argv, true, &bitmap_only);
	u64 block, count = 1, b;

	if (!i || (op == OP_TEST && bitmap_only)) {
		dbg_usage(argv[0], op == OP_TEST ? "<block> [count]" : "[--bitmap-only] <block> [count]");
		return;
	}
	if (!(op == OP_TEST ? dbg_need_bitmaps(argv[0]) : (dbg_need_rw(argv[0]) && dbg_need_bitmaps(argv[0]))))
		return;
	if (!dbg_parse_block(argv[0], argv[i], &block))
		return;
	if (i + 1 < argc && !dbg_parse_u64(argv[0], argv[i + 1], "count", &count))
		return;
	if (count == 0 || count > dbg.fs->geom.blocks_count - block) {
		dbg_msg(argv[0], "Bad count - %s (blocks %llu.. end past the filesystem)", argv[i + 1] ? argv[i + 1] : "",
			(unsigned long long)block);
		return;
	}
	for (b = block; b < block + count; b++) {
		bool used = stalefs_test_block(dbg.fs, b);

		if (op == OP_TEST) {
			printf("Block %llu %s\n", (unsigned long long)b, used ? "marked in use" : "not in use");
			continue;
		}
		if (used == (op == OP_SET)) {
			printf("Warning: block %llu already %s\n", (unsigned long long)b, used ? "set" : "clear");
			continue;
		}
		if (op == OP_SET)
			stalefs_mark_block(dbg.fs, b);
		else
			stalefs_unmark_block(dbg.fs, b);
		if (!bitmap_only)
			adjust_block_counts(b, op == OP_SET ? -1 : 1);
	}
}

static void inode_op(int argc, const char *const *argv, enum op op)
{
	bool bitmap_only;
	int i = parse_common(argc, argv, true, &bitmap_only);
	u32 ino, count = 1, n;

	if (!i || (op == OP_TEST && bitmap_only)) {
		dbg_usage(argv[0], op == OP_TEST ? "<file> [count]" : "[--bitmap-only] <file> [count]");
		return;
	}
	if (!(op == OP_TEST ? dbg_need_bitmaps(argv[0]) : (dbg_need_rw(argv[0]) && dbg_need_bitmaps(argv[0]))))
		return;
	if (!dbg_name_to_ino(argv[0], argv[i], &ino))
		return;
	if (i + 1 < argc && !dbg_parse_u32(argv[0], argv[i + 1], "count", &count))
		return;
	if (count == 0 || count > dbg.fs->geom.inodes_count - ino + 1) {
		dbg_msg(argv[0], "Bad count - %s", argv[i + 1] ? argv[i + 1] : "");
		return;
	}
	for (n = ino; n < ino + count; n++) {
		bool used = stalefs_test_inode(dbg.fs, n);

		if (op == OP_TEST) {
			printf("Inode %u is %s\n", n, used ? "marked in use" : "not in use");
			continue;
		}
		if (used == (op == OP_SET)) {
			printf("Warning: inode %u already %s\n", n, used ? "set" : "clear");
			continue;
		}
		if (op == OP_SET)
			stalefs_mark_inode(dbg.fs, n);
		else
			stalefs_unmark_inode(dbg.fs, n);
		if (!bitmap_only)
			adjust_inode_counts(n, op == OP_SET ? -1 : 1);
	}
}

DBG_CMD(do_freeb) { (void)sci_idx; (void)info; block_op(argc, argv, OP_FREE); }
DBG_CMD(do_setb) { (void)sci_idx; (void)info; block_op(argc, argv, OP_SET); }
DBG_CMD(do_testb) { (void)sci_idx; (void)info; block_op(argc, argv, OP_TEST); }
DBG_CMD(do_freei) { (void)sci_idx; (void)info; inode_op(argc, argv, OP_FREE); }
DBG_CMD(do_seti) { (void)sci_idx; (void)info; inode_op(argc, argv, OP_SET); }
DBG_CMD(do_testi) { (void)sci_idx; (void)info; inode_op(argc, argv, OP_TEST); }

DBG_CMD(do_find_free_block)
{
	u64 count = 1, goal = 0, b;
	u64 found = 0;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 2, "[count [goal]]") || !dbg_need_bitmaps(argv[0]))
		return;
	if (argc > 1 && !dbg_parse_u64(argv[0], argv[1], "count", &count))
		return;
	if (argc > 2 && !dbg_parse_block(argv[0], argv[2], &goal))
		return;
	printf("Free blocks found: ");
	for (b = goal; found < count && stalefs_find_free_block(dbg.fs, b, &b) == 0; b++, found++)
		printf("%llu ", (unsigned long long)b);
	printf("\n");
	if (found < count)
		dbg_msg(argv[0], "only %llu free block(s) found", (unsigned long long)found);
}

DBG_CMD(do_find_free_inode)
{
	u32 dir = 0, ino;
	u64 mode = 0;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 2, "[dir [mode]]") || !dbg_need_bitmaps(argv[0]))
		return;
	/* The inode the allocator would pick for a new file of this mode in dir (default: /, a file). */
	if (argc > 1 && !dbg_name_to_ino(argv[0], argv[1], &dir))
		return;
	if (argc > 2 && (!dbg_parse_u64(argv[0], argv[2], "mode", &mode) || mode > 0xFFFF)) {
		if (mode > 0xFFFF)
			dbg_msg(argv[0], "Bad mode - %s", argv[2]);
		return;
	}
	if (!(mode & STALEFS_S_IFMT))
		mode |= STALEFS_S_IFREG;
	err = stalefs_peek_inode(dbg.fs, dir ? dir : STALEFS_ROOT_INO, (u16)mode, &ino);
	if (err) {
		dbg_err(argv[0], err, "finding a free inode");
		return;
	}
	printf("Free inode found: %u\n", ino);
}
