// SPDX-License-Identifier: GPL-2.0
/*
 * The I/O layer: a file or block device, read and written in blocks, with a
 * write-back cache for single metadata blocks (tools touch the same inode
 * table and directory blocks over and over; the cache turns that into one
 * write each).  Multi-block transfers (file data) bypass the cache but stay
 * coherent with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/fs.h>
#include <linux/falloc.h>
#include "libstalefs.h"
#include "lib_internal.h"

#define CACHE_MAX_BYTES (64u << 20)

struct cache_ent {
	u64 block;
	struct cache_ent *hnext;		/* hash chain */
	struct cache_ent *prev, *next;		/* LRU list, most recent first */
	bool dirty;
	u8 data[];
};

struct stalefs_io {
	int fd;					/* -1 for an EWF image */
	struct stalefs_ewf *ewf;		/* an EWF image: its bytes come through libewf */
	char *path;				/* what was opened (for stalefs_io_info) */
	u32 part;				/* IMAGE?part=N */
	u64 base;				/* IMAGE?offset=N: N, added to every offset */
	u64 limit;				/* the region's size; 0: unbounded (a plain name) */
	bool writable;
	bool is_blockdev;
	u32 block_size;
	u64 bytes_written;
	bool unsynced;				/* written since the last fsync */
	struct cache_ent **hash;
	u32 hash_size;
	u32 count, max;
	struct stalefs_overlay *ov;		/* overlay mode: every write lands here */
	bool hold;				/* journaled: dirty blocks wait for stalefs_io_flush (txn.c) */
	u32 dirty;				/* dirty cache entries */
	struct cache_ent lru;			/* sentinel (a flexible member: it stays last) */
};

/* Offsets are the region's: [off, off + len) must lie inside it. */
static errcode_t in_region(const struct stalefs_io *io, u64 off, u64 len)
{
	if (io->limit && (off > io->limit || len > io->limit - off))
		return STALEFS_ERR_PAST_REGION;
	return 0;
}

errcode_t stalefs_io_read_media(struct stalefs_io *io, u64 off, size_t len, void *buf, size_t *got)
{
	u8 *p = buf;

	*got = 0;
	while (len > 0) {
		size_t n;

		if (io->ewf) {
			errcode_t err = stalefs_ewf_pread(io->ewf, io->base + off, len, p, &n);

			if (err)
				return err;
		} else {
			ssize_t r = pread(io->fd, p, len, (off_t)(io->base + off));

			if (r < 0) {
				if (errno == EINTR)
					continue;
				return errno;
			}
			n = (size_t)r;
		}
		if (n == 0)
			break;
		p += n;
		off += (u64)n;
		len -= n;
		*got += n;
	}
	return 0;
}

static errcode_t raw_pread(struct stalefs_io *io, u64 off, size_t len, void *buf)
{
	size_t got;
	errcode_t err = in_region(io, off, len);

	if (!err)
		err = stalefs_io_read_media(io, off, len, buf, &got);
	if (!err && got < len)
		err = STALEFS_ERR_SHORT_READ;
	if (err)
		return err;
	/* Overlay mode: the device's bytes, then what was written over them. */
	if (io->ov)
		stalefs_overlay_patch(io->ov, off, len, buf);
	return 0;
}

static errcode_t raw_pwrite(struct stalefs_io *io, u64 off, size_t len, const void *buf)
{
	const u8 *p = buf;
	errcode_t err;

	if (!io->writable)
		return STALEFS_ERR_RO_FILSYS;
	err = in_region(io, off, len);
	if (err)
		return err;
	if (io->ov)
		return stalefs_overlay_write(io->ov, off, len, buf);
	while (len > 0) {
		ssize_t n = pwrite(io->fd, p, len, (off_t)(io->base + off));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0)
			return STALEFS_ERR_SHORT_WRITE;
		p += n;
		off += (u64)n;
		len -= (size_t)n;
		io->bytes_written += (u64)n;
		io->unsynced = true;
	}
	return 0;
}

