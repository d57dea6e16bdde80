/*
 * Extent trees on disk (1 KiB blocks: 61 entries per node block): write and
 * read back at sizes around every capacity edge, up to a tree of depth 3;
 * node blocks verified, counted in i_blocks and freed when the tree is
 * rewritten; flag changes in the middle of an extent deep in the tree;
 * truncate and punch at node boundaries; damaged or misplaced node blocks
 * refused.
 */
#include "unit.h"

#define PER 61	/* (1024 - 40) / 16 */

struct tree_file {
	struct scratch s;
	stalefs_fs *fs;
	u32 ino;
	struct stalefs_inode inode;
};

static void tf_open(struct tree_file *t, u64 bytes)
{
	t->fs = scratch_mkfs(&t->s, bytes, 1024);
	ck_assert_uint_eq(stalefs_extblock_max_entries(t->fs->block_size), PER);
	ck_ok(stalefs_create(t->fs, STALEFS_ROOT_INO, "tree", STALEFS_S_IFREG | 0644, 0, 0, &t->ino));
	ck_ok(stalefs_read_inode(t->fs, t->ino, &t->inode));
}

/* n extents of len blocks each, a one-block logical gap between them so none merge. */
static void build(stalefs_fs *fs, struct stalefs_extent_list *l, u32 n, u32 len, u16 flags)
{
	u64 goal = 0;
	u32 i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < n; i++) {
		u64 start;
		u32 got;

		for (;;) {
			hot_assert(stalefs_alloc_blocks(fs, goal, len, &start, &got) == 0, "out of space at extent %u", i);
			goal = start + got;
			if (got == len)
				break;
			stalefs_free_blocks(fs, start, got);
		}
		hot_assert(stalefs_extent_list_append(l, i * (len + 1), len, start, flags) == 0, "append %u", i);
	}
}

/* Node blocks and depth a tree of n entries needs. */
static u32 expected_nodes(u32 n, u32 *depth)
{
	u32 total = 0;

	*depth = 0;
	if (n <= STALEFS_ROOT_EXTENTS)
		return 0;
	do {
		n = (n + PER - 1) / PER;
		total += n;
		(*depth)++;
	} while (n > STALEFS_ROOT_EXTENTS);
	return total;
}

struct walk_stats {
	u32 leaves, index_entries, extents, max_level, bad;
	u64 nodes[1024];
	u32 nnodes;
};

static int walk_cb(stalefs_fs *fs, const struct stalefs_extent_walk *w, void *priv)
{
	struct walk_stats *st = priv;

	(void)fs;
	if (w->rule) {
		st->bad++;
		return 0;
	}
	if (w->level > st->max_level)
		st->max_level = w->level;
	if (w->is_index) {
		st->index_entries++;
		if (st->nnodes < 1024)
			st->nodes[st->nnodes++] = w->e.pblk;
	} else {
		st->extents++;
	}
	return 0;
}

/* A block freed by truncate or punch is free now, or was reused for a node of the new tree. */
static bool freed_or_node(struct tree_file *t, u64 block)
{
	static struct walk_stats st;
	u32 i;

	if (!stalefs_test_block(t->fs, block))
		return true;
	memset(&st, 0, sizeof(st));
	ck_ok(stalefs_extent_walk(t->fs, t->ino, &t->inode, walk_cb, &st));
	for (i = 0; i < st.nnodes; i++)
		if (st.nodes[i] == block)
			return true;
	return false;
}

static void same_lists(const struct stalefs_extent_list *a, const struct stalefs_extent_list *b)
{
	u32 i;

	ck_assert_uint_eq(a->count, b->count);
	for (i = 0; i < a->count; i++)
		hot_assert(a->ext[i].lblk == b->ext[i].lblk && a->ext[i].len == b->ext[i].len &&
				   a->ext[i].pblk == b->ext[i].pblk && a->ext[i].flags == b->ext[i].flags,
			   "extent %u differs after the round trip", i);
}

static const u32 sizes[] = { 0, 1, 7, 8, PER, PER + 1, 7 * PER, 7 * PER + 1, PER * PER, 7 * PER * PER,
			     7 * PER * PER + 1 };

