// SPDX-License-Identifier: GPL-2.0
/*
 * Regular files: read/write (buffered and direct), mmap, fsync, fallocate,
 * seek, fiemap.  All data moves through iomap (iomap.c).
 */
#include <linux/uio.h>
#include <linux/mman.h>
#include <linux/backing-dev.h>
#include <linux/sched/mm.h>
#include <linux/falloc.h>
#include "stalefs.h"
#include "stale.h"
#include "journal.h"
#include "xattr.h"

/* ---- address space ---- */

static int stalefs_read_folio(struct file *file, struct folio *folio)
{
	return iomap_read_folio(folio, &stalefs_iomap_ops);
}

static void stalefs_readahead(struct readahead_control *rac)
{
	iomap_readahead(rac, &stalefs_iomap_ops);
}

static int stalefs_writepages(struct address_space *mapping, struct writeback_control *wbc)
{
	struct iomap_writepage_ctx wpc = { };

	/* Shut down: nothing more reaches the disk (the pages go at umount). */
	if (stalefs_forced_shutdown(mapping->host->i_sb))
		return -EIO;
	return iomap_writepages(mapping, wbc, &wpc, &stalefs_writeback_ops);
}

static sector_t stalefs_vm_bmap(struct address_space *mapping, sector_t block)
{
	return iomap_bmap(mapping, block, &stalefs_iomap_ops);
}

const struct address_space_operations stalefs_aops = {
	.read_folio		= stalefs_read_folio,
	.readahead		= stalefs_readahead,
	.writepages		= stalefs_writepages,
	.dirty_folio		= filemap_dirty_folio,
	.release_folio		= iomap_release_folio,
	.invalidate_folio	= iomap_invalidate_folio,
	.bmap			= stalefs_vm_bmap,
	.direct_IO		= noop_direct_IO,
	.migrate_folio		= filemap_migrate_folio,
	.is_partially_uptodate	= iomap_is_partially_uptodate,
	.error_remove_page	= generic_error_remove_page,
};

/* ---- read / write ---- */

static ssize_t stalefs_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;

	if (stalefs_forced_shutdown(inode->i_sb))
		return -EIO;
	ret = stalefs_stale_may_read(inode);
	if (ret)
		return ret;
	if (!iov_iter_count(to))
		return 0;
	if (!(iocb->ki_flags & IOCB_DIRECT))
		return generic_file_read_iter(iocb, to);
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock_shared(inode))
			return -EAGAIN;
	} else {
		inode_lock_shared(inode);
	}
	file_accessed(iocb->ki_filp);
	ret = iomap_dio_rw(iocb, to, &stalefs_iomap_ops, NULL, 0, NULL, 0);
	inode_unlock_shared(inode);
	return ret;
}

/*
 * Before the size grows past pos, zero the old EOF block's tail in the
 * page cache: an mmap store past EOF may have left bytes there.
 */
static int stalefs_zero_eof(struct inode *inode, loff_t pos)
{
	loff_t isize = i_size_read(inode);
	unsigned int bs = inode->i_sb->s_blocksize;

	if (pos <= isize || !(isize & (bs - 1)))
		return 0;
	return iomap_zero_range(inode, isize, min_t(loff_t, pos, round_up(isize, bs)) - isize,
				NULL, &stalefs_iomap_ops);
}

