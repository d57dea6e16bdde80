// SPDX-License-Identifier: GPL-2.0
/*
 * File data offline: read (holes and UNWRITTEN read as zeros, STALE reads the
 * disk), write (allocating written extents: the data is on disk before the
 * mapping that exposes it), truncate, fallocate, punch.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "libstalefs.h"
#include "lib_internal.h"

errcode_t stalefs_free_extent_blocks(stalefs_fs *fs, const struct stalefs_extent_list *l)
{
	errcode_t err = 0;
	u32 i;

	for (i = 0; i < l->count && !err; i++)
		err = stalefs_free_blocks(fs, l->ext[i].pblk, l->ext[i].len);
	return err;
}

static errcode_t load(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode, struct stalefs_extent_list *l)
{
	errcode_t err = stalefs_read_inode(fs, ino, inode);

	if (err)
		return err;
	if (!stalefs_inode_has_extents(inode))
		return STALEFS_ERR_NOT_REGULAR;
	return stalefs_extent_read(fs, ino, inode, l);
}

/* load(), for a regular file only (fallocate, zero range). */
static errcode_t load_regular(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode, struct stalefs_extent_list *l)
{
	errcode_t err = load(fs, ino, inode, l);

	if (!err && (le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFREG) {
		stalefs_extent_list_free(l);
		err = STALEFS_ERR_NOT_REGULAR;
	}
	return err;
}

static errcode_t store(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode, struct stalefs_extent_list *l)
{
	errcode_t err = stalefs_extent_write(fs, ino, inode, l);

	if (!err)
		err = stalefs_write_inode(fs, ino, inode);
	return err;
}

/* Where to look for free blocks for lblk: after the extent before it, else in the inode's group. */
static u64 alloc_goal(stalefs_fs *fs, u32 ino, const struct stalefs_extent_list *l, u32 lblk)
{
	u32 idx;

	stalefs_extent_list_find(l, lblk, &idx);
	if (idx > 0) {
		const struct stalefs_ext *e = &l->ext[idx - 1];

		return e->pblk + e->len + (lblk - (e->lblk + e->len));
	}
	/* A new file: after the last allocation if that was in the inode's group, so a tree being
	 * copied in lays out in order without rescanning the bitmap from the group start. */
	if (stalefs_block_group(&fs->geom, fs->block_alloc_goal) == stalefs_ino_group(&fs->geom, ino))
		return fs->block_alloc_goal;
	return stalefs_group_first_block(&fs->geom, stalefs_ino_group(&fs->geom, ino));
}

errcode_t stalefs_file_read(stalefs_fs *fs, u32 ino, u64 off, void *buf, size_t len, size_t *got)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	u32 bs = fs->block_size;
	u8 *out = buf, *blk;
	u64 size, end;
	errcode_t err;

	*got = 0;
	err = load(fs, ino, &inode, &l);
	if (err)
		return err;
	size = le64_to_cpu(inode.i_size);
	end = off + len < size ? off + len : size;
	blk = stalefs_xmalloc(bs);
	while (off < end && !err) {
		u32 lblk = (u32)(off / bs), in = (u32)(off % bs), idx;
		size_t n = bs - in < end - off ? bs - in : (size_t)(end - off);

		if (stalefs_extent_list_find(&l, lblk, &idx) && !(l.ext[idx].flags & STALEFS_EXT_UNWRITTEN)) {
			const struct stalefs_ext *e = &l.ext[idx];
			u64 pblk = e->pblk + (lblk - e->lblk);
			u32 run = e->lblk + e->len - lblk;

			if (in == 0 && n == bs && run > 1 && end - off >= 2ULL * bs) {
				/* Whole blocks in one transfer. */
				u64 want = (end - off) / bs;

				if (want > run)
					want = run;
				if (want > 256)
					want = 256;
				err = stalefs_io_read(fs->io, pblk, (u32)want, out);
				n = (size_t)want * bs;
			} else {
				/* Past the cache: file data would only push metadata out of it. */
				err = stalefs_io_read_uncached(fs->io, pblk, 1, blk);
				if (!err)
					memcpy(out, blk + in, n);
			}
		} else {
			memset(out, 0, n);
		}
		out += n;
		off += n;
		*got += n;
	}
	free(blk);
	stalefs_extent_list_free(&l);
	return err;
}

