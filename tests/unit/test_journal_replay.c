/*
 * Writing transactions and replaying them, with the semantics of the
 * kernel's fs/jbd2/recovery.c: several transactions (later ones win),
 * escaped blocks, the ring wrapping round, revokes across transactions and
 * within one, a transaction without its commit block, a commit block whose
 * checksum fails (the log ends before it), a journaled block whose checksum
 * fails (an error once the rest is replayed), descriptor and revoke blocks
 * whose checksums fail judged by the commit time (corrupt, or leftovers of an
 * earlier use), blocks of an earlier use of the log, bad targets, a full log,
 * the open refusal for a filesystem that needs recovery, and the log walker.
 */
#include "unit.h"

struct jfix {
	struct scratch s;
	stalefs_fs *fs;
	struct stalefs_journal *j;
	u32 bs;
	u64 base;		/* targets: free blocks of group 1's data area */
	u8 *buf;
};

static u32 fix_journal_blocks;

static void tweak_journal(struct stalefs_mkfs_params *p)
{
	p->journal_blocks = fix_journal_blocks;
}

/* Several groups and a journal of `jblocks` in the middle one; targets from group 0's data
 * area, past the root's and lost+found's blocks: free, so writing them harms nothing. */
static void jfix_setup(struct jfix *f, u32 bs, u32 jblocks)
{
	u64 bb, ib, it;

	memset(f, 0, sizeof(*f));
	fix_journal_blocks = jblocks;
	f->fs = scratch_mkfs_with(&f->s, bs == 1024 ? 32ULL << 20 : 256ULL << 20, bs, tweak_journal);
	f->bs = bs;
	ck_assert_uint_eq(le32_to_cpu(f->fs->sb.s_journal_blocks), jblocks);
	ck_assert_uint_ne(stalefs_block_group(&f->fs->geom, le64_to_cpu(f->fs->sb.s_journal_block)), 0);
	stalefs_group_default_layout(&f->fs->geom, 0, &bb, &ib, &it);
	f->base = it + f->fs->geom.inode_table_blocks + 64;
	f->buf = malloc(bs);
	ck_ok(stalefs_journal_open(f->fs, 0, &f->j));
}

static void jfix_done(struct jfix *f)
{
	stalefs_journal_close(f->j);
	f->j = NULL;
	free(f->buf);
	scratch_done(&f->s);
}

/* Version v of target block n: 0 is what a fresh image holds (zeros). */
static void pattern(const struct jfix *f, u32 n, u32 v, u8 *out)
{
	u64 st = ((u64)n << 32) | v;

	if (!v) {
		memset(out, 0, f->bs);
		return;
	}
	unit_fill(&st, out, f->bs);
}

/* A block whose first four bytes are the jbd2 magic: it must be logged escaped. */
static void magic_pattern(const struct jfix *f, u32 n, u32 v, u8 *out)
{
	const __be32 magic = htobe32(STALEFS_JBD2_MAGIC);

	pattern(f, n, v, out);
	memcpy(out, &magic, 4);
}

static struct stalefs_jtrans *begin(struct jfix *f)
{
	struct stalefs_jtrans *t;

	ck_ok(stalefs_jtrans_begin(f->j, &t));
	return t;
}

static void add(struct jfix *f, struct stalefs_jtrans *t, u32 n, u32 v)
{
	pattern(f, n, v, f->buf);
	ck_ok(stalefs_jtrans_add_block(t, f->base + n, f->buf));
}

static void revoke(struct jfix *f, struct stalefs_jtrans *t, u32 n)
{
	ck_ok(stalefs_jtrans_revoke(t, f->base + n));
}

static void expect_block(struct jfix *f, u32 n, u32 v)
{
	u8 *want = malloc(f->bs);

	pattern(f, n, v, want);
	ck_ok(stalefs_read_block(f->fs, f->base + n, f->buf));
	ck_assert_msg(memcmp(f->buf, want, f->bs) == 0, "target %u does not hold version %u", n, v);
	free(want);
}

/* Close everything (flushing what was written) and open again with flags. */
static void reopen(struct jfix *f, int flags)
{
	if (f->j)
		stalefs_journal_close(f->j);
	f->j = NULL;
	ck_ok(stalefs_close(f->s.fs));
	f->s.fs = f->fs = NULL;
	ck_ok(stalefs_open(f->s.path, flags, 0, 0, &f->s.fs));
	f->fs = f->s.fs;
}

