// SPDX-License-Identifier: GPL-2.0
/*
 * An in-memory index of a large directory: which blocks hold a name of a
 * given hash, and how much room each block has.  Directories stay linear on
 * disk (FORMAT.md section 8); without the index a lookup reads every block
 * before it can say "no such name", and an add scans every block for room,
 * so filling or statting a directory of n entries costs O(n^2).
 *
 * The index is built from the blocks on the first lookup or add in a
 * directory of at least DX_MIN_BLOCKS blocks, kept exact by every change
 * (dir.c calls stalefs_dx_update after each edit), and dropped at eviction.
 * It must be exact, since a lookup trusts it to say a name is absent: any
 * failure to maintain it (memory) drops it, and the linear walk takes over.
 *
 * Locking: changes run under the directory's exclusive i_rwsem, so no
 * lookup runs at the same time.  Lookups hold it shared and may race to
 * build: i_dx_lock serialises that, and the pointer is published with
 * release/acquire.
 */
#include <linux/slab.h>
#include <linux/stringhash.h>
#include "stalefs.h"
#include "dir_index.h"

#define DX_MIN_BLOCKS 4
#define DX_NONE STALEFS_DX_NONE

struct dx_ent {
	u32 hash;
	u32 lblk;
	u32 next;	/* chain in its bucket, or in the free list */
};

struct stalefs_dx {
	u32 *buckets;		/* nbuckets (a power of two) chain heads */
	u32 nbuckets;
	struct dx_ent *ents;
	u32 nents, ents_cap, free_head, live;
	u16 *room;		/* per block: largest record that still fits */
	u32 nblocks, room_cap;
};

u32 stalefs_dx_hash(const char *name, u32 len)
{
	return full_name_hash(NULL, name, len);
}

static void dx_destroy(struct stalefs_dx *dx)
{
	if (!dx)
		return;
	kvfree(dx->buckets);
	kvfree(dx->ents);
	kvfree(dx->room);
	kfree(dx);
}

void stalefs_dx_drop(struct inode *dir)
{
	struct stalefs_inode_info *ei = STALEFS_I(dir);

	dx_destroy(ei->i_dx);
	ei->i_dx = NULL;
}

/* Double the buckets and rehash (chains are rebuilt from the entries). */
static int dx_grow_buckets(struct stalefs_dx *dx)
{
	u32 nb = dx->nbuckets ? dx->nbuckets * 2 : 256, i;
	u32 *b = kvmalloc_array(nb, sizeof(u32), GFP_NOFS);

	if (!b)
		return -ENOMEM;
	memset(b, 0xff, nb * sizeof(u32));
	for (i = 0; i < dx->nents; i++) {
		struct dx_ent *e = &dx->ents[i];

		if (e->lblk == DX_NONE)
			continue;	/* on the free list */
		e->next = b[e->hash & (nb - 1)];
		b[e->hash & (nb - 1)] = i;
	}
	kvfree(dx->buckets);
	dx->buckets = b;
	dx->nbuckets = nb;
	return 0;
}

static int dx_insert(struct stalefs_dx *dx, u32 hash, u32 lblk)
{
	u32 i, *head;

	if (dx->live + 1 > dx->nbuckets * 2 && dx_grow_buckets(dx))
		return -ENOMEM;
	if (dx->free_head != DX_NONE) {
		i = dx->free_head;
		dx->free_head = dx->ents[i].next;
	} else {
		if (dx->nents == dx->ents_cap) {
			u32 cap = max_t(u32, 256, dx->ents_cap * 2);
			struct dx_ent *n = kvmalloc_array(cap, sizeof(*n), GFP_NOFS);

			if (!n)
				return -ENOMEM;
			if (dx->nents)
				memcpy(n, dx->ents, dx->nents * sizeof(*n));
			kvfree(dx->ents);
			dx->ents = n;
			dx->ents_cap = cap;
		}
		i = dx->nents++;
	}
	head = &dx->buckets[hash & (dx->nbuckets - 1)];
	dx->ents[i] = (struct dx_ent){ .hash = hash, .lblk = lblk, .next = *head };
	*head = i;
	dx->live++;
	return 0;
}

static bool dx_erase(struct stalefs_dx *dx, u32 hash, u32 lblk)
{
	u32 *link = &dx->buckets[hash & (dx->nbuckets - 1)];

	while (*link != DX_NONE) {
		struct dx_ent *e = &dx->ents[*link];

		if (e->hash == hash && e->lblk == lblk) {
			u32 i = *link;

			*link = e->next;
			e->lblk = DX_NONE;
			e->next = dx->free_head;
			dx->free_head = i;
			dx->live--;
			return true;
		}
		link = &e->next;
	}
	return false;
}