/*
 * Whole blocks of data at pblk.. (buf NULL: zeros).  Data goes to the device at once, past
 * the metadata cache and outside any journal transaction.
 */
static errcode_t write_blocks(stalefs_fs *fs, u64 pblk, u32 count, const u8 *buf)
{
	u8 *zero;
	errcode_t err;

	if (buf)
		return stalefs_io_write_data(fs->io, pblk, count, buf);
	zero = stalefs_xcalloc(count, fs->block_size);
	err = stalefs_io_write_data(fs->io, pblk, count, zero);
	free(zero);
	return err;
}

/* Part of one block at pblk: [in, in + n) from buf (NULL: zeros), the rest as it reads now
 * (an UNWRITTEN block reads as zeros, not as what the disk holds). */
static errcode_t write_part(stalefs_fs *fs, u64 pblk, bool unwritten, u32 in, size_t n, const u8 *buf, u8 *blk)
{
	errcode_t err = 0;

	if (unwritten)
		memset(blk, 0, fs->block_size);
	else
		err = stalefs_io_read_uncached(fs->io, pblk, 1, blk);
	if (err)
		return err;
	if (buf)
		memcpy(blk + in, buf, n);
	else
		memset(blk + in, 0, n);
	return stalefs_io_write_data(fs->io, pblk, 1, blk);
}

/*
 * Write [off, off+len) of an in-memory file; buf NULL writes zeros (and leaves holes holes).
 * Updates l.  New blocks are mapped UNWRITTEN first and become written only once their data
 * is (FORMAT.md 9): a failed write leaves them reading as zeros, and under the journaled
 * write path the transaction that commits the mapping follows the data onto the device.
 */
static errcode_t write_range(stalefs_fs *fs, u32 ino, struct stalefs_extent_list *l, u64 off,
			     const u8 *buf, size_t len)
{
	u32 bs = fs->block_size;
	u8 *blk = stalefs_xmalloc(bs);
	errcode_t err = 0;

	while (len > 0 && !err) {
		u32 lblk = (u32)(off / bs), in = (u32)(off % bs), idx;
		size_t n = bs - in < len ? bs - in : len;

		if ((off / bs) >= STALEFS_MAX_FILE_BLOCKS) {
			err = STALEFS_ERR_FILE_TOO_BIG;
			break;
		}
		if (stalefs_extent_list_find(l, lblk, &idx)) {
			struct stalefs_ext e = l->ext[idx];
			u64 pblk = e.pblk + (lblk - e.lblk);
			u32 run = 1;

			if (n < bs) {
				err = write_part(fs, pblk, e.flags & STALEFS_EXT_UNWRITTEN, in, n, buf, blk);
			} else {
				/* Whole blocks: as many as this extent and the write have, in one go. */
				u64 whole = len / bs, left = e.lblk + e.len - lblk;

				run = (u32)(whole < left ? whole : left);
				if (run > 256)
					run = 256;
				n = (size_t)run * bs;
				err = write_blocks(fs, pblk, run, buf);
			}
			/* Written now: no longer unwritten; a wholly rewritten block is no longer stale. */
			if (!err && (e.flags & STALEFS_EXT_UNWRITTEN))
				err = stalefs_extent_list_change_flags(l, lblk, run, STALEFS_EXT_UNWRITTEN, 0);
			if (!err && (e.flags & STALEFS_EXT_STALE) && in == 0 && n >= bs)
				err = stalefs_extent_list_change_flags(l, lblk, run, STALEFS_EXT_STALE, 0);
		} else {
			/* A hole: allocate as many contiguous blocks as the rest of the write and the hole allow. */
			u64 whole = (in + len + bs - 1) / bs, hole = whole, start;
			u32 got, done = 0;

			if (idx < l->count && l->ext[idx].lblk - lblk < hole)
				hole = l->ext[idx].lblk - lblk;
			if (hole > STALEFS_EXT_MAX_LEN)
				hole = STALEFS_EXT_MAX_LEN;
			if (!buf) {
				/* Zeros over a hole: it reads as zeros already and stays a hole (libstalefs.h). */
				u64 skip = hole * bs - in;

				if (skip > len)
					skip = len;
				off += skip;
				len -= skip;
				continue;
			}
			err = stalefs_alloc_blocks(fs, alloc_goal(fs, ino, l, lblk), (u32)hole, &start, &got);
			if (err)
				break;
			/* Mapped at once (never leaked), UNWRITTEN until the data is there. */
			err = stalefs_extent_list_set(l, lblk, got, start, STALEFS_EXT_UNWRITTEN, NULL);
			while (!err && done < got && len > 0) {
				if (in || len < bs) {
					n = bs - in < len ? bs - in : len;
					err = write_part(fs, start + done, true, in, n, buf, blk);
					done++;
				} else {
					u32 k = (u32)(len / bs) < got - done ? (u32)(len / bs) : got - done;

					n = (size_t)k * bs;
					err = write_blocks(fs, start + done, k, buf);
					done += k;
				}
				buf += n;
				off += n;
				len -= n;
				in = 0;
			}
			if (!err)
				err = stalefs_extent_list_change_flags(l, lblk, done, STALEFS_EXT_UNWRITTEN, 0);
			continue;
		}
		if (buf)
			buf += n;
		off += n;
		len -= n;
	}
	free(blk);
	return err;
}