static bool needs_recovery(stalefs_fs *fs)
{
	return le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER;
}

static void read_jsb(struct jfix *f, struct stalefs_jbd2_super *jsb)
{
	ck_ok(stalefs_journal_read_super(f->fs, jsb));
	ck_assert_int_eq(stalefs_jsb_verify(jsb, &f->fs->sb), 0);
}

/* Reopen for recovery and replay; the error is returned for the caller to judge. */
static errcode_t recover(struct jfix *f, struct stalefs_journal_recovery *r)
{
	reopen(f, STALEFS_OPEN_RW | STALEFS_OPEN_JOURNAL);
	ck_assert(needs_recovery(f->fs));
	return stalefs_journal_recover(f->fs, r);
}

START_TEST(several_transactions)
{
	static const u32 sizes[] = { 1024, 4096 };
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	struct stalefs_jbd2_super jsb;
	u32 seq0;

	jfix_setup(&f, sizes[_i], 1024);
	read_jsb(&f, &jsb);
	seq0 = be32toh(jsb.s_sequence);
	t = begin(&f);
	add(&f, t, 0, 1);
	add(&f, t, 1, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	add(&f, t, 1, 2);
	add(&f, t, 2, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	add(&f, t, 0, 3);
	magic_pattern(&f, 3, 1, f.buf);
	ck_ok(stalefs_jtrans_add_block(t, f.base + 3, f.buf));
	ck_ok(stalefs_jtrans_commit(t, 0));
	/* Nothing is in place before recovery. */
	expect_block(&f, 0, 0);
	expect_block(&f, 2, 0);
	ck_assert(needs_recovery(f.fs));
	/* Writing around a journal that needs recovery is refused; reading is not. */
	ck_ok(stalefs_close(f.s.fs));
	stalefs_journal_close(f.j);
	f.j = NULL;
	f.s.fs = f.fs = NULL;
	ck_err(stalefs_open(f.s.path, STALEFS_OPEN_RW, 0, 0, &f.s.fs), STALEFS_ERR_NEEDS_RECOVERY);
	ck_ok(stalefs_open(f.s.path, 0, 0, 0, &f.s.fs));
	f.fs = f.s.fs;
	ck_assert(needs_recovery(f.fs));
	read_jsb(&f, &jsb);
	ck_assert_uint_eq(be32toh(jsb.s_start), 1);
	ck_assert_uint_eq(be32toh(jsb.s_sequence), seq0);

	ck_ok(recover(&f, &r));
	ck_assert_uint_eq(r.start_sequence, seq0);
	ck_assert_uint_eq(r.end_sequence, seq0 + 3);
	ck_assert_uint_eq(r.transactions, 3);
	ck_assert_uint_eq(r.blocks_replayed, 6);
	ck_assert_uint_eq(r.revoke_records, 0);
	ck_assert_uint_eq(r.bad_blocks, 0);
	ck_assert(!r.commit_csum_failed && !r.stale_end && !r.was_empty);
	expect_block(&f, 0, 3);
	expect_block(&f, 1, 2);
	expect_block(&f, 2, 1);
	magic_pattern(&f, 3, 1, f.buf + 0);
	{
		u8 *want = malloc(f.bs);

		magic_pattern(&f, 3, 1, want);
		ck_ok(stalefs_read_block(f.fs, f.base + 3, f.buf));
		ck_assert_mem_eq(f.buf, want, f.bs);	/* the magic is back */
		free(want);
	}
	ck_assert(!needs_recovery(f.fs));
	read_jsb(&f, &jsb);
	ck_assert_uint_eq(jsb.s_start, 0);
	ck_assert_uint_eq(be32toh(jsb.s_sequence), seq0 + 4);
	/* All on disk: an ordinary read-write open now works, and sees the same. */
	reopen(&f, STALEFS_OPEN_RW);
	ck_assert(!needs_recovery(f.fs));
	expect_block(&f, 1, 2);
	/* A second recovery finds an empty log. */
	ck_ok(stalefs_journal_recover(f.fs, &r));
	ck_assert(r.was_empty);
	ck_assert_uint_eq(r.blocks_replayed, 0);
	jfix_done(&f);
}
END_TEST

/* Log blocks a transaction of n blocks (no revokes) takes at 1 KiB: 62 tags a descriptor. */
START_TEST(wrap_around)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	struct stalefs_jbd2_super jsb;
	u32 n, seq;

	jfix_setup(&f, 1024, 1024);
	/* 1004 blocks: 17 descriptors + 1004 + commit = 1022 log blocks, 1..1022: head at 1023. */
	t = begin(&f);
	for (n = 0; n < 1004; n++)
		add(&f, t, 100 + n, 1);
	ck_assert_uint_eq(stalefs_jtrans_blocks(t), 1022);
	ck_ok(stalefs_jtrans_commit(t, 0));
	ck_assert_uint_eq(f.j->head, 1023);
	/* The kernel checkpoints it: the tail moves to the head. */
	seq = f.j->next_sequence;
	f.j->jsb.s_start = htobe32(f.j->head);
	f.j->jsb.s_sequence = htobe32(seq);
	ck_ok(stalefs_journal_write_super(f.fs, &f.j->jsb));
	f.j->head_known = false;
	/* The next one: descriptor in the last block, its blocks from block 1 on. */
	t = begin(&f);
	ck_assert_uint_eq(f.j->head, 1023);
	add(&f, t, 0, 7);
	add(&f, t, 1, 7);
	magic_pattern(&f, 2, 7, f.buf);
	ck_ok(stalefs_jtrans_add_block(t, f.base + 2, f.buf));
	revoke(&f, t, 100);
	ck_ok(stalefs_jtrans_commit(t, 0));
	ck_assert_uint_eq(f.j->head, 6);	/* revoke 1023, descriptor 1, 2-4, commit 5 */
	/* And one more after it. */
	t = begin(&f);
	add(&f, t, 3, 8);
	ck_ok(stalefs_jtrans_commit(t, 0));

	ck_ok(recover(&f, &r));
	ck_assert_uint_eq(r.transactions, 2);
	ck_assert_uint_eq(r.blocks_replayed, 4);
	ck_assert_uint_eq(r.revoke_records, 1);
	expect_block(&f, 0, 7);
	expect_block(&f, 1, 7);
	expect_block(&f, 3, 8);
	/* The checkpointed transaction is not replayed: its target stays as it was. */
	expect_block(&f, 101, 0);
	read_jsb(&f, &jsb);
	ck_assert_uint_eq(be32toh(jsb.s_sequence), seq + 3);
	jfix_done(&f);
}
END_TEST

START_TEST(revokes_across_transactions)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	struct stalefs_jbd2_super jsb;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);		/* T1: A, B, C */
	add(&f, t, 0, 1);
	add(&f, t, 1, 1);
	add(&f, t, 2, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);		/* T2: revoke A and B (freed after being logged as metadata) */
	revoke(&f, t, 0);
	revoke(&f, t, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);		/* T3: B logged again after its revoke */
	add(&f, t, 1, 3);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);		/* T4: D logged and revoked in the same transaction */
	add(&f, t, 3, 4);
	revoke(&f, t, 3);
	ck_ok(stalefs_jtrans_commit(t, 0));
	read_jsb(&f, &jsb);
	ck_assert(be32toh(jsb.s_feature_incompat) & STALEFS_JBD2_INCOMPAT_REVOKE);

	ck_ok(recover(&f, &r));
	ck_assert_uint_eq(r.transactions, 4);
	ck_assert_uint_eq(r.revoke_records, 3);
	ck_assert_uint_eq(r.revoke_hits, 3);	/* A and B of T1, D of T4 */
	ck_assert_uint_eq(r.blocks_replayed, 2);	/* C of T1, B of T3 */
	expect_block(&f, 0, 0);
	expect_block(&f, 1, 3);
	expect_block(&f, 2, 1);
	expect_block(&f, 3, 0);
	jfix_done(&f);
}
END_TEST

