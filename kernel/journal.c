// SPDX-License-Identifier: GPL-2.0
/*
 * The journal: the kernel's jbd2 on the contiguous run of blocks the
 * superblock records (FORMAT.md section 12), and the helpers through which
 * every metadata change goes (journal.h says how they are used).
 *
 * jbd2 is set up as a "device" journal on the filesystem's own device, its
 * journal block n mapped to filesystem block s_journal_block + n by
 * j_bmap: jbd2's log numbering then starts at 0 as it expects (s_first 1,
 * s_maxlen the journal's length), wherever the run lies.
 *
 * Two rules jbd2 does not keep for us:
 *  - a block freed in a transaction must not be handed out again before
 *    that transaction commits, or a crash could leave it owned by the old
 *    file (whose free did not commit) holding the new owner's data: freed
 *    extents wait in sbi->pending, by tid, until the commit callback;
 *  - a freed metadata block is revoked, so that a replay of an older
 *    transaction never writes old metadata over whatever uses it next.
 */
#include <linux/blkdev.h>
#include <linux/fs_context.h>
#include <linux/jbd2.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include "stalefs.h"
#include "journal.h"
/* format/stalefs_journal.h: the tools' copy of jbd2's format, checked here against jbd2's own. */
#include "core/../stalefs_journal.h"

static_assert(STALEFS_JBD2_MAGIC == JBD2_MAGIC_NUMBER);
static_assert(STALEFS_JBD2_DESCRIPTOR_BLOCK == JBD2_DESCRIPTOR_BLOCK);
static_assert(STALEFS_JBD2_COMMIT_BLOCK == JBD2_COMMIT_BLOCK);
static_assert(STALEFS_JBD2_SUPERBLOCK_V2 == JBD2_SUPERBLOCK_V2);
static_assert(STALEFS_JBD2_REVOKE_BLOCK == JBD2_REVOKE_BLOCK);
static_assert(STALEFS_JBD2_INCOMPAT_REVOKE == JBD2_FEATURE_INCOMPAT_REVOKE);
static_assert(STALEFS_JBD2_INCOMPAT_64BIT == JBD2_FEATURE_INCOMPAT_64BIT);
static_assert(STALEFS_JBD2_INCOMPAT_ASYNC_COMMIT == JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT);
static_assert(STALEFS_JBD2_INCOMPAT_CSUM_V2 == JBD2_FEATURE_INCOMPAT_CSUM_V2);
static_assert(STALEFS_JBD2_INCOMPAT_CSUM_V3 == JBD2_FEATURE_INCOMPAT_CSUM_V3);
static_assert(STALEFS_JBD2_INCOMPAT_FAST_COMMIT == JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
static_assert(STALEFS_JBD2_COMPAT_CHECKSUM == JBD2_FEATURE_COMPAT_CHECKSUM);
static_assert(STALEFS_JBD2_CRC32C_CHKSUM == JBD2_CRC32C_CHKSUM);
static_assert(STALEFS_JBD2_FLAG_ESCAPE == JBD2_FLAG_ESCAPE);
static_assert(STALEFS_JBD2_FLAG_SAME_UUID == JBD2_FLAG_SAME_UUID);
static_assert(STALEFS_JBD2_FLAG_LAST_TAG == JBD2_FLAG_LAST_TAG);
static_assert(STALEFS_JOURNAL_MIN_BLOCKS == JBD2_MIN_JOURNAL_BLOCKS);
static_assert(sizeof(struct stalefs_jbd2_super) == sizeof(journal_superblock_t));
static_assert(offsetof(struct stalefs_jbd2_super, s_checksum) ==
	      offsetof(journal_superblock_t, s_checksum));
static_assert(offsetof(struct stalefs_jbd2_super, s_checksum_type) ==
	      offsetof(journal_superblock_t, s_checksum_type));
static_assert(sizeof(struct stalefs_jbd2_tag3) == sizeof(journal_block_tag3_t));
static_assert(sizeof(struct stalefs_jbd2_commit) == sizeof(struct commit_header));

/* ---- freed, not yet committed ---- */

struct pending_free {
	struct rb_node node;		/* in sbi->pending, by start */
	struct list_head list;		/* in sbi->pending_list */
	u64 start;
	u32 len;
	tid_t tid;			/* the transaction that freed it */
};

static struct kmem_cache *pending_cachep;

/* The extent holding block, or the first one after it (NULL: none). */
static struct pending_free *pending_find(struct stalefs_sb_info *sbi, u64 block)
{
	struct rb_node *n = sbi->pending.rb_node;
	struct pending_free *after = NULL;

	while (n) {
		struct pending_free *p = rb_entry(n, struct pending_free, node);

		if (block < p->start) {
			after = p;
			n = n->rb_left;
		} else if (block >= p->start + p->len) {
			n = n->rb_right;
		} else {
			return p;
		}
	}
	return after;
}

void stalefs_pending_free(struct super_block *sb, u64 start, u32 len)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	handle_t *handle = stalefs_handle(sb);
	struct rb_node **link = &sbi->pending.rb_node, *parent = NULL;
	struct pending_free *p;

	if (!len)
		return;
	/* No journal, no commit to wait for: free now, and discarded now (trim.c). */
	if (!handle) {
		if (!sbi->journal)
			stalefs_discard_now(sb, start, len);
		return;
	}
	/*
	 * GFP_NOFS inside a handle; __GFP_NOFAIL because losing the entry
	 * would let the block be reused before its free commits.
	 */
	p = kmem_cache_alloc(pending_cachep, GFP_NOFS | __GFP_NOFAIL);
	p->start = start;
	p->len = len;
	p->tid = handle->h_transaction->t_tid;
	spin_lock(&sbi->pending_lock);
	while (*link) {
		struct pending_free *q = rb_entry(*link, struct pending_free, node);

		parent = *link;
		link = start < q->start ? &(*link)->rb_left : &(*link)->rb_right;
	}
	rb_link_node(&p->node, parent, link);
	rb_insert_color(&p->node, &sbi->pending);
	list_add_tail(&p->list, &sbi->pending_list);
	sbi->pending_count += len;
	spin_unlock(&sbi->pending_lock);
}

