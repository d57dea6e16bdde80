// SPDX-License-Identifier: GPL-2.0
/*
 * NO_HIDE_STALE: confined stale allocation (docs/DESIGN.md section 2).
 *
 * A STALE extent is allocated without zeroing: reads return whatever its
 * blocks held, writes need no unwritten conversion.  That exposes someone
 * else's old data, so it is fenced three ways:
 *
 *  - the mount must be armed (nohide_stale_gid=GID, which must agree with
 *    the group the superblock records; the first armed mount records it);
 *  - the caller must be in that group and own the file, or hold
 *    CAP_SYS_RAWIO, and nobody else may have the file open or mapped (as a
 *    write lease is refused): a descriptor opened before the file was
 *    confined would read what the new blocks hold;
 *  - the file must be confined: its group is the permitted one and others
 *    have no permission bits at all (with write and execute a stranger can
 *    plant a program in the file that dumps it), and while it holds STALE
 *    extents setattr refuses any change that would let it escape -- a new
 *    owner, another group, any bit for others -- armed or not;
 *  - a file holding STALE extents that is not confined (edited offline) is
 *    not read at all, and the filesystem is marked for a full check.
 *
 * The request comes through STALEFS_IOC_FALLOCATE because Linux 6.1's
 * vfs_fallocate() rejects FALLOC_FL_NO_HIDE_STALE before we see it; the ioctl
 * repeats the checks vfs_fallocate() would have made.  ->fallocate forwards
 * the flag here too, for kernels whose VFS lets it through.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/falloc.h>
#include <linux/fsnotify.h>
#include <linux/limits.h>
#include <linux/mount.h>
#include <linux/mnt_idmapping.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include "stalefs.h"
#include "stale.h"
#include "journal.h"
/* core/ is format/core (or a copy of it beside this file's headers): ../ is where the format headers live. */
#include "core/../stalefs_ioctl.h"

/* The group the superblock records, STALEFS_STALE_GID_NONE if none. */
static u32 recorded_gid(struct super_block *sb)
{
	struct stalefs_super_block *raw = STALEFS_SB(sb)->raw;

	/* The superblock verifier keeps the feature bit and the gid together. */
	if (!(le32_to_cpu(raw->s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE))
		return STALEFS_STALE_GID_NONE;
	return le32_to_cpu(READ_ONCE(raw->s_stale_gid));
}

/* ---- mount ---- */

static void record_gid(struct super_block *sb, u32 gid)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_super_block *raw = sbi->raw;

	/* Not while an online grow has the superblock in the journal (resize.c). */
	mutex_lock(&sbi->sb_mutex);
	lock_buffer(sbi->sbh);
	spin_lock(&sbi->err_lock);
	raw->s_stale_gid = cpu_to_le32(gid);
	raw->s_feature_ro_compat |= cpu_to_le32(STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE);
	stalefs_super_set_csum(raw);
	spin_unlock(&sbi->err_lock);
	unlock_buffer(sbi->sbh);
	stalefs_dirty_held(sbi->sbh);
	/* On disk before the first stale extent can be: fsck's S3 depends on it. */
	sync_dirty_buffer(sbi->sbh);
	mutex_unlock(&sbi->sb_mutex);
}

