// SPDX-License-Identifier: GPL-2.0
/*
 * The stale audit: FORMAT.md section 11, S1-S5.
 *
 * S1 (both STALE and UNWRITTEN), S2 (STALE outside a regular file) and S3
 * (STALE with no permitted group recorded) are judged per extent by the
 * scanner in extents.c.  Their repairs never expose anything: S1 and S3 make
 * the extent UNWRITTEN (its blocks read as zeros); S2 makes a symlink's
 * extent UNWRITTEN and a directory's written, since a directory block is the
 * directory's own checksummed entries and pass 2 checks them.  S3 hides
 * rather than "records" a group: guessing a permitted group from the file
 * would authorise an exposure nobody asked for.
 *
 * S4 and S5 are judged here, per inode, on the extents as they will be once
 * the accepted repairs are made.  An escape (group not the permitted one, or
 * readable by others) is repaired by re-confining the inode, which loses
 * nothing; with -E hide_stale its STALE extents become UNWRITTEN instead.
 *
 * S6 (each group counts its inodes holding STALE extents) is what keeps the
 * audit cheap on a run that skips the full check: only groups that count any
 * are read, and their flagged inodes judged (stale_quick_audit).
 */
#include <stdio.h>
#include "fsck.h"

void stale_check_inode(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode,
		       u64 stale_blocks, bool rebuild_pending, bool *dirty, u8 *fixes)
{
	u16 mode = le16_to_cpu(inode->i_mode);
	bool reg = (mode & STALEFS_S_IFMT) == STALEFS_S_IFREG;
	u32 flags = le32_to_cpu(inode->i_flags);
	bool has = stale_blocks > 0;
	struct problem_ctx p;

	memset(&p, 0, sizeof(p));
	p.ino = ino;
	if (has && reg && ctx->stale_gid != STALEFS_STALE_GID_NONE) {
		u32 gid = le32_to_cpu(inode->i_gid);
		bool bad_gid = gid != ctx->stale_gid, others = mode & STALEFS_S_IRWXO;
		bool escaped = false;

		p.num = stale_blocks;
		p.num2 = gid;
		p.ino2 = ctx->stale_gid;
		if ((bad_gid || others) && (ctx->options & OPT_HIDE_STALE)) {
			p.str = others ? ", with permissions for others" : "";
			if (fix_problem(ctx, PR_1_S4_HIDE, &p)) {
				*fixes |= FIX_HIDE;
				has = false;
				rebuild_pending = true;
			} else {
				escaped = true;
			}
		} else {
			if (bad_gid) {
				if (fix_problem(ctx, PR_1_S4_GID, &p)) {
					inode->i_gid = cpu_to_le32(ctx->stale_gid);
					*dirty = true;
				} else {
					escaped = true;
				}
			}
			if (others) {
				struct problem_ctx q = p;

				q.num = mode;
				q.num2 = 0;
				/* The message shows the mode; the count is in the S4 gid line if any. */
				if (fix_problem(ctx, PR_1_S4_OTHERS, &q)) {
					inode->i_mode = cpu_to_le16(mode & ~STALEFS_S_IRWXO);
					*dirty = true;
				} else {
					escaped = true;
				}
			}
		}
		if (escaped)
			ctx->stale_escaped++;
	}
	/* S5: a rebuilt tree sets the flag from its extents; otherwise fix it here. */
	if (!rebuild_pending && reg && has && !(flags & STALEFS_INODE_STALE_FL)) {
		if (fix_problem(ctx, PR_1_S5_FLAG_SET, &p)) {
			inode->i_flags = cpu_to_le32(flags | STALEFS_INODE_STALE_FL);
			*dirty = true;
		}
	} else if (!rebuild_pending && !has && (flags & STALEFS_INODE_STALE_FL)) {
		if (fix_problem(ctx, PR_1_S5_FLAG_CLEAR, &p)) {
			inode->i_flags = cpu_to_le32(flags & ~STALEFS_INODE_STALE_FL);
			*dirty = true;
		}
	}
	if (has && reg)
		ctx->groups[stalefs_ino_group(&ctx->fs->geom, ino)].stale++;
	if (has) {
		ctx->stale_files++;
		ctx->stale_blocks += stale_blocks;
	}
}

