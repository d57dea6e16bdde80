// SPDX-License-Identifier: GPL-2.0
/*
 * The iomap glue: mapping file ranges to blocks, writeback, and the
 * unwritten conversion that makes the data path crash-safe.
 *
 * New blocks are always allocated UNWRITTEN (at write_begin time for
 * buffered writes, in iomap_begin for direct I/O and page faults) and are
 * converted to written only after the data I/O has completed: writeback
 * ioends of type UNWRITTEN are completed in a workqueue, merged with their
 * neighbours, converted in one extent edit and only then is the page
 * writeback ended.  A crash at any point leaves blocks that read as zeros,
 * never a previous owner's data.
 *
 * With a journal the conversion is an edit of the in-memory extent map at
 * completion, no transaction and no I/O on the writer's path; the edits
 * are saved into the journal in batches by a worker (a second later, or at
 * once when STALEFS_SAVE_BATCH have piled up), by fsync, sync and eviction,
 * and by the converting task itself only past STALEFS_SAVE_LIMIT.
 * Since the edit is made only after the data write completed, and jbd2
 * flushes the device's cache before a commit record, no committed state
 * ever calls a block written before its data is durable.
 *
 * A per-inode sequence number (i_map_seq), bumped on every mapping change,
 * is the validity cookie: iomap revalidates a cached mapping with it
 * (->iomap_valid in 6.1's iomap_page_ops) and writeback's map_blocks reuses
 * its cached mapping only while it matches.
 */
#include <linux/sched/mm.h>
#include <linux/bio.h>
#include <linux/writeback.h>
#include "stalefs.h"
#include "journal.h"

/*
 * Converted extents piled up in memory past STALEFS_SAVE_BATCH wake the
 * worker at once; past STALEFS_SAVE_LIMIT the converting task saves them
 * itself, so a writer that outruns the worker is held back, and what one
 * save must journal stays bounded.  A save rewrites every leaf an edit
 * touched and holds the map's lock meanwhile: random writes over a file
 * of ~100 leaves touch ~64 leaves in 64 edits but ~92 in 256, so the
 * larger batch costs the writer a third of the stalls (bench/vm/ab.sh:
 * O_DIRECT into unwritten went from 0.88x to 0.96x of overwrite).
 */
#define STALEFS_SAVE_BATCH	256
#define STALEFS_SAVE_LIMIT	512

static bool stalefs_iomap_valid(struct inode *inode, const struct iomap *iomap)
{
	return iomap->validity_cookie == READ_ONCE(STALEFS_I(inode)->i_map_seq);
}

static const struct iomap_page_ops stalefs_page_ops = {
	.iomap_valid = stalefs_iomap_valid,
};

static void fill_iomap(struct inode *inode, struct iomap *iomap, u64 lblk, u64 maxlen,
		       bool found, const struct stalefs_ext *ex)
{
	unsigned int bits = inode->i_sb->s_blocksize_bits;

	iomap->bdev = inode->i_sb->s_bdev;
	iomap->offset = (loff_t)lblk << bits;
	iomap->flags = 0;
	iomap->validity_cookie = STALEFS_I(inode)->i_map_seq;
	iomap->page_ops = &stalefs_page_ops;
	if (found) {
		u64 off = lblk - ex->lblk;

		iomap->addr = (ex->pblk + off) << bits;
		iomap->length = (u64)(ex->len - off) << bits;
		/* STALE extents read what the disk holds: plain mapped blocks. */
		iomap->type = (ex->flags & STALEFS_EXT_UNWRITTEN) ? IOMAP_UNWRITTEN : IOMAP_MAPPED;
	} else {
		u64 len = ex->len ? ex->len : maxlen;

		iomap->addr = IOMAP_NULL_ADDR;
		iomap->length = max_t(u64, len, 1) << bits;
		iomap->type = IOMAP_HOLE;
	}
}

/*
 * A write into a hole: new blocks, UNWRITTEN until the data is on disk, in
 * a transaction of their own (the write never waits for its commit).  When
 * the only free blocks are ones waiting for a commit, commit and retry.
 */
static int alloc_begin(struct inode *inode, u64 lblk, u64 maxlen, struct iomap *iomap)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct stalefs_ext ex;
	int found, err, retries = 0, credits;
	handle_t *handle;

