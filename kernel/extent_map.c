// SPDX-License-Identifier: GPL-2.0
/*
 * The in-memory extent map's storage: the sorted extents of an inode in
 * chunks of at most EMAP_CHUNK, with the global index of each chunk's first
 * extent alongside, so that the rest of the module addresses extents by
 * index (emap_at) as in one array.
 *
 * Why chunks: one flat array costs a memmove of everything after an edit,
 * and random writes into preallocated space split an extent in three at
 * each conversion: after ten thousand writes every conversion moved half a
 * megabyte, twice.  In chunks an edit moves at most one chunk's tail and
 * the chunk table (a few hundred entries for a hundred thousand extents).
 * A small file has one small chunk that grows as needed, so cached inodes
 * cost what they hold.
 *
 * Locking: the inode's i_map_sem, as for the extents themselves.
 */
#ifdef __KERNEL__
#include <linux/slab.h>
#include <linux/mm.h>
#else
#include "emap_shim.h"	/* tests/unit: malloc in place of the kernel's allocators */
#endif
#include "extent_map.h"

#define EMAP_CHUNK	128	/* extents a chunk holds at most: 3 KiB */

struct emap_chunk {
	u32 n, cap;
	struct stalefs_ext e[];
};

static struct emap_chunk *chunk_alloc(u32 cap)
{
	struct emap_chunk *c = kmalloc(struct_size(c, e, cap), GFP_NOFS);

	if (c) {
		c->n = 0;
		c->cap = cap;
	}
	return c;
}

void stalefs_emap_free(struct stalefs_emap *m)
{
	u32 i;

	for (i = 0; i < m->nchunks; i++)
		kfree(m->c[i]);
	kvfree(m->c);
	kvfree(m->base);
	memset(m, 0, sizeof(*m));
}

