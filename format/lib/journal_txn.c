// SPDX-License-Identifier: GPL-2.0
/*
 * Transactions for offline tools: a change of many metadata blocks that a
 * kill or a power cut at any moment leaves either not done or done, as the
 * kernel's jbd2 makes them (resize.stalefs moves blocks and inodes and
 * changes the filesystem's size this way).
 *
 * Between stalefs_txn_begin and stalefs_txn_commit the I/O layer holds
 * every metadata write in memory (stalefs_io_hold).  The commit then
 *
 *  1. writes in place, and syncs, the held blocks past the size the
 *     filesystem had at begin (a grow's new groups: nothing committed
 *     refers to them), and syncs the data written straight to free blocks;
 *  2. logs the rest as one jbd2 transaction in the filesystem's journal,
 *     the commit block written only once the others are durable;
 *  3. writes the blocks in place, the superblock's block last (it may name
 *     another journal: until it is written, a replay must still find this
 *     one), and syncs;
 *  4. empties the log (s_start 0, the next sequence), so that a later
 *     transaction, or the kernel, starts afresh.
 *
 * A crash before 2 completes leaves the old state (the log holds no commit);
 * after it, recovery (mount, fsck, or the tools' stalefs_journal_recover)
 * replays the transaction.  RECOVER is set on disk at the first begin and
 * cleared by stalefs_txn_finish.  Data written with stalefs_io_write_data
 * must go to blocks free in the committed state, and blocks a transaction
 * frees must not be written before it commits: the caller's rules.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

struct stalefs_txn {
	stalefs_fs *fs;
	struct stalefs_journal *j;
	u64 old_end;		/* blocks_count at begin */
	struct stalefs_jtrans *t;
	errcode_t err;		/* the first failure while logging */
};

errcode_t stalefs_txn_begin(stalefs_fs *fs, struct stalefs_txn **ret)
{
	struct stalefs_txn *x;
	errcode_t err;

	if (!stalefs_fs_rw(fs) || stalefs_io_is_overlay(fs->io))
		return STALEFS_ERR_RO_FILSYS;
	if (!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		return STALEFS_ERR_NO_JOURNAL;
	/* What came before is on disk first: nothing unlogged may ride along with the transaction. */
	fs->write_backups = false;
	err = stalefs_flush(fs);
	if (err)
		return err;
	x = stalefs_xcalloc(1, sizeof(*x));
	x->fs = fs;
	err = stalefs_journal_open(fs, 0, &x->j);
	if (!err && x->j->jsb.s_start)
		err = STALEFS_ERR_NEEDS_RECOVERY;
	/* From now on a tool that opens the filesystem must replay (as the kernel sets it at mount). */
	if (!err && !(le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER)) {
		fs->sb.s_feature_incompat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_incompat) |
							STALEFS_FEATURE_INCOMPAT_RECOVER);
		stalefs_mark_super_dirty(fs);
		err = stalefs_flush(fs);
	}
	if (err) {
		if (x->j)
			stalefs_journal_close(x->j);
		free(x);
		return err;
	}
	x->old_end = fs->geom.blocks_count;
	stalefs_io_hold(fs->io, true);
	fs->txn_track = true;
	stalefs_txn_frees_reset(fs);
	*ret = x;
	return 0;
}

/* Step 1: held blocks past the old end go to their place now. */
static errcode_t write_new_region(u64 block, const void *data, void *priv)
{
	struct stalefs_txn *x = priv;

	(void)data;
	return block >= x->old_end ? stalefs_io_write_back(x->fs->io, block) : 0;
}

static errcode_t add_block(u64 block, const void *data, void *priv)
{
	struct stalefs_txn *x = priv;
	u64 js = x->j->fs_start;

	if (block >= js && block - js < x->j->maxlen)
		return STALEFS_ERR_BAD_BLOCK_NUM;	/* never: the journal is not the tools' metadata */
	return stalefs_jtrans_add_block(x->t, block, data);
}

static errcode_t write_in_place(u64 block, const void *data, void *priv)
{
	struct stalefs_txn *x = priv;

	(void)data;
	return block == x->fs->geom.sb_block ? 0 : stalefs_io_write_back(x->fs->io, block);
}

/* A quarter of a log of len blocks, as jbd2 bounds a transaction, less the descriptors' share. */
static u32 room_of(u32 len)
{
	return len / 4 > 64 ? len / 4 - len / 64 : 0;
}

u32 stalefs_txn_room(const stalefs_fs *fs)
{
	return room_of(le32_to_cpu(fs->sb.s_journal_blocks));
}

errcode_t stalefs_txn_commit(struct stalefs_txn *x)
{
	stalefs_fs *fs = x->fs;
	struct stalefs_journal *j = x->j;
	errcode_t err;

	/* Every change as a block: bitmaps, descriptors, the superblock (held). */
	err = stalefs_flush(fs);
	if (!err)
		err = stalefs_io_held_each(fs->io, write_new_region, x);
	if (!err)
		err = stalefs_io_sync(fs->io);
	if (!err)
		err = stalefs_jtrans_begin(j, &x->t);
	if (!err) {
		err = stalefs_io_held_each(fs->io, add_block, x);
		/* The journal it is logged in: the superblock may name another by now (a move). */
		if (!err && stalefs_jtrans_blocks(x->t) > room_of(j->maxlen))
			err = STALEFS_ERR_JOURNAL_FULL;
		if (err)
			stalefs_jtrans_abort(x->t);
		else
			err = stalefs_jtrans_commit(x->t, STALEFS_JTRANS_SYNC);
		x->t = NULL;
	}
	if (err)
		goto fail;
	/* Committed: the blocks to their places, the superblock's last. */
	stalefs_io_hold(fs->io, false);
	err = stalefs_io_held_each(fs->io, write_in_place, x);
	if (!err)
		err = stalefs_io_sync(fs->io);
	if (!err)
		err = stalefs_io_write_back(fs->io, fs->geom.sb_block);
	if (!err)
		err = stalefs_io_sync(fs->io);
	if (!err) {
		j->jsb.s_start = 0;
		j->jsb.s_sequence = htobe32(j->next_sequence);
		err = stalefs_journal_put_super(j);	/* this journal's, even if the superblock names another now */
	}
	if (!err)
		err = stalefs_io_sync(fs->io);
	if (err)
		goto fail;
	j->head = j->first;
	stalefs_txn_frees_reset(fs);
	stalefs_io_hold(fs->io, true);
	return 0;
fail:
	/* Whatever is held stays unwritten: the old state (or the logged one, at replay). */
	stalefs_io_hold(fs->io, false);
	stalefs_io_discard(fs->io);
	return err;
}

errcode_t stalefs_txn_finish(struct stalefs_txn *x)
{
	stalefs_fs *fs = x->fs;
	errcode_t err = stalefs_txn_commit(x);

	stalefs_io_hold(fs->io, false);
	fs->txn_track = false;
	stalefs_journal_close(x->j);
	free(x);
	if (err)
		return err;
	/* The log is empty: nothing to replay any more. */
	stalefs_journal_clear_recover(fs);
	return stalefs_flush(fs);
}

void stalefs_txn_abort(struct stalefs_txn *x)
{
	if (!x)
		return;
	stalefs_io_hold(x->fs->io, false);
	stalefs_io_discard(x->fs->io);
	x->fs->txn_track = false;
	stalefs_journal_close(x->j);
	free(x);
}
