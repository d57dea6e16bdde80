// SPDX-License-Identifier: GPL-2.0
/*
 * Bitmaps and allocation.  Bitmaps of initialised groups are read at open;
 * those of uninitialised groups (BLOCK_UNINIT / INODE_UNINIT) are made up in
 * memory when first needed, and written only once something in them changes.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include "libstalefs.h"
#include "lib_internal.h"

void *stalefs_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p) {
		fprintf(stderr, "libstalefs: out of memory allocating %zu bytes\n", size);
		abort();
	}
	return p;
}

void *stalefs_xrealloc(void *old, size_t size)
{
	void *p = realloc(old, size ? size : 1);

	if (!p) {
		fprintf(stderr, "libstalefs: out of memory allocating %zu bytes\n", size);
		abort();
	}
	return p;
}

void *stalefs_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "libstalefs: out of memory allocating %zu bytes\n", n * size);
		abort();
	}
	return p;
}

static inline bool bit_test(const u8 *map, u64 i) { return map[i >> 3] & (1u << (i & 7)); }
static inline void bit_set(u8 *map, u64 i) { map[i >> 3] |= (u8)(1u << (i & 7)); }
static inline void bit_clear(u8 *map, u64 i) { map[i >> 3] &= (u8)~(1u << (i & 7)); }

static size_t bb_bytes(const stalefs_fs *fs) { return (size_t)fs->geom.block_bitmap_blocks * fs->block_size; }
static size_t ib_bytes(const stalefs_fs *fs) { return (size_t)fs->geom.inode_bitmap_blocks * fs->block_size; }

static void synth_inode_bitmap(stalefs_fs *fs, u8 *map)
{
	u64 bits = ib_bytes(fs) * 8, b;

	memset(map, 0, ib_bytes(fs));
	for (b = fs->geom.inodes_per_group; b < bits; b++)
		bit_set(map, b);
}

static errcode_t load_group_bitmaps(stalefs_fs *fs, u32 group)
{
	struct stalefs_group *grp = &fs->groups[group];
	const struct stalefs_group_desc *d = &grp->desc;
	u16 flags = le16_to_cpu(d->bg_flags);
	errcode_t err;

	if (!grp->block_bitmap) {
		grp->block_bitmap = stalefs_xmalloc(bb_bytes(fs));
		if (flags & STALEFS_BG_BLOCK_UNINIT) {
			stalefs_group_uninit_block_bitmap(&fs->geom, group, &grp->desc, grp->block_bitmap,
							  (u32)bb_bytes(fs));
		} else {
			err = stalefs_io_read(fs->io, le64_to_cpu(d->bg_block_bitmap),
					      fs->geom.block_bitmap_blocks, grp->block_bitmap);
			if (err) {
				/* Unreadable: full, so nothing is allocated there (never the
				 * buffer's leftovers, which a checker would take for the disk's). */
				memset(grp->block_bitmap, 0xff, bb_bytes(fs));
				return err;
			}
			grp->bb_bad_csum = stalefs_verify_block_bitmap_csum(fs->seed, group, d, grp->block_bitmap,
									    (u32)bb_bytes(fs)) != 0;
		}
	}
	if (!grp->inode_bitmap) {
		grp->inode_bitmap = stalefs_xmalloc(ib_bytes(fs));
		if (flags & STALEFS_BG_INODE_UNINIT) {
			synth_inode_bitmap(fs, grp->inode_bitmap);
		} else {
			err = stalefs_io_read(fs->io, le64_to_cpu(d->bg_inode_bitmap),
					      fs->geom.inode_bitmap_blocks, grp->inode_bitmap);
			if (err) {
				memset(grp->inode_bitmap, 0xff, ib_bytes(fs));
				return err;
			}
			grp->ib_bad_csum = stalefs_verify_inode_bitmap_csum(fs->seed, group, d, grp->inode_bitmap,
									    (u32)ib_bytes(fs)) != 0;
		}
	}
	return 0;
}

