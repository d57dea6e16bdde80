/*
 * Transactions for offline tools (format/lib/journal_txn.c, issue 27): while a
 * transaction is open nothing of its metadata reaches the device (the I/O
 * layer holds it); an abort leaves the device as it was; a commit puts every
 * block in place and empties the log; a crash after the commit block (the
 * blocks logged, none in place) is replayed into the same state; blocks freed
 * in a transaction are not handed out by the fresh allocator before it
 * commits; a transaction that would overflow the log is refused.
 */
#include <string.h>
#include <unistd.h>
#include "unit.h"

#define TXN_BYTES (64ULL << 20)

/* The first of 512 free blocks from the middle of the device on: metadata targets that
 * harm nothing.  n picks one of them. */
static u64 free_target(stalefs_fs *fs, u32 n)
{
	u64 b = fs->geom.blocks_count / 2, run = 0;

	for (; b < fs->geom.blocks_count && run < 512; b++)
		run = stalefs_test_block(fs, b) ? 0 : run + 1;
	ck_assert_uint_eq(run, 512);
	return b - 512 + n;
}

static void raw_read(struct scratch *s, u32 bs, u64 block, void *buf)
{
	ck_assert_int_eq(pread(s->fd, buf, bs, (off_t)(block * bs)), (ssize_t)bs);
}

/* The bytes of the whole image, to compare before and after. */
static u8 *raw_image(struct scratch *s)
{
	u8 *img = malloc(TXN_BYTES);

	ck_assert_int_eq(pread(s->fd, img, TXN_BYTES, 0), (ssize_t)TXN_BYTES);
	return img;
}

/* Drop the in-memory state unwritten (a crash, or a stale one), open as fsck does and replay. */
static stalefs_fs *crash_and_recover(struct scratch *s, struct stalefs_journal_recovery *r)
{
	stalefs_free(s->fs);
	s->fs = NULL;
	ck_ok(stalefs_open(s->path, STALEFS_OPEN_RW | STALEFS_OPEN_JOURNAL, 0, 0, &s->fs));
	ck_ok(stalefs_journal_recover(s->fs, r));
	ck_assert(!(le32_to_cpu(s->fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER));
	return s->fs;
}

START_TEST(test_txn_held_and_abort)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, TXN_BYTES, 4096);
	struct stalefs_txn *x;
	struct stalefs_journal_recovery r;
	u8 *before, *after, *buf = malloc(4096);
	u64 t = free_target(fs, 0), blk;

	ck_ok(stalefs_flush(fs));
	ck_ok(stalefs_txn_begin(fs, &x));
	before = raw_image(&s);	/* RECOVER is on disk from begin on */
	memset(buf, 0xab, 4096);
	ck_ok(stalefs_write_block(fs, t, buf));
	ck_ok(stalefs_alloc_block(fs, t + 300, &blk));
	ck_ok(stalefs_flush(fs));	/* held: writes nothing */
	after = raw_image(&s);
	ck_assert_msg(!memcmp(before, after, TXN_BYTES), "a held transaction reached the device");
	/* Reads see the held block. */
	memset(buf, 0, 4096);
	ck_ok(stalefs_read_block(fs, t, buf));
	ck_assert_uint_eq(buf[100], 0xab);
	stalefs_txn_abort(x);
	free(after);
	after = raw_image(&s);
	ck_assert_msg(!memcmp(before, after, TXN_BYTES), "an aborted transaction reached the device");
	free(before);
	free(after);
	free(buf);
	/* The aborted state opens (its empty log replayed: RECOVER goes) and the block is free. */
	fs = crash_and_recover(&s, &r);
	ck_assert(r.was_empty);
	ck_assert(!stalefs_test_block(fs, blk));
	scratch_done(&s);
}
END_TEST

START_TEST(test_txn_commit)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, TXN_BYTES, 4096);
	struct stalefs_txn *x;
	struct stalefs_journal *j;
	u8 *buf = malloc(4096), *raw = malloc(4096);
	u64 t = free_target(fs, 0), blk;
	u64 free0 = le64_to_cpu(fs->sb.s_free_blocks_count);

	ck_ok(stalefs_txn_begin(fs, &x));
	memset(buf, 0x5c, 4096);
	ck_ok(stalefs_write_block(fs, t, buf));
	ck_ok(stalefs_alloc_block(fs, t + 300, &blk));
	ck_ok(stalefs_txn_commit(x));
	/* In place, before finish. */
	raw_read(&s, 4096, t, raw);
	ck_assert(!memcmp(buf, raw, 4096));
	/* The transaction goes on: a second change, then finish. */
	memset(buf, 0x5d, 4096);
	ck_ok(stalefs_write_block(fs, t + 1, buf));
	ck_ok(stalefs_txn_finish(x));
	raw_read(&s, 4096, t + 1, raw);
	ck_assert(!memcmp(buf, raw, 4096));
	ck_assert(!(le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER));
	ck_ok(stalefs_journal_open(fs, 0, &j));
	ck_assert_uint_eq(j->jsb.s_start, 0);
	stalefs_journal_close(j);
	fs = scratch_reopen(&s);
	ck_assert(stalefs_test_block(fs, blk));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 1);
	free(buf);
	free(raw);
	scratch_done(&s);
}
END_TEST

/* Blocks a commit logs: what a crash between the commit block and the in-place writes leaves. */
struct logged {
	u64 block[16];
	u8 *data[16];
	unsigned n;
};

