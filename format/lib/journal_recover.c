// SPDX-License-Identifier: GPL-2.0
/*
 * Journal recovery, as the kernel's fs/jbd2/recovery.c does it, so that a
 * journal the kernel would replay one way is replayed the same way here
 * (FORMAT.md 12, "Recovery"):
 *
 *   scan    from s_start / s_sequence, transaction after transaction, to the
 *           end of the log: the first block that is not a journal block of
 *           the expected sequence.  A commit block whose checksum fails ends
 *           the log before its transaction; a descriptor or revoke block
 *           whose checksum fails is judged by the next commit block's time:
 *           not older than the previous commit -> the journal is corrupt;
 *           older -> leftovers of an earlier use, the log ends there.
 *   revoke  every revoke record of the complete transactions, keeping per
 *           block the latest sequence that revoked it.
 *   replay  every tagged block of every complete transaction, unless a
 *           revoke of the same or a later sequence covers it; a block whose
 *           checksum fails is skipped and fails the recovery at the end.
 *
 * Everything is written through the block cache, so an overlay catches it.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

enum pass { PASS_SCAN, PASS_REVOKE, PASS_REPLAY };

/* Revoked blocks -> the latest sequence revoking each: open addressing, block + 1 as key. */
struct revoke_table {
	u64 *keys;
	u32 *seqs;
	u64 cap, count;
};

static u64 rt_slot(u64 key, u64 cap)
{
	return (key * 0x9E3779B97F4A7C15ULL >> 17) & (cap - 1);
}

static void rt_put(struct revoke_table *rt, u64 block, u32 seq)
{
	u64 key = block + 1, i;

	if (rt->count * 2 >= rt->cap) {
		struct revoke_table old = *rt;

		rt->cap = old.cap ? old.cap * 2 : 1024;
		rt->keys = stalefs_xcalloc(rt->cap, sizeof(*rt->keys));
		rt->seqs = stalefs_xcalloc(rt->cap, sizeof(*rt->seqs));
		rt->count = 0;
		for (i = 0; i < old.cap; i++)
			if (old.keys[i])
				rt_put(rt, old.keys[i] - 1, old.seqs[i]);
		free(old.keys);
		free(old.seqs);
	}
	for (i = rt_slot(key, rt->cap); rt->keys[i]; i = (i + 1) & (rt->cap - 1)) {
		if (rt->keys[i] == key) {
			/* jbd2_journal_set_revoke(): a later revoke of the same block wins. */
			if (stalefs_tid_gt(seq, rt->seqs[i]))
				rt->seqs[i] = seq;
			return;
		}
	}
	rt->keys[i] = key;
	rt->seqs[i] = seq;
	rt->count++;
}

/* jbd2_journal_test_revoke(): revoked unless the block's transaction is later than the revoke. */
static bool rt_revoked(const struct revoke_table *rt, u64 block, u32 seq)
{
	u64 key = block + 1, i;

	if (!rt->cap)
		return false;
	for (i = rt_slot(key, rt->cap); rt->keys[i]; i = (i + 1) & (rt->cap - 1))
		if (rt->keys[i] == key)
			return !stalefs_tid_gt(seq, rt->seqs[i]);
	return false;
}

struct recovery {
	struct stalefs_journal *j;
	struct stalefs_journal_recovery *st;
	struct revoke_table revokes;
	bool end_known;		/* scan has fixed end_sequence */
	u64 used;		/* log blocks the current pass went over */
	u32 head;		/* the block after the last complete transaction */
	errcode_t deferred;	/* a replay error reported once the rest is written */
	u8 *buf, *data;
};

/* Tags of a descriptor block (count_tags()): 16 bytes each, the UUID after any tag without
 * SAME_UUID, up to LAST_TAG or the checksum tail. */
static u32 count_tags(const struct stalefs_journal *j, const u8 *block)
{
	u32 off = 0, n = 0;

	while (stalefs_jtag_next(j, block, &off))
		n++;
	return n;
}

static u32 advance(const struct stalefs_journal *j, u32 n, u32 by)
{
	u32 ring = j->maxlen - j->first;

	by %= ring;
	n += by;
	if (n >= j->maxlen)
		n -= ring;
	return n;
}

/* A target the log may not write: outside the filesystem, the boot area before the primary
 * superblock's block (only a grow journals that block: FORMAT.md 12), or the journal itself.
 * The kernel never logs such a block. */
static bool bad_target(const struct stalefs_journal *j, u64 block)
{
	const struct stalefs_geom *g = &j->fs->geom;

	return block < g->sb_block || block >= g->blocks_count ||
	       (block >= j->fs_start && block - j->fs_start < j->maxlen);
}