static ssize_t stalefs_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	loff_t old_size = 0;
	ssize_t ret;

	if (stalefs_forced_shutdown(inode->i_sb))
		return -EIO;
	if (iocb->ki_flags & IOCB_NOWAIT) {
		if (!inode_trylock(inode))
			return -EAGAIN;
	} else {
		inode_lock(inode);
	}
	ret = generic_write_checks(iocb, from);
	if (ret <= 0)
		goto out;
	old_size = i_size_read(inode);
	ret = file_modified(file);
	if (ret)
		goto out;
	ret = stalefs_zero_eof(inode, iocb->ki_pos);
	if (ret)
		goto out;

	if (iocb->ki_flags & IOCB_DIRECT) {
		/*
		 * Waiting for completion keeps the size update and the unwritten
		 * conversion under i_rwsem, so AIO needs no extra locking.
		 */
		ret = iomap_dio_rw(iocb, from, &stalefs_iomap_ops, &stalefs_dio_ops,
				   IOMAP_DIO_FORCE_WAIT, NULL, 0);
		if (ret == -ENOTBLK)
			ret = 0;
		if (ret >= 0 && iov_iter_count(from)) {
			/* Fall back to buffered I/O for what DIO could not do. */
			ssize_t done = ret, b;
			loff_t start = iocb->ki_pos;

			iocb->ki_flags &= ~IOCB_DIRECT;
			current->backing_dev_info = inode_to_bdi(inode);
			b = iomap_file_buffered_write(iocb, from, &stalefs_iomap_ops);
			current->backing_dev_info = NULL;
			if (b > 0)
				iocb->ki_pos += b;
			iocb->ki_flags |= IOCB_DIRECT;
			if (b > 0) {
				int err = filemap_write_and_wait_range(inode->i_mapping, start,
								       start + b - 1);
				if (!err)
					invalidate_mapping_pages(inode->i_mapping,
								 start >> PAGE_SHIFT,
								 (start + b - 1) >> PAGE_SHIFT);
				ret = done + b;
			} else if (!done) {
				ret = b;
			}
		}
	} else {
		current->backing_dev_info = inode_to_bdi(inode);
		ret = iomap_file_buffered_write(iocb, from, &stalefs_iomap_ops);
		current->backing_dev_info = NULL;
		/* 6.1's iomap leaves the position update to the filesystem. */
		if (ret > 0)
			iocb->ki_pos += ret;
	}
	if (ret > 0) {
		/*
		 * A grown size is what fdatasync must carry; a plain overwrite
		 * changed only the times (file_modified), which it need not.
		 */
		if (i_size_read(inode) != old_size)
			mark_inode_dirty(inode);
		/* stale.c: STALE extents this write wholly replaced lose the mark */
		stalefs_stale_written(inode, iocb->ki_pos - ret, ret, iocb->ki_flags & IOCB_DIRECT);
	}
out:
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

/* ---- mmap ---- */

static vm_fault_t stalefs_page_mkwrite(struct vm_fault *vmf)
{
	struct inode *inode = file_inode(vmf->vma->vm_file);
	vm_fault_t ret;

	if (stalefs_forced_shutdown(inode->i_sb))
		return VM_FAULT_SIGBUS;
	sb_start_pagefault(inode->i_sb);
	file_update_time(vmf->vma->vm_file);
	filemap_invalidate_lock_shared(inode->i_mapping);
	ret = iomap_page_mkwrite(vmf, &stalefs_iomap_ops);
	filemap_invalidate_unlock_shared(inode->i_mapping);
	sb_end_pagefault(inode->i_sb);
	return ret;
}

/* A mapping made before the file left confinement (offline) still reads nothing. */
static vm_fault_t stalefs_fault(struct vm_fault *vmf)
{
	if (stalefs_stale_may_read(file_inode(vmf->vma->vm_file)))
		return VM_FAULT_SIGBUS;
	return filemap_fault(vmf);
}

static const struct vm_operations_struct stalefs_vm_ops = {
	.fault		= stalefs_fault,
	.map_pages	= filemap_map_pages,
	.page_mkwrite	= stalefs_page_mkwrite,
};

static int stalefs_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	int err;

	if (stalefs_forced_shutdown(file_inode(file)->i_sb))
		return -EIO;
	err = stalefs_stale_may_read(file_inode(file));
	if (err)
		return err;
	file_accessed(file);
	vma->vm_ops = &stalefs_vm_ops;
	return 0;
}

/* ---- fsync ---- */