static const char *plural(u64 n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void stale_summary(struct fsck_ctx *ctx)
{
	if (ctx->stale_files == 0) {
		printf("%s: stale audit: no stale-exposed files\n", ctx->name);
		return;
	}
	printf("%s: stale audit: %llu %s, %llu %s stale-exposed to ", ctx->name,
	       (unsigned long long)ctx->stale_files, plural(ctx->stale_files, "file", "files"),
	       (unsigned long long)ctx->stale_blocks, plural(ctx->stale_blocks, "block", "blocks"));
	if (ctx->stale_gid == STALEFS_STALE_GID_NONE)
		printf("no recorded group");
	else
		printf("group %u", ctx->stale_gid);
	if (ctx->stale_escaped)
		printf("; %llu %s NOT confined to it", (unsigned long long)ctx->stale_escaped,
		       plural(ctx->stale_escaped, "file", "files"));
	putchar('\n');
}

/* The STALE blocks of one inode, from its verified tree; false if the tree does not read. */
static bool count_stale_blocks(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode, u64 *blocks)
{
	struct stalefs_extent_list l;
	u32 i;

	*blocks = 0;
	if (stalefs_extent_read(fs, ino, inode, &l))
		return false;
	for (i = 0; i < l.count; i++)
		if (l.ext[i].flags & STALEFS_EXT_STALE)
			*blocks += l.ext[i].len;
	stalefs_extent_list_free(&l);
	return true;
}

/*
 * A filesystem marked clean is not checked in full, but its stale exposure is audited on
 * every run (FORMAT.md 11): the groups whose (checksummed) descriptors count STALE inodes
 * have their initialised inode slots read, and every inode in use flagged STALE must be a
 * confined regular file whose tree reads.  Anything else, or a count that does not match,
 * forces the full check, which judges every extent.  A group counting none is trusted: the
 * kernel and the library keep the count with the flag (S6), and the read path refuses an
 * unconfined file whatever the count says.
 */
bool stale_quick_audit(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	const struct stalefs_geom *g = &fs->geom;
	const char *why = NULL;
	u32 grp, slot;

	for (grp = 0; grp < g->groups_count; grp++) {
		const struct stalefs_group_desc *d = &fs->groups[grp].desc;
		u32 counted = le32_to_cpu(d->bg_stale_count), found = 0;
		u32 unused = le32_to_cpu(d->bg_itable_unused);
		u32 mark = unused < g->inodes_per_group ? g->inodes_per_group - unused : 0;

		if (!counted)
			continue;
		if (ctx->stale_gid == STALEFS_STALE_GID_NONE) {
			why = "files hold STALE extents but no permitted group is recorded";
			break;
		}
		for (slot = 0; slot < mark && !why; slot++) {
			u32 ino = grp * g->inodes_per_group + slot + 1;
			struct stalefs_inode inode;
			u16 mode;
			u64 blocks;
			int rule;

			if (ino < STALEFS_FIRST_INO)
				continue;
			if (stalefs_read_inode_raw(fs, ino, &inode, &rule)) {
				why = "an inode table holding STALE files does not read";
				break;
			}
			mode = le16_to_cpu(inode.i_mode);
			if (!mode || !inode.i_links_count || !(le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL))
				continue;
			found++;
			if (rule)
				why = "an inode holding STALE extents is damaged";
			else if ((mode & STALEFS_S_IFMT) != STALEFS_S_IFREG)
				why = "STALE extents outside a regular file";
			else if (le32_to_cpu(inode.i_gid) != ctx->stale_gid || (mode & STALEFS_S_IRWXO))
				why = "a file holding STALE extents is not confined";
			else if (!count_stale_blocks(fs, ino, &inode, &blocks))
				why = "the extent tree of a file holding STALE extents does not read";
			else if (!blocks)
				why = "a file is flagged STALE but holds no STALE extent";
			else {
				ctx->stale_files++;
				ctx->stale_blocks += blocks;
			}
		}
		if (!why && found != counted)
			why = "a group's count of files holding STALE extents is wrong";
		if (why)
			break;
		fsck_check_cancel(ctx);
	}
	if (!why)
		return true;
	printf("%s: stale audit: %s (group %u), check forced.\n", ctx->name, why, grp);
	ctx->stale_files = ctx->stale_blocks = 0;
	ctx->stale_forced = true;
	return false;
}