static void note(struct recovery *rc, const char *fmt, u32 a, u32 b)
{
	snprintf(rc->st->detail, sizeof(rc->st->detail), fmt, a, b);
}

static errcode_t replay_tags(struct recovery *rc, u32 *next, u32 seq)
{
	struct stalefs_journal *j = rc->j;
	u32 off = sizeof(struct stalefs_jbd2_header), limit = j->block_size - 4;
	errcode_t err;

	while (off + sizeof(struct stalefs_jbd2_tag3) <= limit) {
		const struct stalefs_jbd2_tag3 *tag = (const void *)(rc->buf + off);
		u32 flags = be32toh(tag->t_flags) & 0xFFFF;
		u64 target = (u64)be32toh(tag->t_blocknr) | (u64)be32toh(tag->t_blocknr_high) << 32;
		u32 io_block = *next;

		*next = stalefs_journal_next(j, *next);
		if (++rc->used > j->maxlen - j->first) {
			note(rc, "the log runs round the whole journal (transaction %u at log block %u)", seq, io_block);
			return STALEFS_ERR_JOURNAL_CORRUPT;
		}
		err = stalefs_journal_read_block(j, io_block, rc->data);
		if (err) {
			/* Recover what can be recovered, fail at the end (as jbd2). */
			rc->deferred = err;
			note(rc, "log block %u of transaction %u could not be read", io_block, seq);
		} else if (rt_revoked(&rc->revokes, target, seq)) {
			rc->st->revoke_hits++;
		} else if (be32toh(tag->t_checksum) != stalefs_journal_tag_csum(j, seq, rc->data)) {
			rc->st->bad_blocks++;
			rc->deferred = STALEFS_ERR_JOURNAL_BLOCK_CSUM;
			snprintf(rc->st->detail, sizeof(rc->st->detail),
				 "journaled copy of block %llu (log block %u, transaction %u) fails its checksum",
				 (unsigned long long)target, io_block, seq);
		} else if (bad_target(j, target)) {
			rc->st->bad_blocks++;
			rc->deferred = STALEFS_ERR_JOURNAL_BAD_TARGET;
			snprintf(rc->st->detail, sizeof(rc->st->detail),
				 "log block %u of transaction %u names block %llu, which the log may not write",
				 io_block, seq, (unsigned long long)target);
		} else {
			if (flags & STALEFS_JBD2_FLAG_ESCAPE) {
				__be32 magic = htobe32(STALEFS_JBD2_MAGIC);

				memcpy(rc->data, &magic, sizeof(magic));
			}
			err = stalefs_io_write(j->fs->io, target, 1, rc->data);
			if (err)
				return err;
			rc->st->blocks_replayed++;
			if (target == j->fs->geom.sb_block)
				rc->st->super_replayed = true;
		}
		off += sizeof(*tag);
		if (!(flags & STALEFS_JBD2_FLAG_SAME_UUID))
			off += 16;
		if (flags & STALEFS_JBD2_FLAG_LAST_TAG)
			break;
	}
	return 0;
}

static errcode_t scan_revokes(struct recovery *rc, u32 seq, u32 at)
{
	const struct stalefs_jbd2_revoke_header *h = (const void *)rc->buf;
	u32 count = be32toh(h->r_count), off;

	if (count > rc->j->block_size - 4) {
		note(rc, "revoke block at log block %u of transaction %u counts past its end", at, seq);
		return STALEFS_ERR_JOURNAL_REVOKE_CORRUPT;
	}
	for (off = sizeof(*h); off + 8 <= count; off += 8) {
		__be64 v;

		memcpy(&v, rc->buf + off, sizeof(v));
		rt_put(&rc->revokes, be64toh(v), seq);
		rc->st->revoke_records++;
	}
	return 0;
}