errcode_t stalefs_read_bitmaps(stalefs_fs *fs)
{
	u32 i;
	errcode_t err;

	for (i = 0; i < fs->geom.groups_count; i++) {
		u16 flags = le16_to_cpu(fs->groups[i].desc.bg_flags);

		/* Uninitialised bitmaps are made up lazily: no I/O, no memory until used. */
		if ((flags & STALEFS_BG_FLAGS_ALL) == STALEFS_BG_FLAGS_ALL)
			continue;
		err = load_group_bitmaps(fs, i);
		if (err)
			return err;
		if ((fs->groups[i].bb_bad_csum || fs->groups[i].ib_bad_csum) &&
		    !(fs->flags & STALEFS_OPEN_IGNORE_CSUM))
			return STALEFS_ERR_BITMAP_CSUM;
	}
	fs->bitmaps_loaded = true;
	return 0;
}

/* The group's bitmaps, loaded or made up; aborts only on I/O errors reported earlier at open. */
static struct stalefs_group *group_maps(stalefs_fs *fs, u32 group)
{
	struct stalefs_group *grp = &fs->groups[group];

	if (!grp->block_bitmap || !grp->inode_bitmap) {
		if (load_group_bitmaps(fs, group)) {
			/* An unreadable bitmap: treat the group as full so nothing is allocated there. */
			if (!grp->block_bitmap)
				grp->block_bitmap = stalefs_xmalloc(bb_bytes(fs));
			if (!grp->inode_bitmap)
				grp->inode_bitmap = stalefs_xmalloc(ib_bytes(fs));
			memset(grp->block_bitmap, 0xff, bb_bytes(fs));
			memset(grp->inode_bitmap, 0xff, ib_bytes(fs));
		}
	}
	return grp;
}

errcode_t stalefs_write_dirty_bitmaps(stalefs_fs *fs)
{
	u32 i;
	errcode_t err;

	for (i = 0; i < fs->geom.groups_count; i++) {
		struct stalefs_group *grp = &fs->groups[i];
		struct stalefs_group_desc *d = &grp->desc;

		if (grp->bb_dirty) {
			d->bg_flags = cpu_to_le16(le16_to_cpu(d->bg_flags) & ~STALEFS_BG_BLOCK_UNINIT);
			d->bg_block_bitmap_csum = cpu_to_le32(
				stalefs_bitmap_csum(fs->seed, i, grp->block_bitmap, (u32)bb_bytes(fs)));
			err = stalefs_io_write(fs->io, le64_to_cpu(d->bg_block_bitmap),
					       fs->geom.block_bitmap_blocks, grp->block_bitmap);
			if (err)
				return err;
			grp->bb_dirty = false;
			grp->desc_dirty = true;
		}
		if (grp->ib_dirty) {
			d->bg_flags = cpu_to_le16(le16_to_cpu(d->bg_flags) & ~STALEFS_BG_INODE_UNINIT);
			d->bg_inode_bitmap_csum = cpu_to_le32(
				stalefs_bitmap_csum(fs->seed, i, grp->inode_bitmap, (u32)ib_bytes(fs)));
			err = stalefs_io_write(fs->io, le64_to_cpu(d->bg_inode_bitmap),
					       fs->geom.inode_bitmap_blocks, grp->inode_bitmap);
			if (err)
				return err;
			grp->ib_dirty = false;
			grp->desc_dirty = true;
		}
	}
	return 0;
}

bool stalefs_test_block(stalefs_fs *fs, u64 block)
{
	u32 group;

	if (block >= fs->geom.blocks_count)
		return true;
	group = stalefs_block_group(&fs->geom, block);
	return bit_test(group_maps(fs, group)->block_bitmap,
			block - stalefs_group_first_block(&fs->geom, group));
}

void stalefs_mark_block(stalefs_fs *fs, u64 block)
{
	u32 group;
	struct stalefs_group *grp;

	if (block >= fs->geom.blocks_count)
		return;
	group = stalefs_block_group(&fs->geom, block);
	grp = group_maps(fs, group);
	bit_set(grp->block_bitmap, block - stalefs_group_first_block(&fs->geom, group));
	grp->bb_dirty = true;
}

void stalefs_unmark_block(stalefs_fs *fs, u64 block)
{
	u32 group;
	struct stalefs_group *grp;

	if (block >= fs->geom.blocks_count)
		return;
	group = stalefs_block_group(&fs->geom, block);
	grp = group_maps(fs, group);
	bit_clear(grp->block_bitmap, block - stalefs_group_first_block(&fs->geom, group));
	grp->bb_dirty = true;
}

/*
 * [start, start + count) all free / all marked, a group at a time and whole
 * bytes where aligned: a journal is up to 2^18 blocks, and mkfs on 1 TiB
 * should not spend its time on single bits.
 */
