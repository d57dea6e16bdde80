/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The journal: the kernel's jbd2 on the run of blocks the superblock names
 * (FORMAT.md section 12), and the helpers every metadata change goes through.
 *
 * Every change to a descriptor, bitmap, inode table block, extent tree node,
 * directory block or symlink block happens inside a handle: get access to
 * the buffer, change it under lock_buffer, dirty it.  The handle of the
 * current task is implicit (jbd2 keeps it in current->journal_info, as it
 * nests handles); without a journal (-O ^has_journal) the handle is NULL
 * and the helpers fall back to dirtying buffers for writeback, as stalefs
 * did before it had a journal.
 *
 * Lock order: i_rwsem, invalidate_lock, (handle start), i_map_sem,
 * alloc_lock, buffer locks.  A handle is never started while holding
 * i_map_sem or alloc_lock (starting may wait for a commit, and a commit
 * waits for every handle of its transaction to stop).
 */
#ifndef STALEFS_KERNEL_JOURNAL_H
#define STALEFS_KERNEL_JOURNAL_H

#include <linux/jbd2.h>
#include "stalefs.h"

/* What a handle may do in one transaction, so that credits stay bounded. */
#define STALEFS_EDIT_EXTENTS	8	/* extents one edit (convert, remove) touches */
#define STALEFS_ALLOC_EXTENTS	4	/* extents one allocation call may add */
#define STALEFS_REVOKE_BLOCKS	256	/* metadata blocks one removal may free */

static inline bool stalefs_has_journal(struct super_block *sb)
{
	return STALEFS_SB(sb)->journal != NULL;
}

/* journal.c */
int stalefs_journal_load(struct super_block *sb, struct fs_context *fc, bool ro);
void stalefs_journal_release(struct super_block *sb, bool clean);
int stalefs_journal_flush_all(struct super_block *sb);
handle_t *__stalefs_journal_start(struct super_block *sb, int credits, int revokes,
				  const char *func);
#define stalefs_journal_start(sb, credits, revokes) \
	__stalefs_journal_start(sb, credits, revokes, __func__)
int __stalefs_journal_stop(struct super_block *sb, handle_t *handle, const char *func);
#define stalefs_journal_stop(sb, handle) __stalefs_journal_stop(sb, handle, __func__)
/* The handle in force: jbd2's nested handle, or NULL without a journal. */
handle_t *stalefs_handle(struct super_block *sb);
int stalefs_get_write_access(struct super_block *sb, struct buffer_head *bh);
int stalefs_dirty_metadata(struct inode *inode, struct super_block *sb, struct buffer_head *bh);
int stalefs_forget_metadata(struct super_block *sb, u64 block);
void stalefs_inode_tids(struct inode *inode, bool datasync);
void stalefs_inode_tids_init(struct inode *inode);
bool stalefs_inode_datasync_dirty(struct inode *inode);
int stalefs_journal_sync_inode(struct inode *inode, int datasync);
int stalefs_journal_sync_fs(struct super_block *sb, int wait);
void stalefs_journal_abort(struct super_block *sb, int err);
bool stalefs_should_retry_alloc(struct super_block *sb, int *retries);

/* Credits: how many distinct buffers an operation may dirty. */
int stalefs_credits_alloc(struct super_block *sb, u32 extents);
int stalefs_credits_tree(struct inode *inode, u32 edits);
int stalefs_revokes_tree(struct inode *inode, u32 edits);
int stalefs_credits_clamp(struct super_block *sb, int credits);

/* Blocks freed in a transaction that has not committed yet: not for reuse. */
void stalefs_pending_free(struct super_block *sb, u64 start, u32 len);
u64 stalefs_pending_skip(struct super_block *sb, u64 block, u64 *limit);
void stalefs_pending_destroy(struct super_block *sb);

/* Shutdown (FS_IOC_GOINGDOWN). */
static inline bool stalefs_forced_shutdown(struct super_block *sb)
{
	return test_bit(STALEFS_FLAG_SHUTDOWN, &STALEFS_SB(sb)->flags);
}
int stalefs_shutdown(struct super_block *sb, u32 flags);

#endif /* STALEFS_KERNEL_JOURNAL_H */
