// SPDX-License-Identifier: GPL-2.0
/*
 * Shrinking an unmounted filesystem, in journal transactions (format/lib/txn.c, STALEFS_TXN_ATOMIC)
 * so that a kill or a power cut at any point leaves a filesystem that
 * mounts and checks clean, at the old size or the new one:
 *
 *  1. the journal, if it lies past the new end, moves below it (logged in
 *     the old journal, the superblock written last: journal_move below);
 *     a filesystem without a journal gets a small one for the duration,
 *     and loses it again at the end;
 *  2. every block past the end moves below it (move.c);
 *  3. every inode past the new inode count gets a number below it
 *     (renumber.c);
 *  4. one last transaction makes it smaller: the groups past the end go,
 *     the new last group's bits past its end are set, descriptor-table
 *     copies the smaller table no longer needs are freed, and the
 *     superblock says the new size.
 *
 * Nothing is allocated past the new end meanwhile (fs->alloc_end).  What
 * cannot be done is refused before anything is written, as far as it can
 * be known beforehand (the metadata of the groups that stay must lie below
 * the end; the journal needs a free run); a move that runs out of room
 * midway stops with what was committed so far, consistent, at the old size.
 */
#include <stdio.h>
#include <stdlib.h>
#include "resize.h"

errcode_t resize_move_blocks(struct resize_ctx *c);
errcode_t resize_renumber(struct resize_ctx *c);

/* The groups that stay keep their own metadata below the end. */
static errcode_t check_kept_groups(struct resize_ctx *c)
{
	const struct stalefs_geom *ng = &c->ng;
	struct stalefs_brange r[STALEFS_GM_COUNT];
	u32 grp;
	int k;

	for (grp = 0; grp < ng->groups_count; grp++) {
		stalefs_group_meta_ranges(ng, grp, &c->fs->groups[grp].desc, r);
		for (k = STALEFS_GM_BLOCK_BITMAP; k < STALEFS_GM_COUNT; k++)
			if (r[k].start + r[k].len > ng->blocks_count ||
			    stalefs_block_group(ng, r[k].start) != grp) {
				fprintf(stderr, "%s: group %u's %s lies past the new end (block %llu): it cannot "
					"stay; nothing was changed\n", program_name, grp,
					k == STALEFS_GM_INODE_TABLE ? "inode table" : "bitmap",
					(unsigned long long)r[k].start);
				return RESIZE_REFUSED;
			}
	}
	return 0;
}

/* Start (again) a transaction session on the journal the superblock names now. */
static errcode_t restart_session(struct resize_ctx *c)
{
	errcode_t err = stalefs_txn_stop(c->fs);

	if (!err)
		err = stalefs_txn_start(c->fs, STALEFS_TXN_ATOMIC);
	return err;
}

/* A journal past the new end moves below it; the old one logs the move. */
static errcode_t move_journal(struct resize_ctx *c)
{
	stalefs_fs *fs = c->fs;
	u64 start = le64_to_cpu(fs->sb.s_journal_block), to;
	u32 len = le32_to_cpu(fs->sb.s_journal_blocks);
	errcode_t err;

	if (start + len <= c->ng.blocks_count)
		return 0;
	err = stalefs_journal_place(fs, len, &to);
	if (err) {
		fprintf(stderr, "%s: no room below the new end for the journal (%u blocks in one group): "
			"nothing was changed\n", program_name, len);
		return RESIZE_REFUSED;
	}
	printf("Moving the journal (%u blocks) from block %llu to %llu\n", len, (unsigned long long)start,
	       (unsigned long long)to);
	err = stalefs_journal_relocate(fs, to);
	if (!err)
		err = resize_commit(c);
	/* From now on the transactions go to the new journal. */
	if (!err)
		err = restart_session(c);
	return err;
}

/*
 * Without a journal: one of jbd2's smallest (1024 blocks) below the end for the duration.
 * Added by ordered writes (its blocks marked, then the superblock names it: a crash between
 * leaves blocks marked for no journal, which fsck frees), removed in a last transaction.
 */
static errcode_t add_temp_journal(struct resize_ctx *c)
{
	stalefs_fs *fs = c->fs;
	u64 start;
	errcode_t err = stalefs_journal_place(fs, STALEFS_JOURNAL_MIN_BLOCKS, &start);

	if (err) {
		fprintf(stderr, "%s: the filesystem has no journal and no room for a temporary one (%u blocks "
			"in one group below the new end): nothing was changed\n", program_name,
			STALEFS_JOURNAL_MIN_BLOCKS);
		return RESIZE_REFUSED;
	}
	c->wrote = true;
	printf("Adding a temporary journal (%u blocks at block %llu) for the resize\n",
	       STALEFS_JOURNAL_MIN_BLOCKS, (unsigned long long)start);
	err = stalefs_journal_create(fs, start, STALEFS_JOURNAL_MIN_BLOCKS);
	if (!err)
		err = stalefs_flush(fs);
	if (!err)
		err = stalefs_txn_start(fs, STALEFS_TXN_ATOMIC);
	return err;
}

/*
 * The temporary journal goes in its own last transaction: the superblock without it (nor
 * RECOVER) is written last, so until then a replay still finds the journal and its log.
 */
static errcode_t remove_temp_journal(struct resize_ctx *c)
{
	errcode_t err;

	stalefs_journal_clear_recover(c->fs);
	err = stalefs_journal_remove(c->fs);
	if (!err)
		err = stalefs_txn_stop(c->fs);
	else
		stalefs_txn_abort(c->fs);
	if (!err)
		printf("Removing the temporary journal\n");
	return err;
}

