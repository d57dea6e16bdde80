// SPDX-License-Identifier: GPL-2.0
/*
 * Inodes: reading (verified), writing (checksummed), creating, evicting,
 * attributes and truncation.
 */
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/iversion.h>
#include <linux/sched/mm.h>
#include <linux/writeback.h>
#include <linux/fileattr.h>
#include "stalefs.h"
#include "dir_index.h"
#include "stale.h"
#include "journal.h"
#include "xattr.h"

/*
 * A cold inode table block: read the next ones of the table's used part
 * too.  Inodes created together sit together, and a cold `ls -l` or find
 * otherwise pays one synchronous read per table block (ext4 reads ahead
 * inode_readahead_blks, 32 by default).
 */
#define ITABLE_READAHEAD 16

static void itable_readahead(struct super_block *sb, const struct stalefs_group_desc *d, u64 block)
{
	const struct stalefs_geom *g = &STALEFS_SB(sb)->geom;
	u32 unused = le32_to_cpu(d->bg_itable_unused);
	u32 used = unused < g->inodes_per_group ? g->inodes_per_group - unused : 0;
	u64 end = le64_to_cpu(d->bg_inode_table) + DIV_ROUND_UP(used, g->inodes_per_block);
	u64 b;

	/* The wanted block first: its reader waits on this very request. */
	for (b = block; b < end && b <= block + ITABLE_READAHEAD; b++)
		sb_breadahead(sb, b);
}

/* Where inode 'ino' lives; NULL and an error when the number is impossible. */
struct buffer_head *stalefs_inode_bh(struct super_block *sb, u32 ino, u32 *offset, int *err)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom *g = &sbi->geom;
	struct stalefs_group_desc *d;
	struct buffer_head *bh;
	u64 block;

	if (ino < 1 || ino > g->inodes_count ||
	    (ino < STALEFS_FIRST_INO && ino != STALEFS_ROOT_INO)) {
		stalefs_error(sb, ino, 0, "inode number out of range");
		*err = -EUCLEAN;
		return NULL;
	}
	d = stalefs_get_desc(sb, stalefs_ino_group(g, ino), NULL);
	stalefs_ino_locate(g, d, ino, &block, offset);
	bh = sb_getblk(sb, block);
	if (bh && !buffer_uptodate(bh))
		itable_readahead(sb, d, block);
	brelse(bh);
	bh = sb_bread(sb, block);
	if (!bh) {
		stalefs_error(sb, ino, block, "cannot read inode table block");
		*err = -EIO;
	}
	return bh;
}

static void set_vfs_flags(struct inode *inode)
{
	u32 f = STALEFS_I(inode)->i_dflags;
	unsigned int fl = 0;

	if (f & STALEFS_INODE_SYNC_FL)
		fl |= S_SYNC;
	if (f & STALEFS_INODE_IMMUTABLE_FL)
		fl |= S_IMMUTABLE;
	if (f & STALEFS_INODE_APPEND_FL)
		fl |= S_APPEND;
	if (f & STALEFS_INODE_NOATIME_FL)
		fl |= S_NOATIME;
	inode_set_flags(inode, fl, S_SYNC | S_IMMUTABLE | S_APPEND | S_NOATIME);
}

static bool has_extents(struct inode *inode)
{
	if (S_ISREG(inode->i_mode) || S_ISDIR(inode->i_mode))
		return true;
	return S_ISLNK(inode->i_mode) && !(STALEFS_I(inode)->i_dflags & STALEFS_INODE_INLINE_FL);
}