/* Many revokes: more than one revoke block, all honoured. */
START_TEST(many_revokes)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	u32 n;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	for (n = 0; n < 300; n++)
		add(&f, t, n, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	for (n = 0; n < 300; n += 2)
		revoke(&f, t, n);
	/* 150 records at 125 a 1 KiB block: two revoke blocks and a commit. */
	ck_assert_uint_eq(stalefs_jtrans_blocks(t), 3);
	ck_ok(stalefs_jtrans_commit(t, 0));
	ck_ok(recover(&f, &r));
	ck_assert_uint_eq(r.revoke_records, 150);
	ck_assert_uint_eq(r.revoke_hits, 150);
	ck_assert_uint_eq(r.blocks_replayed, 150);
	for (n = 0; n < 300; n++)
		expect_block(&f, n, n % 2 ? 1 : 0);
	jfix_done(&f);
}
END_TEST

START_TEST(uncommitted_ignored)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	struct stalefs_jbd2_super jsb;
	u32 seq;

	jfix_setup(&f, 4096, 1024);
	seq = f.j->next_sequence;
	t = begin(&f);
	add(&f, t, 0, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	add(&f, t, 1, 2);
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_NO_COMMIT));
	ck_ok(recover(&f, &r));
	ck_assert_uint_eq(r.transactions, 1);
	ck_assert_uint_eq(r.end_sequence, seq + 1);
	ck_assert_uint_eq(r.next_sequence, seq + 2);
	expect_block(&f, 0, 1);
	expect_block(&f, 1, 0);
	/* The restarted log skips the incomplete transaction's number. */
	read_jsb(&f, &jsb);
	ck_assert_uint_eq(be32toh(jsb.s_sequence), seq + 2);
	jfix_done(&f);
}
END_TEST

