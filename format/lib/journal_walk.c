// SPDX-License-Identifier: GPL-2.0
/*
 * Walking the log block by block for debugfs' logdump: every descriptor with
 * its tags (and the checksum of each block they describe), revoke blocks
 * with their records, commit blocks, and why the walk stopped.  It follows
 * the log as recovery's scan does (s_start, s_sequence, then the next
 * sequence after each commit, wrapping), but judges nothing: a block whose
 * checksum fails is shown as such and the walk goes on, so a damaged
 * journal can be looked at.  With STALEFS_JWALK_OLD it continues past the
 * end through every block that still has the magic, adopting whatever
 * sequence it finds, at most once round the ring.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

struct walk {
	struct stalefs_journal *j;
	stalefs_jwalk_fn fn;
	void *priv;
	u32 used, ring;		/* blocks gone over; the ring's size */
	u8 *data;
};

static int emit_end(struct walk *w, int reason, u32 at, u32 found, u32 expected, errcode_t err, u32 type)
{
	struct stalefs_jwalk_entry e;

	memset(&e, 0, sizeof(e));
	e.what = STALEFS_JW_END;
	e.blocktype = type;
	e.end_reason = reason;
	e.log_block = at;
	e.sequence = found;
	e.expected = expected;
	e.err = err;
	return w->fn(&e, w->priv);
}

/* The tags of the descriptor in buf; *next moves past the blocks they describe. */
static int walk_tags(struct walk *w, const u8 *buf, u32 seq, u32 *next, bool *lapped)
{
	struct stalefs_journal *j = w->j;
	const struct stalefs_jbd2_tag3 *tag;
	u32 off = 0;

	while ((tag = stalefs_jtag_next(j, buf, &off))) {
		struct stalefs_jwalk_entry e;
		int stop;

		if (++w->used > w->ring) {
			*lapped = true;
			return 0;
		}
		memset(&e, 0, sizeof(e));
		e.what = STALEFS_JW_TAG;
		e.log_block = *next;
		e.sequence = e.expected = seq;
		e.tag_flags = be32toh(tag->t_flags) & 0xFFFF;
		e.fs_block = (u64)be32toh(tag->t_blocknr) | (u64)be32toh(tag->t_blocknr_high) << 32;
		if (!stalefs_journal_read_block(j, *next, w->data)) {
			e.block = w->data;
			e.csum_ok = be32toh(tag->t_checksum) == stalefs_journal_tag_csum(j, seq, w->data);
		}
		*next = stalefs_journal_next(j, *next);
		stop = w->fn(&e, w->priv);
		if (stop)
			return stop;
	}
	return 0;
}

static int walk_revokes(struct walk *w, const u8 *buf, u32 at, u32 seq, bool csum_ok)
{
	const struct stalefs_jbd2_revoke_header *h = (const void *)buf;
	struct stalefs_jwalk_entry e;
	u32 count = be32toh(h->r_count), off;
	int stop;

	memset(&e, 0, sizeof(e));
	e.what = STALEFS_JW_REVOKE;
	e.log_block = at;
	e.sequence = e.expected = seq;
	e.blocktype = STALEFS_JBD2_REVOKE_BLOCK;
	e.csum_ok = csum_ok;
	e.block = buf;
	e.bad_count = count > w->j->block_size - 4 || count < sizeof(*h);
	e.count = e.bad_count ? 0 : (count - (u32)sizeof(*h)) / 8;
	stop = w->fn(&e, w->priv);
	if (stop || e.bad_count)
		return stop;
	for (off = sizeof(*h); off + 8 <= count; off += 8) {
		__be64 v;

		memcpy(&v, buf + off, sizeof(v));
		memset(&e, 0, sizeof(e));
		e.what = STALEFS_JW_REVOKE_RECORD;
		e.log_block = at;
		e.sequence = e.expected = seq;
		e.fs_block = be64toh(v);
		stop = w->fn(&e, w->priv);
		if (stop)
			return stop;
	}
	return 0;
}