retry:
	down_read(&ei->i_map_sem);
	credits = stalefs_credits_alloc(sb, STALEFS_ALLOC_EXTENTS) +
		  stalefs_credits_tree(inode, STALEFS_ALLOC_EXTENTS) + 1;
	up_read(&ei->i_map_sem);
	handle = stalefs_journal_start(sb, credits, stalefs_revokes_tree(inode, STALEFS_ALLOC_EXTENTS));
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	down_write(&ei->i_map_sem);
	err = 0;
	found = stalefs_ext_lookup(inode, (u32)lblk, &ex);
	if (!found) {
		u64 want = ex.len ? min_t(u64, ex.len, maxlen) : maxlen;

		err = stalefs_ext_alloc_range(inode, (u32)lblk, (u32)min_t(u64, want,
					      STALEFS_EXT_MAX_LEN), STALEFS_EXT_UNWRITTEN, NULL);
		if (!err) {
			found = stalefs_ext_lookup(inode, (u32)lblk, &ex);
			if (!found)
				err = -ENOSPC;
		}
	}
	if (!err) {
		fill_iomap(inode, iomap, lblk, maxlen, found, &ex);
		/* Unwritten blocks need a metadata update before O_DSYNC is done. */
		if (iomap->type == IOMAP_UNWRITTEN || stalefs_inode_datasync_dirty(inode))
			iomap->flags |= IOMAP_F_DIRTY;
	}
	up_write(&ei->i_map_sem);
	stalefs_journal_stop(sb, handle);
	if (err == -ENOSPC && stalefs_should_retry_alloc(sb, &retries))
		goto retry;
	return err;
}

static int stalefs_iomap_begin(struct inode *inode, loff_t pos, loff_t length,
			       unsigned int flags, struct iomap *iomap, struct iomap *srcmap)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	u64 lblk = pos >> bits;
	u64 end = DIV_ROUND_UP_ULL(pos + length, 1ULL << bits);
	bool alloc = flags & IOMAP_WRITE;
	struct stalefs_ext ex;
	int found;
	u64 maxlen;

	if (lblk >= STALEFS_MAX_FILE_BLOCKS) {
		if (alloc)
			return -EFBIG;
		ex.len = 0;
		fill_iomap(inode, iomap, lblk, max_t(u64, end - lblk, 1), false, &ex);
		return 0;
	}
	end = min_t(u64, max(end, lblk + 1), STALEFS_MAX_FILE_BLOCKS);
	maxlen = end - lblk;

	if (flags & IOMAP_NOWAIT) {
		if (!down_read_trylock(&ei->i_map_sem))
			return -EAGAIN;
		found = stalefs_ext_lookup(inode, (u32)lblk, &ex);
		if (!found && alloc) {
			up_read(&ei->i_map_sem);
			return -EAGAIN;
		}
		fill_iomap(inode, iomap, lblk, maxlen, found, &ex);
		up_read(&ei->i_map_sem);
		return 0;
	}
	if (!alloc) {
		down_read(&ei->i_map_sem);
		found = stalefs_ext_lookup(inode, (u32)lblk, &ex);
		fill_iomap(inode, iomap, lblk, maxlen, found, &ex);
		up_read(&ei->i_map_sem);
		return 0;
	}

	if (stalefs_forced_shutdown(inode->i_sb))
		return -EIO;
	/* A mapped block needs no transaction: look before starting one. */
	down_read(&ei->i_map_sem);
	found = stalefs_ext_lookup(inode, (u32)lblk, &ex);
	if (found) {
		fill_iomap(inode, iomap, lblk, maxlen, found, &ex);
		if (iomap->type == IOMAP_UNWRITTEN || stalefs_inode_datasync_dirty(inode))
			iomap->flags |= IOMAP_F_DIRTY;
		up_read(&ei->i_map_sem);
		return 0;
	}
	up_read(&ei->i_map_sem);
	return alloc_begin(inode, lblk, maxlen, iomap);
}

const struct iomap_ops stalefs_iomap_ops = {
	.iomap_begin = stalefs_iomap_begin,
};

/* ---- converted extents waiting to be saved (journal mode) ---- */

static void save_enlist(struct inode *inode, bool now)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(inode->i_sb);
	struct stalefs_inode_info *ei = STALEFS_I(inode);

	spin_lock(&sbi->save_lock);
	if (list_empty(&ei->i_save_node))
		list_add_tail(&ei->i_save_node, &sbi->save_list);
	spin_unlock(&sbi->save_lock);
	/* Within a second: a crash before it shows zeros, never old data. */
	if (now)
		mod_delayed_work(system_unbound_wq, &sbi->save_work, 0);
	else
		queue_delayed_work(system_unbound_wq, &sbi->save_work, HZ);
}

