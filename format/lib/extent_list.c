// SPDX-License-Identifier: GPL-2.0
/*
 * A file's mapping as a sorted array of extents.  The library edits mappings
 * here (insert, remove, split, merge, flag changes) and extent_tree.c turns
 * the array into an on-disk tree and back.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

void stalefs_extent_list_free(struct stalefs_extent_list *l)
{
	free(l->ext);
	memset(l, 0, sizeof(*l));
}

static void reserve(struct stalefs_extent_list *l, u32 extra)
{
	if (l->count + extra <= l->cap)
		return;
	l->cap = (l->count + extra) * 2 + 8;
	l->ext = realloc(l->ext, l->cap * sizeof(*l->ext));
	if (!l->ext) {
		/* The library's arrays are small; running out here is fatal. */
		stalefs_xmalloc((size_t)-1 / 2);
	}
}

static void insert_at(struct stalefs_extent_list *l, u32 pos, struct stalefs_extent_info e)
{
	reserve(l, 1);
	memmove(&l->ext[pos + 1], &l->ext[pos], (l->count - pos) * sizeof(*l->ext));
	l->ext[pos] = e;
	l->count++;
}

static void remove_at(struct stalefs_extent_list *l, u32 pos)
{
	memmove(&l->ext[pos], &l->ext[pos + 1], (l->count - pos - 1) * sizeof(*l->ext));
	l->count--;
}

errcode_t stalefs_extent_list_append(struct stalefs_extent_list *l, u32 lblk, u32 len, u64 pblk, u16 flags)
{
	struct stalefs_extent_info e = { lblk, len, pblk, flags };

	if (len == 0)
		return 0;
	if (l->count && (u64)l->ext[l->count - 1].lblk + l->ext[l->count - 1].len > lblk)
		return STALEFS_ERR_EXTENT_CORRUPT;
	insert_at(l, l->count, e);
	return 0;
}

/* Binary search: true if an extent holds lblk (*index = it); else *index = first extent after lblk. */
bool stalefs_extent_list_find(const struct stalefs_extent_list *l, u32 lblk, u32 *index)
{
	u32 lo = 0, hi = l->count;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		const struct stalefs_extent_info *e = &l->ext[mid];

		if (lblk < e->lblk) {
			hi = mid;
		} else if ((u64)lblk >= (u64)e->lblk + e->len) {
			lo = mid + 1;
		} else {
			*index = mid;
			return true;
		}
	}
	*index = lo;
	return false;
}

static bool mergeable(const struct stalefs_extent_info *a, const struct stalefs_extent_info *b)
{
	return (u64)a->lblk + a->len == b->lblk && a->pblk + a->len == b->pblk &&
	       a->flags == b->flags && (u64)a->len + b->len <= STALEFS_EXT_MAX_LEN;
}

void stalefs_extent_list_merge(struct stalefs_extent_list *l)
{
	u32 i = 0;

	while (i + 1 < l->count) {
		if (mergeable(&l->ext[i], &l->ext[i + 1])) {
			l->ext[i].len += l->ext[i + 1].len;
			remove_at(l, i + 1);
		} else {
			i++;
		}
	}
}

/*
 * Cut the extents overlapping [lblk, lblk+len) so that the range's edges fall
 * on extent boundaries; returns the index of the first extent inside.
 */
static u32 split_at_edges(struct stalefs_extent_list *l, u32 lblk, u64 end)
{
	u32 idx;

	if (stalefs_extent_list_find(l, lblk, &idx) && l->ext[idx].lblk < lblk) {
		struct stalefs_extent_info tail = l->ext[idx];
		u32 head_len = lblk - tail.lblk;

		tail.lblk = lblk;
		tail.pblk += head_len;
		tail.len -= head_len;
		l->ext[idx].len = head_len;
		insert_at(l, idx + 1, tail);
		idx++;
	}
	if (end <= 0xFFFFFFFFULL) {
		u32 e;

		if (stalefs_extent_list_find(l, (u32)end, &e) && l->ext[e].lblk < end) {
			struct stalefs_extent_info tail = l->ext[e];
			u32 head_len = (u32)end - tail.lblk;

			tail.lblk = (u32)end;
			tail.pblk += head_len;
			tail.len -= head_len;
			l->ext[e].len = head_len;
			insert_at(l, e + 1, tail);
		}
	}
	return idx;
}

errcode_t stalefs_extent_list_remove(struct stalefs_extent_list *l, u32 lblk, u32 len,
				     struct stalefs_extent_list *old)
{
	u64 end = (u64)lblk + len;
	u32 idx;

	if (len == 0)
		return 0;
	idx = split_at_edges(l, lblk, end);
	while (idx < l->count && l->ext[idx].lblk < end) {
		if (old) {
			/* In order even when old already holds later pieces (append would refuse them). */
			u32 pos;

			stalefs_extent_list_find(old, l->ext[idx].lblk, &pos);
			insert_at(old, pos, l->ext[idx]);
		}
		remove_at(l, idx);
	}
	return 0;
}

errcode_t stalefs_extent_list_set(struct stalefs_extent_list *l, u32 lblk, u32 len, u64 pblk,
				  u16 flags, struct stalefs_extent_list *old)
{
	struct stalefs_extent_info e = { lblk, len, pblk, flags };
	u32 idx;

	if (len == 0)
		return 0;
	if ((u64)lblk + len > STALEFS_MAX_FILE_BLOCKS)
		return STALEFS_ERR_FILE_TOO_BIG;
	stalefs_extent_list_remove(l, lblk, len, old);
	stalefs_extent_list_find(l, lblk, &idx);
	insert_at(l, idx, e);
	stalefs_extent_list_merge(l);
	return 0;
}

errcode_t stalefs_extent_list_change_flags(struct stalefs_extent_list *l, u32 lblk, u32 len,
					   u16 clear, u16 set)
{
	u64 end = (u64)lblk + len;
	u32 idx;

	if (len == 0)
		return 0;
	idx = split_at_edges(l, lblk, end);
	for (; idx < l->count && l->ext[idx].lblk < end; idx++)
		l->ext[idx].flags = (u16)((l->ext[idx].flags & ~clear) | set);
	stalefs_extent_list_merge(l);
	return 0;
}

/* Split runs longer than one on-disk extent may be, then merge: a split-off
 * remainder may join the extent after it (FORMAT.md 6: writers merge). */
void stalefs_extent_list_normalise(struct stalefs_extent_list *l)
{
	u32 i;

	for (i = 0; i < l->count; i++) {
		if (l->ext[i].len > STALEFS_EXT_MAX_LEN) {
			struct stalefs_extent_info rest = l->ext[i];

			l->ext[i].len = STALEFS_EXT_MAX_LEN;
			rest.lblk += STALEFS_EXT_MAX_LEN;
			rest.pblk += STALEFS_EXT_MAX_LEN;
			rest.len -= STALEFS_EXT_MAX_LEN;
			insert_at(l, i + 1, rest);
		}
	}
	stalefs_extent_list_merge(l);
}
