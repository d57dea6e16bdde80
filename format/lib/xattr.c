// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attributes of one inode (FORMAT.md 14): get, set, remove, list and
 * release over its two regions, the in-inode area (the slot past byte 256) and
 * the external block named by i_xattr_block.  Entry layout, edits and rules
 * are format/core's (xattr_rules.c); this file reads and verifies the regions,
 * places attributes as the kernel does (in the inode first) and writes back.
 */
#include <errno.h>
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

/* An inode's attribute regions, as read and verified: edits work on these copies. */
struct xregions {
	stalefs_fs *fs;
	u32 ino, gen;
	struct stalefs_inode inode;
	u8 *area;		/* the in-inode area (area_len bytes), NULL when inodes have none */
	u32 area_len;
	u8 *blk;		/* the xattr block, NULL when the inode has none */
	u64 blkno;
	bool area_dirty, blk_dirty, inode_dirty;
};

static void regions_free(struct xregions *x)
{
	free(x->area);
	free(x->blk);
}

static u8 *area_region(struct xregions *x, u32 *len)
{
	*len = x->area_len - (u32)sizeof(struct stalefs_xattr_ibody_header);
	return stalefs_xattr_ibody_region(x->area);
}

static u8 *blk_region(struct xregions *x, u32 *len)
{
	*len = stalefs_xattr_block_region_len(x->fs->block_size);
	return stalefs_xattr_block_region(x->blk);
}

static bool area_in_use(const struct xregions *x)
{
	return x->area && !stalefs_xattr_ibody_empty(x->area);
}

static errcode_t csum_verdict(stalefs_fs *fs, int rule)
{
	if (!rule)
		return 0;
	return (fs->flags & STALEFS_OPEN_IGNORE_CSUM) ? 0 : STALEFS_ERR_XATTR_CSUM;
}

/* Read the inode and both regions, verifying each; nothing is trusted before it verifies. */
static errcode_t regions_load(stalefs_fs *fs, u32 ino, struct xregions *x)
{
	u64 blkno;
	errcode_t err;

	memset(x, 0, sizeof(*x));
	x->fs = fs;
	x->ino = ino;
	err = stalefs_read_inode(fs, ino, &x->inode);
	if (err)
		return err;
	if (!x->inode.i_mode)
		return STALEFS_ERR_INODE_FREE;
	x->gen = le32_to_cpu(x->inode.i_generation);
	x->area_len = stalefs_xattr_ibody_len(&fs->geom);
	if (x->area_len) {
		x->area = stalefs_xmalloc(x->area_len);
		err = stalefs_read_inode_area(fs, ino, x->area);
		if (err)
			return err;
		if (!stalefs_xattr_ibody_empty(x->area)) {
			if (stalefs_verify_xattr_ibody(x->area, x->area_len))
				return STALEFS_ERR_XATTR_CORRUPT;
			err = csum_verdict(fs, stalefs_verify_xattr_ibody_csum(fs->seed, ino, x->gen, x->area,
									      x->area_len));
			if (err)
				return err;
		}
	}
	blkno = le64_to_cpu(x->inode.i_xattr_block);
	if (blkno) {
		if (!stalefs_block_valid(fs, blkno))
			return STALEFS_ERR_XATTR_CORRUPT;
		x->blk = stalefs_xmalloc(fs->block_size);
		x->blkno = blkno;
		err = stalefs_read_block(fs, blkno, x->blk);
		if (err)
			return err;
		if (stalefs_verify_xattr_block(x->blk, fs->block_size, blkno, ino, x->gen))
			return STALEFS_ERR_XATTR_CORRUPT;
		err = csum_verdict(fs, stalefs_verify_xattr_block_csum(fs->seed, x->blk, fs->block_size));
		if (err)
			return err;
	}
	return 0;
}