/* The chunk holding index i (i < m->n), by its first index. */
static u32 chunk_of(const struct stalefs_emap *m, u32 i)
{
	u32 lo = 1, hi = m->nchunks;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (m->base[mid] <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

struct stalefs_ext *stalefs_emap_at(const struct stalefs_emap *m, u32 i)
{
	u32 c = chunk_of(m, i);

	return &m->c[c]->e[i - m->base[c]];
}

/* First index whose extent ends after lblk (m->n if none). */
u32 stalefs_emap_search(const struct stalefs_emap *m, u32 lblk)
{
	u32 lo = 0, hi = m->nchunks, c;

	/* The first chunk whose last extent ends after lblk... */
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		const struct emap_chunk *k = m->c[mid];
		const struct stalefs_ext *e = &k->e[k->n - 1];

		if ((u64)e->lblk + e->len <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->nchunks)
		return m->n;
	/* ... then within it. */
	c = lo;
	return m->base[c] + stalefs_ext_array_search(m->c[c]->e, m->c[c]->n, lblk);
}

/* The chunk table and the base indices from chunk `from` on. */
static void rebase(struct stalefs_emap *m, u32 from)
{
	u32 i;

	for (i = from; i < m->nchunks; i++)
		m->base[i] = i ? m->base[i - 1] + m->c[i - 1]->n : 0;
}

static int table_reserve(struct stalefs_emap *m, u32 need)
{
	struct emap_chunk **c;
	u32 *base, cap;

	if (need <= m->cap)
		return 0;
	cap = max_t(u32, 4, m->cap * 2);
	while (cap < need)
		cap *= 2;
	c = kvmalloc_array(cap, sizeof(*c), GFP_NOFS);
	base = kvmalloc_array(cap, sizeof(*base), GFP_NOFS);
	if (!c || !base) {
		kvfree(c);
		kvfree(base);
		return -ENOMEM;
	}
	if (m->nchunks) {
		memcpy(c, m->c, m->nchunks * sizeof(*c));
		memcpy(base, m->base, m->nchunks * sizeof(*base));
	}
	kvfree(m->c);
	kvfree(m->base);
	m->c = c;
	m->base = base;
	m->cap = cap;
	return 0;
}

/* Chunk c can take one more: grow it, or split it in two (c + 1 is the new half). */
static int chunk_make_room(struct stalefs_emap *m, u32 c)
{
	struct emap_chunk *k = m->c[c], *h;
	u32 half;

	if (k->n < k->cap)
		return 0;
	if (k->cap < EMAP_CHUNK) {
		u32 cap = min_t(u32, EMAP_CHUNK, k->cap * 2);

		h = krealloc(k, struct_size(k, e, cap), GFP_NOFS);
		if (!h)
			return -ENOMEM;
		h->cap = cap;
		m->c[c] = h;
		return 0;
	}
	if (table_reserve(m, m->nchunks + 1))
		return -ENOMEM;
	h = chunk_alloc(EMAP_CHUNK);
	if (!h)
		return -ENOMEM;
	half = k->n / 2;
	memcpy(h->e, &k->e[half], (k->n - half) * sizeof(k->e[0]));
	h->n = k->n - half;
	k->n = half;
	memmove(&m->c[c + 2], &m->c[c + 1], (m->nchunks - c - 1) * sizeof(m->c[0]));
	memmove(&m->base[c + 2], &m->base[c + 1], (m->nchunks - c - 1) * sizeof(m->base[0]));
	m->c[c + 1] = h;
	m->nchunks++;
	m->base[c + 1] = m->base[c] + half;
	return 0;
}

/* A new empty chunk at position c of the table (appends past a full last chunk). */
static int chunk_add(struct stalefs_emap *m, u32 c, u32 cap)
{
	struct emap_chunk *k;

	if (table_reserve(m, m->nchunks + 1))
		return -ENOMEM;
	k = chunk_alloc(cap);
	if (!k)
		return -ENOMEM;
	memmove(&m->c[c + 1], &m->c[c], (m->nchunks - c) * sizeof(m->c[0]));
	memmove(&m->base[c + 1], &m->base[c], (m->nchunks - c) * sizeof(m->base[0]));
	m->c[c] = k;
	m->base[c] = c ? m->base[c - 1] + m->c[c - 1]->n : 0;
	m->nchunks++;
	return 0;
}

/* Insert e before index i (i == m->n: at the end). */
int stalefs_emap_insert(struct stalefs_emap *m, u32 i, const struct stalefs_ext *e)
{
	struct emap_chunk *k;
	u32 c, o;
	int err;

	if (!m->nchunks || (i == m->n && m->c[m->nchunks - 1]->n == EMAP_CHUNK)) {
		/* The first chunk starts small; a full last one is followed by a new one. */
		err = chunk_add(m, m->nchunks, m->nchunks ? EMAP_CHUNK : 8);
		if (err)
			return err;
		c = m->nchunks - 1;
	} else {
		c = i == m->n ? m->nchunks - 1 : chunk_of(m, i);
		/* At a chunk boundary the earlier chunk takes it if it has room. */
		if (c && i == m->base[c] && m->c[c - 1]->n < EMAP_CHUNK)
			c--;
		err = chunk_make_room(m, c);
		if (err)
			return err;
		if (i - m->base[c] > m->c[c]->n)	/* the split moved i into the new half */
			c++;
	}
	k = m->c[c];
	o = i - m->base[c];
	memmove(&k->e[o + 1], &k->e[o], (k->n - o) * sizeof(k->e[0]));
	k->e[o] = *e;
	k->n++;
	m->n++;
	rebase(m, c + 1);
	return 0;
}

/* Remove [i, i + count), i + count <= m->n. */
void stalefs_emap_delete(struct stalefs_emap *m, u32 i, u32 count)
{
	u32 c, first, o;

	if (!count)
		return;
	first = c = chunk_of(m, i);
	o = i - m->base[c];
	while (count) {
		struct emap_chunk *k = m->c[c];
		u32 take = min(count, k->n - o);

		memmove(&k->e[o], &k->e[o + take], (k->n - o - take) * sizeof(k->e[0]));
		k->n -= take;
		m->n -= take;
		count -= take;
		if (!k->n) {
			/* An empty chunk goes; the next one takes its place in the table. */
			kfree(k);
			memmove(&m->c[c], &m->c[c + 1], (m->nchunks - c - 1) * sizeof(m->c[0]));
			memmove(&m->base[c], &m->base[c + 1], (m->nchunks - c - 1) * sizeof(m->base[0]));
			m->nchunks--;
		} else {
			c++;
		}
		o = 0;
	}
	rebase(m, first);
}
