// SPDX-License-Identifier: GPL-2.0
/*
 * Orphans (FORMAT.md section 13): an inode whose last link went while it
 * was open, or whose size is being reduced, is freed or cut a piece at a
 * time, in several transactions.  It carries the ORPHAN flag, counted in
 * its group's bg_orphan_count, from the transaction that drops its last
 * link (or starts the truncation) to the one that frees it (or ends the
 * truncation), so that after a crash the mount finds and finishes it:
 * nothing is leaked, nothing half-freed is left for fsck.
 */
#include <linux/buffer_head.h>
#include "stalefs.h"
#include "journal.h"

/* In the caller's handle: the inode becomes an orphan (flag and group count). */
int stalefs_orphan_add(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	int err;

	if (ei->i_dflags & STALEFS_INODE_ORPHAN_FL)
		return 0;
	err = stalefs_group_count(inode->i_sb, inode->i_ino, false, 1);
	if (err)
		return err;
	ei->i_dflags |= STALEFS_INODE_ORPHAN_FL;
	return stalefs_update_inode(inode);
}

/* In the caller's handle: the inode is an orphan no more. */
int stalefs_orphan_del(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	int err;

	if (!(ei->i_dflags & STALEFS_INODE_ORPHAN_FL))
		return 0;
	err = stalefs_group_count(inode->i_sb, inode->i_ino, false, -1);
	if (err)
		return err;
	ei->i_dflags &= ~STALEFS_INODE_ORPHAN_FL;
	return stalefs_update_inode(inode);
}

bool stalefs_orphans_pending(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u32 grp;

	for (grp = 0; grp < sbi->geom.groups_count; grp++)
		if (stalefs_get_desc(sb, grp, NULL)->bg_orphan_count)
			return true;
	return false;
}

enum { ORPHAN_LEFT, ORPHAN_FREED, ORPHAN_TRUNCATED };

/*
 * Finish one orphan: with links, the truncation that was under way (its
 * blocks past i_size go), then the flag; without, the last iput frees it.
 */
static int finish_orphan(struct super_block *sb, u32 ino)
{
	struct inode *inode = stalefs_iget_flags(sb, ino, STALEFS_IGET_ORPHAN);
	bool freed;
	int err = 0;

	if (IS_ERR(inode))
		return ORPHAN_LEFT;	/* reported by iget; fsck's job */
	freed = !inode->i_nlink;
	if (!freed) {
		handle_t *handle;

		if (S_ISREG(inode->i_mode))
			err = stalefs_truncate_blocks(inode, i_size_read(inode));
		handle = err ? ERR_PTR(err) : stalefs_journal_start(sb, 3, 0);
		if (!IS_ERR(handle)) {
			stalefs_orphan_del(inode);
			stalefs_journal_stop(sb, handle);
		}
	}
	iput(inode);
	return freed ? ORPHAN_FREED : ORPHAN_TRUNCATED;
}

/*
 * After recovery, at a read-write mount: every ORPHAN inode of the groups
 * that count some.  A slot that is not a sound inode is left for fsck.
 */
void stalefs_orphan_cleanup(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom *g = &sbi->geom;
	u32 grp, released = 0, truncated = 0;

	for (grp = 0; grp < g->groups_count; grp++) {
		struct stalefs_group_desc *d = stalefs_get_desc(sb, grp, NULL);
		u32 unused = le32_to_cpu(d->bg_itable_unused);
		u32 mark = unused < g->inodes_per_group ? g->inodes_per_group - unused : 0;
		struct buffer_head *bh = NULL;
		u32 slot;

		if (!d->bg_orphan_count)
			continue;
		for (slot = 0; slot < mark; slot++) {
			u32 ino = grp * g->inodes_per_group + slot + 1;
			const struct stalefs_inode *raw;

			if (slot % g->inodes_per_block == 0 || !bh) {
				brelse(bh);
				bh = sb_bread(sb, le64_to_cpu(d->bg_inode_table) +
					      slot / g->inodes_per_block);
				if (!bh)
					break;
			}
			if (ino < STALEFS_FIRST_INO)
				continue;
			raw = (void *)(bh->b_data + (slot % g->inodes_per_block) * g->inode_size);
			if (!raw->i_mode || !(le32_to_cpu(raw->i_flags) & STALEFS_INODE_ORPHAN_FL) ||
			    stalefs_verify_inode_csum(sbi->csum_seed, ino, raw))
				continue;
			switch (finish_orphan(sb, ino)) {
			case ORPHAN_FREED:
				released++;
				break;
			case ORPHAN_TRUNCATED:
				truncated++;
				break;
			}
		}
		brelse(bh);
	}
	if (released || truncated)
		pr_info("stalefs (%s): released %u orphan inode(s), finished %u truncation(s)\n",
			sb->s_id, released, truncated);
}
