// SPDX-License-Identifier: GPL-2.0
/*
 * Space outside what files say they hold, TSK's blkls habits:
 *
 *   blkls [-l] [-m map_file] [output_file]
 *       every unallocated block (its bitmap bit clear), in block order, with
 *       where each run of them lies; -l lists the runs instead
 *   slack [-u] [-m map_file] [output_file]
 *       file slack: the bytes of a file's last block past its size, and the
 *       written (or STALE) blocks a file maps wholly past its size (kept by
 *       fallocate's KEEP_SIZE); -u adds the raw content of UNWRITTEN extents
 *       (what the disk holds under blocks that read as zeros)
 *
 * Maps (extract.c) say, per piece, where it is in the stream and in the
 * filesystem and image, and what it is.
 */
#include <getopt.h>
#include <stdlib.h>
#include "debugfs.h"
#include "scan.h"

/* ---- blkls ---- */
struct run_cb {
	struct dbg_extract *x;
	bool list;
	u64 blocks, runs;
};

/* One run of free blocks [first, first + count), inside one group. */
static bool free_run(struct run_cb *r, u64 first, u64 count)
{
	const u32 bs = dbg.fs->block_size;
	u32 grp = stalefs_block_group(&dbg.fs->geom, first);
	u64 stream = r->x->stream_off;

	r->blocks += count;
	r->runs++;
	if (r->list) {
		printf("%12llu %12llu %10llu %16llu %16llu %8u\n", (unsigned long long)first,
		       (unsigned long long)(first + count - 1), (unsigned long long)count,
		       (unsigned long long)(first * bs), (unsigned long long)(r->x->base + first * bs), grp);
		return true;
	}
	if (r->x->out && !dbg_extract_range(r->x, r->x->out, first, 0, count * bs))
		return false;
	dbg_extract_map(r->x, "%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%u\n", (unsigned long long)stream,
			(unsigned long long)(count * bs), (unsigned long long)(first * bs),
			(unsigned long long)(r->x->base + first * bs), (unsigned long long)first,
			(unsigned long long)count, grp);
	return true;
}

DBG_CMD(do_blkls)
{
	static const char usage[] = "[-l] [-m map_file] [output_file]";
	const struct stalefs_geom *g;
	struct dbg_extract x;
	struct run_cb r = { .x = &x };
	const char *map = NULL;
	u64 b, start = 0;
	bool in_run = false;
	int c;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "lm:")) != -1) {
		switch (c) {
		case 'l': r.list = true; break;
		case 'm': map = optarg; break;
		default:
			dbg_usage(argv[0], usage);
			return;
		}
	}
	if (argc - optind > 1 || (r.list && (map || argc - optind))) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_bitmaps(argv[0]) ||
	    !dbg_extract_open(&x, argv[0], optind < argc ? argv[optind] : NULL, !r.list, map,
			      "stream_offset\tlength\tfs_offset\timage_offset\tfirst_block\tblocks\tgroup"))
		return;
	g = &dbg.fs->geom;
	if (r.list)
		printf("%12s %12s %10s %16s %16s %8s\n", "First", "Last", "Blocks", "FS offset", "Image offset", "Group");
	/* Runs end at group boundaries too: each map line names one group. */
	for (b = 0; b <= g->blocks_count; b++) {
		bool free_here = b < g->blocks_count && !stalefs_test_block(dbg.fs, b);

		if (in_run && (!free_here || stalefs_block_group(g, b) != stalefs_block_group(g, start))) {
			if (!free_run(&r, start, b - start))
				break;
			in_run = false;
		}
		if (free_here && !in_run) {
			start = b;
			in_run = true;
		}
	}
	if (!dbg_extract_close(&x))
		return;
	if (r.list || optind < argc)
		printf("%llu unallocated block%s (%llu bytes) in %llu run%s%s%s\n", (unsigned long long)r.blocks,
		       r.blocks == 1 ? "" : "s", (unsigned long long)(r.blocks * g->block_size),
		       (unsigned long long)r.runs, r.runs == 1 ? "" : "s", optind < argc ? " written to " : "",
		       optind < argc ? argv[optind] : "");
}

/* ---- slack ---- */
struct slack_piece {
	u32 ino;
	u64 block;
	u32 skip;
	u64 len;
	const char *kind;
};

struct slack_ctx {
	bool unwritten;
	struct slack_piece *v;
	size_t n, cap;
	u64 bytes;
	int unreadable;
};

