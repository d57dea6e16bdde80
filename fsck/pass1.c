// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 1: every initialised inode slot, read a chunk of the inode table at a
 * time (uncached).  Which slots are in use: a slot with a file type, a zero
 * dtime and either a link or its bitmap bit is in use; one with a dtime is
 * in use only if its bitmap bit says so and it has links (then the dtime is
 * the error).  Everything else is free, and pass 5 fixes the bitmap.  This
 * is e2fsck's rule: content decides, so a bitmap gone bad loses no file.
 *
 * For an inode in use: checksum and every verifier rule, type-specific
 * fields, the extent tree (claiming every block it maps, which finds blocks
 * owned twice), i_blocks, directory sizes and holes, and the stale audit.
 * Tree repairs that need new blocks wait until the maps are swapped.
 */
#include <stdlib.h>
#include <time.h>
#include "fsck.h"

#define CHUNK_BLOCKS 32

struct inode_scan {
	u64 data_blocks, node_blocks, stale_blocks;
	u64 last_pend;		/* physical end of the previous extent */
	u64 max_lend;		/* logical end of the last extent */
	bool fragmented;
	u32 dir_next;		/* directory: next logical block expected */
	u32 dir_end;		/* directory: end of the mapped blocks */
	u32 first_hole;
	bool has_hole, has_unwritten;
	u32 first_unwritten;
	struct dir_info *di;
};

bool fsck_write_inode(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode)
{
	errcode_t err = stalefs_write_inode(ctx->fs, ino, inode);

	if (err) {
		fsck_library_error(ctx, err, "while writing an inode");
		return false;
	}
	return true;
}

/*
 * A cleared slot is all zeros: free, as FORMAT.md section 5 allows.  Its
 * in-inode xattr area goes too, so no later life of the slot finds it.
 */
void clear_inode(struct fsck_ctx *ctx, u32 ino)
{
	struct stalefs_inode zero;
	u8 *ft = inode_ft_ptr(ctx, ino);
	u32 alen = stalefs_xattr_ibody_len(&ctx->fs->geom);

	memset(&zero, 0, sizeof(zero));
	if (!(ctx->options & OPT_READONLY)) {
		errcode_t err = stalefs_write_inode_raw(ctx->fs, ino, &zero);

		if (err)
			fsck_library_error(ctx, err, "while clearing an inode");
		else if (alen)
			xattr_ibody_write(ctx, ino, NULL);
	}
	if (ft)
		*ft = 0;
}

static void extent_cb(struct fsck_ctx *ctx, struct extent_scan *s, const struct stalefs_ext *e)
{
	struct inode_scan *is = s->priv;
	u32 i;

	claim_blocks(ctx, e->pblk, e->len);
	is->data_blocks += e->len;
	if (e->flags & STALEFS_EXT_STALE)
		is->stale_blocks += e->len;
	if (is->last_pend && e->pblk != is->last_pend)
		is->fragmented = true;
	is->last_pend = e->pblk + e->len;
	is->max_lend = (u64)e->lblk + e->len;
	if (!is->di)
		return;
	if (e->lblk > is->dir_next && !is->has_hole) {
		is->has_hole = true;
		is->first_hole = is->dir_next;
	}
	if ((e->flags & STALEFS_EXT_UNWRITTEN) && !is->has_unwritten) {
		is->has_unwritten = true;
		is->first_unwritten = e->lblk;
	}
	is->dir_next = e->lblk + e->len;
	is->dir_end = e->lblk + e->len;
	for (i = 0; i < e->len; i++)
		dblist_add(ctx, s->ino, e->lblk + i, e->pblk + i);
	if (e->lblk == 0)
		is->di->blk0 = e->pblk;
}

static void node_cb(struct fsck_ctx *ctx, struct extent_scan *s, u64 block)
{
	struct inode_scan *is = s->priv;

	claim_blocks(ctx, block, 1);
	is->node_blocks++;
}

