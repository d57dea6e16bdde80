// SPDX-License-Identifier: GPL-2.0
/*
 * stalefs superblock: mount, remount, umount, statfs, options, and the
 * error path that records what went wrong on disk for fsck.
 */
#include <linux/module.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/statfs.h>
#include <linux/blkdev.h>
#include <linux/ratelimit.h>
#include "stalefs.h"
#include "stale.h"
#include "journal.h"
#include "xattr.h"

static struct kmem_cache *stalefs_inode_cachep;

/* ---- errors ---- */

static void set_func(char *dst, size_t n, const char *func)
{
	size_t l = strnlen(func, n);

	memset(dst, 0, n);
	memcpy(dst, func, l);
}

/*
 * The superblock is in a grow's transaction (resize.c): its buffer is the
 * journal's until the commit, so an error met meanwhile is kept here and
 * written into it afterwards (stalefs_super_journaled).
 */
static void stash_error(struct stalefs_err_stash *st, const char *func, u32 ino, u64 block,
			time64_t now)
{
	if (!st->count++) {
		st->first_time = now;
		st->first_block = block;
		st->first_ino = ino;
		set_func(st->first_func, sizeof(st->first_func), func);
	}
	st->last_time = now;
	st->last_block = block;
	st->last_ino = ino;
	set_func(st->last_func, sizeof(st->last_func), func);
}

void stalefs_super_journaled(struct super_block *sb, bool on)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_super_block *raw = sbi->raw;
	struct stalefs_err_stash *st = &sbi->err_stash;
	bool stashed;

	lock_buffer(sbi->sbh);
	spin_lock(&sbi->err_lock);
	if (on) {
		set_bit(STALEFS_FLAG_SB_JOURNALED, &sbi->flags);
		memset(st, 0, sizeof(*st));
		spin_unlock(&sbi->err_lock);
		unlock_buffer(sbi->sbh);
		return;
	}
	clear_bit(STALEFS_FLAG_SB_JOURNALED, &sbi->flags);
	stashed = st->count != 0;
	if (stashed) {
		if (!raw->s_error_count) {
			raw->s_first_error_time = cpu_to_le64(st->first_time);
			raw->s_first_error_block = cpu_to_le64(st->first_block);
			raw->s_first_error_ino = cpu_to_le32(st->first_ino);
			memcpy(raw->s_first_error_func, st->first_func, sizeof(st->first_func));
		}
		raw->s_last_error_time = cpu_to_le64(st->last_time);
		raw->s_last_error_block = cpu_to_le64(st->last_block);
		raw->s_last_error_ino = cpu_to_le32(st->last_ino);
		memcpy(raw->s_last_error_func, st->last_func, sizeof(st->last_func));
		le32_add_cpu(&raw->s_error_count, st->count);
		raw->s_state |= cpu_to_le16(STALEFS_STATE_ERRORS);
		stalefs_super_set_csum(raw);
	}
	spin_unlock(&sbi->err_lock);
	unlock_buffer(sbi->sbh);
	if (stashed && !sb_rdonly(sb) && !stalefs_forced_shutdown(sb))
		stalefs_dirty_held(sbi->sbh);
}

/* Log the error and record it in the superblock, so fsck knows a full check is needed. */
static void record_error(struct super_block *sb, const char *func, u32 ino, u64 block,
			 struct va_format *vaf)
{
	static DEFINE_RATELIMIT_STATE(rs, 5 * HZ, 10);
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_super_block *raw = sbi->raw;
	time64_t now = ktime_get_real_seconds();

	if (__ratelimit(&rs))
		pr_err("stalefs (%s): error in %s: inode %u, block %llu: %pV\n",
		       sb->s_id, func, ino, block, vaf);
	/* A read-only mount never writes, not even the error record; nor a shut-down one. */
	if (!raw || sb_rdonly(sb) || stalefs_forced_shutdown(sb))
		return;
	lock_buffer(sbi->sbh);
	spin_lock(&sbi->err_lock);
	if (test_bit(STALEFS_FLAG_SB_JOURNALED, &sbi->flags)) {
		stash_error(&sbi->err_stash, func, ino, block, now);
		spin_unlock(&sbi->err_lock);
		unlock_buffer(sbi->sbh);
		return;
	}
	if (!raw->s_error_count) {
		raw->s_first_error_time = cpu_to_le64(now);
		raw->s_first_error_block = cpu_to_le64(block);
		raw->s_first_error_ino = cpu_to_le32(ino);
		set_func(raw->s_first_error_func, sizeof(raw->s_first_error_func), func);
	}
	raw->s_last_error_time = cpu_to_le64(now);
	raw->s_last_error_block = cpu_to_le64(block);
	raw->s_last_error_ino = cpu_to_le32(ino);
	set_func(raw->s_last_error_func, sizeof(raw->s_last_error_func), func);
	le32_add_cpu(&raw->s_error_count, 1);
	raw->s_state |= cpu_to_le16(STALEFS_STATE_ERRORS);
	stalefs_super_set_csum(raw);
	spin_unlock(&sbi->err_lock);
	unlock_buffer(sbi->sbh);
	stalefs_dirty_held(sbi->sbh);
}