/* One pass over the log (do_one_pass()). */
static errcode_t one_pass(struct recovery *rc, enum pass pass)
{
	struct stalefs_journal *j = rc->j;
	struct stalefs_journal_recovery *st = rc->st;
	u32 seq = be32toh(j->jsb.s_sequence), next = be32toh(j->jsb.s_start), prev = next;
	bool check_commit_time = false;
	u64 last_commit_time = 0;
	errcode_t err;

	/* Blocks the pass has gone past, descriptor tags included: a log cannot be longer than
	 * the ring, and a crafted one that goes round and round must not hang the tool. */
	for (rc->used = 0;;) {
		const struct stalefs_jbd2_header *h = (const void *)rc->buf;
		u32 at = next, type;

		if (pass != PASS_SCAN && !stalefs_tid_gt(st->end_sequence, seq))
			break;
		prev = at;
		if (++rc->used > j->maxlen - j->first) {
			note(rc, "the log runs round the whole journal (transaction %u at log block %u)", seq, at);
			return STALEFS_ERR_JOURNAL_CORRUPT;
		}
		err = stalefs_journal_read_block(j, at, rc->buf);
		if (err) {
			note(rc, "log block %u (transaction %u) could not be read", at, seq);
			return err;
		}
		next = stalefs_journal_next(j, next);
		if (be32toh(h->h_magic) != STALEFS_JBD2_MAGIC || be32toh(h->h_sequence) != seq)
			break;
		type = be32toh(h->h_blocktype);
		if (type == STALEFS_JBD2_DESCRIPTOR_BLOCK) {
			if (be32toh(*(const __be32 *)(rc->buf + j->block_size - 4)) !=
			    stalefs_journal_block_tail_csum(j, rc->buf)) {
				if (pass != PASS_SCAN) {
					note(rc, "descriptor block at log block %u of transaction %u fails its checksum",
					     at, seq);
					return STALEFS_ERR_JOURNAL_CORRUPT;
				}
				/* Possibly left over from an earlier use: the commit time will tell. */
				if (!check_commit_time)
					note(rc, "descriptor block at log block %u of transaction %u fails its checksum",
					     at, seq);
				check_commit_time = true;
			}
			if (pass != PASS_REPLAY) {
				u32 n = count_tags(j, rc->buf);

				next = advance(j, next, n);
				rc->used += n;
				continue;
			}
			err = replay_tags(rc, &next, seq);
			if (err)
				return err;
		} else if (type == STALEFS_JBD2_COMMIT_BLOCK) {
			const struct stalefs_jbd2_commit *c = (const void *)rc->buf;
			u64 commit_time = be64toh(c->h_commit_sec);

			if (check_commit_time) {
				if (commit_time >= last_commit_time) {
					size_t n = strlen(st->detail);

					snprintf(st->detail + n, sizeof(st->detail) - n,
						 ", and its commit is not older than the one before");
					return STALEFS_ERR_JOURNAL_CORRUPT;
				}
				st->stale_end = true;
				strncat(st->detail, ", but its commit is older than the one before: left from an "
					"earlier use of the log, which ends there", sizeof(st->detail) - strlen(st->detail) - 1);
				break;
			}
			if (pass == PASS_SCAN && be32toh(c->h_chksum[0]) != stalefs_journal_commit_csum(j, rc->buf)) {
				if (commit_time < last_commit_time) {
					st->stale_end = true;
					note(rc, "commit block at log block %u of transaction %u fails its checksum and "
					     "is older than the one before: left from an earlier use, the log ends there",
					     at, seq);
					break;
				}
				/* The commit never reached the disk whole: the log ends before it. */
				st->end_sequence = seq;
				rc->end_known = true;
				st->commit_csum_failed = true;
				note(rc, "commit block at log block %u of transaction %u fails its checksum: "
				     "the log ends before it", at, seq);
				break;
			}
			if (pass == PASS_SCAN) {
				last_commit_time = commit_time;
				rc->head = next;
			}
			seq++;
		} else if (type == STALEFS_JBD2_REVOKE_BLOCK) {
			if (pass == PASS_SCAN && be32toh(*(const __be32 *)(rc->buf + j->block_size - 4)) !=
			    stalefs_journal_block_tail_csum(j, rc->buf)) {
				if (!check_commit_time)
					note(rc, "revoke block at log block %u of transaction %u fails its checksum",
					     at, seq);
				check_commit_time = true;
			}
			if (pass == PASS_REVOKE) {
				err = scan_revokes(rc, seq, at);
				if (err)
					return err;
			}
		} else {
			break;	/* a superblock or an unknown type: the end */
		}
	}
	if (pass == PASS_SCAN) {
		if (!rc->end_known)
			st->end_sequence = seq;
		rc->end_known = true;
		if (!st->detail[0])
			note(rc, "the log ends at log block %u, where transaction %u would start", prev, seq);
	} else if (st->end_sequence != seq) {
		/* The passes disagree about the end: the log changed under us, or reads did. */
		note(rc, "pass ended at transaction %u, the scan at %u", seq, st->end_sequence);
		return STALEFS_ERR_JOURNAL_CORRUPT;
	}
	return 0;
}

