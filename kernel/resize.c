// SPDX-License-Identifier: GPL-2.0
/*
 * Growing a mounted filesystem: STALEFS_IOC_RESIZE_FS, in the shape of
 * ext4's EXT4_IOC_RESIZE_FS (the new size in blocks; shrinking is EINVAL,
 * a size past the device ENOSPC), which resize.stalefs calls.
 *
 * A grow is one transaction, so a power cut leaves the old size or the new
 * one, never a mix (FORMAT.md 12):
 *
 *  1. Everything past the old end -- the new groups' superblock copies,
 *     META_BG descriptor blocks, zeroed inode tables without lazy_itable --
 *     is written in place and waited for first.  No committed state refers
 *     to those blocks, and the commit's cache flush makes them durable
 *     before the commit that does.
 *  2. One handle journals what lies inside the old filesystem: the
 *     superblock's block (the only transaction that does: the superblock is
 *     otherwise written in place), the last descriptor block (the new
 *     groups' descriptors that fall in it, the short last group's free
 *     count) and that group's bitmap blocks (the bits past its old end).
 *     The in-memory geometry switches under alloc_lock in the same breath.
 *  3. The transaction is committed and the log checkpointed (ext4 flushes
 *     its journal after a resize too): from then on the superblock is an
 *     ordinary in-place buffer again, and no replay can put an older copy
 *     over later in-place writes.  While it is in the journal (flag
 *     STALEFS_FLAG_SB_JOURNALED) in-place writers keep off it: error
 *     records are stashed (super.c), summaries wait, tune and the permitted
 *     group take sb_mutex, which the grow holds throughout.
 *  4. The backups in old groups (superblock copies, the copies of the
 *     descriptor block that changed) are brought up to date in place;
 *     until then they describe the old size, which fsck accepts of a
 *     backup (it rewrites them when it writes).
 *
 * Writers go on during a grow: they wait only for alloc_lock (step 2) and
 * the journal flush (step 3).  Without a journal the same writes are made
 * in the same order and a crash in between is fsck's to repair, as every
 * change without a journal.
 *
 * Lock order: sb_mutex, (handle), alloc_lock, buffer locks.
 */
#include <linux/blkdev.h>
#include <linux/mount.h>
#include <linux/slab.h>
#include <linux/math64.h>
#include "stalefs.h"
#include "journal.h"

struct grow {
	struct super_block *sb;
	struct stalefs_geom old, ng;
	struct stalefs_group_desc *descs;	/* the new groups' descriptors */
	struct buffer_head **gd_bh;		/* the descriptor table after the grow */
	u32 last_index;				/* the old table's last block: journaled */
	bool lazy;
	u64 added_blocks;
	u32 added_inodes;
	struct buffer_head **io;		/* in-place writes to wait for */
	u32 nio, capio;
};

/* Retired descriptor arrays: a reader may still hold one (stalefs_get_desc takes no lock). */
struct gd_retired {
	struct list_head list;
	struct buffer_head **bh;
};

static const struct stalefs_group_desc *new_desc(const struct grow *gr, u32 group)
{
	return &gr->descs[group - gr->old.groups_count];
}

/* Fill buf with descriptor block i as it is after the grow (old descriptors as held now). */
static void fill_gdt_block(struct grow *gr, u32 i, u8 *buf)
{
	const struct stalefs_geom *ng = &gr->ng;
	u32 per = ng->desc_per_block, grp;

	if (i < gr->old.gdt_blocks)
		memcpy(buf, gr->gd_bh[i]->b_data, ng->block_size);
	else
		memset(buf, 0, ng->block_size);
	for (grp = max(i * per, gr->old.groups_count); grp < min((i + 1) * per, ng->groups_count); grp++)
		memcpy(buf + (grp % per) * STALEFS_DESC_SIZE, new_desc(gr, grp), STALEFS_DESC_SIZE);
}

/* Queue a block for writing in place: the buffer comes back filled by fill(), dirty. */
static struct buffer_head *queue_write(struct grow *gr, u64 block)
{
	struct buffer_head *bh = sb_getblk(gr->sb, block);

	if (!bh)
		return NULL;
	if (gr->nio == gr->capio) {
		u32 cap = gr->capio ? gr->capio * 2 : 64;
		struct buffer_head **n = krealloc_array(gr->io, cap, sizeof(*n), GFP_KERNEL);

		if (!n) {
			brelse(bh);
			return NULL;
		}
		gr->io = n;
		gr->capio = cap;
	}
	get_bh(bh);
	gr->io[gr->nio++] = bh;
	lock_buffer(bh);
	return bh;
}