/*
 * Recorded for fsck, without the errors= reaction: for what the module can
 * refuse without going on with damaged state (a stale file found out of
 * confinement is not read, and nothing else needs stopping).
 */
void __stalefs_note_error(struct super_block *sb, const char *func, u32 ino, u64 block,
			  const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	record_error(sb, func, ino, block, &vaf);
	va_end(args);
}

void __stalefs_error(struct super_block *sb, const char *func, u32 ino, u64 block,
		     const char *fmt, ...)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	record_error(sb, func, ino, block, &vaf);
	va_end(args);
	if (!sbi->raw || sb_rdonly(sb) || stalefs_forced_shutdown(sb))
		return;

	switch (sbi->errors) {
	case STALEFS_ERRORS_PANIC:
		stalefs_journal_abort(sb, -EIO);
		panic("stalefs (%s): panic forced after error\n", sb->s_id);
		break;
	case STALEFS_ERRORS_RO:
		pr_crit("stalefs (%s): remounting filesystem read-only\n", sb->s_id);
		/* Nothing of the transaction that met the damage may commit. */
		stalefs_journal_abort(sb, -EIO);
		sync_dirty_buffer(sbi->sbh);
		sb->s_flags |= SB_RDONLY;
		break;
	default:
		break;
	}
}

/*
 * The journal cannot go on (it aborted, a transaction failed): without it
 * nothing can be written consistently, so the filesystem goes read-only
 * whatever errors= says (errors=panic still panics), as ext4 does.  The
 * error is recorded in the superblock, written in place, for fsck.
 */
void __stalefs_abort(struct super_block *sb, const char *func, int err, const char *why)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	int behaviour;

	if (stalefs_forced_shutdown(sb) || (sb_rdonly(sb) && err == -EROFS))
		return;
	if (sbi->errors == STALEFS_ERRORS_PANIC || sb_rdonly(sb)) {
		__stalefs_error(sb, func, 0, 0, "%s (error %d)", why, err);
		return;
	}
	/* Record it without the errors= reaction, then stop writing. */
	behaviour = sbi->errors;
	sbi->errors = STALEFS_ERRORS_CONTINUE;
	__stalefs_error(sb, func, 0, 0, "%s (error %d)", why, err);
	sbi->errors = behaviour;
	stalefs_journal_abort(sb, err);
	pr_crit("stalefs (%s): remounting filesystem read-only\n", sb->s_id);
	sync_dirty_buffer(sbi->sbh);
	sb->s_flags |= SB_RDONLY;
}

/*
 * Write the summaries and state into the primary superblock.  Not while a
 * grow has it in the journal (resize.c): it writes them itself after.
 */
void stalefs_commit_super(struct super_block *sb, bool wait)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_super_block *raw = sbi->raw;

	lock_buffer(sbi->sbh);
	spin_lock(&sbi->err_lock);
	if (test_bit(STALEFS_FLAG_SB_JOURNALED, &sbi->flags)) {
		spin_unlock(&sbi->err_lock);
		unlock_buffer(sbi->sbh);
		return;
	}
	raw->s_free_blocks_count = cpu_to_le64(sbi->free_blocks);
	raw->s_free_inodes_count = cpu_to_le32(sbi->free_inodes);
	raw->s_wtime = cpu_to_le64(ktime_get_real_seconds());
	stalefs_super_set_csum(raw);
	spin_unlock(&sbi->err_lock);
	unlock_buffer(sbi->sbh);
	stalefs_dirty_held(sbi->sbh);
	if (wait)
		sync_dirty_buffer(sbi->sbh);
}

static void set_state(struct super_block *sb, bool clean)
{
	struct stalefs_super_block *raw = STALEFS_SB(sb)->raw;
	u16 st = le16_to_cpu(raw->s_state);

	st = clean ? (st | STALEFS_STATE_CLEAN) : (st & ~STALEFS_STATE_CLEAN);
	raw->s_state = cpu_to_le16(st);
}