void stalefs_set_ops(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);

	if (S_ISREG(inode->i_mode)) {
		inode->i_op = &stalefs_file_inode_operations;
		inode->i_fop = &stalefs_file_operations;
		inode->i_mapping->a_ops = &stalefs_aops;
		/*
		 * No large folios (mapping_set_large_folios): 6.1's iomap keeps
		 * one dirty bit per folio, so a 4 KiB write into a cached 16 KiB
		 * folio wrote back, and converted, all 16 KiB (kernel-falloc
		 * caught it; per-block dirty state came with Linux 6.6).
		 * bench/RESULTS.md, "The buffered data path".
		 */
	} else if (S_ISDIR(inode->i_mode)) {
		inode->i_op = &stalefs_dir_inode_operations;
		inode->i_fop = &stalefs_dir_operations;
	} else if (S_ISLNK(inode->i_mode)) {
		if (ei->i_dflags & STALEFS_INODE_INLINE_FL) {
			inode->i_op = &stalefs_fast_symlink_inode_operations;
			inode->i_link = (char *)ei->i_data;
		} else {
			inode->i_op = &stalefs_symlink_inode_operations;
		}
		inode_nohighmem(inode);
	} else {
		inode->i_op = &stalefs_special_inode_operations;
	}
}

static void get_time(struct timespec64 *ts, __le64 sec, __le32 nsec)
{
	ts->tv_sec = (s64)le64_to_cpu(sec);
	ts->tv_nsec = le32_to_cpu(nsec);
}

/*
 * Read an inode.  flags STALEFS_IGET_ORPHAN: the orphan cleanup may read an
 * inode with no links if it carries the ORPHAN flag; anyone else finding
 * one through a name has found damage.
 */
struct inode *stalefs_iget_flags(struct super_block *sb, u32 ino, int flags)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom *g = &sbi->geom;
	struct stalefs_inode_info *ei;
	struct stalefs_inode *raw;
	struct stalefs_group_desc *d;
	struct buffer_head *bh;
	struct inode *inode;
	u32 offset, slot;
	int rule, err = 0;

	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (!(inode->i_state & I_NEW))
		return inode;
	ei = STALEFS_I(inode);

	bh = stalefs_inode_bh(sb, ino, &offset, &err);
	if (!bh)
		goto bad;
	d = stalefs_get_desc(sb, stalefs_ino_group(g, ino), NULL);
	slot = (ino - 1) % g->inodes_per_group;
	raw = (void *)(bh->b_data + offset);
	if (slot >= g->inodes_per_group - le32_to_cpu(d->bg_itable_unused)) {
		stalefs_error(sb, ino, bh->b_blocknr, "inode is in the never-initialised part of the table");
		goto bad_bh;
	}
	if (!raw->i_mode || (!raw->i_links_count &&
			     !((flags & STALEFS_IGET_ORPHAN) &&
			       (le32_to_cpu(raw->i_flags) & STALEFS_INODE_ORPHAN_FL)))) {
		stalefs_error(sb, ino, bh->b_blocknr, "directory entry names a free inode");
		goto bad_bh;
	}
	rule = stalefs_verify_inode_csum(sbi->csum_seed, ino, raw);
	if (!rule)
		rule = stalefs_verify_inode(g, ino, raw);
	if (rule) {
		stalefs_error(sb, ino, bh->b_blocknr, "%s", stalefs_rule_msg(rule));
		goto bad_bh;
	}

	inode->i_mode = le16_to_cpu(raw->i_mode);
	set_nlink(inode, le16_to_cpu(raw->i_links_count));
	i_uid_write(inode, le32_to_cpu(raw->i_uid));
	i_gid_write(inode, le32_to_cpu(raw->i_gid));
	inode->i_size = le64_to_cpu(raw->i_size);
	inode->i_blocks = le64_to_cpu(raw->i_blocks) << (sb->s_blocksize_bits - 9);
	get_time(&inode->i_atime, raw->i_atime, raw->i_atime_nsec);
	get_time(&inode->i_ctime, raw->i_ctime, raw->i_ctime_nsec);
	get_time(&inode->i_mtime, raw->i_mtime, raw->i_mtime_nsec);
	get_time(&ei->i_crtime, raw->i_crtime, raw->i_crtime_nsec);
	inode->i_generation = le32_to_cpu(raw->i_generation);
	ei->i_dflags = le32_to_cpu(raw->i_flags);
	ei->i_dtime = le64_to_cpu(raw->i_dtime);
	ei->i_xattr_block = le64_to_cpu(raw->i_xattr_block);
	ei->i_dir_group = stalefs_ino_group(g, ino);
	memcpy(ei->i_data, raw->i_block, sizeof(ei->i_data));
	set_vfs_flags(inode);

	if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode) || S_ISFIFO(inode->i_mode) ||
	    S_ISSOCK(inode->i_mode))
		init_special_inode(inode, inode->i_mode, new_decode_dev(le32_to_cpu(raw->i_rdev)));
	brelse(bh);

	if (S_ISDIR(inode->i_mode) &&
	    (inode->i_size & (sb->s_blocksize - 1) || inode->i_size == 0)) {
		stalefs_error(sb, ino, 0, "directory size is not a whole number of blocks");
		goto bad;
	}
	if (S_ISLNK(inode->i_mode)) {
		if (ei->i_dflags & STALEFS_INODE_INLINE_FL) {
			/* The target is NUL terminated in memory even if the disk lies. */
			ei->i_data[min_t(u64, inode->i_size, STALEFS_INLINE_SYMLINK_MAX)] = 0;
		} else if (inode->i_size == 0 || inode->i_size >= sb->s_blocksize) {
			stalefs_error(sb, ino, 0, "symlink target size is out of range");
			goto bad;
		}
	}
	if (has_extents(inode)) {
		err = stalefs_ext_load(inode);
		if (err)
			goto bad_err;
	}
	stalefs_set_ops(inode);
	stalefs_inode_tids_init(inode);
	unlock_new_inode(inode);
	return inode;