START_TEST(round_trip_sizes)
{
	struct tree_file t;
	struct stalefs_extent_list l, back;
	struct walk_stats st;
	u32 n = sizes[_i], depth, nodes = expected_nodes(n, &depth), i;
	u64 free0, free1;

	tf_open(&t, 64 << 20);
	build(t.fs, &l, n, 1, 0);
	free0 = le64_to_cpu(t.fs->sb.s_free_blocks_count);
	ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &l));
	ck_ok(stalefs_write_inode(t.fs, t.ino, &t.inode));
	ck_assert_uint_eq(l.tree_blocks, nodes);
	ck_assert_uint_eq(le16_to_cpu(stalefs_inode_eh(&t.inode)->eh_depth), depth);
	ck_assert_uint_eq(le64_to_cpu(t.inode.i_blocks), (u64)n + nodes);
	ck_assert_uint_eq(le64_to_cpu(t.fs->sb.s_free_blocks_count), free0 - nodes);

	/* Back from disk after a reopen. */
	t.fs = scratch_reopen(&t.s);
	ck_ok(stalefs_read_inode(t.fs, t.ino, &t.inode));
	ck_ok(stalefs_extent_read(t.fs, t.ino, &t.inode, &back));
	same_lists(&l, &back);
	ck_assert_uint_eq(back.tree_blocks, nodes);

	/* Walk: every node verified, the levels as deep as the tree, each node block sound. */
	memset(&st, 0, sizeof(st));
	ck_ok(stalefs_extent_walk(t.fs, t.ino, &t.inode, walk_cb, &st));
	ck_assert_uint_eq(st.bad, 0);
	ck_assert_uint_eq(st.extents, n);
	ck_assert_uint_eq(st.index_entries, nodes);
	ck_assert_uint_eq(st.max_level, depth);
	for (i = 0; i < st.nnodes; i++) {
		u8 buf[1024];

		ck_ok(stalefs_read_block(t.fs, st.nodes[i], buf));
		ck_assert_int_eq(stalefs_verify_extblock_header(buf, st.nodes[i], t.ino,
								le32_to_cpu(t.inode.i_generation)), 0);
		ck_assert_int_eq(stalefs_verify_extblock_csum(t.fs->seed, buf, 1024), 0);
		ck_assert(stalefs_test_block(t.fs, st.nodes[i]));
	}

	/* Rewriting as empty frees every node block; the data blocks are the caller's. */
	free1 = le64_to_cpu(t.fs->sb.s_free_blocks_count);
	stalefs_extent_list_free(&back);
	ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &back));
	ck_assert_uint_eq(le64_to_cpu(t.fs->sb.s_free_blocks_count), free1 + nodes);
	ck_assert_uint_eq(le64_to_cpu(t.inode.i_blocks), 0);
	ck_assert_uint_eq(le16_to_cpu(stalefs_inode_eh(&t.inode)->eh_depth), 0);
	for (i = 0; i < st.nnodes; i++)
		ck_assert(!stalefs_test_block(t.fs, st.nodes[i]));
	stalefs_extent_list_free(&l);
	scratch_done(&t.s);
}
END_TEST

/* Rewriting a tree again and again does not leak node blocks. */
START_TEST(rewrite_does_not_leak)
{
	struct tree_file t;
	struct stalefs_extent_list l;
	u64 free0;
	u32 round, depth;

	tf_open(&t, 16 << 20);
	build(t.fs, &l, 3 * PER, 1, 0);
	free0 = le64_to_cpu(t.fs->sb.s_free_blocks_count);
	for (round = 0; round < 5; round++) {
		ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &l));
		ck_assert_uint_eq(le64_to_cpu(t.fs->sb.s_free_blocks_count), free0 - expected_nodes(3 * PER, &depth));
	}
	stalefs_extent_list_free(&l);
	scratch_done(&t.s);
}
END_TEST

