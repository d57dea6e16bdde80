/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-memory extent map (extent_map.c): chunks of sorted extents, with
 * the global index of each chunk's first one, addressed by index as one
 * array (EXT(ei, i)) but edited a chunk at a time.  Kept free of other
 * kernel headers so that tests/unit can build it in userspace.
 */
#ifndef STALEFS_EXTENT_MAP_H
#define STALEFS_EXTENT_MAP_H

/* struct stalefs_ext and the rules on extents are the format core's. */
#ifdef __KERNEL__
#include "core/stalefs_core.h"
#else
#include "stalefs_core.h"
#endif

struct emap_chunk;
struct stalefs_emap {
	struct emap_chunk **c;		/* the chunks, in order */
	u32 *base;			/* index of each chunk's first extent */
	u32 nchunks, cap;
	u32 n;				/* extents in all */
};

/* The extent at index i < m->n. */
struct stalefs_ext *stalefs_emap_at(const struct stalefs_emap *m, u32 i);
/* Index of the first extent ending after lblk (m->n if none). */
u32 stalefs_emap_search(const struct stalefs_emap *m, u32 lblk);
/* Insert e before index i (i == m->n: at the end); -ENOMEM. */
int stalefs_emap_insert(struct stalefs_emap *m, u32 i, const struct stalefs_ext *e);
/* Remove [i, i + count), i + count <= m->n. */
void stalefs_emap_delete(struct stalefs_emap *m, u32 i, u32 count);
void stalefs_emap_free(struct stalefs_emap *m);

#define EXT(ei, i) (*stalefs_emap_at(&(ei)->i_map, (i)))

#endif /* STALEFS_EXTENT_MAP_H */