bad_bh:
	brelse(bh);
bad:
	err = err ? err : -EUCLEAN;
bad_err:
	iget_failed(inode);
	return ERR_PTR(err);
}

struct inode *stalefs_iget(struct super_block *sb, u32 ino)
{
	return stalefs_iget_flags(sb, ino, 0);
}

static void put_time(__le64 *sec, __le32 *nsec, const struct timespec64 *ts)
{
	*sec = cpu_to_le64(ts->tv_sec);
	*nsec = cpu_to_le32(ts->tv_nsec);
}

/* The in-memory inode as its table slot holds it, checksummed. */
static void build_raw(struct inode *inode, struct stalefs_inode *raw, const u8 *root)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);

	memset(raw, 0, sizeof(*raw));
	raw->i_mode = cpu_to_le16(inode->i_mode);
	raw->i_links_count = cpu_to_le16(inode->i_nlink);
	raw->i_flags = cpu_to_le32(ei->i_dflags);
	raw->i_uid = cpu_to_le32(i_uid_read(inode));
	raw->i_gid = cpu_to_le32(i_gid_read(inode));
	raw->i_size = cpu_to_le64(inode->i_size);
	raw->i_blocks = cpu_to_le64(inode->i_blocks >> (sb->s_blocksize_bits - 9));
	put_time(&raw->i_atime, &raw->i_atime_nsec, &inode->i_atime);
	put_time(&raw->i_ctime, &raw->i_ctime_nsec, &inode->i_ctime);
	put_time(&raw->i_mtime, &raw->i_mtime_nsec, &inode->i_mtime);
	put_time(&raw->i_crtime, &raw->i_crtime_nsec, &ei->i_crtime);
	raw->i_dtime = cpu_to_le64(ei->i_dtime);
	raw->i_xattr_block = cpu_to_le64(READ_ONCE(ei->i_xattr_block));
	raw->i_generation = cpu_to_le32(inode->i_generation);
	if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode))
		raw->i_rdev = cpu_to_le32(new_encode_dev(inode->i_rdev));
	raw->i_ino = cpu_to_le32(inode->i_ino);
	if (root)
		memcpy(raw->i_block, root, sizeof(raw->i_block));
	stalefs_inode_set_csum(STALEFS_SB(sb)->csum_seed, inode->i_ino, raw);
}

