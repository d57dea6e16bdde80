/* SPDX-License-Identifier: GPL-2.0 */
/* Library-private helpers shared between the files of format/lib; not for tools. */
#ifndef STALEFS_LIB_INTERNAL_H
#define STALEFS_LIB_INTERNAL_H

#include "libstalefs.h"

errcode_t stalefs_write_dirty_bitmaps(stalefs_fs *fs);
void stalefs_io_discard(struct stalefs_io *io);
void *stalefs_xcalloc(size_t n, size_t size);
void *stalefs_xmalloc(size_t size);
void *stalefs_xrealloc(void *old, size_t size);
void stalefs_extent_list_normalise(struct stalefs_extent_list *l);
errcode_t stalefs_extent_free_nodes(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode);
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

static inline bool stalefs_fs_rw(const stalefs_fs *fs)
{
	return fs->flags & STALEFS_OPEN_RW;
}

#endif