errcode_t stalefs_file_write(stalefs_fs *fs, u32 ino, u64 off, const void *buf, size_t len)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = load(fs, ino, &inode, &l);
	if (err)
		return err;
	err = write_range(fs, ino, &l, off, buf, len);
	if (!err && off + len > le64_to_cpu(inode.i_size))
		inode.i_size = cpu_to_le64(off + len);
	stalefs_inode_set_times_now(&inode, false, true, true);
	/* Even after a failure part way (no space): blocks already allocated are mapped, not leaked. */
	{
		errcode_t serr = store(fs, ino, &inode, &l);

		if (!err)
			err = serr;
	}
	stalefs_extent_list_free(&l);
	return err;
}

/* Copy one data segment [off, end) of the source fd, in large contiguous allocations. */
static errcode_t copy_segment(stalefs_fs *fs, u32 ino, struct stalefs_extent_list *l, int fd,
			      u64 off, u64 end, u8 *chunk, size_t chunk_size)
{
	u32 bs = fs->block_size;
	errcode_t err = 0;

	while (off < end && !err) {
		u64 want_blocks = (end - off + bs - 1) / bs, start;
		u32 got;
		size_t bytes, done = 0;

		if (want_blocks > chunk_size / bs)
			want_blocks = chunk_size / bs;
		if (off / bs + want_blocks > STALEFS_MAX_FILE_BLOCKS)
			return STALEFS_ERR_FILE_TOO_BIG;
		err = stalefs_alloc_blocks(fs, alloc_goal(fs, ino, l, (u32)(off / bs)), (u32)want_blocks,
					   &start, &got);
		if (err)
			return err;
		bytes = (size_t)got * bs;
		if (bytes > end - off)
			bytes = (size_t)(end - off);
		while (done < bytes) {
			ssize_t r = pread(fd, chunk + done, bytes - done, (off_t)(off + done));

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return errno;
			if (r == 0)
				break;	/* the source shrank: the rest reads as zeros */
			done += (size_t)r;
		}
		memset(chunk + done, 0, (size_t)got * bs - done);
		err = stalefs_io_write_data(fs->io, start, got, chunk);
		if (!err)
			err = stalefs_extent_list_set(l, (u32)(off / bs), got, start, 0, NULL);
		off += (u64)got * bs;
	}
	return err;
}