/* The verifier rules, each with its own repair; true if the inode survives. */
static bool fix_inode_rules(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode, bool *dirty,
			    bool *size_fix)
{
	struct problem_ctx p;
	int rule, rounds;

	memset(&p, 0, sizeof(p));
	p.ino = ino;
	for (rounds = 0; rounds < 16; rounds++) {
		u32 flags = le32_to_cpu(inode->i_flags);

		rule = stalefs_verify_inode(&ctx->fs->geom, ino, inode);
		if (!rule)
			return true;
		switch (rule) {
		case STALEFS_R_INODE_INO:
			p.num = le32_to_cpu(inode->i_ino);
			if (!fix_problem(ctx, PR_1_INODE_INO, &p))
				return true;
			inode->i_ino = cpu_to_le32(ino);
			break;
		case STALEFS_R_INODE_MODE:
			p.num = le16_to_cpu(inode->i_mode);
			if (fix_problem(ctx, PR_1_BAD_MODE, &p))
				clear_inode(ctx, ino);
			return false;
		case STALEFS_R_INODE_FLAGS:
			p.num = flags & ~STALEFS_INODE_FLAGS_ALL;
			if (!fix_problem(ctx, PR_1_UNKNOWN_FLAGS, &p))
				return true;
			inode->i_flags = cpu_to_le32(flags & STALEFS_INODE_FLAGS_ALL);
			break;
		case STALEFS_R_INODE_INLINE_NOT_SYMLINK:
			if (!fix_problem(ctx, PR_1_INLINE_NOT_SYMLINK, &p))
				return true;
			inode->i_flags = cpu_to_le32(flags & ~STALEFS_INODE_INLINE_FL);
			break;
		case STALEFS_R_INODE_INLINE_SIZE: {
			u64 len = strnlen((const char *)inode->i_block, STALEFS_INLINE_SYMLINK_MAX);

			p.num = le64_to_cpu(inode->i_size);
			p.num2 = len;
			if (!fix_problem(ctx, PR_1_INLINE_SIZE, &p))
				return true;
			if (len == 0) {
				clear_inode(ctx, ino);
				return false;
			}
			inode->i_size = cpu_to_le64(len);
			break;
		}
		case STALEFS_R_INODE_STALE_NOT_REG:
			if (!fix_problem(ctx, PR_1_STALE_FL_NOT_REG, &p))
				return true;
			inode->i_flags = cpu_to_le32(flags & ~STALEFS_INODE_STALE_FL);
			break;
		case STALEFS_R_INODE_DTIME:
			if (!fix_problem(ctx, PR_1_DTIME_IN_USE, &p))
				return true;
			inode->i_dtime = 0;
			break;
		case STALEFS_R_INODE_NSEC:
			if (!fix_problem(ctx, PR_1_NSEC, &p))
				return true;
			if (le32_to_cpu(inode->i_atime_nsec) >= 1000000000u)
				inode->i_atime_nsec = 0;
			if (le32_to_cpu(inode->i_ctime_nsec) >= 1000000000u)
				inode->i_ctime_nsec = 0;
			if (le32_to_cpu(inode->i_mtime_nsec) >= 1000000000u)
				inode->i_mtime_nsec = 0;
			if (le32_to_cpu(inode->i_crtime_nsec) >= 1000000000u)
				inode->i_crtime_nsec = 0;
			break;
		case STALEFS_R_INODE_SIZE:
			p.num = le64_to_cpu(inode->i_size);
			if (!fix_problem(ctx, PR_1_SIZE_TOO_BIG, &p))
				return true;
			/* The extents say how big it is: set once they are read. */
			inode->i_size = 0;
			*size_fix = true;
			break;
		case STALEFS_R_INODE_RESERVED:
			if (!fix_problem(ctx, PR_1_RESERVED_FIELDS, &p))
				return true;
			memset(inode->i_reserved, 0, sizeof(inode->i_reserved));
			break;
		default:
			p.rule = rule;
			if (fix_problem(ctx, PR_1_INODE_GARBAGE, &p))
				clear_inode(ctx, ino);
			return false;
		}
		*dirty = true;
	}
	return true;
}

static bool all_zero(const void *p, size_t len)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

static void check_reserved(struct fsck_ctx *ctx, u32 ino, const struct stalefs_inode *inode)
{
	struct problem_ctx p;

	*inode_ft_ptr(ctx, ino) = FT_RESERVED;
	if (all_zero(inode, sizeof(*inode)))
		return;
	memset(&p, 0, sizeof(p));
	p.ino = ino;
	if (fix_problem(ctx, PR_1_RESERVED_NONZERO, &p)) {
		clear_inode(ctx, ino);
		*inode_ft_ptr(ctx, ino) = FT_RESERVED;
	}
}