/* Bytes in the whole file, device or EWF media. */
static errcode_t media_size(const struct stalefs_io *io, u64 *bytes)
{
	struct stat st;

	if (io->ewf) {
		*bytes = stalefs_ewf_size(io->ewf);
		return 0;
	}
	if (fstat(io->fd, &st) < 0)
		return errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(io->fd, BLKGETSIZE64, bytes) < 0 ? errno : 0;
	*bytes = (u64)st.st_size;
	return 0;
}

/* IMAGE?offset=N[&size=M]: where the region is, checked against the image once, at open. */
static errcode_t set_region(struct stalefs_io *io, const struct stalefs_io_name *n)
{
	u64 whole;
	errcode_t err = media_size(io, &whole);

	if (err)
		return err;
	if (n->offset >= whole)
		return STALEFS_ERR_REGION_OUTSIDE;
	/* A file may be shorter than the region it is given: it grows when written. */
	if (n->size && (io->is_blockdev || io->ewf) && n->size > whole - n->offset)
		return STALEFS_ERR_REGION_OUTSIDE;
	io->base = n->offset;
	io->limit = n->size ? n->size : whole - n->offset;
	return 0;
}

/* IMAGE?part=N: the region the partition table gives partition N. */
static errcode_t set_partition(struct stalefs_io *io, u32 number)
{
	struct stalefs_ptable t;
	const struct stalefs_partition *p;
	errcode_t err = stalefs_ptable_read(io, &t);

	if (err)
		return err;
	p = stalefs_ptable_find(&t, number);
	if (!p)
		err = STALEFS_ERR_NO_PARTITION;
	else if (p->problem || p->extended)
		err = STALEFS_ERR_BAD_PARTITION;
	else {
		io->base = p->start;
		io->limit = p->size;
		io->part = number;
	}
	stalefs_ptable_free(&t);
	return err;
}

/* The file or device, or the EWF image behind it (read-only). */
static errcode_t open_source(struct stalefs_io *io, const char *path, int flags)
{
	struct stat st;
	int fd = open(path, flags);

	if (fd < 0)
		return errno == EBUSY ? STALEFS_ERR_MOUNTED : errno;
	if (fstat(fd, &st) == 0)
		io->is_blockdev = S_ISBLK(st.st_mode);
	if (S_ISREG(st.st_mode) && stalefs_ewf_signature(fd)) {
		errcode_t err = (flags & O_ACCMODE) != O_RDONLY ? STALEFS_ERR_EWF_READ_ONLY
								 : stalefs_ewf_open(path, &io->ewf);

		close(fd);
		io->fd = -1;
		return err;
	}
	io->fd = fd;
	return 0;
}

errcode_t stalefs_io_open(const char *name, bool writable, bool exclusive, struct stalefs_io **ret)
{
	struct stalefs_io_name n;
	struct stalefs_io *io;
	struct stat st;
	int flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	errcode_t err = stalefs_io_parse_name(name, &n);

	if (err)
		return err;
	io = calloc(1, sizeof(*io));
	if (!io) {
		stalefs_io_name_free(&n);
		return STALEFS_ERR_NO_MEMORY;
	}
	io->fd = -1;
	io->lru.prev = io->lru.next = &io->lru;
	if (exclusive && writable && stat(n.path, &st) == 0 && S_ISBLK(st.st_mode))
		flags |= O_EXCL;
	err = open_source(io, n.path, flags);
	if (!err && n.part)
		err = set_partition(io, n.part);
	else if (!err && n.region)
		err = set_region(io, &n);
	io->path = n.path;	/* kept: the name's parts belong to io now */
	n.path = NULL;
	stalefs_io_name_free(&n);
	if (err) {
		if (io->fd >= 0)
			close(io->fd);
		stalefs_ewf_close(io->ewf);
		free(io->path);
		free(io);
		return err;
	}
	io->writable = writable;
	io->block_size = 1024;
	*ret = io;
	return 0;
}

