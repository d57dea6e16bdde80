// SPDX-License-Identifier: GPL-2.0
/*
 * Writing transactions into the journal as the kernel's jbd2 commit writes
 * them (fs/jbd2/commit.c), for debugfs' journal_write and for tests that
 * need a journal to replay: revoke blocks, then descriptor blocks each
 * followed by the blocks its v3 tags describe (escaped when they begin with
 * the magic), then the commit block with its time and checksum.  A
 * transaction goes at the log head -- after every complete transaction
 * already there -- and the log wraps from its last block to s_first.
 *
 * As jbd2 does, an empty log gets its s_start (and s_sequence) written
 * before the transaction's blocks, so a transaction left without a commit
 * block is exactly what a crash in the middle of a commit leaves.  The log's
 * blocks go to the device past the block cache (stalefs_io_write_data): they
 * are the journal itself, never part of a transaction, even while the
 * journaled write path (txn.c) holds the cache's metadata back.  With
 * STALEFS_JTRANS_DURABLE the device is flushed before the commit block and
 * after it, as jbd2's commit does, so a transaction is whole on the device
 * before anything that depends on it is written.
 */
#include <stdlib.h>
#include <time.h>
#include "libstalefs.h"
#include "lib_internal.h"

struct stalefs_jtrans {
	struct stalefs_journal *j;
	u64 *blocks;		/* filesystem blocks, in the order added */
	u8 *data;		/* their new contents, block_size each */
	u32 nblocks, cap;
	u64 *revokes;
	u32 nrevokes, rcap;
	u64 sec;
	u32 nsec;
	bool time_set;
	u64 max_block;		/* the largest block added: one added in increasing order is new */
};

/* Tags in one descriptor: the first carries the 16-byte UUID after it, the rest SAME_UUID. */
static u32 tags_per_descriptor(u32 bs)
{
	u32 room = bs - (u32)sizeof(struct stalefs_jbd2_header) - 4;

	return 1 + (room - 2 * (u32)sizeof(struct stalefs_jbd2_tag3)) / (u32)sizeof(struct stalefs_jbd2_tag3);
}

static u32 records_per_revoke_block(u32 bs)
{
	return (bs - (u32)sizeof(struct stalefs_jbd2_revoke_header) - 4) / 8;
}

errcode_t stalefs_jtrans_begin(struct stalefs_journal *j, struct stalefs_jtrans **ret)
{
	struct stalefs_jtrans *t;

	if (!stalefs_fs_rw(j->fs))
		return STALEFS_ERR_RO_FILSYS;
	if (!j->head_known) {
		struct stalefs_journal_recovery scan;
		errcode_t err = stalefs_journal_find_head(j, &scan);

		if (err)
			return err;
	}
	t = stalefs_xcalloc(1, sizeof(*t));
	t->j = j;
	*ret = t;
	return 0;
}

errcode_t stalefs_jtrans_add_block(struct stalefs_jtrans *t, u64 fs_block, const void *data)
{
	u32 bs = t->j->block_size, i;

	if (fs_block >= t->j->fs->geom.blocks_count)
		return STALEFS_ERR_BAD_BLOCK_NUM;
	/* One transaction logs a block once: its last content is what commits.  (Blocks added
	 * in increasing order, as the journaled write path adds them, cannot repeat.) */
	for (i = 0; i < t->nblocks && fs_block <= t->max_block; i++)
		if (t->blocks[i] == fs_block) {
			memcpy(t->data + (size_t)i * bs, data, bs);
			return 0;
		}
	if (fs_block > t->max_block)
		t->max_block = fs_block;
	if (t->nblocks == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->blocks = realloc(t->blocks, t->cap * sizeof(*t->blocks));
		t->data = realloc(t->data, (size_t)t->cap * bs);
		if (!t->blocks || !t->data)
			return STALEFS_ERR_NO_MEMORY;
	}
	t->blocks[t->nblocks] = fs_block;
	memcpy(t->data + (size_t)t->nblocks * bs, data, bs);
	t->nblocks++;
	return 0;
}

errcode_t stalefs_jtrans_revoke(struct stalefs_jtrans *t, u64 fs_block)
{
	if (fs_block >= t->j->fs->geom.blocks_count)
		return STALEFS_ERR_BAD_BLOCK_NUM;
	if (t->nrevokes == t->rcap) {
		t->rcap = t->rcap ? t->rcap * 2 : 16;
		t->revokes = realloc(t->revokes, t->rcap * sizeof(*t->revokes));
		if (!t->revokes)
			return STALEFS_ERR_NO_MEMORY;
	}
	t->revokes[t->nrevokes++] = fs_block;
	return 0;
}