errcode_t stalefs_file_write_from_fd(stalefs_fs *fs, u32 ino, int fd, u64 size)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	size_t chunk_size = 1u << 20;
	u8 *chunk;
	u64 off = 0;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = load(fs, ino, &inode, &l);
	if (err)
		return err;
	/* Only a fresh file: every block mapped below is then ours to give back on failure. */
	if (l.count)
		err = STALEFS_ERR_BAD_ARGUMENT;
	else if ((size + fs->block_size - 1) / fs->block_size > STALEFS_MAX_FILE_BLOCKS)
		err = STALEFS_ERR_FILE_TOO_BIG;
	if (err) {
		stalefs_extent_list_free(&l);
		return err;
	}
	chunk = stalefs_xmalloc(chunk_size);
	/* Most files have no hole: when the first hole is the end, one lseek says so. */
	if (size > 0) {
		off_t first_hole = lseek(fd, 0, SEEK_HOLE);

		if (first_hole >= 0 && (u64)first_hole >= size) {
			err = copy_segment(fs, ino, &l, fd, 0, size, chunk, chunk_size);
			off = size;
		}
	}
	/* Walk the source's data segments so that holes stay holes. */
	while (off < size && !err) {
		off_t data = lseek(fd, (off_t)off, SEEK_DATA), hole;

		if (data < 0) {
			if (errno == ENXIO)
				break;			/* only a hole remains */
			data = (off_t)off;		/* no SEEK_DATA: copy everything */
			hole = (off_t)size;
		} else {
			hole = lseek(fd, data, SEEK_HOLE);
			if (hole < 0 || (u64)hole > size)
				hole = (off_t)size;
		}
		if ((u64)data >= size)
			break;
		/* Whole blocks only: a block partly data is copied whole. */
		data = (off_t)((u64)data / fs->block_size * fs->block_size);
		hole = (off_t)(((u64)hole + fs->block_size - 1) / fs->block_size * fs->block_size);
		if ((u64)hole > size)
			hole = (off_t)size;
		err = copy_segment(fs, ino, &l, fd, (u64)data, (u64)hole, chunk, chunk_size);
		off = (u64)hole;
	}
	free(chunk);
	if (!err) {
		inode.i_size = cpu_to_le64(size);
		err = store(fs, ino, &inode, &l);
	}
	if (err) {
		/* The inode was never written with these blocks (or failed to be): free them all. */
		u32 i;

		for (i = 0; i < l.count; i++)
			stalefs_free_blocks(fs, l.ext[i].pblk, l.ext[i].len);
	}
	stalefs_extent_list_free(&l);
	return err;
}

errcode_t stalefs_truncate(stalefs_fs *fs, u32 ino, u64 size)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l, old;
	u32 bs = fs->block_size;
	u64 keep = (size + bs - 1) / bs;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (keep > STALEFS_MAX_FILE_BLOCKS)
		return STALEFS_ERR_FILE_TOO_BIG;
	err = load(fs, ino, &inode, &l);
	if (err)
		return err;
	memset(&old, 0, sizeof(old));
	err = stalefs_extent_list_remove(&l, (u32)keep, (u32)(STALEFS_MAX_FILE_BLOCKS - keep), &old);
	/* The tail of the new last block must read as zeros if the file grows again. */
	if (!err && size % bs && size < le64_to_cpu(inode.i_size)) {
		u32 idx;

		if (stalefs_extent_list_find(&l, (u32)(size / bs), &idx) &&
		    !(l.ext[idx].flags & STALEFS_EXT_UNWRITTEN))
			err = write_range(fs, ino, &l, size, NULL, bs - size % bs);
	}
	if (!err)
		err = stalefs_free_extent_blocks(fs, &old);
	if (!err) {
		inode.i_size = cpu_to_le64(size);
		stalefs_inode_set_times_now(&inode, false, true, true);
		err = store(fs, ino, &inode, &l);
	}
	stalefs_extent_list_free(&old);
	stalefs_extent_list_free(&l);
	return err;
}