/*
 * For the allocator: if block waits for a commit, the first block past its
 * extent; else 0, with *limit the start of the next waiting extent (so a
 * run found from block stops short of it).
 */
u64 stalefs_pending_skip(struct super_block *sb, u64 block, u64 *limit)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct pending_free *p;
	u64 skip = 0;

	*limit = U64_MAX;
	if (RB_EMPTY_ROOT(&sbi->pending))
		return 0;
	spin_lock(&sbi->pending_lock);
	p = pending_find(sbi, block);
	if (p && p->start <= block)
		skip = p->start + p->len;
	else if (p)
		*limit = p->start;
	spin_unlock(&sbi->pending_lock);
	return skip;
}

/*
 * The commit callback: what transaction txn freed may be used again.  With
 * the discard mount option it is discarded first (trim.c), after the
 * commit and while still held back from the allocator (the entries leave
 * the tree only once the discard is done).
 */
static void journal_commit_callback(journal_t *journal, transaction_t *txn)
{
	struct super_block *sb = journal->j_private;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct pending_free *p, *tmp;
	LIST_HEAD(done);

	spin_lock(&sbi->pending_lock);
	list_for_each_entry_safe(p, tmp, &sbi->pending_list, list)
		if (tid_geq(txn->t_tid, p->tid))
			list_move(&p->list, &done);
	spin_unlock(&sbi->pending_lock);
	if (list_empty(&done))
		return;
	if (READ_ONCE(sbi->discard) && !stalefs_forced_shutdown(sb)) {
		struct stalefs_discard dc;
		int err;

		stalefs_discard_begin(sb, &dc);
		list_for_each_entry(p, &done, list)
			stalefs_discard_add(&dc, p->start, p->len);
		err = stalefs_discard_finish(&dc);
		if (err && err != -EOPNOTSUPP)
			pr_warn_ratelimited("stalefs (%s): discard of freed blocks failed (error %d)\n",
					    sb->s_id, err);
	}
	spin_lock(&sbi->pending_lock);
	list_for_each_entry(p, &done, list) {
		rb_erase(&p->node, &sbi->pending);
		sbi->pending_count -= p->len;
	}
	spin_unlock(&sbi->pending_lock);
	list_for_each_entry_safe(p, tmp, &done, list)
		kmem_cache_free(pending_cachep, p);
}