/* A crash in the middle of the first commit: s_start is set, no commit block. */
START_TEST(uncommitted_only)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	struct stalefs_jbd2_super jsb;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	add(&f, t, 0, 1);
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_NO_COMMIT));
	ck_assert(needs_recovery(f.fs));
	read_jsb(&f, &jsb);
	ck_assert_uint_eq(be32toh(jsb.s_start), 1);
	ck_ok(recover(&f, &r));
	ck_assert_uint_eq(r.transactions, 0);
	ck_assert_uint_eq(r.blocks_replayed, 0);
	ck_assert(!r.was_empty);
	expect_block(&f, 0, 0);
	ck_assert(!needs_recovery(f.fs));
	jfix_done(&f);
}
END_TEST

START_TEST(commit_checksum_ends_log)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	u32 seq;

	jfix_setup(&f, 1024, 1024);
	seq = f.j->next_sequence;
	t = begin(&f);
	add(&f, t, 0, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	add(&f, t, 1, 2);
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_BAD_COMMIT_CSUM));
	t = begin(&f);
	add(&f, t, 2, 3);
	ck_ok(stalefs_jtrans_commit(t, 0));
	ck_ok(recover(&f, &r));
	ck_assert(r.commit_csum_failed);
	ck_assert_uint_eq(r.transactions, 1);
	ck_assert_uint_eq(r.end_sequence, seq + 1);
	expect_block(&f, 0, 1);
	expect_block(&f, 1, 0);
	expect_block(&f, 2, 0);
	ck_assert_ptr_nonnull(strstr(r.detail, "commit block"));
	jfix_done(&f);
}
END_TEST

/* A failed commit checksum older than the commit before it: leftovers, the log just ends. */
START_TEST(commit_checksum_stale)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	add(&f, t, 0, 1);
	stalefs_jtrans_set_time(t, 2000, 0);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	add(&f, t, 1, 2);
	stalefs_jtrans_set_time(t, 1000, 0);
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_BAD_COMMIT_CSUM));
	ck_ok(recover(&f, &r));
	ck_assert(r.stale_end);
	ck_assert(!r.commit_csum_failed);
	ck_assert_uint_eq(r.transactions, 1);
	expect_block(&f, 0, 1);
	expect_block(&f, 1, 0);
	jfix_done(&f);
}
END_TEST

START_TEST(data_checksum_error)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	struct stalefs_jbd2_super jsb;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	add(&f, t, 0, 1);	/* its tag gets the wrong checksum */
	add(&f, t, 1, 1);
	add(&f, t, 2, 1);
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_BAD_BLOCK_CSUM));
	t = begin(&f);
	add(&f, t, 3, 2);
	ck_ok(stalefs_jtrans_commit(t, 0));
	ck_err(recover(&f, &r), STALEFS_ERR_JOURNAL_BLOCK_CSUM);
	ck_assert_uint_eq(r.bad_blocks, 1);
	ck_assert_uint_eq(r.blocks_replayed, 3);
	ck_assert_ptr_nonnull(strstr(r.detail, "fails its checksum"));
	/* The rest is replayed; the bad block is not; the journal is left for the caller. */
	expect_block(&f, 0, 0);
	expect_block(&f, 1, 1);
	expect_block(&f, 2, 1);
	expect_block(&f, 3, 2);
	ck_assert(needs_recovery(f.fs));
	read_jsb(&f, &jsb);
	ck_assert_uint_ne(jsb.s_start, 0);
	/* e2fsck's choice: empty it anyway. */
	ck_ok(stalefs_journal_mark_empty(f.fs, r.next_sequence));
	ck_assert(!needs_recovery(f.fs));
	read_jsb(&f, &jsb);
	ck_assert_uint_eq(jsb.s_start, 0);
	ck_assert_uint_eq(be32toh(jsb.s_sequence), r.next_sequence);
	jfix_done(&f);
}
END_TEST

