// SPDX-License-Identifier: GPL-2.0
/* Opening and closing the image: open, close, params, and the -n checksum bookkeeping. */
#include <getopt.h>
#include <stdlib.h>
#include "debugfs.h"

static void report_open_damage(stalefs_fs *fs)
{
	if (fs->sb_rule)
		fprintf(stderr, "%s: warning: superblock: %s\n", DBG_PROG, stalefs_rule_msg(fs->sb_rule));
	if (fs->bad_desc_count)
		fprintf(stderr, "%s: warning: %d group descriptor(s) fail verification (see stats)\n",
			DBG_PROG, fs->bad_desc_count);
	/* What is on disk is not yet the filesystem the journal describes. */
	if (le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER) {
		if (fs->flags & STALEFS_OPEN_RW)
			fprintf(stderr, "%s: warning: the filesystem needs journal recovery: replay it "
				"(journal_run) before editing, or run fsck.stalefs\n", DBG_PROG);
		else
			fprintf(stderr, "%s: warning: the filesystem needs journal recovery: this is the state "
				"before recovery (journal_run with -w replays it)\n", DBG_PROG);
	}
}

/* A forensic tool opens a damaged image as far as it can: each command then says what is
 * wrong with what it touches. */
static void warn_open(void *priv, const char *what)
{
	(void)priv;
	fprintf(stderr, "%s: warning: %s\n", DBG_PROG, what);
}

errcode_t dbg_open_fs(const char *name, int flags, u64 sb_block, u32 block_size)
{
	stalefs_fs *fs;
	errcode_t err;

	/* Read-write, debugfs can replay the journal itself (journal_run), as e2fsprogs' can:
	 * a filesystem that needs recovery opens, with a warning. */
	if (flags & STALEFS_OPEN_RW)
		flags |= STALEFS_OPEN_JOURNAL;
	err = stalefs_open_tolerant(name, flags, sb_block, block_size, &fs, warn_open, NULL);
	if (err)
		return err;
	report_open_damage(fs);
	/* Read-only, the cache only saves re-reads: a small one keeps the tool's
	 * memory near e2fsprogs' (whose unix_io caches 8 blocks).  Read-write,
	 * it is the write-back cache that turns many edits into one write. */
	if (!(flags & STALEFS_OPEN_RW))
		stalefs_io_set_cache_limit(fs->io, DBG_RO_CACHE_BYTES / fs->block_size);
	dbg.fs = fs;
	dbg.root = dbg.cwd = STALEFS_ROOT_INO;
	free(dbg.desc_csum_pending);
	free(dbg.desc_csum);
	dbg.desc_csum_pending = calloc(fs->geom.groups_count, 1);
	dbg.desc_csum = calloc(fs->geom.groups_count, sizeof(u32));
	dbg.sb_csum_pending = false;
	if (!dbg.desc_csum_pending || !dbg.desc_csum) {
		dbg_close_fs(false);
		return STALEFS_ERR_NO_MEMORY;
	}
	return 0;
}

/* Where group g's descriptor lives in the primary table. */
static u64 desc_offset(u32 g)
{
	const struct stalefs_geom *geom = &dbg.fs->geom;

	return stalefs_gdt_block_loc(geom, 0, stalefs_gdt_index(geom, g)) * geom->block_size +
	       (u64)(g % geom->desc_per_block) * STALEFS_DESC_SIZE;
}

errcode_t dbg_flush(void)
{
	stalefs_fs *fs = dbg.fs;
	errcode_t err;
	u32 g;

	if (!fs || !(fs->flags & STALEFS_OPEN_RW))
		return 0;
	err = stalefs_flush(fs);
	if (err)
		return err;
	/* stalefs_flush checksums what it writes; put back what -n edits asked for. */
	for (g = 0; g < fs->geom.groups_count; g++) {
		if (!dbg.desc_csum_pending[g])
			continue;
		fs->groups[g].desc.bg_checksum = cpu_to_le32(dbg.desc_csum[g]);
		err = stalefs_io_pwrite(fs->io, desc_offset(g), STALEFS_DESC_SIZE, &fs->groups[g].desc);
		if (err)
			return err;
	}
	if (dbg.sb_csum_pending) {
		fs->sb.s_checksum = cpu_to_le32(dbg.sb_csum);
		err = stalefs_io_pwrite(fs->io, STALEFS_SUPER_OFFSET, sizeof(fs->sb), &fs->sb);
		if (err)
			return err;
	}
	return stalefs_io_flush(fs->io);
}

