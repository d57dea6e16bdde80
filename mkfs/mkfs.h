/* SPDX-License-Identifier: GPL-2.0 */
/* mkfs.stalefs internals: options, the device checks, the -d populate walk. */
#ifndef MKFS_H
#define MKFS_H

#include "libstalefs.h"

#ifndef STALEFS_VERSION
#define STALEFS_VERSION "0.1"
#endif

extern const char *program_name;

struct mkfs_options {
	struct stalefs_mkfs_params params;
	const char *device;
	const char *populate_dir;
	u64 size_bytes;
	bool block_size_given;
	bool dry_run, quiet;
	/* Done once every check has passed, so a refused mkfs leaves the target as it was. */
	bool create_file;	/* the target does not exist: create it */
	bool extend_file;	/* a regular file shorter than the size asked for: extend it ... */
	u64 extend_to;		/* ... to this many bytes (a region's end, for IMAGE?offset=N&size=M) */
	char image_path[4096];	/* the file or device itself (device without its ?offset=) */
	int force;
};

/*
 * Parse the command line into *o: 0 to go on, MKFS_PARSE_DONE when it
 * was all done (-V printed the version), MKFS_PARSE_USAGE after printing
 * a usage error.  Never exits, so a fuzzer can call it.
 */
#define MKFS_PARSE_DONE 1
#define MKFS_PARSE_USAGE 2
int mkfs_parse_options(int argc, char **argv, struct mkfs_options *o);
int mkfs_run(struct mkfs_options *o);

/* What a -d tree needs, counted before anything is written. */
struct populate_estimate {
	u64 inodes;
	u64 blocks;
	char bad_path[4096];	/* first entry we cannot copy, with the reason in bad_reason */
	const char *bad_reason;
};
errcode_t populate_estimate(const char *dir, u32 block_size, struct populate_estimate *est);
errcode_t populate_fs(stalefs_fs *fs, const char *dir, char *failed_path, size_t failed_len);

/* Device checks: mounted, existing signatures. */
bool device_is_mounted(const char *device);
const char *device_existing_fs(const char *device);

#endif