static void add_piece(struct slack_ctx *c, u32 ino, u64 block, u32 skip, u64 len, const char *kind)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct slack_piece *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = (struct slack_piece){ ino, block, skip, len, kind };
	c->bytes += len;
}

static int slack_inode(u32 ino, const struct stalefs_inode *inode, int rule, bool in_use, void *priv)
{
	struct slack_ctx *c = priv;
	struct stalefs_extent_list l;
	u16 type = le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT;
	u32 bs = dbg.fs->block_size, i;
	u64 size = le64_to_cpu(inode->i_size), eof_blocks = (size + bs - 1) / bs;

	(void)rule;
	if (!in_use || (type != STALEFS_S_IFREG && type != STALEFS_S_IFLNK) || !stalefs_inode_has_extents(inode))
		return 0;
	if (stalefs_extent_read(dbg.fs, ino, inode, &l)) {
		fprintf(stderr, "slack: inode %u: its extent tree cannot be read (see ex); skipped\n", ino);
		c->unreadable++;
		return 0;
	}
	for (i = 0; i < l.count; i++) {
		const struct stalefs_ext *e = &l.ext[i];
		bool unwritten = e->flags & STALEFS_EXT_UNWRITTEN;
		u64 lb;

		for (lb = e->lblk; lb < (u64)e->lblk + e->len; lb++) {
			u64 pb = e->pblk + (lb - e->lblk);

			if (unwritten) {
				if (c->unwritten)
					add_piece(c, ino, pb, 0, bs, "unwritten");
			} else if (size % bs && lb == size / bs) {
				add_piece(c, ino, pb, (u32)(size % bs), bs - size % bs, "tail");
			} else if (lb >= eof_blocks) {
				add_piece(c, ino, pb, 0, bs, (e->flags & STALEFS_EXT_STALE) ? "beyond-stale" : "beyond");
			}
		}
	}
	stalefs_extent_list_free(&l);
	return 0;
}

DBG_CMD(do_slack)
{
	static const char usage[] = "[-u] [-m map_file] [output_file]";
	struct slack_ctx c = { 0 };
	struct dbg_extract x;
	const char *map = NULL;
	u32 *inos = NULL;
	char **paths = NULL;
	size_t i, ni = 0;
	int ch;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((ch = getopt(argc, (char *const *)argv, "um:")) != -1) {
		switch (ch) {
		case 'u': c.unwritten = true; break;
		case 'm': map = optarg; break;
		default:
			dbg_usage(argv[0], usage);
			return;
		}
	}
	if (argc - optind > 1) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_fs(argv[0]))
		return;
	dbg_inode_scan(slack_inode, &c);
	inos = malloc((c.n ? c.n : 1) * sizeof(*inos));
	for (i = 0; inos && i < c.n; i++)
		if (!ni || inos[ni - 1] != c.v[i].ino)
			inos[ni++] = c.v[i].ino;	/* the scan goes in inode order */
	/* Names are best effort: a damaged directory is named on stderr, the rest goes on. */
	if (!inos || dbg_paths_of(argv[0], inos, ni, &paths))
		dbg_fail();
	if (!dbg_extract_open(&x, argv[0], optind < argc ? argv[optind] : NULL, true, map,
			      "stream_offset\tlength\tfs_offset\timage_offset\tblock\tinode\tkind\tpath"))
		goto out;
	for (i = 0; i < c.n; i++) {
		const struct slack_piece *p = &c.v[i];
		u64 stream = x.stream_off, fs_off = p->block * dbg.fs->block_size + p->skip;

		if (!dbg_extract_range(&x, x.out, p->block, p->skip, p->len))
			break;
		dbg_extract_map(&x, "%llu\t%llu\t%llu\t%llu\t%llu\t%u\t%s\t%s\n", (unsigned long long)stream,
				(unsigned long long)p->len, (unsigned long long)fs_off, (unsigned long long)(x.base + fs_off),
				(unsigned long long)p->block, p->ino, p->kind,
				dbg_path_in(inos, paths, ni, p->ino));
	}
	if (dbg_extract_close(&x) && optind < argc)
		printf("%llu bytes of slack in %zu piece%s of %zu file%s written to %s\n", (unsigned long long)c.bytes, c.n,
		       c.n == 1 ? "" : "s", ni, ni == 1 ? "" : "s", argv[optind]);
	if (c.unreadable)
		dbg_fail();
out:
	dbg_paths_free(paths, ni);
	free(inos);
	free(c.v);
}
