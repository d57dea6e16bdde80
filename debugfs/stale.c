// SPDX-License-Identifier: GPL-2.0
/*
 * lsstale: every inode holding STALE extents (or flagged as if it did), with
 * its path, owner, group, mode, stale block count, and whether it is confined
 * to the permitted group (gid == stale_gid and no permission bit for others).
 */
#include <stdlib.h>
#include <string.h>
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

static int stale_path_cb(u32 ino, u8 file_type, const char *path, void *priv)
{
	struct stale_ctx *c = priv;
	size_t i;

	(void)file_type;
	for (i = 0; i < c->n; i++)
		if (c->v[i].ino == ino && !c->v[i].path)
			c->v[i].path = strdup(path);
	return 0;
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
	if (c.n && dbg_tree_walk(argv[0], STALEFS_ROOT_INO, "/", stale_path_cb, &c))
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