void stalefs_pending_destroy(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct pending_free *p, *tmp;

	list_for_each_entry_safe(p, tmp, &sbi->pending_list, list)
		kmem_cache_free(pending_cachep, p);
	INIT_LIST_HEAD(&sbi->pending_list);
	sbi->pending = RB_ROOT;
	sbi->pending_count = 0;
}

int stalefs_pending_init_cache(void)
{
	pending_cachep = KMEM_CACHE(pending_free, SLAB_RECLAIM_ACCOUNT);
	return pending_cachep ? 0 : -ENOMEM;
}

void stalefs_pending_destroy_cache(void)
{
	kmem_cache_destroy(pending_cachep);
}

/* ---- loading and unloading ---- */

static int journal_bmap(journal_t *journal, sector_t *block)
{
	struct stalefs_sb_info *sbi = STALEFS_SB((struct super_block *)journal->j_private);

	if (*block >= sbi->journal_blocks)
		return -EUCLEAN;
	*block += sbi->journal_start;
	return 0;
}

static void set_commit_interval(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	journal_t *journal = sbi->journal;

	write_lock(&journal->j_state_lock);
	journal->j_commit_interval = (sbi->commit_interval ? sbi->commit_interval :
				      JBD2_DEFAULT_MAX_COMMIT_AGE) * HZ;
	/* The commit record waits for a cache flush: data before metadata. */
	journal->j_flags |= JBD2_BARRIER;
	write_unlock(&journal->j_state_lock);
}

void stalefs_journal_set_options(struct super_block *sb)
{
	if (STALEFS_SB(sb)->journal)
		set_commit_interval(sb);
}

/*
 * Set up jbd2 on the journal and replay it if the superblock says so.
 * norecovery (only read-only) leaves the journal alone: the filesystem is
 * then seen as it was on disk, committed transactions not applied.
 */
