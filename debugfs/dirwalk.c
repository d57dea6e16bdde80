// SPDX-License-Identifier: GPL-2.0
/*
 * Directories for inspection: ls, dirsearch, ncheck, lsstale and rdump use
 * the library's tolerant scan (stalefs_dir_scan) and report each damaged
 * block on stderr, naming the rule, and go on with the entries that can still
 * be parsed, so a damaged directory shows everything that is left of it.
 */
#include <stdlib.h>
#include "debugfs.h"
#include "scan.h"

struct dir_walk {
	const char *cmd;
	u32 dir;
	int problems;		/* damage named on stderr */
	stalefs_dir_iter_fn fn;
	void *priv;
};

static void report(const char *cmd, u32 dir, u32 lblk, u64 pblk, const char *what)
{
	fflush(stdout);
	fprintf(stderr, "%s: directory inode %u, block %u (physical %llu): %s\n", cmd, dir, lblk,
		(unsigned long long)pblk, what);
}

static int bad_block(stalefs_fs *fs, const struct stalefs_dirblock_info *b, void *priv)
{
	struct dir_walk *w = priv;

	(void)fs;
	report(w->cmd, b->dir, b->lblk, b->pblk, b->err ? "cannot be read" : stalefs_rule_msg(b->rule));
	w->problems++;
	return 0;
}

static int bad_entry(stalefs_fs *fs, const struct stalefs_dirent_info *de, int rule, void *priv)
{
	struct dir_walk *w = priv;
	char what[96];

	(void)fs;
	if (rule == STALEFS_R_DIR_REC_LEN)
		snprintf(what, sizeof(what), "bad rec_len %u at offset %u; the rest of the block is skipped",
			 de->rec_len, de->offset);
	else
		snprintf(what, sizeof(what), "entry at offset %u: name_len %u does not fit rec_len %u", de->offset,
			 de->name_len, de->rec_len);
	report(w->cmd, w->dir, de->lblk, de->pblk, what);
	w->problems++;
	return 0;
}

static int bad_tree(stalefs_fs *fs, u32 dir, int bad_nodes, void *priv)
{
	struct dir_walk *w = priv;

	(void)fs;
	(void)bad_nodes;
	fprintf(stderr, "%s: directory inode %u: its extent tree is damaged (see ex)\n", w->cmd, dir);
	w->problems++;
	return 0;
}

static int entry(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct dir_walk *w = priv;

	return w->fn(fs, de, w->priv);
}

int dbg_dir_iterate(const char *cmd, u32 dir, bool empty, stalefs_dir_iter_fn fn, void *priv)
{
	struct stalefs_inode inode;
	struct dir_walk w = { cmd, dir, 0, fn, priv };
	const struct stalefs_dir_scan_ops ops = {
		.flags = empty ? STALEFS_DIR_ITER_EMPTY | STALEFS_DIR_ITER_DELETED : 0,
		.entry = entry, .bad_block = bad_block, .bad_entry = bad_entry, .bad_tree = bad_tree,
	};
	int rule, ret;
	errcode_t err = stalefs_read_inode_raw(dbg.fs, dir, &inode, &rule);

	if (!err && (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFDIR)
		err = STALEFS_ERR_NOT_DIR;
	if (err) {
		fflush(stdout);
		fprintf(stderr, "%s: %s while reading directory inode %u\n", cmd, error_message(err), dir);
		return 1;
	}
	if (rule) {
		fprintf(stderr, "%s: directory inode %u: %s\n", cmd, dir, stalefs_rule_msg(rule));
		w.problems++;
	}
	ret = stalefs_dir_scan(dbg.fs, dir, &inode, &ops, &w);
	return ret ? ret : w.problems;	/* ret > 0: the callback stopped the walk early */
}