/* Bits [from, to) of a kept group's bitmap become free (a table copy no longer needed). */
static void free_range(stalefs_fs *fs, u64 from, u64 to)
{
	u64 b;

	for (b = from; b < to; b++)
		if (stalefs_test_block(fs, b)) {
			stalefs_unmark_block(fs, b);
			stalefs_adjust_free_blocks(fs, stalefs_block_group(&fs->geom, b), 1);
		}
}

/* Past the end nothing may be in use but the metadata of the groups that go. */
static errcode_t check_past_end(struct resize_ctx *c)
{
	stalefs_fs *fs = c->fs;
	const struct stalefs_geom *old = &c->old;
	u64 b;
	u32 grp, ino;

	for (ino = c->ng.inodes_count + 1; ino <= old->inodes_count; ino++)
		if (stalefs_test_inode(fs, ino)) {
			fprintf(stderr, "%s: inode %u is still in use past the new inode count\n", program_name, ino);
			return STALEFS_ERR_NO_INODES;
		}
	for (grp = stalefs_block_group(old, c->ng.blocks_count); grp < old->groups_count; grp++) {
		u64 first = stalefs_group_first_block(old, grp), stop = first + stalefs_group_nblocks(old, grp);

		for (b = first > c->ng.blocks_count ? first : c->ng.blocks_count; b < stop; b++)
			if (stalefs_test_block(fs, b) &&
			    (grp < c->ng.groups_count || !stalefs_group_meta_overlaps(old, grp, &fs->groups[grp].desc, b, 1))) {
				fprintf(stderr, "%s: block %llu is still in use past the new end\n", program_name,
					(unsigned long long)b);
				return STALEFS_ERR_NO_SPACE;
			}
	}
	return 0;
}

/* Step 4: the smaller filesystem. */
static errcode_t cut(struct resize_ctx *c)
{
	stalefs_fs *fs = c->fs;
	const struct stalefs_geom *old = &c->old, *ng = &c->ng;
	u32 last = ng->groups_count - 1, grp, old_nb, new_nb, b;
	u64 free_blocks = 0;
	u32 free_inodes = 0;
	errcode_t err = check_past_end(c);

	if (err)
		return err;
	/* Copies of the table past the smaller table's blocks become data blocks (as loaded first). */
	for (grp = 0; grp < ng->groups_count; grp++) {
		u32 had = stalefs_group_gdt_blocks(old, grp), keeps = stalefs_group_gdt_blocks(ng, grp);

		if (had > keeps && stalefs_group_in_table(ng, grp)) {
			u64 at = stalefs_gdt_block_loc(old, grp, 0);

			free_range(fs, at + keeps, at + had);
		}
	}
	/* The new last group: its bits past the new end are set (all free, checked above). */
	old_nb = stalefs_group_nblocks(old, last);
	new_nb = stalefs_group_nblocks(ng, last);
	if (new_nb < old_nb) {
		struct stalefs_group *g = &fs->groups[last];

		for (b = new_nb; b < old_nb; b++)
			stalefs_mark_block(fs, stalefs_group_first_block(old, last) + b);
		/* An uninitialised bitmap follows the geometry: the flag stays, only the count changes. */
		if (le16_to_cpu(g->desc.bg_flags) & STALEFS_BG_BLOCK_UNINIT)
			g->bb_dirty = false;
		g->desc.bg_free_blocks_count = cpu_to_le32(le32_to_cpu(g->desc.bg_free_blocks_count) -
							  (old_nb - new_nb));
		g->desc_dirty = true;
	}
	err = stalefs_set_geometry(fs, ng);
	if (err)
		return err;
	for (grp = 0; grp < ng->groups_count; grp++) {
		free_blocks += le32_to_cpu(fs->groups[grp].desc.bg_free_blocks_count);
		free_inodes += le32_to_cpu(fs->groups[grp].desc.bg_free_inodes_count);
	}
	stalefs_super_resize(&fs->sb, ng, free_blocks, free_inodes);
	/* The last descriptor block is written whole: its slots past the groups count zeroed. */
	fs->groups[last].desc_dirty = true;
	stalefs_mark_super_dirty(fs);
	fs->alloc_end = 0;
	fs->ino_alloc_end = 0;
	return resize_commit(c);
}

errcode_t resize_shrink(struct resize_ctx *c)
{
	stalefs_fs *fs = c->fs;
	bool temp_journal = !fs->txn;
	errcode_t err;
	u32 grp;

	for (grp = 0; grp < c->old.groups_count; grp++)
		if (fs->groups[grp].desc.bg_orphan_count) {
			fprintf(stderr, "Please run 'fsck.stalefs -f %s' first: orphan inodes are waiting.\n\n",
				c->o->device);
			return RESIZE_REFUSED;
		}
	err = check_kept_groups(c);
	if (err)
		return err;
	fs->alloc_end = c->ng.blocks_count;
	fs->ino_alloc_end = c->ng.inodes_count;
	if (temp_journal)
		err = add_temp_journal(c);
	else
		err = move_journal(c);
	if (!err)
		err = resize_move_blocks(c);
	if (!err)
		err = resize_renumber(c);
	if (!err)
		err = cut(c);
	if (!err && temp_journal)
		err = remove_temp_journal(c);
	if (!err && (c->moved_blocks || c->moved_inodes))
		printf("Moved %llu block(s) and %u inode(s) below the new end\n",
		       (unsigned long long)c->moved_blocks, c->moved_inodes);
	return err;
}
