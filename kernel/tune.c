// SPDX-License-Identifier: GPL-2.0
/*
 * Changing a mounted filesystem's superblock settings: the label
 * (FS_IOC_GETFSLABEL / FS_IOC_SETFSLABEL) and the check schedule and error
 * behaviour (STALEFS_IOC_GET_TUNE / STALEFS_IOC_SET_TUNE).
 *
 * Userspace cannot write these itself while the filesystem is mounted:
 * sbi->raw is the superblock's buffer, which the kernel rewrites (free counts,
 * state, error records) and writes back whenever it likes, so a change made
 * on the device underneath would be lost, or half kept with a torn checksum.
 * Here every change is made in that buffer under lock_buffer(sbi->sbh), the
 * lock every other writer of sbi->raw holds, with the checksum recomputed
 * before the lock is let go (a write-back can start the moment it is), and
 * then written in place at once, as the rest of the kernel writes the
 * superblock: it is never journaled, so the journal has nothing to replay
 * over it.  The backup copies keep the mkfs/tunefs values until fsck or an
 * offline tunefs rewrites them, as the kernel never writes them.
 */
#include <linux/capability.h>
#include <linux/mount.h>
#include <linux/uaccess.h>
#include "stalefs.h"
#include "journal.h"

/* The limits mkfs and tunefs apply (stalefs_format.h), so nothing here writes what they would refuse. */
static int tune_valid(const struct stalefs_tune *t)
{
	if (t->set & ~STALEFS_TUNE_ALL)
		return -EINVAL;
	if (t->reserved0 || t->reserved1 || t->reserved[0] || t->reserved[1])
		return -EINVAL;
	if ((t->set & STALEFS_TUNE_ERRORS) && !STALEFS_ERRORS_VALID(t->s_errors))
		return -EINVAL;
	if ((t->set & STALEFS_TUNE_MAX_MNT_COUNT) && t->s_max_mnt_count > STALEFS_MAX_MNT_COUNT_LIMIT)
		return -EINVAL;
	return 0;
}

/*
 * Take write access to the filesystem for a superblock change: refused on a
 * read-only mount or filesystem (EROFS) and after a shutdown (EIO); waits
 * out a freeze.  SB_RDONLY is checked again after mnt_want_write_file,
 * because errors=remount-ro sets it without going through the mount.
 */
static int tune_begin(struct file *file)
{
	struct super_block *sb = file_inode(file)->i_sb;
	int err;

	if (stalefs_forced_shutdown(sb))
		return -EIO;
	err = mnt_want_write_file(file);
	if (err)
		return err;
	if (stalefs_forced_shutdown(sb) || sb_rdonly(sb)) {
		mnt_drop_write_file(file);
		return stalefs_forced_shutdown(sb) ? -EIO : -EROFS;
	}
	/* Not while an online grow has the superblock in the journal (resize.c). */
	mutex_lock(&STALEFS_SB(sb)->sb_mutex);
	return 0;
}

/* Write the changed buffer now and say whether it reached the disk. */
static int tune_end(struct file *file)
{
	struct super_block *sb = file_inode(file)->i_sb;
	int err;

	stalefs_commit_super(sb, false);
	err = sync_dirty_buffer(STALEFS_SB(sb)->sbh);
	mutex_unlock(&STALEFS_SB(sb)->sb_mutex);
	mnt_drop_write_file(file);
	return err ? -EIO : 0;
}

long stalefs_ioc_getfslabel(struct file *file, char __user *ulabel)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(file_inode(file)->i_sb);
	char label[FSLABEL_MAX];

	/* A label of the full 32 bytes (no NUL, written by another tool) still comes back terminated. */
	memset(label, 0, sizeof(label));
	BUILD_BUG_ON(sizeof(sbi->raw->s_volume_name) >= FSLABEL_MAX);
	lock_buffer(sbi->sbh);
	memcpy(label, sbi->raw->s_volume_name, sizeof(sbi->raw->s_volume_name));
	unlock_buffer(sbi->sbh);
	return copy_to_user(ulabel, label, sizeof(label)) ? -EFAULT : 0;
}

long stalefs_ioc_setfslabel(struct file *file, const char __user *ulabel)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(file_inode(file)->i_sb);
	char label[FSLABEL_MAX];
	size_t len;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(label, ulabel, sizeof(label)))
		return -EFAULT;
	/* The generic ioctl's rule: a NUL within FSLABEL_MAX; then ours, the on-disk field's size. */
	len = strnlen(label, sizeof(label));
	if (len == sizeof(label) || len > STALEFS_LABEL_MAX)
		return -EINVAL;
	err = tune_begin(file);
	if (err)
		return err;
	lock_buffer(sbi->sbh);
	memset(sbi->raw->s_volume_name, 0, sizeof(sbi->raw->s_volume_name));
	memcpy(sbi->raw->s_volume_name, label, len);
	stalefs_super_set_csum(sbi->raw);
	unlock_buffer(sbi->sbh);
	return tune_end(file);
}

long stalefs_ioc_get_tune(struct file *file, struct stalefs_tune __user *ut)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(file_inode(file)->i_sb);
	struct stalefs_super_block *raw = sbi->raw;
	struct stalefs_tune t;

	memset(&t, 0, sizeof(t));
	t.set = STALEFS_TUNE_ALL;
	lock_buffer(sbi->sbh);
	t.s_errors = le16_to_cpu(raw->s_errors);
	t.s_max_mnt_count = le32_to_cpu(raw->s_max_mnt_count);
	t.s_mnt_count = le32_to_cpu(raw->s_mnt_count);
	t.s_checkinterval = le32_to_cpu(raw->s_checkinterval);
	t.s_lastcheck = (s64)le64_to_cpu(raw->s_lastcheck);
	unlock_buffer(sbi->sbh);
	return copy_to_user(ut, &t, sizeof(t)) ? -EFAULT : 0;
}

long stalefs_ioc_set_tune(struct file *file, const struct stalefs_tune __user *ut)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(file_inode(file)->i_sb);
	struct stalefs_super_block *raw = sbi->raw;
	struct stalefs_tune t;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&t, ut, sizeof(t)))
		return -EFAULT;
	err = tune_valid(&t);
	if (err)
		return err;
	err = tune_begin(file);
	if (err)
		return err;
	lock_buffer(sbi->sbh);
	if (t.set & STALEFS_TUNE_ERRORS)
		raw->s_errors = cpu_to_le16(t.s_errors);
	if (t.set & STALEFS_TUNE_MAX_MNT_COUNT)
		raw->s_max_mnt_count = cpu_to_le32(t.s_max_mnt_count);
	if (t.set & STALEFS_TUNE_MNT_COUNT)
		raw->s_mnt_count = cpu_to_le32(t.s_mnt_count);
	if (t.set & STALEFS_TUNE_CHECKINTERVAL)
		raw->s_checkinterval = cpu_to_le32(t.s_checkinterval);
	if (t.set & STALEFS_TUNE_LASTCHECK)
		raw->s_lastcheck = cpu_to_le64((u64)t.s_lastcheck);
	stalefs_super_set_csum(raw);
	unlock_buffer(sbi->sbh);
	/* The on-disk default: an errors= mount option keeps the say it was given (super.c). */
	if ((t.set & STALEFS_TUNE_ERRORS) && !sbi->errors_opt)
		WRITE_ONCE(sbi->errors, t.s_errors);
	return tune_end(file);
}
