// SPDX-License-Identifier: GPL-2.0
/*
 * The journaled write path (libstalefs.h says what it promises), for
 * stalefs-fuse's writes and resize.stalefs's steps: the block cache holds
 * every metadata block the library writes (stalefs_io_set_hold), and a
 * commit logs them all as one jbd2 transaction before any is written in
 * place.  The order on the device, each step flushed before the next:
 *
 *   0. held blocks past the filesystem's end at the last commit (a grow's
 *      new groups), in place: nothing committed names them yet;
 *   1. the log: descriptors and the blocks' new contents (file data written
 *      since the last commit is made durable by the same flush);
 *   2. the commit block;
 *   3. the checkpoint: the blocks in place, and the superblock -- its
 *      summaries, or with STALEFS_TXN_ATOMIC the logged block, last (it
 *      may name another journal by now: until it is written a replay must
 *      still find this one);
 *   4. the journal superblock (of the journal open at start) says the log
 *      is empty (made durable by the next flush, which comes before
 *      anything can depend on it).
 *
 * A crash before 2 is durable leaves the state before the transaction; after
 * it, recovery (fsck, the kernel, or the next start after a replay) writes
 * the transaction in place again, which is idempotent.  The log is emptied
 * after every checkpoint, so it holds at most one transaction and no block
 * freed after a checkpoint can be overwritten by a replay: no revoke records
 * are needed.
 *
 * Blocks freed by the running transaction and allocated before it are
 * "busy": the allocator skips them until the commit, since before it the
 * state on the device still has them in use by their old owner (data is
 * written straight to the blocks it is given, and a resize moves data so).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "libstalefs.h"
#include "lib_internal.h"

struct stalefs_txn {
	struct stalefs_journal *j;
	struct stalefs_block_set fresh;	/* allocated by the running transaction */
	struct stalefs_block_set busy;	/* freed by it and allocated before it */
	u32 limit;			/* dirty blocks at which to commit (a quarter of the log) */
	unsigned flags;			/* STALEFS_TXN_ATOMIC */
	u64 old_end;			/* blocks_count at the last commit: past it is new space */
	bool broken;			/* a commit failed: nothing more is written */
	struct stalefs_txn_stats st;
};

void stalefs_txn_free(stalefs_fs *fs)
{
	struct stalefs_txn *t = fs->txn;

	if (!t)
		return;
	stalefs_journal_close(t->j);
	stalefs_block_set_clear(&t->fresh);
	stalefs_block_set_clear(&t->busy);
	free(t);
	fs->txn = NULL;
	if (fs->io)
		stalefs_io_set_hold(fs->io, false);
}

static void set_recover(stalefs_fs *fs, bool on)
{
	u32 incompat = le32_to_cpu(fs->sb.s_feature_incompat);

	incompat = on ? incompat | STALEFS_FEATURE_INCOMPAT_RECOVER : incompat & ~STALEFS_FEATURE_INCOMPAT_RECOVER;
	fs->sb.s_feature_incompat = cpu_to_le32(incompat);
	stalefs_mark_super_dirty(fs);
}

/* The superblock in place and flushed. */
static errcode_t write_super_durably(stalefs_fs *fs)
{
	errcode_t err = stalefs_write_super_if_dirty(fs, true);

	return err ? err : stalefs_io_sync(fs->io);
}

/* A quarter of the log, as jbd2 bounds a transaction. */
static u32 room_of(u32 log_blocks)
{
	return log_blocks / 4;
}

u32 stalefs_txn_room(const stalefs_fs *fs)
{
	if (fs->txn)
		return fs->txn->limit;
	return room_of(le32_to_cpu(fs->sb.s_journal_blocks) - 1);
}