/* ---- inode cache ---- */

static struct inode *stalefs_sb_alloc_inode(struct super_block *sb)
{
	struct stalefs_inode_info *ei = alloc_inode_sb(sb, stalefs_inode_cachep, GFP_KERNEL);

	if (!ei)
		return NULL;
	ei->i_map_seq = 0;
	ei->i_root_gen = 0;
	memset(&ei->i_map, 0, sizeof(ei->i_map));
	ei->i_nstale = 0;
	ei->i_dirty_lo = 0;
	ei->i_dirty_hi = U64_MAX;
	ei->i_repack = true;
	ei->i_nodes = NULL;
	ei->i_nnodes = 0;
	ei->i_nleaves = 0;
	ei->i_leaf_key = NULL;
	ei->i_leaf_dirty = NULL;
	ei->i_dx = NULL;
	ei->i_dflags = 0;
	ei->i_dtime = 0;
	ei->i_dir_group = 0;
	ei->i_xattr_block = 0;
	ei->i_converting = false;
	ei->i_sync_tid = ei->i_datasync_tid = 0;
	ei->i_save_pending = false;
	ei->i_stale_reported = 0;
	ei->i_pending_edits = 0;
	INIT_LIST_HEAD(&ei->i_save_node);
	RB_CLEAR_NODE(&ei->i_window.node);
	memset(ei->i_data, 0, sizeof(ei->i_data));
	return &ei->vfs_inode;
}

static void stalefs_sb_free_inode(struct inode *inode)
{
	kmem_cache_free(stalefs_inode_cachep, STALEFS_I(inode));
}

static void init_once(void *p)
{
	struct stalefs_inode_info *ei = p;

	init_rwsem(&ei->i_map_sem);
	init_rwsem(&ei->i_xattr_sem);
	mutex_init(&ei->i_dx_lock);
	spin_lock_init(&ei->i_ioend_lock);
	INIT_LIST_HEAD(&ei->i_ioend_list);
	INIT_WORK(&ei->i_ioend_work, stalefs_ioend_work);
	inode_init_once(&ei->vfs_inode);
}

/* ---- super_operations ---- */

static void stalefs_sb_put_super(struct super_block *sb)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	bool rw = !sb_rdonly(sb) && !stalefs_forced_shutdown(sb);

	cancel_delayed_work_sync(&sbi->save_work);
	if (sbi->conv_wq)
		destroy_workqueue(sbi->conv_wq);
	/* Checkpoints everything: the log is empty afterwards, RECOVER may go. */
	stalefs_journal_release(sb, rw);
	if (rw) {
		set_state(sb, true);
		stalefs_commit_super(sb, true);
	}
	stalefs_put_groups(sb);
	stalefs_resize_release(sb);
	stalefs_trim_release(sb);
	brelse(sbi->sbh);
	sb->s_fs_info = NULL;
	kfree(sbi);
}

static int stalefs_sb_sync_fs(struct super_block *sb, int wait)
{
	int err;

	if (sb_rdonly(sb) || stalefs_forced_shutdown(sb))
		return 0;
	/*
	 * Extents converted in memory at I/O completion go into the journal
	 * first.  The worker is run to completion first: at umount it must
	 * not hold an inode when the inodes are evicted.
	 */
	if (wait)
		flush_delayed_work(&STALEFS_SB(sb)->save_work);
	err = stalefs_save_all_pending(sb);
	if (stalefs_has_journal(sb)) {
		int err2 = stalefs_journal_sync_fs(sb, wait);

		stalefs_commit_super(sb, wait);
		return err ? err : err2;
	}
	stalefs_commit_super(sb, wait);
	if (!wait)
		return err;
	/*
	 * syncfs(2), sync(2) and umount call this before their own last
	 * sync_blockdev, and none of them flushes the device's write cache
	 * (fsync does, in generic_file_fsync).  Write and wait for the
	 * metadata buffers (directory blocks, inode tables, bitmaps,
	 * descriptors) here, then flush: otherwise what syncfs promised is
	 * still in a volatile cache and a power cut loses it (found by the
	 * power-cut test: files made durable by syncfs were gone).
	 */
	err = sync_blockdev(sb->s_bdev);
	if (err)
		return err;
	return blkdev_issue_flush(sb->s_bdev);
}

