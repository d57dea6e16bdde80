// SPDX-License-Identifier: GPL-2.0
/*
 * resize.stalefs: grow or shrink a stalefs filesystem, as resize2fs does
 * for ext4 -- the same command line, checks and messages.  A mounted
 * filesystem grows through the kernel (online.c); an unmounted one grows
 * (grow.c) or shrinks (shrink.c) here, in journal transactions, so a kill
 * or a power cut at any point leaves the old filesystem or the new one.
 *
 *   resize.stalefs [-d flags] [-f] [-F] [-M] [-P] [-p] device [new_size]
 *
 * Exit status 0 success, 1 any error (nothing changed when refused).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "resize.h"

const char *program_name = "resize.stalefs";

static void usage(void)
{
	fprintf(stderr, "Usage: %s [-d debug_flags] [-f] [-F] [-M] [-P] [-p] device [new_size]\n\n",
		program_name);
}

static int parse_options(int argc, char **argv, struct resize_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt(argc, argv, "d:fFhMPpV")) != -1) {
		switch (c) {
		case 'd': {
			char *end;
			long v = strtol(optarg, &end, 0);

			if (*end || v < 0 || v > INT_MAX) {
				fprintf(stderr, "%s: bad debug flags '%s'\n", program_name, optarg);
				return RESIZE_ERROR;
			}
			o->debug |= (int)v;
			break;
		}
		case 'f': o->force = true; break;
		case 'F': o->flush = true; break;
		case 'M': o->shrink_min = true; break;
		case 'P': o->print_min = true; break;
		case 'p': o->progress = true; break;
		case 'V':
			printf("%s %s\n", program_name, STALEFS_VERSION);
			return -1;
		default:
			usage();
			return RESIZE_ERROR;
		}
	}
	if (optind >= argc || argc - optind > 2) {
		usage();
		return RESIZE_ERROR;
	}
	o->device = argv[optind];
	o->size_arg = argc - optind == 2 ? argv[optind + 1] : NULL;
	if (o->size_arg && (o->shrink_min || o->print_min)) {
		fprintf(stderr, "%s: a new size cannot go with -M or -P\n", program_name);
		return RESIZE_ERROR;
	}
	return 0;
}

/* -F: the buffer cache of a block device flushed first (blockdev --flushbufs). */
static int flush_device(const char *device)
{
	int fd = open(device, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int err = 0;

	if (fd < 0 || fstat(fd, &st) < 0 || fsync(fd) < 0 ||
	    (S_ISBLK(st.st_mode) && ioctl(fd, BLKFLSBUF, 0) < 0))
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err)
		com_err(program_name, err, "while trying to flush %s", device);
	return err ? RESIZE_ERROR : 0;
}

static void open_failed(const char *device, errcode_t err)
{
	com_err(program_name, err, "while trying to open %s", device);
	if (err == STALEFS_ERR_NEEDS_RECOVERY)
		fprintf(stderr, "Please run 'fsck.stalefs -f %s' first: its journal needs recovery.\n\n", device);
	else if (err == STALEFS_ERR_MOUNTED || err == EBUSY)
		fprintf(stderr, "%s: %s is in use (mounted, or open exclusively by another program)\n",
			program_name, device);
	else if (err != ENOENT && err != EACCES && err != EPERM)
		printf("Couldn't find valid filesystem superblock.\n");
}

/* Unmounted and not forced: the filesystem must be known good (resize2fs asks the same). */
static bool needs_check(const stalefs_fs *fs, const struct resize_opts *o)
{
	u16 state = le16_to_cpu(fs->sb.s_state);

	if ((state & STALEFS_STATE_ERRORS) || !(state & STALEFS_STATE_CLEAN))
		return true;
	/* Not checked since it was last mounted: for -P it is only counting, so that may pass. */
	return !o->print_min && (s64)le64_to_cpu(fs->sb.s_lastcheck) < (s64)le64_to_cpu(fs->sb.s_mtime);
}