void stalefs_io_info(struct stalefs_io *io, struct stalefs_io_info *info)
{
	memset(info, 0, sizeof(*info));
	info->path = io->path;
	info->ewf = io->ewf != NULL;
	if (media_size(io, &info->media_bytes))
		info->media_bytes = 0;
	info->offset = io->base;
	info->size = io->limit ? io->limit : info->media_bytes;
	info->part = io->part;
	if (io->ewf)
		stalefs_ewf_hashes(io->ewf, info->ewf_md5, info->ewf_sha1);
}

static void cache_drop_all(struct stalefs_io *io)
{
	struct cache_ent *e = io->lru.prev;

	/* Oldest first, close to the order malloc gave them out: freeing the
	 * newest first hands the top of the heap back one block at a time, a
	 * brk and a TLB flush per block. */
	while (e != &io->lru) {
		struct cache_ent *p = e->prev;

		free(e);
		e = p;
	}
	io->lru.prev = io->lru.next = &io->lru;
	free(io->hash);
	io->hash = NULL;
	io->count = 0;
	io->dirty = 0;
}

void stalefs_io_set_block_size(struct stalefs_io *io, u32 block_size)
{
	if (io->block_size == block_size && io->hash)
		return;
	/* Changing block size drops the cache; callers flush first. */
	cache_drop_all(io);
	io->block_size = block_size;
	io->max = CACHE_MAX_BYTES / block_size;
	io->hash_size = io->max;
	io->hash = calloc(io->hash_size, sizeof(*io->hash));
}

static u32 hash_of(const struct stalefs_io *io, u64 block)
{
	return (u32)((block * 0x9E3779B97F4A7C15ULL) >> 32) % io->hash_size;
}

static struct cache_ent *cache_find(struct stalefs_io *io, u64 block)
{
	struct cache_ent *e;

	if (!io->hash)
		return NULL;
	for (e = io->hash[hash_of(io, block)]; e; e = e->hnext)
		if (e->block == block)
			return e;
	return NULL;
}

static void lru_unlink(struct cache_ent *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}

static void lru_push_front(struct stalefs_io *io, struct cache_ent *e)
{
	e->next = io->lru.next;
	e->prev = &io->lru;
	io->lru.next->prev = e;
	io->lru.next = e;
}

static void hash_remove(struct stalefs_io *io, struct cache_ent *e)
{
	struct cache_ent **pp = &io->hash[hash_of(io, e->block)];

	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
}

static void set_dirty(struct stalefs_io *io, struct cache_ent *e, bool dirty)
{
	if (e->dirty != dirty)
		io->dirty += dirty ? 1 : (u32)-1;
	e->dirty = dirty;
}

/* Take an entry out of the cache and free it (its data is not written). */
static void cache_drop(struct stalefs_io *io, struct cache_ent *e)
{
	set_dirty(io, e, false);
	lru_unlink(e);
	hash_remove(io, e);
	free(e);
	io->count--;
}

/*
 * Make room for one more entry.  Held (journaled) dirty blocks may not be
 * written before their transaction commits: they go back to the front of the
 * list, and when nothing else is left the cache grows past its limit instead
 * (*full); the journaled writer commits before that goes far.
 */
static errcode_t cache_evict_one(struct stalefs_io *io, bool *full)
{
	struct cache_ent *e = io->lru.prev;
	u32 seen = 0;
	errcode_t err;

	*full = false;
	while (e != &io->lru && e->dirty && io->hold) {
		if (++seen > io->dirty) {
			*full = true;
			return 0;
		}
		lru_unlink(e);
		lru_push_front(io, e);
		e = io->lru.prev;
	}
	if (e == &io->lru) {
		*full = true;
		return 0;
	}
	if (e->dirty) {
		err = raw_pwrite(io, e->block * io->block_size, io->block_size, e->data);
		if (err)
			return err;
	}
	cache_drop(io, e);
	return 0;
}

