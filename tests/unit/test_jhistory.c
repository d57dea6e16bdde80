/*
 * The journal as history and what blocks are: every journal block found by
 * reading the whole journal (descriptors, copies with what they are, revokes,
 * commits), live or old, escaped copies given back whole, revoked copies, a
 * transaction without its commit, the ring gone round (the newer claim wins),
 * one inode's copies newest first, and an old copy's extent map through an
 * index node from the journal; block kinds from the layout and from content.
 */
#include "unit.h"

static u32 jblocks = 1024;

static void tweak(struct stalefs_mkfs_params *p)
{
	p->feature_compat |= STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
	p->journal_blocks = jblocks;
}

/* Journal the current content of each of blocks[0..n) in one transaction (commit unless flags). */
static u32 journal_blocks(stalefs_fs *fs, const u64 *blocks, u32 n, const u64 *revokes, u32 nr, int flags)
{
	struct stalefs_journal *j;
	struct stalefs_jtrans *t;
	u8 *buf = malloc(fs->block_size);
	u32 i, seq;

	ck_ok(stalefs_journal_open(fs, 0, &j));
	seq = j->next_sequence;
	ck_ok(stalefs_jtrans_begin(j, &t));
	for (i = 0; i < n; i++) {
		ck_ok(stalefs_read_block(fs, blocks[i], buf));
		ck_ok(stalefs_jtrans_add_block(t, blocks[i], buf));
	}
	for (i = 0; i < nr; i++)
		ck_ok(stalefs_jtrans_revoke(t, revokes[i]));
	ck_ok(stalefs_jtrans_commit(t, flags));
	stalefs_journal_close(j);
	free(buf);
	return seq;
}

static u64 itable_block(stalefs_fs *fs, u32 ino)
{
	u64 block;
	u32 off;

	stalefs_ino_locate(&fs->geom, &fs->groups[stalefs_ino_group(&fs->geom, ino)].desc, ino, &block, &off);
	return block;
}

START_TEST(kinds)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, 256 << 20, 4096, tweak);
	const struct stalefs_geom *g = &fs->geom;
	const struct stalefs_group_desc *d = &fs->groups[1].desc;
	u64 js = le64_to_cpu(fs->sb.s_journal_block);
	u8 *buf = calloc(1, 4096);
	u32 grp, owner, ino;
	u64 pblk;
	u16 flags;

	ck_assert_int_eq(stalefs_block_layout_kind(fs, 0, &grp), STALEFS_BK_SUPER);
	ck_assert_int_eq(stalefs_block_layout_kind(fs, 1, &grp), STALEFS_BK_GDT);
	ck_assert_int_eq(stalefs_block_layout_kind(fs, stalefs_group_first_block(g, 1), &grp), STALEFS_BK_SUPER);
	ck_assert_uint_eq(grp, 1);
	ck_assert_int_eq(stalefs_block_layout_kind(fs, le64_to_cpu(d->bg_block_bitmap), &grp), STALEFS_BK_BLOCK_BITMAP);
	ck_assert_uint_eq(grp, 1);
	ck_assert_int_eq(stalefs_block_layout_kind(fs, le64_to_cpu(d->bg_inode_bitmap), &grp), STALEFS_BK_INODE_BITMAP);
	ck_assert_int_eq(stalefs_block_layout_kind(fs, le64_to_cpu(d->bg_inode_table) + 3, &grp), STALEFS_BK_INODE_TABLE);
	ck_assert_int_eq(stalefs_block_layout_kind(fs, js, &grp), STALEFS_BK_JOURNAL_SUPER);
	ck_assert_int_eq(stalefs_block_layout_kind(fs, js + 5, &grp), STALEFS_BK_JOURNAL);
	ck_assert_int_eq(stalefs_block_layout_kind(fs, g->blocks_count, &grp), STALEFS_BK_OUTSIDE);
	/* By content: the root's directory block names itself; moved elsewhere, it is data. */
	ck_ok(stalefs_bmap(fs, STALEFS_ROOT_INO, 0, &pblk, &flags));
	ck_ok(stalefs_read_block(fs, pblk, buf));
	ck_assert_int_eq(stalefs_block_classify(fs, pblk, buf, &grp, &owner), STALEFS_BK_DIR);
	ck_assert_uint_eq(owner, STALEFS_ROOT_INO);
	ck_assert_int_eq(stalefs_block_classify(fs, pblk + 1, buf, &grp, &owner), STALEFS_BK_DATA);
	ck_assert_int_eq(stalefs_block_classify(fs, pblk, NULL, &grp, &owner), STALEFS_BK_DATA);
	/* An xattr block. */
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "x", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_xattr_set(fs, ino, "user.a", "v", 1, 0));
	{
		struct stalefs_inode in;

		ck_ok(stalefs_read_inode(fs, ino, &in));
		pblk = le64_to_cpu(in.i_xattr_block);
	}
	ck_ok(stalefs_read_block(fs, pblk, buf));
	ck_assert_int_eq(stalefs_block_classify(fs, pblk, buf, &grp, &owner), STALEFS_BK_XATTR);
	ck_assert_uint_eq(owner, ino);
	ck_assert_str_eq(stalefs_block_kind_name(STALEFS_BK_INODE_TABLE), "inode table");
	ck_assert_str_eq(stalefs_block_kind_name(STALEFS_BK_MAX), "unknown");
	free(buf);
	scratch_done(&s);
}
END_TEST