int stalefs_journal_load(struct super_block *sb, struct fs_context *fc, bool ro)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_super_block *raw = sbi->raw;
	bool recover = le32_to_cpu(raw->s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER;
	journal_t *journal;
	int err;

	if (!(le32_to_cpu(raw->s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		return 0;
	/*
	 * The superblock verifier kept the run inside one group's data area;
	 * whether it misses the bitmaps and inode table is checked once the
	 * descriptors are read, after the replay (which may rewrite them).
	 */
	sbi->journal_start = le64_to_cpu(raw->s_journal_block);
	sbi->journal_blocks = le32_to_cpu(raw->s_journal_blocks);
	if (sbi->norecovery) {
		if (!ro) {
			errorf(fc, "stalefs (%s): norecovery needs a read-only mount", sb->s_id);
			return -EINVAL;
		}
		if (recover)
			pr_warn("stalefs (%s): mounted without journal recovery: committed changes are not applied, what is read may be inconsistent\n",
				sb->s_id);
		return 0;
	}
	if (recover && bdev_read_only(sb->s_bdev)) {
		errorf(fc, "stalefs (%s): the journal needs recovery but the device is read-only; mount with -o ro,norecovery to see the filesystem as it is",
		       sb->s_id);
		return -EROFS;
	}
	journal = jbd2_journal_init_dev(sb->s_bdev, sb->s_bdev, sbi->journal_start,
					sbi->journal_blocks, sb->s_blocksize);
	if (!journal) {
		errorf(fc, "stalefs (%s): cannot set up the journal", sb->s_id);
		return -ENOMEM;
	}
	journal->j_private = sb;
	journal->j_bmap = journal_bmap;
	journal->j_commit_callback = journal_commit_callback;
	sbi->journal = journal;
	set_commit_interval(sb);

	if (recover)
		pr_info("stalefs (%s): recovering the journal\n", sb->s_id);
	err = jbd2_journal_load(journal);
	if (err) {
		errorf(fc, "stalefs (%s): cannot load the journal (error %d): run fsck.stalefs",
		       sb->s_id, err);
		goto fail;
	}
	/* What stalefs writes and its tools replay: v3 checksums, 64-bit tags, nothing else. */
	if (!jbd2_has_feature_csum3(journal) || !jbd2_has_feature_64bit(journal) ||
	    jbd2_has_feature_csum2(journal) || jbd2_has_feature_checksum(journal) ||
	    jbd2_has_feature_async_commit(journal) || jbd2_has_feature_fast_commit(journal)) {
		errorf(fc, "stalefs (%s): the journal's features are not the ones stalefs uses (v3 checksums, 64-bit blocks): run fsck.stalefs",
		       sb->s_id);
		err = -EINVAL;
		goto fail;
	}
	err = jbd2_journal_errno(journal);
	if (err) {
		pr_warn("stalefs (%s): the journal was aborted (error %d) when last mounted\n",
			sb->s_id, err);
		if (!ro) {
			stalefs_error(sb, 0, 0, "journal was aborted with error %d", err);
			jbd2_journal_clear_err(journal);
			jbd2_journal_update_sb_errno(journal);
		}
		err = 0;
	}
	if (recover && ro) {
		/* Replayed for a read-only mount: on disk, nothing is left to recover. */
		raw->s_feature_incompat &= cpu_to_le32(~STALEFS_FEATURE_INCOMPAT_RECOVER);
		stalefs_commit_super(sb, true);
	}
	return 0;
fail:
	jbd2_journal_destroy(journal);
	sbi->journal = NULL;
	return err;
}

/*
 * Unmount: checkpoint everything (jbd2_journal_destroy leaves the log
 * empty unless the journal aborted); clean says RECOVER may be cleared.
 */
void stalefs_journal_release(struct super_block *sb, bool clean)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	journal_t *journal = sbi->journal;
	bool aborted;
	int err;

	if (!journal)
		return;
	aborted = is_journal_aborted(journal);
	err = jbd2_journal_destroy(journal);
	sbi->journal = NULL;
	if (err && !aborted)
		pr_err("stalefs (%s): error %d while closing the journal\n", sb->s_id, err);
	if (clean && !aborted && !err)
		sbi->raw->s_feature_incompat &= cpu_to_le32(~STALEFS_FEATURE_INCOMPAT_RECOVER);
	stalefs_pending_destroy(sb);
}

/* Everything committed and written in place: the log is empty (remount ro, freeze). */
int stalefs_journal_flush_all(struct super_block *sb)
{
	journal_t *journal = STALEFS_SB(sb)->journal;
	int err;

	if (!journal)
		return 0;
	jbd2_journal_lock_updates(journal);
	err = jbd2_journal_flush(journal, 0);
	jbd2_journal_unlock_updates(journal);
	return err;
}

/* ---- handles ---- */

int stalefs_credits_clamp(struct super_block *sb, int credits)
{
	journal_t *journal = STALEFS_SB(sb)->journal;

	if (!journal)
		return credits;
	/* Room for the revoke blocks jbd2 adds on top. */
	return min(credits, journal->j_max_transaction_buffers - 8);
}

handle_t *__stalefs_journal_start(struct super_block *sb, int credits, int revokes,
				  const char *func)
{
	journal_t *journal = STALEFS_SB(sb)->journal;
	handle_t *handle;

	if (stalefs_forced_shutdown(sb))
		return ERR_PTR(-EIO);
	if (sb_rdonly(sb))
		return ERR_PTR(-EROFS);
	if (!journal)
		return NULL;
	if (is_journal_aborted(journal)) {
		__stalefs_abort(sb, func, -EROFS, "the journal has aborted");
		return ERR_PTR(-EROFS);
	}
	revokes = min(revokes, (int)journal->j_revoke_records_per_block * 4);
	handle = jbd2__journal_start(journal, stalefs_credits_clamp(sb, credits), 0, revokes,
				     GFP_NOFS, 0, 0);
	if (IS_ERR(handle) && PTR_ERR(handle) != -ENOMEM)
		__stalefs_abort(sb, func, PTR_ERR(handle), "cannot start a transaction");
	return handle;
}

int __stalefs_journal_stop(struct super_block *sb, handle_t *handle, const char *func)
{
	int err;

	if (!handle)
		return 0;
	err = jbd2_journal_stop(handle);
	if (err && !stalefs_forced_shutdown(sb))
		__stalefs_abort(sb, func, err, "transaction failed");
	return err;
}

handle_t *stalefs_handle(struct super_block *sb)
{
	journal_t *journal = STALEFS_SB(sb)->journal;
	handle_t *handle = journal_current_handle();

	if (!journal)
		return NULL;
	/* A metadata change outside a transaction would reach the disk unordered. */
	WARN_ON_ONCE(!handle);
	return handle;
}

int stalefs_get_write_access(struct super_block *sb, struct buffer_head *bh)
{
	handle_t *handle = stalefs_handle(sb);
	int err;

	if (!handle)
		return 0;
	err = jbd2_journal_get_write_access(handle, bh);
	if (err)
		__stalefs_abort(sb, __func__, err, "cannot journal a metadata block");
	return err;
}

/*
 * The buffer was changed: journal it, or (without a journal) let writeback
 * carry it, tied to the inode so that fsync writes it.
 */
int stalefs_dirty_metadata(struct inode *inode, struct super_block *sb, struct buffer_head *bh)
{
	handle_t *handle = stalefs_handle(sb);
	int err;

	if (!handle) {
		if (inode)
			mark_buffer_dirty_inode(bh, inode);
		else
			stalefs_dirty_held(bh);
		return 0;
	}
	err = jbd2_journal_dirty_metadata(handle, bh);
	if (err) {
		__stalefs_abort(sb, __func__, err, "cannot journal a metadata block");
		return err;
	}
	if (inode)
		stalefs_inode_tids(inode, true);
	return 0;
}

/* A metadata block was freed: no replay may write it again, no writeback either. */
int stalefs_forget_metadata(struct super_block *sb, u64 block)
{
	handle_t *handle = stalefs_handle(sb);
	struct buffer_head *bh = sb_find_get_block(sb, block);
	int err;

	if (bh)
		clear_buffer_stalefs_verified(bh);
	if (!handle) {
		if (bh)
			bforget(bh);
		return 0;
	}
	/* jbd2_journal_revoke forgets bh and drops our reference to it. */
	err = jbd2_journal_revoke(handle, block, bh);
	if (err)
		__stalefs_abort(sb, __func__, err, "cannot revoke a freed metadata block");
	return err;
}

/* The running transaction holds a change of the inode (datasync: one fdatasync needs). */
void stalefs_inode_tids(struct inode *inode, bool datasync)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	handle_t *handle = journal_current_handle();
	tid_t tid;

	if (!stalefs_has_journal(inode->i_sb) || !handle)
		return;
	tid = handle->h_transaction->t_tid;
	WRITE_ONCE(ei->i_sync_tid, tid);
	if (datasync)
		WRITE_ONCE(ei->i_datasync_tid, tid);
}

/*
 * An inode just read from disk may have changes in a transaction that has
 * not committed (it was evicted since, or its conversions were saved at
 * eviction): fsync must commit the newest transaction that can hold them,
 * as ext4_iget does.  Left at 0, the tids named a transaction "in the
 * future" for half of the random starting sequences mkfs gives a journal,
 * and fsync then neither committed nor flushed the device's cache.
 */
void stalefs_inode_tids_init(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	journal_t *journal = STALEFS_SB(inode->i_sb)->journal;
	tid_t tid;

	if (!journal)
		return;
	read_lock(&journal->j_state_lock);
	if (journal->j_running_transaction)
		tid = journal->j_running_transaction->t_tid;
	else if (journal->j_committing_transaction)
		tid = journal->j_committing_transaction->t_tid;
	else
		tid = journal->j_commit_sequence;
	read_unlock(&journal->j_state_lock);
	WRITE_ONCE(ei->i_sync_tid, tid);
	WRITE_ONCE(ei->i_datasync_tid, tid);
}

bool stalefs_inode_datasync_dirty(struct inode *inode)
{
	journal_t *journal = STALEFS_SB(inode->i_sb)->journal;

	if (!journal)
		return inode->i_state & I_DIRTY_DATASYNC;
	return !jbd2_transaction_committed(journal, READ_ONCE(STALEFS_I(inode)->i_datasync_tid));
}

/*
 * fsync with a journal: commit the transaction holding the inode's last
 * change, only that one, and only if it has not committed yet.  When it
 * has (data overwritten in place, nothing else), flush the device's cache
 * so the data is durable.
 */
int stalefs_journal_sync_inode(struct inode *inode, int datasync)
{
	struct super_block *sb = inode->i_sb;
	journal_t *journal = STALEFS_SB(sb)->journal;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	tid_t tid = datasync ? READ_ONCE(ei->i_datasync_tid) : READ_ONCE(ei->i_sync_tid);
	bool barrier = (journal->j_flags & JBD2_BARRIER) &&
		       !jbd2_trans_will_send_data_barrier(journal, tid);
	int err;

	err = jbd2_complete_transaction(journal, tid);
	if (!err && barrier)
		err = blkdev_issue_flush(sb->s_bdev);
	if (err && is_journal_aborted(journal))
		__stalefs_abort(sb, __func__, err, "the journal has aborted");
	return err;
}

/* sync(2), syncfs(2), umount: commit whatever is running; wait: for its end. */
int stalefs_journal_sync_fs(struct super_block *sb, int wait)
{
	journal_t *journal = STALEFS_SB(sb)->journal;
	tid_t target = jbd2_get_latest_transaction(journal);
	bool barrier = wait && (journal->j_flags & JBD2_BARRIER) &&
		       !jbd2_trans_will_send_data_barrier(journal, target);
	int err = 0;

	if (jbd2_journal_start_commit(journal, &target) && wait)
		err = jbd2_log_wait_commit(journal, target);
	if (!err && barrier)
		err = blkdev_issue_flush(sb->s_bdev);
	if (err && is_journal_aborted(journal))
		__stalefs_abort(sb, __func__, err, "the journal has aborted");
	return err;
}

void stalefs_journal_abort(struct super_block *sb, int err)
{
	journal_t *journal = STALEFS_SB(sb)->journal;

	if (journal && !is_journal_aborted(journal))
		jbd2_journal_abort(journal, err);
}

/*
 * An allocation found no block free but some freed blocks wait for their
 * commit: commit (the caller holds no handle) and try again, a few times.
 */
bool stalefs_should_retry_alloc(struct super_block *sb, int *retries)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);

	if (!sbi->journal || (*retries)++ >= 3 || !READ_ONCE(sbi->pending_count) ||
	    journal_current_handle())
		return false;
	jbd2_journal_force_commit(sbi->journal);
	return true;
}