static errcode_t cache_insert(struct stalefs_io *io, u64 block, const void *data, bool dirty)
{
	struct cache_ent *e;
	u32 h;
	errcode_t err;

	if (!io->hash)
		return 0;	/* no cache (allocation failed): callers went to disk */
	while (io->count >= io->max) {
		bool full;

		err = cache_evict_one(io, &full);
		if (err)
			return err;
		if (full)
			break;
	}
	e = malloc(sizeof(*e) + io->block_size);
	if (!e)
		return STALEFS_ERR_NO_MEMORY;
	e->block = block;
	e->dirty = false;
	set_dirty(io, e, dirty);
	memcpy(e->data, data, io->block_size);
	h = hash_of(io, block);
	e->hnext = io->hash[h];
	io->hash[h] = e;
	lru_push_front(io, e);
	io->count++;
	return 0;
}

errcode_t stalefs_io_read(struct stalefs_io *io, u64 block, u32 count, void *buf)
{
	struct cache_ent *e;
	errcode_t err;
	u32 i;

	if (count == 1) {
		e = cache_find(io, block);
		if (e) {
			memcpy(buf, e->data, io->block_size);
			lru_unlink(e);
			lru_push_front(io, e);
			return 0;
		}
		err = raw_pread(io, block * io->block_size, io->block_size, buf);
		if (err)
			return err;
		return cache_insert(io, block, buf, false);
	}
	err = raw_pread(io, block * io->block_size, (size_t)count * io->block_size, buf);
	if (err)
		return err;
	/* The cache is newer than the disk for dirty blocks. */
	if (io->count)
		for (i = 0; i < count; i++) {
			e = cache_find(io, block + i);
			if (e)
				memcpy((u8 *)buf + (size_t)i * io->block_size, e->data, io->block_size);
		}
	return 0;
}

errcode_t stalefs_io_write(struct stalefs_io *io, u64 block, u32 count, const void *buf)
{
	struct cache_ent *e;
	u32 i;

	if (!io->writable)
		return STALEFS_ERR_RO_FILSYS;
	if ((count == 1 || io->hold) && io->hash) {
		/* Journaled, metadata of several blocks is held block by block too. */
		for (i = 0; i < count; i++) {
			const u8 *data = (const u8 *)buf + (size_t)i * io->block_size;
			errcode_t err;

			e = cache_find(io, block + i);
			if (e) {
				memcpy(e->data, data, io->block_size);
				set_dirty(io, e, true);
				lru_unlink(e);
				lru_push_front(io, e);
				continue;
			}
			err = cache_insert(io, block + i, data, true);
			if (err)
				return err;
		}
		return 0;
	}
	if (io->count)
		for (i = 0; i < count; i++) {
			e = cache_find(io, block + i);
			if (e) {
				memcpy(e->data, (const u8 *)buf + (size_t)i * io->block_size, io->block_size);
				set_dirty(io, e, false);
			}
		}
	return raw_pwrite(io, block * io->block_size, (size_t)count * io->block_size, buf);
}

errcode_t stalefs_io_write_data(struct stalefs_io *io, u64 block, u32 count, const void *buf)
{
	if (!io->writable)
		return STALEFS_ERR_RO_FILSYS;
	/* A cached copy (a block read through the cache, or what it held as metadata before it
	 * was freed) would be stale: it goes. */
	stalefs_io_forget(io, block, count);
	return raw_pwrite(io, block * io->block_size, (size_t)count * io->block_size, buf);
}

void stalefs_io_forget(struct stalefs_io *io, u64 block, u64 count)
{
	u64 i;

	for (i = 0; i < count && io->count; i++) {
		struct cache_ent *e = cache_find(io, block + i);

		if (e)
			cache_drop(io, e);
	}
}

