// SPDX-License-Identifier: GPL-2.0
/*
 * Opening the image and closing it, as the kernel module's mount and umount
 * do.
 *
 * Read-only (-o ro): the device is opened O_RDONLY and nothing ever writes
 * it.  A journal that needs recovery is replayed into the io layer's
 * in-memory overlay (fsck -n's way) unless -o norecovery; a damaged
 * superblock or descriptor table is opened anyway (each structure is still
 * verified when used, so damage shows as EUCLEAN where it is).
 *
 * Read-write: refused when the image is mounted, damaged or of unknown
 * read-only features; a journal that needs recovery is replayed for real,
 * orphans are finished, the superblock says "not clean" (and counts the
 * mount), and the journaled write path starts.  Closing commits, finishes
 * what orphans remain, and marks the filesystem clean.
 */
#include <errno.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>
#include "stalefs_fuse.h"

/* Damage opening can be told to look past (FORCE), as debugfs does: not the device, not a
 * missing magic, not features this code does not know. */
static bool forceable(errcode_t err)
{
	return err && !stalefs_io_error(err) && err != STALEFS_ERR_BAD_MAGIC && err != STALEFS_ERR_UNSUPP_FEATURE &&
	       err != STALEFS_ERR_RO_UNSUPP_FEATURE && err != STALEFS_ERR_NO_MEMORY;
}