errcode_t dbg_close_fs(bool write)
{
	errcode_t err = 0;

	if (!dbg.fs)
		return 0;
	dbg_journal_forget();
	if (write)
		err = dbg_flush();
	if (!err && write && (dbg.fs->flags & STALEFS_OPEN_RW)) {
		/* Everything is on disk; close without a second flush rewriting checksums. */
		dbg.fs->flags &= ~STALEFS_OPEN_RW;
	}
	if (err)
		stalefs_free(dbg.fs);
	else
		err = stalefs_close(dbg.fs);
	dbg.fs = NULL;
	free(dbg.desc_csum_pending);
	free(dbg.desc_csum);
	dbg.desc_csum_pending = NULL;
	dbg.desc_csum = NULL;
	dbg.sb_csum_pending = false;
	return err;
}

DBG_CMD(do_open_filesys)
{
	int c, flags = dbg.open_flags & ~STALEFS_OPEN_RW;
	u64 sb_block = 0;
	u32 block_size = 0;
	errcode_t err;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "wcnfb:s:")) != -1) {
		switch (c) {
		case 'w': flags |= STALEFS_OPEN_RW; break;
		case 'c': flags |= STALEFS_OPEN_NO_BITMAPS; break;
		case 'n': flags |= STALEFS_OPEN_IGNORE_CSUM; dbg.no_csum = true; break;
		case 'f': flags |= STALEFS_OPEN_FORCE; break;
		case 'b':
			if (!dbg_parse_u32(argv[0], optarg, "block size", &block_size))
				return;
			break;
		case 's':
			if (!dbg_parse_u64(argv[0], optarg, "superblock block number", &sb_block))
				return;
			break;
		default:
			dbg_usage(argv[0], "[-w] [-c] [-n] [-f] [-b blocksize] [-s superblock] device");
			return;
		}
	}
	if (optind != argc - 1) {
		dbg_usage(argv[0], "[-w] [-c] [-n] [-f] [-b blocksize] [-s superblock] device");
		return;
	}
	if (dbg.fs) {
		dbg_msg(argv[0], "Filesystem %s is still open.  Close it first.", dbg.fs->device_name);
		return;
	}
	if ((flags & STALEFS_OPEN_RW) && (flags & STALEFS_OPEN_NO_BITMAPS)) {
		dbg_msg(argv[0], "catastrophic mode (-c) is read-only; -w is not allowed with it");
		return;
	}
	err = dbg_open_fs(argv[optind], flags, sb_block, block_size);
	if (err)
		dbg_err(argv[0], err, "opening filesystem %s", argv[optind]);
}

DBG_CMD(do_close_filesys)
{
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 0, "") || !dbg_need_fs(argv[0]))
		return;
	err = dbg_close_fs(true);
	if (err)
		dbg_err(argv[0], err, "closing filesystem");
}

DBG_CMD(do_show_debugfs_params)
{
	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 0, ""))
		return;
	printf("Open mode: read-%s\n", dbg.fs && (dbg.fs->flags & STALEFS_OPEN_RW) ? "write" : "only");
	printf("Filesystem in use: %s\n", dbg.fs ? dbg.fs->device_name : "--none--");
	if (dbg.fs) {
		printf("Bitmaps: %s\n", dbg.fs->bitmaps_loaded ? "loaded" : "not loaded (catastrophic mode)");
		printf("Checksums: %s\n", dbg.no_csum ? "ignored; edits keep old checksums (-n)" : "verified and recomputed");
		if (dbg.fs->sb_block)
			printf("Superblock: backup at block %llu\n", (unsigned long long)dbg.fs->sb_block);
	}
	printf("Output: %s\n", dbg.json ? "json" : "text");
}