static int dx_set_room(struct stalefs_dx *dx, u32 lblk, u32 room)
{
	if (lblk >= dx->room_cap) {
		u32 cap = max_t(u32, 64, dx->room_cap * 2);
		u16 *n;

		while (cap <= lblk)
			cap *= 2;
		n = kvmalloc_array(cap, sizeof(u16), GFP_NOFS);
		if (!n)
			return -ENOMEM;
		if (dx->nblocks)
			memcpy(n, dx->room, dx->nblocks * sizeof(u16));
		kvfree(dx->room);
		dx->room = n;
		dx->room_cap = cap;
	}
	while (dx->nblocks <= lblk)
		dx->room[dx->nblocks++] = 0;
	dx->room[lblk] = (u16)min_t(u32, room, U16_MAX);
	return 0;
}

/* The largest record a new entry could take in this directory block. */
static u32 block_room(struct inode *dir, struct buffer_head *bh)
{
	u32 bs = dir->i_sb->s_blocksize, off, room = 0;
	struct stalefs_dir_entry *de;

	for (off = sizeof(struct stalefs_dir_block); off < bs; off += le16_to_cpu(de->rec_len)) {
		de = (void *)(bh->b_data + off);
		room = max_t(u32, room, le16_to_cpu(de->rec_len) -
			     (de->inode ? STALEFS_DIR_REC_LEN(de->name_len) : 0));
	}
	return room;
}

/* Index what one block holds (at build). */
static int dx_index_block(struct stalefs_dx *dx, struct inode *dir, struct buffer_head *bh, u32 lblk)
{
	u32 bs = dir->i_sb->s_blocksize, off;
	struct stalefs_dir_entry *de;
	int err;

	for (off = sizeof(struct stalefs_dir_block); off < bs; off += le16_to_cpu(de->rec_len)) {
		de = (void *)(bh->b_data + off);
		if (de->inode) {
			err = dx_insert(dx, stalefs_dx_hash(de->name, de->name_len), lblk);
			if (err)
				return err;
		}
	}
	return dx_set_room(dx, lblk, block_room(dir, bh));
}

struct stalefs_dx *stalefs_dx_get(struct inode *dir, u32 nblocks)
{
	struct stalefs_inode_info *ei = STALEFS_I(dir);
	struct stalefs_dx *dx = smp_load_acquire(&ei->i_dx);
	u32 lblk;
	int err = 0;

	if (dx || nblocks < DX_MIN_BLOCKS)
		return dx;
	mutex_lock(&ei->i_dx_lock);
	dx = ei->i_dx;
	if (dx)
		goto out;
	dx = kzalloc(sizeof(*dx), GFP_NOFS);
	if (!dx)
		goto out;
	dx->free_head = DX_NONE;
	err = dx_grow_buckets(dx);
	for (lblk = 0; lblk < nblocks && !err; lblk++) {
		struct buffer_head *bh;

		if (lblk % STALEFS_DIR_READAHEAD == 0)
			stalefs_dir_readahead(dir, lblk, STALEFS_DIR_READAHEAD);
		bh = stalefs_dir_bread(dir, lblk, &err);
		if (!bh)
			break;
		err = dx_index_block(dx, dir, bh, lblk);
		brelse(bh);
	}
	if (err) {
		/* The linear walk meets (and reports) whatever went wrong. */
		dx_destroy(dx);
		dx = NULL;
		goto out;
	}
	smp_store_release(&ei->i_dx, dx);
out:
	mutex_unlock(&ei->i_dx_lock);
	return dx;
}

int stalefs_dx_find(struct stalefs_dx *dx, struct inode *dir, const struct qstr *name,
		    struct stalefs_dir_pos *pos)
{
	u32 hash = stalefs_dx_hash(name->name, name->len);
	u32 i = dx->buckets[hash & (dx->nbuckets - 1)], last = DX_NONE;
	int err;

	for (; i != DX_NONE; i = dx->ents[i].next) {
		const struct dx_ent *e = &dx->ents[i];

		if (e->hash != hash || e->lblk == last)
			continue;
		last = e->lblk;
		err = stalefs_dir_find_in(dir, e->lblk, name, pos);
		if (err != -ENOENT)
			return err;
	}
	return -ENOENT;
}

/* The first block with a record of at least need bytes free, or DX_NONE. */
u32 stalefs_dx_room(struct stalefs_dx *dx, u32 need)
{
	u32 lblk;

	for (lblk = 0; lblk < dx->nblocks; lblk++)
		if (dx->room[lblk] >= need)
			return lblk;
	return DX_NONE;
}

/* After an edit of block lblk (bh): its room, and the name added or removed. */
void stalefs_dx_update(struct inode *dir, struct buffer_head *bh, u32 lblk,
		       const char *name, u32 len, bool added)
{
	struct stalefs_inode_info *ei = STALEFS_I(dir);
	struct stalefs_dx *dx = ei->i_dx;
	int err;

	WARN_ON_ONCE(!inode_is_locked(dir));	/* no lookup reads the index meanwhile */
	if (!dx)
		return;
	err = dx_set_room(dx, lblk, block_room(dir, bh));
	if (!err && name) {
		u32 hash = stalefs_dx_hash(name, len);

		if (added)
			err = dx_insert(dx, hash, lblk);
		else if (!dx_erase(dx, hash, lblk))
			err = -EUCLEAN;	/* the index was not exact: never trust it again */
	}
	if (err)
		stalefs_dx_drop(dir);
}