/* A descriptor failing its checksum, the next commit not older: corrupt, nothing written. */
START_TEST(descriptor_checksum_corrupt)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	struct stalefs_jbd2_super before, after;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	add(&f, t, 0, 1);
	stalefs_jtrans_set_time(t, 1000, 0);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	add(&f, t, 1, 2);
	stalefs_jtrans_set_time(t, 1000, 5);	/* the same second counts as not older */
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_BAD_DESC_CSUM));
	reopen(&f, STALEFS_OPEN_RW | STALEFS_OPEN_JOURNAL);
	read_jsb(&f, &before);
	ck_err(stalefs_journal_recover(f.fs, &r), STALEFS_ERR_JOURNAL_CORRUPT);
	ck_assert_ptr_nonnull(strstr(r.detail, "descriptor block"));
	expect_block(&f, 0, 0);
	expect_block(&f, 1, 0);
	ck_assert(needs_recovery(f.fs));
	read_jsb(&f, &after);
	ck_assert_mem_eq(&before, &after, sizeof(before));
	jfix_done(&f);
}
END_TEST

/* The same with an older commit: blocks of an earlier use of the log; the log ends there. */
START_TEST(descriptor_checksum_stale)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	add(&f, t, 0, 1);
	stalefs_jtrans_set_time(t, 2000, 0);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	add(&f, t, 1, 2);
	stalefs_jtrans_set_time(t, 1999, 0);
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_BAD_DESC_CSUM));
	ck_ok(recover(&f, &r));
	ck_assert(r.stale_end);
	ck_assert_uint_eq(r.transactions, 1);
	expect_block(&f, 0, 1);
	expect_block(&f, 1, 0);
	jfix_done(&f);
}
END_TEST

START_TEST(revoke_checksum)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	bool stale = _i == 1;

	jfix_setup(&f, 4096, 1024);
	t = begin(&f);
	add(&f, t, 0, 1);
	stalefs_jtrans_set_time(t, 2000, 0);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	revoke(&f, t, 0);
	add(&f, t, 1, 2);
	stalefs_jtrans_set_time(t, stale ? 1500 : 2500, 0);
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_BAD_REVOKE_CSUM));
	if (stale) {
		ck_ok(recover(&f, &r));
		ck_assert(r.stale_end);
		expect_block(&f, 0, 1);
	} else {
		ck_err(recover(&f, &r), STALEFS_ERR_JOURNAL_CORRUPT);
		ck_assert_ptr_nonnull(strstr(r.detail, "revoke block"));
		expect_block(&f, 0, 0);
	}
	expect_block(&f, 1, 0);
	jfix_done(&f);
}
END_TEST

/* Blocks of an earlier use of the log (older sequences) after a shorter new transaction. */
START_TEST(old_log_blocks_ignored)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	u32 n;

	jfix_setup(&f, 1024, 1024);
	for (n = 0; n < 3; n++) {
		t = begin(&f);
		add(&f, t, n, 1);
		ck_ok(stalefs_jtrans_commit(t, 0));
	}
	ck_ok(recover(&f, &r));
	ck_assert_uint_eq(r.transactions, 3);
	/* Change the targets behind the journal's back, then log one new transaction: it
	 * lands on blocks 1-3, and the old transactions 2 and 3 follow it in the log. */
	for (n = 0; n < 3; n++) {
		pattern(&f, n, 9, f.buf);
		ck_ok(stalefs_write_block(f.fs, f.base + n, f.buf));
	}
	ck_ok(stalefs_journal_open(f.fs, 0, &f.j));
	t = begin(&f);
	ck_assert_uint_eq(f.j->head, 1);
	add(&f, t, 5, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	ck_ok(recover(&f, &r));
	ck_assert_uint_eq(r.transactions, 1);
	ck_assert_uint_eq(r.blocks_replayed, 1);
	for (n = 0; n < 3; n++)
		expect_block(&f, n, 9);
	expect_block(&f, 5, 1);
	jfix_done(&f);
}
END_TEST

