// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 4: each inode in use against the references found (entries, '.',
 * '..').  An inode nothing names goes to /lost+found; a wrong count is set
 * to what was found.
 */
#include "fsck.h"

static void set_links(struct fsck_ctx *ctx, u32 ino, u16 links)
{
	struct stalefs_inode inode;
	int rule;
	errcode_t err = stalefs_read_inode_raw(ctx->fs, ino, &inode, &rule);

	if (err) {
		fsck_library_error(ctx, err, "while reading an inode");
		return;
	}
	inode.i_links_count = cpu_to_le16(links);
	fsck_write_inode(ctx, ino, &inode);
	*inode_links_ptr(ctx, ino) = links;
}

void pass4(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	u32 g, i, ipg = fs->geom.inodes_per_group;
	struct problem_ctx p;

	pass_header(ctx, PR_4_PASS_HEADER);
	for (g = 0; g < fs->geom.groups_count; g++) {
		struct group_info *gi = &ctx->groups[g];

		fsck_check_cancel(ctx);
		if (!gi->ft)
			continue;
		for (i = 0; i < ipg; i++) {
			u32 ino = g * ipg + i + 1;
			u8 ft = gi->ft[i];

			if (ft == 0 || ft == FT_RESERVED)
				continue;
			memset(&p, 0, sizeof(p));
			p.ino = ino;
			if (gi->counted[i] == 0 && ino != STALEFS_ROOT_INO && ft != STALEFS_FT_DIR) {
				struct stalefs_inode inode;
				bool changed = ctx->changed;	/* before the question */
				int rule;

				if (stalefs_read_inode_raw(fs, ino, &inode, &rule) == 0)
					p.num = le16_to_cpu(inode.i_mode);
				if (!fix_problem(ctx, PR_4_UNATTACHED, &p) || !reconnect_file(ctx, ino, changed))
					continue;
			}
			/* the lost+found link may have grown the arrays of another group, not this one */
			gi = &ctx->groups[g];
			if (gi->counted[i] != gi->links[i]) {
				p.num = gi->links[i];
				p.num2 = gi->counted[i];
				if (fix_problem(ctx, PR_4_BAD_REF_COUNT, &p))
					set_links(ctx, ino, gi->counted[i]);
			}
		}
		progress_update(ctx, 4, g + 1, fs->geom.groups_count);
	}
}
