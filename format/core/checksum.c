// SPDX-License-Identifier: GPL-2.0
/*
 * Metadata checksums.  Each is CRC32 (the kernel's crc32_le) over the whole
 * structure with its checksum field read as zero, seeded with s_csum_seed
 * and, where a structure cannot name its own place, with its place (group
 * number, inode number), so a block copied to the wrong spot fails.
 */
#include "stalefs_core.h"

static const u8 zero4[4];

/* CRC of buf with the 4-byte field at csum_off taken as zero. */
static u32 csum_skip_field(u32 crc, const void *buf, u32 len, u32 csum_off)
{
	const u8 *p = buf;

	crc = stalefs_crc32_le(crc, p, csum_off);
	crc = stalefs_crc32_le(crc, zero4, 4);
	return stalefs_crc32_le(crc, p + csum_off + 4, len - csum_off - 4);
}

static u32 crc_le32(u32 crc, u32 v)
{
	__le32 le = cpu_to_le32(v);

	return stalefs_crc32_le(crc, &le, sizeof(le));
}

u32 stalefs_csum_seed_from_uuid(const u8 uuid[16])
{
	return stalefs_crc32_le(~0u, uuid, 16);
}

u32 stalefs_super_csum(const struct stalefs_super_block *sb)
{
	return csum_skip_field(le32_to_cpu(sb->s_csum_seed), sb, sizeof(*sb),
			       offsetof(struct stalefs_super_block, s_checksum));
}

u32 stalefs_desc_csum(u32 seed, u32 group, const struct stalefs_group_desc *d)
{
	return csum_skip_field(crc_le32(seed, group), d, sizeof(*d),
			       offsetof(struct stalefs_group_desc, bg_checksum));
}

u32 stalefs_bitmap_csum(u32 seed, u32 group, const void *bitmap, u32 len)
{
	return stalefs_crc32_le(crc_le32(seed, group), bitmap, len);
}

u32 stalefs_inode_csum(u32 seed, u32 ino, const struct stalefs_inode *inode)
{
	u32 crc = crc_le32(seed, ino);

	crc = crc_le32(crc, le32_to_cpu(inode->i_generation));
	return csum_skip_field(crc, inode, sizeof(*inode),
			       offsetof(struct stalefs_inode, i_checksum));
}

u32 stalefs_extblock_csum(u32 seed, const void *block, u32 block_size)
{
	return csum_skip_field(seed, block, block_size,
			       offsetof(struct stalefs_extent_block, eb_checksum));
}

u32 stalefs_dirblock_csum(u32 seed, const void *block, u32 block_size)
{
	return csum_skip_field(seed, block, block_size,
			       offsetof(struct stalefs_dir_block, db_checksum));
}

void stalefs_super_set_csum(struct stalefs_super_block *sb)
{
	sb->s_checksum = cpu_to_le32(stalefs_super_csum(sb));
}

void stalefs_desc_set_csum(u32 seed, u32 group, struct stalefs_group_desc *d)
{
	d->bg_checksum = cpu_to_le32(stalefs_desc_csum(seed, group, d));
}

void stalefs_inode_set_csum(u32 seed, u32 ino, struct stalefs_inode *inode)
{
	inode->i_checksum = cpu_to_le32(stalefs_inode_csum(seed, ino, inode));
}

void stalefs_extblock_set_csum(u32 seed, void *block, u32 block_size)
{
	((struct stalefs_extent_block *)block)->eb_checksum =
		cpu_to_le32(stalefs_extblock_csum(seed, block, block_size));
}

void stalefs_dirblock_set_csum(u32 seed, void *block, u32 block_size)
{
	((struct stalefs_dir_block *)block)->db_checksum =
		cpu_to_le32(stalefs_dirblock_csum(seed, block, block_size));
}

u32 stalefs_xattr_block_csum(u32 seed, const void *block, u32 block_size)
{
	return csum_skip_field(seed, block, block_size,
			       offsetof(struct stalefs_xattr_block, xb_checksum));
}

void stalefs_xattr_block_set_csum(u32 seed, void *block, u32 block_size)
{
	((struct stalefs_xattr_block *)block)->xb_checksum =
		cpu_to_le32(stalefs_xattr_block_csum(seed, block, block_size));
}

/* Seeded like the inode, so an area left from a slot's earlier life does not verify. */
u32 stalefs_xattr_ibody_csum(u32 seed, u32 ino, u32 generation, const void *area, u32 area_len)
{
	return csum_skip_field(crc_le32(crc_le32(seed, ino), generation), area, area_len,
			       offsetof(struct stalefs_xattr_ibody_header, xh_checksum));
}

void stalefs_xattr_ibody_set_csum(u32 seed, u32 ino, u32 generation, void *area, u32 area_len)
{
	((struct stalefs_xattr_ibody_header *)area)->xh_checksum =
		cpu_to_le32(stalefs_xattr_ibody_csum(seed, ino, generation, area, area_len));
}