int stalefs_stale_mount(struct super_block *sb, struct fs_context *fc, bool given, u32 gid,
			bool will_be_ro)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u32 have = recorded_gid(sb);

	if (!given) {
		/* Disarmed: requests get EOPNOTSUPP; confinement still holds. */
		sbi->stale_armed = false;
		return 0;
	}
	if (gid == STALEFS_STALE_GID_NONE || !gid_valid(make_kgid(sb->s_user_ns, gid))) {
		errorf(fc, "stalefs (%s): nohide_stale_gid=%u is not a usable group id", sb->s_id, gid);
		return -EINVAL;
	}
	if (have != STALEFS_STALE_GID_NONE && have != gid) {
		errorf(fc, "stalefs (%s): nohide_stale_gid=%u refused: the filesystem's permitted group is %u",
		       sb->s_id, gid, have);
		return -EINVAL;
	}
	if (have == STALEFS_STALE_GID_NONE) {
		/* Their group was forgotten: a new one would confine them to a group nobody chose. */
		if (stalefs_count_stale_inodes(sb)) {
			errorf(fc, "stalefs (%s): nohide_stale_gid=%u refused: files hold STALE extents but no permitted group is recorded; run fsck.stalefs",
			       sb->s_id, gid);
			return -EINVAL;
		}
		if (will_be_ro) {
			errorf(fc, "stalefs (%s): nohide_stale_gid=%u: no permitted group is recorded yet, "
			       "and a read-only mount cannot record one", sb->s_id, gid);
			return -EINVAL;
		}
		record_gid(sb, gid);
		pr_notice("stalefs (%s): recorded permitted group %u for stale allocation\n",
			  sb->s_id, gid);
	}
	sbi->stale_gid = gid;
	sbi->stale_armed = true;
	return 0;
}

void stalefs_stale_show_options(struct seq_file *seq, struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);

	if (sbi->stale_armed)
		seq_printf(seq, ",nohide_stale_gid=%u", sbi->stale_gid);
}

/* ---- who may, which files ---- */

/* A member of the permitted group who owns the file, or CAP_SYS_RAWIO. */
static bool may_allocate_stale(struct inode *inode)
{
	kgid_t kgid = make_kgid(inode->i_sb->s_user_ns, STALEFS_SB(inode->i_sb)->stale_gid);

	/* The cheap tests first: capable() marks the task as having used privilege. */
	if (in_group_p(kgid) && uid_eq(current_fsuid(), inode->i_uid))
		return true;
	return capable(CAP_SYS_RAWIO);
}

/*
 * Nobody but the caller's descriptor has the file open or mapped: the
 * conditions of a write lease (fs/locks.c check_conflicting_open).
 */
static bool open_elsewhere(struct file *file)
{
	struct inode *inode = file_inode(file);
	int wcount = (file->f_mode & FMODE_WRITE) ? 1 : 0;

	return atomic_read(&inode->i_writecount) != wcount ||
	       atomic_read(&inode->i_readcount) != 0 ||
	       mapping_mapped(inode->i_mapping);
}

static bool is_permitted_gid(struct super_block *sb, kgid_t kgid)
{
	u32 gid = recorded_gid(sb);

	return gid != STALEFS_STALE_GID_NONE && gid_eq(kgid, make_kgid(sb->s_user_ns, gid));
}

/* S4: the permitted group's file, no permission bits for others. */
static bool confined(struct inode *inode)
{
	return is_permitted_gid(inode->i_sb, inode->i_gid) && !(inode->i_mode & S_IRWXO);
}

/* Does the inode hold a STALE extent?  The extents decide, not the flag. */
static bool holds_stale(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	bool any;

	down_read(&ei->i_map_sem);
	any = ei->i_nstale > 0;
	up_read(&ei->i_map_sem);
	return any;
}

void stalefs_stale_sync_flag(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	bool had = ei->i_dflags & STALEFS_INODE_STALE_FL, has = ei->i_nstale;

	if (!S_ISREG(inode->i_mode) || had == has)
		return;
	/* The group counts its stale inodes (FORMAT.md 10, S6): the audit's shortcut. */
	if (stalefs_group_count(inode->i_sb, inode->i_ino, true, has ? 1 : -1))
		return;
	if (has)
		ei->i_dflags |= STALEFS_INODE_STALE_FL;
	else
		ei->i_dflags &= ~STALEFS_INODE_STALE_FL;
}

/*
 * Before any read of a file holding STALE extents: is it confined?  If not
 * (an offline edit gave it away, or its group was forgotten) nothing is
 * read, whoever asks, and the error is recorded so fsck checks it all.
 */
