// SPDX-License-Identifier: GPL-2.0
/*
 * The in-memory maps the passes build once and check from: per-group block
 * bitmaps of what the inodes claim, per-slot inode records, the directory
 * list, the list of directory blocks, and the (rare) multiply-claimed blocks.
 *
 * After pass 1 the computed bitmaps replace the library's view of the
 * on-disk ones (maps_swap_into_fs), so every allocation a repair makes goes
 * through the library and can only pick a block nobody owns; the on-disk
 * bitmaps are kept aside for pass 5 to compare against.
 */
#include <stdlib.h>
#include "fsck.h"

size_t bb_bytes(struct fsck_ctx *ctx)
{
	return (size_t)ctx->fs->geom.block_bitmap_blocks * ctx->fs->block_size;
}

size_t ib_bytes(struct fsck_ctx *ctx)
{
	return (size_t)ctx->fs->geom.inode_bitmap_blocks * ctx->fs->block_size;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		fprintf(stderr, "fsck.stalefs: out of memory (%zu bytes)\n", n * size);
		fsck_exit(FSCK_ERROR);
	}
	return p;
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p) {
		fprintf(stderr, "fsck.stalefs: out of memory (%zu bytes)\n", size);
		fsck_exit(FSCK_ERROR);
	}
	return p;
}

void maps_init(struct fsck_ctx *ctx)
{
	ctx->ngroups = ctx->fs->geom.groups_count;
	ctx->groups = xcalloc(ctx->ngroups, sizeof(*ctx->groups));
	ctx->buf = xcalloc(1, ctx->fs->block_size);
}

void maps_free(struct fsck_ctx *ctx)
{
	u32 g;

	if (ctx->groups) {
		for (g = 0; g < ctx->ngroups; g++) {
			struct group_info *gi = &ctx->groups[g];

			free(gi->ft);
			free(gi->links);
			free(gi->counted);
			if (!ctx->maps_swapped)
				free(gi->bmap);
			free(gi->orig_bb);
			free(gi->orig_ib);
			free(gi->snap_bb);
			free(gi->snap_ib);
		}
	}
	free(ctx->groups);
	free(ctx->dirs);
	free(ctx->dblist);
	free(ctx->dups);
	free(ctx->rebuilds);
	free(ctx->dup_inodes);
	free(ctx->xowners);
	free(ctx->buf);
	ctx->groups = NULL;
	ctx->dirs = NULL;
	ctx->dblist = NULL;
	ctx->dups = NULL;
	ctx->rebuilds = NULL;
	ctx->dup_inodes = NULL;
	ctx->buf = NULL;
}

/* Per-slot records for a group: the whole group, so repairs may allocate past the mark. */
void group_ensure_inodes(struct fsck_ctx *ctx, u32 group)
{
	struct group_info *gi = &ctx->groups[group];
	u32 ipg = ctx->fs->geom.inodes_per_group;

	if (gi->ft)
		return;
	gi->ft = xcalloc(ipg, 1);
	gi->links = xcalloc(ipg, sizeof(u16));
	gi->counted = xcalloc(ipg, sizeof(u16));
}

static bool slot_of(struct fsck_ctx *ctx, u32 ino, u32 *group, u32 *idx)
{
	if (!stalefs_ino_valid(ctx->fs, ino))
		return false;
	*group = stalefs_ino_group(&ctx->fs->geom, ino);
	*idx = (ino - 1) % ctx->fs->geom.inodes_per_group;
	return ctx->groups[*group].ft != NULL;
}

u8 *inode_ft_ptr(struct fsck_ctx *ctx, u32 ino)
{
	u32 g, i;

	if (!stalefs_ino_valid(ctx->fs, ino))
		return NULL;
	g = stalefs_ino_group(&ctx->fs->geom, ino);
	group_ensure_inodes(ctx, g);
	i = (ino - 1) % ctx->fs->geom.inodes_per_group;
	return &ctx->groups[g].ft[i];
}

u16 *inode_links_ptr(struct fsck_ctx *ctx, u32 ino)
{
	u32 g, i;

	if (!inode_ft_ptr(ctx, ino))
		return NULL;
	slot_of(ctx, ino, &g, &i);
	return &ctx->groups[g].links[i];
}

