// SPDX-License-Identifier: GPL-2.0
/*
 * A set of block numbers kept as sorted, disjoint, non-adjacent runs: what
 * the journaled write path (txn.c) uses for the blocks a running
 * transaction allocated and the blocks it freed that must not be handed out
 * before it commits.  Runs are few (an allocation or a free adds one), so a
 * sorted array with binary search is enough.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

/* Index of the first run that ends after block (runs[i].start + len > block). */
static u32 first_ending_after(const struct stalefs_block_set *s, u64 block)
{
	u32 lo = 0, hi = s->count;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (s->runs[mid].start + s->runs[mid].len <= block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void stalefs_block_set_clear(struct stalefs_block_set *s)
{
	free(s->runs);
	memset(s, 0, sizeof(*s));
}

void stalefs_block_set_add(struct stalefs_block_set *s, u64 start, u64 len)
{
	u64 end = start + len;
	u32 i, j;

	if (!len)
		return;
	/* Runs that touch or overlap [start, end) merge into one. */
	i = start ? first_ending_after(s, start - 1) : 0;
	for (j = i; j < s->count && s->runs[j].start <= end; j++) {
		if (s->runs[j].start < start)
			start = s->runs[j].start;
		if (s->runs[j].start + s->runs[j].len > end)
			end = s->runs[j].start + s->runs[j].len;
	}
	if (j == i) {
		if (s->count == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 16;
			s->runs = stalefs_xrealloc(s->runs, s->cap * sizeof(*s->runs));
		}
		memmove(&s->runs[i + 1], &s->runs[i], (s->count - i) * sizeof(*s->runs));
		s->count++;
	} else {
		u32 k;

		for (k = i; k < j; k++)
			s->total -= s->runs[k].len;
		memmove(&s->runs[i + 1], &s->runs[j], (s->count - j) * sizeof(*s->runs));
		s->count -= j - i - 1;
	}
	s->runs[i].start = start;
	s->runs[i].len = end - start;
	s->total += end - start;
}

/* Remove [start, start + len); the parts removed are passed to fn (may be NULL). */
void stalefs_block_set_remove(struct stalefs_block_set *s, u64 start, u64 len,
			      void (*fn)(u64 start, u64 len, void *priv), void *priv)
{
	u64 end = start + len;
	u32 i = first_ending_after(s, start);

	while (i < s->count && s->runs[i].start < end) {
		struct stalefs_block_run r = s->runs[i];
		u64 rend = r.start + r.len;
		u64 cut0 = r.start > start ? r.start : start, cut1 = rend < end ? rend : end;

		if (fn)
			fn(cut0, cut1 - cut0, priv);
		s->total -= cut1 - cut0;
		if (r.start < start && rend > end) {
			/* The middle of one run: it splits in two. */
			if (s->count == s->cap) {
				s->cap = s->cap * 2;
				s->runs = stalefs_xrealloc(s->runs, s->cap * sizeof(*s->runs));
			}
			memmove(&s->runs[i + 1], &s->runs[i], (s->count - i) * sizeof(*s->runs));
			s->count++;
			s->runs[i].len = start - r.start;
			s->runs[i + 1].start = end;
			s->runs[i + 1].len = rend - end;
			return;
		}
		if (r.start < start) {
			s->runs[i].len = start - r.start;
			i++;
		} else if (rend > end) {
			s->runs[i].start = end;
			s->runs[i].len = rend - end;
			i++;
		} else {
			memmove(&s->runs[i], &s->runs[i + 1], (s->count - i - 1) * sizeof(*s->runs));
			s->count--;
		}
	}
}

bool stalefs_block_set_find(const struct stalefs_block_set *s, u64 block, u64 *next_start, u64 *run_end)
{
	u32 i = first_ending_after(s, block);

	if (i >= s->count) {
		*next_start = ~0ULL;
		*run_end = ~0ULL;
		return false;
	}
	*next_start = s->runs[i].start;
	*run_end = s->runs[i].start + s->runs[i].len;
	return s->runs[i].start <= block;
}
