// SPDX-License-Identifier: GPL-2.0
/* The volatile-write-cache model of a power cut: see cache-model.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cache-model.h"

int cm_parse_mode(const char *s, unsigned *keep_pct)
{
	char *end;

	if (!strcmp(s, "all")) {
		*keep_pct = 100;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*keep_pct = 0;
		return 0;
	}
	if (!strcmp(s, "random")) {
		*keep_pct = 50;
		return 0;
	}
	if (strncmp(s, "random:", 7) || s[7] < '0' || s[7] > '9')
		return -1;
	errno = 0;
	unsigned long v = strtoul(s + 7, &end, 10);
	if (errno || *end || v > 100)
		return -1;
	*keep_pct = (unsigned)v;
	return 0;
}

int cm_parse_cut_mode(const char *s, unsigned *keep_pct, int *discards)
{
	char mode[32];
	size_t n = strlen(s);

	*discards = n > 8 && !strcmp(s + n - 8, "+discard");
	if (!*discards)
		return cm_parse_mode(s, keep_pct);
	if (n - 8 >= sizeof(mode))
		return -1;
	memcpy(mode, s, n - 8);
	mode[n - 8] = '\0';
	return cm_parse_mode(mode, keep_pct);
}

/* splitmix64's finaliser: a cheap hash whose every input bit moves every output bit. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

int cm_keeps(const struct cm_cut *c, uint64_t index)
{
	if (c->keep_pct >= 100)
		return 1;
	if (!c->keep_pct)
		return 0;
	return mix(mix(mix(c->seed) ^ c->cut) ^ index) % 100 < c->keep_pct;
}

enum cm_fate cm_fate(const struct cm_cut *c, uint64_t window, const struct lw_entry *e)
{
	if (e->index >= c->cut)
		return CM_LATER;
	if (!lw_has_data(e) && !(c->discards && (e->flags & LW_DISCARD) && e->nr_sectors))
		return CM_NOTHING;
	if (e->index < window || (e->flags & LW_FUA))
		return CM_DURABLE;
	/*
	 * A flush entry's own data (PREFLUSH without FUA) is written after
	 * the flush and may sit in the cache like any plain write.  (Linux
	 * 6.1's dm core splits such a bio into an empty flush and the data,
	 * so the target never logs one; kept for other kernels.)
	 */
	return cm_keeps(c, e->index) ? CM_KEPT : CM_DROPPED;
}

struct range {
	uint64_t sector, nr;
};

static int overlaps(const struct range *a, const struct lw_entry *e)
{
	return a->sector < e->sector + e->nr_sectors && e->sector < a->sector + a->nr;
}

int cm_plan(struct lw_log *log, const struct cm_cut *c, struct cm_plan *p)
{
	struct lw_entry e;
	int r;

	memset(p, 0, sizeof(*p));
	if (c->cut > log->nr_entries) {
		fprintf(stderr, "%s: the log has %llu entries, the cut is at %llu\n", log->path,
			(unsigned long long)log->nr_entries, (unsigned long long)c->cut);
		return -1;
	}
	/* Pass 1: the window starts at the last flush below the cut. */
	lw_rewind(log);
	while ((r = lw_next(log, &e)) == 1 && e.index < c->cut)
		if (e.flags & LW_FLUSH)
			p->window = e.index;
	if (r < 0)
		return -1;

	/* Pass 2: the window's entries (their count bounds the arrays). */
	uint64_t room = c->cut - p->window;
	struct range *fua = calloc(room, sizeof(*fua));
	p->cached = calloc(room, sizeof(*p->cached));
	p->kept = calloc(room, 1);
	uint64_t nr_fua = 0;
	if (!fua || !p->cached || !p->kept) {
		fprintf(stderr, "cache-model: out of memory for a window of %llu entries\n",
			(unsigned long long)room);
		goto fail;
	}
	lw_rewind(log);
	while ((r = lw_next(log, &e)) == 1 && e.index < c->cut) {
		if (e.index < p->window)
			continue;
		enum cm_fate f = cm_fate(c, p->window, &e);
		if (f == CM_DURABLE) {
			fua[nr_fua++] = (struct range){ e.sector, e.nr_sectors };
			p->durable_fua++;
		} else if (f == CM_KEPT || f == CM_DROPPED) {
			p->cached[p->nr_cached] = e.index;
			p->kept[p->nr_cached++] = f == CM_KEPT;
			if (f == CM_KEPT) {
				p->nr_kept++;
				for (uint64_t i = 0; i < nr_fua; i++)
					if (overlaps(&fua[i], &e)) {
						p->ambiguous++;
						break;
					}
			}
		}
	}
	if (r < 0)
		goto fail;
	free(fua);
	return 0;
fail:
	free(fua);
	cm_plan_free(p);
	return -1;
}

void cm_plan_free(struct cm_plan *p)
{
	free(p->cached);
	free(p->kept);
	p->cached = NULL;
	p->kept = NULL;
}