static int stalefs_sb_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct super_block *sb = dentry->d_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	u64 r = le64_to_cpu(sbi->raw->s_r_blocks_count);
	u64 id = huge_encode_dev(sb->s_bdev->bd_dev);

	buf->f_type = STALEFS_SUPER_MAGIC;
	buf->f_bsize = sb->s_blocksize;
	buf->f_blocks = sbi->geom.blocks_count;
	buf->f_bfree = sbi->free_blocks;
	r += sbi->resv_blocks;
	buf->f_bavail = sbi->free_blocks > r ? sbi->free_blocks - r : 0;
	buf->f_files = sbi->geom.inodes_count;
	buf->f_ffree = sbi->free_inodes;
	buf->f_namelen = STALEFS_NAME_LEN;
	buf->f_fsid = u64_to_fsid(id ^ le32_to_cpu(sbi->csum_seed));
	return 0;
}

static const char *const errors_names[] = {
	[STALEFS_ERRORS_CONTINUE] = "continue",
	[STALEFS_ERRORS_RO] = "remount-ro",
	[STALEFS_ERRORS_PANIC] = "panic",
};

static int stalefs_sb_show_options(struct seq_file *seq, struct dentry *root)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(root->d_sb);

	if (sbi->errors_opt)
		seq_printf(seq, ",errors=%s", errors_names[sbi->errors]);
	if (sbi->commit_interval)
		seq_printf(seq, ",commit=%u", sbi->commit_interval);
	if (sbi->norecovery)
		seq_puts(seq, ",norecovery");
	if (stalefs_has_xattr(root->d_sb) && !(root->d_sb->s_flags & SB_POSIXACL))
		seq_puts(seq, ",noacl");
	if (sbi->discard)
		seq_puts(seq, ",discard");
	stalefs_stale_show_options(seq, root->d_sb);
	return 0;
}

/*
 * Going read-only or frozen with a journal: everything committed and in
 * place, the log empty, so the image needs no recovery (a snapshot of a
 * frozen device mounts without replay).
 */
static int journal_quiesce(struct super_block *sb)
{
	int err = stalefs_journal_flush_all(sb);

	if (err)
		return err;
	if (stalefs_has_journal(sb))
		STALEFS_SB(sb)->raw->s_feature_incompat &=
			cpu_to_le32(~STALEFS_FEATURE_INCOMPAT_RECOVER);
	return 0;
}

static int stalefs_sb_freeze_fs(struct super_block *sb)
{
	int err;

	if (sb_rdonly(sb) || stalefs_forced_shutdown(sb))
		return 0;
	err = journal_quiesce(sb);
	if (err)
		return err;
	stalefs_commit_super(sb, true);
	return 0;
}

static int stalefs_sb_unfreeze_fs(struct super_block *sb)
{
	if (sb_rdonly(sb) || stalefs_forced_shutdown(sb) || !stalefs_has_journal(sb))
		return 0;
	STALEFS_SB(sb)->raw->s_feature_incompat |= cpu_to_le32(STALEFS_FEATURE_INCOMPAT_RECOVER);
	stalefs_commit_super(sb, true);
	return 0;
}

static const struct super_operations stalefs_sops = {
	.alloc_inode	= stalefs_sb_alloc_inode,
	.free_inode	= stalefs_sb_free_inode,
	.dirty_inode	= stalefs_sb_dirty_inode,
	.write_inode	= stalefs_sb_write_inode,
	.evict_inode	= stalefs_sb_evict_inode,
	.put_super	= stalefs_sb_put_super,
	.sync_fs	= stalefs_sb_sync_fs,
	.freeze_fs	= stalefs_sb_freeze_fs,
	.unfreeze_fs	= stalefs_sb_unfreeze_fs,
	.statfs		= stalefs_sb_statfs,
	.show_options	= stalefs_sb_show_options,
};

/* ---- mount ---- */

enum { Opt_errors, Opt_nohide_stale_gid, Opt_commit, Opt_norecovery, Opt_acl, Opt_discard };

static const struct constant_table stalefs_param_errors[] = {
	{ "continue",	STALEFS_ERRORS_CONTINUE },
	{ "remount-ro",	STALEFS_ERRORS_RO },
	{ "panic",	STALEFS_ERRORS_PANIC },
	{}
};

static const struct fs_parameter_spec stalefs_param_spec[] = {
	fsparam_enum("errors", Opt_errors, stalefs_param_errors),
	fsparam_u32("nohide_stale_gid", Opt_nohide_stale_gid),	/* stale.c */
	fsparam_u32("commit", Opt_commit),
	fsparam_flag("norecovery", Opt_norecovery),
	fsparam_flag("noload", Opt_norecovery),
	fsparam_flag_no("acl", Opt_acl),
	fsparam_flag_no("discard", Opt_discard),	/* trim.c */
	{}
};