void stalefs_save_forget(struct inode *inode)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(inode->i_sb);
	struct stalefs_inode_info *ei = STALEFS_I(inode);

	spin_lock(&sbi->save_lock);
	list_del_init(&ei->i_save_node);
	spin_unlock(&sbi->save_lock);
}

/* Save what conversions left in memory, in a transaction of its own. */
int stalefs_save_pending(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	handle_t *handle;
	u32 edits;
	int err = 0;

	if (!READ_ONCE(ei->i_save_pending))
		return 0;
	down_read(&ei->i_map_sem);
	edits = ei->i_pending_edits;
	up_read(&ei->i_map_sem);
	handle = stalefs_journal_start(sb, stalefs_credits_tree(inode, edits),
				       stalefs_revokes_tree(inode, edits));
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	down_write(&ei->i_map_sem);
	if (ei->i_save_pending) {
		/* A leaf split may need a node block: conversion may use the reserve. */
		ei->i_converting = true;
		err = stalefs_ext_save(inode);
		ei->i_converting = false;
	}
	up_write(&ei->i_map_sem);
	stalefs_journal_stop(sb, handle);
	if (err) {
		/*
		 * After a shutdown nothing may be written: the conversions are
		 * lost as a crash would lose them (the blocks read as zeros),
		 * which is no damage to report.
		 */
		if (!stalefs_forced_shutdown(sb))
			stalefs_error(sb, inode->i_ino, 0, "cannot save converted extents: error %d", err);
		mapping_set_error(inode->i_mapping, err);
	}
	return err;
}

/* Every inode's conversions into the journal (sync_fs, and the worker). */
int stalefs_save_all_pending(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	int err = 0;

	for (;;) {
		struct stalefs_inode_info *ei;
		struct inode *inode = NULL;

		spin_lock(&sbi->save_lock);
		while ((ei = list_first_entry_or_null(&sbi->save_list, struct stalefs_inode_info,
						      i_save_node))) {
			list_del_init(&ei->i_save_node);
			/* An inode being evicted saves its own (stalefs_sb_evict_inode). */
			inode = igrab(&ei->vfs_inode);
			if (inode)
				break;
		}
		spin_unlock(&sbi->save_lock);
		if (!inode)
			return err;
		if (!err)
			err = stalefs_save_pending(inode);
		else
			stalefs_save_pending(inode);
		iput(inode);
	}
}

void stalefs_save_work(struct work_struct *work)
{
	struct stalefs_sb_info *sbi = container_of(to_delayed_work(work), struct stalefs_sb_info,
						   save_work);
	struct super_block *sb = sbi->sb;

	/* Frozen: the freeze saved everything; what came later waits for the thaw. */
	if (!sb_start_intwrite_trylock(sb)) {
		queue_delayed_work(system_unbound_wq, &sbi->save_work, HZ);
		return;
	}
	stalefs_save_all_pending(sb);
	sb_end_intwrite(sb);
}

/*
 * Mark [pos, pos+len) written: called once its data is on disk.  With a
 * journal, in memory (saved later, above); without one, saved at once, as
 * before stalefs had a journal.
 */
int stalefs_convert_unwritten(struct inode *inode, loff_t pos, loff_t len)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	unsigned int bits = sb->s_blocksize_bits;
	u64 first = pos >> bits, next;
	u64 last = DIV_ROUND_UP_ULL(pos + len, 1ULL << bits);
	bool journal = stalefs_has_journal(sb), batch = false, limit = false;
	unsigned int nofs;
	int err = 0;

	if (len <= 0 || first >= STALEFS_MAX_FILE_BLOCKS)
		return 0;
	if (stalefs_forced_shutdown(sb))
		return -EIO;
	last = min_t(u64, last, STALEFS_MAX_FILE_BLOCKS);
	nofs = memalloc_nofs_save();
	while (first < last && !err) {
		down_write(&ei->i_map_sem);
		if (journal) {
			int n = stalefs_ext_convert_mem(inode, (u32)first, (u32)(last - first),
							STALEFS_EXT_UNWRITTEN, 0, &next);

			err = min(n, 0);
			if (n > 0) {
				ei->i_save_pending = true;
				ei->i_pending_edits += n;
				batch = ei->i_pending_edits >= STALEFS_SAVE_BATCH;
				limit = ei->i_pending_edits >= STALEFS_SAVE_LIMIT;
			}
		} else {
			ei->i_converting = true;
			err = stalefs_ext_convert(inode, (u32)first, (u32)(last - first),
						  STALEFS_EXT_UNWRITTEN, 0, &next);
			ei->i_converting = false;
		}
		up_write(&ei->i_map_sem);
		first = next;
	}
	if (!err && journal) {
		save_enlist(inode, batch);
		if (limit)
			err = stalefs_save_pending(inode);
	} else if (!err) {
		err = stalefs_update_inode(inode);
	}
	memalloc_nofs_restore(nofs);
	if (err && !stalefs_forced_shutdown(sb))
		stalefs_error(sb, inode->i_ino, 0,
			      "cannot convert unwritten extent at block %llu: error %d",
			      first, err);
	return err;
}

