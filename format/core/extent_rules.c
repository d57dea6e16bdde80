// SPDX-License-Identifier: GPL-2.0
/*
 * The rules for extents and extent tree nodes that both worlds follow
 * (FORMAT.md section 6): an extent decoded from its leaf entry and back,
 * when two extents merge, how one splits, searching a sorted run, a node's
 * header and block head, and how many index levels a tree of n leaves
 * needs.  The module keeps its extents in chunks (kernel/extent_map.c), the
 * library in one array (format/lib/extent_list.c); both edit them with
 * these, so a file the tools write and one the module writes have the same
 * shape.
 */
#ifndef __KERNEL__
#include <string.h>
#endif
#include "stalefs_core.h"

void stalefs_ext_decode(const struct stalefs_extent *d, struct stalefs_ext *e)
{
	e->lblk = le32_to_cpu(d->ee_lblk);
	e->len = le16_to_cpu(d->ee_len);
	e->pblk = le64_to_cpu(d->ee_pblk);
	e->flags = le16_to_cpu(d->ee_flags);
}

void stalefs_ext_encode(struct stalefs_extent *d, const struct stalefs_ext *e)
{
	d->ee_lblk = cpu_to_le32(e->lblk);
	d->ee_len = cpu_to_le16((u16)e->len);
	d->ee_flags = cpu_to_le16(e->flags);
	d->ee_pblk = cpu_to_le64(e->pblk);
}

bool stalefs_ext_mergeable(const struct stalefs_ext *a, const struct stalefs_ext *b)
{
	return stalefs_ext_end(a) == b->lblk && a->pblk + a->len == b->pblk &&
	       a->flags == b->flags && (u64)a->len + b->len <= STALEFS_EXT_MAX_LEN;
}

void stalefs_ext_split(struct stalefs_ext *e, u32 at, struct stalefs_ext *tail)
{
	u32 head = at - e->lblk;

	*tail = *e;
	tail->lblk = at;
	tail->pblk += head;
	tail->len -= head;
	e->len = head;
}

u32 stalefs_ext_array_search(const struct stalefs_ext *a, u32 n, u32 lblk)
{
	u32 lo = 0, hi = n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (stalefs_ext_end(&a[mid]) <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void stalefs_eh_init(struct stalefs_extent_header *eh, u32 entries, u32 max, u32 depth)
{
	eh->eh_magic = cpu_to_le16(STALEFS_EXT_MAGIC);
	eh->eh_entries = cpu_to_le16((u16)entries);
	eh->eh_max = cpu_to_le16((u16)max);
	eh->eh_depth = cpu_to_le16((u16)depth);
}

void stalefs_extent_root_init(struct stalefs_extent_header *root)
{
	memset(root, 0, STALEFS_IBLOCK_SIZE);
	stalefs_eh_init(root, 0, STALEFS_ROOT_EXTENTS, 0);
}

void stalefs_extblock_init(void *block, u32 block_size, u64 blocknr, u32 owner, u32 owner_gen,
			   u32 depth, u32 entries)
{
	struct stalefs_extent_block *eb = block;

	memset(block, 0, block_size);
	eb->eb_magic = cpu_to_le32(STALEFS_EXTBLK_MAGIC);
	eb->eb_blocknr = cpu_to_le64(blocknr);
	eb->eb_owner = cpu_to_le32(owner);
	eb->eb_owner_gen = cpu_to_le32(owner_gen);
	stalefs_eh_init(&eb->eb_hdr, entries, stalefs_extblock_max_entries(block_size), depth);
}

int stalefs_ext_tree_levels(u32 nleaves, u32 node_cap, u32 level_count[STALEFS_EXT_MAX_DEPTH + 1],
			    u32 *depth, u32 *nindex)
{
	u32 c = nleaves, d = 0;

	*nindex = 0;
	level_count[d++] = c;
	while (c > STALEFS_ROOT_EXTENTS) {
		if (d == STALEFS_EXT_MAX_DEPTH)
			return -1;
		c = (c + node_cap - 1) / node_cap;
		level_count[d++] = c;
		*nindex += c;
	}
	*depth = d;
	return 0;
}