static int stalefs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct stalefs_mount_opts *opts = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, stalefs_param_spec, param, &result);
	if (opt < 0)
		return opt;
	switch (opt) {
	case Opt_errors:
		opts->errors = result.uint_32;
		break;
	case Opt_nohide_stale_gid:
		opts->stale_gid_set = true;
		opts->stale_gid = result.uint_32;
		break;
	case Opt_commit:
		/* jbd2 keeps the interval in jiffies in an unsigned long: a day is plenty. */
		if (result.uint_32 > 24 * 3600)
			return invalfc(fc, "commit=%u: at most 86400 seconds", result.uint_32);
		opts->commit_set = true;
		opts->commit = result.uint_32;
		break;
	case Opt_norecovery:
		opts->norecovery = true;
		break;
	case Opt_acl:
		opts->acl_set = true;
		opts->noacl = result.negated;
		break;
	case Opt_discard:
		opts->discard_set = true;
		opts->discard = !result.negated;
		break;
	}
	return 0;
}

/* Read the primary superblock at byte 1024, whatever the block size. */
static int read_super(struct super_block *sb, struct fs_context *fc)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_super_block *raw;
	struct buffer_head *bh;
	int rule, bs;

	if (!sb_set_blocksize(sb, 1024)) {
		errorf(fc, "stalefs: device block size is larger than 1024");
		return -EINVAL;
	}
	bh = sb_bread(sb, 1);
	if (!bh) {
		errorf(fc, "stalefs: cannot read superblock");
		return -EIO;
	}
	raw = (void *)bh->b_data;
	if (le32_to_cpu(raw->s_magic) != STALEFS_SUPER_MAGIC) {
		if (!(fc->sb_flags & SB_SILENT))
			errorf(fc, "stalefs (%s): no stalefs superblock found", sb->s_id);
		brelse(bh);
		return -EINVAL;
	}
	rule = stalefs_verify_super_csum(raw);
	if (!rule)
		rule = stalefs_verify_super(raw);
	if (rule && rule != STALEFS_R_SB_RO_COMPAT_UNKNOWN) {
		errorf(fc, "stalefs (%s): bad superblock: %s", sb->s_id, stalefs_rule_msg(rule));
		brelse(bh);
		return -EUCLEAN;
	}
	bs = 1024 << le32_to_cpu(raw->s_log_block_size);
	brelse(bh);
	if (bs != 1024) {
		if (!sb_set_blocksize(sb, bs)) {
			errorf(fc, "stalefs (%s): unsupported block size %d", sb->s_id, bs);
			return -EINVAL;
		}
	}
	bh = sb_bread(sb, STALEFS_SUPER_OFFSET / bs);
	if (!bh)
		return -EIO;
	raw = (void *)(bh->b_data + STALEFS_SUPER_OFFSET % bs);
	/* Re-check: the block was re-read at the new size. */
	rule = stalefs_verify_super_csum(raw);
	if (!rule)
		rule = stalefs_verify_super(raw);
	if (rule && rule != STALEFS_R_SB_RO_COMPAT_UNKNOWN) {
		errorf(fc, "stalefs (%s): bad superblock: %s", sb->s_id, stalefs_rule_msg(rule));
		brelse(bh);
		return -EUCLEAN;
	}
	if (rule == STALEFS_R_SB_RO_COMPAT_UNKNOWN && !(fc->sb_flags & SB_RDONLY)) {
		errorf(fc, "stalefs (%s): unsupported read-only features 0x%x: mount read-only",
		       sb->s_id, le32_to_cpu(raw->s_feature_ro_compat) &
		       ~STALEFS_FEATURE_RO_COMPAT_SUPP);
		brelse(bh);
		/* Not EROFS: mount(8) would quietly retry read-only. */
		return -EINVAL;
	}
	sbi->sbh = bh;
	sbi->raw = raw;
	sbi->csum_seed = le32_to_cpu(raw->s_csum_seed);
	rule = stalefs_geom_from_super(&sbi->geom, raw);
	if (rule)
		return -EUCLEAN;
	if (sbi->geom.blocks_count > (bdev_nr_bytes(sb->s_bdev) >> sb->s_blocksize_bits)) {
		errorf(fc, "stalefs (%s): filesystem is larger than the device", sb->s_id);
		return -EINVAL;
	}
	return 0;
}

static bool ro_compat_unknown(struct super_block *sb)
{
	return le32_to_cpu(STALEFS_SB(sb)->raw->s_feature_ro_compat) &
	       ~STALEFS_FEATURE_RO_COMPAT_SUPP;
}

