// SPDX-License-Identifier: GPL-2.0
/*
 * The overlay behind overlay I/O mode (stalefs_io_set_overlay): a sparse
 * in-memory copy of every byte written, kept in 4 KiB chunks, that reads
 * are patched with.  fsck -n replays a journal into it and checks the
 * result while the device, opened read-only, stays as it was.
 *
 * A chunk with no data pointer is all zeros, so zeroing a large range (a
 * journal's log) costs a few bytes per chunk, not the range.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "libstalefs.h"
#include "lib_internal.h"

#define CHUNK 4096u

struct ov_chunk {
	u64 index;		/* byte offset / CHUNK */
	struct ov_chunk *next;	/* hash chain */
	u8 *data;		/* CHUNK bytes; NULL: all zeros */
};

struct stalefs_overlay {
	struct stalefs_io *io;	/* the device, read-only: what chunks start from (region offsets) */
	struct ov_chunk **hash;
	u64 nbuckets, count;
};

struct stalefs_overlay *stalefs_overlay_new(struct stalefs_io *io)
{
	struct stalefs_overlay *ov = stalefs_xcalloc(1, sizeof(*ov));

	ov->io = io;
	ov->nbuckets = 1024;
	ov->hash = stalefs_xcalloc(ov->nbuckets, sizeof(*ov->hash));
	return ov;
}

void stalefs_overlay_free(struct stalefs_overlay *ov)
{
	u64 i;

	if (!ov)
		return;
	for (i = 0; i < ov->nbuckets; i++) {
		struct ov_chunk *c = ov->hash[i], *n;

		for (; c; c = n) {
			n = c->next;
			free(c->data);
			free(c);
		}
	}
	free(ov->hash);
	free(ov);
}

static u64 bucket(const struct stalefs_overlay *ov, u64 index)
{
	return (index * 0x9E3779B97F4A7C15ULL >> 20) % ov->nbuckets;
}

static struct ov_chunk *find(const struct stalefs_overlay *ov, u64 index)
{
	struct ov_chunk *c;

	for (c = ov->hash[bucket(ov, index)]; c; c = c->next)
		if (c->index == index)
			return c;
	return NULL;
}

static void grow(struct stalefs_overlay *ov)
{
	u64 old_n = ov->nbuckets, i;
	struct ov_chunk **old = ov->hash;

	ov->nbuckets *= 4;
	ov->hash = stalefs_xcalloc(ov->nbuckets, sizeof(*ov->hash));
	for (i = 0; i < old_n; i++) {
		struct ov_chunk *c = old[i], *n;

		for (; c; c = n) {
			u64 b = bucket(ov, c->index);

			n = c->next;
			c->next = ov->hash[b];
			ov->hash[b] = c;
		}
	}
	free(old);
}

static struct ov_chunk *insert(struct stalefs_overlay *ov, u64 index)
{
	struct ov_chunk *c = stalefs_xcalloc(1, sizeof(*c));
	u64 b;

	if (ov->count >= ov->nbuckets * 2)
		grow(ov);
	b = bucket(ov, index);
	c->index = index;
	c->next = ov->hash[b];
	ov->hash[b] = c;
	ov->count++;
	return c;
}

/* The device's bytes of a chunk; past its end, zeros. */
static errcode_t read_base(struct stalefs_overlay *ov, u64 index, u8 *out)
{
	size_t done = 0;
	errcode_t err = stalefs_io_read_media(ov->io, index * CHUNK, CHUNK, out, &done);

	if (err)
		return err;
	memset(out + done, 0, CHUNK - done);
	return 0;
}

/* A chunk with its own data, made from the device's bytes (or zeros) when new. */
static errcode_t chunk_for_write(struct stalefs_overlay *ov, u64 index, bool whole, struct ov_chunk **ret)
{
	struct ov_chunk *c = find(ov, index);
	errcode_t err = 0;

	if (!c) {
		c = insert(ov, index);
		c->data = stalefs_xmalloc(CHUNK);
		if (!whole)
			err = read_base(ov, index, c->data);
	} else if (!c->data) {
		c->data = stalefs_xcalloc(1, CHUNK);
	}
	*ret = c;
	return err;
}

errcode_t stalefs_overlay_write(struct stalefs_overlay *ov, u64 off, size_t len, const void *buf)
{
	const u8 *p = buf;

	while (len > 0) {
		u64 index = off / CHUNK;
		u32 in = (u32)(off % CHUNK);
		size_t n = CHUNK - in < len ? CHUNK - in : len;
		struct ov_chunk *c;
		errcode_t err = chunk_for_write(ov, index, n == CHUNK, &c);

		if (err)
			return err;
		memcpy(c->data + in, p, n);
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

errcode_t stalefs_overlay_zero(struct stalefs_overlay *ov, u64 off, u64 len)
{
	while (len > 0) {
		u64 index = off / CHUNK;
		u32 in = (u32)(off % CHUNK);
		u64 n = CHUNK - in < len ? CHUNK - in : len;
		struct ov_chunk *c = find(ov, index);

		if (n == CHUNK) {
			/* A whole chunk: drop its data, it reads as zeros now. */
			if (!c)
				c = insert(ov, index);
			free(c->data);
			c->data = NULL;
		} else {
			errcode_t err = chunk_for_write(ov, index, false, &c);

			if (err)
				return err;
			memset(c->data + in, 0, (size_t)n);
		}
		off += n;
		len -= n;
	}
	return 0;
}

void stalefs_overlay_patch(const struct stalefs_overlay *ov, u64 off, size_t len, void *buf)
{
	u8 *p = buf;

	if (!ov->count)
		return;
	while (len > 0) {
		u64 index = off / CHUNK;
		u32 in = (u32)(off % CHUNK);
		size_t n = CHUNK - in < len ? CHUNK - in : len;
		const struct ov_chunk *c = find(ov, index);

		if (c) {
			if (c->data)
				memcpy(p, c->data + in, n);
			else
				memset(p, 0, n);
		}
		p += n;
		off += n;
		len -= n;
	}
}
