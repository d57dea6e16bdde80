// SPDX-License-Identifier: GPL-2.0
/*
 * lsstale: every inode holding STALE extents (or flagged as if it did), with
 * its path, owner, group, mode, stale block count, and whether it is confined
 * to the permitted group (gid == stale_gid and no permission bit for others);
 * stale_group: the permitted group; dump_stale: what STALE extents expose.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "debugfs.h"
#include "scan.h"

struct stale_inode {
	u32 ino, uid, gid, flags;
	u16 mode;
	u64 stale_blocks;
	char *path;
};

struct stale_ctx {
	struct stale_inode *v;
	size_t n, cap;
	u64 blocks;
};

static int count_stale(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	(void)fs;
	if (!e->is_index && (e->flags & STALEFS_EXT_STALE))
		*(u64 *)priv += e->len;
	return 0;
}

static int stale_inode_cb(u32 ino, const struct stalefs_inode *inode, int rule, bool in_use, void *priv)
{
	struct stale_ctx *c = priv;
	u64 n = 0;
	u32 flags = le32_to_cpu(inode->i_flags);

	(void)rule;
	if (!in_use)
		return 0;
	if (stalefs_inode_has_extents(inode))
		stalefs_extent_scan(dbg.fs, ino, inode, &(struct stalefs_xscan_ops){ .entry = count_stale }, &n);
	if (!n && !(flags & STALEFS_INODE_STALE_FL))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct stale_inode *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = (struct stale_inode){ .ino = ino, .uid = le32_to_cpu(inode->i_uid),
					     .gid = le32_to_cpu(inode->i_gid), .mode = le16_to_cpu(inode->i_mode),
					     .flags = flags, .stale_blocks = n };
	c->blocks += n;
	return 0;
}

/* Each inode's path, by one walk of the tree (the scan found them in inode order). */
static int stale_paths(const char *cmd, struct stale_ctx *c)
{
	u32 *inos = malloc((c->n ? c->n : 1) * sizeof(*inos));
	char **paths = NULL;
	size_t i;
	int r;

	if (!inos)
		return -ENOMEM;
	for (i = 0; i < c->n; i++)
		inos[i] = c->v[i].ino;
	r = dbg_paths_of(cmd, inos, c->n, &paths);
	for (i = 0; paths && i < c->n; i++) {
		c->v[i].path = paths[i];
		paths[i] = NULL;
	}
	dbg_paths_free(paths, c->n);
	free(inos);
	return r;
}

DBG_CMD(do_lsstale)
{
	struct stale_ctx c = { 0 };
	u32 sg;
	size_t i, unconfined = 0;
	int err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 0, "") || !dbg_need_fs(argv[0]))
		return;
	sg = le32_to_cpu(dbg.fs->sb.s_stale_gid);
	err = dbg_inode_scan(stale_inode_cb, &c);
	if (err) {
		dbg_err(argv[0], err < 0 ? -err : err, "scanning for stale extents");
		goto out;
	}
	/* Paths are best effort: a damaged directory is named on stderr, the list still printed. */
	if (stale_paths(argv[0], &c))
		dbg_fail();
	for (i = 0; i < c.n; i++)
		unconfined += !dbg_confined(c.v[i].gid, c.v[i].mode);
	if (dbg.json) {
		printf("{\"stale_gid\":");
		if (sg == STALEFS_STALE_GID_NONE)
			printf("null");
		else
			printf("%u", sg);
		printf(",\"files\":%zu,\"blocks\":%llu,\"unconfined\":%zu,\"inodes\":[", c.n,
		       (unsigned long long)c.blocks, unconfined);
		for (i = 0; i < c.n; i++) {
			const struct stale_inode *s = &c.v[i];

			printf("%s{\"ino\":%u,\"path\":", i ? "," : "", s->ino);
			if (s->path)
				json_str(stdout, s->path);
			else
				printf("null");
			printf(",\"uid\":%u,\"gid\":%u,\"mode\":%u,\"stale_blocks\":%llu,\"stale_flag\":%s,\"confined\":%s}",
			       s->uid, s->gid, s->mode, (unsigned long long)s->stale_blocks,
			       (s->flags & STALEFS_INODE_STALE_FL) ? "true" : "false",
			       dbg_confined(s->gid, s->mode) ? "true" : "false");
		}
		printf("]}\n");
		goto out;
	}
	printf("%8s %6s %6s %-10s %8s %-10s %s\n", "Inode", "Owner", "Group", "Mode", "Stale", "Confined", "Path");
	for (i = 0; i < c.n; i++) {
		const struct stale_inode *s = &c.v[i];
		char m[11];

		stalefs_mode_string(s->mode, m);
		printf("%8u %6u %6u %-10s %8llu %-10s %s%s\n", s->ino, s->uid, s->gid, m,
		       (unsigned long long)s->stale_blocks, dbg_confined(s->gid, s->mode) ? "yes" : "NO",
		       s->path ? s->path : "<unlinked>",
		       !s->stale_blocks ? "  (STALE flag without STALE extents)"
		       : !(s->flags & STALEFS_INODE_STALE_FL) ? "  (STALE extents without the STALE flag)" : "");
	}
	if (sg == STALEFS_STALE_GID_NONE)
		printf("%zu file(s), %llu block(s) stale-exposed; no permitted group is recorded\n", c.n,
		       (unsigned long long)c.blocks);
	else
		printf("%zu file(s), %llu block(s) stale-exposed to group %u; %zu not confined\n", c.n,
		       (unsigned long long)c.blocks, sg, unconfined);