/*
 * Copy the in-memory inode into its table slot and return the table block
 * (referenced), or NULL with *err set.  *dirtied says whether the slot
 * changed: a slot whose bytes are already there in an up-to-date buffer
 * is on the device, or in the journal, and needs nothing more.  With a
 * journal the slot's block joins the current transaction.  map_locked: the
 * caller holds i_map_sem (an extent save), so the root is stable.
 */
static struct buffer_head *copy_to_table(struct inode *inode, bool map_locked, bool *dirtied,
					 int *err)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	struct stalefs_inode tmp, *raw;
	struct buffer_head *bh;
	u8 root[sizeof(tmp.i_block)];
	bool has_root = has_extents(inode) || S_ISLNK(inode->i_mode);
	bool journal = stalefs_has_journal(sb), access = false;
	u64 gen = 0;
	u32 offset;

	*err = 0;
	*dirtied = false;
	if (map_locked)
		stalefs_assert_rwsem(&ei->i_map_sem);
	bh = stalefs_inode_bh(sb, inode->i_ino, &offset, err);
	if (!bh)
		return NULL;
	raw = (void *)(bh->b_data + offset);
	/*
	 * The extent root changes under i_map_sem: copy a consistent one before
	 * the table buffer is locked, never while holding that lock.  Waiting
	 * for i_map_sem with the buffer locked deadlocked: a writer holding
	 * i_map_sem waited for the allocator's lock, whose holder waited for
	 * this buffer (stalefs_new_ino), found by kernel-crash.
	 */
again:
	if (has_root && !map_locked) {
		down_read(&ei->i_map_sem);
		memcpy(root, ei->i_data, sizeof(root));
		gen = ei->i_root_gen;
		up_read(&ei->i_map_sem);
	} else if (has_root) {
		memcpy(root, ei->i_data, sizeof(root));
		gen = ei->i_root_gen;
	}
	build_raw(inode, &tmp, has_root ? root : NULL);
	/* Holding the lock, a write of this buffer has completed. */
	lock_buffer(bh);
	/*
	 * A save between the copy and the lock (a conversion, say) may already
	 * have put its newer root in the slot: writing this older one over it
	 * would leave the slot behind the tree until the next writeback, and a
	 * syncfs in between would not carry the conversion (robust-powercut).
	 */
	if (has_root && READ_ONCE(ei->i_root_gen) != gen) {
		unlock_buffer(bh);
		goto again;
	}
	if (buffer_uptodate(bh) && !(buffer_dirty(bh) && !journal) &&
	    !memcmp(raw, &tmp, sizeof(tmp))) {
		unlock_buffer(bh);
		return bh;
	}
	if (journal && !access) {
		/* Access may wait for a commit's write of the block: not under its lock. */
		unlock_buffer(bh);
		*err = stalefs_get_write_access(sb, bh);
		if (*err) {
			brelse(bh);
			return NULL;
		}
		access = true;
		goto again;
	}
	memcpy(raw, &tmp, sizeof(tmp));
	*dirtied = true;
	/* Dirty before the lock goes, so "clean" above never means "not yet marked". */
	if (!journal)
		mark_buffer_dirty(bh);
	unlock_buffer(bh);
	if (journal)
		*err = stalefs_dirty_metadata(NULL, sb, bh);
	return bh;
}

/*
 * The inode into its table slot, inside the current handle (with a journal;
 * the transaction then holds the inode's change, which fsync commits) or
 * for writeback.  datasync: the change is one fdatasync must carry (size,
 * blocks), not only times.
 */
int stalefs_inode_to_table(struct inode *inode, bool map_locked, bool datasync)
{
	struct buffer_head *bh;
	bool dirtied;
	int err;

	bh = copy_to_table(inode, map_locked, &dirtied, &err);
	if (!bh)
		return err;
	brelse(bh);
	stalefs_inode_tids(inode, datasync);
	return err;
}

/*
 * ->dirty_inode: with a journal, every mark_inode_dirty copies the inode
 * into the journal at once (in the caller's handle if it has one), as ext4
 * does; write_inode then has nothing left to write.
 */
