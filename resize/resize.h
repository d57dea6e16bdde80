/* SPDX-License-Identifier: GPL-2.0 */
/* resize.stalefs internals: the command line, and the steps main.c runs. */
#ifndef RESIZE_H
#define RESIZE_H

#include "libstalefs.h"

#ifndef STALEFS_VERSION
#define STALEFS_VERSION "0.1"
#endif

#define RESIZE_OK 0
#define RESIZE_ERROR 1

/* -d flags, as resize2fs numbers them. */
#define RESIZE_DEBUG_BMOVE	0x02	/* each block run moved */
#define RESIZE_DEBUG_INODEMAP	0x08	/* each inode renumbered */
#define RESIZE_DEBUG_MIN_CALC	0x40	/* how -P / -M reached the minimum */

extern const char *program_name;

struct resize_opts {
	const char *device;
	const char *size_arg;		/* NULL: the device's size */
	bool force;			/* -f */
	bool flush;			/* -F */
	bool shrink_min;		/* -M */
	bool print_min;			/* -P */
	bool progress;			/* -p */
	int debug;			/* -d */
};

/* An offline resize in progress. */
struct resize_ctx {
	const struct resize_opts *o;
	stalefs_fs *fs;
	struct stalefs_geom old;	/* the geometry before */
	struct stalefs_geom ng;		/* the geometry after */
	bool wrote;			/* something reached the device (else a refusal changed nothing) */
	u64 moved_blocks;		/* what the shrink moved */
	u32 moved_inodes;
};

/* size.c: a size argument (s, K, M, G, T; blocks without a unit), and the minimum. */
int resize_parse_size(const char *s, u32 block_size, u64 *blocks);
errcode_t resize_min_size(stalefs_fs *fs, int debug, u64 *blocks);

/* online.c: the kernel grows a mounted filesystem (STALEFS_IOC_RESIZE_FS). */
int resize_online(const struct resize_opts *o, const char *mnt, u64 cur_blocks, u32 block_size,
		  u64 new_blocks);

/* grow.c, shrink.c: an unmounted filesystem; ctx->ng is the target geometry. */
errcode_t resize_grow(struct resize_ctx *c);
errcode_t resize_shrink(struct resize_ctx *c);

/* A refusal that printed its reason: nothing was written. */
#define RESIZE_REFUSED STALEFS_ERR_CANCELLED

/* Commit what a step changed (a transaction, or with no journal a flush); progress. */
errcode_t resize_commit(struct resize_ctx *c);
void resize_progress(const struct resize_ctx *c, const char *pass, u64 done, u64 total);

#endif