/* Extents longer than 32768 blocks are split when written; adjacent ones merged. */
START_TEST(normalised_on_write)
{
	struct tree_file t;
	struct stalefs_extent_list l = { 0 }, back;

	tf_open(&t, 64 << 20);
	ck_ok(stalefs_extent_list_append(&l, 0, 40000, 10000, 0));
	ck_ok(stalefs_extent_list_append(&l, 40000, 10, 50000, 0));
	ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &l));
	ck_ok(stalefs_extent_read(t.fs, t.ino, &t.inode, &back));
	ck_assert_uint_eq(back.count, 2);
	ck_assert_uint_eq(back.ext[0].len, 32768);
	ck_assert_uint_eq(back.ext[1].lblk, 32768);
	ck_assert_uint_eq(back.ext[1].len, 40010 - 32768);
	ck_assert_uint_eq(back.ext[1].pblk, 10000 + 32768);
	stalefs_extent_list_free(&l);
	stalefs_extent_list_free(&back);
	scratch_done(&t.s);
}
END_TEST

/* Flag changes inside extents deep in a depth-2 tree, including those either side of a leaf boundary. */
START_TEST(flag_change_deep)
{
	struct tree_file t;
	struct stalefs_extent_list l, back;
	const u32 n = 8 * PER, len = 4;
	static const u32 targets[] = { 0, PER - 1, PER, 5 * PER + 17, 8 * PER - 1 };
	u32 k, i, depth;

	tf_open(&t, 16 << 20);
	build(t.fs, &l, n, len, STALEFS_EXT_UNWRITTEN);
	ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &l));
	ck_assert_uint_eq(le16_to_cpu(stalefs_inode_eh(&t.inode)->eh_depth), 2);
	stalefs_extent_list_free(&l);
	for (k = 0; k < 5; k++) {
		u32 lblk = targets[k] * (len + 1) + 1;	/* the second block of the extent */

		ck_ok(stalefs_extent_read(t.fs, t.ino, &t.inode, &l));
		ck_ok(stalefs_extent_list_change_flags(&l, lblk, 2, STALEFS_EXT_UNWRITTEN, 0));
		ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &l));
		ck_ok(stalefs_write_inode(t.fs, t.ino, &t.inode));
		stalefs_extent_list_free(&l);
	}
	t.fs = scratch_reopen(&t.s);
	ck_ok(stalefs_read_inode(t.fs, t.ino, &t.inode));
	ck_ok(stalefs_extent_read(t.fs, t.ino, &t.inode, &back));
	ck_assert_uint_eq(back.count, n + 2 * 5);
	ck_assert_uint_eq(back.tree_blocks, expected_nodes(n + 10, &depth));
	/* Each target became unwritten(1) / written(2) / unwritten(1), physically continuous. */
	for (k = 0; k < 5; k++) {
		u32 lblk = targets[k] * (len + 1), idx;

		ck_assert(stalefs_extent_list_find(&back, lblk, &idx));
		ck_assert_uint_eq(back.ext[idx].len, 1);
		ck_assert_uint_eq(back.ext[idx].flags, STALEFS_EXT_UNWRITTEN);
		ck_assert_uint_eq(back.ext[idx + 1].lblk, lblk + 1);
		ck_assert_uint_eq(back.ext[idx + 1].len, 2);
		ck_assert_uint_eq(back.ext[idx + 1].flags, 0);
		ck_assert_uint_eq(back.ext[idx + 1].pblk, back.ext[idx].pblk + 1);
		ck_assert_uint_eq(back.ext[idx + 2].len, 1);
		ck_assert_uint_eq(back.ext[idx + 2].flags, STALEFS_EXT_UNWRITTEN);
		ck_assert_uint_eq(back.ext[idx + 2].pblk, back.ext[idx].pblk + 3);
	}
	/* Everything else untouched. */
	for (i = 0; i < back.count; i++)
		if (back.ext[i].len == len)
			ck_assert_uint_eq(back.ext[i].flags, STALEFS_EXT_UNWRITTEN);
	stalefs_extent_list_free(&back);
	scratch_done(&t.s);
}
END_TEST

/* A file of n one-block extents at lblk 2i, with i_size covering them, written through the library. */
static void make_gappy_file(struct tree_file *t, u32 n, struct stalefs_extent_list *l)
{
	build(t->fs, l, n, 1, 0);
	t->inode.i_size = cpu_to_le64((u64)(2 * n) * 1024);
	ck_ok(stalefs_extent_write(t->fs, t->ino, &t->inode, l));
	ck_ok(stalefs_write_inode(t->fs, t->ino, &t->inode));
}