int stalefs_stale_may_read(struct inode *inode)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);

	if (!READ_ONCE(ei->i_nstale) || confined(inode))
		return 0;
	if (!test_and_set_bit(0, &ei->i_stale_reported))
		stalefs_note_error(inode->i_sb, inode->i_ino, 0,
				   "holds STALE extents but is not confined (group %u, mode 0%o): not read; run fsck.stalefs",
				   from_kgid(&init_user_ns, inode->i_gid), inode->i_mode & 07777);
	return -EPERM;
}

int stalefs_stale_setattr_check(struct user_namespace *mnt_userns, struct inode *inode,
				const struct iattr *attr)
{
	if (!(attr->ia_valid & (ATTR_UID | ATTR_GID | ATTR_MODE)) || !S_ISREG(inode->i_mode))
		return 0;
	if (!holds_stale(inode))
		return 0;
	if (attr->ia_valid & ATTR_UID) {
		kuid_t kuid = from_vfsuid(mnt_userns, i_user_ns(inode), attr->ia_vfsuid);

		/* A new owner could read it from outside the group. */
		if (!uid_eq(kuid, inode->i_uid))
			return -EPERM;
	}
	if (attr->ia_valid & ATTR_GID) {
		kgid_t kgid = from_vfsgid(mnt_userns, i_user_ns(inode), attr->ia_vfsgid);

		/* Keeping a gid changes nothing; any other must be the permitted one. */
		if (!gid_eq(kgid, inode->i_gid) && !is_permitted_gid(inode->i_sb, kgid))
			return -EPERM;
	}
	/* No bit for others: reading is the leak, writing and executing plant a reader. */
	if ((attr->ia_valid & ATTR_MODE) && (attr->ia_mode & S_IRWXO))
		return -EPERM;
	return 0;
}

/* ---- the allocation ---- */

/* Holes and unwritten extents of blocks [first, last) become STALE. */
static int make_stale(struct inode *inode, u64 first, u64 last)
{
	struct address_space *mapping = inode->i_mapping;
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	int err;

	last = min_t(u64, last, STALEFS_MAX_FILE_BLOCKS);
	if (first >= last)
		return 0;
	/*
	 * The page cache may hold zeros read from holes or unwritten blocks,
	 * or dirty data still headed for unwritten blocks: write it out (its
	 * conversion completes with the writeback) and drop the clean pages,
	 * so later reads see what the now STALE blocks hold.  A page that will
	 * not go only keeps showing zeros: nothing is exposed by it.
	 */
	err = filemap_write_and_wait_range(mapping, first << bits, (last << bits) - 1);
	if (err)
		return err;
	invalidate_inode_pages2_range(mapping, (first << bits) >> PAGE_SHIFT,
				      ((last << bits) - 1) >> PAGE_SHIFT);

	err = stalefs_convert_range(inode, first, last, STALEFS_EXT_UNWRITTEN, STALEFS_EXT_STALE);

	/* Then the holes. */
	if (!err)
		err = stalefs_fill_holes(inode, first, last, STALEFS_EXT_STALE);
	return err;
}