/* ---- credits ---- */

/* One extent allocated or freed: the bitmap blocks its bits span and a descriptor block. */
static int extent_credits(struct super_block *sb)
{
	const struct stalefs_geom *g = &STALEFS_SB(sb)->geom;
	u32 span = DIV_ROUND_UP(STALEFS_EXT_MAX_LEN, 8 * g->block_size) + 1;

	return min(span, g->block_bitmap_blocks) + 1;
}

int stalefs_credits_alloc(struct super_block *sb, u32 extents)
{
	const struct stalefs_geom *g = &STALEFS_SB(sb)->geom;
	u64 n = (u64)extents * extent_credits(sb);
	u64 cap = (u64)g->groups_count * g->block_bitmap_blocks + g->gdt_blocks;

	return (int)min_t(u64, min(n, cap), INT_MAX / 4);
}

/*
 * Saving an inode's tree after edits of at most `edits` extents (each
 * conversion may split one in three): the inode, the leaves the edits
 * touch and their splits, every index node (the index is rebuilt), and
 * the node blocks taken and given back.  extent_save.c checks the plan it
 * makes against what the handle holds and extends it if need be.
 */
int stalefs_credits_tree(struct inode *inode, u32 edits)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct super_block *sb = inode->i_sb;
	u32 nodes = READ_ONCE(ei->i_nnodes), leaves = READ_ONCE(ei->i_nleaves);
	u32 index = nodes > leaves ? nodes - leaves : 0;
	u32 depth = STALEFS_EXT_MAX_DEPTH;

	if (!nodes && READ_ONCE(ei->i_map.n) + 2 * edits <= STALEFS_ROOT_EXTENTS)
		return 2;
	/*
	 * Each edit dirties a leaf and may split it; never more than the leaves
	 * there will be.  The inode, and its group's descriptor (the stale count).
	 */
	return 2 + min(2 * (edits + 1), leaves + edits + 1) + index + depth + 1 +
	       stalefs_credits_alloc(sb, edits + 2 + depth) +
	       stalefs_credits_alloc(sb, index + edits + 2);
}