START_TEST(truncate_at_node_boundaries)
{
	static const u32 keep_extents[] = { 8 * PER, 7 * PER, PER + 1, PER, 7, 1, 0 };
	struct tree_file t;
	struct stalefs_extent_list l, back;
	u32 k, depth;

	tf_open(&t, 16 << 20);
	make_gappy_file(&t, 10 * PER, &l);
	for (k = 0; k < sizeof(keep_extents) / sizeof(keep_extents[0]); k++) {
		u32 keep = keep_extents[k], i;
		u64 free_before = le64_to_cpu(t.fs->sb.s_free_blocks_count);
		u32 had = l.count, nodes_before = expected_nodes(had, &depth);

		/* Size just past extent keep-1 (at lblk 2(keep-1)): the rest goes. */
		ck_ok(stalefs_truncate(t.fs, t.ino, (u64)(2 * keep) * 1024));
		ck_ok(stalefs_read_inode(t.fs, t.ino, &t.inode));
		ck_ok(stalefs_extent_read(t.fs, t.ino, &t.inode, &back));
		ck_assert_uint_eq(back.count, keep);
		for (i = 0; i < keep; i++)
			ck_assert_uint_eq(back.ext[i].pblk, l.ext[i].pblk);
		for (i = keep; i < had; i++)
			ck_assert_msg(freed_or_node(&t, l.ext[i].pblk), "keep %u: block of extent %u still in use", keep, i);
		ck_assert_uint_eq(le64_to_cpu(t.inode.i_size), (u64)(2 * keep) * 1024);
		ck_assert_uint_eq(le64_to_cpu(t.inode.i_blocks), keep + expected_nodes(keep, &depth));
		ck_assert_uint_eq(le64_to_cpu(t.fs->sb.s_free_blocks_count),
				  free_before + (had - keep) + nodes_before - expected_nodes(keep, &depth));
		l.count = keep;
		stalefs_extent_list_free(&back);
	}
	stalefs_extent_list_free(&l);
	scratch_done(&t.s);
}
END_TEST

START_TEST(punch_at_node_boundaries)
{
	struct tree_file t;
	struct stalefs_extent_list l, back;
	const u32 n = 9 * PER;
	u32 i, idx, depth;
	u64 free0;
	u8 *gone;

	tf_open(&t, 16 << 20);
	make_gappy_file(&t, n, &l);
	free0 = le64_to_cpu(t.fs->sb.s_free_blocks_count);
	gone = calloc(n, 1);
	/* Whole first leaf; the last extent of leaf 2 and first of leaf 3; one in the middle; the tail. */
	ck_ok(stalefs_punch(t.fs, t.ino, 0, 2 * PER));
	for (i = 0; i < PER; i++)
		gone[i] = 1;
	ck_ok(stalefs_punch(t.fs, t.ino, 2 * (2 * PER - 1), 3));
	gone[2 * PER - 1] = gone[2 * PER] = 1;
	ck_ok(stalefs_punch(t.fs, t.ino, 2 * (4 * PER + 30), 1));
	gone[4 * PER + 30] = 1;
	ck_ok(stalefs_punch(t.fs, t.ino, 2 * (8 * PER), 0xFFFFFFFFu));
	for (i = 8 * PER; i < n; i++)
		gone[i] = 1;
	/* Punching a hole is a no-op. */
	ck_ok(stalefs_punch(t.fs, t.ino, 1, 1));
	t.fs = scratch_reopen(&t.s);
	ck_ok(stalefs_read_inode(t.fs, t.ino, &t.inode));
	ck_ok(stalefs_extent_read(t.fs, t.ino, &t.inode, &back));
	{
		u32 left = 0;

		for (i = 0; i < n; i++) {
			bool found = stalefs_extent_list_find(&back, 2 * i, &idx);

			ck_assert_msg(found == !gone[i], "extent %u: %s", i, found ? "still there" : "gone");
			if (gone[i])
				ck_assert_msg(freed_or_node(&t, l.ext[i].pblk), "extent %u: block still in use", i);
			else
				ck_assert(stalefs_test_block(t.fs, l.ext[i].pblk));
			left += !gone[i];
		}
		ck_assert_uint_eq(back.count, left);
		ck_assert_uint_eq(le64_to_cpu(t.inode.i_blocks), left + expected_nodes(left, &depth));
		ck_assert_uint_eq(le64_to_cpu(t.fs->sb.s_free_blocks_count),
				  free0 + (n - left) + expected_nodes(n, &depth) - expected_nodes(left, &depth));
		/* Punch keeps the size. */
		ck_assert_uint_eq(le64_to_cpu(t.inode.i_size), (u64)2 * n * 1024);
	}
	free(gone);
	stalefs_extent_list_free(&l);
	stalefs_extent_list_free(&back);
	scratch_done(&t.s);
}
END_TEST

