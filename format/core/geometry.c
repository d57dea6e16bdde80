// SPDX-License-Identifier: GPL-2.0
/* Where things are: group layout arithmetic shared by the kernel and tools. */
#include "stalefs_core.h"

static bool is_power_of(u32 n, u32 base)
{
	if (n == 0)
		return false;
	while (n % base == 0)
		n /= base;
	return n == 1;
}

bool stalefs_group_has_super(const struct stalefs_geom *g, u32 group)
{
	if (group == 0)
		return true;
	if (!g->sparse_super)
		return true;
	if (group == 1)
		return true;
	return is_power_of(group, 3) || is_power_of(group, 5) || is_power_of(group, 7);
}

u64 stalefs_group_first_block(const struct stalefs_geom *g, u32 group)
{
	return (u64)group << g->log_blocks_per_group;
}

u32 stalefs_group_nblocks(const struct stalefs_geom *g, u32 group)
{
	u64 first = stalefs_group_first_block(g, group);

	if (group + 1 < g->groups_count)
		return g->blocks_per_group;
	return (u32)(g->blocks_count - first);
}

bool stalefs_group_in_table(const struct stalefs_geom *g, u32 group)
{
	return !g->meta_bg || group / g->desc_per_block < g->first_meta_bg;
}

u32 stalefs_group_gdt_blocks(const struct stalefs_geom *g, u32 group)
{
	u32 at;

	if (stalefs_group_in_table(g, group))
		return stalefs_group_has_super(g, group) ? g->first_meta_bg : 0;
	/* META_BG: the block describing this group's run, in its first, second and last group. */
	at = group % g->desc_per_block;
	return at == 0 || at == 1 || at == g->desc_per_block - 1;
}

u32 stalefs_group_super_blocks(const struct stalefs_geom *g, u32 group)
{
	u32 sb = 0;

	/* Group 0 also holds the boot area before the primary superblock. */
	if (stalefs_group_has_super(g, group))
		sb = group == 0 ? g->sb_block + 1 : 1;
	return sb + stalefs_group_gdt_blocks(g, group);
}

/* First block of the group's descriptor copy (past its superblock copy, if any). */
static u64 group_gdt_start(const struct stalefs_geom *g, u32 group)
{
	u64 b = stalefs_group_first_block(g, group);

	if (stalefs_group_has_super(g, group))
		b += group == 0 ? g->sb_block + 1 : 1;
	return b;
}

bool stalefs_block_is_gdt(const struct stalefs_geom *g, u64 block, u32 *group, u32 *index)
{
	u32 grp = stalefs_block_group(g, block);
	u64 start;
	u32 n;

	if (block >= g->blocks_count)
		return false;
	start = group_gdt_start(g, grp);
	n = stalefs_group_gdt_blocks(g, grp);
	if (block < start || block >= start + n)
		return false;
	*group = grp;
	*index = stalefs_group_in_table(g, grp) ? (u32)(block - start) : stalefs_gdt_index(g, grp);
	return true;
}

u64 stalefs_gdt_block_loc(const struct stalefs_geom *g, u32 view, u32 i)
{
	u32 first;

	if (i < g->first_meta_bg) {
		/* A backup past the table's groups holds no table: group 1's is the nearest. */
		if (view && !stalefs_group_in_table(g, view))
			view = 1;
		return group_gdt_start(g, view) + i;
	}
	first = i * g->desc_per_block;
	if (view && first + 1 < g->groups_count)
		first++;
	return group_gdt_start(g, first);
}

u32 stalefs_gdt_block_copies(const struct stalefs_geom *g, u32 i, u64 *out, u32 max)
{
	u32 n = 0, grp;

	if (i < g->first_meta_bg) {
		for (grp = 0; grp < g->groups_count && stalefs_group_in_table(g, grp); grp++)
			if (stalefs_group_has_super(g, grp) && n < max)
				out[n++] = group_gdt_start(g, grp) + i;
		return n;
	}
	grp = i * g->desc_per_block;
	if (n < max)
		out[n++] = group_gdt_start(g, grp);
	if (grp + 1 < g->groups_count && n < max)
		out[n++] = group_gdt_start(g, grp + 1);
	grp += g->desc_per_block - 1;
	if (grp < g->groups_count && n < max)
		out[n++] = group_gdt_start(g, grp);
	return n;
}