/* Bytes [off, off+len) of the blocks the cache holds dirty, over buf (read from the device). */
static void patch_dirty(struct stalefs_io *io, u64 off, u32 len, u8 *buf)
{
	u64 first, last, b;

	if (!io->dirty)
		return;	/* (and the block size may not be known yet: a partition table read at open) */
	first = off / io->block_size;
	last = (off + len - 1) / io->block_size;
	for (b = first; b <= last; b++) {
		struct cache_ent *e = cache_find(io, b);
		u64 bstart = b * io->block_size, from, to;

		if (!e || !e->dirty)
			continue;
		from = bstart > off ? bstart : off;
		to = bstart + io->block_size < off + len ? bstart + io->block_size : off + len;
		memcpy(buf + (from - off), e->data + (from - bstart), (size_t)(to - from));
	}
}

errcode_t stalefs_io_pread(struct stalefs_io *io, u64 off, u32 len, void *buf)
{
	errcode_t err = raw_pread(io, off, len, buf);

	/* A held (journaled) block not yet in place reads as what it will be. */
	if (!err && len)
		patch_dirty(io, off, len, buf);
	return err;
}

errcode_t stalefs_io_pwrite(struct stalefs_io *io, u64 off, u32 len, const void *buf)
{
	u64 first = off / io->block_size, last = (off + len - 1) / io->block_size, b;

	/* Keep cached copies of the blocks we write around coherent: drop them. */
	for (b = first; b <= last; b++) {
		struct cache_ent *e = cache_find(io, b);

		if (e) {
			errcode_t err = 0;

			if (e->dirty)
				err = raw_pwrite(io, b * io->block_size, io->block_size, e->data);
			cache_drop(io, e);
			if (err)
				return err;
		}
	}
	return raw_pwrite(io, off, len, buf);
}

errcode_t stalefs_io_zero(struct stalefs_io *io, u64 block, u64 count)
{
	u64 off = block * io->block_size, len = count * io->block_size, done = 0;
	u64 range[2] = { io->base + off, len };
	u64 b;
	void *zero;
	errcode_t err = 0;

	if (!io->writable)
		return STALEFS_ERR_RO_FILSYS;
	err = in_region(io, off, len);
	if (err)
		return err;
	for (b = 0; b < count && io->count; b++) {
		struct cache_ent *e = cache_find(io, block + b);

		if (e) {
			memset(e->data, 0, io->block_size);
			set_dirty(io, e, false);
		}
	}
	if (io->ov)
		return stalefs_overlay_zero(io->ov, off, len);
	io->unsynced = true;
	if (!io->is_blockdev &&
	    fallocate(io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(io->base + off), (off_t)len) == 0)
		return 0;
	if (io->is_blockdev && ioctl(io->fd, BLKZEROOUT, range) == 0)
		return 0;
	zero = calloc(1, 1u << 20);
	if (!zero)
		return STALEFS_ERR_NO_MEMORY;
	while (done < len && !err) {
		u64 n = len - done < (1u << 20) ? len - done : (1u << 20);

		err = raw_pwrite(io, off + done, (size_t)n, zero);
		done += n;
	}
	free(zero);
	return err;
}

errcode_t stalefs_io_trim(struct stalefs_io *io, u64 off, u64 len)
{
	/* A device is asked a chunk at a time: BLKDISCARD of a whole large disk can take long
	 * and cannot be interrupted midway. */
	const u64 chunk = 1ULL << 30;
	u64 done;
	errcode_t err;

	if (!io->writable || io->ov)
		return STALEFS_ERR_RO_FILSYS;
	err = in_region(io, off, len);
	if (err)
		return err;
	cache_drop_all(io);
	io->hash = calloc(io->hash_size, sizeof(*io->hash));
	io->unsynced = true;
	if (!io->is_blockdev)
		return fallocate(io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(io->base + off),
				 (off_t)len) ? errno : 0;
	for (done = 0; done < len; done += chunk) {
		u64 range[2] = { io->base + off + done, len - done < chunk ? len - done : chunk };

		if (ioctl(io->fd, BLKDISCARD, range) < 0)
			return errno;
	}
	return 0;
}

static int cmp_ent_block(const void *a, const void *b)
{
	const struct cache_ent *x = *(const struct cache_ent *const *)a, *y = *(const struct cache_ent *const *)b;

	return x->block < y->block ? -1 : x->block > y->block;
}

