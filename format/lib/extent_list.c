// SPDX-License-Identifier: GPL-2.0
/*
 * A file's mapping as a sorted array of extents.  The library edits mappings
 * here (insert, remove, split, merge, flag changes) by the format core's
 * rules (core/extent_rules.c, which the module follows too) and
 * extent_tree.c turns the array into an on-disk tree and back.
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

static void insert_at(struct stalefs_extent_list *l, u32 pos, struct stalefs_ext e)
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
	struct stalefs_ext e = { lblk, len, pblk, flags };

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
	*index = l->ext ? stalefs_ext_array_search(l->ext, l->count, lblk) : 0;
	return *index < l->count && l->ext[*index].lblk <= lblk;
}

void stalefs_extent_list_merge(struct stalefs_extent_list *l)
{
	u32 i = 0;

	while (i + 1 < l->count) {
		if (stalefs_ext_mergeable(&l->ext[i], &l->ext[i + 1])) {
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
		struct stalefs_ext tail;

		stalefs_ext_split(&l->ext[idx], lblk, &tail);
		insert_at(l, idx + 1, tail);
		idx++;
	}
	if (end <= 0xFFFFFFFFULL) {
		u32 e;

		if (stalefs_extent_list_find(l, (u32)end, &e) && l->ext[e].lblk < end) {
			struct stalefs_ext tail;

			stalefs_ext_split(&l->ext[e], (u32)end, &tail);
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
	struct stalefs_ext e = { lblk, len, pblk, flags };
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
			struct stalefs_ext rest;

			stalefs_ext_split(&l->ext[i], l->ext[i].lblk + STALEFS_EXT_MAX_LEN, &rest);
			insert_at(l, i + 1, rest);
		}
	}
	stalefs_extent_list_merge(l);
}