/*
 * A check the superblock schedules (FORMAT.md 2) is fsck's to run; the
 * kernel only says it is due, as ext4 does, and mounts anyway.
 */
static void warn_check_due(struct super_block *sb)
{
	struct stalefs_super_block *raw = STALEFS_SB(sb)->raw;
	u32 max = le32_to_cpu(raw->s_max_mnt_count), interval = le32_to_cpu(raw->s_checkinterval);

	if (max && le32_to_cpu(raw->s_mnt_count) >= max)
		pr_warn("stalefs (%s): maximal mount count reached, running fsck.stalefs is recommended\n",
			sb->s_id);
	else if (interval && ktime_get_real_seconds() >= (time64_t)le64_to_cpu(raw->s_lastcheck) + interval)
		pr_warn("stalefs (%s): checktime reached, running fsck.stalefs is recommended\n", sb->s_id);
}

/* Going read-write: the filesystem is not clean until a clean umount. */
static void mark_mounted_rw(struct super_block *sb)
{
	struct stalefs_super_block *raw = STALEFS_SB(sb)->raw;

	warn_check_due(sb);
	set_state(sb, false);
	/* Before the first transaction can commit: tools must replay from now on. */
	if (stalefs_has_journal(sb))
		raw->s_feature_incompat |= cpu_to_le32(STALEFS_FEATURE_INCOMPAT_RECOVER);
	le32_add_cpu(&raw->s_mnt_count, 1);
	raw->s_mtime = cpu_to_le64(ktime_get_real_seconds());
	stalefs_commit_super(sb, true);
}

/* ACLs are enforced by default, as on ext4, where the format can keep them. */
static void set_posixacl(struct super_block *sb, const struct stalefs_mount_opts *opts)
{
	if (IS_ENABLED(CONFIG_FS_POSIX_ACL) && stalefs_has_xattr(sb) && !opts->noacl)
		sb->s_flags |= SB_POSIXACL;
	else
		sb->s_flags &= ~SB_POSIXACL;
}

/* discard (trim.c): only where the device takes discards, as ext4 warns and goes on. */
static void set_discard(struct super_block *sb, bool on)
{
	if (on && !bdev_max_discard_sectors(sb->s_bdev)) {
		pr_warn("stalefs (%s): mounting with \"discard\" option, but the device does not support discard\n",
			sb->s_id);
		on = false;
	}
	WRITE_ONCE(STALEFS_SB(sb)->discard, on);
}

/*
 * After the replay: the superblock's block may have been in a grow's
 * transaction (its buffer is the one the replay wrote), so it is verified
 * and its geometry taken again.
 */
static int check_super_after_replay(struct super_block *sb, struct fs_context *fc)
{
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_geom g;
	int rule = stalefs_verify_super_csum(sbi->raw);

	if (!rule)
		rule = stalefs_verify_super(sbi->raw);
	if (rule == STALEFS_R_SB_RO_COMPAT_UNKNOWN)
		rule = 0;
	if (!rule)
		rule = stalefs_geom_from_super(&g, sbi->raw);
	if (rule) {
		errorf(fc, "stalefs (%s): bad superblock after journal replay: %s", sb->s_id,
		       stalefs_rule_msg(rule));
		return -EUCLEAN;
	}
	if (g.blocks_count > (bdev_nr_bytes(sb->s_bdev) >> sb->s_blocksize_bits)) {
		errorf(fc, "stalefs (%s): filesystem is larger than the device", sb->s_id);
		return -EINVAL;
	}
	sbi->geom = g;
	return 0;
}