int stalefs_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct inode *inode = file->f_mapping->host;
	int err, err2;

	if (stalefs_forced_shutdown(inode->i_sb))
		return -EIO;
	if (stalefs_has_journal(inode->i_sb)) {
		/*
		 * Data first (page writeback ends after its conversion, made in
		 * memory); the conversions into the journal; then the
		 * transaction holding the inode's last change, only if it has not
		 * committed (jbd2 flushes the cache before its commit record),
		 * else just a cache flush for data written in place.
		 */
		err = file_write_and_wait_range(file, start, end);
		if (!err)
			err = stalefs_save_pending(inode);
		if (!err)
			err = stalefs_journal_sync_inode(inode, datasync);
		err2 = file_check_and_advance_wb_err(file);
		return err ? err : err2;
	}

	/*
	 * Waiting for writeback also waits for unwritten conversion (page
	 * writeback ends only after it); then the inode, the extent tree and
	 * directory buffers tied to it go out together (inode.c), and the
	 * cache is flushed.  generic_file_fsync, but with one metadata round
	 * trip where it takes two.
	 */
	err = file_write_and_wait_range(file, start, end);
	if (err)
		return err;
	inode_lock(inode);
	err = stalefs_sync_metadata(inode, datasync);
	inode_unlock(inode);
	err2 = file_check_and_advance_wb_err(file);
	if (!err)
		err = err2;
	if (err)
		return err;
	return blkdev_issue_flush(inode->i_sb->s_bdev);
}

/* ---- seek ---- */

static loff_t stalefs_llseek(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file_inode(file);

	switch (whence) {
	case SEEK_HOLE:
		inode_lock_shared(inode);
		offset = iomap_seek_hole(inode, offset, &stalefs_iomap_ops);
		inode_unlock_shared(inode);
		break;
	case SEEK_DATA:
		inode_lock_shared(inode);
		offset = iomap_seek_data(inode, offset, &stalefs_iomap_ops);
		inode_unlock_shared(inode);
		break;
	default:
		return generic_file_llseek(file, offset, whence);
	}
	if (offset < 0)
		return offset;
	return vfs_setpos(file, offset, inode->i_sb->s_maxbytes);
}

/* ---- fallocate ---- */

/*
 * Fill the holes in blocks [start, end) with extents of the given flags
 * (UNWRITTEN for fallocate, STALE for NO_HIDE_STALE), a bounded piece at a
 * time so others get the map in between.  ENOSPC ends it.
 */
int stalefs_fill_holes(struct inode *inode, u64 start, u64 end, u16 flags)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	int err = 0, retries = 0, credits, revokes;

	end = min_t(u64, end, STALEFS_MAX_FILE_BLOCKS);
	while (start < end && !err) {
		struct stalefs_ext ex;
		u32 n = (u32)min_t(u64, end - start, STALEFS_EXT_MAX_LEN);
		handle_t *handle;

		down_read(&ei->i_map_sem);
		credits = stalefs_credits_alloc(sb, STALEFS_ALLOC_EXTENTS) +
			  stalefs_credits_tree(inode, STALEFS_ALLOC_EXTENTS) + 1;
		revokes = stalefs_revokes_tree(inode, STALEFS_ALLOC_EXTENTS);
		up_read(&ei->i_map_sem);
		handle = stalefs_journal_start(sb, credits, revokes);
		if (IS_ERR(handle))
			return PTR_ERR(handle);
		down_write(&ei->i_map_sem);
		/* Returns an error only when it could map nothing at all. */
		err = stalefs_ext_alloc_range(inode, (u32)start, n, flags, NULL);
		while (!err && start < end && stalefs_ext_lookup(inode, (u32)start, &ex))
			start = (u64)ex.lblk + ex.len;
		up_write(&ei->i_map_sem);
		stalefs_journal_stop(sb, handle);
		if (err == -ENOSPC && stalefs_should_retry_alloc(sb, &retries))
			err = 0;
		cond_resched();
	}
	return err;
}

/*
 * Change flags 'from' to 'to' on [first, last), a few extents per
 * transaction (STALE to written after a write, unwritten to STALE, zeroing).
 */
