// SPDX-License-Identifier: GPL-2.0
/*
 * Orphans (FORMAT.md 13), after the journal is replayed and before pass 1,
 * as the kernel's mount finishes them (and e2fsck's release of the orphan
 * list): every inode in use and flagged ORPHAN, in a group whose
 * bg_orphan_count is not zero, is finished by the library -- freed with its
 * blocks when it has no links, else cut to its size and unflagged.  Like a
 * replay this is not a repair: it is reported, and does not count as one in
 * the exit status.  With -n it happens in the in-memory overlay, so the
 * check judges the filesystem as the next mount will leave it.
 *
 * An inode that does not verify is left as it is, as the kernel leaves it;
 * pass 1 then judges it (and its ORPHAN flag), pass 5 the groups' counts.
 */
#include <stdio.h>
#include "fsck.h"

bool orphans_pending(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	u32 g;

	for (g = 0; g < fs->geom.groups_count; g++)
		if (fs->groups[g].desc.bg_orphan_count)
			return true;
	return false;
}

/* In use by pass 1's rule (pass1.c): content decides, the bitmap breaks ties. */
static bool in_use(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode)
{
	bool links = le16_to_cpu(inode->i_links_count) > 0;

	return inode->i_dtime == 0 ? links || stalefs_test_inode(fs, ino) : links && stalefs_test_inode(fs, ino);
}

static void finish_one(struct fsck_ctx *ctx, u32 ino)
{
	struct stalefs_orphan_result r;
	struct problem_ctx p;
	errcode_t err;

	memset(&p, 0, sizeof(p));
	p.ino = ino;
	if ((ctx->options & OPT_READONLY) && !ctx->overlay_noted) {
		fsck_use_overlay(ctx);
		printf("%s: finishing orphans in memory only (-n: the device is not written)\n", ctx->name);
		ctx->overlay_noted = true;
	}
	err = stalefs_orphan_finish(ctx->fs, ino, &r);
	if (err) {
		p.str = error_message(err);
		fix_problem(ctx, PR_0_ORPHAN_FAILED, &p);
		return;
	}
	p.num = r.mode;
	p.num2 = r.size;
	p.blk = r.blocks_freed;
	fix_problem(ctx, r.freed ? PR_0_ORPHAN_CLEAR : PR_0_ORPHAN_TRUNCATE, &p);
}

void finish_orphans(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	const struct stalefs_geom *g = &fs->geom;
	u32 grp, slot;

	/* A journal that could not be replayed: the inodes are not what the kernel left; the
	 * check judges them as they are. */
	if (ctx->recovery_left)
		return;
	for (grp = 0; grp < g->groups_count; grp++) {
		const struct stalefs_group_desc *d = &fs->groups[grp].desc;
		u32 unused = le32_to_cpu(d->bg_itable_unused);
		u32 mark = unused < g->inodes_per_group ? g->inodes_per_group - unused : 0;

		/* As the kernel: only groups that count orphans are looked at. */
		if (!d->bg_orphan_count)
			continue;
		ctx->force_check = true;
		for (slot = 0; slot < mark; slot++) {
			u32 ino = grp * g->inodes_per_group + slot + 1;
			struct stalefs_inode inode;
			struct problem_ctx p;
			int rule;

			if (ino < STALEFS_FIRST_INO)
				continue;
			if (stalefs_read_inode_raw(fs, ino, &inode, &rule))
				break;	/* an unreadable table: pass 1 reports it */
			if (!inode.i_mode || !(le32_to_cpu(inode.i_flags) & STALEFS_INODE_ORPHAN_FL) ||
			    !in_use(fs, ino, &inode))
				continue;
			if (rule) {
				memset(&p, 0, sizeof(p));
				p.ino = ino;
				p.str = stalefs_rule_msg(rule);
				fix_problem(ctx, PR_0_ORPHAN_FAILED, &p);
				continue;
			}
			finish_one(ctx, ino);
		}
		fsck_check_cancel(ctx);
	}
}