START_TEST(history_blocks)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, 64 << 20, 4096, tweak);
	struct stalefs_journal *j;
	struct stalefs_jhistory h;
	struct stalefs_journal_recovery r;
	u8 *buf = calloc(1, 4096), *back = malloc(4096);
	u32 ino, s1, s2, s3;
	u64 magic_blk, blocks[2];
	u16 flags;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	*(__be32 *)buf = htobe32(STALEFS_JBD2_MAGIC);
	memset(buf + 4, 0x5a, 4092);
	ck_ok(stalefs_file_write(fs, ino, 0, buf, 4096));
	ck_ok(stalefs_bmap(fs, ino, 0, &magic_blk, &flags));
	ck_ok(stalefs_flush(fs));
	blocks[0] = itable_block(fs, ino);
	blocks[1] = magic_blk;
	s1 = journal_blocks(fs, blocks, 2, NULL, 0, 0);			/* blocks 1-4 */
	s2 = journal_blocks(fs, NULL, 0, &magic_blk, 1, 0);		/* 5-6: revokes the data block */
	s3 = journal_blocks(fs, blocks, 1, NULL, 0, STALEFS_JTRANS_NO_COMMIT);	/* 7-8, no commit */

	ck_ok(stalefs_journal_open(fs, 0, &j));
	ck_ok(stalefs_jhistory_build(j, &h));
	ck_assert_int_eq(h.b[0].type, STALEFS_JB_SUPER);
	ck_assert_int_eq(h.b[1].type, STALEFS_JB_DESCRIPTOR);
	ck_assert_uint_eq(h.b[1].count, 2);
	ck_assert_uint_eq(h.b[1].sequence, s1);
	ck_assert(h.b[1].committed && h.b[1].live && h.b[1].csum_ok);
	ck_assert_int_eq(h.b[2].type, STALEFS_JB_COPY);
	ck_assert_uint_eq(h.b[2].fs_block, blocks[0]);
	ck_assert_int_eq(h.b[2].kind, STALEFS_BK_INODE_TABLE);
	ck_assert(!h.b[2].revoked && h.b[2].csum_ok);
	ck_assert_int_eq(h.b[3].type, STALEFS_JB_COPY);
	ck_assert_uint_eq(h.b[3].fs_block, magic_blk);
	ck_assert(h.b[3].flags & STALEFS_JBD2_FLAG_ESCAPE);
	ck_assert(h.b[3].revoked);		/* s2 revokes it */
	ck_assert_int_eq(h.b[3].kind, STALEFS_BK_DATA);
	ck_ok(stalefs_jhistory_read_copy(j, &h, 3, back));
	ck_assert(memcmp(back, buf, 4096) == 0);	/* the magic given back */
	ck_assert_int_eq(h.b[4].type, STALEFS_JB_COMMIT);
	ck_assert_int_eq(h.b[5].type, STALEFS_JB_REVOKE);
	ck_assert_uint_eq(h.b[5].count, 1);
	ck_assert_uint_eq(h.b[5].sequence, s2);
	ck_assert_int_eq(h.b[6].type, STALEFS_JB_COMMIT);
	ck_assert_int_eq(h.b[7].type, STALEFS_JB_DESCRIPTOR);
	ck_assert_uint_eq(h.b[7].sequence, s3);
	ck_assert(!h.b[7].committed && !h.b[8].committed);
	ck_assert_int_eq(h.b[8].type, STALEFS_JB_COPY);
	ck_assert(!h.b[7].live && !h.b[8].live);	/* recovery would not replay it */
	ck_assert(h.b[5].live && h.b[6].live);
	ck_assert_int_eq(h.b[9].type, STALEFS_JB_UNUSED);
	ck_assert_uint_eq(h.copies, 3);
	ck_assert_uint_eq(h.transactions, 2);
	ck_assert_uint_eq(h.oldest, s1);
	ck_assert_uint_eq(h.newest, s2);
	stalefs_jhistory_free(&h);
	stalefs_journal_close(j);

	/* Checkpointed: all of it history. */
	ck_ok(stalefs_journal_recover(fs, &r));
	ck_ok(stalefs_journal_open(fs, 0, &j));
	ck_ok(stalefs_jhistory_build(j, &h));
	ck_assert_int_eq(h.b[2].type, STALEFS_JB_COPY);
	ck_assert(!h.b[1].live && !h.b[2].live && !h.b[4].live);
	stalefs_jhistory_free(&h);
	stalefs_journal_close(j);
	free(buf);
	free(back);
	scratch_done(&s);
}
END_TEST

