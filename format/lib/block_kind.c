// SPDX-License-Identifier: GPL-2.0
/*
 * What a filesystem block is: group metadata and the journal by where they
 * lie (the layout and the descriptors), the rest by what their content says
 * of itself -- extent tree nodes, directory blocks and xattr blocks carry a
 * magic number and their own block number (FORMAT.md 7), so a copy of one
 * (in the journal, in unallocated space) still says what it was and whose.
 */
#include "libstalefs.h"

static const char *const kind_names[STALEFS_BK_MAX] = {
	[STALEFS_BK_DATA] = "data",
	[STALEFS_BK_BOOT] = "boot area",
	[STALEFS_BK_SUPER] = "superblock",
	[STALEFS_BK_GDT] = "group descriptor table",
	[STALEFS_BK_BLOCK_BITMAP] = "block bitmap",
	[STALEFS_BK_INODE_BITMAP] = "inode bitmap",
	[STALEFS_BK_INODE_TABLE] = "inode table",
	[STALEFS_BK_JOURNAL_SUPER] = "journal superblock",
	[STALEFS_BK_JOURNAL] = "journal",
	[STALEFS_BK_EXTENT] = "extent tree node",
	[STALEFS_BK_DIR] = "directory block",
	[STALEFS_BK_XATTR] = "xattr block",
	[STALEFS_BK_OUTSIDE] = "outside the filesystem",
};

const char *stalefs_block_kind_name(int kind)
{
	return kind >= 0 && kind < STALEFS_BK_MAX && kind_names[kind] ? kind_names[kind] : "unknown";
}

/* The group's bitmaps and inode table, from its descriptor. */
static int group_meta(const stalefs_fs *fs, u32 grp, u64 block)
{
	const struct stalefs_geom *g = &fs->geom;
	const struct stalefs_group_desc *d = &fs->groups[grp].desc;
	u64 bb = le64_to_cpu(d->bg_block_bitmap), ib = le64_to_cpu(d->bg_inode_bitmap);
	u64 it = le64_to_cpu(d->bg_inode_table);

	if (block >= bb && block - bb < g->block_bitmap_blocks)
		return STALEFS_BK_BLOCK_BITMAP;
	if (block >= ib && block - ib < g->inode_bitmap_blocks)
		return STALEFS_BK_INODE_BITMAP;
	if (block >= it && block - it < g->inode_table_blocks)
		return STALEFS_BK_INODE_TABLE;
	return STALEFS_BK_DATA;
}

int stalefs_block_layout_kind(const stalefs_fs *fs, u64 block, u32 *group)
{
	const struct stalefs_geom *g = &fs->geom;
	u32 grp, own = 0, gdt_grp, gdt_index;
	int kind;

	if (group)
		*group = 0;
	if (block >= g->blocks_count)
		return STALEFS_BK_OUTSIDE;
	own = grp = stalefs_block_group(g, block);
	if (group)
		*group = grp;
	if (stalefs_group_has_super(g, grp)) {
		u64 sb = grp == 0 ? g->sb_block : stalefs_group_first_block(g, grp);

		if (block <= sb)
			return grp == 0 && block < g->sb_block ? STALEFS_BK_BOOT : STALEFS_BK_SUPER;
	}
	/* The table's blocks where they lie: after a superblock copy, and META_BG's (FORMAT.md 4). */
	if (stalefs_block_is_gdt(g, block, &gdt_grp, &gdt_index))
		return STALEFS_BK_GDT;
	if (le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) {
		u64 js = le64_to_cpu(fs->sb.s_journal_block);

		if (block >= js && block - js < le32_to_cpu(fs->sb.s_journal_blocks))
			return block == js ? STALEFS_BK_JOURNAL_SUPER : STALEFS_BK_JOURNAL;
	}
	/* A group's metadata is normally inside it: look there first, then everywhere. */
	kind = group_meta(fs, own, block);
	if (kind != STALEFS_BK_DATA)
		return kind;
	for (grp = 0; grp < g->groups_count; grp++) {
		if (grp == own)
			continue;
		kind = group_meta(fs, grp, block);
		if (kind != STALEFS_BK_DATA) {
			if (group)
				*group = grp;
			return kind;
		}
	}
	return STALEFS_BK_DATA;
}

int stalefs_block_content_kind(const stalefs_fs *fs, u64 block, const void *content, u32 *owner)
{
	const u8 *p = content;
	u32 magic = le32_to_cpu(*(const __le32 *)p);

	if (owner)
		*owner = 0;
	if (magic == STALEFS_EXTBLK_MAGIC) {
		const struct stalefs_extent_block *eb = content;

		if (le64_to_cpu(eb->eb_blocknr) == block) {
			if (owner)
				*owner = le32_to_cpu(eb->eb_owner);
			return STALEFS_BK_EXTENT;
		}
	} else if (magic == STALEFS_DIRBLK_MAGIC) {
		const struct stalefs_dir_block *db = content;

		if (le64_to_cpu(db->db_blocknr) == block) {
			if (owner)
				*owner = le32_to_cpu(db->db_owner);
			return STALEFS_BK_DIR;
		}
	} else if (magic == STALEFS_XATTR_MAGIC) {
		const struct stalefs_xattr_block *xb = content;

		if (le64_to_cpu(xb->xb_blocknr) == block) {
			if (owner)
				*owner = le32_to_cpu(xb->xb_owner);
			return STALEFS_BK_XATTR;
		}
	}
	(void)fs;
	return STALEFS_BK_DATA;
}

int stalefs_block_classify(const stalefs_fs *fs, u64 block, const void *content, u32 *group, u32 *owner)
{
	int kind = stalefs_block_layout_kind(fs, block, group);

	if (owner)
		*owner = 0;
	if (kind == STALEFS_BK_DATA && content)
		kind = stalefs_block_content_kind(fs, block, content, owner);
	return kind;
}