/* The root must be a directory that verifies: without it nothing can be reached. */
static errcode_t check_root(struct sfuse *s)
{
	struct stalefs_inode root;
	errcode_t err = stalefs_read_inode(s->fs, STALEFS_ROOT_INO, &root);

	if (!err && (le16_to_cpu(root.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFDIR)
		err = STALEFS_ERR_NOT_DIR;
	if (err)
		sfuse_log(LOG_ERR, "%s: the root directory (inode %u) cannot be used: %s", s->opts.image,
			  STALEFS_ROOT_INO, error_message(err));
	return err;
}

static errcode_t replay_in_memory(struct sfuse *s)
{
	struct stalefs_journal_recovery r;
	errcode_t err;

	err = stalefs_set_overlay(s->fs);
	if (!err)
		err = stalefs_journal_recover(s->fs, &r);
	if (err) {
		/* Half a replay in the overlay is neither state: start again from the disk. */
		sfuse_log(LOG_WARNING, "%s: %s while replaying the journal in memory (%s); showing the image as "
			  "it is, without the journal", s->opts.image, error_message(err), r.detail);
		stalefs_free(s->fs);
		s->fs = NULL;
		err = stalefs_open(s->opts.image, STALEFS_OPEN_NO_BITMAPS | STALEFS_OPEN_FORCE, 0, 0, &s->fs);
	} else if (!s->opts.helper) {
		sfuse_log(LOG_INFO, "%s: journal replayed in memory only (%u transactions); the image is not "
			  "written", s->opts.image, r.transactions);
	}
	return err;
}

static errcode_t open_ro(struct sfuse *s)
{
	/* The bitmaps are the allocator's: reading needs none, and a bad one hides nothing. */
	int flags = STALEFS_OPEN_NO_BITMAPS;
	errcode_t err = stalefs_open(s->opts.image, flags, 0, 0, &s->fs);

	if (forceable(err)) {
		sfuse_log(LOG_WARNING, "%s: %s; opening anyway (read-only): damaged parts read as EUCLEAN",
			  s->opts.image, error_message(err));
		err = stalefs_open(s->opts.image, flags | STALEFS_OPEN_FORCE, 0, 0, &s->fs);
	}
	if (err)
		return err;
	if ((le32_to_cpu(s->fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER) && !s->opts.norecovery)
		err = replay_in_memory(s);
	return err ? err : check_root(s);
}

static void orphan_done(stalefs_fs *fs, u32 ino, errcode_t err, const struct stalefs_orphan_result *r, void *priv)
{
	(void)fs;
	(void)priv;
	if (err)
		sfuse_log(LOG_WARNING, "%s: orphan inode %u: %s while finishing it; fsck.stalefs will",
			  S.opts.image, ino, error_message(err));
	else
		sfuse_log(LOG_INFO, "%s: orphan inode %u %s", S.opts.image, ino, r->freed ? "freed" : "truncated");
}

static errcode_t open_rw(struct sfuse *s)
{
	stalefs_fs *fs;
	errcode_t err;

	if (stalefs_device_is_mounted(s->opts.image))
		return STALEFS_ERR_MOUNTED;
	/* O_EXCL on a block device: whoever else has it open exclusively (a mount) stops us. */
	err = stalefs_open(s->opts.image, STALEFS_OPEN_RW | STALEFS_OPEN_EXCLUSIVE | STALEFS_OPEN_JOURNAL, 0, 0,
			   &s->fs);
	if (err)
		return err;
	fs = s->fs;
	if (le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER) {
		struct stalefs_journal_recovery r;

		err = stalefs_journal_recover(fs, &r);
		if (err == STALEFS_ERR_NO_JOURNAL) {
			stalefs_journal_clear_recover(fs);
			err = 0;
		}
		if (err) {
			sfuse_log(LOG_ERR, "%s: the journal cannot be replayed (%s): run fsck.stalefs", s->opts.image,
				  r.detail[0] ? r.detail : error_message(err));
			return err;
		}
		if (r.transactions)
			sfuse_log(LOG_INFO, "%s: recovering journal: %u transactions replayed", s->opts.image,
				  r.transactions);
	}
	err = stalefs_orphans_finish_all(fs, orphan_done, NULL);
	if (!err)
		err = check_root(s);
	if (err)
		return err;
	/* Mounted read-write: not clean until a clean unmount; the mount is counted. */
	fs->sb.s_state = cpu_to_le16(le16_to_cpu(fs->sb.s_state) & ~STALEFS_STATE_CLEAN);
	fs->sb.s_mnt_count = cpu_to_le32(le32_to_cpu(fs->sb.s_mnt_count) + 1);
	fs->sb.s_mtime = cpu_to_le64((u64)time(NULL));
	stalefs_mark_super_dirty(fs);
	if (le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) {
		err = stalefs_txn_start(fs, 0);
		s->journaled = !err;
	} else {
		sfuse_log(LOG_WARNING, "%s: no journal: a crash may leave damage for fsck.stalefs to repair "
			  "(tunefs.stalefs -J adds a journal)", s->opts.image);
		err = stalefs_flush(fs);
	}
	return err;
}

errcode_t sfuse_open_image(struct sfuse *s)
{
	errcode_t err = s->opts.ro ? open_ro(s) : open_rw(s);

	if (err) {
		stalefs_free(s->fs);
		s->fs = NULL;
		return err;
	}
	s->xattr_ok = le32_to_cpu(s->fs->sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_XATTR;
	/* Every directory change goes through the library here: large directories can be indexed. */
	stalefs_dir_index_enable(s->fs);
	return 0;
}

errcode_t sfuse_close_image(struct sfuse *s)
{
	stalefs_fs *fs = s->fs;
	errcode_t err = 0;

	if (!fs || s->closed)
		return 0;
	s->closed = true;
	if (!sfuse_writable(s)) {
		/* The kernel has forgotten every inode: unlinked ones still open are free now. */
		err = stalefs_orphans_finish_all(fs, NULL, NULL);
		if (!err) {
			fs->sb.s_state = cpu_to_le16(le16_to_cpu(fs->sb.s_state) | STALEFS_STATE_CLEAN);
			stalefs_mark_super_dirty(fs);
			err = stalefs_close(fs);
		} else {
			stalefs_free(fs);
		}
	} else if (s->aborted) {
		/* Nothing more may reach the device: what committed is there, the journal has the rest. */
		stalefs_free(fs);
		err = STALEFS_ERR_JOURNAL_ABORTED;
	} else {
		stalefs_free(fs);
	}
	s->fs = NULL;
	return err;
}
