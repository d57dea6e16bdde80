// SPDX-License-Identifier: GPL-2.0
/*
 * An in-memory index of large directories, for a long-lived user of the
 * library (stalefs-fuse; stalefs_dir_index_enable): directories are linear
 * on disk, so without help a lookup reads every block before it can say a
 * name is absent, and creating n names in one directory costs O(n^2).  A
 * directory of DX_MIN_BLOCKS or more gets, on its first lookup or add, a
 * hash of each name to the block holding it and the largest free record of
 * each block, built from one verified pass over its blocks; dir.c keeps it
 * exact at every add and remove.  A lookup then reads only the blocks a
 * name's hash points to (none when it is absent), an add goes straight to
 * the first block with room (the linear code starts from where its last add
 * went: either is a valid directory).
 *
 * An index names its directory's inode generation and block count: a
 * directory that changed another way (freed and reused, truncated by
 * something else) is indexed afresh.  A block that does not verify while the
 * index is built means no index: the linear code reports the damage as it
 * always did.  Indexes are kept for the DX_MAX_DIRS directories used last.
 * Memory: about 12 bytes a name while indexed.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

#define DX_MIN_BLOCKS 4
#define DX_MAX_DIRS 64
#define SLOT_EMPTY 0xFFFFFFFFu
#define SLOT_GONE 0xFFFFFFFEu

struct dx_dir {
	u32 ino, gen, nblocks;
	u16 *free;		/* per block: the largest record a new entry may take there */
	u32 *hash, *lblk;	/* open addressing: lblk SLOT_EMPTY or SLOT_GONE when unused */
	u32 cap, used, gone;	/* slots, live names, tombstones */
	u64 last_use;
};

struct stalefs_dir_index {
	struct dx_dir *dirs[DX_MAX_DIRS];
	u32 ndirs;
	u64 clock;
};

u32 stalefs_dirindex_name_hash(const char *name, u32 len)
{
	u32 h = 2166136261u, i;

	for (i = 0; i < len; i++)
		h = (h ^ (u8)name[i]) * 16777619u;
	return h;
}

static void dx_free(struct dx_dir *d)
{
	if (!d)
		return;
	free(d->free);
	free(d->hash);
	free(d->lblk);
	free(d);
}

void stalefs_dir_index_enable(stalefs_fs *fs)
{
	if (!fs->dir_index)
		fs->dir_index = stalefs_xcalloc(1, sizeof(*fs->dir_index));
}

void stalefs_dir_index_free(stalefs_fs *fs)
{
	u32 i;

	if (!fs->dir_index)
		return;
	for (i = 0; i < fs->dir_index->ndirs; i++)
		dx_free(fs->dir_index->dirs[i]);
	free(fs->dir_index);
	fs->dir_index = NULL;
}

void stalefs_dirindex_drop(stalefs_fs *fs, u32 dir)
{
	struct stalefs_dir_index *x = fs->dir_index;
	u32 i;

	if (!x)
		return;
	for (i = 0; i < x->ndirs; i++)
		if (x->dirs[i]->ino == dir) {
			dx_free(x->dirs[i]);
			x->dirs[i] = x->dirs[--x->ndirs];
			return;
		}
}

static void slots_alloc(struct dx_dir *d, u32 cap)
{
	u32 i;

	d->cap = cap;
	d->hash = stalefs_xmalloc(cap * sizeof(*d->hash));
	d->lblk = stalefs_xmalloc(cap * sizeof(*d->lblk));
	for (i = 0; i < cap; i++)
		d->lblk[i] = SLOT_EMPTY;
	d->used = d->gone = 0;
}

static void slot_put(struct dx_dir *d, u32 hash, u32 lblk)
{
	u32 i = hash & (d->cap - 1);

	while (d->lblk[i] != SLOT_EMPTY && d->lblk[i] != SLOT_GONE)
		i = (i + 1) & (d->cap - 1);
	if (d->lblk[i] == SLOT_GONE)
		d->gone--;
	d->hash[i] = hash;
	d->lblk[i] = lblk;
	d->used++;
}

/* Room for one more name: the table stays under half full, tombstones included. */
static void reserve_slot(struct dx_dir *d)
{
	u32 *oh = d->hash, *ol = d->lblk, ocap = d->cap, i, cap = d->cap;

	if ((d->used + d->gone + 1) * 2 <= d->cap)
		return;
	while ((d->used + 1) * 2 > cap / 2)
		cap *= 2;
	slots_alloc(d, cap);
	for (i = 0; i < ocap; i++)
		if (ol[i] != SLOT_EMPTY && ol[i] != SLOT_GONE)
			slot_put(d, oh[i], ol[i]);
	free(oh);
	free(ol);
}

void stalefs_dirindex_add(struct dx_dir *d, const char *name, u32 len, u32 lblk)
{
	reserve_slot(d);
	slot_put(d, stalefs_dirindex_name_hash(name, len), lblk);
}