static void queued(struct buffer_head *bh)
{
	set_buffer_uptodate(bh);
	unlock_buffer(bh);
	mark_buffer_dirty(bh);
	write_dirty_buffer(bh, REQ_SYNC);
	brelse(bh);
}

static int wait_writes(struct grow *gr)
{
	int err = 0;
	u32 i;

	for (i = 0; i < gr->nio; i++) {
		wait_on_buffer(gr->io[i]);
		if (!buffer_uptodate(gr->io[i]))
			err = -EIO;
		brelse(gr->io[i]);
	}
	gr->nio = 0;
	return err;
}

/* A superblock copy of group `group` from raw (the size fields already the new ones). */
static int write_super_copy(struct grow *gr, const struct stalefs_super_block *raw, u32 group)
{
	struct buffer_head *bh = queue_write(gr, stalefs_group_first_block(&gr->ng, group));
	struct stalefs_super_block *copy;

	if (!bh)
		return -ENOMEM;
	/* Backups sit at byte 0 of their group's first block; the rest of it is free. */
	memset(bh->b_data, 0, bh->b_size);
	copy = (void *)bh->b_data;
	memcpy(copy, raw, sizeof(*copy));
	copy->s_block_group_nr = cpu_to_le32(group);
	stalefs_super_set_csum(copy);
	queued(bh);
	return 0;
}

/* Copies of descriptor block i at the given places (each an in-place write). */
static int write_gdt_copies(struct grow *gr, u32 i, const u64 *where, u32 n, const u8 *content)
{
	u32 k;

	for (k = 0; k < n; k++) {
		struct buffer_head *bh = queue_write(gr, where[k]);

		if (!bh)
			return -ENOMEM;
		memcpy(bh->b_data, content, bh->b_size);
		queued(bh);
	}
	return 0;
}

/*
 * Step 1: what lies past the old end, written and waited for.  new_sb is
 * the superblock as it will be committed (backups take it).
 */
static int write_new_region(struct grow *gr, const struct stalefs_super_block *new_sb)
{
	struct super_block *sb = gr->sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	const struct stalefs_geom *ng = &gr->ng;
	u8 *buf = kmalloc(sb->s_blocksize, GFP_KERNEL);
	u64 where[3];
	u32 grp, i, n, k;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (grp = gr->old.groups_count; grp < ng->groups_count && !err; grp++) {
		if (stalefs_group_has_super(ng, grp))
			err = write_super_copy(gr, new_sb, grp);
		/* A backup in the table's groups carries the whole table, as it stands. */
		if (!err && stalefs_group_has_super(ng, grp) && stalefs_group_in_table(ng, grp)) {
			for (i = 0; i < ng->first_meta_bg && !err; i++) {
				mutex_lock(&sbi->alloc_lock);
				fill_gdt_block(gr, i, buf);
				mutex_unlock(&sbi->alloc_lock);
				where[0] = stalefs_gdt_block_loc(ng, grp, i);
				err = write_gdt_copies(gr, i, where, 1, buf);
			}
		}
		if (!err && !gr->lazy) {
			/* Without lazy_itable every slot of a table is initialised: zero it now. */
			const struct stalefs_group_desc *d = new_desc(gr, grp);
			int shift = sb->s_blocksize_bits - SECTOR_SHIFT;

			err = blkdev_issue_zeroout(sb->s_bdev,
						   (sector_t)le64_to_cpu(d->bg_inode_table) << shift,
						   (sector_t)ng->inode_table_blocks << shift, GFP_KERNEL, 0);
		}
		cond_resched();
	}
	/* META_BG blocks: new ones wholly (every copy is new); the old last one, its new copies. */
	for (i = gr->last_index; i < ng->gdt_blocks && !err; i++) {
		if (i < ng->first_meta_bg)
			continue;
		mutex_lock(&sbi->alloc_lock);
		fill_gdt_block(gr, i, buf);
		mutex_unlock(&sbi->alloc_lock);
		n = stalefs_gdt_block_copies(ng, i, where, 3);
		for (k = 0; k < n && !err; k++) {
			if (stalefs_block_group(ng, where[k]) < gr->old.groups_count)
				continue;	/* inside the old filesystem: journaled, or a backup for later */
			err = write_gdt_copies(gr, i, &where[k], 1, buf);
		}
		if (!err && i >= gr->old.gdt_blocks) {
			/* The primary copy's buffer becomes the table's. */
			gr->gd_bh[i] = sb_getblk(sb, where[0]);
			if (!gr->gd_bh[i])
				err = -ENOMEM;
		}
	}
	if (!err)
		err = wait_writes(gr);
	else
		wait_writes(gr);
	kfree(buf);
	return err;
}