void stalefs_jtrans_set_time(struct stalefs_jtrans *t, u64 sec, u32 nsec)
{
	t->sec = sec;
	t->nsec = nsec;
	t->time_set = true;
}

u32 stalefs_jtrans_blocks(const struct stalefs_jtrans *t)
{
	u32 bs = t->j->block_size, per = tags_per_descriptor(bs), rper = records_per_revoke_block(bs);

	return (t->nblocks + per - 1) / per + t->nblocks + (t->nrevokes + rper - 1) / rper + 1;
}

void stalefs_jtrans_abort(struct stalefs_jtrans *t)
{
	if (!t)
		return;
	free(t->blocks);
	free(t->data);
	free(t->revokes);
	free(t);
}

/* Log blocks go straight out: they mean nothing without their commit block, which follows. */
static errcode_t put_log_block(struct stalefs_journal *j, u32 n, const void *buf)
{
	return stalefs_io_write_data(j->fs->io, j->fs_start + n, 1, buf);
}

static void set_tail_csum(struct stalefs_journal *j, u8 *buf, bool spoil)
{
	__be32 c = htobe32(stalefs_journal_block_tail_csum(j, buf) ^ (spoil ? 0x1u : 0));

	memcpy(buf + j->block_size - 4, &c, 4);
}

static void fill_header(u8 *buf, u32 type, u32 seq)
{
	struct stalefs_jbd2_header *h = (void *)buf;

	h->h_magic = htobe32(STALEFS_JBD2_MAGIC);
	h->h_blocktype = htobe32(type);
	h->h_sequence = htobe32(seq);
}

static errcode_t write_revokes(struct stalefs_jtrans *t, u32 seq, u32 *pos, u8 *buf, int flags)
{
	struct stalefs_journal *j = t->j;
	u32 per = records_per_revoke_block(j->block_size), i = 0;
	bool first = true;
	errcode_t err;

	while (i < t->nrevokes) {
		struct stalefs_jbd2_revoke_header *h = (void *)buf;
		u32 off = sizeof(*h);

		memset(buf, 0, j->block_size);
		fill_header(buf, STALEFS_JBD2_REVOKE_BLOCK, seq);
		for (; i < t->nrevokes && (off - (u32)sizeof(*h)) / 8 < per; i++, off += 8) {
			__be64 v = htobe64(t->revokes[i]);

			memcpy(buf + off, &v, 8);
		}
		h->r_count = htobe32(off);
		set_tail_csum(j, buf, (flags & STALEFS_JTRANS_BAD_REVOKE_CSUM) && first);
		first = false;
		err = put_log_block(j, *pos, buf);
		if (err)
			return err;
		*pos = stalefs_journal_next(j, *pos);
	}
	return 0;
}

static errcode_t write_blocks(struct stalefs_jtrans *t, u32 seq, u32 *pos, u8 *desc, u8 *blk, int flags)
{
	struct stalefs_journal *j = t->j;
	u32 bs = j->block_size, per = tags_per_descriptor(bs), i = 0;
	bool first_desc = true;
	errcode_t err;

	while (i < t->nblocks) {
		u32 desc_pos = *pos, off = sizeof(struct stalefs_jbd2_header), k;

		memset(desc, 0, bs);
		fill_header(desc, STALEFS_JBD2_DESCRIPTOR_BLOCK, seq);
		*pos = stalefs_journal_next(j, *pos);
		for (k = 0; k < per && i < t->nblocks; k++, i++) {
			struct stalefs_jbd2_tag3 *tag = (void *)(desc + off);
			u32 tflags = k ? STALEFS_JBD2_FLAG_SAME_UUID : 0;
			const __be32 magic = htobe32(STALEFS_JBD2_MAGIC);
			u32 csum;

			memcpy(blk, t->data + (size_t)i * bs, bs);
			/* A block that would read as a journal block is logged with its magic zeroed. */
			if (memcmp(blk, &magic, 4) == 0) {
				memset(blk, 0, 4);
				tflags |= STALEFS_JBD2_FLAG_ESCAPE;
			}
			if (k + 1 == per || i + 1 == t->nblocks)
				tflags |= STALEFS_JBD2_FLAG_LAST_TAG;
			csum = stalefs_journal_tag_csum(j, seq, blk);
			if ((flags & STALEFS_JTRANS_BAD_BLOCK_CSUM) && i == 0)
				csum ^= 1;
			tag->t_blocknr = htobe32((u32)t->blocks[i]);
			tag->t_blocknr_high = htobe32((u32)(t->blocks[i] >> 32));
			tag->t_flags = htobe32(tflags);
			tag->t_checksum = htobe32(csum);
			off += sizeof(*tag);
			if (k == 0) {
				memcpy(desc + off, j->jsb.s_uuid, 16);
				off += 16;
			}
			err = put_log_block(j, *pos, blk);
			if (err)
				return err;
			*pos = stalefs_journal_next(j, *pos);
		}
		set_tail_csum(j, desc, (flags & STALEFS_JTRANS_BAD_DESC_CSUM) && first_desc);
		first_desc = false;
		err = put_log_block(j, desc_pos, desc);
		if (err)
			return err;
	}
	return 0;
}