bool stalefs_block_range_free(stalefs_fs *fs, u64 start, u64 count)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 b = start, end = start + count;

	if (end > g->blocks_count || end < start)
		return false;
	while (b < end) {
		u32 group = stalefs_block_group(g, b);
		u64 gfirst = stalefs_group_first_block(g, group);
		u64 stop = gfirst + stalefs_group_nblocks(g, group) < end ? gfirst + stalefs_group_nblocks(g, group) : end;
		const u8 *map = group_maps(fs, group)->block_bitmap;

		for (; b < stop; b++) {
			u64 bit = b - gfirst;

			if ((bit & 7) == 0 && b + 8 <= stop) {
				if (map[bit >> 3])
					return false;
				b += 7;
				continue;
			}
			if (bit_test(map, bit))
				return false;
		}
	}
	return true;
}

void stalefs_mark_block_range(stalefs_fs *fs, u64 start, u64 count)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 b = start, end = start + count;

	if (end > g->blocks_count)
		end = g->blocks_count;
	while (b < end) {
		u32 group = stalefs_block_group(g, b);
		u64 gfirst = stalefs_group_first_block(g, group);
		u64 stop = gfirst + stalefs_group_nblocks(g, group) < end ? gfirst + stalefs_group_nblocks(g, group) : end;
		struct stalefs_group *grp = group_maps(fs, group);

		for (; b < stop; b++) {
			u64 bit = b - gfirst;

			if ((bit & 7) == 0 && b + 8 <= stop) {
				grp->block_bitmap[bit >> 3] = 0xFF;
				b += 7;
				continue;
			}
			bit_set(grp->block_bitmap, bit);
		}
		grp->bb_dirty = true;
	}
}

bool stalefs_ino_valid(const stalefs_fs *fs, u32 ino)
{
	return ino >= 1 && ino <= fs->geom.inodes_count;
}

bool stalefs_test_inode(stalefs_fs *fs, u32 ino)
{
	u32 group;

	if (!stalefs_ino_valid(fs, ino))
		return true;
	group = stalefs_ino_group(&fs->geom, ino);
	return bit_test(group_maps(fs, group)->inode_bitmap, (ino - 1) % fs->geom.inodes_per_group);
}

void stalefs_mark_inode(stalefs_fs *fs, u32 ino)
{
	struct stalefs_group *grp;

	if (!stalefs_ino_valid(fs, ino))
		return;
	grp = group_maps(fs, stalefs_ino_group(&fs->geom, ino));
	bit_set(grp->inode_bitmap, (ino - 1) % fs->geom.inodes_per_group);
	grp->ib_dirty = true;
}

void stalefs_unmark_inode(stalefs_fs *fs, u32 ino)
{
	struct stalefs_group *grp;

	if (!stalefs_ino_valid(fs, ino))
		return;
	grp = group_maps(fs, stalefs_ino_group(&fs->geom, ino));
	bit_clear(grp->inode_bitmap, (ino - 1) % fs->geom.inodes_per_group);
	grp->ib_dirty = true;
}

/* First clear bit in [from, nbits), skipping full 64-bit words. */
static u64 find_zero(const u8 *map, u64 from, u64 nbits)
{
	u64 i = from;

	while (i < nbits) {
		if ((i & 63) == 0 && i + 64 <= nbits) {
			u64 w;

			memcpy(&w, map + (i >> 3), 8);
			if (w == ~0ULL) {
				i += 64;
				continue;
			}
		}
		if (!bit_test(map, i))
			return i;
		i++;
	}
	return nbits;
}

void stalefs_adjust_free_blocks(stalefs_fs *fs, u32 group, s64 delta)
{
	struct stalefs_group_desc *d = &fs->groups[group].desc;

	d->bg_free_blocks_count = cpu_to_le32(le32_to_cpu(d->bg_free_blocks_count) + (u32)delta);
	fs->sb.s_free_blocks_count = cpu_to_le64(le64_to_cpu(fs->sb.s_free_blocks_count) + (u64)delta);
	fs->groups[group].desc_dirty = true;
	fs->sb_dirty = true;
}