/* First index entry of the root: the block of the first child node. */
static u64 first_child(const struct stalefs_inode *inode)
{
	return le64_to_cpu(stalefs_eh_index(stalefs_inode_eh(inode))[0].ei_pblk);
}

START_TEST(damaged_nodes_refused)
{
	struct tree_file t;
	struct stalefs_extent_list l, back;
	u8 buf[1024];
	u64 node, other;
	struct stalefs_extent_block *eb = (void *)buf;

	tf_open(&t, 16 << 20);
	build(t.fs, &l, 3 * PER, 1, 0);
	ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &l));
	ck_ok(stalefs_write_inode(t.fs, t.ino, &t.inode));
	node = first_child(&t.inode);
	ck_ok(stalefs_read_block(t.fs, node, buf));

	/* One flipped bit in an entry: the checksum says so. */
	buf[100] ^= 4;
	ck_ok(stalefs_write_block(t.fs, node, buf));
	ck_err(stalefs_extent_read(t.fs, t.ino, &t.inode, &back), STALEFS_ERR_EXTENT_CSUM);
	buf[100] ^= 4;

	/* The same block claimed by another inode (checksum fixed up): wrong owner. */
	eb->eb_owner = cpu_to_le32(t.ino + 1);
	stalefs_extblock_set_csum(t.fs->seed, buf, 1024);
	ck_ok(stalefs_write_block(t.fs, node, buf));
	ck_err(stalefs_extent_read(t.fs, t.ino, &t.inode, &back), STALEFS_ERR_EXTENT_CORRUPT);
	eb->eb_owner = cpu_to_le32(t.ino);
	stalefs_extblock_set_csum(t.fs->seed, buf, 1024);
	ck_ok(stalefs_write_block(t.fs, node, buf));
	ck_ok(stalefs_extent_read(t.fs, t.ino, &t.inode, &back));
	stalefs_extent_list_free(&back);

	/* A valid node copied to another block and the index pointed there: wrong block number. */
	ck_ok(stalefs_alloc_block(t.fs, 0, &other));
	ck_ok(stalefs_write_block(t.fs, other, buf));
	stalefs_eh_index(stalefs_inode_eh(&t.inode))[0].ei_pblk = cpu_to_le64(other);
	ck_err(stalefs_extent_read(t.fs, t.ino, &t.inode, &back), STALEFS_ERR_EXTENT_CORRUPT);

	/* A root claiming one more level than its children have. */
	stalefs_eh_index(stalefs_inode_eh(&t.inode))[0].ei_pblk = cpu_to_le64(node);
	((struct stalefs_extent_header *)t.inode.i_block)->eh_depth = cpu_to_le16(2);
	ck_err(stalefs_extent_read(t.fs, t.ino, &t.inode, &back), STALEFS_ERR_EXTENT_CORRUPT);
	/* Deeper than the format allows. */
	((struct stalefs_extent_header *)t.inode.i_block)->eh_depth = cpu_to_le16(STALEFS_EXT_MAX_DEPTH + 1);
	ck_err(stalefs_extent_read(t.fs, t.ino, &t.inode, &back), STALEFS_ERR_EXTENT_CORRUPT);
	((struct stalefs_extent_header *)t.inode.i_block)->eh_depth = cpu_to_le16(1);
	ck_ok(stalefs_extent_read(t.fs, t.ino, &t.inode, &back));
	stalefs_extent_list_free(&back);

	/* The inode of a new generation no longer owns the old tree. */
	stalefs_eh_index(stalefs_inode_eh(&t.inode))[0].ei_pblk = cpu_to_le64(node);
	t.inode.i_generation = cpu_to_le32(le32_to_cpu(t.inode.i_generation) + 1);
	ck_err(stalefs_extent_read(t.fs, t.ino, &t.inode, &back), STALEFS_ERR_EXTENT_CORRUPT);
	stalefs_extent_list_free(&l);
	scratch_done(&t.s);
}
END_TEST

