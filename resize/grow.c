// SPDX-License-Identifier: GPL-2.0
/*
 * Growing an unmounted filesystem: the same result as the kernel's online
 * grow (kernel/resize.c), in one transaction when there is a journal.
 *
 * The new groups' metadata that has to be on disk -- their superblock
 * copies and descriptor-table copies, zeroed inode tables without
 * lazy_itable -- lies past the old end: the transaction writes it in place
 * before it logs the rest (format/lib/txn.c), so nothing committed ever points
 * at it unwritten.  Inside the old filesystem only the last descriptor
 * block, the short last group's bitmap and the superblock change, and they
 * are logged.  Without a journal the writes are ordered instead (the new
 * groups, then the descriptors and bitmap, the superblock last) and a crash
 * between them leaves what fsck repairs: a larger free count, or bitmap
 * bits past the old end cleared.
 */
#include <stdio.h>
#include <stdlib.h>
#include "resize.h"

/* The short last group becomes whole: its bitmap (as loaded or made up) frees the new blocks. */
static void extend_last_group(stalefs_fs *fs, const struct stalefs_geom *old, u32 group)
{
	struct stalefs_group *grp = &fs->groups[group];
	u32 from = stalefs_group_nblocks(old, group), to = stalefs_group_nblocks(&fs->geom, group), b;
	bool uninit = le16_to_cpu(grp->desc.bg_flags) & STALEFS_BG_BLOCK_UNINIT;

	if (to <= from)
		return;
	if (grp->block_bitmap) {
		for (b = from; b < to; b++)
			grp->block_bitmap[b >> 3] &= (u8)~(1u << (b & 7));
		/* A bitmap made up for an uninitialised group follows the geometry: nothing to write. */
		if (!uninit)
			grp->bb_dirty = true;
	}
	stalefs_adjust_free_blocks(fs, group, to - from);
}

errcode_t resize_grow(struct resize_ctx *c)
{
	stalefs_fs *fs = c->fs;
	const struct stalefs_geom *old = &c->old, *ng = &c->ng;
	bool lazy = le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_LAZY_ITABLE;
	u64 free_blocks = le64_to_cpu(fs->sb.s_free_blocks_count);
	u32 free_inodes = le32_to_cpu(fs->sb.s_free_inodes_count), grp;
	errcode_t err;

	err = stalefs_set_geometry(fs, ng);
	if (err)
		return err;
	for (grp = old->groups_count; grp < ng->groups_count; grp++) {
		struct stalefs_group_desc *d = &fs->groups[grp].desc;

		stalefs_desc_init_new(ng, grp, lazy, fs->seed, d);
		fs->groups[grp].desc_dirty = true;
		free_blocks += le32_to_cpu(d->bg_free_blocks_count);
		free_inodes += ng->inodes_per_group;
		/* Without lazy_itable every slot of a table is initialised: zeroed before it counts. */
		if (!lazy) {
			err = stalefs_io_zero(fs->io, le64_to_cpu(d->bg_inode_table), ng->inode_table_blocks);
			if (err)
				return err;
		}
		resize_progress(c, "Adding groups", grp - old->groups_count + 1,
				ng->groups_count - old->groups_count);
	}
	/* The superblock first with the new groups' totals; the last group's blocks come on top. */
	stalefs_super_resize(&fs->sb, ng, free_blocks, free_inodes);
	extend_last_group(fs, old, old->groups_count - 1);
	stalefs_mark_super_dirty(fs);
	/* The new groups' copies: past the old end, in place before anything refers to them. */
	err = stalefs_write_backups_from(fs, old->groups_count);
	if (err)
		return err;
	return resize_commit(c);
}
