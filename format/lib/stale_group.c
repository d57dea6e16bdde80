// SPDX-License-Identifier: GPL-2.0
/*
 * The permitted group for stale allocation (FORMAT.md 10, docs/nohide-stale.md):
 * recording one and forgetting it, offline.  debugfs' stale_group and tunefs -G
 * both come here, so the rule is kept in one place: s_stale_gid and the
 * nohide_stale feature change together, and neither a different group nor
 * forgetting is allowed while an inode holds STALE extents, since their
 * confinement would silently move to a group nobody chose for them.
 */
#include <string.h>
#include "libstalefs.h"

static int count_stale_cb(stalefs_fs *fs, const struct stalefs_extent_walk *w, void *priv)
{
	(void)fs;
	if (!w->rule && !w->is_index && (w->e.flags & STALEFS_EXT_STALE))
		*(u64 *)priv += w->e.len;
	return 0;
}

/*
 * The inodes themselves are read, not the groups' bg_stale_count: the counts
 * may be what is wrong (fsck's S6), and a refusal must not rest on them.
 */
errcode_t stalefs_stale_census(stalefs_fs *fs, struct stalefs_stale_census *c)
{
	const struct stalefs_geom *g = &fs->geom;
	u32 grp, slot;

	memset(c, 0, sizeof(*c));
	for (grp = 0; grp < g->groups_count; grp++) {
		const struct stalefs_group_desc *d = &fs->groups[grp].desc;
		u32 unused = le32_to_cpu(d->bg_itable_unused);
		u32 init = unused < g->inodes_per_group ? g->inodes_per_group - unused : 0;

		if (le16_to_cpu(d->bg_flags) & STALEFS_BG_INODE_UNINIT)
			init = 0;
		for (slot = 0; slot < init; slot++) {
			struct stalefs_inode inode;
			u32 ino = grp * g->inodes_per_group + slot + 1;
			bool in_use, flagged;
			u64 n = 0;
			int rule;

			if (stalefs_read_inode_raw(fs, ino, &inode, &rule)) {
				c->unreadable++;	/* an inode table block we cannot read may hold anything */
				continue;
			}
			if (fs->bitmaps_loaded)
				in_use = stalefs_test_inode(fs, ino);
			else
				in_use = inode.i_mode && inode.i_links_count && !inode.i_dtime;
			if (!in_use)
				continue;
			flagged = le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL;
			if (stalefs_inode_has_extents(&inode) &&
			    stalefs_extent_walk(fs, ino, &inode, count_stale_cb, &n) && !flagged)
				c->unreadable++;	/* a damaged tree may hide STALE extents */
			if (!n && !flagged)
				continue;
			c->files++;
			c->blocks += n;
		}
	}
	return 0;
}

/* Whether the recorded group may change to gid (NONE: be forgotten) now. */
static errcode_t may_change(stalefs_fs *fs, u32 gid, struct stalefs_stale_census *c)
{
	u32 sg = le32_to_cpu(fs->sb.s_stale_gid);
	errcode_t err = stalefs_stale_census(fs, c);

	if (err)
		return err;
	if (gid == sg && gid != STALEFS_STALE_GID_NONE)
		return 0;	/* the same group again: nothing moves */
	if (c->files)
		return STALEFS_ERR_STALE_EXTENTS;
	if (c->unreadable)
		return STALEFS_ERR_STALE_UNKNOWN;
	return 0;
}


errcode_t stalefs_stale_group_set(stalefs_fs *fs, u32 gid, struct stalefs_stale_census *c)
{
	struct stalefs_super_block *sb = &fs->sb;
	errcode_t err;

	if (!(fs->flags & STALEFS_OPEN_RW))
		return STALEFS_ERR_RO_FILSYS;
	err = may_change(fs, gid, c);
	if (err)
		return err;
	if (gid == STALEFS_STALE_GID_NONE) {
		sb->s_feature_ro_compat &= cpu_to_le32(~STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE);
	} else {
		sb->s_feature_ro_compat |= cpu_to_le32(STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE);
	}
	sb->s_stale_gid = cpu_to_le32(gid);
	stalefs_mark_super_dirty(fs);
	/* Every copy: fsck -b on a backup must not bring back a group that was forgotten. */
	fs->write_backups = true;
	return 0;
}