void stalefs_sb_dirty_inode(struct inode *inode, int flags)
{
	struct super_block *sb = inode->i_sb;
	handle_t *handle;

	if (!stalefs_has_journal(sb) || flags == I_DIRTY_TIME || is_bad_inode(inode))
		return;
	handle = stalefs_journal_start(sb, 1, 0);
	if (IS_ERR(handle))
		return;		/* read-only or shut down: nothing may be written */
	stalefs_inode_to_table(inode, false, flags & I_DIRTY_DATASYNC);
	stalefs_journal_stop(sb, handle);
}

static int fill_raw(struct inode *inode, bool sync)
{
	struct buffer_head *bh;
	bool dirtied;
	int err;

	bh = copy_to_table(inode, false, &dirtied, &err);
	if (!bh)
		return err;
	if (sync && dirtied) {
		sync_dirty_buffer(bh);
		if (buffer_req(bh) && !buffer_uptodate(bh))
			err = -EIO;
	}
	brelse(bh);
	return err;
}

/*
 * The table block of an inode the VFS calls clean, if it is in memory.  The
 * flusher's write_inode (WB_SYNC_NONE) clears the inode's dirty bits and only
 * dirties this buffer, so "clean" does not mean "on the device"; a block not
 * in memory holds nothing unwritten.
 */
static struct buffer_head *cached_table_block(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_geom *g = &STALEFS_SB(sb)->geom;
	u32 ino = inode->i_ino, offset;
	struct buffer_head *bh;
	u64 block;

	stalefs_ino_locate(g, stalefs_get_desc(sb, stalefs_ino_group(g, ino), NULL), ino, &block, &offset);
	bh = sb_find_get_block(sb, block);
	/* Neither dirty nor being written: what it holds is on the device. */
	if (bh && !buffer_dirty(bh) && !buffer_locked(bh)) {
		brelse(bh);
		bh = NULL;
	}
	return bh;
}

/*
 * fsync's metadata: the inode's table block and its tree and directory
 * buffers go out together, one round trip instead of the two that
 * sync_mapping_buffers followed by sync_inode_metadata take.  The write
 * sync_inode_metadata then asks for finds the slot on the device already.
 */
int stalefs_sync_metadata(struct inode *inode, int datasync)
{
	bool want = (inode->i_state & I_DIRTY_ALL) &&
		    !(datasync && !(inode->i_state & I_DIRTY_DATASYNC));
	struct buffer_head *bh = NULL;
	bool dirtied;
	int err = 0, err2;

	if (want)
		bh = copy_to_table(inode, false, &dirtied, &err);
	else
		bh = cached_table_block(inode);
	/* Submits only a dirty buffer; waits for one already being written. */
	if (bh)
		write_dirty_buffer(bh, REQ_SYNC);
	err2 = sync_mapping_buffers(inode->i_mapping);
	if (bh) {
		wait_on_buffer(bh);
		if (!buffer_uptodate(bh))
			err = -EIO;
		brelse(bh);
	}
	if (!err)
		err = err2;
	if (want && !err)
		err = sync_inode_metadata(inode, 1);
	return err;
}

int stalefs_sb_write_inode(struct inode *inode, struct writeback_control *wbc)
{
	int err;

	if (!stalefs_has_journal(inode->i_sb))
		return fill_raw(inode, wbc->sync_mode == WB_SYNC_ALL);
	if (stalefs_forced_shutdown(inode->i_sb))
		return -EIO;
	/*
	 * The inode is in the journal already (dirty_inode).  Converted extents
	 * waiting in memory go in now; a data-integrity write (not sync(2),
	 * whose sync_fs commits once for all) commits the inode's transaction.
	 */
	err = stalefs_save_pending(inode);
	if (err || wbc->sync_mode != WB_SYNC_ALL || wbc->for_sync)
		return err;
	return stalefs_journal_sync_inode(inode, 0);
}

/* O_SYNC and IS_SYNC operations: the inode durable now. */
int stalefs_sync_inode(struct inode *inode)
{
	if (!stalefs_has_journal(inode->i_sb))
		return fill_raw(inode, true);
	return stalefs_journal_sync_inode(inode, 0);
}