/* A tag naming a block the log may not write (the journal itself): skipped, an error at the end. */
START_TEST(bad_target)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	u64 jstart;

	jfix_setup(&f, 1024, 1024);
	jstart = le64_to_cpu(f.fs->sb.s_journal_block);
	t = begin(&f);
	add(&f, t, 0, 1);
	pattern(&f, 77, 1, f.buf);
	ck_ok(stalefs_jtrans_add_block(t, jstart + 900, f.buf));
	add(&f, t, 1, 1);
	ck_err(stalefs_jtrans_add_block(t, f.fs->geom.blocks_count, f.buf), STALEFS_ERR_BAD_BLOCK_NUM);
	ck_ok(stalefs_jtrans_commit(t, 0));
	ck_err(recover(&f, &r), STALEFS_ERR_JOURNAL_BAD_TARGET);
	ck_assert_uint_eq(r.bad_blocks, 1);
	expect_block(&f, 0, 1);
	expect_block(&f, 1, 1);
	ck_ok(stalefs_read_block(f.fs, jstart + 900, f.buf));
	{
		u8 zero[1024];

		memset(zero, 0, sizeof(zero));
		ck_assert_mem_eq(f.buf, zero, 1024);
	}
	jfix_done(&f);
}
END_TEST

static int find_revoke_block(const struct stalefs_jwalk_entry *e, void *priv)
{
	if (e->what == STALEFS_JW_REVOKE) {
		*(u32 *)priv = e->log_block;
		return 1;
	}
	return 0;
}

/* A revoke block whose count runs past it: recovery fails, nothing is written. */
START_TEST(revoke_count_corrupt)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	struct stalefs_jbd2_revoke_header *h;
	u32 at = 0;
	__be32 c;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	add(&f, t, 0, 1);
	revoke(&f, t, 5);
	ck_ok(stalefs_jtrans_commit(t, 0));
	ck_ok(stalefs_journal_walk(f.j, 0, find_revoke_block, &at));
	ck_assert_uint_eq(at, 1);
	ck_ok(stalefs_journal_read_block(f.j, at, f.buf));
	h = (void *)f.buf;
	h->r_count = htobe32(1021);
	c = htobe32(stalefs_journal_block_tail_csum(f.j, f.buf));
	memcpy(f.buf + 1020, &c, 4);
	ck_ok(stalefs_io_write(f.fs->io, f.j->fs_start + at, 1, f.buf));
	ck_err(recover(&f, &r), STALEFS_ERR_JOURNAL_REVOKE_CORRUPT);
	expect_block(&f, 0, 0);
	jfix_done(&f);
}
END_TEST

START_TEST(journal_full)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	u32 n;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	/* 1006 blocks: 17 descriptors + 1006 + commit = 1024 > 1022 free. */
	for (n = 0; n < 1006; n++)
		add(&f, t, n, 1);
	ck_err(stalefs_jtrans_commit(t, 0), STALEFS_ERR_JOURNAL_FULL);
	ck_assert(!needs_recovery(f.fs));
	t = begin(&f);
	for (n = 0; n < 500; n++)
		add(&f, t, n, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	/* The log keeps what it has: 510 of 1023 blocks used; 600 more (611 log blocks) do not fit. */
	t = begin(&f);
	for (n = 0; n < 600; n++)
		add(&f, t, n, 2);
	ck_err(stalefs_jtrans_commit(t, 0), STALEFS_ERR_JOURNAL_FULL);
	jfix_done(&f);
}
END_TEST

/* What the walker reports for a transaction: every block, tag and checksum, in log order. */
struct walk_log {
	struct stalefs_jwalk_entry e[32];
	u32 n;
};

static int record(const struct stalefs_jwalk_entry *e, void *priv)
{
	struct walk_log *w = priv;

	if (w->n < 32) {
		w->e[w->n] = *e;
		w->e[w->n].block = NULL;
		w->n++;
	}
	return 0;
}