/* Devices, fifos, sockets and inline symlinks own no blocks. */
static void check_blockless(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode, u16 type, bool *dirty)
{
	struct problem_ctx p;
	bool special = type != STALEFS_S_IFLNK;

	memset(&p, 0, sizeof(p));
	p.ino = ino;
	if (special && (!all_zero(inode->i_block, sizeof(inode->i_block)) || inode->i_size != 0)) {
		if (fix_problem(ctx, PR_1_SPECIAL_IBLOCK, &p)) {
			memset(inode->i_block, 0, sizeof(inode->i_block));
			inode->i_size = 0;
			*dirty = true;
		}
	}
	if (!special) {
		u64 len = strnlen((const char *)inode->i_block, STALEFS_INLINE_SYMLINK_MAX);

		if (len != le64_to_cpu(inode->i_size)) {
			p.num = le64_to_cpu(inode->i_size);
			p.num2 = len;
			if (fix_problem(ctx, PR_1_INLINE_SIZE, &p)) {
				if (len == 0) {
					clear_inode(ctx, ino);
					return;
				}
				inode->i_size = cpu_to_le64(len);
				*dirty = true;
			}
		}
	}
}

/* i_blocks counts data blocks, tree nodes and the xattr block. */
static void check_i_blocks(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode, u64 want, bool *dirty)
{
	struct problem_ctx p;

	if (le64_to_cpu(inode->i_blocks) == want)
		return;
	memset(&p, 0, sizeof(p));
	p.ino = ino;
	p.num = le64_to_cpu(inode->i_blocks);
	p.num2 = want;
	if (fix_problem(ctx, PR_1_I_BLOCKS, &p)) {
		inode->i_blocks = cpu_to_le64(want);
		*dirty = true;
	}
}