long stalefs_stale_fallocate(struct file *file, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = file_inode(file);
	struct super_block *sb = inode->i_sb;
	unsigned int bits = sb->s_blocksize_bits;
	unsigned int bs = sb->s_blocksize;
	loff_t end = offset + len;
	bool size_change = false;
	long err;

	if (mode & ~STALEFS_FALLOC_MODES)
		return -EOPNOTSUPP;
	if (!STALEFS_SB(sb)->stale_armed)
		return -EOPNOTSUPP;
	if (!S_ISREG(inode->i_mode))
		return -ENODEV;
	if (!may_allocate_stale(inode))
		return -EPERM;

	inode_lock(inode);
	/* Under the inode lock: a chmod, chown or chgrp (setattr) cannot slip in. */
	err = -EPERM;
	if (!confined(inode) || !may_allocate_stale(inode))
		goto out_unlock;
	err = -EAGAIN;
	if (open_elsewhere(file))
		goto out_unlock;
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
	err = make_stale(inode, offset >> bits, DIV_ROUND_UP_ULL(end, 1ULL << bits));
	if (!err && size_change) {
		loff_t isize = i_size_read(inode);

		/* The old EOF block's tail may hold mmap leftovers: zero it first. */
		if (isize & (bs - 1))
			err = iomap_zero_range(inode, isize,
					       min_t(loff_t, end, round_up(isize, bs)) - isize,
					       NULL, &stalefs_iomap_ops);
		if (!err)
			i_size_write(inode, end);
	}
	if (!err) {
		inode->i_ctime = current_time(inode);
		if (size_change)
			inode->i_mtime = inode->i_ctime;
		mark_inode_dirty(inode);
		if ((file->f_flags & O_SYNC) || IS_SYNC(inode))
			err = stalefs_sync_inode(inode);
	}
	filemap_invalidate_unlock(inode->i_mapping);
out_unlock:
	inode_unlock(inode);
	return err;
}

void stalefs_stale_written(struct inode *inode, loff_t pos, ssize_t len, bool direct)
{
	struct stalefs_inode_info *ei = STALEFS_I(inode);
	unsigned int bits = inode->i_sb->s_blocksize_bits;
	u64 first, last, lo = U64_MAX, hi = 0;
	u32 i;

	if (len <= 0 || !(ei->i_dflags & STALEFS_INODE_STALE_FL))
		return;
	/* Only blocks the write covered entirely. */
	first = DIV_ROUND_UP_ULL(pos, 1ULL << bits);
	last = min_t(u64, (u64)(pos + len) >> bits, STALEFS_MAX_FILE_BLOCKS);
	if (first >= last)
		return;
	/*
	 * STALE extents lying wholly inside [first, last) were rewritten: the
	 * mark has nothing left to audit.  Extents partly covered keep it, so a
	 * write never splits a STALE extent (that would cost what NO_HIDE_STALE
	 * saves).  The span [lo, hi) of those extents holds no other STALE block,
	 * since extents do not overlap.
	 */
	down_read(&ei->i_map_sem);
	for (i = 0; i < ei->i_map.n && EXT(ei, i).lblk < last; i++) {
		const struct stalefs_ext *e = &EXT(ei, i);

		if ((e->flags & STALEFS_EXT_STALE) && e->lblk >= first &&
		    (u64)e->lblk + e->len <= last) {
			lo = min_t(u64, lo, e->lblk);
			hi = max_t(u64, hi, (u64)e->lblk + e->len);
		}
	}
	up_read(&ei->i_map_sem);
	if (lo >= hi)
		return;
	/*
	 * The mark goes only once the new data is on disk: after a crash a
	 * block must be either rewritten or still marked.  Direct writes have
	 * completed by now (the write path waits for them and flushes what it
	 * fell back to buffering).  On failure the mark simply stays.
	 */
	if (!direct && filemap_write_and_wait_range(inode->i_mapping, lo << bits,
						    (hi << bits) - 1))
		return;
	/* With a journal, the data's cache flush precedes the commit that clears the mark. */
	if (stalefs_convert_range(inode, lo, hi, STALEFS_EXT_STALE, 0) &&
	    !stalefs_forced_shutdown(inode->i_sb) && !sb_rdonly(inode->i_sb))
		stalefs_error(inode->i_sb, inode->i_ino, 0,
			      "cannot clear the stale mark of blocks %llu-%llu", lo, hi - 1);
}

/* ---- the ioctls ---- */