static int stalefs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct stalefs_mount_opts *opts = fc->fs_private;
	struct stalefs_sb_info *sbi;
	struct inode *root;
	int err;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	sb->s_fs_info = sbi;
	sbi->sb = sb;
	mutex_init(&sbi->alloc_lock);
	spin_lock_init(&sbi->err_lock);
	spin_lock_init(&sbi->pending_lock);
	sbi->pending = RB_ROOT;
	INIT_LIST_HEAD(&sbi->pending_list);
	spin_lock_init(&sbi->save_lock);
	INIT_LIST_HEAD(&sbi->save_list);
	INIT_DELAYED_WORK(&sbi->save_work, stalefs_save_work);
	sbi->windows = RB_ROOT;
	sbi->commit_interval = opts->commit;
	sbi->norecovery = opts->norecovery;
	mutex_init(&sbi->sb_mutex);
	INIT_LIST_HEAD(&sbi->gd_retired);
	err = stalefs_trim_init(sb);
	if (err)
		goto fail;
	set_discard(sb, opts->discard);

	err = read_super(sb, fc);
	if (err)
		goto fail;
	sbi->errors = opts->errors ? opts->errors : le16_to_cpu(sbi->raw->s_errors);
	sbi->errors_opt = opts->errors != 0;
	/* Replay first: the descriptors, bitmaps and inodes read below are then the committed ones. */
	err = stalefs_journal_load(sb, fc, sb_rdonly(sb));
	if (err)
		goto fail;
	/* A grow's transaction may have replayed the superblock itself (FORMAT.md 12). */
	err = check_super_after_replay(sb, fc);
	if (err)
		goto fail;

	sb->s_magic = STALEFS_SUPER_MAGIC;
	sb->s_op = &stalefs_sops;
	sb->s_xattr = stalefs_xattr_handlers;
	set_posixacl(sb, opts);
	sb->s_maxbytes = min_t(u64, MAX_LFS_FILESIZE,
			       STALEFS_MAX_FILE_BLOCKS << sb->s_blocksize_bits);
	sb->s_time_gran = 1;
	sb->s_time_min = TIME64_MIN;
	sb->s_time_max = TIME64_MAX;
	memcpy(&sb->s_uuid, sbi->raw->s_uuid, sizeof(sbi->raw->s_uuid));

	err = stalefs_load_groups(sb);
	if (err)
		goto fail;
	if (sbi->journal_blocks && !stalefs_meta_free(sb, sbi->journal_start, sbi->journal_blocks)) {
		errorf(fc, "stalefs (%s): the journal (blocks %llu-%llu) overlaps a group's bitmaps or inode table: run fsck.stalefs",
		       sb->s_id, sbi->journal_start, sbi->journal_start + sbi->journal_blocks - 1);
		err = -EUCLEAN;
		goto fail;
	}
	/* stale.c: arm NO_HIDE_STALE, recording the permitted group if need be (it counts
	 * the groups' stale inodes, so the descriptors come first). */
	err = stalefs_stale_mount(sb, fc, opts->stale_gid_set, opts->stale_gid, sb_rdonly(sb));
	if (err)
		goto fail;
	/* The descriptors are authoritative; the superblock holds summaries. */
	sbi->free_blocks = stalefs_count_free_blocks(sb);
	/* 2% of the filesystem, at most 4096 blocks: ext4's reserve for conversion. */
	sbi->resv_blocks = min_t(u64, div_u64(sbi->geom.blocks_count, 50), 4096);
	sbi->free_inodes = stalefs_count_free_inodes(sb);

	err = -ENOMEM;
	sbi->conv_wq = alloc_workqueue("stalefs-conv/%s", WQ_MEM_RECLAIM | WQ_FREEZABLE, 0,
				       sb->s_id);
	if (!sbi->conv_wq)
		goto fail;

	root = stalefs_iget(sb, STALEFS_ROOT_INO);
	if (IS_ERR(root)) {
		err = PTR_ERR(root);
		goto fail;
	}
	if (!S_ISDIR(root->i_mode)) {
		iput(root);
		stalefs_error(sb, STALEFS_ROOT_INO, 0, "root inode is not a directory");
		err = -EUCLEAN;
		goto fail;
	}
	sb->s_root = d_make_root(root);
	if (!sb->s_root) {
		err = -ENOMEM;
		goto fail;
	}
	if (le16_to_cpu(sbi->raw->s_state) & STALEFS_STATE_ERRORS)
		pr_warn("stalefs (%s): filesystem has recorded errors; running fsck.stalefs is recommended\n",
			sb->s_id);
	if (!sb_rdonly(sb)) {
		mark_mounted_rw(sb);
		/* Files unlinked while open, or mid-truncate, at the crash (FORMAT.md 13). */
		stalefs_orphan_cleanup(sb);
	} else if (stalefs_orphans_pending(sb)) {
		pr_info("stalefs (%s): orphan inodes are released at the next read-write mount\n",
			sb->s_id);
	}
	return 0;
fail:
	if (sbi->conv_wq)
		destroy_workqueue(sbi->conv_wq);
	stalefs_journal_release(sb, false);
	stalefs_put_groups(sb);
	stalefs_trim_release(sb);
	brelse(sbi->sbh);
	kfree(sbi);
	sb->s_fs_info = NULL;
	return err;
}

static int stalefs_get_tree(struct fs_context *fc)
{
	return get_tree_bdev(fc, stalefs_fill_super);
}