START_TEST(walker)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct walk_log w;
	struct stalefs_journal_recovery r;
	u32 seq;

	jfix_setup(&f, 1024, 1024);
	seq = f.j->next_sequence;
	t = begin(&f);
	revoke(&f, t, 9);
	add(&f, t, 0, 1);
	magic_pattern(&f, 1, 1, f.buf);
	ck_ok(stalefs_jtrans_add_block(t, f.base + 1, f.buf));
	stalefs_jtrans_set_time(t, 1234567, 89);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	add(&f, t, 2, 1);
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_BAD_BLOCK_CSUM | STALEFS_JTRANS_NO_COMMIT));
	memset(&w, 0, sizeof(w));
	ck_ok(stalefs_journal_walk(f.j, 0, record, &w));
	ck_assert_uint_eq(w.n, 9);
	ck_assert_int_eq(w.e[0].what, STALEFS_JW_REVOKE);
	ck_assert_uint_eq(w.e[0].log_block, 1);
	ck_assert_uint_eq(w.e[0].sequence, seq);
	ck_assert_uint_eq(w.e[0].count, 1);
	ck_assert(w.e[0].csum_ok);
	ck_assert_int_eq(w.e[1].what, STALEFS_JW_REVOKE_RECORD);
	ck_assert_uint_eq(w.e[1].fs_block, f.base + 9);
	ck_assert_int_eq(w.e[2].what, STALEFS_JW_DESCRIPTOR);
	ck_assert_uint_eq(w.e[2].log_block, 2);
	ck_assert(w.e[2].csum_ok);
	ck_assert_int_eq(w.e[3].what, STALEFS_JW_TAG);
	ck_assert_uint_eq(w.e[3].log_block, 3);
	ck_assert_uint_eq(w.e[3].fs_block, f.base);
	ck_assert_uint_eq(w.e[3].tag_flags, 0);
	ck_assert(w.e[3].csum_ok);
	ck_assert_int_eq(w.e[4].what, STALEFS_JW_TAG);
	ck_assert_uint_eq(w.e[4].fs_block, f.base + 1);
	ck_assert_uint_eq(w.e[4].tag_flags, STALEFS_JBD2_FLAG_ESCAPE | STALEFS_JBD2_FLAG_SAME_UUID |
			  STALEFS_JBD2_FLAG_LAST_TAG);
	ck_assert(w.e[4].csum_ok);
	ck_assert_int_eq(w.e[5].what, STALEFS_JW_COMMIT);
	ck_assert_uint_eq(w.e[5].log_block, 5);
	ck_assert_uint_eq(w.e[5].commit_sec, 1234567);
	ck_assert_uint_eq(w.e[5].commit_nsec, 89);
	ck_assert(w.e[5].csum_ok);
	/* The uncommitted one, its block's checksum spoiled, then the end of the log. */
	ck_assert_int_eq(w.e[6].what, STALEFS_JW_DESCRIPTOR);
	ck_assert_uint_eq(w.e[6].sequence, seq + 1);
	ck_assert_int_eq(w.e[7].what, STALEFS_JW_TAG);
	ck_assert(!w.e[7].csum_ok);
	ck_assert_int_eq(w.e[8].what, STALEFS_JW_END);
	ck_assert_int_eq(w.e[8].end_reason, STALEFS_JW_END_NO_MAGIC);
	ck_assert_uint_eq(w.e[8].log_block, 8);
	/* Once emptied, the plain walk sees nothing, the old one sees it all again. */
	ck_ok(recover(&f, &r));
	ck_ok(stalefs_journal_open(f.fs, 0, &f.j));
	memset(&w, 0, sizeof(w));
	ck_ok(stalefs_journal_walk(f.j, 0, record, &w));
	ck_assert_uint_eq(w.n, 1);
	ck_assert_int_eq(w.e[0].end_reason, STALEFS_JW_END_EMPTY);
	memset(&w, 0, sizeof(w));
	ck_ok(stalefs_journal_walk(f.j, STALEFS_JWALK_OLD, record, &w));
	ck_assert_uint_eq(w.n, 9);
	ck_assert_int_eq(w.e[5].what, STALEFS_JW_COMMIT);
	ck_assert_int_eq(w.e[8].end_reason, STALEFS_JW_END_NO_MAGIC);
	jfix_done(&f);
}
END_TEST

