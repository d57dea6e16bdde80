// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation windows: a file that grows past STALEFS_WINDOW_MIN_FILE keeps,
 * in memory, a window of the blocks just past its last allocation, and
 * every other file's allocation steps around it.  Writers working side by
 * side in one directory (one goal group) then each grow one long extent
 * instead of interleaving their write-sized pieces: four fio writers of
 * 64 MiB in 1 MiB writes made ~60 extents per file without windows, where
 * ext4 (delayed allocation and mballoc's per-inode preallocation) made ~6
 * (bench/vm/ab.sh, case conc).  ext2/3's reservation windows are the same
 * idea.
 *
 * Nothing of this is on disk: a crash leaves no window behind, and fsck
 * has nothing to check.  A window is a preference, never a claim: when no
 * free block lies outside every other window, the allocator takes one from
 * a window (stalefs_new_blocks' second pass), so no write ever fails with
 * ENOSPC because of a window.  Small files never get one, so an untar of
 * many small files packs them as before; a window goes when its file is
 * closed by its last writer or evicted.
 *
 * Windows never overlap, and live in one tree by start block; all of it
 * under sbi->alloc_lock, which every allocation holds.
 */
#include "stalefs.h"

/* Files this large (bytes of logical range allocated) get a window. */
#define STALEFS_WINDOW_MIN_FILE	(1ULL << 20)
/*
 * A window spans the file's size so far, at least WINDOW_MIN and at most
 * WINDOW_MAX bytes (and never past its group's end): growing with the file
 * halves the number of pieces at each doubling, as XFS's speculative
 * preallocation does, without the blocks past EOF that it leaves on disk.
 */
#define STALEFS_WINDOW_MIN	(8ULL << 20)
#define STALEFS_WINDOW_MAX	(128ULL << 20)

static struct stalefs_window *window_at_or_after(struct stalefs_sb_info *sbi, u64 block,
						 struct stalefs_window **covering)
{
	struct rb_node *n = sbi->windows.rb_node;
	struct stalefs_window *after = NULL;

	*covering = NULL;
	while (n) {
		struct stalefs_window *w = rb_entry(n, struct stalefs_window, node);

		if (block < w->start) {
			after = w;
			n = n->rb_left;
		} else if (block >= w->end) {
			n = n->rb_right;
		} else {
			*covering = w;
			return NULL;
		}
	}
	return after;
}

/*
 * Block 'block' lies in another inode's window: return the window's end.
 * Otherwise return 0 and lower *limit to the start of the next window
 * (not the owner's) after it.
 */
u64 stalefs_window_skip(struct inode *owner, u64 block, u64 *limit)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(owner->i_sb);
	struct stalefs_window *mine = &STALEFS_I(owner)->i_window, *cover, *next;

	lockdep_assert_held(&sbi->alloc_lock);
	if (RB_EMPTY_ROOT(&sbi->windows))
		return 0;
	next = window_at_or_after(sbi, block, &cover);
	if (cover && cover != mine)
		return cover->end;
	if (cover)	/* our own: the next one is after it */
		next = window_at_or_after(sbi, cover->end, &cover);
	if (next == mine)
		next = window_at_or_after(sbi, mine->end, &cover);
	if (next && next->start < *limit)
		*limit = next->start;
	return 0;
}

static void window_remove(struct stalefs_sb_info *sbi, struct stalefs_window *w)
{
	if (!RB_EMPTY_NODE(&w->node)) {
		rb_erase(&w->node, &sbi->windows);
		RB_CLEAR_NODE(&w->node);
	}
}

/*
 * The owner was just given [pblk, pblk+got) for logical blocks ending at
 * lblk_end; 'limit' is the first block the allocator could not have run
 * into (another window, a busy range, the group's end).  Move the owner's
 * window to just past the new blocks, or drop it for a small file.
 */
void stalefs_window_moved(struct inode *owner, u64 lblk_end, u64 pblk, u32 got, u64 limit)
{
	struct super_block *sb = owner->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_window *w = &STALEFS_I(owner)->i_window, *cover, *next;
	struct rb_node **p, *parent = NULL;
	u64 size = lblk_end << sb->s_blocksize_bits, span;

	lockdep_assert_held(&sbi->alloc_lock);
	window_remove(sbi, w);
	if (!S_ISREG(owner->i_mode) || size < STALEFS_WINDOW_MIN_FILE)
		return;
	span = clamp(size, STALEFS_WINDOW_MIN, STALEFS_WINDOW_MAX) >> sb->s_blocksize_bits;
	w->start = pblk + got;
	w->end = min(w->start + span, limit);
	/* Stop short of the next window; a start inside one means none fits. */
	next = window_at_or_after(sbi, w->start, &cover);
	if (cover)
		return;
	if (next && next->start < w->end)
		w->end = next->start;
	if (w->end <= w->start)
		return;
	p = &sbi->windows.rb_node;
	while (*p) {
		parent = *p;
		if (w->start < rb_entry(parent, struct stalefs_window, node)->start)
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&w->node, parent, p);
	rb_insert_color(&w->node, &sbi->windows);
}

/* The file's last writer closed it, or it is being evicted: the window goes. */
void stalefs_window_drop(struct inode *inode)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(inode->i_sb);
	struct stalefs_window *w = &STALEFS_I(inode)->i_window;

	if (RB_EMPTY_NODE(&w->node))
		return;
	mutex_lock(&sbi->alloc_lock);
	window_remove(sbi, w);
	mutex_unlock(&sbi->alloc_lock);
}