static errcode_t note_held(u64 block, const void *data, void *priv)
{
	struct logged *l = priv;

	ck_assert_uint_lt(l->n, 16);
	l->block[l->n] = block;
	l->data[l->n] = malloc(4096);
	memcpy(l->data[l->n], data, 4096);
	l->n++;
	return 0;
}

START_TEST(test_txn_replay_after_commit_block)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, TXN_BYTES, 4096);
	struct stalefs_txn *x;
	struct stalefs_journal *j;
	struct stalefs_jtrans *jt;
	struct stalefs_journal_recovery r;
	struct logged l = { .n = 0 };
	u8 *buf = malloc(4096), *raw = malloc(4096);
	u64 t = free_target(fs, 0), blk;
	unsigned i;

	/* The transaction's blocks, as the commit would log them. */
	ck_ok(stalefs_txn_begin(fs, &x));
	memset(buf, 0x77, 4096);
	ck_ok(stalefs_write_block(fs, t, buf));
	ck_ok(stalefs_alloc_block(fs, t + 300, &blk));
	ck_ok(stalefs_flush(fs));
	ck_ok(stalefs_io_held_each(fs->io, note_held, &l));
	ck_assert_uint_ge(l.n, 3);	/* the target, a bitmap, a descriptor (and the superblock) */
	stalefs_txn_abort(x);
	/* The log holds them, committed; no block is in place (the crash). */
	ck_ok(stalefs_journal_open(fs, 0, &j));
	ck_ok(stalefs_jtrans_begin(j, &jt));
	for (i = 0; i < l.n; i++)
		ck_ok(stalefs_jtrans_add_block(jt, l.block[i], l.data[i]));
	ck_ok(stalefs_jtrans_commit(jt, STALEFS_JTRANS_SYNC));
	stalefs_journal_close(j);
	raw_read(&s, 4096, t, raw);
	ck_assert_uint_ne(raw[0], 0x77);
	/* Recovery replays it: the transaction's state, whole. */
	fs = crash_and_recover(&s, &r);
	ck_assert_uint_eq(r.transactions, 1);
	ck_ok(stalefs_flush(fs));
	raw_read(&s, 4096, t, raw);
	ck_assert(!memcmp(buf, raw, 4096));
	ck_assert(stalefs_test_block(fs, blk));
	for (i = 0; i < l.n; i++)
		free(l.data[i]);
	free(buf);
	free(raw);
	scratch_done(&s);
}
END_TEST

START_TEST(test_txn_fresh_alloc)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, TXN_BYTES, 4096);
	struct stalefs_txn *x;
	u64 a, b, start;
	u32 got;

	/* A block in use in the committed state... */
	ck_ok(stalefs_alloc_blocks(fs, free_target(fs, 0), 8, &a, &got));
	ck_assert_uint_eq(got, 8);
	ck_ok(stalefs_flush(fs));
	ck_ok(stalefs_txn_begin(fs, &x));
	/* ...freed in the transaction is not handed out for data before the commit... */
	ck_ok(stalefs_free_blocks(fs, a, 8));
	ck_ok(stalefs_alloc_blocks_fresh(fs, a, 8, &start, &got));
	ck_assert_msg(start >= a + 8 || start + got <= a, "fresh allocation got %llu+%u, freed %llu+8",
		      (unsigned long long)start, got, (unsigned long long)a);
	ck_ok(stalefs_free_blocks(fs, start, got));
	ck_ok(stalefs_txn_commit(x));
	/* ...and is after it. */
	ck_ok(stalefs_alloc_blocks_fresh(fs, a, 8, &b, &got));
	ck_assert_uint_eq(b, a);
	ck_ok(stalefs_txn_finish(x));
	scratch_done(&s);
}
END_TEST

START_TEST(test_txn_needs_journal)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, TXN_BYTES, 4096);
	struct stalefs_txn *x;

	ck_assert_uint_gt(stalefs_txn_room(fs), 64);
	fs->sb.s_feature_compat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_compat) &
					      ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	ck_err(stalefs_txn_begin(fs, &x), STALEFS_ERR_NO_JOURNAL);
	fs->sb.s_feature_compat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_compat) |
					      STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	scratch_done(&s);
}
END_TEST

START_TEST(test_txn_too_big)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, TXN_BYTES, 4096);
	struct stalefs_txn *x;
	struct stalefs_journal_recovery r;
	u8 *buf = malloc(4096), *raw = malloc(4096);
	u32 room = stalefs_txn_room(fs), i;
	u64 t = free_target(fs, 0);

	ck_ok(stalefs_txn_begin(fs, &x));
	memset(buf, 0x31, 4096);
	for (i = 0; i <= room; i++)
		ck_ok(stalefs_write_block(fs, t + i, buf));
	ck_err(stalefs_txn_commit(x), STALEFS_ERR_JOURNAL_FULL);
	raw_read(&s, 4096, t, raw);
	ck_assert_uint_ne(raw[0], 0x31);
	stalefs_txn_abort(x);
	free(buf);
	free(raw);
	/* After a failed commit the stalefs_fs is stale: drop it unflushed; the log is empty. */
	crash_and_recover(&s, &r);
	ck_assert(r.was_empty);
	scratch_done(&s);
}
END_TEST

Suite *txn_suite(void)
{
	Suite *s = suite_create("txn");
	TCase *tc = tcase_create("txn");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_txn_held_and_abort);
	tcase_add_test(tc, test_txn_commit);
	tcase_add_test(tc, test_txn_replay_after_commit_block);
	tcase_add_test(tc, test_txn_fresh_alloc);
	tcase_add_test(tc, test_txn_needs_journal);
	tcase_add_test(tc, test_txn_too_big);
	suite_add_tcase(s, tc);
	return s;
}
