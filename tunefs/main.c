// SPDX-License-Identifier: GPL-2.0
/*
 * tunefs.stalefs: change a stalefs filesystem's superblock settings after mkfs
 * (label, UUID, error behaviour, the check schedule, the permitted group for
 * stale allocation, the journal), or list them (-l), as tune2fs does for ext4.
 *
 * Exit status 0 success, 1 any error.  Everything asked is checked before
 * anything is written: on a refusal the device is left byte for byte as it
 * was.  A mounted filesystem is never written here: the kernel keeps its own
 * copy of the superblock and writes it back, so a change made under it would
 * be lost or, worse, half kept.  The label, check schedule and error
 * behaviour of a mounted one are changed by the kernel (online.c); the rest
 * waits for the umount.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "tunefs.h"

const char *program_name = "tunefs.stalefs";

/* Why an open failed, in words that say what to do about it. */
static void open_failed(const char *device, errcode_t err, bool for_change)
{
	com_err(program_name, err, "while opening %s%s", device, for_change ? " to change it" : "");
	/* The library turns O_EXCL's EBUSY into STALEFS_ERR_MOUNTED. */
	if (err == STALEFS_ERR_MOUNTED || err == EBUSY)
		fprintf(stderr, "%s: %s is in use (mounted, or open exclusively by another program); "
			"nothing was changed\n", program_name, device);
	else if (err == STALEFS_ERR_NEEDS_RECOVERY)
		fprintf(stderr, "%s: run fsck.stalefs %s to replay the journal, then try again; nothing was "
			"changed\n", program_name, device);
	else if (err == STALEFS_ERR_SB_CORRUPT || err == STALEFS_ERR_SB_CSUM || err == STALEFS_ERR_GD_CORRUPT ||
		 err == STALEFS_ERR_GD_CSUM || err == STALEFS_ERR_BITMAP_CSUM)
		fprintf(stderr, "%s: run fsck.stalefs on %s first (fsck -b uses a backup superblock); "
			"nothing was changed\n", program_name, device);
}

/* The changes that move blocks or rest on the whole filesystem being right need a clean one. */
static bool needs_clean(const struct tune_opts *o)
{
	return o->add_journal || o->remove_journal || o->set_stale_gid || o->remove_xattr;
}

/* -O xattr / ^xattr (FORMAT.md 3, 14): off only when no inode holds an attribute, since a
 * writer that does not know them would leak the blocks and areas they hold. */
static errcode_t set_xattr_feature(stalefs_fs *fs, const struct tune_opts *o)
{
	u32 ro = le32_to_cpu(fs->sb.s_feature_ro_compat), ino;
	errcode_t err;

	if (o->add_xattr) {
		ro |= STALEFS_FEATURE_RO_COMPAT_XATTR;
	} else {
		err = stalefs_xattr_first_holder(fs, &ino);
		if (err) {
			com_err(program_name, err, "while looking for extended attributes on %s (at inode %u)",
				o->device, ino);
			fprintf(stderr, "%s: cannot tell whether inodes hold extended attributes: run fsck.stalefs "
				"first; nothing was changed\n", program_name);
			return err;
		}
		if (ino) {
			fprintf(stderr, "%s: inode %u holds extended attributes: the xattr feature cannot be turned "
				"off while inodes hold them (remove them first); nothing was changed\n",
				program_name, ino);
			return STALEFS_ERR_BAD_ARGUMENT;
		}
		ro &= ~STALEFS_FEATURE_RO_COMPAT_XATTR;
	}
	fs->sb.s_feature_ro_compat = cpu_to_le32(ro);
	stalefs_mark_super_dirty(fs);
	fs->write_backups = true;
	return 0;
}