static int stalefs_reconfigure(struct fs_context *fc)
{
	struct super_block *sb = fc->root->d_sb;
	struct stalefs_sb_info *sbi = STALEFS_SB(sb);
	struct stalefs_mount_opts *opts = fc->fs_private;
	bool want_ro = fc->sb_flags & SB_RDONLY;
	int err;

	sync_filesystem(sb);
	if (stalefs_forced_shutdown(sb))
		return -EIO;
	if (opts->norecovery != sbi->norecovery) {
		errorf(fc, "stalefs (%s): norecovery cannot change on remount", sb->s_id);
		return -EINVAL;
	}
	if (!want_ro && sb_rdonly(sb) && sbi->norecovery) {
		errorf(fc, "stalefs (%s): mounted with norecovery: cannot go read-write", sb->s_id);
		return -EINVAL;
	}
	/* stale.c: remounting without nohide_stale_gid= disarms */
	err = stalefs_stale_mount(sb, fc, opts->stale_gid_set, opts->stale_gid,
				  want_ro || ro_compat_unknown(sb));
	if (err)
		return err;
	if (opts->errors) {
		sbi->errors = opts->errors;
		sbi->errors_opt = true;
	}
	if (opts->acl_set)
		set_posixacl(sb, opts);
	if (opts->discard_set)
		set_discard(sb, opts->discard);
	if (opts->commit_set) {
		sbi->commit_interval = opts->commit;
		stalefs_journal_set_options(sb);
	}
	if (want_ro == sb_rdonly(sb))
		return 0;
	if (want_ro) {
		err = journal_quiesce(sb);
		if (err)
			return err;
		set_state(sb, true);
		stalefs_commit_super(sb, true);
	} else {
		if (ro_compat_unknown(sb)) {
			errorf(fc, "stalefs (%s): unsupported read-only features: stays read-only",
			       sb->s_id);
			return -EROFS;
		}
		if (sbi->journal && is_journal_aborted(sbi->journal)) {
			errorf(fc, "stalefs (%s): the journal has aborted: unmount and run fsck.stalefs",
			       sb->s_id);
			return -EROFS;
		}
		/* Flip the flag first: commit runs as a read-write filesystem. */
		sb->s_flags &= ~SB_RDONLY;
		mark_mounted_rw(sb);
		stalefs_orphan_cleanup(sb);
	}
	return 0;
}

static void stalefs_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations stalefs_context_ops = {
	.parse_param	= stalefs_parse_param,
	.get_tree	= stalefs_get_tree,
	.reconfigure	= stalefs_reconfigure,
	.free		= stalefs_free_fc,
};

static int stalefs_init_fs_context(struct fs_context *fc)
{
	fc->fs_private = kzalloc(sizeof(struct stalefs_mount_opts), GFP_KERNEL);
	if (!fc->fs_private)
		return -ENOMEM;
	fc->ops = &stalefs_context_ops;
	return 0;
}

static struct file_system_type stalefs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "stalefs",
	.init_fs_context	= stalefs_init_fs_context,
	.parameters		= stalefs_param_spec,
	.kill_sb		= kill_block_super,
	.fs_flags		= FS_REQUIRES_DEV,
};
MODULE_ALIAS_FS("stalefs");

static int __init stalefs_init(void)
{
	int err;

	/* Inline symlink targets are copied to userspace straight from i_data. */
	stalefs_inode_cachep = kmem_cache_create_usercopy("stalefs_inode_cache",
				sizeof(struct stalefs_inode_info), 0,
				SLAB_RECLAIM_ACCOUNT | SLAB_MEM_SPREAD | SLAB_ACCOUNT,
				offsetof(struct stalefs_inode_info, i_data),
				sizeof_field(struct stalefs_inode_info, i_data), init_once);
	if (!stalefs_inode_cachep)
		return -ENOMEM;
	err = stalefs_pending_init_cache();
	if (err)
		goto out_inode;
	err = register_filesystem(&stalefs_fs_type);
	if (err)
		goto out_pending;
	return 0;
out_pending:
	stalefs_pending_destroy_cache();
out_inode:
	kmem_cache_destroy(stalefs_inode_cachep);
	return err;
}

static void __exit stalefs_exit(void)
{
	unregister_filesystem(&stalefs_fs_type);
	rcu_barrier();
	stalefs_pending_destroy_cache();
	kmem_cache_destroy(stalefs_inode_cachep);
}

module_init(stalefs_init);
module_exit(stalefs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stalefs: extent-based filesystem with confined stale allocation");
MODULE_AUTHOR("the stalefs authors");
/* jbd2 checksums its journal with crc32c, which it asks the crypto API for. */
MODULE_SOFTDEP("pre: crc32c");