/*
 * Copy the inode into its (dirty) table buffer now, as ext4 does on every
 * mark_inode_dirty.  Unwritten conversion runs after writeback has already
 * written the inode, so sync(2) and umount would otherwise never see it:
 * sync_inodes_sb has moved on and evict_inodes does not write.  The buffer
 * is picked up by the sync_blockdev that ends every sync and umount.
 */
int stalefs_update_inode(struct inode *inode)
{
	if (stalefs_has_journal(inode->i_sb))
		return stalefs_inode_to_table(inode, false, true);
	return fill_raw(inode, false);
}

/*
 * The last of an inode with no links: its blocks a piece at a time (the
 * ORPHAN flag, set when its last link went, keeps a crash in between from
 * leaking them), then the inode itself in one transaction with its bitmap
 * bit and orphan count.  A filesystem gone read-only or shut down frees
 * nothing: the orphan is finished at the next read-write mount.
 */
static void delete_inode(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	bool orphan;
	handle_t *handle;

	sb_start_intwrite(sb);
	if (has_extents(inode) && stalefs_truncate_blocks(inode, 0))
		goto out;
	/* Inode, its bitmap block and the group descriptor; its xattr block's free. */
	handle = stalefs_journal_start(sb, 2 + STALEFS_SB(sb)->geom.inode_bitmap_blocks +
				       stalefs_credits_alloc(sb, 1), 1);
	if (IS_ERR(handle))
		goto out;
	stalefs_xattr_drop(inode);
	orphan = ei->i_dflags & STALEFS_INODE_ORPHAN_FL;
	ei->i_dflags &= ~STALEFS_INODE_ORPHAN_FL;
	inode->i_size = 0;
	ei->i_dtime = ktime_get_real_seconds();
	if (!ei->i_dtime)
		ei->i_dtime = 1;
	if (stalefs_has_journal(sb))
		stalefs_inode_to_table(inode, false, true);
	else
		fill_raw(inode, false);
	stalefs_free_ino(sb, inode->i_ino, S_ISDIR(inode->i_mode), orphan);
	stalefs_journal_stop(sb, handle);
out:
	sb_end_intwrite(sb);
}

void stalefs_sb_evict_inode(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	bool want_delete = !inode->i_nlink && !is_bad_inode(inode);

	truncate_inode_pages_final(&inode->i_data);
	/* Conversion work may still be returning from its last ioend. */
	flush_work(&ei->i_ioend_work);
	/* Extents converted in memory: into the journal before the map goes. */
	if (!want_delete && !is_bad_inode(inode))
		stalefs_save_pending(inode);
	stalefs_save_forget(inode);
	if (want_delete)
		delete_inode(inode);
	invalidate_inode_buffers(inode);
	stalefs_window_drop(inode);
	clear_inode(inode);
	stalefs_ext_release(inode);
	stalefs_dx_drop(inode);
}

struct inode *stalefs_new_inode(struct inode *dir, umode_t mode, const struct qstr *name)
{
	struct super_block *sb = dir->i_sb;
	struct stalefs_inode_info *ei;
	struct inode *inode;
	u32 ino;
	int err;