errcode_t stalefs_fallocate(stalefs_fs *fs, u32 ino, u32 lblk, u32 count, bool stale)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	u16 flag = stale ? STALEFS_EXT_STALE : STALEFS_EXT_UNWRITTEN;
	u64 end = (u64)lblk + count, cur = lblk;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (end > STALEFS_MAX_FILE_BLOCKS)
		return STALEFS_ERR_FILE_TOO_BIG;
	if (stale && le32_to_cpu(fs->sb.s_stale_gid) == STALEFS_STALE_GID_NONE)
		return STALEFS_ERR_NO_STALE_GID;
	err = load_regular(fs, ino, &inode, &l);
	if (err)
		return err;
	/* Unwritten extents in the range become STALE too; written ones are left alone.
	 * Walk by logical block: a converted extent may merge with its neighbour,
	 * which shifts the indices of those after it. */
	while (stale && cur < end && !err) {
		u32 idx;
		u64 t;

		if (!stalefs_extent_list_find(&l, (u32)cur, &idx)) {
			if (idx >= l.count || l.ext[idx].lblk >= end)
				break;
			cur = l.ext[idx].lblk;
			continue;
		}
		t = (u64)l.ext[idx].lblk + l.ext[idx].len < end ? (u64)l.ext[idx].lblk + l.ext[idx].len : end;
		if (l.ext[idx].flags & STALEFS_EXT_UNWRITTEN)
			err = stalefs_extent_list_change_flags(&l, (u32)cur, (u32)(t - cur),
							       STALEFS_EXT_UNWRITTEN, STALEFS_EXT_STALE);
		cur = t;
	}
	cur = lblk;
	while (cur < end && !err) {
		u32 idx, hole;
		u64 start;
		u32 got;

		if (stalefs_extent_list_find(&l, (u32)cur, &idx)) {
			cur = (u64)l.ext[idx].lblk + l.ext[idx].len;
			continue;
		}
		hole = (u32)(end - cur);
		if (idx < l.count && l.ext[idx].lblk - cur < hole)
			hole = (u32)(l.ext[idx].lblk - cur);
		if (hole > STALEFS_EXT_MAX_LEN)
			hole = STALEFS_EXT_MAX_LEN;
		err = stalefs_alloc_blocks(fs, alloc_goal(fs, ino, &l, (u32)cur), hole, &start, &got);
		if (!err)
			err = stalefs_extent_list_set(&l, (u32)cur, got, start, flag, NULL);
		cur += got;
	}
	stalefs_inode_set_times_now(&inode, false, true, true);
	/* Out of space part way: keep what was allocated (mapped, so not leaked). */
	{
		errcode_t serr = store(fs, ino, &inode, &l);

		if (!err)
			err = serr;
	}
	stalefs_extent_list_free(&l);
	return err;
}

errcode_t stalefs_punch(stalefs_fs *fs, u32 ino, u32 lblk, u32 count)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l, old;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if ((u64)lblk + count > STALEFS_MAX_FILE_BLOCKS)
		count = (u32)(STALEFS_MAX_FILE_BLOCKS - lblk);
	err = load(fs, ino, &inode, &l);
	if (err)
		return err;
	memset(&old, 0, sizeof(old));
	err = stalefs_extent_list_remove(&l, lblk, count, &old);
	if (!err)
		err = stalefs_free_extent_blocks(fs, &old);
	if (!err) {
		stalefs_inode_set_times_now(&inode, false, true, true);
		err = store(fs, ino, &inode, &l);
	}
	stalefs_extent_list_free(&old);
	stalefs_extent_list_free(&l);
	return err;
}

errcode_t stalefs_bmap(stalefs_fs *fs, u32 ino, u32 lblk, u64 *pblk, u16 *flags)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	u32 idx;
	errcode_t err = load(fs, ino, &inode, &l);

	if (err)
		return err;
	*pblk = 0;
	*flags = 0;
	if (stalefs_extent_list_find(&l, lblk, &idx)) {
		*pblk = l.ext[idx].pblk + (lblk - l.ext[idx].lblk);
		*flags = l.ext[idx].flags;
	}
	stalefs_extent_list_free(&l);
	return 0;
}