static errcode_t set_stale_gid(stalefs_fs *fs, const struct tune_opts *o)
{
	struct stalefs_stale_census c;
	u32 old = le32_to_cpu(fs->sb.s_stale_gid);
	errcode_t err = stalefs_stale_group_set(fs, o->stale_gid, &c);

	if (err == STALEFS_ERR_STALE_EXTENTS) {
		fprintf(stderr, "%s: refused: %llu file(s) hold STALE extents (debugfs.stalefs -R lsstale %s lists "
			"them); punch, zero or delete them first, or fsck.stalefs -E hide_stale\n", program_name,
			(unsigned long long)c.files, o->device);
		return err;
	}
	if (err) {
		com_err(program_name, err, "while %s the permitted group",
			o->stale_gid == STALEFS_STALE_GID_NONE ? "forgetting" : "recording");
		return err;
	}
	if (o->stale_gid != STALEFS_STALE_GID_NONE)
		printf("Setting the permitted group for stale allocation to %u\n", o->stale_gid);
	else if (old != STALEFS_STALE_GID_NONE)
		printf("Forgetting the permitted group %u\n", old);
	else
		printf("No permitted group was recorded\n");
	return 0;
}

/* What -e, -c, -C, -i and -T set, said once it is done (offline, or by the kernel when mounted). */
void tune_report_plain(const struct tune_opts *o)
{
	if (o->set_errors)
		printf("Setting error behavior to %u (%s)\n", o->errors, stalefs_errors_name(o->errors));
	if (o->set_max_mnt)
		printf("Setting maximal mount count to %u%s\n", o->max_mnt, o->max_mnt ? "" : " (no mount-count check)");
	if (o->set_mnt_count)
		printf("Setting current mount count to %u\n", o->mnt_count);
	if (o->set_interval)
		printf("Setting interval between checks to %u seconds\n", o->interval);
	if (o->set_lastcheck) {
		char t[64];

		stalefs_time_string(o->lastcheck, t, sizeof(t));
		printf("Setting time filesystem last checked to %s\n", t);
	}
}

/* The superblock-only settings: nothing here can be refused once the options parsed. */
static void set_plain_fields(stalefs_fs *fs, const struct tune_opts *o)
{
	struct stalefs_super_block *sb = &fs->sb;

	if (o->set_errors)
		sb->s_errors = cpu_to_le16(o->errors);
	if (o->set_max_mnt)
		sb->s_max_mnt_count = cpu_to_le32(o->max_mnt);
	if (o->set_mnt_count)
		sb->s_mnt_count = cpu_to_le32(o->mnt_count);
	if (o->set_interval)
		sb->s_checkinterval = cpu_to_le32(o->interval);
	if (o->set_lastcheck)
		sb->s_lastcheck = cpu_to_le64((u64)o->lastcheck);
	tune_report_plain(o);
	stalefs_mark_super_dirty(fs);
	fs->write_backups = true;
}

/*
 * Order matters only for what touches the device before the close: the new
 * journal is written when it is made, so it comes last, after every other
 * step has passed its checks (and after -U, so it carries the new UUID).  A
 * removed journal goes first, so -U does not have to rewrite a journal that
 * is going away.  Until the close everything else is in memory.
 */