/* The unmounted case: a session of transactions (or ordered writes without a journal). */
static int offline(const struct resize_opts *o, stalefs_fs *fs, u64 new_blocks)
{
	struct resize_ctx c = { .o = o, .fs = fs };
	u32 bs = fs->block_size;
	int rule;
	errcode_t err;

	c.old = fs->geom;
	rule = stalefs_resize_geometry(&c.old, new_blocks, &c.ng);
	if (rule) {
		fprintf(stderr, "%s: cannot resize %s to %llu blocks: %s; nothing was changed\n", program_name,
			o->device, (unsigned long long)new_blocks, stalefs_rule_msg(rule));
		return RESIZE_ERROR;
	}
	if (c.ng.blocks_count == c.old.blocks_count) {
		fprintf(stderr, "The filesystem is already %llu (%uk) blocks long.  Nothing to do!\n\n",
			(unsigned long long)c.old.blocks_count, bs / 1024);
		return RESIZE_OK;
	}
	printf("Resizing the filesystem on %s to %llu (%uk) blocks.\n", o->device,
	       (unsigned long long)c.ng.blocks_count, bs / 1024);
	if (le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) {
		err = stalefs_txn_start(fs, STALEFS_TXN_ATOMIC);
		if (err) {
			com_err(program_name, err, "while starting the resize of %s", o->device);
			return RESIZE_ERROR;
		}
	}
	err = c.ng.blocks_count > c.old.blocks_count ? resize_grow(&c) : resize_shrink(&c);
	if (!err && fs->txn)
		err = stalefs_txn_stop(fs);
	/* Committed: the backups follow, once everything else is in place (a crash before they
	 * are all written leaves backups that lag, which fsck rewrites quietly). */
	if (!err) {
		fs->write_backups = true;
		err = stalefs_flush(fs);
	}
	if (err) {
		stalefs_txn_abort(fs);	/* a broken or unfinished transaction: dropped unwritten */
		if (err == RESIZE_REFUSED)
			return RESIZE_ERROR;	/* said why; nothing written */
		com_err(program_name, err, "while trying to resize %s", o->device);
		if (c.wrote)
			fprintf(stderr, "The filesystem is as the last completed step of the resize left it: "
				"consistent, at its old size.\nRun 'fsck.stalefs -f %s' to check it.\n", o->device);
		else
			fprintf(stderr, "%s: nothing was changed\n", program_name);
		return RESIZE_ERROR;
	}
	printf("The filesystem on %s is now %llu (%uk) blocks long.\n\n", o->device,
	       (unsigned long long)fs->geom.blocks_count, bs / 1024);
	return RESIZE_OK;
}

/* A regular file follows the filesystem: extended (sparse) before a grow, cut after a shrink. */
static int set_file_size(const char *device, u64 bytes, const char *why)
{
	struct stat st;

	if (stat(device, &st) < 0 || !S_ISREG(st.st_mode) || (u64)st.st_size == bytes)
		return 0;
	if (truncate(device, (off_t)bytes) < 0) {
		com_err(program_name, errno, "while trying to %s %s", why, device);
		return RESIZE_ERROR;
	}
	return 0;
}