void stalefs_adjust_free_inodes(stalefs_fs *fs, u32 group, s64 delta)
{
	struct stalefs_group_desc *d = &fs->groups[group].desc;

	d->bg_free_inodes_count = cpu_to_le32(le32_to_cpu(d->bg_free_inodes_count) + (u32)delta);
	fs->sb.s_free_inodes_count = cpu_to_le32(le32_to_cpu(fs->sb.s_free_inodes_count) + (u32)delta);
	fs->groups[group].desc_dirty = true;
	fs->sb_dirty = true;
}

void stalefs_adjust_stale_count(stalefs_fs *fs, u32 ino, int delta)
{
	u32 group = stalefs_ino_group(&fs->geom, ino);
	struct stalefs_group_desc *d = &fs->groups[group].desc;
	u32 n = le32_to_cpu(d->bg_stale_count);

	/* A damaged count may say 0: it stays 0 rather than wrap (fsck recounts). */
	if (delta < 0 && n < (u32)-delta)
		n = 0;
	else
		n += (u32)delta;
	d->bg_stale_count = cpu_to_le32(n);
	fs->groups[group].desc_dirty = true;
}

errcode_t stalefs_alloc_blocks(stalefs_fs *fs, u64 goal, u32 want, u64 *start, u32 *got)
{
	const struct stalefs_geom *g = &fs->geom;
	u32 ngroups = g->groups_count, first_group, k;
	u64 limit = g->blocks_count;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (!fs->bitmaps_loaded)
		return STALEFS_ERR_NO_BITMAPS;
	if (want == 0)
		want = 1;
	/* A shrink moves things below alloc_end: nothing is allocated past it meanwhile. */
	if (fs->alloc_end && fs->alloc_end < g->blocks_count) {
		limit = fs->alloc_end;
		ngroups = stalefs_block_group(g, limit - 1) + 1;
	}
	if (goal >= limit)
		goal = 0;
	first_group = stalefs_block_group(g, goal);
	/* The goal's group from the goal on, the other groups, then the goal's group from its start. */
	for (k = 0; k <= ngroups; k++) {
		u32 group = (first_group + k) % ngroups;
		struct stalefs_group *grp;
		u64 gfirst = stalefs_group_first_block(g, group);
		u64 nbits = stalefs_group_nblocks(g, group), bit, end, b;
		u64 from = (k == 0 && goal > gfirst) ? goal - gfirst : 0;

		if (gfirst + nbits > limit)
			nbits = limit - gfirst;
		if (le32_to_cpu(fs->groups[group].desc.bg_free_blocks_count) == 0)
			continue;
		grp = group_maps(fs, group);
		for (bit = from;;) {
			u64 busy_end, run_end;

			bit = find_zero(grp->block_bitmap, bit, nbits);
			if (bit >= nbits)
				break;
			/* Freed by the running transaction (txn.c): not before it commits. */
			if (stalefs_txn_busy(fs, gfirst + bit, &busy_end)) {
				if (busy_end >= gfirst + nbits)
					break;
				bit = busy_end - gfirst;
				continue;
			}
			run_end = busy_end - gfirst < nbits ? busy_end - gfirst : nbits;
			for (end = bit + 1; end < run_end && end - bit < want && !bit_test(grp->block_bitmap, end); end++)
				;
			for (b = bit; b < end; b++)
				bit_set(grp->block_bitmap, b);
			grp->bb_dirty = true;
			stalefs_adjust_free_blocks(fs, group, -(s64)(end - bit));
			*start = gfirst + bit;
			*got = (u32)(end - bit);
			fs->block_alloc_goal = *start + *got;
			stalefs_txn_allocated(fs, *start, *got);
			return 0;
		}
	}
	return STALEFS_ERR_NO_SPACE;
}

errcode_t stalefs_alloc_block(stalefs_fs *fs, u64 goal, u64 *block)
{
	u32 got;

	return stalefs_alloc_blocks(fs, goal, 1, block, &got);
}

errcode_t stalefs_free_blocks(stalefs_fs *fs, u64 start, u64 count)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 b;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (!fs->bitmaps_loaded)
		return STALEFS_ERR_NO_BITMAPS;
	if (start == 0 || start + count > g->blocks_count || start + count < start)
		return STALEFS_ERR_BAD_BLOCK_NUM;
	for (b = start; b < start + count; b++) {
		u32 group = stalefs_block_group(g, b);
		struct stalefs_group *grp = group_maps(fs, group);
		u64 bit = b - stalefs_group_first_block(g, group);

		/* Freeing a free block would corrupt the counts; skip it (fsck's job to explain). */
		if (!bit_test(grp->block_bitmap, bit))
			continue;
		bit_clear(grp->block_bitmap, bit);
		grp->bb_dirty = true;
		stalefs_adjust_free_blocks(fs, group, 1);
	}
	stalefs_txn_freed(fs, start, count);
	return 0;
}