u32 stalefs_group_meta_blocks(const struct stalefs_geom *g, u32 group)
{
	return stalefs_group_super_blocks(g, group) + g->block_bitmap_blocks +
	       g->inode_bitmap_blocks + g->inode_table_blocks;
}

void stalefs_group_default_layout(const struct stalefs_geom *g, u32 group,
				  u64 *block_bitmap, u64 *inode_bitmap, u64 *inode_table)
{
	u64 b = stalefs_group_first_block(g, group) + stalefs_group_super_blocks(g, group);

	*block_bitmap = b;
	b += g->block_bitmap_blocks;
	*inode_bitmap = b;
	b += g->inode_bitmap_blocks;
	*inode_table = b;
}

u32 stalefs_block_group(const struct stalefs_geom *g, u64 block)
{
	return (u32)(block >> g->log_blocks_per_group);
}

u32 stalefs_ino_group(const struct stalefs_geom *g, u32 ino)
{
	return (ino - 1) / g->inodes_per_group;
}

void stalefs_ino_locate(const struct stalefs_geom *g, const struct stalefs_group_desc *d,
			u32 ino, u64 *block, u32 *offset)
{
	u32 index = (ino - 1) % g->inodes_per_group;

	*block = le64_to_cpu(d->bg_inode_table) + index / g->inodes_per_block;
	*offset = (index % g->inodes_per_block) * g->inode_size;
}

u32 stalefs_extblock_max_entries(u32 block_size)
{
	return (block_size - (u32)sizeof(struct stalefs_extent_block)) / 16;
}

bool stalefs_journal_range_ok(const struct stalefs_geom *g, u64 start, u64 len)
{
	if (len < STALEFS_JOURNAL_MIN_BLOCKS || len > 0xFFFFFFFFULL || start >= g->blocks_count)
		return false;
	return stalefs_group_data_holds(g, stalefs_block_group(g, start), start, len);
}

static u32 ilog2_u32(u32 v)
{
	u32 r = 0;

	while (v >>= 1)
		r++;
	return r;
}

static u32 div_round_up(u64 n, u64 d)
{
	return (u32)((n + d - 1) / d);
}

bool stalefs_inode_size_valid(u32 inode_size, u32 block_size)
{
	return inode_size >= STALEFS_INODE_SIZE && inode_size <= STALEFS_INODE_SIZE_MAX &&
	       inode_size <= block_size && (inode_size & (inode_size - 1)) == 0;
}

u32 stalefs_gdt_blocks_for(const struct stalefs_geom *g, u64 groups)
{
	return div_round_up(groups, g->desc_per_block);
}

