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
#include "lib_internal.h"
#include "libstalefs.h"

static int count_stale_cb(stalefs_fs *fs, const struct stalefs_extent_walk *w, void *priv)
{
	(void)fs;
	if (!w->rule && !w->is_index && (w->e.flags & STALEFS_EXT_STALE))
		*(u64 *)priv += w->e.len;
	return 0;
}

static int census_inode(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode, int rule,
			bool in_use, void *priv)
{
	struct stalefs_stale_census *c = priv;
	bool flagged;
	u64 n = 0;

	(void)rule;
	if (!inode) {
		c->unreadable++;	/* an inode table block we cannot read may hold anything */
		return 0;
	}
	if (!in_use)
		return 0;
	flagged = le32_to_cpu(inode->i_flags) & STALEFS_INODE_STALE_FL;
	if (stalefs_inode_has_extents(inode) &&
	    stalefs_extent_walk(fs, ino, inode, count_stale_cb, &n) && !flagged)
		c->unreadable++;	/* a damaged tree may hide STALE extents */
	if (n || flagged) {
		c->files++;
		c->blocks += n;
	}
	return 0;
}

/*
 * The inodes themselves are read, not the groups' bg_stale_count: the counts
 * may be what is wrong (fsck's S6), and a refusal must not rest on them.
 */
errcode_t stalefs_stale_census(stalefs_fs *fs, struct stalefs_stale_census *c)
{
	memset(c, 0, sizeof(*c));
	stalefs_inode_scan(fs, census_inode, c);
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

	if (!stalefs_fs_rw(fs))
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

bool stalefs_stale_confined(const stalefs_fs *fs, const struct stalefs_inode *inode)
{
	u32 gid = le32_to_cpu(fs->sb.s_stale_gid);

	return gid != STALEFS_STALE_GID_NONE && le32_to_cpu(inode->i_gid) == gid &&
	       !(le16_to_cpu(inode->i_mode) & STALEFS_S_IRWXO);
}

bool stalefs_stale_attr_allowed(const stalefs_fs *fs, const struct stalefs_inode *inode, const u32 *uid,
				const u32 *gid, const u16 *mode)
{
	u32 permitted = le32_to_cpu(fs->sb.s_stale_gid);

	if (!(le32_to_cpu(inode->i_flags) & STALEFS_INODE_STALE_FL))
		return true;
	/* A new owner could read it from outside the group. */
	if (uid && *uid != le32_to_cpu(inode->i_uid))
		return false;
	/* Keeping the gid changes nothing; any other must be the permitted one. */
	if (gid && *gid != le32_to_cpu(inode->i_gid) && (permitted == STALEFS_STALE_GID_NONE || *gid != permitted))
		return false;
	/* No bit for others: reading is the leak, writing and executing plant a reader. */
	return !(mode && (*mode & STALEFS_S_IRWXO));
}