/* Directories spread out (the emptiest group with few directories); files stay near their parent. */
static u32 pick_inode_group(stalefs_fs *fs, u32 parent, bool is_dir)
{
	const struct stalefs_geom *g = &fs->geom;
	u32 ngroups = g->groups_count, pgroup, i, best = ~0u;
	u64 avg_free = le32_to_cpu(fs->sb.s_free_inodes_count) / ngroups;

	/* Nothing ordinary allocated yet: this is mkfs making lost+found, which FORMAT.md
	 * puts in the first ordinary inode (11), so it is not spread to another group. */
	bool first_ino = le32_to_cpu(fs->sb.s_free_inodes_count) == g->inodes_count - (STALEFS_FIRST_INO - 1);

	pgroup = stalefs_ino_valid(fs, parent) ? stalefs_ino_group(g, parent) : 0;
	if (is_dir && ngroups > 1 && !first_ino) {
		u32 best_dirs = ~0u;

		for (i = 0; i < ngroups; i++) {
			u32 grp = (pgroup + 1 + i) % ngroups;
			const struct stalefs_group_desc *d = &fs->groups[grp].desc;
			u32 fi = le32_to_cpu(d->bg_free_inodes_count);

			if (fi == 0 || fi < avg_free)
				continue;
			if (le32_to_cpu(d->bg_used_dirs_count) < best_dirs) {
				best_dirs = le32_to_cpu(d->bg_used_dirs_count);
				best = grp;
			}
		}
		if (best != ~0u)
			return best;
	}
	for (i = 0; i < ngroups; i++) {
		u32 grp = (pgroup + i) % ngroups;

		if (le32_to_cpu(fs->groups[grp].desc.bg_free_inodes_count) > 0)
			return grp;
	}
	return ~0u;
}

/* The query half of stalefs_alloc_inode: the group and index it would take, changing nothing. */
static errcode_t choose_inode(stalefs_fs *fs, u32 parent, bool is_dir, u32 *ret_group, u32 *ret_idx)
{
	const struct stalefs_geom *g = &fs->geom;
	u32 group, ngroups = g->groups_count, k;

	if (!fs->bitmaps_loaded)
		return STALEFS_ERR_NO_BITMAPS;
	/* A shrink: inodes only in the groups that stay (ino_alloc_end is a group's last inode). */
	if (fs->ino_alloc_end && fs->ino_alloc_end < g->inodes_count)
		ngroups = fs->ino_alloc_end / g->inodes_per_group;
	group = pick_inode_group(fs, parent, is_dir);
	if (group == ~0u)
		return STALEFS_ERR_NO_INODES;
	if (group >= ngroups)
		group = 0;
	for (k = 0; k < ngroups; k++, group = (group + 1) % ngroups) {
		u32 ipg = g->inodes_per_group, idx, first = 0;

		if (le32_to_cpu(fs->groups[group].desc.bg_free_inodes_count) == 0)
			continue;
		if (group == 0)
			first = STALEFS_FIRST_INO - 1;	/* reserved inodes are never handed out */
		idx = (u32)find_zero(group_maps(fs, group)->inode_bitmap, first, ipg);
		if (idx < ipg) {
			*ret_group = group;
			*ret_idx = idx;
			return 0;
		}
	}
	return STALEFS_ERR_NO_INODES;
}

errcode_t stalefs_peek_inode(stalefs_fs *fs, u32 parent, u16 mode, u32 *ino)
{
	u32 group, idx;
	errcode_t err = choose_inode(fs, parent, (mode & STALEFS_S_IFMT) == STALEFS_S_IFDIR, &group, &idx);

	if (!err)
		*ino = group * fs->geom.inodes_per_group + idx + 1;
	return err;
}