errcode_t stalefs_journal_walk(struct stalefs_journal *j, int flags, stalefs_jwalk_fn fn, void *priv)
{
	struct walk w = { j, fn, priv, 0, j->maxlen - j->first, NULL };
	u32 seq = be32toh(j->jsb.s_sequence), next = be32toh(j->jsb.s_start);
	u8 *buf;
	int stop = 0;
	bool lapped = false;
	errcode_t err;

	if (!next) {
		if (!(flags & STALEFS_JWALK_OLD)) {
			emit_end(&w, STALEFS_JW_END_EMPTY, 0, 0, seq, 0, 0);
			return 0;
		}
		next = j->first;
	}
	if (next < j->first || next >= j->maxlen) {
		emit_end(&w, STALEFS_JW_END_READ_ERROR, next, 0, seq, STALEFS_ERR_JOURNAL_CORRUPT, 0);
		return 0;
	}
	buf = stalefs_xmalloc(j->block_size);
	w.data = stalefs_xmalloc(j->block_size);
	while (!stop) {
		const struct stalefs_jbd2_header *h = (const void *)buf;
		struct stalefs_jwalk_entry e;
		u32 at = next, found, type;

		if (lapped || ++w.used > w.ring) {
			stop = emit_end(&w, STALEFS_JW_END_LAP, at, 0, seq, 0, 0);
			break;
		}
		err = stalefs_journal_read_block(j, at, buf);
		if (err) {
			emit_end(&w, STALEFS_JW_END_READ_ERROR, at, 0, seq, err, 0);
			break;
		}
		next = stalefs_journal_next(j, next);
		found = be32toh(h->h_sequence);
		type = be32toh(h->h_blocktype);
		if (be32toh(h->h_magic) != STALEFS_JBD2_MAGIC) {
			emit_end(&w, STALEFS_JW_END_NO_MAGIC, at, 0, seq, 0, 0);
			break;
		}
		if (found != seq) {
			if (!(flags & STALEFS_JWALK_OLD)) {
				emit_end(&w, STALEFS_JW_END_SEQUENCE, at, found, seq, 0, 0);
				break;
			}
			seq = found;	/* old blocks: follow whatever transaction they belong to */
		}
		memset(&e, 0, sizeof(e));
		e.log_block = at;
		e.sequence = e.expected = seq;
		e.blocktype = type;
		e.block = buf;
		if (type == STALEFS_JBD2_DESCRIPTOR_BLOCK) {
			e.what = STALEFS_JW_DESCRIPTOR;
			e.csum_ok = be32toh(*(const __be32 *)(buf + j->block_size - 4)) ==
				    stalefs_journal_block_tail_csum(j, buf);
			stop = fn(&e, priv);
			if (!stop)
				stop = walk_tags(&w, buf, seq, &next, &lapped);
		} else if (type == STALEFS_JBD2_COMMIT_BLOCK) {
			const struct stalefs_jbd2_commit *c = (const void *)buf;

			e.what = STALEFS_JW_COMMIT;
			e.csum_ok = be32toh(c->h_chksum[0]) == stalefs_journal_commit_csum(j, buf);
			e.commit_sec = be64toh(c->h_commit_sec);
			e.commit_nsec = be32toh(c->h_commit_nsec);
			stop = fn(&e, priv);
			seq++;
		} else if (type == STALEFS_JBD2_REVOKE_BLOCK) {
			stop = walk_revokes(&w, buf, at, seq,
					    be32toh(*(const __be32 *)(buf + j->block_size - 4)) ==
						    stalefs_journal_block_tail_csum(j, buf));
		} else {
			emit_end(&w, STALEFS_JW_END_BLOCKTYPE, at, found, seq, 0, type);
			break;
		}
	}
	free(buf);
	free(w.data);
	return 0;
}