/* An old copy of a deleted file's inode gives its map back, index node included. */
START_TEST(inode_copies_and_map)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, 64 << 20, 4096, tweak);
	struct stalefs_journal *j;
	struct stalefs_jhistory h;
	struct stalefs_jinode_copy *v;
	struct stalefs_extent_list now, old;
	struct stalefs_jmap_nodes nodes;
	struct stalefs_inode in;
	struct stalefs_journal_recovery r;
	u8 blk[4096];
	u64 blocks[2];
	size_t n;
	u32 ino, i, s1, s2;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "frag", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	memset(blk, 0x77, sizeof(blk));
	for (i = 0; i < 10; i++)	/* every other block: 10 extents, an index node */
		ck_ok(stalefs_file_write(fs, ino, (u64)i * 2 * 4096, blk, 4096));
	ck_ok(stalefs_read_inode(fs, ino, &in));
	ck_ok(stalefs_extent_read(fs, ino, &in, &now));
	ck_assert_uint_eq(now.count, 10);
	ck_assert_uint_eq(le16_to_cpu(((struct stalefs_extent_header *)in.i_block)->eh_depth), 1);
	blocks[0] = itable_block(fs, ino);
	blocks[1] = le64_to_cpu(stalefs_eh_index((struct stalefs_extent_header *)in.i_block)[0].ei_pblk);
	ck_ok(stalefs_flush(fs));
	s1 = journal_blocks(fs, blocks, 2, NULL, 0, 0);
	/* Deleted as the kernel deletes: the tree emptied and its node overwritten, then the inode. */
	ck_ok(stalefs_punch(fs, ino, 0, 100));
	memset(blk, 0, sizeof(blk));
	ck_ok(stalefs_io_write(fs->io, blocks[1], 1, blk));
	ck_ok(stalefs_read_inode(fs, ino, &in));
	in.i_links_count = 0;
	in.i_dtime = cpu_to_le64(1800000000);
	ck_ok(stalefs_write_inode(fs, ino, &in));
	ck_ok(stalefs_flush(fs));
	s2 = journal_blocks(fs, blocks, 1, NULL, 0, 0);
	ck_ok(stalefs_journal_recover(fs, &r));

	ck_ok(stalefs_journal_open(fs, 0, &j));
	ck_ok(stalefs_jhistory_build(j, &h));
	ck_ok(stalefs_jhistory_inode(j, &h, ino, &v, &n));
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(v[0].sequence, s2);		/* newest first */
	ck_assert_uint_eq(v[1].sequence, s1);
	ck_assert_uint_eq(le16_to_cpu(v[0].inode.i_links_count), 0);
	ck_assert_uint_eq(le16_to_cpu(v[1].inode.i_links_count), 1);
	ck_assert_int_eq(v[1].rule, 0);
	ck_ok(stalefs_jhistory_extent_map(j, &h, ino, &v[1], &old, &nodes));
	ck_assert_uint_eq(nodes.n, 1);
	ck_assert_uint_eq(nodes.v[0].block, blocks[1]);
	ck_assert_int_eq(nodes.v[0].from, STALEFS_JMAP_FROM_JOURNAL);
	ck_assert_uint_eq(old.count, now.count);
	for (i = 0; i < now.count; i++) {
		ck_assert_uint_eq(old.ext[i].lblk, now.ext[i].lblk);
		ck_assert_uint_eq(old.ext[i].pblk, now.ext[i].pblk);
		ck_assert_uint_eq(old.ext[i].len, now.ext[i].len);
	}
	stalefs_extent_list_free(&old);
	free(nodes.v);
	/* The deleted copy maps nothing. */
	ck_ok(stalefs_jhistory_extent_map(j, &h, ino, &v[0], &old, &nodes));
	ck_assert_uint_eq(old.count, 0);
	stalefs_extent_list_free(&old);
	free(nodes.v);
	free(v);
	ck_err(stalefs_jhistory_inode(j, &h, 0, &v, &n), STALEFS_ERR_BAD_INODE_NUM);
	stalefs_jhistory_free(&h);
	stalefs_journal_close(j);
	stalefs_extent_list_free(&now);
	scratch_done(&s);
}
END_TEST

Suite *jhistory_suite(void)
{
	Suite *su = suite_create("jhistory");
	TCase *tc = tcase_create("jhistory");

	tcase_add_test(tc, kinds);
	tcase_add_test(tc, history_blocks);
	tcase_add_test(tc, inode_copies_and_map);
	suite_add_tcase(su, tc);
	return su;
}