/* ---- buffered writeback ---- */

static int stalefs_map_blocks(struct iomap_writepage_ctx *wpc, struct inode *inode,
			      loff_t offset)
{
	if (offset >= wpc->iomap.offset &&
	    offset < wpc->iomap.offset + (loff_t)wpc->iomap.length &&
	    stalefs_iomap_valid(inode, &wpc->iomap))
		return 0;
	return stalefs_iomap_begin(inode, offset, inode->i_sb->s_blocksize, 0,
				   &wpc->iomap, NULL);
}

static void stalefs_end_bio(struct bio *bio)
{
	struct iomap_ioend *ioend = bio->bi_private;
	struct inode *inode = ioend->io_inode;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	unsigned long flags;

	/* Bio completion may be in interrupt context: convert in a worker. */
	spin_lock_irqsave(&ei->i_ioend_lock, flags);
	if (list_empty(&ei->i_ioend_list))
		queue_work(STALEFS_SB(inode->i_sb)->conv_wq, &ei->i_ioend_work);
	list_add_tail(&ioend->io_list, &ei->i_ioend_list);
	spin_unlock_irqrestore(&ei->i_ioend_lock, flags);
}

void stalefs_ioend_work(struct work_struct *work)
{
	struct stalefs_inode_info *ei = container_of(work, struct stalefs_inode_info,
						     i_ioend_work);
	struct iomap_ioend *ioend;
	struct list_head list;
	unsigned long flags;

	INIT_LIST_HEAD(&list);
	spin_lock_irqsave(&ei->i_ioend_lock, flags);
	list_replace_init(&ei->i_ioend_list, &list);
	spin_unlock_irqrestore(&ei->i_ioend_lock, flags);

	/* Sorted and merged: one extent edit per contiguous run of ioends. */
	iomap_sort_ioends(&list);
	while ((ioend = list_first_entry_or_null(&list, struct iomap_ioend, io_list))) {
		int error;

		list_del_init(&ioend->io_list);
		iomap_ioend_try_merge(ioend, &list);
		error = blk_status_to_errno(ioend->io_bio->bi_status);
		if (!error)
			error = stalefs_convert_unwritten(ioend->io_inode, ioend->io_offset,
							  ioend->io_size);
		iomap_finish_ioends(ioend, error);
	}
}

static int stalefs_prepare_ioend(struct iomap_ioend *ioend, int status)
{
	if (!status && ioend->io_type == IOMAP_UNWRITTEN)
		ioend->io_bio->bi_end_io = stalefs_end_bio;
	return status;
}

const struct iomap_writeback_ops stalefs_writeback_ops = {
	.map_blocks = stalefs_map_blocks,
	.prepare_ioend = stalefs_prepare_ioend,
};

/* ---- direct I/O completion ---- */

static int stalefs_dio_end_io(struct kiocb *iocb, ssize_t size, int error, unsigned int flags)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	loff_t pos = iocb->ki_pos;
	int err;

	if (error)
		return error;
	if (size <= 0)
		return 0;
	if (flags & IOMAP_DIO_UNWRITTEN) {
		err = stalefs_convert_unwritten(inode, pos, size);
		if (err)
			return err;
	}
	/* Writes run with i_rwsem held and wait for completion: size is ours. */
	if (pos + size > i_size_read(inode)) {
		i_size_write(inode, pos + size);
		mark_inode_dirty(inode);
	}
	return 0;
}

const struct iomap_dio_ops stalefs_dio_ops = {
	.end_io = stalefs_dio_end_io,
};