static errcode_t apply(stalefs_fs *fs, const struct tune_opts *o)
{
	u64 jstart = 0;
	u32 jblocks = 0;
	errcode_t err;

	if (needs_clean(o) && (le16_to_cpu(fs->sb.s_state) & (STALEFS_STATE_CLEAN | STALEFS_STATE_ERRORS)) !=
				      STALEFS_STATE_CLEAN) {
		fprintf(stderr, "%s: %s is not clean (not cleanly unmounted, or errors recorded): run "
			"fsck.stalefs -f on it before changing the journal or the permitted group\n",
			program_name, o->device);
		return STALEFS_ERR_BAD_ARGUMENT;
	}
	if (o->add_journal) {
		err = tune_journal_plan(fs, o, &jblocks, &jstart);
		if (err) {
			if (err == STALEFS_ERR_JOURNAL_EXISTS)
				com_err(program_name, err, "while adding a journal to %s", o->device);
			return err;
		}
	}
	if (o->remove_journal) {
		if (!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL)) {
			printf("%s has no journal: nothing to remove\n", o->device);
		} else {
			err = stalefs_journal_remove(fs);
			if (err) {
				com_err(program_name, err, "while removing the journal of %s", o->device);
				if (err == STALEFS_ERR_JOURNAL_NOT_EMPTY || err == STALEFS_ERR_NEEDS_RECOVERY ||
				    err == STALEFS_ERR_JSB_CORRUPT || err == STALEFS_ERR_JSB_CSUM)
					fprintf(stderr, "%s: run fsck.stalefs %s first; nothing was changed\n",
						program_name, o->device);
				return err;
			}
			printf("Removing the journal\n");
		}
	}
	if (o->set_stale_gid && (err = set_stale_gid(fs, o)))
		return err;
	if ((o->add_xattr || o->remove_xattr) && (err = set_xattr_feature(fs, o)))
		return err;
	if (o->set_uuid) {
		err = stalefs_set_uuid(fs, o->uuid);
		if (err) {
			com_err(program_name, err, "while setting the UUID of %s", o->device);
			if (err == STALEFS_ERR_JOURNAL_NOT_EMPTY || err == STALEFS_ERR_JSB_CORRUPT ||
			    err == STALEFS_ERR_JSB_CSUM)
				fprintf(stderr, "%s: run fsck.stalefs %s first; nothing was changed\n", program_name,
					o->device);
			return err;
		}
	}
	if (o->set_label) {
		err = stalefs_set_label(fs, o->label);
		if (err) {
			com_err(program_name, err, "while setting the label of %s", o->device);
			return err;
		}
	}
	set_plain_fields(fs, o);
	if (o->add_journal) {
		printf("Creating journal (%u blocks at block %llu): ", jblocks, (unsigned long long)jstart);
		fflush(stdout);
		err = stalefs_journal_create(fs, jstart, jblocks);
		if (err) {
			printf("failed\n");
			com_err(program_name, err, "while creating the journal on %s", o->device);
			return err;
		}
		printf("done\n");
	}
	return 0;
}

static int change(const struct tune_opts *o)
{
	stalefs_fs *fs;
	errcode_t err;

	if (stalefs_device_is_mounted(o->device)) {
		if (tune_online_possible(o))
			return tune_online(o);
		fprintf(stderr, "%s: %s is mounted; -U, -G, -O and -J change only unmounted filesystems (the "
			"kernel keeps its own copy of the superblock and would write over the change; -L, -c, -C, "
			"-e, -i and -T alone are made through the kernel). Unmount it first; nothing was "
			"changed.\n", program_name, o->device);
		return TUNEFS_ERROR;
	}
	/* O_EXCL on a block device: a mount /proc/mounts does not show yet, or another tool, fails here. */
	err = stalefs_open(o->device, STALEFS_OPEN_RW | STALEFS_OPEN_EXCLUSIVE, 0, 0, &fs);
	if (err) {
		open_failed(o->device, err, true);
		return TUNEFS_ERROR;
	}
	err = apply(fs, o);
	if (err) {
		stalefs_free(fs);	/* nothing of it reaches the device */
		return TUNEFS_ERROR;
	}
	err = stalefs_close(fs);
	if (err) {
		com_err(program_name, err, "while writing the superblock of %s", o->device);
		return TUNEFS_ERROR;
	}
	return TUNEFS_OK;
}

static int list(const struct tune_opts *o)
{
	stalefs_fs *fs;
	errcode_t err;

	/* Read-only: a mounted filesystem can be listed (what is on disk, as dumpe2fs -h shows it). */
	err = stalefs_open(o->device, 0, 0, 0, &fs);
	if (err) {
		open_failed(o->device, err, false);
		return TUNEFS_ERROR;
	}
	printf("%s %s\n", program_name, STALEFS_VERSION);
	stalefs_print_super(stdout, fs);
	stalefs_free(fs);
	return TUNEFS_OK;
}

int main(int argc, char **argv)
{
	struct tune_opts o;
	int rc;

	program_name = stalefs_tool_start(argc, argv, program_name);
	rc = tune_parse_options(argc, argv, &o);
	if (rc < 0)
		return TUNEFS_OK;
	if (rc)
		return rc;
	if (tune_wants_change(&o)) {
		rc = change(&o);
		if (rc)
			return rc;
	}
	return o.list ? list(&o) : TUNEFS_OK;
}