/*
 * Step 4: the backups inside the old filesystem, once the grow is
 * committed: every superblock copy and the old copies of the descriptor
 * block that changed.
 */
static int write_old_backups(struct grow *gr)
{
	struct super_block *sb = gr->sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	const struct stalefs_geom *ng = &gr->ng;
	struct stalefs_super_block *raw = kmalloc(sizeof(*raw), GFP_KERNEL);
	u8 *buf = kmalloc(sb->s_blocksize, GFP_KERNEL);
	u64 *where = kmalloc_array(ng->groups_count + 1, sizeof(*where), GFP_KERNEL);
	u32 grp, n, k;
	int err = 0;

	if (!raw || !buf || !where) {
		err = -ENOMEM;
		goto out;
	}
	lock_buffer(sbi->sbh);
	memcpy(raw, sbi->raw, sizeof(*raw));
	unlock_buffer(sbi->sbh);
	for (grp = 1; grp < gr->old.groups_count && !err; grp++)
		if (stalefs_group_has_super(ng, grp))
			err = write_super_copy(gr, raw, grp);
	mutex_lock(&sbi->alloc_lock);
	memcpy(buf, sbi->gd_bh[gr->last_index]->b_data, sb->s_blocksize);
	mutex_unlock(&sbi->alloc_lock);
	n = stalefs_gdt_block_copies(ng, gr->last_index, where, ng->groups_count + 1);
	for (k = 1; k < n && !err; k++)
		if (stalefs_block_group(ng, where[k]) < gr->old.groups_count)
			err = write_gdt_copies(gr, gr->last_index, &where[k], 1, buf);
	if (err)
		wait_writes(gr);
	else
		err = wait_writes(gr);
out:
	kfree(where);
	kfree(buf);
	kfree(raw);
	return err;
}

/* Step 2, under the handle and alloc_lock: the journaled changes and the switch in memory. */
static int switch_geometry(struct grow *gr)
{
	struct super_block *sb = gr->sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	const struct stalefs_geom *ng = &gr->ng;
	struct buffer_head *dbh = sbi->gd_bh[gr->last_index];
	struct gd_retired *old;
	u32 last = gr->old.groups_count - 1, per = ng->desc_per_block, grp;
	u32 old_nb = stalefs_group_nblocks(&gr->old, last), new_nb = stalefs_group_nblocks(ng, last);
	int err;

	old = kmalloc(sizeof(*old), GFP_NOFS);
	if (!old)
		return -ENOMEM;
	err = stalefs_get_write_access(sb, dbh);
	if (!err)
		err = stalefs_get_write_access(sb, sbi->sbh);
	if (err) {
		kfree(old);
		return err;
	}
	mutex_lock(&sbi->alloc_lock);
	/* The short last group becomes whole: the bits past its old end are freed. */
	if (new_nb > old_nb) {
		err = stalefs_group_grow_bitmap(sb, last, old_nb, new_nb);
		if (err) {
			mutex_unlock(&sbi->alloc_lock);
			kfree(old);
			return err;
		}
	}
	lock_buffer(dbh);
	for (grp = gr->old.groups_count; grp < min((gr->last_index + 1) * per, ng->groups_count); grp++)
		memcpy(dbh->b_data + (grp % per) * STALEFS_DESC_SIZE, new_desc(gr, grp), STALEFS_DESC_SIZE);
	unlock_buffer(dbh);
	stalefs_dirty_metadata(NULL, sb, dbh);

	lock_buffer(sbi->sbh);
	spin_lock(&sbi->err_lock);
	stalefs_super_resize(sbi->raw, ng, sbi->free_blocks + gr->added_blocks,
			     sbi->free_inodes + gr->added_inodes);
	stalefs_super_set_csum(sbi->raw);
	spin_unlock(&sbi->err_lock);
	unlock_buffer(sbi->sbh);
	/* Journaled; without a journal grow() writes it last, after the descriptors. */
	if (stalefs_has_journal(sb))
		stalefs_dirty_metadata(NULL, sb, sbi->sbh);

	/*
	 * The switch.  Readers of the descriptors and the geometry take no lock:
	 * the table grows first, then the counts, the block count last, and the
	 * old table stays allocated until unmount.
	 */
	old->bh = sbi->gd_bh;
	list_add(&old->list, &sbi->gd_retired);
	smp_store_release(&sbi->gd_bh, gr->gd_bh);
	gr->gd_bh = NULL;
	WRITE_ONCE(sbi->geom.gdt_blocks, ng->gdt_blocks);
	WRITE_ONCE(sbi->geom.first_meta_bg, ng->first_meta_bg);
	WRITE_ONCE(sbi->geom.meta_bg, ng->meta_bg);
	WRITE_ONCE(sbi->geom.inodes_count, ng->inodes_count);
	smp_wmb();
	WRITE_ONCE(sbi->geom.groups_count, ng->groups_count);
	smp_wmb();
	WRITE_ONCE(sbi->geom.blocks_count, ng->blocks_count);
	sbi->free_blocks += gr->added_blocks;
	sbi->free_inodes += gr->added_inodes;
	sbi->resv_blocks = min_t(u64, div_u64(ng->blocks_count, 50), 4096);
	mutex_unlock(&sbi->alloc_lock);
	return 0;
}

