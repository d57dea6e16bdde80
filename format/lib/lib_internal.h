/* SPDX-License-Identifier: GPL-2.0 */
/* Library-private helpers shared between the files of format/lib; not for tools. */
#ifndef STALEFS_LIB_INTERNAL_H
#define STALEFS_LIB_INTERNAL_H

#include "libstalefs.h"

errcode_t stalefs_write_dirty_bitmaps(stalefs_fs *fs);
/* fs.c: bitmaps and descriptors into the cache; the superblock in place if it changed. */
errcode_t stalefs_stage_groups(stalefs_fs *fs, bool *changed);
errcode_t stalefs_write_super_if_dirty(stalefs_fs *fs, bool changed);
/* txn.c: forget the journaled path without writing (stalefs_free); the allocator's and the
 * freer's part of it (no-ops without a transaction). */
void stalefs_txn_free(stalefs_fs *fs);
void stalefs_txn_allocated(stalefs_fs *fs, u64 start, u64 count);
void stalefs_txn_freed(stalefs_fs *fs, u64 start, u64 count);
/* [start, ...) is busy: *end is where it stops being so.  False when start is not busy, with
 * *end the next busy block (~0: none). */
bool stalefs_txn_busy(const stalefs_fs *fs, u64 start, u64 *end);
void stalefs_io_discard(struct stalefs_io *io);
/* Journaled writes (txn.c): while held, dirty cache blocks are written only by stalefs_io_flush
 * (the checkpoint), never on eviction, and metadata writes of several blocks are cached too. */
void stalefs_io_set_hold(struct stalefs_io *io, bool hold);
u32 stalefs_io_dirty_count(const struct stalefs_io *io);
/* Every dirty cached block, in block order; a nonzero return from fn stops and is returned. */
int stalefs_io_dirty_iterate(struct stalefs_io *io, int (*fn)(u64 block, const void *data, void *priv), void *priv);
/* Drop cached copies of blocks (freed ones: what they held means nothing now), dirty or not. */
void stalefs_io_forget(struct stalefs_io *io, u64 block, u64 count);
/* Write one dirty cached block in place now (a held one too: the commit's own order). */
errcode_t stalefs_io_write_back(struct stalefs_io *io, u64 block);
void stalefs_extent_list_normalise(struct stalefs_extent_list *l);
errcode_t stalefs_free_extent_blocks(stalefs_fs *fs, const struct stalefs_extent_list *l);

/* Move the bg_orphan_count of ino's group by delta (never below 0). */
void stalefs_orphan_count_adjust(stalefs_fs *fs, u32 ino, int delta);


/* Ranges of the block bitmaps (a journal's blocks): all free?  mark all in use (no counts moved). */
bool stalefs_block_range_free(stalefs_fs *fs, u64 start, u64 count);
void stalefs_mark_block_range(stalefs_fs *fs, u64 start, u64 count);

/* The overlay of overlay I/O mode (io_overlay.c). */
struct stalefs_overlay;
/* base: where the region starts in fd (IMAGE?offset=N); the overlay is kept in region offsets */
struct stalefs_overlay *stalefs_overlay_new(struct stalefs_io *io);
void stalefs_overlay_free(struct stalefs_overlay *ov);
errcode_t stalefs_overlay_write(struct stalefs_overlay *ov, u64 off, size_t len, const void *buf);
errcode_t stalefs_overlay_zero(struct stalefs_overlay *ov, u64 off, u64 len);
/* The device's own bytes at the region's offset off (no overlay, no region limit): what
 * there is, *got of len (fewer at the media's end). */
errcode_t stalefs_io_read_media(struct stalefs_io *io, u64 off, size_t len, void *buf, size_t *got);

/* A descriptor block's v3 tags one by one (FORMAT.md 12): *off 0 to start; NULL after the
 * LAST_TAG one or at the checksum tail.  Each tag past the first without SAME_UUID has the
 * 16-byte UUID after it. */
const struct stalefs_jbd2_tag3 *stalefs_jtag_next(const struct stalefs_journal *j, const u8 *block, u32 *off);

/* EWF images through libewf (io_ewf.c). */
struct stalefs_ewf;
bool stalefs_ewf_signature(int fd);
errcode_t stalefs_ewf_open(const char *path, struct stalefs_ewf **ret);
errcode_t stalefs_ewf_pread(struct stalefs_ewf *ewf, u64 off, size_t len, void *buf, size_t *got);
u64 stalefs_ewf_size(const struct stalefs_ewf *ewf);
void stalefs_ewf_hashes(const struct stalefs_ewf *ewf, char md5[33], char sha1[41]);
void stalefs_ewf_close(struct stalefs_ewf *ewf);

/* Copy what the overlay holds over buf, the device's bytes [off, off+len). */
void stalefs_overlay_patch(const struct stalefs_overlay *ov, u64 off, size_t len, void *buf);

/* The index of large directories (dir_index.c), used by dir.c. */
struct dx_dir;
/* The index of an open directory of nblocks blocks, built with read_block (which verifies each
 * block) on first use; NULL when indexes are off, the directory is small, or a block is bad. */
struct dx_dir *stalefs_dirindex_get(stalefs_fs *fs, u32 dir, const struct stalefs_inode *inode, u32 nblocks,
			      errcode_t (*read_block)(void *ctx, u32 lblk, const u8 **block), void *ctx);
void stalefs_dirindex_drop(stalefs_fs *fs, u32 dir);
void stalefs_dirindex_add(struct dx_dir *d, const char *name, u32 len, u32 lblk);
void stalefs_dirindex_remove(struct dx_dir *d, const char *name, u32 len, u32 lblk);
/* The blocks that may hold name (at most max of them, into out); their number. */
u32 stalefs_dirindex_candidates(const struct dx_dir *d, const char *name, u32 len, u32 *out, u32 max);
u16 stalefs_dirindex_block_room(const void *block, u32 bs);
void stalefs_dirindex_set_room(struct dx_dir *d, u32 lblk, u16 room);
/* The first block with a record of need bytes free, or ~0. */
u32 stalefs_dirindex_first_room(const struct dx_dir *d, u32 need);
u32 stalefs_dirindex_name_hash(const char *name, u32 len);
void stalefs_dir_index_free(stalefs_fs *fs);

/* A set of blocks as sorted disjoint runs (block_set.c). */
struct stalefs_block_run {
	u64 start, len;
};
struct stalefs_block_set {
	struct stalefs_block_run *runs;
	u32 count, cap;
	u64 total;		/* blocks in the set */
};
void stalefs_block_set_add(struct stalefs_block_set *s, u64 start, u64 len);
/* Remove [start, start + len); each piece that was in the set goes to fn (which may be NULL). */
void stalefs_block_set_remove(struct stalefs_block_set *s, u64 start, u64 len,
			      void (*fn)(u64 start, u64 len, void *priv), void *priv);
/* Is block in the set?  Either way next_start and run_end give the first run ending after it
 * (~0 for both when there is none). */
bool stalefs_block_set_find(const struct stalefs_block_set *s, u64 block, u64 *next_start, u64 *run_end);
void stalefs_block_set_clear(struct stalefs_block_set *s);

static inline bool stalefs_fs_rw(const stalefs_fs *fs)
{
	return fs->flags & STALEFS_OPEN_RW;
}

#endif