/* Write run[0..n), consecutive blocks, in one system call; a short write is finished block by block. */
static errcode_t write_run(struct stalefs_io *io, struct cache_ent **run, u32 n)
{
	struct iovec iov[64];
	u64 off = run[0]->block * io->block_size;
	ssize_t w;
	u32 i;
	errcode_t err = in_region(io, off, (u64)n * io->block_size);

	if (err)
		return err;
	if (n == 1 || io->ov) {
		for (i = 0; i < n; i++) {
			errcode_t err = raw_pwrite(io, run[i]->block * io->block_size, io->block_size, run[i]->data);

			if (err)
				return err;
		}
		return 0;
	}
	for (i = 0; i < n; i++) {
		iov[i].iov_base = run[i]->data;
		iov[i].iov_len = io->block_size;
	}
	do
		w = pwritev(io->fd, iov, (int)n, (off_t)(io->base + off));
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return errno;
	io->bytes_written += (u64)w;
	io->unsynced = true;
	for (i = (u32)((u64)w / io->block_size); i < n; i++) {
		u64 done = (u64)w > (u64)i * io->block_size ? (u64)w - (u64)i * io->block_size : 0;
		errcode_t err = raw_pwrite(io, run[i]->block * io->block_size + done,
					   io->block_size - (size_t)done, run[i]->data + done);

		if (err)
			return err;
	}
	return 0;
}

errcode_t stalefs_io_flush(struct stalefs_io *io)
{
	struct cache_ent *e, **dirty;
	errcode_t err = 0;
	u32 n = 0, i, j;

	if (!io->writable)
		return 0;
	/* In block order, consecutive blocks in one write: a 1 TiB mkfs writes
	 * its descriptor-table copies as a few runs instead of hundreds of blocks. */
	dirty = malloc(sizeof(*dirty) * (io->count ? io->count : 1));
	if (!dirty)
		return STALEFS_ERR_NO_MEMORY;
	for (e = io->lru.prev; e != &io->lru; e = e->prev)
		if (e->dirty)
			dirty[n++] = e;
	qsort(dirty, n, sizeof(*dirty), cmp_ent_block);
	for (i = 0; i < n && !err; i = j) {
		for (j = i + 1; j < n && j - i < 64 && dirty[j]->block == dirty[j - 1]->block + 1; j++)
			;
		err = write_run(io, dirty + i, j - i);
		if (!err)
			while (i < j)
				set_dirty(io, dirty[i++], false);
	}
	free(dirty);
	if (err)
		return err;
	/* Nothing written since the last fsync: another one costs milliseconds and buys nothing.
	 * In overlay mode nothing ever was. */
	if (!io->unsynced || io->ov)
		return 0;
	if (fsync(io->fd) < 0 && errno != EINVAL)
		return errno;
	io->unsynced = false;
	return 0;
}

errcode_t stalefs_io_close(struct stalefs_io *io)
{
	errcode_t err = 0;

	if (!io)
		return 0;
	if (io->writable)
		err = stalefs_io_flush(io);
	cache_drop_all(io);
	stalefs_overlay_free(io->ov);
	if (io->fd >= 0 && close(io->fd) < 0 && !err)
		err = errno;
	stalefs_ewf_close(io->ewf);
	free(io->path);
	free(io);
	return err;
}

errcode_t stalefs_io_size(struct stalefs_io *io, u64 *bytes)
{
	if (io->limit) {
		*bytes = io->limit;
		return 0;
	}
	return media_size(io, bytes);
}

void stalefs_io_set_cache_limit(struct stalefs_io *io, u32 max_blocks)
{
	if (max_blocks == 0)
		max_blocks = 1;
	if (!io->hash || max_blocks > io->hash_size)
		return;
	io->max = max_blocks;
	while (io->count > io->max) {
		bool full;

		if (cache_evict_one(io, &full) || full)
			break;
	}
}

