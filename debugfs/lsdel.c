// SPDX-License-Identifier: GPL-2.0
/*
 * lsdel / undel.  The library deletes an inode by freeing its blocks and
 * setting dtime with links at 0, but keeps the mapping in i_block (see
 * stalefs_delete_inode), so a deleted file can come back whole as long as
 * none of its blocks (data and extent tree nodes) has been reused.
 */
#include <getopt.h>
#include <stdlib.h>
#include <time.h>
#include "debugfs.h"
#include "scan.h"

struct blocks_of {
	u64 total, free;
	u64 *list;		/* every block, data and tree nodes, when collecting */
	size_t n, cap;
	bool collect;
};

static void note_block(struct blocks_of *b, u64 block)
{
	b->total++;
	if (block < dbg.fs->geom.blocks_count && !stalefs_test_block(dbg.fs, block))
		b->free++;
	if (!b->collect)
		return;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		u64 *l = realloc(b->list, cap * sizeof(*l));

		if (!l) {
			b->collect = false;	/* reported by the caller through n != total */
			return;
		}
		b->list = l;
		b->cap = cap;
	}
	b->list[b->n++] = block;
}

static int blocks_entry(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	(void)fs;
	u32 i;

	if (e->is_index || e->len > STALEFS_EXT_MAX_LEN)
		return 0;
	for (i = 0; i < e->len; i++)
		note_block(priv, e->pblk + i);
	return 0;
}

static int blocks_node(stalefs_fs *fs, const struct stalefs_xnode *n, void *priv)
{
	(void)fs;
	if (n->level && n->eh)	/* a tree block that was read */
		note_block(priv, n->block);
	return 0;
}

static int count_blocks(u32 ino, const struct stalefs_inode *inode, struct blocks_of *b)
{
	if (!stalefs_inode_has_extents(inode))
		return 0;
	return stalefs_extent_scan(dbg.fs, ino, inode, &(struct stalefs_xscan_ops){ .entry = blocks_entry, .node = blocks_node }, b);
}

static bool is_deleted(const struct stalefs_inode *inode, bool in_use)
{
	return !in_use && inode->i_mode && !inode->i_links_count && inode->i_dtime;
}

struct lsdel_ctx {
	s64 since;
	int count;
};

static int lsdel_cb(u32 ino, const struct stalefs_inode *inode, int rule, bool in_use, void *priv)
{
	struct lsdel_ctx *c = priv;
	struct blocks_of b = { 0 };
	char t[64];
	s64 dtime = (s64)le64_to_cpu(inode->i_dtime);

	(void)rule;
	if (!is_deleted(inode, in_use) || (c->since && dtime < c->since))
		return 0;
	count_blocks(ino, inode, &b);
	dbg_time_string(dtime, t, sizeof(t));
	printf("%8u %6u %6o %10llu %6llu/%6llu %s\n", ino, le32_to_cpu(inode->i_uid), le16_to_cpu(inode->i_mode),
	       (unsigned long long)le64_to_cpu(inode->i_size), (unsigned long long)b.free,
	       (unsigned long long)b.total, t);
	c->count++;
	return 0;
}

DBG_CMD(do_lsdel)
{
	struct lsdel_ctx c = { 0 };
	u64 secs = 0;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 1, "[secs]") || !dbg_need_bitmaps(argv[0]))
		return;
	if (argc > 1) {
		s64 now = (s64)time(NULL);

		if (!dbg_parse_u64(argv[0], argv[1], "seconds", &secs))
			return;
		/* A span longer than the clock has run lists every deletion (since stays 0). */
		if (secs < (u64)now)
			c.since = now - (s64)secs;
	}
	printf("%8s %6s %6s %10s %13s %s\n", "Inode", "Owner", "Mode", "Size", "Free/Blocks", "Time deleted");
	dbg_inode_scan(lsdel_cb, &c);
	printf("%d deleted inode(s) found.\n", c.count);
}

DBG_CMD(do_undel)
{
	static const char usage[] = "[-j [-s transaction]] <inode_num> [dest_name]";
	struct stalefs_inode inode;
	struct blocks_of b = { .collect = true };
	u32 ino, seq = 0;
	int rule, bad, c;
	size_t i;
	bool is_dir, stale, journal = false, have_seq = false;
	errcode_t err;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "js:")) != -1) {
		switch (c) {
		case 'j': journal = true; break;
		case 's':
			if (!dbg_parse_u32(argv[0], optarg, "transaction", &seq))
				return;
			have_seq = true;
			break;
		default:
			dbg_usage(argv[0], usage);
			return;
		}
	}
	if (argc - optind < 1 || argc - optind > 2 || (have_seq && !journal)) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]) || !dbg_need_bitmaps(argv[0]) || !dbg_name_to_ino(argv[0], argv[optind], &ino))
		return;
	/* The kernel's deletions leave no map in the inode: the journal's older copies have it. */
	if (journal) {
		dbg_undel_journal(argv[0], ino, argc - optind > 1 ? argv[optind + 1] : NULL, have_seq, seq);
		return;
	}
	if (!dbg_read_inode(argv[0], ino, &inode, &rule))
		return;
	if (!is_deleted(&inode, stalefs_test_inode(dbg.fs, ino))) {
		dbg_msg(argv[0], "inode %u is not a deleted inode (in use, never used, or cleared)", ino);
		return;
	}
	bad = count_blocks(ino, &inode, &b);
	if (bad != 0 || b.n != b.total) {
		dbg_msg(argv[0], "inode %u: its extent tree is damaged or reused; cannot undelete", ino);
		goto out;
	}
	for (i = 0; i < b.n; i++)
		if (b.list[i] >= dbg.fs->geom.blocks_count || stalefs_test_block(dbg.fs, b.list[i])) {
			dbg_msg(argv[0], "block %llu of inode %u is in use now; cannot undelete",
				(unsigned long long)b.list[i], ino);
			goto out;
		}
	stale = le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL;
	/* STALE extents need a permitted group to be confined to (S3): forgotten, none exists. */
	if (stale && !(le32_to_cpu(dbg.fs->sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE)) {
		dbg_msg(argv[0], "inode %u holds STALE extents and no permitted group is recorded "
			"(stale_group GID first); cannot undelete", ino);
		goto out;
	}
	is_dir = (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
	for (i = 0; i < b.n; i++)
		dbg_claim_block(b.list[i]);
	dbg_claim_inode(ino, is_dir);
	if (stale)
		stalefs_adjust_stale_count(dbg.fs, ino, 1);
	inode.i_links_count = cpu_to_le16(is_dir ? 2 : 1);
	inode.i_dtime = 0;
	stalefs_inode_set_times_now(&inode, false, false, true);
	err = stalefs_write_inode(dbg.fs, ino, &inode);
	if (!err && argc - optind > 1) {
		const char *name;
		u32 dir;

		err = stalefs_namei_parent(dbg.fs, dbg.cwd, argv[optind + 1], &dir, &name);
		if (!err)
			err = stalefs_link(dbg.fs, dir, name, ino, stalefs_ft_from_mode(le16_to_cpu(inode.i_mode)));
	}
	if (err)
		dbg_err(argv[0], err, "undeleting inode %u", ino);
out:
	free(b.list);
}