/* Write back what changed; regions left without entries go (area zeroed, block freed). */
static errcode_t regions_store(struct xregions *x)
{
	stalefs_fs *fs = x->fs;
	u32 len;
	errcode_t err = 0;

	if (x->area_dirty) {
		u8 *r = area_region(x, &len);

		if (stalefs_xattr_region_used(r, len) == 0)
			memset(x->area, 0, x->area_len);	/* all zero: no attributes */
		else
			stalefs_xattr_ibody_set_csum(fs->seed, x->ino, x->gen, x->area, x->area_len);
		err = stalefs_write_inode_area(fs, x->ino, x->area);
		if (err)
			return err;
	}
	if (x->blk_dirty) {
		u8 *r = blk_region(x, &len);

		if (stalefs_xattr_region_used(r, len) == 0) {
			err = stalefs_free_blocks(fs, x->blkno, 1);
			if (err)
				return err;
			x->inode.i_xattr_block = 0;
			if (le64_to_cpu(x->inode.i_blocks) > 0)
				x->inode.i_blocks = cpu_to_le64(le64_to_cpu(x->inode.i_blocks) - 1);
			x->inode_dirty = true;
		} else {
			stalefs_xattr_block_set_csum(fs->seed, x->blk, fs->block_size);
			err = stalefs_write_block(fs, x->blkno, x->blk);
			if (err)
				return err;
		}
	}
	if (x->inode_dirty)
		err = stalefs_write_inode(fs, x->ino, &x->inode);
	return err;
}

static errcode_t parse_name(const char *name, u8 *index, const char **suffix, u32 *suffix_len)
{
	size_t n;

	if (!name || !stalefs_xattr_split(name, index, suffix))
		return STALEFS_ERR_XATTR_BAD_NAME;
	n = strlen(*suffix);
	if (n > STALEFS_XATTR_NAME_MAX)
		return STALEFS_ERR_XATTR_RANGE;
	/* "user." alone names nothing; the ACLs are whole names (split checked that). */
	if (n == 0 && *index != STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS &&
	    *index != STALEFS_XATTR_INDEX_POSIX_ACL_DEFAULT)
		return STALEFS_ERR_XATTR_BAD_NAME;
	*suffix_len = (u32)n;
	return 0;
}

/* Where the attribute is: 1 the in-inode area, 2 the block, 0 nowhere; *off in that region. */
static int locate_attr(struct xregions *x, u8 index, const char *suffix, u32 suffix_len, u32 *off)
{
	u32 len;
	int o;

	if (area_in_use(x)) {
		u8 *r = area_region(x, &len);

		o = stalefs_xattr_find(r, len, index, suffix, suffix_len);
		if (o >= 0) {
			*off = (u32)o;
			return 1;
		}
	}
	if (x->blk) {
		u8 *r = blk_region(x, &len);

		o = stalefs_xattr_find(r, len, index, suffix, suffix_len);
		if (o >= 0) {
			*off = (u32)o;
			return 2;
		}
	}
	return 0;
}

errcode_t stalefs_xattr_get(stalefs_fs *fs, u32 ino, const char *name, void *buf, size_t bufsize,
			    size_t *size)
{
	struct xregions x;
	struct stalefs_xattr_ref ref;
	const char *suffix;
	u32 slen, off, len;
	u8 index, *r;
	int where;
	errcode_t err;

	err = parse_name(name, &index, &suffix, &slen);
	if (err)
		return err;
	err = regions_load(fs, ino, &x);
	if (err)
		goto out;
	where = locate_attr(&x, index, suffix, slen, &off);
	if (!where) {
		err = STALEFS_ERR_XATTR_NOT_FOUND;
		goto out;
	}
	r = where == 1 ? area_region(&x, &len) : blk_region(&x, &len);
	if (!stalefs_xattr_entry_at(r, len, off, &ref)) {
		err = STALEFS_ERR_XATTR_CORRUPT;	/* cannot be: the region verified */
		goto out;
	}
	if (size)
		*size = ref.value_size;
	if (buf) {
		if (ref.value_size > bufsize)
			err = STALEFS_ERR_XATTR_RANGE;
		else
			memcpy(buf, ref.value, ref.value_size);
	}
out:
	regions_free(&x);
	return err;
}

static void set_feature(stalefs_fs *fs)
{
	u32 ro = le32_to_cpu(fs->sb.s_feature_ro_compat);

	if (!(ro & STALEFS_FEATURE_RO_COMPAT_XATTR)) {
		fs->sb.s_feature_ro_compat = cpu_to_le32(ro | STALEFS_FEATURE_RO_COMPAT_XATTR);
		stalefs_mark_super_dirty(fs);
	}
}