	inode = new_inode(sb);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	err = stalefs_new_ino(dir, mode, &ino);
	if (err) {
		make_bad_inode(inode);
		iput(inode);
		return ERR_PTR(err);
	}
	ei = STALEFS_I(inode);
	inode_init_owner(&init_user_ns, inode, dir, mode);
	inode->i_ino = ino;
	inode->i_blocks = 0;
	inode->i_mtime = inode->i_atime = inode->i_ctime = current_time(inode);
	ei->i_crtime = inode->i_mtime;
	inode->i_generation = get_random_u32();
	ei->i_dflags = STALEFS_I(dir)->i_dflags & (STALEFS_INODE_SYNC_FL | STALEFS_INODE_NODUMP_FL |
						   STALEFS_INODE_NOATIME_FL);
	ei->i_dtime = 0;
	ei->i_xattr_block = 0;
	ei->i_dir_group = stalefs_ino_group(&STALEFS_SB(sb)->geom, ino);
	if (S_ISREG(mode) || S_ISDIR(mode) || S_ISLNK(mode))
		stalefs_ext_init_empty(inode);
	set_vfs_flags(inode);
	if (insert_inode_locked(inode) < 0) {
		stalefs_error(sb, ino, 0, "newly allocated inode is already in use");
		stalefs_free_ino(sb, ino, S_ISDIR(mode), false);
		make_bad_inode(inode);
		iput(inode);
		return ERR_PTR(-EUCLEAN);
	}
	/* Inherited ACLs and security labels, in the creation handle (ns_credits counts them). */
	err = stalefs_xattr_init_new(inode, dir, name);
	if (err) {
		stalefs_xattr_drop(inode);
		stalefs_free_ino(sb, ino, S_ISDIR(inode->i_mode), false);
		make_bad_inode(inode);
		discard_new_inode(inode);
		return ERR_PTR(err);
	}
	mark_inode_dirty(inode);
	return inode;
}

/*
 * Credits and revokes of one removal step of stalefs_truncate_blocks: the
 * extents' frees, the tree, the inode; directory and symlink blocks are
 * metadata and each freed one is revoked.
 */
static int remove_credits(struct inode *inode, int *revokes)
{
	struct super_block *sb = inode->i_sb;

	*revokes = (S_ISREG(inode->i_mode) ? 0 : STALEFS_REVOKE_BLOCKS) +
		   stalefs_revokes_tree(inode, STALEFS_EDIT_EXTENTS + 1);
	return stalefs_credits_alloc(sb, STALEFS_EDIT_EXTENTS + 1) +
	       stalefs_credits_tree(inode, STALEFS_EDIT_EXTENTS + 1) + 1;
}

/*
 * Unmap and free every block at and past byte 'size', a few extents per
 * transaction, from the end backwards (a crash leaves a shorter file, never
 * one with holes in its middle).  The caller holds the ORPHAN flag on the
 * inode, or deletes it, so that a crash in between is finished later.
 */
int stalefs_truncate_blocks(struct inode *inode, loff_t size)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	u64 first = DIV_ROUND_UP_ULL(size, sb->s_blocksize);
	bool more = true;
	int err = 0, credits, revokes;

	if (first >= STALEFS_MAX_FILE_BLOCKS)
		return 0;
	while (more && !err) {
		handle_t *handle;

		down_read(&ei->i_map_sem);
		credits = remove_credits(inode, &revokes);
		up_read(&ei->i_map_sem);
		handle = stalefs_journal_start(sb, credits, revokes);
		if (IS_ERR(handle))
			return PTR_ERR(handle);
		down_write(&ei->i_map_sem);
		err = stalefs_ext_remove(inode, (u32)first, STALEFS_MAX_FILE_BLOCKS - first, &more);
		up_write(&ei->i_map_sem);
		stalefs_journal_stop(sb, handle);
		cond_resched();
	}
	return err;
}

/* Mark or unmark an inode as an orphan in a transaction of its own. */
static int orphan_step(struct inode *inode, bool add)
{
	struct super_block *sb = inode->i_sb;
	handle_t *handle = stalefs_journal_start(sb, 3, 0);
	int err;

	if (IS_ERR(handle))
		return PTR_ERR(handle);
	err = add ? stalefs_orphan_add(inode) : stalefs_orphan_del(inode);
	stalefs_journal_stop(sb, handle);
	return err;
}