static int run(const struct resize_opts *o)
{
	char mnt[PATH_MAX];
	bool mounted, ro = false;
	stalefs_fs *fs;
	u64 dev_bytes, max_size, new_size, min_size, cur;
	u32 bs;
	errcode_t err;
	int rc;

	if (o->flush && flush_device(o->device))
		return RESIZE_ERROR;
	mounted = stalefs_mount_point(o->device, mnt, sizeof(mnt), &ro);
	/* Mounted: read what the superblock says, never write (the kernel grows it). */
	err = stalefs_open(o->device, mounted || o->print_min ? 0 : STALEFS_OPEN_RW | STALEFS_OPEN_EXCLUSIVE,
			   0, 0, &fs);
	if (err) {
		open_failed(o->device, err);
		return RESIZE_ERROR;
	}
	if (!o->force && !mounted && needs_check(fs, o)) {
		fprintf(stderr, "Please run 'fsck.stalefs -f %s' first.\n\n", o->device);
		stalefs_free(fs);
		return RESIZE_ERROR;
	}
	bs = fs->block_size;
	cur = fs->geom.blocks_count;
	err = resize_min_size(fs, o->debug, &min_size);
	if (!err)
		err = stalefs_io_size(fs->io, &dev_bytes);
	if (err) {
		com_err(program_name, err, "while trying to determine filesystem size");
		stalefs_free(fs);
		return RESIZE_ERROR;
	}
	if (o->print_min) {
		printf("Estimated minimum size of the filesystem: %llu\n", (unsigned long long)min_size);
		stalefs_free(fs);
		return RESIZE_OK;
	}
	max_size = dev_bytes / bs;
	if (o->shrink_min) {
		new_size = min_size;
	} else if (o->size_arg) {
		if (resize_parse_size(o->size_arg, bs, &new_size)) {
			fprintf(stderr, "%s: Invalid new size: %s\n\n", program_name, o->size_arg);
			stalefs_free(fs);
			return RESIZE_ERROR;
		}
	} else {
		new_size = max_size;
	}
	if (!o->force && new_size < min_size) {
		fprintf(stderr, "%s: New size smaller than minimum (%llu)\n\n", program_name,
			(unsigned long long)min_size);
		stalefs_free(fs);
		return RESIZE_ERROR;
	}
	if (new_size >= STALEFS_MAX_BLOCKS) {
		fprintf(stderr, "%s: New size too large: stalefs addresses at most 2^48 blocks\n\n",
			program_name);
		stalefs_free(fs);
		return RESIZE_ERROR;
	}
	/* An unmounted image file grows to the new size (sparse), as resize2fs extends it. */
	if (!mounted && new_size > max_size) {
		struct stat st;

		if (stat(o->device, &st) == 0 && S_ISREG(st.st_mode) &&
		    set_file_size(o->device, new_size * bs, "extend") == 0)
			max_size = new_size;
	}
	if (new_size > max_size) {
		fprintf(stderr, "The containing partition (or device) is only %llu (%uk) blocks.\nYou requested "
			"a new size of %llu blocks.\n\n", (unsigned long long)max_size, bs / 1024,
			(unsigned long long)new_size);
		stalefs_free(fs);
		return RESIZE_ERROR;
	}
	if (new_size == cur) {
		fprintf(stderr, "The filesystem is already %llu (%uk) blocks long.  Nothing to do!\n\n",
			(unsigned long long)cur, bs / 1024);
		stalefs_free(fs);
		return RESIZE_OK;
	}
	if (mounted) {
		stalefs_free(fs);
		return resize_online(o, mnt, cur, bs, new_size);
	}
	rc = offline(o, fs, new_size);
	if (rc) {
		stalefs_free(fs);
		return rc;
	}
	new_size = fs->geom.blocks_count;
	err = stalefs_close(fs);
	if (err) {
		com_err(program_name, err, "while writing out %s", o->device);
		return RESIZE_ERROR;
	}
	/* Only now that the smaller filesystem is all on disk does the file lose its tail. */
	return new_size < cur ? set_file_size(o->device, new_size * bs, "truncate") : RESIZE_OK;
}

int main(int argc, char **argv)
{
	struct resize_opts o;
	int rc;

	program_name = stalefs_tool_start(argc, argv, program_name);
	rc = parse_options(argc, argv, &o);
	if (rc < 0)
		return RESIZE_OK;
	if (rc)
		return rc;
	fprintf(stderr, "%s %s\n", program_name, STALEFS_VERSION);
	return run(&o);
}
