// SPDX-License-Identifier: GPL-2.0
/*
 * What a resize makes, computed once for the kernel's online grow and
 * resize.stalefs: the geometry at the new size (when the descriptor table
 * stops growing and META_BG takes over, FORMAT.md 4), a new group's
 * descriptor, and the superblock's size fields.
 */
#include "stalefs_core.h"

int stalefs_resize_geometry(const struct stalefs_geom *old, u64 want, struct stalefs_geom *ng)
{
	int tries, rule = STALEFS_R_SB_BLOCKS_COUNT;

	for (tries = 0; tries < 2; tries++) {
		u64 groups = (want + old->blocks_per_group - 1) >> old->log_blocks_per_group;
		u64 need = (groups + old->desc_per_block - 1) / old->desc_per_block;
		bool meta = need > old->first_meta_bg;

		/* The table keeps the blocks it has; past them, meta groups (META_BG). */
		rule = stalefs_geom_resize(ng, old, want, meta, meta ? old->first_meta_bg : 0);
		if (rule != STALEFS_R_SB_BLOCKS_COUNT || groups < 2)
			return rule;
		/* A last group that cannot hold its own metadata is left off, as mkfs does. */
		want = (groups - 1) << old->log_blocks_per_group;
	}
	return rule;
}

void stalefs_desc_init_new(const struct stalefs_geom *g, u32 group, bool lazy_itable, u32 seed,
			   struct stalefs_group_desc *d)
{
	u64 bb, ib, it;

	stalefs_group_default_layout(g, group, &bb, &ib, &it);
	memset(d, 0, sizeof(*d));
	d->bg_block_bitmap = cpu_to_le64(bb);
	d->bg_inode_bitmap = cpu_to_le64(ib);
	d->bg_inode_table = cpu_to_le64(it);
	d->bg_free_blocks_count = cpu_to_le32(stalefs_group_nblocks(g, group) -
					      stalefs_group_meta_blocks(g, group));
	d->bg_free_inodes_count = cpu_to_le32(g->inodes_per_group);
	/* Without lazy_itable the table must be zeroed first: nothing is left unused. */
	d->bg_itable_unused = cpu_to_le32(lazy_itable ? g->inodes_per_group : 0);
	d->bg_flags = cpu_to_le16(STALEFS_BG_BLOCK_UNINIT | STALEFS_BG_INODE_UNINIT);
	stalefs_desc_set_csum(seed, group, d);
}

/* r * num / den for r <= den < 2^48 without overflowing 64 bits (to a ten-thousandth). */
static u64 scale(u64 r, u64 num, u64 den)
{
	u64 bp = den ? (r * 10000 + den / 2) / den : 0;

	return num / 10000 * bp + num % 10000 * bp / 10000;
}

void stalefs_super_resize(struct stalefs_super_block *sb, const struct stalefs_geom *ng,
			  u64 free_blocks, u32 free_inodes)
{
	u64 old_blocks = le64_to_cpu(sb->s_blocks_count);
	u32 incompat = le32_to_cpu(sb->s_feature_incompat) & ~STALEFS_FEATURE_INCOMPAT_META_BG;

	/* The root reserve keeps its share of the filesystem, as resize2fs keeps it. */
	sb->s_r_blocks_count = cpu_to_le64(scale(le64_to_cpu(sb->s_r_blocks_count), ng->blocks_count,
						 old_blocks));
	sb->s_blocks_count = cpu_to_le64(ng->blocks_count);
	sb->s_groups_count = cpu_to_le32(ng->groups_count);
	sb->s_inodes_count = cpu_to_le32(ng->inodes_count);
	sb->s_gdt_blocks = cpu_to_le32(ng->gdt_blocks);
	if (ng->meta_bg)
		incompat |= STALEFS_FEATURE_INCOMPAT_META_BG;
	sb->s_feature_incompat = cpu_to_le32(incompat);
	sb->s_first_meta_bg = cpu_to_le32(ng->meta_bg ? ng->first_meta_bg : 0);
	sb->s_free_blocks_count = cpu_to_le64(free_blocks);
	sb->s_free_inodes_count = cpu_to_le32(free_inodes);
}