/* Revoke records a tree save may need: every node it may give back. */
int stalefs_revokes_tree(struct inode *inode, u32 edits)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u32 nodes = READ_ONCE(ei->i_nnodes), leaves = READ_ONCE(ei->i_nleaves);

	if (!nodes)
		return 0;
	return (nodes > leaves ? nodes - leaves : 0) + edits + 2 + STALEFS_EXT_MAX_DEPTH;
}

/* ---- shutdown ---- */

/*
 * FS_IOC_GOINGDOWN, as ext4 and XFS have it: from now on nothing is
 * written and every operation fails with EIO; what the disk holds is what
 * a crash at this moment would leave.  DEFAULT freezes first (everything
 * done so far reaches the disk), LOGFLUSH commits the journal first,
 * NOLOGFLUSH stops at once.
 */
int stalefs_shutdown(struct super_block *sb, u32 flags)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	int err;

	if (flags > STALEFS_GOING_FLAGS_NOLOGFLUSH)
		return -EINVAL;
	if (stalefs_forced_shutdown(sb))
		return 0;
	pr_alert("stalefs (%s): shut down requested (%u)\n", sb->s_id, flags);
	switch (flags) {
	case STALEFS_GOING_FLAGS_DEFAULT:
		err = freeze_bdev(sb->s_bdev);
		if (err)
			return err;
		set_bit(STALEFS_FLAG_SHUTDOWN, &sbi->flags);
		thaw_bdev(sb->s_bdev);
		break;
	case STALEFS_GOING_FLAGS_LOGFLUSH:
		if (!sbi->journal) {
			set_bit(STALEFS_FLAG_SHUTDOWN, &sbi->flags);
			break;
		}
		/*
		 * Everything done so far into the log, conversions waiting in
		 * memory included (XFS logs those at I/O completion), then the
		 * last commit with no handle running: no buffer of it can be
		 * changed while it is written, so the abort finds no frozen copy
		 * to throw away (jbd2 warns "freeing b_frozen_data" when it must).
		 */
		stalefs_save_all_pending(sb);
		jbd2_journal_lock_updates(sbi->journal);
		jbd2_journal_force_commit(sbi->journal);
		set_bit(STALEFS_FLAG_SHUTDOWN, &sbi->flags);
		stalefs_journal_abort(sb, -ESHUTDOWN);
		jbd2_journal_unlock_updates(sbi->journal);
		return 0;
	default:
		/*
		 * At once: a commit being written is cut short, and jbd2 may
		 * warn that it frees the frozen copy of a buffer changed
		 * meanwhile (journal_release_journal_head), as on ext4.
		 */
		set_bit(STALEFS_FLAG_SHUTDOWN, &sbi->flags);
		break;
	}
	stalefs_journal_abort(sb, -ESHUTDOWN);
	return 0;
}