errcode_t stalefs_txn_start(stalefs_fs *fs, unsigned flags)
{
	struct stalefs_txn *t;
	struct stalefs_journal *j;
	errcode_t err;

	if (fs->txn)
		return 0;
	if (!stalefs_fs_rw(fs) || stalefs_io_is_overlay(fs->io))
		return STALEFS_ERR_RO_FILSYS;
	if (!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		return STALEFS_ERR_NO_JOURNAL;
	err = stalefs_journal_open(fs, 0, &j);
	if (err)
		return err;
	/* Writing around transactions not yet in place would be undone by their replay. */
	if (j->jsb.s_start || !j->head_known) {
		stalefs_journal_close(j);
		return STALEFS_ERR_NEEDS_RECOVERY;
	}
	/* Start from a state that is on the device: what was written so far goes in place. */
	err = stalefs_flush(fs);
	if (!err) {
		set_recover(fs, true);
		err = write_super_durably(fs);
	}
	if (err) {
		stalefs_journal_close(j);
		return err;
	}
	t = stalefs_xcalloc(1, sizeof(*t));
	t->j = j;
	t->limit = room_of(j->maxlen - j->first);
	t->flags = flags;
	t->old_end = fs->geom.blocks_count;
	fs->txn = t;
	stalefs_io_set_hold(fs->io, true);
	return 0;
}

struct log_ctx {
	stalefs_fs *fs;
	struct stalefs_txn *t;
	struct stalefs_jtrans *jt;
	errcode_t err;
};

static int log_block(u64 block, const void *data, void *priv)
{
	struct log_ctx *c = priv;
	const struct stalefs_journal *j = c->t->j;

	/* The journal's own blocks go past the cache (journal_write.c): never one of these. */
	if (block >= j->fs_start && block - j->fs_start < j->maxlen)
		c->err = STALEFS_ERR_BAD_BLOCK_NUM;
	else
		c->err = stalefs_jtrans_add_block(c->jt, block, data);
	return c->err != 0;
}

/* The transaction's blocks into the log, durably, commit block last. */
static errcode_t write_log(stalefs_fs *fs, struct stalefs_txn *t)
{
	struct log_ctx c = { fs, t, NULL, 0 };
	errcode_t err = stalefs_jtrans_begin(t->j, &c.jt);

	if (err)
		return err;
	stalefs_io_dirty_iterate(fs->io, log_block, &c);
	if (c.err) {
		stalefs_jtrans_abort(c.jt);
		return c.err;
	}
	return stalefs_jtrans_commit(c.jt, STALEFS_JTRANS_DURABLE);
}

/* Step 0: held blocks past the old end go to their place now, durably. */
static int write_new_block(u64 block, const void *data, void *priv)
{
	struct log_ctx *c = priv;

	(void)data;
	if (block >= c->t->old_end)
		c->err = stalefs_io_write_back(c->fs->io, block);
	return c->err != 0;
}

static errcode_t write_new_region(stalefs_fs *fs, struct stalefs_txn *t)
{
	struct log_ctx c = { fs, t, NULL, 0 };

	if (fs->geom.blocks_count <= t->old_end)
		return 0;
	stalefs_io_dirty_iterate(fs->io, write_new_block, &c);
	return c.err ? c.err : stalefs_io_sync(fs->io);
}

/* STALEFS_TXN_ATOMIC: the primary superblock into the held cache, to be logged. */
static errcode_t stage_super(stalefs_fs *fs, bool changed)
{
	u32 bs = fs->block_size;
	u64 block = fs->geom.sb_block;
	u8 *buf;
	errcode_t err;

	if (!fs->sb_dirty && !changed)
		return 0;
	fs->sb.s_wtime = cpu_to_le64((u64)time(NULL));
	fs->sb.s_block_group_nr = 0;
	stalefs_super_set_csum(&fs->sb);
	buf = stalefs_xmalloc(bs);
	err = stalefs_io_read(fs->io, block, 1, buf);
	if (!err) {
		memcpy(buf + STALEFS_SUPER_OFFSET % bs, &fs->sb, sizeof(fs->sb));
		err = stalefs_io_write(fs->io, block, 1, buf);
	}
	free(buf);
	if (!err) {
		fs->sb_dirty = false;
		fs->write_backups = false;
		fs->sb_block = 0;
	}
	return err;
}

static int write_in_place(u64 block, const void *data, void *priv)
{
	struct log_ctx *c = priv;

	(void)data;
	if (block != c->fs->geom.sb_block)
		c->err = stalefs_io_write_back(c->fs->io, block);
	return c->err != 0;
}

/* Step 3: the blocks in place; with STALEFS_TXN_ATOMIC the superblock's block after the rest. */
static errcode_t checkpoint(stalefs_fs *fs, struct stalefs_txn *t)
{
	struct log_ctx c = { fs, t, NULL, 0 };

	if (!(t->flags & STALEFS_TXN_ATOMIC))
		return stalefs_io_flush(fs->io);
	stalefs_io_dirty_iterate(fs->io, write_in_place, &c);
	if (!c.err)
		c.err = stalefs_io_sync(fs->io);
	if (!c.err)
		c.err = stalefs_io_write_back(fs->io, fs->geom.sb_block);
	return c.err ? c.err : stalefs_io_sync(fs->io);
}

/* The log is empty again: the next transaction starts at its beginning. */
static errcode_t empty_log(struct stalefs_txn *t)
{
	if (!t->j->jsb.s_start)
		return 0;
	t->j->jsb.s_start = 0;
	t->j->jsb.s_sequence = htobe32(t->j->next_sequence);
	/* This journal's, even if the superblock names another by now (a move). */
	return stalefs_journal_put_super(t->j);
}

errcode_t stalefs_txn_commit(stalefs_fs *fs)
{
	struct stalefs_txn *t = fs->txn;
	bool changed, atomic;
	u32 n;
	errcode_t err;

	if (!t)
		return stalefs_flush(fs);
	if (t->broken)
		return STALEFS_ERR_JOURNAL_ABORTED;
	atomic = t->flags & STALEFS_TXN_ATOMIC;
	err = stalefs_stage_groups(fs, &changed);
	if (!err && atomic)
		err = stage_super(fs, changed);
	if (!err)
		err = write_new_region(fs, t);
	if (err)
		goto broken;
	n = stalefs_io_dirty_count(fs->io);
	if (n) {
		err = write_log(fs, t);
		if (err == STALEFS_ERR_JOURNAL_FULL && !atomic) {
			/* Larger than the log can hold (one operation on an enormous tree): in place,
			 * unjournaled, as a filesystem without a journal writes. */
			t->st.overflows++;
			err = 0;
		} else if (!err) {
			t->st.commits++;
			t->st.blocks_logged += n;
		}
		if (!err)
			err = checkpoint(fs, t);
	}
	if (!err && !atomic)
		err = stalefs_write_super_if_dirty(fs, changed);
	if (!err)
		err = n ? empty_log(t) : stalefs_io_sync(fs->io);
	if (err)
		goto broken;
	stalefs_block_set_clear(&t->fresh);
	stalefs_block_set_clear(&t->busy);
	t->old_end = fs->geom.blocks_count;
	return 0;
broken:
	/* As jbd2 aborts: the device holds a committed state (or one a replay makes whole);
	 * writing on would mix it with what failed.  The cache keeps what could not be written. */
	t->broken = true;
	return err;
}

errcode_t stalefs_txn_stop(stalefs_fs *fs)
{
	errcode_t err;

	if (!fs->txn)
		return 0;
	err = stalefs_txn_commit(fs);
	if (!err) {
		stalefs_txn_free(fs);
		/* The log is empty and everything is in place: nothing to recover. */
		set_recover(fs, false);
		err = write_super_durably(fs);
	}
	return err;
}

void stalefs_txn_abort(stalefs_fs *fs)
{
	if (!fs->txn)
		return;
	/* Unwritten, and unreadable: the committed state is what the device holds. */
	stalefs_io_discard(fs->io);
	stalefs_txn_free(fs);
}

bool stalefs_txn_should_commit(const stalefs_fs *fs)
{
	return fs->txn && stalefs_io_dirty_count(fs->io) >= fs->txn->limit;
}

u64 stalefs_txn_busy_blocks(const stalefs_fs *fs)
{
	return fs->txn ? fs->txn->busy.total : 0;
}

void stalefs_txn_stats(const stalefs_fs *fs, struct stalefs_txn_stats *st)
{
	if (fs->txn)
		*st = fs->txn->st;
	else
		memset(st, 0, sizeof(*st));
}

void stalefs_txn_allocated(stalefs_fs *fs, u64 start, u64 count)
{
	if (fs->txn)
		stalefs_block_set_add(&fs->txn->fresh, start, count);
}

void stalefs_txn_freed(stalefs_fs *fs, u64 start, u64 count)
{
	struct stalefs_txn *t = fs->txn;
	u64 b = start, end = start + count;

	if (!t)
		return;
	/* What a freed block held (a tree node, a directory block) must not be written back. */
	stalefs_io_forget(fs->io, start, count);
	while (b < end) {
		u64 next, run_end, stop;

		if (stalefs_block_set_find(&t->fresh, b, &next, &run_end)) {
			/* Allocated by this transaction: the committed state never had it in use. */
			stop = run_end < end ? run_end : end;
			stalefs_block_set_remove(&t->fresh, b, stop - b, NULL, NULL);
		} else {
			stop = next < end ? next : end;
			stalefs_block_set_add(&t->busy, b, stop - b);
		}
		b = stop;
	}
}

bool stalefs_txn_busy(const stalefs_fs *fs, u64 start, u64 *end)
{
	u64 next, run_end;

	if (!fs->txn || !fs->txn->busy.count) {
		*end = ~0ULL;
		return false;
	}
	if (stalefs_block_set_find(&fs->txn->busy, start, &next, &run_end)) {
		*end = run_end;
		return true;
	}
	*end = next;
	return false;
}