/* stalefs_geom_init with the META_BG layout: meta_first 0 for none. */
static int geom_fill(struct stalefs_geom *g, u32 log_block_size, u64 blocks_count, u32 blocks_per_group,
		     u32 inodes_per_group, u32 inode_size, bool sparse_super, u32 meta_first)
{
	u64 groups;

	memset(g, 0, sizeof(*g));
	if (log_block_size < STALEFS_MIN_LOG_BLOCK || log_block_size > STALEFS_MAX_LOG_BLOCK)
		return STALEFS_R_SB_BLOCK_SIZE;
	g->log_block_size = log_block_size;
	g->block_size = 1u << log_block_size;
	g->sb_block = STALEFS_SUPER_OFFSET / g->block_size;
	if (blocks_per_group < STALEFS_MIN_BLOCKS_PER_GROUP ||
	    (blocks_per_group & (blocks_per_group - 1)) != 0 ||
	    ilog2_u32(blocks_per_group) > STALEFS_MAX_LOG_GROUP)
		return STALEFS_R_SB_BLOCKS_PER_GROUP;
	g->blocks_per_group = blocks_per_group;
	g->log_blocks_per_group = ilog2_u32(blocks_per_group);
	if (blocks_count < STALEFS_MIN_BLOCKS_PER_GROUP / 4 || blocks_count >= STALEFS_MAX_BLOCKS)
		return STALEFS_R_SB_BLOCKS_COUNT;
	g->blocks_count = blocks_count;
	groups = (blocks_count + blocks_per_group - 1) >> g->log_blocks_per_group;
	if (groups == 0 || groups > 0xFFFFFFFFULL)
		return STALEFS_R_SB_BLOCKS_COUNT;
	g->groups_count = (u32)groups;
	if (!stalefs_inode_size_valid(inode_size, g->block_size))
		return STALEFS_R_SB_INODE_SIZE;
	g->inode_size = inode_size;
	g->inodes_per_block = g->block_size / inode_size;
	g->desc_per_block = g->block_size / STALEFS_DESC_SIZE;
	if (inodes_per_group == 0 || inodes_per_group % g->inodes_per_block != 0 ||
	    (u64)inodes_per_group * groups > 0xFFFFFFFFULL)
		return STALEFS_R_SB_INODES_PER_GROUP;
	g->inodes_per_group = inodes_per_group;
	g->inodes_count = (u32)(inodes_per_group * groups);
	g->gdt_blocks = div_round_up(groups, g->desc_per_block);
	g->block_bitmap_blocks = div_round_up(blocks_per_group, (u64)g->block_size * 8);
	g->inode_bitmap_blocks = div_round_up(inodes_per_group, (u64)g->block_size * 8);
	g->inode_table_blocks = inodes_per_group / g->inodes_per_block;
	g->sparse_super = sparse_super;
	g->meta_bg = meta_first != 0;
	g->first_meta_bg = meta_first ? meta_first : g->gdt_blocks;
	if (g->first_meta_bg > g->gdt_blocks)
		return STALEFS_R_SB_META_BG;
	/* Every group, the last one included, must hold its own metadata. */
	if ((u64)stalefs_group_meta_blocks(g, 0) >= stalefs_group_nblocks(g, 0))
		return STALEFS_R_SB_INODES_PER_GROUP;
	if ((u64)stalefs_group_meta_blocks(g, g->groups_count - 1) >=
	    stalefs_group_nblocks(g, g->groups_count - 1))
		return STALEFS_R_SB_BLOCKS_COUNT;
	return 0;
}

int stalefs_geom_init(struct stalefs_geom *g, u32 log_block_size, u64 blocks_count,
		      u32 blocks_per_group, u32 inodes_per_group, u32 inode_size, bool sparse_super)
{
	return geom_fill(g, log_block_size, blocks_count, blocks_per_group, inodes_per_group, inode_size,
			 sparse_super, 0);
}

int stalefs_geom_resize(struct stalefs_geom *g, const struct stalefs_geom *old, u64 blocks_count,
			bool meta_bg, u32 first_meta_bg)
{
	struct stalefs_geom o = *old;

	if (meta_bg && first_meta_bg == 0)
		return STALEFS_R_SB_META_BG;
	return geom_fill(g, o.log_block_size, blocks_count, o.blocks_per_group, o.inodes_per_group,
			 o.inode_size, o.sparse_super, meta_bg ? first_meta_bg : 0);
}

int stalefs_geom_from_super(struct stalefs_geom *g, const struct stalefs_super_block *sb)
{
	bool meta_bg = le32_to_cpu(sb->s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_META_BG;
	u32 first_meta = le32_to_cpu(sb->s_first_meta_bg);
	int rule;

	/* Without META_BG the field is zero; with it, at least one block stays the table. */
	if (meta_bg != (first_meta != 0))
		return STALEFS_R_SB_META_BG;
	rule = geom_fill(g, le32_to_cpu(sb->s_log_block_size) + 10, le64_to_cpu(sb->s_blocks_count),
			 le32_to_cpu(sb->s_blocks_per_group), le32_to_cpu(sb->s_inodes_per_group),
			 le16_to_cpu(sb->s_inode_size),
			 le32_to_cpu(sb->s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER,
			 first_meta);
	if (rule)
		return rule;
	if (le32_to_cpu(sb->s_groups_count) != g->groups_count)
		return STALEFS_R_SB_GROUPS_COUNT;
	if (le32_to_cpu(sb->s_inodes_count) != g->inodes_count)
		return STALEFS_R_SB_INODES_COUNT;
	if (le32_to_cpu(sb->s_gdt_blocks) != g->gdt_blocks)
		return STALEFS_R_SB_GDT_BLOCKS;
	return 0;
}