static long ioc_fallocate(struct file *file, struct stalefs_falloc_args __user *uarg)
{
	struct inode *inode = file_inode(file);
	struct stalefs_falloc_args a;
	loff_t offset, len;
	long err;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if ((a.mode & ~STALEFS_FALLOC_MODES) || a.reserved || !a.length ||
	    a.offset > LLONG_MAX || a.length > LLONG_MAX - a.offset)
		return -EINVAL;
	offset = a.offset;
	len = a.length;
	/* Without NO_HIDE_STALE this is plain fallocate(2), every check included. */
	if (!(a.mode & FALLOC_FL_NO_HIDE_STALE))
		return vfs_fallocate(file, a.mode, offset, len);
	/* Disarmed is "this mode is not supported here", as vfs_fallocate says it. */
	if (!STALEFS_SB(inode->i_sb)->stale_armed)
		return -EOPNOTSUPP;

	/*
	 * What vfs_fallocate() checks before ->fallocate, in its order.  Only
	 * security_file_permission() cannot be repeated (not exported to
	 * modules): the security module had its say when the file was opened
	 * for writing.
	 */
	if (!(file->f_mode & FMODE_WRITE))
		return -EBADF;
	if (IS_APPEND(inode))		/* the mode is more than KEEP_SIZE */
		return -EPERM;
	if (IS_IMMUTABLE(inode))
		return -EPERM;
	if (IS_SWAPFILE(inode))
		return -ETXTBSY;
	if (!S_ISREG(inode->i_mode))
		return -ENODEV;
	if (offset + len > inode->i_sb->s_maxbytes)
		return -EFBIG;

	/* Freeze protection and the mount's write count, as file_start_write gives fallocate. */
	err = mnt_want_write_file(file);
	if (err)
		return err;
	err = stalefs_stale_fallocate(file, a.mode, offset, len);
	mnt_drop_write_file(file);
	if (!err)
		fsnotify_modify(file);
	return err;
}

static long ioc_stale_info(struct file *file, struct stalefs_stale_info __user *uarg)
{
	struct super_block *sb = file_inode(file)->i_sb;
	struct stalefs_stale_info info = {
		.stale_gid = recorded_gid(sb),
		.armed = STALEFS_SB(sb)->stale_armed,
	};

	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

/* FS_IOC_GOINGDOWN (journal.c): on any file or directory of the filesystem. */
static long ioc_goingdown(struct file *file, u32 __user *uarg)
{
	u32 flags;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (get_user(flags, uarg))
		return -EFAULT;
	return stalefs_shutdown(file_inode(file)->i_sb, flags);
}

long stalefs_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case STALEFS_IOC_FALLOCATE:
		return ioc_fallocate(file, (void __user *)arg);
	case STALEFS_IOC_STALE_INFO:
		return ioc_stale_info(file, (void __user *)arg);
	case STALEFS_IOC_GOINGDOWN:
		return ioc_goingdown(file, (u32 __user *)arg);
	/* tune.c: on any file or directory, as ext4 and xfs take them (xfs_io's label runs on the mount point) */
	case FS_IOC_GETFSLABEL:
		return stalefs_ioc_getfslabel(file, (char __user *)arg);
	case FS_IOC_SETFSLABEL:
		return stalefs_ioc_setfslabel(file, (const char __user *)arg);
	case STALEFS_IOC_GET_TUNE:
		return stalefs_ioc_get_tune(file, (struct stalefs_tune __user *)arg);
	case STALEFS_IOC_SET_TUNE:
		return stalefs_ioc_set_tune(file, (const struct stalefs_tune __user *)arg);
	/* trim.c and resize.c: on any file or directory, as ext4 takes them (fstrim opens the mount point) */
	case FITRIM:
		return stalefs_ioc_fitrim(file, (struct fstrim_range __user *)arg);
	case STALEFS_IOC_RESIZE_FS:
		return stalefs_ioc_resize_fs(file, (const u64 __user *)arg);
	default:
		return -ENOTTY;
	}
}