out:
	for (i = 0; i < c.n; i++)
		free(c.v[i].path);
	free(c.v);
}

/*
 * stale_group [GID | -f]: show the permitted group; record one; or forget it
 * (-f).  The rule (both fields change together, refused while an inode holds
 * STALE extents: FORMAT.md 10) is the library's, shared with tunefs -G.
 */
DBG_CMD(do_stale_group)
{
	struct stalefs_stale_census c;
	u32 sg, gid = STALEFS_STALE_GID_NONE;
	bool change = false;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 1, "[GID | -f]") || !dbg_need_fs(argv[0]))
		return;
	if (argc == 2) {
		if (strcmp(argv[1], "-f") != 0) {
			if (!dbg_parse_u32(argv[0], argv[1], "group id", &gid))
				return;
			if (gid == STALEFS_STALE_GID_NONE) {
				dbg_msg(argv[0], "Bad group id - %s (4294967295 means none; use -f to forget)", argv[1]);
				return;
			}
		}
		if (!dbg_need_rw(argv[0]))
			return;
		change = true;
	}
	sg = le32_to_cpu(dbg.fs->sb.s_stale_gid);
	if (!change) {
		err = stalefs_stale_census(dbg.fs, &c);
		if (err) {
			dbg_err(argv[0], err, "scanning for stale extents");
			return;
		}
		if (sg == STALEFS_STALE_GID_NONE)
			printf("No permitted group is recorded; %llu file(s) hold STALE extents.\n",
			       (unsigned long long)c.files);
		else
			printf("Permitted group: %u; %llu file(s), %llu block(s) hold STALE extents.\n", sg,
			       (unsigned long long)c.files, (unsigned long long)c.blocks);
		return;
	}
	err = stalefs_stale_group_set(dbg.fs, gid, &c);
	if (err == STALEFS_ERR_STALE_EXTENTS) {
		fprintf(stderr, "%s: refused: %llu file(s) hold STALE extents (debugfs lsstale lists them); "
			"punch, zero or delete them first, or fsck.stalefs -E hide_stale\n", argv[0],
			(unsigned long long)c.files);
		dbg_fail();
		return;
	}
	if (err) {
		dbg_err(argv[0], err, gid == STALEFS_STALE_GID_NONE ? "forgetting the permitted group"
								 : "recording the permitted group");
		return;
	}
	if (gid != STALEFS_STALE_GID_NONE)
		printf("Permitted group %u recorded.\n", gid);
	else if (sg == STALEFS_STALE_GID_NONE)
		printf("No permitted group was recorded.\n");
	else
		printf("Permitted group %u forgotten.\n", sg);
}

/*
 * dump_stale [-d directory] [-m map_file] [output_file]: the content of every STALE extent
 * -- what the disk held before, exposed to the permitted group -- as one stream (extents in
 * inode and logical order), or with -d as one sparse file per inode (<ino>.stale, each
 * extent at its logical offset), with a map naming each extent's inode, owner, group and
 * whether it is confined to the permitted group.
 */
struct stale_ext {
	u32 lblk, len;
	u64 pblk;
};

struct stale_exts {
	struct stale_ext *v;
	size_t n, cap;
};

static int collect_stale(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	struct stale_exts *x = priv;

	if (e->is_index || !(e->flags & STALEFS_EXT_STALE) || !e->len || e->len > STALEFS_EXT_MAX_LEN ||
	    e->pblk + e->len > fs->geom.blocks_count)
		return 0;
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 16;
		struct stale_ext *v = realloc(x->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n++] = (struct stale_ext){ e->lblk, e->len, e->pblk };
	return 0;
}