static errcode_t write_commit(struct stalefs_jtrans *t, u32 seq, u32 pos, u8 *buf, int flags)
{
	struct stalefs_journal *j = t->j;
	struct stalefs_jbd2_commit *c = (void *)buf;
	struct timespec now;

	if (!t->time_set) {
		clock_gettime(CLOCK_REALTIME, &now);
		t->sec = (u64)now.tv_sec;
		t->nsec = (u32)now.tv_nsec;
	}
	memset(buf, 0, j->block_size);
	fill_header(buf, STALEFS_JBD2_COMMIT_BLOCK, seq);
	c->h_commit_sec = htobe64(t->sec);
	c->h_commit_nsec = htobe32(t->nsec);
	c->h_chksum[0] = htobe32(stalefs_journal_commit_csum(j, buf) ^
				 ((flags & STALEFS_JTRANS_BAD_COMMIT_CSUM) ? 1u : 0));
	return put_log_block(j, pos, buf);
}

errcode_t stalefs_jtrans_commit(struct stalefs_jtrans *t, int flags)
{
	struct stalefs_journal *j = t->j;
	stalefs_fs *fs = j->fs;
	u32 ring = j->maxlen - j->first, start = be32toh(j->jsb.s_start), used, need;
	u32 seq = j->next_sequence, pos = j->head;
	bool empty = start == 0, jsb_dirty = false;
	u8 *a = NULL, *b = NULL;
	errcode_t err;

	need = stalefs_jtrans_blocks(t) - ((flags & STALEFS_JTRANS_NO_COMMIT) ? 1 : 0);
	used = empty ? 0 : (pos + ring - start) % ring;
	/* One block stays free: a head that caught up with the tail would look like an empty log. */
	if (need >= ring - used) {
		err = STALEFS_ERR_JOURNAL_FULL;
		goto out;
	}
	if (empty) {
		pos = j->first;
		j->jsb.s_start = htobe32(pos);
		j->jsb.s_sequence = htobe32(seq);
		jsb_dirty = true;
	}
	if (t->nrevokes && !(be32toh(j->jsb.s_feature_incompat) & STALEFS_JBD2_INCOMPAT_REVOKE)) {
		j->jsb.s_feature_incompat = htobe32(be32toh(j->jsb.s_feature_incompat) | STALEFS_JBD2_INCOMPAT_REVOKE);
		jsb_dirty = true;
	}
	/* Before the transaction's blocks, as jbd2: a log it starts must be found (s_start). */
	if (jsb_dirty) {
		err = stalefs_journal_put_super(j);
		if (!err && (flags & STALEFS_JTRANS_DURABLE))
			err = stalefs_io_sync(fs->io);
		if (err)
			goto out;
	}
	/* What the kernel sets at mount: from now on the journal must be replayed. */
	if (!(le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER)) {
		fs->sb.s_feature_incompat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_incompat) |
							STALEFS_FEATURE_INCOMPAT_RECOVER);
		stalefs_mark_super_dirty(fs);
	}
	a = stalefs_xmalloc(j->block_size);
	b = stalefs_xmalloc(j->block_size);
	err = write_revokes(t, seq, &pos, a, flags);
	if (!err)
		err = write_blocks(t, seq, &pos, a, b, flags);
	/* The descriptors and blocks (and, for the journaled write path, the file data written
	 * before them) are on the device before the commit block that makes them count. */
	if (!err && (flags & STALEFS_JTRANS_DURABLE))
		err = stalefs_io_sync(fs->io);
	if (!err && !(flags & STALEFS_JTRANS_NO_COMMIT)) {
		err = write_commit(t, seq, pos, a, flags);
		if (!err && (flags & STALEFS_JTRANS_DURABLE))
			err = stalefs_io_sync(fs->io);
		if (!err) {
			j->head = stalefs_journal_next(j, pos);
			j->next_sequence = seq + 1;
		}
	}
out:
	free(a);
	free(b);
	stalefs_jtrans_abort(t);
	return err;
}