static void check_inode(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode, u8 *area, bool in_bitmap)
{
	stalefs_fs *fs = ctx->fs;
	u16 mode = le16_to_cpu(inode->i_mode), type = mode & STALEFS_S_IFMT;
	bool dirty = false, size_fix = false;
	struct problem_ctx p;
	struct extent_scan s;
	struct inode_scan is;
	u8 fixes = 0;
	bool declined = false;
	u64 xblocks = 0;

	memset(&p, 0, sizeof(p));
	p.ino = ino;
	if (stalefs_verify_inode_csum(fs->seed, ino, inode)) {
		int rule = stalefs_verify_inode(&fs->geom, ino, inode);

		if (rule == STALEFS_R_INODE_INO || rule == STALEFS_R_INODE_MODE) {
			/* Not this inode's bytes, or not an inode at all. */
			p.rule = rule;
			if (fix_problem(ctx, PR_1_INODE_GARBAGE, &p))
				clear_inode(ctx, ino);
			return;
		}
		if (rule == 0) {
			if (fix_problem(ctx, PR_1_INODE_CSUM, &p))
				dirty = true;
		} else {
			dirty = true;	/* rewritten with a checksum once its rules are fixed */
		}
	}
	if (!fix_inode_rules(ctx, ino, inode, &dirty, &size_fix))
		return;
	mode = le16_to_cpu(inode->i_mode);
	type = mode & STALEFS_S_IFMT;
	if (ino == STALEFS_ROOT_INO && type != STALEFS_S_IFDIR) {
		p.num = mode;
		if (fix_problem(ctx, PR_1_ROOT_NOT_DIR, &p)) {
			clear_inode(ctx, ino);
			return;
		}
	}
	if (type != STALEFS_S_IFCHR && type != STALEFS_S_IFBLK && inode->i_rdev != 0) {
		p.num = le32_to_cpu(inode->i_rdev);
		if (fix_problem(ctx, PR_1_RDEV, &p)) {
			inode->i_rdev = 0;
			dirty = true;
		}
	}
	/* Orphans were finished before pass 1: a flag left is one nobody will act on. */
	if (le32_to_cpu(inode->i_flags) & STALEFS_INODE_ORPHAN_FL) {
		if (fix_problem(ctx, PR_1_ORPHAN_FLAG, &p)) {
			inode->i_flags = cpu_to_le32(le32_to_cpu(inode->i_flags) & ~STALEFS_INODE_ORPHAN_FL);
			dirty = true;
		}
	}
	(void)in_bitmap;
	*inode_ft_ptr(ctx, ino) = stalefs_mode_to_ft(mode);
	*inode_links_ptr(ctx, ino) = le16_to_cpu(inode->i_links_count);
	memset(&is, 0, sizeof(is));
	if (type == STALEFS_S_IFDIR) {
		is.di = dir_add(ctx, ino);
		if (ino == STALEFS_ROOT_INO)
			is.di->parent = STALEFS_ROOT_INO;
		ctx->files_dir++;
	} else if (type == STALEFS_S_IFREG) {
		ctx->files_reg++;
	} else if (type == STALEFS_S_IFLNK) {
		ctx->files_lnk++;
	} else {
		ctx->files_other++;
	}
	if (!stalefs_inode_has_extents(inode)) {
		check_blockless(ctx, ino, inode, type, &dirty);
		if (inode_ft(ctx, ino) == 0)
			return;
		xblocks = check_xattrs(ctx, ino, inode, area, &dirty);
		check_i_blocks(ctx, ino, inode, xblocks, &dirty);
		goto stale;
	}
	if (type == STALEFS_S_IFLNK) {
		u64 size = le64_to_cpu(inode->i_size);

		/* Decided before its blocks are claimed: a cleared symlink owns nothing. */
		if (size == 0 || size >= fs->block_size || stalefs_inode_eh(inode)->eh_entries == 0) {
			p.num = size;
			if (fix_problem(ctx, PR_1_SYMLINK_SIZE, &p)) {
				clear_inode(ctx, ino);
				return;
			}
		}
	}
	memset(&s, 0, sizeof(s));
	s.ino = ino;
	s.inode = inode;
	s.report = true;
	s.extent = extent_cb;
	s.node = node_cb;
	s.priv = &is;
	scan_extents(ctx, &s);
	if (s.clear_inode) {
		clear_inode(ctx, ino);
		if (is.di)
			is.di->ino = 0, dblist_drop(ctx, ino);
		return;
	}
	fixes = s.fixes;
	declined = s.declined;
	if (is.fragmented)
		ctx->fs_fragmented++;
	if (s.root_bad)
		goto stale;	/* declined: leave the inode as it is, owning nothing */
	if (size_fix)
		inode->i_size = cpu_to_le64(is.max_lend << fs->geom.log_block_size);
	if (type == STALEFS_S_IFLNK && is.data_blocks == 0 && is.node_blocks == 0) {
		/* Its target block was dropped: nothing is left to point anywhere. */
		p.num = le64_to_cpu(inode->i_size);
		if (fix_problem(ctx, PR_1_SYMLINK_SIZE, &p)) {
			clear_inode(ctx, ino);
			return;
		}
	}
	/* After the extents: a block they map is not also taken as the xattr block. */
	xblocks = check_xattrs(ctx, ino, inode, area, &dirty);
	if (is.di) {
		u32 n = is.dir_end ? is.dir_end : 1;
		u64 want = (u64)n << fs->geom.log_block_size;

		if (!is.dir_end && !is.has_hole) {
			is.has_hole = true;
			is.first_hole = 0;
		}
		if (is.has_hole) {
			p.lblk = is.first_hole;
			if (fix_problem(ctx, PR_1_DIR_HOLE, &p))
				fixes |= FIX_DIR_HOLES;
			else
				declined = true;
		}
		if (is.has_unwritten) {
			p.lblk = is.first_unwritten;
			if (fix_problem(ctx, PR_1_DIR_UNWRITTEN, &p))
				fixes |= FIX_DIR_HOLES;
			else
				declined = true;
		}
		/* Renumbering the blocks (the rebuild) sets the size itself. */
		if (!((fixes & FIX_DIR_HOLES) && !declined) && le64_to_cpu(inode->i_size) != want) {
			p.num = le64_to_cpu(inode->i_size);
			p.num2 = want;
			if (fix_problem(ctx, PR_1_DIR_SIZE, &p)) {
				inode->i_size = cpu_to_le64(want);
				dirty = true;
			}
		}
	}
	/* A pending rebuild sets i_blocks itself (stalefs_extent_write). */
	if (!(fixes && !declined))
		check_i_blocks(ctx, ino, inode, is.data_blocks + is.node_blocks + xblocks, &dirty);
stale:
	if (le32_to_cpu(inode->i_flags) & STALEFS_INODE_ORPHAN_FL)
		ctx->groups[stalefs_ino_group(&fs->geom, ino)].orphans++;
	stale_check_inode(ctx, ino, inode, is.stale_blocks, fixes && !declined, &dirty, &fixes);
	if (fixes && !declined)
		rebuild_add(ctx, ino, fixes);
	if (dirty && !(ctx->options & OPT_READONLY))
		fsck_write_inode(ctx, ino, inode);
}