u16 *inode_counted_ptr(struct fsck_ctx *ctx, u32 ino)
{
	u32 g, i;

	if (!inode_ft_ptr(ctx, ino))
		return NULL;
	slot_of(ctx, ino, &g, &i);
	return &ctx->groups[g].counted[i];
}

u8 inode_ft(struct fsck_ctx *ctx, u32 ino)
{
	u32 g, i;

	if (!slot_of(ctx, ino, &g, &i))
		return 0;
	return ctx->groups[g].ft[i];
}

void inode_count_ref(struct fsck_ctx *ctx, u32 ino, int delta)
{
	u32 g, i;
	u16 *c;

	if (!slot_of(ctx, ino, &g, &i))
		return;
	c = &ctx->groups[g].counted[i];
	if (delta > 0 && *c < 0xFFFF)
		(*c)++;
	else if (delta < 0 && *c > 0)
		(*c)--;
}

void note_inode_created(struct fsck_ctx *ctx, u32 ino, u16 mode, u16 links)
{
	u8 *ft = inode_ft_ptr(ctx, ino);

	if (!ft)
		return;
	*ft = stalefs_mode_to_ft(mode);
	*inode_links_ptr(ctx, ino) = links;
}

void note_inode_deleted(struct fsck_ctx *ctx, u32 ino)
{
	u8 *ft = inode_ft_ptr(ctx, ino);

	if (ft)
		*ft = 0;
}

/* Set the bits of [start, start+len) that fall in the group (a declined relocation leaves them outside). */
/* The group's own metadata as a bitmap: superblock copy, descriptors, bitmaps, inode table. */
void group_meta_bitmap(struct fsck_ctx *ctx, u32 group, u8 *map)
{
	stalefs_group_uninit_block_bitmap(&ctx->fs->geom, group, &ctx->fs->groups[group].desc, map,
					  (u32)bb_bytes(ctx));
}

void inode_pad_bitmap(struct fsck_ctx *ctx, u8 *map)
{
	u64 bits = ib_bytes(ctx) * 8, b;

	memset(map, 0, ib_bytes(ctx));
	for (b = ctx->fs->geom.inodes_per_group; b < bits; b++)
		bit_set(map, b);
}

static const struct stalefs_group_desc *fs_desc(void *fs, u32 group)
{
	return &((stalefs_fs *)fs)->groups[group].desc;
}

/* Does [start, start+len) touch any group's metadata?  Only the groups it spans are looked at. */
bool block_range_in_meta(struct fsck_ctx *ctx, u64 start, u64 len)
{
	return stalefs_range_on_group_meta(&ctx->fs->geom, fs_desc, ctx->fs, start, len);
}

static u8 *group_bmap(struct fsck_ctx *ctx, u32 group)
{
	struct group_info *gi = &ctx->groups[group];

	if (!gi->bmap) {
		gi->bmap = xcalloc(1, bb_bytes(ctx));
		group_meta_bitmap(ctx, group, gi->bmap);
	}
	return gi->bmap;
}

bool block_claimed(struct fsck_ctx *ctx, u64 block)
{
	const struct stalefs_geom *g = &ctx->fs->geom;
	u32 grp;

	if (block >= g->blocks_count)
		return true;
	grp = stalefs_block_group(g, block);
	if (!ctx->groups[grp].bmap)
		return block_range_in_meta(ctx, block, 1);
	return bit_test(ctx->groups[grp].bmap, block - stalefs_group_first_block(g, grp));
}

/* ---- multiply-claimed blocks: an open-addressing hash, empty unless something is shared ---- */
static u32 dup_hash(u64 block, u32 cap)
{
	return (u32)((block * 0x9E3779B97F4A7C15ULL) >> 33) & (cap - 1);
}

static struct dup_entry *dup_lookup(struct fsck_ctx *ctx, u64 block, bool insert)
{
	u32 h, i;

	if (!ctx->dups_cap) {
		if (!insert)
			return NULL;
		ctx->dups_cap = 64;
		ctx->dups = xcalloc(ctx->dups_cap, sizeof(*ctx->dups));
	}
	if (insert && (ctx->ndups + 1) * 2 > ctx->dups_cap) {
		struct dup_entry *old = ctx->dups;
		u32 oldcap = ctx->dups_cap;

		ctx->dups_cap *= 2;
		ctx->dups = xcalloc(ctx->dups_cap, sizeof(*ctx->dups));
		ctx->ndups = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i].claims) {
				struct dup_entry *e = dup_lookup(ctx, old[i].block, true);

				e->block = old[i].block;
				e->claims = old[i].claims;
			}
		free(old);
	}
	for (h = dup_hash(block, ctx->dups_cap);; h = (h + 1) & (ctx->dups_cap - 1)) {
		struct dup_entry *e = &ctx->dups[h];

		if (e->claims && e->block == block)
			return e;
		if (!e->claims && !e->block) {
			if (!insert)
				return NULL;
			e->block = block;
			ctx->ndups++;
			return e;
		}
	}
}

