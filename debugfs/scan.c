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

struct scan_adapter {
	dbg_inode_fn fn;
	void *priv;
};

static int scan_one(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode, int rule, bool in_use,
		    void *priv)
{
	struct scan_adapter *a = priv;

	(void)fs;
	if (!inode)
		return 0;	/* unreadable table block: nothing to say about it here */
	return a->fn(ino, inode, rule, in_use, a->priv);
}

int dbg_inode_scan(dbg_inode_fn fn, void *priv)
{
	struct scan_adapter a = { fn, priv };

	return stalefs_inode_scan(dbg.fs, scan_one, &a);
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

/* ---- inodes to paths, by one walk ---- */
struct paths {
	const u32 *ino;
	char **path;
	size_t n;
};

static size_t find_ino(const u32 *ino, size_t n, u32 want)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ino[mid] < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ino[lo] == want ? lo : n;
}

static int paths_cb(u32 ino, u8 file_type, const char *path, void *priv)
{
	struct paths *p = priv;
	size_t i = find_ino(p->ino, p->n, ino);

	(void)file_type;
	if (i < p->n && !p->path[i] && !(p->path[i] = strdup(path)))
		return -ENOMEM;
	return 0;
}

int dbg_paths_of(const char *cmd, const u32 *inos, size_t n, char ***out)
{
	struct paths p = { inos, calloc(n ? n : 1, sizeof(char *)), n };

	*out = p.path;
	if (!p.path)
		return -ENOMEM;
	return n ? dbg_tree_walk(cmd, STALEFS_ROOT_INO, "/", paths_cb, &p) : 0;
}

const char *dbg_path_in(const u32 *inos, char *const *paths, size_t n, u32 ino)
{
	size_t i = inos && paths ? find_ino(inos, n, ino) : n;

	return i < n && paths[i] ? paths[i] : "<no name>";
}

void dbg_paths_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}