static void scan_group(struct fsck_ctx *ctx, u32 group, u8 *chunk)
{
	stalefs_fs *fs = ctx->fs;
	const struct stalefs_geom *g = &fs->geom;
	struct stalefs_group_desc *d = &fs->groups[group].desc;
	u32 alen = stalefs_xattr_ibody_len(g);
	u8 area[STALEFS_INODE_SIZE_MAX];
	u32 ipg = g->inodes_per_group, unused = le32_to_cpu(d->bg_itable_unused);
	u32 mark = unused > ipg ? 0 : ipg - unused, ipb = g->inodes_per_block;
	u32 nblocks = (mark + ipb - 1) / ipb, b;
	u64 table = le64_to_cpu(d->bg_inode_table);

	ctx->groups[group].mark = mark;
	if (group == 0) {
		u32 ino;

		/* Reserved inodes are in use even where their slots were not scanned. */
		group_ensure_inodes(ctx, group);
		for (ino = 1; ino < STALEFS_FIRST_INO && ino <= ipg; ino++)
			if (ino != STALEFS_ROOT_INO)
				ctx->groups[0].ft[ino - 1] = FT_RESERVED;
	}
	if (mark == 0)
		return;
	group_ensure_inodes(ctx, group);
	for (b = 0; b < nblocks; b += CHUNK_BLOCKS) {
		u32 n = nblocks - b < CHUNK_BLOCKS ? nblocks - b : CHUNK_BLOCKS, slot;
		errcode_t err;

		fsck_check_cancel(ctx);
		err = stalefs_io_read(fs->io, table + b, n, chunk);
		if (err) {
			/* Nothing of this group can be checked; what names its inodes is judged without them. */
			com_err(ctx->program, err, "while reading the inode table of group %u", group);
			ctx->uncorrected = true;
			return;
		}
		for (slot = 0; slot < n * ipb; slot++) {
			u32 idx = b * ipb + slot, ino = group * ipg + idx + 1;
			struct stalefs_inode inode;
			u16 mode, links;
			u64 dtime;
			bool in_bitmap, in_use;

			if (idx >= mark)
				break;
			memcpy(&inode, chunk + (size_t)slot * g->inode_size, sizeof(inode));
			if (alen)
				memcpy(area, chunk + (size_t)slot * g->inode_size + sizeof(inode), alen);
			if (ino < STALEFS_FIRST_INO && ino != STALEFS_ROOT_INO) {
				check_reserved(ctx, ino, &inode);
				continue;
			}
			mode = le16_to_cpu(inode.i_mode);
			if (mode == 0)
				continue;
			links = le16_to_cpu(inode.i_links_count);
			dtime = le64_to_cpu(inode.i_dtime);
			in_bitmap = stalefs_test_inode(fs, ino);
			in_use = dtime == 0 ? (links > 0 || in_bitmap) : (links > 0 && in_bitmap);
			if (!in_use)
				continue;
			check_inode(ctx, ino, &inode, alen ? area : NULL, in_bitmap);
		}
	}
}

void pass1(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	u32 g;
	u8 *chunk = malloc((size_t)CHUNK_BLOCKS * fs->block_size);

	if (!chunk)
		fsck_fatal(ctx, STALEFS_ERR_NO_MEMORY, "while allocating the inode table buffer");
	pass_header(ctx, PR_1_PASS_HEADER);
	/* The journal owns its blocks (FORMAT.md 12): claimed first, so a file mapping one of
	 * them shows up as a multiply-claimed block (pass 1B gives the file copies).  A journal
	 * journal.c found misplaced, and did not clear, claims nothing. */
	if (ctx->journal_ok)
		claim_blocks(ctx, ctx->journal_start, ctx->journal_len);
	for (g = 0; g < fs->geom.groups_count; g++) {
		scan_group(ctx, g, chunk);
		progress_update(ctx, 1, g + 1, fs->geom.groups_count);
	}
	free(chunk);
	/* Directories cleared in pass 1 leave holes (ino 0) in the list: squeeze them out. */
	{
		u32 i, j = 0;

		for (i = 0; i < ctx->ndirs; i++)
			if (ctx->dirs[i].ino)
				ctx->dirs[j++] = ctx->dirs[i];
		ctx->ndirs = j;
	}
}
