// SPDX-License-Identifier: GPL-2.0
/*
 * A forgiving directory reader for inspection.  The library stops at the
 * first directory block that fails verification; ls, dirsearch, ncheck,
 * lsstale and rdump instead report each damaged block (on stderr, naming the
 * rule) and go on with the entries they can still parse, so a damaged
 * directory shows everything that is left of it.
 */
#include <stdlib.h>
#include "debugfs.h"
#include "scan.h"

struct dir_blocks {
	struct { u32 lblk; u64 pblk; } *v;
	size_t n, cap;
};

static int collect(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	(void)fs;
	struct dir_blocks *b = priv;
	u32 i;

	if (e->is_index || e->len > STALEFS_EXT_MAX_LEN)
		return 0;
	for (i = 0; i < e->len; i++) {
		if (b->n == b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 16;
			void *v = realloc(b->v, cap * sizeof(*b->v));

			if (!v)
				return -1;
			b->v = v;
			b->cap = cap;
		}
		b->v[b->n].lblk = e->lblk + i;
		b->v[b->n].pblk = e->pblk + i;
		b->n++;
	}
	return 0;
}

static void report(const char *cmd, u32 dir, u32 lblk, u64 pblk, const char *what)
{
	fflush(stdout);
	fprintf(stderr, "%s: directory inode %u, block %u (physical %llu): %s\n", cmd, dir, lblk,
		(unsigned long long)pblk, what);
}

/* Parse one block's entries; returns the callback's nonzero value, or 0. */
static int parse_block(const char *cmd, u32 dir, u32 lblk, u64 pblk, const u8 *buf, bool empty,
		       stalefs_dir_iter_fn fn, void *priv, int *problems)
{
	u32 bs = dbg.fs->block_size, off = sizeof(struct stalefs_dir_block);
	struct stalefs_dirent_info info;

	while (off + sizeof(struct stalefs_dir_entry) <= bs) {
		const struct stalefs_dir_entry *de = (const void *)(buf + off);
		u32 rec_len = le16_to_cpu(de->rec_len);
		int ret;

		if (rec_len < sizeof(*de) || rec_len % 4 || rec_len > bs - off) {
			char what[96];

			snprintf(what, sizeof(what), "bad rec_len %u at offset %u; the rest of the block is skipped",
				 rec_len, off);
			report(cmd, dir, lblk, pblk, what);
			(*problems)++;
			return 0;
		}
		memset(&info, 0, sizeof(info));
		info.ino = le32_to_cpu(de->inode);
		info.rec_len = rec_len;
		info.lblk = lblk;
		info.pblk = pblk;
		info.offset = off;
		if (info.ino && sizeof(*de) + de->name_len > rec_len) {
			char what[96];

			snprintf(what, sizeof(what), "entry at offset %u: name_len %u does not fit rec_len %u", off,
				 de->name_len, rec_len);
			report(cmd, dir, lblk, pblk, what);
			(*problems)++;
		} else if (info.ino || empty) {
			info.file_type = de->file_type;
			info.name_len = sizeof(*de) + de->name_len <= rec_len ? de->name_len : 0;
			memcpy(info.name, de->name, info.name_len);
			info.name[info.name_len] = '\0';
			ret = fn(dbg.fs, &info, priv);
			if (ret)
				return ret;
		}
		off += rec_len;
	}
	return 0;
}

int dbg_dir_iterate(const char *cmd, u32 dir, bool empty, stalefs_dir_iter_fn fn, void *priv)
{
	struct stalefs_inode inode;
	struct dir_blocks b = { 0 };
	int rule, problems = 0, ret = 0;
	size_t i;
	u8 *buf;

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
		problems++;
	}
	if (stalefs_extent_scan(dbg.fs, dir, &inode, &(struct stalefs_xscan_ops){ .entry = collect }, &b)) {
		fprintf(stderr, "%s: directory inode %u: its extent tree is damaged (see ex)\n", cmd, dir);
		problems++;
	}
	buf = malloc(dbg.fs->block_size);
	for (i = 0; buf && i < b.n && !ret; i++) {
		u32 lblk = b.v[i].lblk;
		u64 pblk = b.v[i].pblk;
		int r;

		if (stalefs_read_block(dbg.fs, pblk, buf)) {
			report(cmd, dir, lblk, pblk, "cannot be read");
			problems++;
			continue;
		}
		if (le32_to_cpu(*(const __le32 *)buf) != STALEFS_DIRBLK_MAGIC) {
			report(cmd, dir, lblk, pblk, stalefs_rule_msg(STALEFS_R_DIR_MAGIC));
			problems++;
			continue;
		}
		r = stalefs_verify_dirblock(buf, dbg.fs->block_size, pblk, dir, lblk);
		if (!r)
			r = stalefs_verify_dirblock_csum(dbg.fs->seed, buf, dbg.fs->block_size);
		if (r) {
			report(cmd, dir, lblk, pblk, stalefs_rule_msg(r));
			problems++;
		}
		ret = parse_block(cmd, dir, lblk, pblk, buf, empty, fn, priv, &problems);
	}
	free(buf);
	free(b.v);
	return ret < 0 ? ret : problems;	/* ret > 0: the callback stopped the walk early */
}