/* The walk reports a bad node with its rule and block, and goes on with the others. */
struct bad_seen {
	int rule;
	u64 block;
	u32 extents;
};

static int bad_cb(stalefs_fs *fs, const struct stalefs_extent_walk *w, void *priv)
{
	struct bad_seen *b = priv;

	(void)fs;
	if (w->rule) {
		b->rule = w->rule;
		b->block = w->node_block;
	} else if (!w->is_index) {
		b->extents++;
	}
	return 0;
}

START_TEST(walk_reports_bad_node)
{
	struct tree_file t;
	struct stalefs_extent_list l;
	struct bad_seen seen = { 0, 0, 0 };
	u8 buf[1024];
	u64 second;

	tf_open(&t, 16 << 20);
	build(t.fs, &l, 3 * PER, 1, 0);
	ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &l));
	second = le64_to_cpu(stalefs_eh_index(stalefs_inode_eh(&t.inode))[1].ei_pblk);
	ck_ok(stalefs_read_block(t.fs, second, buf));
	buf[500] ^= 0x80;
	ck_ok(stalefs_write_block(t.fs, second, buf));
	ck_err(stalefs_extent_walk(t.fs, t.ino, &t.inode, bad_cb, &seen), STALEFS_ERR_EXTENT_CSUM);
	ck_assert_int_eq(seen.rule, STALEFS_R_EXTBLK_CSUM);
	ck_assert_uint_eq(seen.block, second);
	ck_assert_uint_eq(seen.extents, 2 * PER);	/* the first and third leaves */
	stalefs_extent_list_free(&l);
	scratch_done(&t.s);
}
END_TEST

/* An extent outside the range its parent index promises is refused. */
START_TEST(child_outside_parent_range)
{
	struct tree_file t;
	struct stalefs_extent_list l, back;
	struct stalefs_extent_idx *ix;

	tf_open(&t, 16 << 20);
	build(t.fs, &l, 3 * PER, 1, 0);
	ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &l));
	ix = stalefs_eh_index(stalefs_inode_eh(&t.inode));
	/* The second leaf starts at lblk 2*PER; claim it starts one block later. */
	ck_assert_uint_eq(le32_to_cpu(ix[1].ei_lblk), 2 * PER);
	ix[1].ei_lblk = cpu_to_le32(2 * PER + 1);
	ck_err(stalefs_extent_read(t.fs, t.ino, &t.inode, &back), STALEFS_ERR_EXTENT_CORRUPT);
	stalefs_extent_list_free(&l);
	scratch_done(&t.s);
}
END_TEST

/* What the tolerant scan saw: nodes with their verdicts, leaf entries. */
struct scan_seen {
	u32 nodes, bad, csum_bad, revisits, range, leaf_entries, entries_of_bad;
};

static int scan_node_cb(stalefs_fs *fs, const struct stalefs_xnode *n, void *priv)
{
	struct scan_seen *s = priv;

	(void)fs;
	s->nodes++;
	if (stalefs_xnode_problem(n))
		s->bad++;
	s->csum_bad += n->csum_bad;
	s->revisits += n->revisit;
	s->range += n->block_rule == STALEFS_R_EXT_PBLK_RANGE;
	return 0;
}

static int scan_entry_cb(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	struct scan_seen *s = priv;

	(void)fs;
	if (!e->is_index) {
		s->leaf_entries++;
		s->entries_of_bad += e->node->rule != 0;
	}
	return 0;
}

static const struct stalefs_xscan_ops scan_ops = { .node = scan_node_cb, .entry = scan_entry_cb };