void stalefs_dirindex_remove(struct dx_dir *d, const char *name, u32 len, u32 lblk)
{
	u32 hash = stalefs_dirindex_name_hash(name, len), i = hash & (d->cap - 1);

	for (; d->lblk[i] != SLOT_EMPTY; i = (i + 1) & (d->cap - 1))
		if (d->lblk[i] == lblk && d->hash[i] == hash) {
			d->lblk[i] = SLOT_GONE;
			d->used--;
			d->gone++;
			return;
		}
}

u32 stalefs_dirindex_candidates(const struct dx_dir *d, const char *name, u32 len, u32 *out, u32 max)
{
	u32 hash = stalefs_dirindex_name_hash(name, len), i = hash & (d->cap - 1), n = 0, k;

	for (; d->lblk[i] != SLOT_EMPTY; i = (i + 1) & (d->cap - 1)) {
		if (d->lblk[i] == SLOT_GONE || d->hash[i] != hash)
			continue;
		for (k = 0; k < n && out[k] != d->lblk[i]; k++)
			;
		if (k == n && n < max)
			out[n++] = d->lblk[i];
	}
	return n;
}

/* The largest record a new entry could take in a block (stalefs_dirblock_find_room's rule). */
u16 stalefs_dirindex_block_room(const void *block, u32 bs)
{
	const u8 *b = block;
	u32 off = sizeof(struct stalefs_dir_block), best = 0;

	while (off + sizeof(struct stalefs_dir_entry) <= bs) {
		const struct stalefs_dir_entry *de = (const void *)(b + off);
		u32 rec = le16_to_cpu(de->rec_len), used = de->inode ? STALEFS_DIR_REC_LEN(de->name_len) : 0;

		if (rec < sizeof(*de) || rec > bs - off)
			break;
		if (rec >= used && rec - used > best)
			best = rec - used;
		off += rec;
	}
	return (u16)(best > 0xFFFF ? 0xFFFF : best);
}

void stalefs_dirindex_set_room(struct dx_dir *d, u32 lblk, u16 room)
{
	if (lblk >= d->nblocks) {
		d->free = stalefs_xrealloc(d->free, (lblk + 1) * sizeof(*d->free));
		memset(d->free + d->nblocks, 0, (lblk + 1 - d->nblocks) * sizeof(*d->free));
		d->nblocks = lblk + 1;
	}
	d->free[lblk] = room;
}

u32 stalefs_dirindex_first_room(const struct dx_dir *d, u32 need)
{
	u32 i;

	for (i = 0; i < d->nblocks; i++)
		if (d->free[i] >= need)
			return i;
	return ~0u;
}

struct build_ctx {
	struct dx_dir *d;
};

static int build_entry(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	(void)fs;
	stalefs_dirindex_add(((struct build_ctx *)priv)->d, de->name, de->name_len, de->lblk);
	return 0;
}

/* An entry the block's verifier let through but the walk cannot use: no index. */
static int build_bad(stalefs_fs *fs, const struct stalefs_dirent_info *de, int rule, void *priv)
{
	(void)fs;
	(void)de;
	(void)rule;
	(void)priv;
	return 1;
}

/* Make room among the indexes: the one used longest ago goes. */
static void evict(struct stalefs_dir_index *x)
{
	u32 i, oldest = 0;

	for (i = 1; i < x->ndirs; i++)
		if (x->dirs[i]->last_use < x->dirs[oldest]->last_use)
			oldest = i;
	dx_free(x->dirs[oldest]);
	x->dirs[oldest] = x->dirs[--x->ndirs];
}

struct dx_dir *stalefs_dirindex_get(stalefs_fs *fs, u32 dir, const struct stalefs_inode *inode, u32 nblocks,
			      errcode_t (*read_block)(void *ctx, u32 lblk, const u8 **block), void *ctx)
{
	struct stalefs_dir_index *x = fs->dir_index;
	struct build_ctx b;
	struct dx_dir *d;
	u32 i, gen = le32_to_cpu(inode->i_generation);

	if (!x || nblocks < DX_MIN_BLOCKS)
		return NULL;
	for (i = 0; i < x->ndirs; i++) {
		d = x->dirs[i];
		if (d->ino != dir)
			continue;
		if (d->gen == gen && d->nblocks == nblocks) {
			d->last_use = ++x->clock;
			return d;
		}
		stalefs_dirindex_drop(fs, dir);	/* the directory changed behind the index */
		break;
	}
	d = stalefs_xcalloc(1, sizeof(*d));
	d->ino = dir;
	d->gen = gen;
	slots_alloc(d, 64);
	b.d = d;
	for (i = 0; i < nblocks; i++) {
		const u8 *block;
		static const struct stalefs_dir_scan_ops ops = { .entry = build_entry, .bad_entry = build_bad };

		if (read_block(ctx, i, &block) ||
		    stalefs_dirblock_entries(fs, block, i, 0, &ops, &b) != 0) {
			dx_free(d);	/* damage: the linear code will say what it is */
			return NULL;
		}
		stalefs_dirindex_set_room(d, i, stalefs_dirindex_block_room(block, fs->block_size));
	}
	if (x->ndirs == DX_MAX_DIRS)
		evict(x);
	d->last_use = ++x->clock;
	x->dirs[x->ndirs++] = d;
	return d;
}
