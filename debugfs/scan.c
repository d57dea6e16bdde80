// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-filesystem walks the search commands share: every initialised inode
 * slot (icheck, lsdel, lsstale, metadump), and the directory tree from the
 * root with the path of each entry (ncheck, lsstale, rdump).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "debugfs.h"
#include "scan.h"

int dbg_inode_scan(dbg_inode_fn fn, void *priv)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	u32 grp, slot;

	for (grp = 0; grp < g->groups_count; grp++) {
		const struct stalefs_group_desc *d = &dbg.fs->groups[grp].desc;
		u32 unused = le32_to_cpu(d->bg_itable_unused);
		u32 init = unused < g->inodes_per_group ? g->inodes_per_group - unused : 0;

		if (le16_to_cpu(d->bg_flags) & STALEFS_BG_INODE_UNINIT)
			init = 0;
		for (slot = 0; slot < init; slot++) {
			struct stalefs_inode inode;
			u32 ino = grp * g->inodes_per_group + slot + 1;
			int rule, ret;
			bool in_use;

			if (stalefs_read_inode_raw(dbg.fs, ino, &inode, &rule))
				continue;	/* unreadable table block: nothing to say about it here */
			if (dbg.fs->bitmaps_loaded)
				in_use = stalefs_test_inode(dbg.fs, ino);
			else
				in_use = inode.i_mode && inode.i_links_count && !inode.i_dtime;
			ret = fn(ino, &inode, rule, in_use, priv);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct tree_ctx {
	const char *cmd;
	int problems;
	dbg_tree_fn fn;
	void *priv;
	u8 *seen;	/* directories already entered (a corrupt tree may loop) */
	char path[4096];
	int ret;
};

/* One directory's entries, packed: a 100,000-entry directory costs ~1.5 MB,
 * not the 30 MB of full stalefs_dirent_info copies. */
struct dir_entry {
	u32 ino;
	u32 name_off;	/* into dir_batch.names */
	u8 file_type;
	u8 name_len;
};

struct dir_batch {
	struct dir_entry *e;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

static int collect_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct dir_batch *b = priv;

	(void)fs;
	/* An empty name (damage, already reported by the walk) has no path to give. */
	if (!de->ino || !de->name_len || (de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 32;
		struct dir_entry *e = realloc(b->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		b->e = e;
		b->cap = cap;
	}
	if (b->names_len + de->name_len > b->names_cap) {
		size_t cap = b->names_cap ? b->names_cap * 2 : 1024;
		char *names;

		while (cap < b->names_len + de->name_len)
			cap *= 2;
		if (cap > UINT32_MAX || !(names = realloc(b->names, cap)))
			return -ENOMEM;
		b->names = names;
		b->names_cap = cap;
	}
	memcpy(b->names + b->names_len, de->name, de->name_len);
	b->e[b->n++] = (struct dir_entry){ .ino = de->ino, .name_off = (u32)b->names_len,
					   .file_type = de->file_type, .name_len = de->name_len };
	b->names_len += de->name_len;
	return 0;
}

static void walk_dir(struct tree_ctx *c, u32 dir, int depth)
{
	struct dir_batch b = { 0 };
	size_t len = strlen(c->path), i;
	int r;

	if (depth > 256 || c->ret)
		return;
	r = dbg_dir_iterate(c->cmd, dir, false, collect_cb, &b);
	if (r < 0) {
		c->ret = r;
		goto out;
	}
	c->problems += r;
	for (i = 0; i < b.n && !c->ret; i++) {
		const struct dir_entry *de = &b.e[i];
		bool is_dir = de->file_type == STALEFS_FT_DIR;

		if (len + 1 + de->name_len >= sizeof(c->path))
			continue;
		snprintf(c->path + len, sizeof(c->path) - len, "/%.*s", de->name_len, b.names + de->name_off);
		c->ret = c->fn(de->ino, de->file_type, c->path, c->priv);
		if (!c->ret && is_dir && stalefs_ino_valid(dbg.fs, de->ino) &&
		    !(c->seen[de->ino / 8] & (1u << (de->ino % 8)))) {
			c->seen[de->ino / 8] |= (u8)(1u << (de->ino % 8));
			walk_dir(c, de->ino, depth + 1);
		}
		c->path[len] = '\0';
	}
out:
	free(b.e);
	free(b.names);
}

int dbg_tree_walk(const char *cmd, u32 top, const char *top_path, dbg_tree_fn fn, void *priv)
{
	struct tree_ctx c = { .cmd = cmd, .fn = fn, .priv = priv };

	c.seen = calloc(dbg.fs->geom.inodes_count / 8 + 1, 1);
	if (!c.seen)
		return -ENOMEM;
	snprintf(c.path, sizeof(c.path), "%s", strcmp(top_path, "/") ? top_path : "");
	if (stalefs_ino_valid(dbg.fs, top))
		c.seen[top / 8] |= (u8)(1u << (top % 8));
	walk_dir(&c, top, 0);
	free(c.seen);
	return c.ret < 0 ? c.ret : c.problems;
}