/* A journal superblock that fails verification: open refuses it, FORCE opens it, recovery says why. */
START_TEST(damaged_journal_superblock)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal *j;
	struct stalefs_journal_recovery r;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	add(&f, t, 0, 1);
	ck_ok(stalefs_jtrans_commit(t, 0));
	f.j->jsb.s_feature_incompat |= htobe32(STALEFS_JBD2_INCOMPAT_FAST_COMMIT);
	ck_ok(stalefs_journal_write_super(f.fs, &f.j->jsb));
	ck_err(stalefs_journal_open(f.fs, 0, &j), STALEFS_ERR_JOURNAL_UNSUPP);
	ck_ok(stalefs_journal_open(f.fs, STALEFS_JOURNAL_FORCE, &j));
	ck_assert_int_eq(j->jsb_rule, STALEFS_JSB_FEATURES_UNKNOWN);
	stalefs_journal_close(j);
	ck_err(recover(&f, &r), STALEFS_ERR_JOURNAL_UNSUPP);
	ck_assert_ptr_nonnull(strstr(r.detail, "unsupported features"));
	expect_block(&f, 0, 0);
	jfix_done(&f);
}
END_TEST

/* Giving up on a corrupt journal: the log zeroed, so nothing of it replays later. */
START_TEST(discard_after_failure)
{
	struct jfix f;
	struct stalefs_jtrans *t;
	struct stalefs_journal_recovery r;
	struct walk_log w;

	jfix_setup(&f, 1024, 1024);
	t = begin(&f);
	add(&f, t, 0, 1);
	stalefs_jtrans_set_time(t, 1000, 0);
	ck_ok(stalefs_jtrans_commit(t, 0));
	t = begin(&f);
	add(&f, t, 1, 2);
	stalefs_jtrans_set_time(t, 1000, 0);
	ck_ok(stalefs_jtrans_commit(t, STALEFS_JTRANS_BAD_DESC_CSUM));
	ck_err(recover(&f, &r), STALEFS_ERR_JOURNAL_CORRUPT);
	ck_ok(stalefs_journal_discard(f.fs));
	ck_assert(!needs_recovery(f.fs));
	ck_ok(stalefs_journal_open(f.fs, 0, &f.j));
	ck_assert_uint_eq(f.j->jsb.s_start, 0);
	memset(&w, 0, sizeof(w));
	ck_ok(stalefs_journal_walk(f.j, STALEFS_JWALK_OLD, record, &w));
	ck_assert_uint_eq(w.n, 1);
	ck_assert_int_eq(w.e[0].end_reason, STALEFS_JW_END_NO_MAGIC);
	/* And a new transaction after it replays alone. */
	t = begin(&f);
	add(&f, t, 2, 3);
	ck_ok(stalefs_jtrans_commit(t, 0));
	ck_ok(recover(&f, &r));
	ck_assert_uint_eq(r.transactions, 1);
	expect_block(&f, 0, 0);
	expect_block(&f, 1, 0);
	expect_block(&f, 2, 3);
	jfix_done(&f);
}
END_TEST

/* A filesystem without a journal: nothing to recover, nothing to open. */
START_TEST(no_journal)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 4ULL << 20, 4096);
	struct stalefs_journal *j;
	struct stalefs_journal_recovery r;

	ck_assert(!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL));
	ck_err(stalefs_journal_open(fs, 0, &j), STALEFS_ERR_NO_JOURNAL);
	ck_err(stalefs_journal_recover(fs, &r), STALEFS_ERR_NO_JOURNAL);
	scratch_done(&s);
}
END_TEST

Suite *journal_replay_suite(void)
{
	Suite *s = suite_create("journal_replay");
	TCase *tc = tcase_create("journal_replay");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, several_transactions, 0, 2);
	tcase_add_test(tc, wrap_around);
	tcase_add_test(tc, revokes_across_transactions);
	tcase_add_test(tc, many_revokes);
	tcase_add_test(tc, uncommitted_ignored);
	tcase_add_test(tc, uncommitted_only);
	tcase_add_test(tc, commit_checksum_ends_log);
	tcase_add_test(tc, commit_checksum_stale);
	tcase_add_test(tc, data_checksum_error);
	tcase_add_test(tc, descriptor_checksum_corrupt);
	tcase_add_test(tc, descriptor_checksum_stale);
	tcase_add_loop_test(tc, revoke_checksum, 0, 2);
	tcase_add_test(tc, old_log_blocks_ignored);
	tcase_add_test(tc, bad_target);
	tcase_add_test(tc, revoke_count_corrupt);
	tcase_add_test(tc, journal_full);
	tcase_add_test(tc, walker);
	tcase_add_test(tc, damaged_journal_superblock);
	tcase_add_test(tc, discard_after_failure);
	tcase_add_test(tc, no_journal);
	suite_add_tcase(s, tc);
	return s;
}