/* One inode's STALE extents, to the stream or to dir/<ino>.stale. */
static bool dump_one(struct dbg_extract *x, const struct stale_inode *s, const char *dir, u64 *blocks)
{
	struct stalefs_inode inode;
	struct stale_exts e = { 0 };
	const u32 bs = dbg.fs->block_size;
	char file[4096] = "-";
	FILE *to = x->out;
	bool ok = true;
	size_t i;
	int rule;

	if (stalefs_read_inode_raw(dbg.fs, s->ino, &inode, &rule) ||
	    stalefs_extent_scan(dbg.fs, s->ino, &inode, &(struct stalefs_xscan_ops){ .entry = collect_stale }, &e) < 0)
		return false;
	if (dir && e.n) {
		snprintf(file, sizeof(file), "%s/%u.stale", dir, s->ino);
		to = dbg_fopen_private(file);
		if (!to) {
			dbg_err(x->cmd, errno, "creating %s", file);
			free(e.v);
			return false;
		}
	}
	for (i = 0; i < e.n && ok; i++) {
		u64 stream = dir ? (u64)e.v[i].lblk * bs : x->stream_off;

		if (dir && fseeko(to, (off_t)((u64)e.v[i].lblk * bs), SEEK_SET)) {
			dbg_err(x->cmd, errno, "writing %s", file);
			ok = false;
			break;
		}
		ok = dbg_extract_range(x, to, e.v[i].pblk, 0, (u64)e.v[i].len * bs);
		dbg_extract_map(x, "%llu\t%llu\t%llu\t%llu\t%llu\t%u\t%u\t%u\t%u\t%u\t%s\t%s\t%s\n",
				(unsigned long long)stream, (unsigned long long)e.v[i].len * bs,
				(unsigned long long)e.v[i].pblk * bs, (unsigned long long)(x->base + e.v[i].pblk * bs),
				(unsigned long long)e.v[i].pblk, e.v[i].len, s->ino, e.v[i].lblk, s->uid, s->gid,
				dbg_confined(s->gid, s->mode) ? "yes" : "NO", s->path ? s->path : "<no name>", file);
		*blocks += e.v[i].len;
	}
	if (dir && e.n && fclose(to) != 0 && ok) {
		dbg_err(x->cmd, errno, "writing %s", file);
		ok = false;
	}
	free(e.v);
	return ok;
}

DBG_CMD(do_dump_stale)
{
	static const char usage[] = "[-d directory] [-m map_file] [output_file]";
	struct stale_ctx c = { 0 };
	struct dbg_extract x;
	const char *dir = NULL, *map = NULL;
	char header[256];
	u64 blocks = 0;
	u32 sg;
	size_t i;
	int ch, err;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((ch = getopt(argc, (char *const *)argv, "d:m:")) != -1) {
		switch (ch) {
		case 'd': dir = optarg; break;
		case 'm': map = optarg; break;
		default:
			dbg_usage(argv[0], usage);
			return;
		}
	}
	if (argc - optind > 1 || (dir && argc - optind)) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_fs(argv[0]))
		return;
	if (dir && mkdir(dir, 0700) < 0 && errno != EEXIST) {
		dbg_err(argv[0], errno, "creating %s", dir);
		return;
	}
	err = dbg_inode_scan(stale_inode_cb, &c);
	if (err) {
		dbg_err(argv[0], err < 0 ? -err : err, "scanning for stale extents");
		goto out;
	}
	if (stale_paths(argv[0], &c))
		dbg_fail();
	sg = le32_to_cpu(dbg.fs->sb.s_stale_gid);
	if (sg == STALEFS_STALE_GID_NONE)
		snprintf(header, sizeof(header), "no permitted group recorded\n# ");
	else
		snprintf(header, sizeof(header), "permitted group %u\n# ", sg);
	strncat(header, "stream_offset\tlength\tfs_offset\timage_offset\tfirst_block\tblocks\tinode\tlblk\tuid\tgid"
		"\tconfined\tpath\tfile", sizeof(header) - strlen(header) - 1);
	if (!dbg_extract_open(&x, argv[0], optind < argc ? argv[optind] : NULL, !dir, map, header))
		goto out;
	for (i = 0; i < c.n; i++)
		if (!dump_one(&x, &c.v[i], dir, &blocks))
			break;
	if (dbg_extract_close(&x) && (dir || optind < argc))
		printf("%llu STALE block%s of %zu file%s written to %s\n", (unsigned long long)blocks,
		       blocks == 1 ? "" : "s", c.n, c.n == 1 ? "" : "s", dir ? dir : argv[optind]);
out:
	for (i = 0; i < c.n; i++)
		free(c.v[i].path);
	free(c.v);
}
