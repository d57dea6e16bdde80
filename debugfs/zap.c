// SPDX-License-Identifier: GPL-2.0
/* Damage on purpose, for building test images: clri and zap_block. */
#include <getopt.h>
#include <stdlib.h>
#include "debugfs.h"

DBG_CMD(do_clri)
{
	struct stalefs_inode zero;
	u32 ino;
	int i;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, -1, "<file> ...") || !dbg_need_rw(argv[0]))
		return;
	memset(&zero, 0, sizeof(zero));
	for (i = 1; i < argc; i++) {
		if (!dbg_name_to_ino(argv[0], argv[i], &ino))
			continue;
		err = stalefs_write_inode_raw(dbg.fs, ino, &zero);
		if (err)
			dbg_err(argv[0], err, "clearing inode %u", ino);
	}
}

/*
 * copy_inode SRC DEST: the raw 256 bytes, unchanged -- i_ino and the checksum
 * still name SRC, which is how a misplaced inode looks.
 */
DBG_CMD(do_copy_inode)
{
	struct stalefs_inode inode;
	u32 src, dest;
	int rule;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 2, 2, "<source file> <dest_name>") || !dbg_need_rw(argv[0]) ||
	    !dbg_name_to_ino(argv[0], argv[1], &src) || !dbg_name_to_ino(argv[0], argv[2], &dest) ||
	    !dbg_read_inode(argv[0], src, &inode, &rule))
		return;
	err = stalefs_write_inode_raw(dbg.fs, dest, &inode);
	if (err)
		dbg_err(argv[0], err, "writing inode %u", dest);
	else
		dbg_warn_uninit(argv[0], dest);
}

/*
 * zap_block [-f file] [-o offset] [-l length] [-p pattern] [-b bit] block:
 * fill a byte range of a block with a pattern (default 0), or flip one bit.
 * With -f, block is a logical block of that file.  Checksums are never fixed:
 * this is how a test builds a block whose checksum does not match.
 */
DBG_CMD(do_zap_block)
{
	static const char usage[] = "[-f file] [-o offset] [-l length] [-p pattern] [-b bit] block_num";
	const char *file = NULL;
	u64 offset = 0, length = 0, pattern = 0, bit = 0, block;
	bool have_len = false, have_bit = false;
	u8 *buf;
	int c;
	errcode_t err;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "f:o:l:p:b:")) != -1) {
		switch (c) {
		case 'f': file = optarg; break;
		case 'o':
			if (!dbg_parse_u64(argv[0], optarg, "offset", &offset))
				return;
			break;
		case 'l':
			if (!dbg_parse_u64(argv[0], optarg, "length", &length))
				return;
			have_len = true;
			break;
		case 'p':
			if (!dbg_parse_u64(argv[0], optarg, "pattern", &pattern))
				return;
			if (pattern > 255) {
				dbg_msg(argv[0], "Bad pattern - %s (0..255)", optarg);
				return;
			}
			break;
		case 'b':
			if (!dbg_parse_u64(argv[0], optarg, "bit", &bit))
				return;
			have_bit = true;
			break;
		default:
			dbg_usage(argv[0], usage);
			return;
		}
	}
	if (optind != argc - 1) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]))
		return;
	if (!dbg_parse_file_block(argv[0], file, argv[optind], &block))
		return;
	if (!have_len)
		length = have_bit ? 0 : dbg.fs->block_size - (offset < dbg.fs->block_size ? offset : 0);
	if (offset >= dbg.fs->block_size || length > dbg.fs->block_size - offset ||
	    (have_bit && bit >= 8ull * dbg.fs->block_size)) {
		dbg_msg(argv[0], "range outside the block (block size %u)", dbg.fs->block_size);
		return;
	}
	buf = malloc(dbg.fs->block_size);
	if (!buf) {
		dbg_err(argv[0], STALEFS_ERR_NO_MEMORY, "allocating a block buffer");
		return;
	}
	err = stalefs_io_read(dbg.fs->io, block, 1, buf);
	if (!err) {
		if (have_bit)
			buf[bit / 8] ^= (u8)(1u << (bit % 8));
		else
			memset(buf + offset, (int)pattern, length);
		err = stalefs_io_write(dbg.fs->io, block, 1, buf);
	}
	if (err)
		dbg_err(argv[0], err, "zapping block %llu", (unsigned long long)block);
	free(buf);
}