/* The plan: geometry, the new groups' descriptors, the table array to be. */
static int plan(struct grow *gr, u64 n_blocks)
{
	struct super_block *sb = gr->sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	const struct stalefs_geom *ng = &gr->ng;
	u32 grp, count;
	int rule;

	gr->old = sbi->geom;
	rule = stalefs_resize_geometry(&gr->old, n_blocks, &gr->ng);
	if (rule) {
		pr_warn("stalefs (%s): cannot grow to %llu blocks: %s\n", sb->s_id, n_blocks,
			stalefs_rule_msg(rule));
		return -EINVAL;
	}
	if (ng->blocks_count <= gr->old.blocks_count)
		return 0;	/* nothing to add (a last group too small to hold its metadata) */
	gr->lazy = le32_to_cpu(sbi->raw->s_feature_compat) & STALEFS_FEATURE_COMPAT_LAZY_ITABLE;
	gr->last_index = stalefs_gdt_index(&gr->old, gr->old.groups_count - 1);
	count = ng->groups_count - gr->old.groups_count;
	gr->descs = kvcalloc(max(count, 1u), sizeof(*gr->descs), GFP_KERNEL);
	gr->gd_bh = kvcalloc(ng->gdt_blocks, sizeof(*gr->gd_bh), GFP_KERNEL);
	if (!gr->descs || !gr->gd_bh)
		return -ENOMEM;
	memcpy(gr->gd_bh, sbi->gd_bh, gr->old.gdt_blocks * sizeof(*gr->gd_bh));
	for (grp = gr->old.groups_count; grp < ng->groups_count; grp++) {
		struct stalefs_group_desc *d = &gr->descs[grp - gr->old.groups_count];

		stalefs_desc_init_new(ng, grp, gr->lazy, sbi->csum_seed, d);
		gr->added_blocks += le32_to_cpu(d->bg_free_blocks_count);
	}
	gr->added_blocks += stalefs_group_nblocks(ng, gr->old.groups_count - 1) -
			    stalefs_group_nblocks(&gr->old, gr->old.groups_count - 1);
	gr->added_inodes = ng->inodes_count - gr->old.inodes_count;
	return 1;
}

static void plan_free(struct grow *gr)
{
	u32 i;

	/* Buffers taken for new descriptor blocks that never joined the table. */
	if (gr->gd_bh)
		for (i = gr->old.gdt_blocks; i < gr->ng.gdt_blocks; i++)
			brelse(gr->gd_bh[i]);
	kvfree(gr->gd_bh);
	kvfree(gr->descs);
	kfree(gr->io);
}