int stalefs_convert_range(struct inode *inode, u64 first, u64 last, u16 from, u16 to)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	int err = 0, credits, revokes;

	last = min_t(u64, last, STALEFS_MAX_FILE_BLOCKS);
	while (first < last && !err) {
		handle_t *handle;
		u64 next;

		down_read(&ei->i_map_sem);
		credits = stalefs_credits_tree(inode, STALEFS_EDIT_EXTENTS);
		revokes = stalefs_revokes_tree(inode, STALEFS_EDIT_EXTENTS);
		up_read(&ei->i_map_sem);
		handle = stalefs_journal_start(sb, credits, revokes);
		if (IS_ERR(handle))
			return PTR_ERR(handle);
		down_write(&ei->i_map_sem);
		err = stalefs_ext_convert(inode, (u32)first, (u32)(last - first), from, to, &next);
		up_write(&ei->i_map_sem);
		stalefs_journal_stop(sb, handle);
		first = next;
		cond_resched();
	}
	return err;
}

/* Unmap and free [first, last), a few extents per transaction. */
static int remove_range(struct inode *inode, u64 first, u64 last)
{
	struct super_block *sb = inode->i_sb;
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	bool more = true;
	int err = 0, credits, revokes;

	while (more && !err) {
		handle_t *handle;

		down_read(&ei->i_map_sem);
		credits = stalefs_credits_alloc(sb, STALEFS_EDIT_EXTENTS + 1) +
			  stalefs_credits_tree(inode, STALEFS_EDIT_EXTENTS + 1) + 1;
		revokes = stalefs_revokes_tree(inode, STALEFS_EDIT_EXTENTS + 1);
		up_read(&ei->i_map_sem);
		handle = stalefs_journal_start(sb, credits, revokes);
		if (IS_ERR(handle))
			return PTR_ERR(handle);
		down_write(&ei->i_map_sem);
		err = stalefs_ext_remove(inode, (u32)first, last - first, &more);
		up_write(&ei->i_map_sem);
		stalefs_journal_stop(sb, handle);
		cond_resched();
	}
	return err;
}

/* Zero [pos, end) of the file where it lies inside i_size (partial blocks). */
static int zero_partial(struct inode *inode, loff_t pos, loff_t end)
{
	loff_t isize = i_size_read(inode);

	end = min(end, isize);
	if (pos >= end)
		return 0;
	return iomap_zero_range(inode, pos, end - pos, NULL, &stalefs_iomap_ops);
}

/* Unmap whole blocks [first, last), or (zero) turn them unwritten in place. */
static int clear_blocks(struct inode *inode, u64 first, u64 last, bool zero)
{
	int err;

	last = min_t(u64, last, STALEFS_MAX_FILE_BLOCKS);
	if (first >= last)
		return 0;
	if (!zero)
		return remove_range(inode, first, last);
	/* Keeping the blocks keeps the file's layout; zeroing clears STALE. */
	err = stalefs_convert_range(inode, first, last, 0, STALEFS_EXT_UNWRITTEN);
	if (!err)
		err = stalefs_convert_range(inode, first, last, STALEFS_EXT_STALE,
					    STALEFS_EXT_UNWRITTEN);
	return err;
}

/* Punch (zero=false) or zero (zero=true) [off, off+len). */
static int stalefs_clear_range(struct inode *inode, loff_t off, loff_t len, bool zero)
{
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	loff_t end = off + len;
	loff_t ffirst = round_up(off, 1 << bits), flast = round_down(end, 1 << bits);
	int err;

	err = filemap_write_and_wait_range(inode->i_mapping, off, end - 1);
	if (err)
		return err;
	/* Partial blocks at the edges are zeroed in place. */
	if (ffirst > flast) {
		err = zero_partial(inode, off, end);
	} else {
		err = zero_partial(inode, off, ffirst);
		if (!err)
			err = zero_partial(inode, flast, end);
	}
	if (err)
		return err;
	if (ffirst < flast) {
		truncate_pagecache_range(inode, ffirst, flast - 1);
		err = clear_blocks(inode, ffirst >> bits, flast >> bits, zero);
	}
	return err;
}