/* The scan goes on past damage: a bad checksum is reported and the leaf still shown,
 * a block named twice is walked once, an index outside the filesystem is reported. */
START_TEST(scan_tolerates_damage)
{
	struct tree_file t;
	struct stalefs_extent_list l;
	struct stalefs_extent_idx *ix;
	struct scan_seen seen;
	u8 buf[1024];
	u64 second;

	tf_open(&t, 16 << 20);
	build(t.fs, &l, 3 * PER, 1, 0);
	ck_ok(stalefs_extent_write(t.fs, t.ino, &t.inode, &l));
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(stalefs_extent_scan(t.fs, t.ino, &t.inode, &scan_ops, &seen), 0);
	ck_assert_uint_eq(seen.nodes, 4);
	ck_assert_uint_eq(seen.leaf_entries, 3 * PER);

	ix = stalefs_eh_index(stalefs_inode_eh(&t.inode));
	second = le64_to_cpu(ix[1].ei_pblk);
	ck_ok(stalefs_read_block(t.fs, second, buf));
	buf[500] ^= 0x80;
	ck_ok(stalefs_write_block(t.fs, second, buf));
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(stalefs_extent_scan(t.fs, t.ino, &t.inode, &scan_ops, &seen), 1);
	ck_assert_uint_eq(seen.csum_bad, 1);
	ck_assert_uint_eq(seen.leaf_entries, 3 * PER);	/* the damaged leaf is still shown */
	ck_assert_uint_eq(seen.entries_of_bad, PER);

	ix[2].ei_pblk = ix[0].ei_pblk;
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(stalefs_extent_scan(t.fs, t.ino, &t.inode, &scan_ops, &seen), 2);
	ck_assert_uint_eq(seen.revisits, 1);
	ck_assert_uint_eq(seen.leaf_entries, 2 * PER);	/* the first leaf once, not twice */

	ix[2].ei_pblk = cpu_to_le64(t.fs->geom.blocks_count);
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(stalefs_extent_scan(t.fs, t.ino, &t.inode, &scan_ops, &seen), 3);
	ck_assert_uint_eq(seen.range, 1);
	ck_assert_uint_eq(seen.bad, 3);	/* the root too: its index names a block outside */
	stalefs_extent_list_free(&l);
	scratch_done(&t.s);
}
END_TEST

/* At 4 KiB: 253 entries in one leaf, 254 need a second. */
START_TEST(capacity_4k)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 32 << 20, 4096);
	struct stalefs_extent_list l, back;
	struct stalefs_inode inode;
	u32 ino, n;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	for (n = 253; n <= 254; n++) {
		ck_ok(stalefs_read_inode(fs, ino, &inode));
		build(fs, &l, n, 1, 0);
		ck_ok(stalefs_extent_write(fs, ino, &inode, &l));
		ck_assert_uint_eq(l.tree_blocks, n == 253 ? 1 : 2);
		ck_assert_uint_eq(le16_to_cpu(stalefs_inode_eh(&inode)->eh_entries), n == 253 ? 1 : 2);
		ck_ok(stalefs_extent_read(fs, ino, &inode, &back));
		same_lists(&l, &back);
		ck_ok(stalefs_write_inode(fs, ino, &inode));
		stalefs_extent_list_free(&back);
		stalefs_extent_list_free(&l);
	}
	scratch_done(&s);
}
END_TEST

Suite *extent_tree_suite(void)
{
	Suite *s = suite_create("extent_tree");
	TCase *tc = tcase_create("extent_tree");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, round_trip_sizes, 0, sizeof(sizes) / sizeof(sizes[0]));
	tcase_add_test(tc, rewrite_does_not_leak);
	tcase_add_test(tc, normalised_on_write);
	tcase_add_test(tc, flag_change_deep);
	tcase_add_test(tc, truncate_at_node_boundaries);
	tcase_add_test(tc, punch_at_node_boundaries);
	tcase_add_test(tc, damaged_nodes_refused);
	tcase_add_test(tc, child_outside_parent_range);
	tcase_add_test(tc, walk_reports_bad_node);
	tcase_add_test(tc, scan_tolerates_damage);
	tcase_add_test(tc, capacity_4k);
	suite_add_tcase(s, tc);
	return s;
}