errcode_t stalefs_zero_range(stalefs_fs *fs, u32 ino, u64 off, u64 len)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	u32 bs = fs->block_size;
	u64 first = (off + bs - 1) / bs, last = (off + len) / bs, end = off + len;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (end < off || (end + bs - 1) / bs > STALEFS_MAX_FILE_BLOCKS)
		return STALEFS_ERR_FILE_TOO_BIG;
	err = load_regular(fs, ino, &inode, &l);
	if (err)
		return err;
	/* Whole blocks read as zeros from now on: UNWRITTEN, and no longer STALE. */
	if (last > first)
		err = stalefs_extent_list_change_flags(&l, (u32)first, (u32)(last - first), STALEFS_EXT_STALE,
						       STALEFS_EXT_UNWRITTEN);
	/* The parts of blocks at either end are written with zeros. */
	if (!err && first > last) {
		err = write_range(fs, ino, &l, off, NULL, (size_t)len);
	} else {
		if (!err && off < first * bs)
			err = write_range(fs, ino, &l, off, NULL, (size_t)(first * bs - off));
		if (!err && end > last * bs && last >= first)
			err = write_range(fs, ino, &l, last * bs, NULL, (size_t)(end - last * bs));
	}
	stalefs_inode_set_times_now(&inode, false, true, true);
	if (!err)
		err = store(fs, ino, &inode, &l);
	stalefs_extent_list_free(&l);
	/* Holes in between are allocated, UNWRITTEN, as fallocate(2) would. */
	if (!err && last > first)
		err = stalefs_fallocate(fs, ino, (u32)first, (u32)(last - first), false);
	return err;
}

errcode_t stalefs_seek_data(stalefs_fs *fs, u32 ino, u64 off, bool hole, u64 *result)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	u32 bs = fs->block_size, idx;
	u64 size, pos;
	errcode_t err = load(fs, ino, &inode, &l);

	if (err)
		return err;
	size = le64_to_cpu(inode.i_size);
	if (off >= size) {
		stalefs_extent_list_free(&l);
		return ENXIO;
	}
	/* Data: mapped and not UNWRITTEN (a STALE extent is data). */
	for (pos = off; pos < size;) {
		u32 lblk = (u32)(pos / bs);
		bool data = stalefs_extent_list_find(&l, lblk, &idx) && !(l.ext[idx].flags & STALEFS_EXT_UNWRITTEN);
		u64 next;

		if (data != hole) {
			*result = pos;
			break;
		}
		/* To the end of this extent, or of this hole. */
		if (stalefs_extent_list_find(&l, lblk, &idx))
			next = (u64)(l.ext[idx].lblk + l.ext[idx].len) * bs;
		else
			next = idx < l.count ? (u64)l.ext[idx].lblk * bs : size;
		pos = next > pos ? next : pos + bs;
	}
	if (pos >= size) {
		if (!hole)
			err = ENXIO;
		else
			*result = size;
	}
	stalefs_extent_list_free(&l);
	return err;
}

errcode_t stalefs_file_map(stalefs_fs *fs, u32 ino, u64 off, size_t len, struct stalefs_file_run *runs, u32 max,
			   u32 *n)
{
	struct stalefs_inode inode;
	struct stalefs_extent_list l;
	u32 bs = fs->block_size;
	u64 size, end;
	errcode_t err = load(fs, ino, &inode, &l);

	*n = 0;
	if (err)
		return err;
	size = le64_to_cpu(inode.i_size);
	end = off + len < size ? off + len : size;
	while (off < end) {
		u32 lblk = (u32)(off / bs), in = (u32)(off % bs), idx;
		bool data = stalefs_extent_list_find(&l, lblk, &idx) && !(l.ext[idx].flags & STALEFS_EXT_UNWRITTEN);
		u64 stop, dev = 0;
		struct stalefs_file_run *r;

		/* To the end of this extent (data) or of this hole or UNWRITTEN extent (zeros). */
		if (stalefs_extent_list_find(&l, lblk, &idx))
			stop = (u64)(l.ext[idx].lblk + l.ext[idx].len) * bs;
		else
			stop = idx < l.count ? (u64)l.ext[idx].lblk * bs : end;
		if (stop > end)
			stop = end;
		if (data)
			dev = (l.ext[idx].pblk + (lblk - l.ext[idx].lblk)) * bs + in;
		r = *n ? &runs[*n - 1] : NULL;
		if (r && r->zero == !data && (!data || r->dev_off + r->len == dev)) {
			r->len += stop - off;
		} else {
			if (*n == max) {
				err = STALEFS_ERR_BAD_ARGUMENT;
				break;
			}
			r = &runs[(*n)++];
			r->zero = !data;
			r->dev_off = dev;
			r->len = stop - off;
		}
		off = stop;
	}
	stalefs_extent_list_free(&l);
	return err;
}