u32 dup_claims(struct fsck_ctx *ctx, u64 block)
{
	struct dup_entry *e;

	if (!ctx->ndups)
		return 0;
	e = dup_lookup(ctx, block, false);
	return e ? e->claims : 0;
}

/* A claim given up is taken back (a clone that could not be done). */
void dup_reclaim(struct fsck_ctx *ctx, u64 block)
{
	struct dup_entry *e = dup_lookup(ctx, block, false);

	if (e)
		e->claims++;
}

/* One claimant gives a multiply-claimed block up. */
void dup_release(struct fsck_ctx *ctx, u64 block)
{
	struct dup_entry *e = dup_lookup(ctx, block, false);

	if (e && e->claims > 0)
		e->claims--;
}

u64 claim_blocks(struct fsck_ctx *ctx, u64 start, u64 len)
{
	const struct stalefs_geom *g = &ctx->fs->geom;
	u64 b = start, end = start + len, dups = 0;

	while (b < end) {
		u32 grp = stalefs_block_group(g, b);
		u64 gfirst = stalefs_group_first_block(g, grp);
		u64 gend = gfirst + stalefs_group_nblocks(g, grp);
		u64 stop = end < gend ? end : gend;
		u8 *map = group_bmap(ctx, grp);

		for (; b < stop; b++) {
			u64 bit = b - gfirst;

			/* Whole bytes at a time when aligned and free: big files stay cheap. */
			if ((bit & 7) == 0 && b + 8 <= stop && map[bit >> 3] == 0) {
				map[bit >> 3] = 0xFF;
				b += 7;
				continue;
			}
			if (bit_test(map, bit)) {
				struct dup_entry *e = dup_lookup(ctx, b, true);

				e->claims = e->claims ? e->claims + 1 : 2;
				dups++;
			} else {
				bit_set(map, bit);
			}
		}
	}
	return dups;
}

/* ---- directories, sorted by inode number (pass 1 adds them in order) ---- */
struct dir_info *dir_add(struct fsck_ctx *ctx, u32 ino)
{
	struct dir_info *di;
	u32 pos = ctx->ndirs;

	if (ctx->ndirs == ctx->dirs_cap) {
		ctx->dirs_cap = ctx->dirs_cap ? ctx->dirs_cap * 2 : 256;
		ctx->dirs = xrealloc(ctx->dirs, ctx->dirs_cap * sizeof(*ctx->dirs));
	}
	while (pos > 0 && ctx->dirs[pos - 1].ino > ino)
		pos--;
	if (pos > 0 && ctx->dirs[pos - 1].ino == ino)
		return &ctx->dirs[pos - 1];
	memmove(&ctx->dirs[pos + 1], &ctx->dirs[pos], (ctx->ndirs - pos) * sizeof(*ctx->dirs));
	ctx->ndirs++;
	di = &ctx->dirs[pos];
	memset(di, 0, sizeof(*di));
	di->ino = ino;
	return di;
}

struct dir_info *dir_find(struct fsck_ctx *ctx, u32 ino)
{
	u32 lo = 0, hi = ctx->ndirs;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (ctx->dirs[mid].ino < ino)
			lo = mid + 1;
		else if (ctx->dirs[mid].ino > ino)
			hi = mid;
		else
			return &ctx->dirs[mid];
	}
	return NULL;
}

void dblist_add(struct fsck_ctx *ctx, u32 ino, u32 lblk, u64 pblk)
{
	if (ctx->ndb == ctx->db_cap) {
		ctx->db_cap = ctx->db_cap ? ctx->db_cap * 2 : 1024;
		ctx->dblist = xrealloc(ctx->dblist, ctx->db_cap * sizeof(*ctx->dblist));
	}
	ctx->dblist[ctx->ndb].pblk = pblk;
	ctx->dblist[ctx->ndb].ino = ino;
	ctx->dblist[ctx->ndb].lblk = lblk;
	ctx->ndb++;
}

