// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 1: an inode's extended attributes (FORMAT.md 14), in the manner of
 * e2fsck's check_ext_attr.  The rules themselves are format/core's
 * (stalefs_verify_xattr_ibody / _block and their checksums); this file only
 * decides what to do about each.
 *
 *   in-inode area: broken (magic, entries) -> zeroed; checksum only -> rewritten.
 *   xattr block:   out of range or on metadata, unreadable, bad header (magic,
 *                  own number, owner and generation, reserved), broken entries,
 *                  or already claimed -> the pointer is cleared (the block is not
 *                  claimed, so pass 5 frees it); checksum only -> rewritten.
 *   a name in both regions: the in-inode copy wins, the block's is removed.
 *   attributes without RO_COMPAT_XATTR: set the feature, else drop them.
 *
 * Extent trees are claimed before the xattr block of the same inode, and the
 * journal before every file, so a block that is both an xattr block and mapped
 * data loses its xattr role when the mapping comes first; a later inode mapping
 * a claimed xattr block shares it and pass 1B gives that inode a copy.  A kept
 * xattr block is claimed, counted in the owner's i_blocks and remembered
 * (xattr_block_of) so that an inode cleared in pass 1D gives it back.
 */
#include <stdlib.h>
#include "fsck.h"

static void *xalloc(struct fsck_ctx *ctx, void *old, size_t size)
{
	void *p = realloc(old, size);

	if (!p)
		fsck_fatal(ctx, STALEFS_ERR_NO_MEMORY, "while checking extended attributes");
	return p;
}

/* Write an inode's in-inode area (the slot past its first 256 bytes); NULL zeroes it. */
bool xattr_ibody_write(struct fsck_ctx *ctx, u32 ino, const u8 *area)
{
	errcode_t err;

	if (!stalefs_xattr_ibody_len(&ctx->fs->geom) || (ctx->options & OPT_READONLY))
		return false;
	err = stalefs_write_inode_area(ctx->fs, ino, area);
	if (err) {
		fsck_library_error(ctx, err, "while writing an in-inode xattr area");
		return false;
	}
	return true;
}

static void owner_add(struct fsck_ctx *ctx, u32 ino, u64 block)
{
	if (ctx->nxowners == ctx->xowners_cap) {
		ctx->xowners_cap = ctx->xowners_cap ? ctx->xowners_cap * 2 : 64;
		ctx->xowners = xalloc(ctx, ctx->xowners, ctx->xowners_cap * sizeof(*ctx->xowners));
	}
	/* Pass 1 goes in inode order: the list stays sorted. */
	ctx->xowners[ctx->nxowners].ino = ino;
	ctx->xowners[ctx->nxowners].block = block;
	ctx->nxowners++;
}

static struct xattr_owner *owner_find(struct fsck_ctx *ctx, u32 ino)
{
	u32 lo = 0, hi = ctx->nxowners;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (ctx->xowners[mid].ino < ino)
			lo = mid + 1;
		else if (ctx->xowners[mid].ino > ino)
			hi = mid;
		else
			return &ctx->xowners[mid];
	}
	return NULL;
}

u64 xattr_block_of(struct fsck_ctx *ctx, u32 ino)
{
	struct xattr_owner *o = owner_find(ctx, ino);

	return o ? o->block : 0;
}

void xattr_forget(struct fsck_ctx *ctx, u32 ino)
{
	struct xattr_owner *o = owner_find(ctx, ino);

	if (o)
		o->block = 0;
}

static bool write_xblock(struct fsck_ctx *ctx, u64 blk, u8 *buf)
{
	errcode_t err;

	if (ctx->options & OPT_READONLY)
		return false;
	stalefs_xattr_block_set_csum(ctx->fs->seed, buf, ctx->fs->block_size);
	err = stalefs_write_block(ctx->fs, blk, buf);
	if (err) {
		fsck_library_error(ctx, err, "while writing an xattr block");
		return false;
	}
	return true;
}

static bool header_rule(int rule)
{
	return rule == STALEFS_R_XATTR_MAGIC || rule == STALEFS_R_XATTR_BLOCKNR ||
	       rule == STALEFS_R_XATTR_OWNER || rule == STALEFS_R_XATTR_RESERVED;
}

/*
 * The xattr block: true if the inode keeps its pointer (then it counts in
 * i_blocks); *claim says whether pass 1 claimed it (a kept block that is
 * wrong only because a fix was declined is counted, not claimed).
 */
static bool check_block(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode, u8 *buf,
			bool *dirty, bool *claimed)
{
	stalefs_fs *fs = ctx->fs;
	u64 blk = le64_to_cpu(inode->i_xattr_block);
	struct problem_ctx p;
	errcode_t err;
	int rule, code = 0;

	*claimed = false;
	memset(&p, 0, sizeof(p));
	p.ino = ino;
	p.blk = blk;
	if (blk >= fs->geom.blocks_count || block_range_in_meta(ctx, blk, 1)) {
		code = PR_1_XATTR_BLOCK_RANGE;
	} else if ((err = stalefs_io_read(fs->io, blk, 1, buf)) != 0) {
		p.str = error_message(err);
		code = PR_1_XATTR_BLOCK_READ;
	} else if ((rule = stalefs_verify_xattr_block(buf, fs->block_size, blk, ino,
						       le32_to_cpu(inode->i_generation))) != 0) {
		p.rule = rule;
		code = header_rule(rule) ? PR_1_XATTR_BLOCK_HEADER : PR_1_XATTR_BLOCK_ENTRIES;
	} else if (block_claimed(ctx, blk)) {
		code = PR_1_XATTR_BLOCK_DUP;
	}
	if (code) {
		if (!fix_problem(ctx, code, &p))
			return true;
		inode->i_xattr_block = 0;
		*dirty = true;
		return false;
	}
	if (stalefs_verify_xattr_block_csum(fs->seed, buf, fs->block_size)) {
		if (fix_problem(ctx, PR_1_XATTR_BLOCK_CSUM, &p))
			write_xblock(ctx, blk, buf);
	}
	claim_blocks(ctx, blk, 1);
	owner_add(ctx, ino, blk);
	*claimed = true;
	return true;
}