/* A new, empty xattr block for x's inode, near its inode table. */
static errcode_t new_block(struct xregions *x)
{
	stalefs_fs *fs = x->fs;
	const struct stalefs_group_desc *d = &fs->groups[stalefs_ino_group(&fs->geom, x->ino)].desc;
	u64 blk;
	errcode_t err;

	err = stalefs_alloc_block(fs, le64_to_cpu(d->bg_inode_table), &blk);
	if (err)
		return err;
	x->blk = stalefs_xmalloc(fs->block_size);
	x->blkno = blk;
	stalefs_xattr_block_init(x->blk, fs->block_size, blk, x->ino, x->gen);
	x->inode.i_xattr_block = cpu_to_le64(blk);
	x->inode.i_blocks = cpu_to_le64(le64_to_cpu(x->inode.i_blocks) + 1);
	x->inode_dirty = true;
	return 0;
}

errcode_t stalefs_xattr_set(stalefs_fs *fs, u32 ino, const char *name, const void *value,
			    size_t size, int flags)
{
	struct xregions x;
	const char *suffix;
	u32 slen, off, len, elen;
	u8 index, *r;
	int where;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = parse_name(name, &index, &suffix, &slen);
	if (err)
		return err;
	if (size > 0xFFFF)
		return STALEFS_ERR_XATTR_NO_SPACE;
	if (size && !value)
		return STALEFS_ERR_BAD_ARGUMENT;
	elen = stalefs_xattr_entry_len(slen, (u32)size);
	err = regions_load(fs, ino, &x);
	if (err)
		goto out;
	where = locate_attr(&x, index, suffix, slen, &off);
	if (where && (flags & STALEFS_XATTR_CREATE)) {
		err = STALEFS_ERR_XATTR_EXISTS;
		goto out;
	}
	if (!where && (flags & STALEFS_XATTR_REPLACE)) {
		err = STALEFS_ERR_XATTR_NOT_FOUND;
		goto out;
	}
	/* The old value goes first (in the copies), so the new one may take its room. */
	if (where == 1) {
		r = area_region(&x, &len);
		stalefs_xattr_remove(r, len, off);
		x.area_dirty = true;
	} else if (where == 2) {
		r = blk_region(&x, &len);
		stalefs_xattr_remove(r, len, off);
		x.blk_dirty = true;
	}
	if (x.area) {
		if (!area_in_use(&x))
			stalefs_xattr_ibody_init(x.area, x.area_len);
		r = area_region(&x, &len);
		if (stalefs_xattr_append(r, len, index, suffix, slen, value, (u32)size) == 0) {
			x.area_dirty = true;
			goto write;
		}
		if (!x.area_dirty && stalefs_xattr_region_used(r, len) == 0)
			memset(x.area, 0, x.area_len);	/* initialised for nothing: leave it as it was */
	}
	if (!x.blk) {
		/* Allocate only what can hold the attribute. */
		if (elen > stalefs_xattr_block_region_len(fs->block_size)) {
			err = STALEFS_ERR_XATTR_NO_SPACE;
			goto out;
		}
		err = new_block(&x);
		if (err)
			goto out;
	}
	r = blk_region(&x, &len);
	if (stalefs_xattr_append(r, len, index, suffix, slen, value, (u32)size) != 0) {
		err = STALEFS_ERR_XATTR_NO_SPACE;
		goto out;
	}
	x.blk_dirty = true;
write:
	set_feature(fs);
	err = regions_store(&x);
out:
	regions_free(&x);
	return err;
}

errcode_t stalefs_xattr_delete(stalefs_fs *fs, u32 ino, const char *name)
{
	struct xregions x;
	const char *suffix;
	u32 slen, off, len;
	u8 index, *r;
	int where;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = parse_name(name, &index, &suffix, &slen);
	if (err)
		return err;
	err = regions_load(fs, ino, &x);
	if (err)
		goto out;
	where = locate_attr(&x, index, suffix, slen, &off);
	if (!where) {
		err = STALEFS_ERR_XATTR_NOT_FOUND;
		goto out;
	}
	r = where == 1 ? area_region(&x, &len) : blk_region(&x, &len);
	stalefs_xattr_remove(r, len, off);
	if (where == 1)
		x.area_dirty = true;
	else
		x.blk_dirty = true;
	err = regions_store(&x);
out:
	regions_free(&x);
	return err;
}