void dblist_drop(struct fsck_ctx *ctx, u32 ino)
{
	u32 i;

	for (i = 0; i < ctx->ndb; i++)
		if (ctx->dblist[i].ino == ino)
			ctx->dblist[i].ino = 0;
}

void rebuild_add(struct fsck_ctx *ctx, u32 ino, u8 fixes)
{
	if (ctx->nrebuilds && ctx->rebuilds[ctx->nrebuilds - 1].ino == ino) {
		ctx->rebuilds[ctx->nrebuilds - 1].fixes |= fixes;
		return;
	}
	if (ctx->nrebuilds == ctx->rebuilds_cap) {
		ctx->rebuilds_cap = ctx->rebuilds_cap ? ctx->rebuilds_cap * 2 : 16;
		ctx->rebuilds = xrealloc(ctx->rebuilds, ctx->rebuilds_cap * sizeof(*ctx->rebuilds));
	}
	ctx->rebuilds[ctx->nrebuilds].ino = ino;
	ctx->rebuilds[ctx->nrebuilds].fixes = fixes;
	ctx->nrebuilds++;
}

/*
 * Hand the computed maps to the library: from here on its bitmaps are the
 * truth (what the inodes own), and the on-disk ones wait in orig_* for pass 5.
 * Groups that are uninitialised on disk and own nothing keep NULL maps: the
 * library makes them up from the metadata, which is exactly the truth.
 */
void maps_swap_into_fs(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	u32 g, ipg = fs->geom.inodes_per_group, i;

	for (g = 0; g < fs->geom.groups_count; g++) {
		struct group_info *gi = &ctx->groups[g];
		struct stalefs_group *grp = &fs->groups[g];
		u16 flags = le16_to_cpu(grp->desc.bg_flags);
		/* Changed before pass 1 (orphans finished, a cleared journal's blocks freed): the
		 * disk must get the change, which the computed map holds too. */
		bool bb_changed = grp->bb_dirty, ib_changed = grp->ib_dirty;

		gi->orig_bb = grp->block_bitmap;
		gi->orig_bb_loaded = grp->block_bitmap != NULL && !(flags & STALEFS_BG_BLOCK_UNINIT);
		if (!gi->orig_bb_loaded) {
			free(gi->orig_bb);
			gi->orig_bb = NULL;
		}
		gi->orig_ib = grp->inode_bitmap;
		gi->orig_ib_loaded = grp->inode_bitmap != NULL && !(flags & STALEFS_BG_INODE_UNINIT);
		if (!gi->orig_ib_loaded) {
			free(gi->orig_ib);
			gi->orig_ib = NULL;
		}
		if (!gi->bmap && !(flags & STALEFS_BG_BLOCK_UNINIT)) {
			gi->bmap = xcalloc(1, bb_bytes(ctx));
			group_meta_bitmap(ctx, g, gi->bmap);
		}
		grp->block_bitmap = gi->bmap;
		grp->bb_dirty = bb_changed && grp->block_bitmap;
		grp->inode_bitmap = NULL;
		if (gi->ft || !(flags & STALEFS_BG_INODE_UNINIT)) {
			grp->inode_bitmap = xcalloc(1, ib_bytes(ctx));
			inode_pad_bitmap(ctx, grp->inode_bitmap);
			if (gi->ft)
				for (i = 0; i < ipg; i++)
					if (gi->ft[i])
						bit_set(grp->inode_bitmap, i);
		}
		grp->ib_dirty = ib_changed && grp->inode_bitmap;
		/*
		 * Repairs allocate and free through the library from here on; a
		 * snapshot lets pass 5 tell their changes (written, not reported)
		 * from differences that were on disk.  -n repairs nothing.
		 */
		if (!(ctx->options & OPT_READONLY)) {
			gi->snap_taken = true;
			if (grp->block_bitmap) {
				gi->snap_bb = xcalloc(1, bb_bytes(ctx));
				memcpy(gi->snap_bb, grp->block_bitmap, bb_bytes(ctx));
			}
			if (grp->inode_bitmap) {
				gi->snap_ib = xcalloc(1, ib_bytes(ctx));
				memcpy(gi->snap_ib, grp->inode_bitmap, ib_bytes(ctx));
			}
		}
	}
	ctx->maps_swapped = true;
}