/* Size change of a regular file: zero the partial tail, drop pages and blocks. */
static int stalefs_setsize(struct inode *inode, loff_t newsize)
{
	loff_t oldsize = inode->i_size;
	unsigned int bs = inode->i_sb->s_blocksize;
	int err = 0;

	inode_dio_wait(inode);
	filemap_invalidate_lock(inode->i_mapping);
	if (newsize < oldsize) {
		err = iomap_truncate_page(inode, newsize, NULL, &stalefs_iomap_ops);
		/* Flagged before the size shrinks on disk: a crash mid-way is finished at mount. */
		if (!err)
			err = orphan_step(inode, true);
		if (!err) {
			truncate_setsize(inode, newsize);
			err = stalefs_truncate_blocks(inode, newsize);
			if (!err)
				err = orphan_step(inode, false);
		}
	} else {
		/* Bytes past the old EOF in its page may hold mmap leftovers. */
		if (oldsize & (bs - 1))
			err = iomap_zero_range(inode, oldsize,
					       min_t(loff_t, newsize, round_up(oldsize, bs)) - oldsize,
					       NULL, &stalefs_iomap_ops);
		if (!err)
			truncate_setsize(inode, newsize);
	}
	filemap_invalidate_unlock(inode->i_mapping);
	return err;
}

int stalefs_setattr(struct user_namespace *mnt_userns, struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);
	int err;

	if (stalefs_forced_shutdown(inode->i_sb))
		return -EIO;
	err = setattr_prepare(mnt_userns, dentry, attr);
	if (err)
		return err;
	/* stale.c: an inode holding STALE extents stays confined, armed or not */
	err = stalefs_stale_setattr_check(mnt_userns, inode, attr);
	if (err)
		return err;
	if ((attr->ia_valid & ATTR_SIZE) && attr->ia_size != inode->i_size) {
		if (!S_ISREG(inode->i_mode))
			return -EINVAL;
		err = stalefs_setsize(inode, attr->ia_size);
		if (err)
			return err;
		inode->i_mtime = inode->i_ctime = current_time(inode);
	}
	setattr_copy(mnt_userns, inode, attr);
	mark_inode_dirty(inode);
	/* The access ACL follows the new mode (its own transaction). */
	if (attr->ia_valid & ATTR_MODE)
		err = posix_acl_chmod(mnt_userns, inode, inode->i_mode);
	return err;
}

int stalefs_getattr(struct user_namespace *mnt_userns, const struct path *path,
		    struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);
	struct stalefs_inode_info *ei = STALEFS_I(inode);

	if (request_mask & STATX_BTIME) {
		stat->result_mask |= STATX_BTIME;
		stat->btime = ei->i_crtime;
	}
	if (ei->i_dflags & STALEFS_INODE_APPEND_FL)
		stat->attributes |= STATX_ATTR_APPEND;
	if (ei->i_dflags & STALEFS_INODE_IMMUTABLE_FL)
		stat->attributes |= STATX_ATTR_IMMUTABLE;
	if (ei->i_dflags & STALEFS_INODE_NODUMP_FL)
		stat->attributes |= STATX_ATTR_NODUMP;
	stat->attributes_mask |= STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE | STATX_ATTR_NODUMP;
	generic_fillattr(mnt_userns, inode, stat);
	return 0;
}

/*
 * chattr/lsattr: the user-settable flags are the FS_*_FL values themselves
 * (FORMAT.md section 5).  The VFS checks CAP_LINUX_IMMUTABLE; STALE and
 * INLINE are the filesystem's own and never change here.
 */
int stalefs_fileattr_get(struct dentry *dentry, struct fileattr *fa)
{
	fileattr_fill_flags(fa, STALEFS_I(d_inode(dentry))->i_dflags & STALEFS_INODE_USER_FLAGS);
	return 0;
}

int stalefs_fileattr_set(struct user_namespace *mnt_userns, struct dentry *dentry,
			 struct fileattr *fa)
{
	struct inode *inode = d_inode(dentry);
	struct stalefs_inode_info *ei = STALEFS_I(inode);

	if (fileattr_has_fsx(fa))
		return -EOPNOTSUPP;
	if (fa->flags & ~STALEFS_INODE_USER_FLAGS)
		return -EOPNOTSUPP;
	ei->i_dflags = (ei->i_dflags & ~STALEFS_INODE_USER_FLAGS) | fa->flags;
	set_vfs_flags(inode);
	inode->i_ctime = current_time(inode);
	mark_inode_dirty(inode);
	return 0;
}