static int iterate_region(const u8 *r, u32 len, stalefs_xattr_iter_fn fn, void *priv)
{
	struct stalefs_xattr_ref ref;
	char name[64 + STALEFS_XATTR_NAME_MAX + 1];
	u32 off = 0;
	int ret;

	while (stalefs_xattr_entry_at(r, len, off, &ref)) {
		const char *prefix = stalefs_xattr_prefix(ref.index);
		size_t plen = strlen(prefix);

		memcpy(name, prefix, plen);
		memcpy(name + plen, ref.name, ref.name_len);
		name[plen + ref.name_len] = '\0';
		ret = fn(name, ref.value, ref.value_size, priv);
		if (ret)
			return ret;
		off += stalefs_xattr_entry_len(ref.name_len, ref.value_size);
	}
	return 0;
}

errcode_t stalefs_xattr_iterate(stalefs_fs *fs, u32 ino, stalefs_xattr_iter_fn fn, void *priv)
{
	struct xregions x;
	u32 len;
	u8 *r;
	errcode_t err;

	err = regions_load(fs, ino, &x);
	if (!err && area_in_use(&x)) {
		r = area_region(&x, &len);
		err = iterate_region(r, len, fn, priv);
	}
	if (!err && x.blk) {
		r = blk_region(&x, &len);
		err = iterate_region(r, len, fn, priv);
	}
	regions_free(&x);
	return err;
}

bool stalefs_xattr_present(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode)
{
	u32 len = stalefs_xattr_ibody_len(&fs->geom);
	bool any = inode->i_xattr_block != 0;

	if (!any && len) {
		u8 *area = stalefs_xmalloc(len);

		any = stalefs_read_inode_area(fs, ino, area) == 0 && !stalefs_xattr_ibody_empty(area);
		free(area);
	}
	return any;
}

struct holder {
	u32 ino;
	bool unreadable;
};

static int holder_fn(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode, int rule, bool in_use,
		     void *priv)
{
	struct holder *h = priv;

	(void)rule;
	if (!inode) {
		h->ino = ino;
		h->unreadable = true;
		return 1;
	}
	if (!in_use || !inode->i_mode || !stalefs_xattr_present(fs, ino, inode))
		return 0;
	h->ino = ino;
	return 1;
}

errcode_t stalefs_xattr_first_holder(stalefs_fs *fs, u32 *ino)
{
	struct holder h = { 0, false };

	stalefs_inode_scan(fs, holder_fn, &h);
	*ino = h.ino;
	return h.unreadable ? STALEFS_ERR_SHORT_READ : 0;
}

/* Whether blk is the xattr block of ino (its header names it), whatever its entries hold. */
static bool block_owned(stalefs_fs *fs, u64 blk, u32 ino, u32 gen, errcode_t *err)
{
	u8 *buf = stalefs_xmalloc(fs->block_size);
	bool ours;

	*err = stalefs_read_block(fs, blk, buf);
	ours = !*err && !stalefs_verify_xattr_block_owner(buf, blk, ino, gen);
	free(buf);
	return ours;
}

errcode_t stalefs_xattr_release(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode)
{
	u64 blk = le64_to_cpu(inode->i_xattr_block);
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (blk) {
		/* Free nothing that is not this inode's: a wrong pointer would free another's block. */
		if (!stalefs_block_valid(fs, blk))
			return STALEFS_ERR_XATTR_CORRUPT;
		if (!block_owned(fs, blk, ino, le32_to_cpu(inode->i_generation), &err))
			return err ? err : STALEFS_ERR_XATTR_CORRUPT;
		err = stalefs_free_blocks(fs, blk, 1);
		if (err)
			return err;
		inode->i_xattr_block = 0;
		if (le64_to_cpu(inode->i_blocks) > 0)
			inode->i_blocks = cpu_to_le64(le64_to_cpu(inode->i_blocks) - 1);
	}
	if (stalefs_xattr_ibody_len(&fs->geom))
		return stalefs_write_inode_area(fs, ino, NULL);
	return 0;
}