static int grow(struct super_block *sb, u64 n_blocks)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_super_block *new_sb = NULL;
	struct grow gr = { .sb = sb };
	handle_t *handle = NULL;
	tid_t tid = 0;
	int err;

	if (n_blocks < sbi->geom.blocks_count) {
		pr_warn("stalefs (%s): online shrinking is not supported (unmount and use resize.stalefs)\n",
			sb->s_id);
		return -EINVAL;
	}
	if (n_blocks == sbi->geom.blocks_count)
		return 0;
	if (n_blocks > bdev_nr_bytes(sb->s_bdev) >> sb->s_blocksize_bits) {
		pr_warn("stalefs (%s): cannot grow to %llu blocks: the device has %llu\n", sb->s_id,
			n_blocks, bdev_nr_bytes(sb->s_bdev) >> sb->s_blocksize_bits);
		return -ENOSPC;
	}
	err = plan(&gr, n_blocks);
	if (err <= 0)
		goto out;
	pr_info("stalefs (%s): growing from %llu to %llu blocks (%u to %u groups)\n", sb->s_id,
		gr.old.blocks_count, gr.ng.blocks_count, gr.old.groups_count, gr.ng.groups_count);
	/* The backups take the superblock as it will be committed. */
	new_sb = kmalloc(sizeof(*new_sb), GFP_KERNEL);
	if (!new_sb) {
		err = -ENOMEM;
		goto out;
	}
	lock_buffer(sbi->sbh);
	memcpy(new_sb, sbi->raw, sizeof(*new_sb));
	unlock_buffer(sbi->sbh);
	stalefs_super_resize(new_sb, &gr.ng, sbi->free_blocks + gr.added_blocks,
			     sbi->free_inodes + gr.added_inodes);
	err = write_new_region(&gr, new_sb);
	if (err)
		goto out;

	/* The superblock in place now: summaries written, its buffer clean for the journal. */
	stalefs_commit_super(sb, true);
	handle = stalefs_journal_start(sb, 2 + gr.old.block_bitmap_blocks, 0);
	if (IS_ERR(handle)) {
		err = PTR_ERR(handle);
		goto out;
	}
	if (handle) {
		tid = handle->h_transaction->t_tid;
		stalefs_super_journaled(sb, true);
	}
	err = switch_geometry(&gr);
	if (handle) {
		int e2 = stalefs_journal_stop(sb, handle);

		if (!err)
			err = e2;
		if (!err)
			err = jbd2_complete_transaction(sbi->journal, tid);
		/* Checkpointed: the superblock is an in-place buffer again (see above). */
		if (!err)
			err = stalefs_journal_flush_all(sb);
		stalefs_super_journaled(sb, false);
	} else if (!err) {
		/* No journal: descriptors and bitmap on disk before the superblock says they count. */
		err = sync_blockdev(sb->s_bdev);
	}
	if (err) {
		stalefs_error(sb, 0, 0, "online grow to %llu blocks failed (error %d)", gr.ng.blocks_count,
			      err);
		goto out;
	}
	stalefs_commit_super(sb, true);
	err = write_old_backups(&gr);
	if (err)
		pr_warn("stalefs (%s): grown, but the backup superblocks were not all updated (error %d): fsck.stalefs rewrites them\n",
			sb->s_id, err);
	err = 0;
	pr_info("stalefs (%s): grown to %llu blocks\n", sb->s_id, sbi->geom.blocks_count);
out:
	kfree(new_sb);
	plan_free(&gr);
	return err;
}

long stalefs_ioc_resize_fs(struct file *file, const u64 __user *arg)
{
	struct super_block *sb = file_inode(file)->i_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u64 n_blocks;
	int err;

	if (!capable(CAP_SYS_RESOURCE))
		return -EPERM;
	if (copy_from_user(&n_blocks, arg, sizeof(n_blocks)))
		return -EFAULT;
	err = mnt_want_write_file(file);
	if (err)
		return err;
	if (stalefs_forced_shutdown(sb)) {
		err = -EIO;
		goto out;
	}
	/* One resize at a time, and no in-place superblock change meanwhile (tune.c, stale.c). */
	mutex_lock(&sbi->sb_mutex);
	err = grow(sb, n_blocks);
	mutex_unlock(&sbi->sb_mutex);
out:
	mnt_drop_write_file(file);
	return err;
}

void stalefs_resize_release(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct gd_retired *r, *tmp;

	list_for_each_entry_safe(r, tmp, &sbi->gd_retired, list) {
		kvfree(r->bh);
		kfree(r);
	}
	INIT_LIST_HEAD(&sbi->gd_retired);
}