u64 stalefs_io_bytes_written(const struct stalefs_io *io)
{
	return io->bytes_written;
}

/* Forget unwritten changes: a tool that gives up must not half-write.  The blocks leave the
 * cache, so a read after (an aborted transaction) sees what the device holds. */
void stalefs_io_discard(struct stalefs_io *io)
{
	struct cache_ent *e = io->lru.next;

	while (e != &io->lru && io->dirty) {
		struct cache_ent *next = e->next;

		if (e->dirty)
			cache_drop(io, e);
		e = next;
	}
}

errcode_t stalefs_io_read_uncached(struct stalefs_io *io, u64 block, u32 count, void *buf)
{
	struct cache_ent *e;
	errcode_t err;
	u32 i;

	err = raw_pread(io, block * io->block_size, (size_t)count * io->block_size, buf);
	if (err || !io->count)
		return err;
	for (i = 0; i < count; i++) {
		e = cache_find(io, block + i);
		if (e && e->dirty)
			memcpy((u8 *)buf + (size_t)i * io->block_size, e->data, io->block_size);
	}
	return 0;
}

errcode_t stalefs_io_set_overlay(struct stalefs_io *io)
{
	int mode;

	if (io->ov)
		return 0;
	if (io->ewf) {
		/* Nothing there can be written: the overlay alone makes it writable. */
		io->ov = stalefs_overlay_new(io);
		io->writable = true;
		io->unsynced = false;
		return 0;
	}
	mode = fcntl(io->fd, F_GETFL);
	if (mode < 0)
		return errno;
	/* A descriptor that could write is swapped for a read-only one to the same file:
	 * in this mode no code path may reach the device with a write. */
	if ((mode & O_ACCMODE) != O_RDONLY) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", io->fd);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno;
		close(io->fd);
		io->fd = fd;
	}
	io->ov = stalefs_overlay_new(io);
	io->writable = true;
	io->unsynced = false;
	return 0;
}

bool stalefs_io_is_overlay(const struct stalefs_io *io)
{
	return io->ov != NULL;
}

void stalefs_io_set_hold(struct stalefs_io *io, bool hold)
{
	io->hold = hold;
}

u32 stalefs_io_dirty_count(const struct stalefs_io *io)
{
	return io->dirty;
}

int stalefs_io_dirty_iterate(struct stalefs_io *io, int (*fn)(u64 block, const void *data, void *priv), void *priv)
{
	struct cache_ent *e, **dirty;
	u32 n = 0, i;
	int ret = 0;

	if (!io->dirty)
		return 0;
	dirty = stalefs_xmalloc(sizeof(*dirty) * io->dirty);
	for (e = io->lru.next; e != &io->lru && n < io->dirty; e = e->next)
		if (e->dirty)
			dirty[n++] = e;
	qsort(dirty, n, sizeof(*dirty), cmp_ent_block);
	for (i = 0; i < n && !ret; i++)
		ret = fn(dirty[i]->block, dirty[i]->data, priv);
	free(dirty);
	return ret;
}

errcode_t stalefs_io_write_back(struct stalefs_io *io, u64 block)
{
	struct cache_ent *e = io->count ? cache_find(io, block) : NULL;
	errcode_t err;

	if (!e || !e->dirty)
		return 0;
	err = raw_pwrite(io, block * io->block_size, io->block_size, e->data);
	if (!err)
		set_dirty(io, e, false);
	return err;
}

errcode_t stalefs_io_sync(struct stalefs_io *io)
{
	if (!io->writable || !io->unsynced || io->ov)
		return 0;
	if (fsync(io->fd) < 0 && errno != EINVAL)
		return errno;
	io->unsynced = false;
	return 0;
}

bool stalefs_io_data_fd(const struct stalefs_io *io, int *fd, u64 *base)
{
	/* An overlay patches what the fd holds; an EWF image's fd holds compressed chunks. */
	if (io->ov || io->ewf)
		return false;
	*fd = io->fd;
	*base = io->base;
	return true;
}