/* A name in both regions: the block's copy goes (one rule for every such name). */
static void names_in_both(struct fsck_ctx *ctx, u32 ino, const u8 *area, u64 blk, u8 *buf)
{
	const u8 *ir = stalefs_xattr_ibody_region((void *)area);
	u32 ilen = stalefs_xattr_ibody_len(&ctx->fs->geom) - (u32)sizeof(struct stalefs_xattr_ibody_header);
	u8 *br = stalefs_xattr_block_region(buf);
	u32 blen = stalefs_xattr_block_region_len(ctx->fs->block_size);
	struct stalefs_xattr_ref r;
	struct problem_ctx p;
	char name[64 + STALEFS_XATTR_NAME_MAX];
	u32 off = 0;
	bool changed = false;

	while (stalefs_xattr_entry_at(ir, ilen, off, &r)) {
		int at = stalefs_xattr_find(br, blen, r.index, r.name, r.name_len);

		if (at >= 0) {
			const char *prefix = stalefs_xattr_prefix(r.index);
			size_t n = strlen(prefix);

			memcpy(name, prefix, n);
			memcpy(name + n, r.name, r.name_len);
			memset(&p, 0, sizeof(p));
			p.ino = ino;
			p.blk = blk;
			p.name = name;
			p.name_len = (u32)n + r.name_len;
			if (fix_problem(ctx, PR_1_XATTR_NAME_TWICE, &p)) {
				stalefs_xattr_remove(br, blen, (u32)at);
				changed = true;
			}
		}
		off += stalefs_xattr_entry_len(r.name_len, r.value_size);
	}
	if (changed)
		write_xblock(ctx, blk, buf);
}

/*
 * An in-use inode's attributes; area is its in-inode area as read (the slot
 * past byte 256, NULL when the slots have none).  Returns the blocks they
 * hold for i_blocks (0 or 1).  Free slots are never looked at.
 */
u64 check_xattrs(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode, u8 *area, bool *dirty)
{
	stalefs_fs *fs = ctx->fs;
	u32 alen = area ? stalefs_xattr_ibody_len(&fs->geom) : 0;
	bool has_area = alen && !stalefs_xattr_ibody_empty(area), kept, claimed = false;
	u32 ro = le32_to_cpu(fs->sb.s_feature_ro_compat);
	struct problem_ctx p;
	u8 *buf;
	int rule;

	if (!has_area && !inode->i_xattr_block)
		return 0;
	memset(&p, 0, sizeof(p));
	p.ino = ino;
	if (!(ro & STALEFS_FEATURE_RO_COMPAT_XATTR)) {
		if (fix_problem(ctx, PR_1_XATTR_FEATURE, &p)) {
			fs->sb.s_feature_ro_compat = cpu_to_le32(ro | STALEFS_FEATURE_RO_COMPAT_XATTR);
			stalefs_mark_super_dirty(fs);
		} else if (fix_problem(ctx, PR_1_XATTR_NO_FEATURE_CLEAR, &p)) {
			if (has_area) {
				memset(area, 0, alen);
				xattr_ibody_write(ctx, ino, area);
			}
			if (inode->i_xattr_block) {
				inode->i_xattr_block = 0;
				*dirty = true;
			}
			return 0;
		}
	}
	if (has_area) {
		rule = stalefs_verify_xattr_ibody(area, alen);
		if (rule) {
			p.rule = rule;
			if (fix_problem(ctx, PR_1_XATTR_IBODY_BAD, &p)) {
				memset(area, 0, alen);
				xattr_ibody_write(ctx, ino, area);
				has_area = false;
			}
		} else if (stalefs_verify_xattr_ibody_csum(fs->seed, ino, le32_to_cpu(inode->i_generation),
							   area, alen)) {
			if (fix_problem(ctx, PR_1_XATTR_IBODY_CSUM, &p)) {
				stalefs_xattr_ibody_set_csum(fs->seed, ino, le32_to_cpu(inode->i_generation),
							     area, alen);
				xattr_ibody_write(ctx, ino, area);
			}
		}
	}
	if (!inode->i_xattr_block)
		return 0;
	buf = xalloc(ctx, NULL, fs->block_size);
	kept = check_block(ctx, ino, inode, buf, dirty, &claimed);
	if (claimed && has_area && !stalefs_verify_xattr_ibody(area, alen))
		names_in_both(ctx, ino, area, le64_to_cpu(inode->i_xattr_block), buf);
	free(buf);
	return kept ? 1 : 0;
}