static void recovery_init(struct recovery *rc, struct stalefs_journal *j, struct stalefs_journal_recovery *st)
{
	memset(rc, 0, sizeof(*rc));
	memset(st, 0, sizeof(*st));
	rc->j = j;
	rc->st = st;
	rc->buf = stalefs_xmalloc(j->block_size);
	rc->data = stalefs_xmalloc(j->block_size);
	st->start_sequence = be32toh(j->jsb.s_sequence);
	st->jsb_errno = be32toh(j->jsb.s_errno);
	rc->head = be32toh(j->jsb.s_start);
}

static void recovery_done(struct recovery *rc)
{
	free(rc->revokes.keys);
	free(rc->revokes.seqs);
	free(rc->buf);
	free(rc->data);
}

errcode_t stalefs_journal_find_head(struct stalefs_journal *j, struct stalefs_journal_recovery *st)
{
	struct recovery rc;
	errcode_t err = 0;

	recovery_init(&rc, j, st);
	if (!j->jsb.s_start) {
		st->was_empty = true;
		st->end_sequence = st->start_sequence;
		j->head = j->first;
	} else {
		err = one_pass(&rc, PASS_SCAN);
		j->head = rc.head;
	}
	if (!err) {
		j->next_sequence = st->end_sequence;
		j->head_known = true;
	}
	st->next_sequence = st->end_sequence + 1;
	recovery_done(&rc);
	return err;
}

errcode_t stalefs_journal_mark_empty(stalefs_fs *fs, u32 next_sequence)
{
	struct stalefs_jbd2_super jsb;
	errcode_t err = stalefs_journal_read_super(fs, &jsb);

	if (err)
		return err;
	jsb.s_start = 0;
	jsb.s_sequence = htobe32(next_sequence);
	err = stalefs_journal_write_super(fs, &jsb);
	if (err)
		return err;
	stalefs_journal_clear_recover(fs);
	return 0;
}

errcode_t stalefs_journal_discard(stalefs_fs *fs)
{
	struct stalefs_jbd2_super jsb;
	u64 start = le64_to_cpu(fs->sb.s_journal_block);
	u32 len = le32_to_cpu(fs->sb.s_journal_blocks);
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = stalefs_journal_read_super(fs, &jsb);
	if (err)
		return err;
	/* Nothing left in the log can pass for a transaction, whatever sequence comes next. */
	err = stalefs_io_zero(fs->io, start + 1, len - 1);
	if (!err)
		err = stalefs_journal_mark_empty(fs, be32toh(jsb.s_sequence) + 1);
	return err;
}

errcode_t stalefs_journal_recover(stalefs_fs *fs, struct stalefs_journal_recovery *st)
{
	struct stalefs_journal *j;
	struct recovery rc;
	errcode_t err;

	memset(st, 0, sizeof(*st));
	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = stalefs_journal_open(fs, 0, &j);
	if (err) {
		if (err != STALEFS_ERR_NO_JOURNAL) {
			struct stalefs_jbd2_super jsb;

			if (!stalefs_journal_read_super(fs, &jsb))
				snprintf(st->detail, sizeof(st->detail), "%s",
					 stalefs_jsb_rule_msg(stalefs_jsb_verify(&jsb, &fs->sb)));
		}
		return err;
	}
	recovery_init(&rc, j, st);
	if (!j->jsb.s_start) {
		/* A clean journal: nothing to replay, whatever RECOVER says. */
		st->was_empty = true;
		st->end_sequence = st->start_sequence;
		st->next_sequence = st->start_sequence;
		err = stalefs_journal_mark_empty(fs, st->start_sequence);
		goto out;
	}
	err = one_pass(&rc, PASS_SCAN);
	st->next_sequence = st->end_sequence + 1;
	if (!err)
		err = one_pass(&rc, PASS_REVOKE);
	if (!err)
		err = one_pass(&rc, PASS_REPLAY);
	st->transactions = st->end_sequence - st->start_sequence;
	if (!err)
		err = rc.deferred;
	/* A grow's transaction holds the superblock: from now on it says what the filesystem is. */
	if (st->super_replayed) {
		errcode_t e2 = stalefs_reload_super(fs);

		if (e2) {
			snprintf(st->detail, sizeof(st->detail), "the superblock the journal holds does not verify");
			if (!err)
				err = e2;
		}
	}
	/* Restart the log past the first transaction not replayed, as jbd2 and e2fsck do: an
	 * incomplete one's blocks can then never pass for the next transaction. */
	if (!err)
		err = stalefs_journal_mark_empty(fs, st->next_sequence);
	/* The blocks written may be descriptors and bitmaps: read them again. */
	if (st->blocks_replayed) {
		errcode_t e2 = stalefs_reload_groups(fs);

		if (!err)
			err = e2;
	}
out:
	recovery_done(&rc);
	stalefs_journal_close(j);
	return err;
}
