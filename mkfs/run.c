// SPDX-License-Identifier: GPL-2.0
/* mkfs.stalefs after option parsing: size the device, check it, lay out, write, report. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "mkfs.h"

#define EXIT_OK 0
#define EXIT_ERROR 8

static int fail(errcode_t err, const char *fmt, const char *arg)
{
	char what[512];

	snprintf(what, sizeof(what), fmt, arg);
	com_err(program_name, err, "while %s", what);
	return EXIT_ERROR;
}

static bool ask_proceed(const char *question)
{
	char answer[16];

	printf("%s (y,N) ", question);
	fflush(stdout);
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	return answer[0] == 'y' || answer[0] == 'Y';
}

/*
 * Size of the target; creates a regular file of the requested size when needed.  A region
 * (IMAGE?offset=N[&size=M]) is the device: its size is the limit, and a file shorter than
 * the region's end is extended to it.
 */
static int size_target(struct mkfs_options *o, u64 *bytes)
{
	struct stalefs_io_name n;
	struct stat st;
	struct stalefs_io *io;
	errcode_t err;
	bool region;
	u64 region_end;

	err = stalefs_io_parse_name(o->device, &n);
	if (err)
		return fail(err, "opening %s", o->device);
	snprintf(o->image_path, sizeof(o->image_path), "%s", n.path);
	region = n.region;
	region_end = n.offset + n.size;
	stalefs_io_name_free(&n);
	if (stat(o->image_path, &st) < 0) {
		if (errno != ENOENT || !o->size_bytes)
			return fail(errno, "opening %s", o->device);
		/* IMAGE?offset=N of an IMAGE that does not exist: not a name to create. */
		if (strstr(o->device, "?offset=") || strstr(o->device, "&offset="))
			return fail(ENOENT, "opening %s (a region is a part of an existing image or device)",
				    o->device);
		/* Created later, so a refused mkfs leaves nothing behind. */
		*bytes = o->size_bytes;
		o->create_file = !o->dry_run;
		return EXIT_OK;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
		return fail(STALEFS_ERR_BAD_ARGUMENT, "checking %s: not a regular file or block device",
			    o->device);
	err = stalefs_io_open(o->device, false, false, &io);
	if (err)
		return fail(err, "opening %s", o->device);
	err = stalefs_io_size(io, bytes);
	stalefs_io_close(io);
	if (err)
		return fail(err, "determining the size of %s", o->device);
	if (region) {
		if (o->size_bytes > *bytes) {
			fprintf(stderr, "%s: filesystem size %llu bytes is larger than the region %s (%llu bytes)\n",
				program_name, (unsigned long long)o->size_bytes, o->device,
				(unsigned long long)*bytes);
			return EXIT_ERROR;
		}
		if (o->size_bytes)
			*bytes = o->size_bytes;
		o->extend_file = S_ISREG(st.st_mode) && region_end > (u64)st.st_size && !o->dry_run;
		o->extend_to = region_end;
		return EXIT_OK;
	}
	if (o->size_bytes) {
		if (o->size_bytes > *bytes && S_ISBLK(st.st_mode)) {
			fprintf(stderr, "%s: filesystem size %llu bytes is larger than the device %s (%llu bytes)\n",
				program_name, (unsigned long long)o->size_bytes, o->device,
				(unsigned long long)*bytes);
			return EXIT_ERROR;
		}
		o->extend_file = o->size_bytes > *bytes && !o->dry_run;
		o->extend_to = o->size_bytes;
		*bytes = o->size_bytes;
	}
	return EXIT_OK;
}

static void print_layout(const struct mkfs_options *o, const struct stalefs_super_block *sb,
			 const struct stalefs_geom *g)
{
	char uuid[40];
	const u8 *u = sb->s_uuid;
	u32 i, col = 0;

	snprintf(uuid, sizeof(uuid), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
	printf("Creating filesystem with %llu %uk blocks and %u inodes\n",
	       (unsigned long long)g->blocks_count, g->block_size / 1024, g->inodes_count);
	printf("Filesystem UUID: %s\n", uuid);
	if (sb->s_volume_name[0])
		printf("Filesystem volume name: %.32s\n", sb->s_volume_name);
	printf("%u block group%s, %u blocks and %u inodes per group\n", g->groups_count,
	       g->groups_count == 1 ? "" : "s", g->blocks_per_group, g->inodes_per_group);
	if (le32_to_cpu(sb->s_stale_gid) != STALEFS_STALE_GID_NONE)
		printf("Stale allocation (NO_HIDE_STALE) permitted to group %u\n", le32_to_cpu(sb->s_stale_gid));
	if (le32_to_cpu(sb->s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) {
		u64 start = le64_to_cpu(sb->s_journal_block);
		u32 blocks = le32_to_cpu(sb->s_journal_blocks);

		printf("Journal: %u blocks (%llu MiB) at block %llu in group %u\n", blocks,
		       (unsigned long long)(((u64)blocks * g->block_size) >> 20), (unsigned long long)start,
		       stalefs_block_group(g, start));
	} else if (o->params.feature_compat & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) {
		printf("Filesystem too small for a journal\n");
	}
	if (g->groups_count > 1) {
		printf("Superblock backups stored on blocks: ");
		for (i = 1; i < g->groups_count; i++) {
			if (!stalefs_group_has_super(g, i))
				continue;
			printf("%s%llu", col ? ", " : "\n\t", (unsigned long long)stalefs_group_first_block(g, i));
			col = (col + 1) % 6;
		}
		printf("\n");
	}
}

/*
 * As mke2fs: the whole filesystem's extent discarded before anything is written (the
 * device's thin provisioning or an image file's holes get it all back), unless -E nodiscard
 * or -K.  On an image file it is a hole punched, at once.  A device that cannot is no
 * reason to stop: it is said, and mkfs goes on.
 */
static void discard_device(const struct mkfs_options *o, u64 bytes)
{
	struct stalefs_io *io;
	errcode_t err = stalefs_io_open(o->device, true, true, &io);

	if (!o->quiet) {
		printf("Discarding device blocks: ");
		fflush(stdout);
	}
	if (!err) {
		err = stalefs_io_trim(io, 0, bytes);
		stalefs_io_close(io);
	}
	if (!o->quiet)
		printf(err ? "failed - %s\n" : "done\n", err ? error_message(err) : "");
}

int mkfs_run(struct mkfs_options *o)
{
	struct stalefs_mkfs_params *p = &o->params;
	struct stalefs_super_block sb;
	struct stalefs_geom g;
	struct populate_estimate est;
	stalefs_fs *fs;
	const char *existing;
	u64 bytes = 0;
	errcode_t err;
	int rc;

	if (device_is_mounted(o->device)) {
		fprintf(stderr, "%s: %s is mounted; will not make a filesystem here!\n", program_name, o->device);
		return EXIT_ERROR;
	}
	rc = size_target(o, &bytes);
	if (rc)
		return rc;
	p->blocks_count = bytes / p->block_size;
	err = stalefs_mkfs_layout(p, &sb, &g);
	if (err == STALEFS_ERR_JOURNAL_NO_ROOM) {
		struct stalefs_mkfs_params q = *p;

		/* The same geometry without a journal, to say how much would fit. */
		q.feature_compat &= ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
		if (stalefs_mkfs_layout(&q, &sb, &g))
			com_err(program_name, err, "while computing the layout for %s", o->device);
		else if (stalefs_journal_max_blocks(&g) < STALEFS_JOURNAL_MIN_BLOCKS)
			fprintf(stderr, "%s: %s is too small for a journal: its largest group has room for %u "
				"blocks, a journal needs %u; make it larger, or use -O ^has_journal\n",
				program_name, o->device, stalefs_journal_max_blocks(&g), STALEFS_JOURNAL_MIN_BLOCKS);
		else
			fprintf(stderr, "%s: a journal of %u blocks does not fit in one group's data blocks of %s "
				"(at most %u blocks there): choose a smaller journal with -J size= or larger "
				"groups with -g\n", program_name, p->journal_blocks, o->device,
				stalefs_journal_max_blocks(&g));
		return EXIT_ERROR;
	}
	if (err == STALEFS_ERR_DEVICE_TOO_SMALL) {
		fprintf(stderr, "%s: device %s is too small (%llu bytes) for a filesystem with %u-byte blocks\n",
			program_name, o->device, (unsigned long long)bytes, p->block_size);
		return EXIT_ERROR;
	}
	if (err)
		return fail(err, "computing the layout for %s", o->device);
	if (o->populate_dir) {
		/* Count the tree first: a tree that cannot fit is refused before anything is written. */
		u64 avail, meta = 0;
		u32 i;

		for (i = 0; i < g.groups_count; i++)
			meta += stalefs_group_meta_blocks(&g, i);
		avail = g.blocks_count - meta - le32_to_cpu(sb.s_journal_blocks);
		err = populate_estimate(o->populate_dir, p->block_size, &est);
		if (err) {
			if (est.bad_reason)
				fprintf(stderr, "%s: cannot copy %s: %s\n", program_name, est.bad_path, est.bad_reason);
			else
				com_err(program_name, err, "while reading %s", est.bad_path[0] ? est.bad_path : o->populate_dir);
			return EXIT_ERROR;
		}
		if (est.inodes + STALEFS_FIRST_INO > g.inodes_count || est.blocks + 8 > avail) {
			fprintf(stderr, "%s: %s does not fit: it needs %llu inodes and about %llu blocks; "
				"the filesystem has %u inodes and %llu free blocks\n",
				program_name, o->populate_dir, (unsigned long long)est.inodes,
				(unsigned long long)est.blocks, g.inodes_count - STALEFS_FIRST_INO,
				(unsigned long long)avail);
			return EXIT_ERROR;
		}
	}
	if (!o->quiet || o->dry_run)
		print_layout(o, &sb, &g);
	if (o->dry_run)
		return EXIT_OK;
	existing = device_existing_fs(o->device);
	if (existing && !o->force && isatty(0)) {
		char q[256];

		snprintf(q, sizeof(q), "%s contains a %s file system\nProceed anyway?", o->device, existing);
		if (!ask_proceed(q)) {
			fprintf(stderr, "%s: cancelled; nothing written\n", program_name);
			return EXIT_ERROR;
		}
	}
	if (o->create_file) {
		int fd = open(o->device, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

		if (fd < 0)
			return fail(errno, "creating %s", o->device);
		if (ftruncate(fd, (off_t)o->size_bytes) < 0) {
			rc = fail(errno, "extending %s to the requested size", o->device);
			close(fd);
			unlink(o->device);
			return rc;
		}
		close(fd);
	} else if (o->extend_file && truncate(o->image_path, (off_t)o->extend_to) < 0) {
		return fail(errno, "extending %s to the requested size", o->device);
	}
	if (!p->no_discard)
		discard_device(o, (u64)p->blocks_count * p->block_size);
	err = stalefs_mkfs(o->device, p, &fs);
	if (err)
		return fail(err, "writing a new filesystem on %s", o->device);
	/* stalefs_mkfs made it (a hole punched and one block written): report it as mke2fs does. */
	if (!o->quiet && (le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		printf("Creating journal (%u blocks): done\n", le32_to_cpu(fs->sb.s_journal_blocks));
	if (o->populate_dir) {
		char failed[4096] = "";

		if (!o->quiet)
			printf("Copying files into the device: ");
		err = populate_fs(fs, o->populate_dir, failed, sizeof(failed));
		if (err) {
			if (!o->quiet)
				printf("failed\n");
			com_err(program_name, err, "while populating the filesystem from %s", failed[0] ? failed : o->populate_dir);
			stalefs_close(fs);
			return EXIT_ERROR;
		}
		if (!o->quiet)
			printf("done\n");
	}
	if (!o->quiet)
		printf("Writing superblocks and filesystem accounting information: ");
	err = stalefs_close(fs);
	if (err) {
		if (!o->quiet)
			printf("failed\n");
		return fail(err, "writing superblocks to %s", o->device);
	}
	if (!o->quiet)
		printf("done\n");
	return EXIT_OK;
}