static long stalefs_file_fallocate(struct file *file, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = file_inode(file);
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	loff_t end = offset + len;
	bool size_change = false;
	long err;

	/* stale.c: for kernels whose VFS lets FALLOC_FL_NO_HIDE_STALE through */
	if (mode & FALLOC_FL_NO_HIDE_STALE)
		return stalefs_stale_fallocate(file, mode, offset, len);
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;
	if (!S_ISREG(inode->i_mode))
		return -ENODEV;
	if (stalefs_forced_shutdown(inode->i_sb))
		return -EIO;

	inode_lock(inode);
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > i_size_read(inode)) {
		err = inode_newsize_ok(inode, end);
		if (err)
			goto out_unlock;
		size_change = true;
	}
	inode_dio_wait(inode);
	err = file_modified(file);
	if (err)
		goto out_unlock;
	filemap_invalidate_lock(inode->i_mapping);
	if (mode & FALLOC_FL_PUNCH_HOLE) {
		err = stalefs_clear_range(inode, offset, len, false);
	} else if (mode & FALLOC_FL_ZERO_RANGE) {
		/* Whole blocks become unwritten; partial edges are zeroed. */
		err = stalefs_fill_holes(inode, offset >> bits,
					 DIV_ROUND_UP_ULL(end, 1ULL << bits), STALEFS_EXT_UNWRITTEN);
		if (!err)
			err = stalefs_clear_range(inode, offset, len, true);
	} else {
		err = stalefs_fill_holes(inode, offset >> bits,
					 DIV_ROUND_UP_ULL(end, 1ULL << bits), STALEFS_EXT_UNWRITTEN);
	}
	if (!err && size_change) {
		err = stalefs_zero_eof(inode, end);
		if (!err)
			i_size_write(inode, end);
	}
	if (!err) {
		inode->i_ctime = current_time(inode);
		if (size_change || (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)))
			inode->i_mtime = inode->i_ctime;
		mark_inode_dirty(inode);
		if (file->f_flags & O_SYNC || IS_SYNC(inode))
			err = stalefs_sync_inode(inode);
	}
	filemap_invalidate_unlock(inode->i_mapping);
out_unlock:
	inode_unlock(inode);
	return err;
}

static int stalefs_fiemap(struct inode *inode, struct fiemap_extent_info *fieinfo,
			  u64 start, u64 len)
{
	int err;

	inode_lock_shared(inode);
	err = iomap_fiemap(inode, fieinfo, start, len, &stalefs_iomap_ops);
	inode_unlock_shared(inode);
	return err;
}

static int stalefs_file_open(struct inode *inode, struct file *file)
{
	if (stalefs_forced_shutdown(inode->i_sb))
		return -EIO;
	return generic_file_open(inode, file);
}

/*
 * The last writer's close ends the file's allocation window (a reader's
 * close leaves it).  The count is read without a lock: at worst a window
 * outlives a racing close until eviction, and a window is only a
 * preference of the allocator.
 */
static int stalefs_file_release(struct inode *inode, struct file *file)
{
	if ((file->f_mode & FMODE_WRITE) && atomic_read(&inode->i_writecount) <= 1)
		stalefs_window_drop(inode);
	return 0;
}

const struct file_operations stalefs_file_operations = {
	.llseek		= stalefs_llseek,
	.read_iter	= stalefs_file_read_iter,
	.write_iter	= stalefs_file_write_iter,
	.mmap		= stalefs_file_mmap,
	.open		= stalefs_file_open,
	.release	= stalefs_file_release,
	.fsync		= stalefs_fsync,
	.splice_read	= generic_file_splice_read,
	.splice_write	= iter_file_splice_write,
	.fallocate	= stalefs_file_fallocate,
	.unlocked_ioctl	= stalefs_ioctl,	/* stale.c */
	.compat_ioctl	= compat_ptr_ioctl,	/* the structs are the same in 32-bit */
};

const struct inode_operations stalefs_file_inode_operations = {
	.setattr	= stalefs_setattr,
	.getattr	= stalefs_getattr,
	.fiemap		= stalefs_fiemap,
	.fileattr_get	= stalefs_fileattr_get,
	.fileattr_set	= stalefs_fileattr_set,
	.listxattr	= stalefs_listxattr,
	.get_acl	= stalefs_get_acl,
	.set_acl	= stalefs_set_acl,
};
