/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The volatile-write-cache model of a power cut, on a dm-log-writes log.
 *
 * dm-log-writes logs a plain write only when a later FLUSH completes: just
 * before the flush's entry come the writes that had completed when the
 * flush was sent.  A FUA write is logged when it completes, a mark when it
 * is sent.  So the entries between two flushes are a group of writes that
 * sat in the device's volatile cache until that flush.
 *
 * A power cut at entry CUT (entries [0, CUT) happened) therefore leaves:
 *   - everything logged before the last FLUSH entry below CUT (the
 *     "window" start W): that flush made it durable;
 *   - every FUA write in [W, CUT) (an entry with both FLUSH and FUA, such
 *     as a commit block sent with PREFLUSH|FUA, is durable with all before it);
 *   - an arbitrary subset of the plain writes in [W, CUT): each is kept or
 *     lost on its own, decided by a hash of (seed, CUT, index), so a cut is
 *     reproduced from its seed alone and does not depend on the order in
 *     which entries are visited.
 * Kept writes land in log order, so of two overlapping writes the later
 * one wins when both are kept.  Discards are not applied (the old
 * contents stay: a file system must not rely on them), unless the cut
 * asks for it (discards, mode suffix "+discard"): a discard is then
 * cached and kept or lost as a plain write is, and a kept one zeroes its
 * range, as the blocks of a thin device or an image file read after one;
 * so a discard of a block the file system still needed shows.  With no
 * flush below CUT, W is 0.
 */
#ifndef ROBUST_CACHE_MODEL_H
#define ROBUST_CACHE_MODEL_H

#include <stdint.h>
#include "logwrites.h"

/* What one entry contributes to the disk at a cut. */
enum cm_fate {
	CM_NOTHING,	/* no data: mark, discard, flush without data */
	CM_DURABLE,	/* before the window, or FUA: on the disk */
	CM_KEPT,	/* in the cache at the cut and written back */
	CM_DROPPED,	/* in the cache at the cut and lost */
	CM_LATER,	/* at or after the cut: never happened */
};

struct cm_cut {
	uint64_t cut;		/* entries [0, cut) happened */
	uint64_t seed;
	unsigned keep_pct;	/* chance (0..100) that a cached write survives */
	int discards;		/* discards zero their range (when kept), else they do nothing */
};

/*
 * Parse a mode: "all" (100), "none" (0), "random" (50) or "random:N"
 * (N percent); 0 or -1.
 */
int cm_parse_mode(const char *s, unsigned *keep_pct);
/* A mode with an optional "+discard": *discards says whether it was there. */
int cm_parse_cut_mode(const char *s, unsigned *keep_pct, int *discards);

/* Does a cut at c->cut keep the cached write at index? (pure) */
int cm_keeps(const struct cm_cut *c, uint64_t index);

/* The fate of e in cut c whose window starts at entry window (pure). */
enum cm_fate cm_fate(const struct cm_cut *c, uint64_t window, const struct lw_entry *e);

/* A whole cut over a log: the window and what happens in it. */
struct cm_plan {
	uint64_t window;	/* the last flush below the cut, or 0 */
	uint64_t durable_fua;	/* FUA writes in the window */
	uint64_t nr_cached;	/* plain writes in the window */
	uint64_t *cached;	/* their indices, in log order */
	unsigned char *kept;	/* kept[i]: cached[i] survives */
	uint64_t nr_kept;
	/*
	 * Kept cached writes that overlap a FUA write earlier in the window.
	 * The log puts them after it, yet they may have completed before
	 * the FUA write was sent: which of the two the disk holds is then
	 * not known from the log (log order is applied).  Reported, so a
	 * surprising result can be traced to it.
	 */
	uint64_t ambiguous;
};

/*
 * Plan cut c over log (read from entry 0; the log is rewound first and
 * left at an unspecified entry): 0, or -1 with a message (bad log, cut past
 * its end, out of memory).  cm_plan_free releases the arrays.
 */
int cm_plan(struct lw_log *log, const struct cm_cut *c, struct cm_plan *p);
void cm_plan_free(struct cm_plan *p);
/*
 * The cut's disk: BASE_PATH holds the disk after entries [0, from) (a
 * filled image for from = 0); bring it forward to the window start (from
 * must not be past it), copy it to IMG_PATH, then put on IMG_PATH what the
 * cut keeps of [window, cut).  Cuts made in increasing order thus cost one
 * pass over the log for BASE in all.  0, or -1 with a message.
 */
int cm_make_cut(struct lw_log *log, const struct cm_cut *c, const struct cm_plan *p, const char *base_path,
		uint64_t from, const char *img_path);
/* Put on img (a file or a block device) the entries of [from, to) that cut c keeps (durable or
 * kept): 0, or -1 with a message. */
int cm_apply(struct lw_log *log, const struct cm_cut *c, const struct cm_plan *p, uint64_t from,
	     uint64_t to, int img, const char *img_path);
/* Copy size bytes of one open image onto another: 0, or -1 with a message. */
int cm_copy_image(int from, const char *from_path, int to, const char *to_path, uint64_t size);

#endif