errcode_t stalefs_alloc_inode(stalefs_fs *fs, u32 parent, u16 mode, u32 *ino)
{
	u32 ipg = fs->geom.inodes_per_group, group, idx, mark, n;
	bool is_dir = (mode & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
	struct stalefs_group_desc *d;
	struct stalefs_group *grp;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = choose_inode(fs, parent, is_dir, &group, &idx);
	if (err)
		return err;
	grp = group_maps(fs, group);
	d = &fs->groups[group].desc;
	/* Past the initialised part of the table: zero the slots up to and including idx. */
	mark = ipg - le32_to_cpu(d->bg_itable_unused);
	if (idx >= mark) {
		struct stalefs_inode zero;

		memset(&zero, 0, sizeof(zero));
		for (n = mark; n <= idx; n++) {
			err = stalefs_write_inode_raw(fs, group * ipg + n + 1, &zero);
			/* the whole slot: its xattr area too (what the device held there means nothing) */
			if (!err)
				err = stalefs_write_inode_area(fs, group * ipg + n + 1, NULL);
			if (err)
				return err;
		}
		d->bg_itable_unused = cpu_to_le32(ipg - idx - 1);
	}
	bit_set(grp->inode_bitmap, idx);
	grp->ib_dirty = true;
	if (is_dir)
		d->bg_used_dirs_count = cpu_to_le32(le32_to_cpu(d->bg_used_dirs_count) + 1);
	stalefs_adjust_free_inodes(fs, group, -1);
	*ino = group * ipg + idx + 1;
	/* FORMAT.md 5: the in-inode xattr area is zeroed when the inode is allocated, so
	 * nothing of an earlier life of the slot can be taken for this inode's attributes. */
	if (stalefs_xattr_ibody_len(&fs->geom))
		return stalefs_write_inode_area(fs, *ino, NULL);
	return 0;
}

errcode_t stalefs_free_inode(stalefs_fs *fs, u32 ino, bool is_dir)
{
	u32 group;
	struct stalefs_group *grp;
	struct stalefs_group_desc *d;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (!stalefs_ino_valid(fs, ino))
		return STALEFS_ERR_BAD_INODE_NUM;
	group = stalefs_ino_group(&fs->geom, ino);
	grp = group_maps(fs, group);
	d = &grp->desc;
	if (!bit_test(grp->inode_bitmap, (ino - 1) % fs->geom.inodes_per_group))
		return 0;
	bit_clear(grp->inode_bitmap, (ino - 1) % fs->geom.inodes_per_group);
	grp->ib_dirty = true;
	if (is_dir && le32_to_cpu(d->bg_used_dirs_count) > 0)
		d->bg_used_dirs_count = cpu_to_le32(le32_to_cpu(d->bg_used_dirs_count) - 1);
	stalefs_adjust_free_inodes(fs, group, 1);
	return 0;
}

errcode_t stalefs_find_free_block(stalefs_fs *fs, u64 start, u64 *block)
{
	u64 b;

	for (b = start; b < fs->geom.blocks_count; b++)
		if (!stalefs_test_block(fs, b)) {
			*block = b;
			return 0;
		}
	return STALEFS_ERR_NO_SPACE;
}

errcode_t stalefs_find_free_inode(stalefs_fs *fs, u32 start, u32 *ino)
{
	u32 i;

	for (i = start ? start : 1; i <= fs->geom.inodes_count && i != 0; i++)
		if (!stalefs_test_inode(fs, i)) {
			*ino = i;
			return 0;
		}
	return STALEFS_ERR_NO_INODES;
}

void stalefs_recount(stalefs_fs *fs)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 total_blocks = 0;
	u32 total_inodes = 0, i;

	for (i = 0; i < g->groups_count; i++) {
		struct stalefs_group *grp = group_maps(fs, i);
		u32 nb = stalefs_group_nblocks(g, i), fb = 0, fi = 0, b;

		for (b = 0; b < nb; b++)
			fb += !bit_test(grp->block_bitmap, b);
		for (b = 0; b < g->inodes_per_group; b++)
			fi += !bit_test(grp->inode_bitmap, b);
		if (le32_to_cpu(grp->desc.bg_free_blocks_count) != fb ||
		    le32_to_cpu(grp->desc.bg_free_inodes_count) != fi) {
			grp->desc.bg_free_blocks_count = cpu_to_le32(fb);
			grp->desc.bg_free_inodes_count = cpu_to_le32(fi);
			grp->desc_dirty = true;
		}
		total_blocks += fb;
		total_inodes += fi;
	}
	fs->sb.s_free_blocks_count = cpu_to_le64(total_blocks);
	fs->sb.s_free_inodes_count = cpu_to_le32(total_inodes);
	fs->sb_dirty = true;
}
