// SPDX-License-Identifier: GPL-2.0
/*
 * Verifiers: each says which rule of FORMAT.md a structure breaks, so the
 * kernel, fsck and debugfs all report a damaged structure the same way.
 */
#include "stalefs_core.h"

static const char *const rule_msgs[STALEFS_R_MAX] = {
	[STALEFS_R_OK] = "no problem",
	[STALEFS_R_SB_MAGIC] = "superblock magic number is wrong",
	[STALEFS_R_SB_CSUM] = "superblock checksum does not match",
	[STALEFS_R_SB_REV] = "superblock revision level is not supported",
	[STALEFS_R_SB_BLOCK_SIZE] = "block size is not 1024, 2048 or 4096",
	[STALEFS_R_SB_BLOCKS_COUNT] = "blocks count is out of range",
	[STALEFS_R_SB_BLOCKS_PER_GROUP] = "blocks per group is not a supported power of two",
	[STALEFS_R_SB_INODES_PER_GROUP] = "inodes per group does not fit the group",
	[STALEFS_R_SB_GROUPS_COUNT] = "groups count does not match the blocks count",
	[STALEFS_R_SB_INODES_COUNT] = "inodes count is not inodes per group times groups",
	[STALEFS_R_SB_INODE_SIZE] = "inode size is not a power of two from 256 to the block size",
	[STALEFS_R_SB_DESC_SIZE] = "group descriptor size is not 64",
	[STALEFS_R_SB_GDT_BLOCKS] = "group descriptor block count does not match the groups count",
	[STALEFS_R_SB_FIRST_INO] = "first ordinary inode is not 11",
	[STALEFS_R_SB_FREE_BLOCKS] = "free blocks count exceeds the blocks count",
	[STALEFS_R_SB_FREE_INODES] = "free inodes count exceeds the inodes count",
	[STALEFS_R_SB_R_BLOCKS] = "reserved blocks count exceeds the blocks count",
	[STALEFS_R_SB_STATE] = "filesystem state has unknown bits",
	[STALEFS_R_SB_ERRORS] = "error behaviour is not continue, remount-ro or panic",
	[STALEFS_R_SB_INCOMPAT_UNKNOWN] = "filesystem has unsupported incompatible features",
	[STALEFS_R_SB_INCOMPAT_MISSING] = "required incompatible features (extents, filetype) are missing",
	[STALEFS_R_SB_RO_COMPAT_UNKNOWN] = "filesystem has unsupported read-only compatible features",
	[STALEFS_R_SB_STALE_NO_GID] = "nohide_stale feature is set but no permitted group is recorded",
	[STALEFS_R_SB_STALE_GID_NO_FEATURE] = "a permitted group is recorded but the nohide_stale feature is not set",
	[STALEFS_R_SB_LPF_INO] = "lost+found inode number is out of range",
	[STALEFS_R_SB_JOURNAL_RANGE] = "journal location is missing, too small, or not inside one group's data blocks",
	[STALEFS_R_SB_JOURNAL_NO_FEATURE] = "a journal location is recorded but the has_journal feature is not set",
	[STALEFS_R_SB_RECOVER_NO_JOURNAL] = "needs_recovery is set but the filesystem has no journal",
	[STALEFS_R_SB_META_BG] = "first meta_bg descriptor block is out of range (or set without the meta_bg feature)",
	[STALEFS_R_BG_CSUM] = "group descriptor checksum does not match",
	[STALEFS_R_BG_BLOCK_BITMAP] = "block bitmap location is outside its group or overlaps metadata",
	[STALEFS_R_BG_INODE_BITMAP] = "inode bitmap location is outside its group or overlaps metadata",
	[STALEFS_R_BG_INODE_TABLE] = "inode table location is outside its group or overlaps metadata",
	[STALEFS_R_BG_FREE_BLOCKS] = "group free blocks count exceeds the group size",
	[STALEFS_R_BG_FREE_INODES] = "group free inodes count exceeds inodes per group",
	[STALEFS_R_BG_USED_DIRS] = "group directory count exceeds inodes per group",
	[STALEFS_R_BG_ITABLE_UNUSED] = "group unused inode count exceeds its free inodes",
	[STALEFS_R_BG_FLAGS] = "group descriptor has unknown flags",
	[STALEFS_R_BG_BLOCK_BITMAP_CSUM] = "block bitmap checksum does not match",
	[STALEFS_R_BG_INODE_BITMAP_CSUM] = "inode bitmap checksum does not match",
	[STALEFS_R_BG_ORPHANS] = "group orphan count exceeds inodes per group",
	[STALEFS_R_BG_STALE_COUNT] = "group stale inode count exceeds inodes per group",
	[STALEFS_R_INODE_CSUM] = "inode checksum does not match",
	[STALEFS_R_INODE_INO] = "inode does not carry its own number",
	[STALEFS_R_INODE_MODE] = "inode mode has no valid file type",
	[STALEFS_R_INODE_FLAGS] = "inode has unknown flags",
	[STALEFS_R_INODE_INLINE_NOT_SYMLINK] = "inline data flag set on an inode that is not a symlink",
	[STALEFS_R_INODE_INLINE_SIZE] = "inline symlink size does not fit in the inode",
	[STALEFS_R_INODE_STALE_NOT_REG] = "stale flag set on an inode that is not a regular file",
	[STALEFS_R_INODE_DTIME] = "inode in use has a deletion time",
	[STALEFS_R_INODE_NSEC] = "inode nanoseconds field is 1e9 or more",
	[STALEFS_R_INODE_SIZE] = "inode size is beyond the largest file",
	[STALEFS_R_INODE_RESERVED] = "inode reserved fields are not zero",
	[STALEFS_R_EXT_MAGIC] = "extent header magic number is wrong",
	[STALEFS_R_EXT_MAX] = "extent header capacity does not match its node",
	[STALEFS_R_EXT_ENTRIES] = "extent header has more entries than capacity",
	[STALEFS_R_EXT_DEPTH] = "extent tree depth is wrong or too deep",
	[STALEFS_R_EXT_LEN] = "extent length is zero or too long",
	[STALEFS_R_EXT_FLAGS_UNKNOWN] = "extent has unknown flags",
	[STALEFS_R_EXT_UNWRITTEN_AND_STALE] = "extent is both UNWRITTEN and STALE",
	[STALEFS_R_EXT_PBLK_RANGE] = "extent or index points outside the filesystem",
	[STALEFS_R_EXT_LBLK_RANGE] = "extent ends beyond the largest logical block",
	[STALEFS_R_EXT_UNSORTED] = "extent entries are not sorted by logical block",
	[STALEFS_R_EXT_OVERLAP] = "extent entries overlap",
	[STALEFS_R_EXT_IDX_RESERVED] = "extent index reserved field is not zero",
	[STALEFS_R_EXTBLK_MAGIC] = "extent block magic number is wrong",
	[STALEFS_R_EXTBLK_CSUM] = "extent block checksum does not match",
	[STALEFS_R_EXTBLK_BLOCKNR] = "extent block does not carry its own block number",
	[STALEFS_R_EXTBLK_OWNER] = "extent block belongs to another inode",
	[STALEFS_R_EXTBLK_RESERVED] = "extent block reserved field is not zero",
	[STALEFS_R_DIR_MAGIC] = "directory block magic number is wrong",
	[STALEFS_R_DIR_CSUM] = "directory block checksum does not match",
	[STALEFS_R_DIR_BLOCKNR] = "directory block does not carry its own block number",
	[STALEFS_R_DIR_OWNER] = "directory block belongs to another inode",
	[STALEFS_R_DIR_LBLK] = "directory block does not carry its logical block",
	[STALEFS_R_DIR_REC_LEN] = "directory entry length is wrong",
	[STALEFS_R_DIR_NAME_LEN] = "directory entry name length is zero or too long for the entry",
	[STALEFS_R_DIR_NAME] = "directory entry name contains '/' or NUL",
	[STALEFS_R_DIR_FILE_TYPE] = "directory entry file type is unknown",
	[STALEFS_R_DIR_INODE] = "directory entry inode number is out of range",
	[STALEFS_R_XATTR_MAGIC] = "xattr block or in-inode area magic number is wrong",
	[STALEFS_R_XATTR_CSUM] = "xattr block or in-inode area checksum does not match",
	[STALEFS_R_XATTR_BLOCKNR] = "xattr block does not carry its own block number",
	[STALEFS_R_XATTR_OWNER] = "xattr block belongs to another inode",
	[STALEFS_R_XATTR_RESERVED] = "xattr block reserved field is not zero",
	[STALEFS_R_XATTR_INDEX] = "xattr entry name index is unknown",
	[STALEFS_R_XATTR_NAME] = "xattr entry name is empty, or set on an ACL entry",
	[STALEFS_R_XATTR_OVERRUN] = "xattr entry runs past the end of its region",
	[STALEFS_R_XATTR_PADDING] = "xattr entry padding is not zero",
	[STALEFS_R_XATTR_DUPLICATE] = "xattr entry name appears twice",
	[STALEFS_R_XATTR_TAIL] = "bytes after the last xattr entry are not zero",
};

const char *stalefs_rule_msg(int rule)
{
	if (rule < 0 || rule >= STALEFS_R_MAX || !rule_msgs[rule])
		return "unknown rule";
	return rule_msgs[rule];
}

int stalefs_verify_super_csum(const struct stalefs_super_block *sb)
{
	return le32_to_cpu(sb->s_checksum) == stalefs_super_csum(sb) ? 0 : STALEFS_R_SB_CSUM;
}

/* The journal fields and the two features that go with them (FORMAT.md 12). */
static int verify_super_journal(const struct stalefs_super_block *sb, const struct stalefs_geom *g)
{
	bool has = le32_to_cpu(sb->s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
	bool recover = le32_to_cpu(sb->s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER;
	u64 start = le64_to_cpu(sb->s_journal_block);
	u32 len = le32_to_cpu(sb->s_journal_blocks);

	if (recover && !has)
		return STALEFS_R_SB_RECOVER_NO_JOURNAL;
	if (!has)
		return start || len || sb->s_journal_pad ? STALEFS_R_SB_JOURNAL_NO_FEATURE : 0;
	if (sb->s_journal_pad || !stalefs_journal_range_ok(g, start, len))
		return STALEFS_R_SB_JOURNAL_RANGE;
	return 0;
}

int stalefs_verify_super(const struct stalefs_super_block *sb)
{
	struct stalefs_geom g;
	u32 incompat = le32_to_cpu(sb->s_feature_incompat);
	u32 ro_compat = le32_to_cpu(sb->s_feature_ro_compat);
	u32 lpf = le32_to_cpu(sb->s_lpf_ino);
	u16 errors = le16_to_cpu(sb->s_errors);
	bool stale_feature = ro_compat & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE;
	bool stale_gid = le32_to_cpu(sb->s_stale_gid) != STALEFS_STALE_GID_NONE;
	int rule;

	if (le32_to_cpu(sb->s_magic) != STALEFS_SUPER_MAGIC)
		return STALEFS_R_SB_MAGIC;
	if (le32_to_cpu(sb->s_rev_level) != 1)
		return STALEFS_R_SB_REV;
	if (incompat & ~STALEFS_FEATURE_INCOMPAT_SUPP)
		return STALEFS_R_SB_INCOMPAT_UNKNOWN;
	if ((incompat & STALEFS_FEATURE_INCOMPAT_REQUIRED) != STALEFS_FEATURE_INCOMPAT_REQUIRED)
		return STALEFS_R_SB_INCOMPAT_MISSING;
	if (le32_to_cpu(sb->s_log_block_size) > STALEFS_MAX_LOG_BLOCK - 10)
		return STALEFS_R_SB_BLOCK_SIZE;
	if (!stalefs_inode_size_valid(le16_to_cpu(sb->s_inode_size),
				      1024u << le32_to_cpu(sb->s_log_block_size)))
		return STALEFS_R_SB_INODE_SIZE;
	if (le16_to_cpu(sb->s_desc_size) != STALEFS_DESC_SIZE)
		return STALEFS_R_SB_DESC_SIZE;
	rule = stalefs_geom_from_super(&g, sb);
	if (rule)
		return rule;
	if (le32_to_cpu(sb->s_first_ino) != STALEFS_FIRST_INO)
		return STALEFS_R_SB_FIRST_INO;
	if (le64_to_cpu(sb->s_free_blocks_count) > g.blocks_count)
		return STALEFS_R_SB_FREE_BLOCKS;
	if (le32_to_cpu(sb->s_free_inodes_count) > g.inodes_count)
		return STALEFS_R_SB_FREE_INODES;
	if (le64_to_cpu(sb->s_r_blocks_count) > g.blocks_count)
		return STALEFS_R_SB_R_BLOCKS;
	if (le16_to_cpu(sb->s_state) & ~(STALEFS_STATE_CLEAN | STALEFS_STATE_ERRORS))
		return STALEFS_R_SB_STATE;
	if (!STALEFS_ERRORS_VALID(errors))
		return STALEFS_R_SB_ERRORS;
	if (lpf != 0 && (lpf < STALEFS_FIRST_INO || lpf > g.inodes_count))
		return STALEFS_R_SB_LPF_INO;
	if (stale_feature && !stale_gid)
		return STALEFS_R_SB_STALE_NO_GID;
	if (!stale_feature && stale_gid)
		return STALEFS_R_SB_STALE_GID_NO_FEATURE;
	rule = verify_super_journal(sb, &g);
	if (rule)
		return rule;
	/* Unknown ro_compat bits last: the structure is sound, only read-only use is safe. */
	if (ro_compat & ~STALEFS_FEATURE_RO_COMPAT_SUPP)
		return STALEFS_R_SB_RO_COMPAT_UNKNOWN;
	return 0;
}

int stalefs_verify_desc_csum(u32 seed, u32 group, const struct stalefs_group_desc *d)
{
	return le32_to_cpu(d->bg_checksum) == stalefs_desc_csum(seed, group, d) ? 0 : STALEFS_R_BG_CSUM;
}

int stalefs_verify_desc(const struct stalefs_geom *g, u32 group, const struct stalefs_group_desc *d)
{
	u32 free_inodes = le32_to_cpu(d->bg_free_inodes_count);
	u32 misplaced = stalefs_desc_misplaced(g, group, d);

	if (misplaced & (1u << STALEFS_GM_BLOCK_BITMAP))
		return STALEFS_R_BG_BLOCK_BITMAP;
	if (misplaced & (1u << STALEFS_GM_INODE_BITMAP))
		return STALEFS_R_BG_INODE_BITMAP;
	if (misplaced & (1u << STALEFS_GM_INODE_TABLE))
		return STALEFS_R_BG_INODE_TABLE;
	if (le32_to_cpu(d->bg_free_blocks_count) > stalefs_group_nblocks(g, group))
		return STALEFS_R_BG_FREE_BLOCKS;
	if (free_inodes > g->inodes_per_group)
		return STALEFS_R_BG_FREE_INODES;
	if (le32_to_cpu(d->bg_used_dirs_count) > g->inodes_per_group)
		return STALEFS_R_BG_USED_DIRS;
	if (le32_to_cpu(d->bg_itable_unused) > free_inodes)
		return STALEFS_R_BG_ITABLE_UNUSED;
	if (le16_to_cpu(d->bg_flags) & ~STALEFS_BG_FLAGS_ALL)
		return STALEFS_R_BG_FLAGS;
	if (le32_to_cpu(d->bg_orphan_count) > g->inodes_per_group)
		return STALEFS_R_BG_ORPHANS;
	if (le32_to_cpu(d->bg_stale_count) > g->inodes_per_group)
		return STALEFS_R_BG_STALE_COUNT;
	return 0;
}

u8 stalefs_mode_to_ft(u16 mode)
{
	switch (mode & STALEFS_S_IFMT) {
	case STALEFS_S_IFREG: return STALEFS_FT_REG;
	case STALEFS_S_IFDIR: return STALEFS_FT_DIR;
	case STALEFS_S_IFCHR: return STALEFS_FT_CHRDEV;
	case STALEFS_S_IFBLK: return STALEFS_FT_BLKDEV;
	case STALEFS_S_IFIFO: return STALEFS_FT_FIFO;
	case STALEFS_S_IFSOCK: return STALEFS_FT_SOCK;
	case STALEFS_S_IFLNK: return STALEFS_FT_SYMLINK;
	}
	return STALEFS_FT_UNKNOWN;
}

bool stalefs_mode_valid(u16 mode)
{
	return stalefs_mode_to_ft(mode) != STALEFS_FT_UNKNOWN;
}

bool stalefs_inode_has_extents(const struct stalefs_inode *inode)
{
	u16 type = le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT;

	if (le32_to_cpu(inode->i_flags) & STALEFS_INODE_INLINE_FL)
		return false;
	return type == STALEFS_S_IFREG || type == STALEFS_S_IFDIR || type == STALEFS_S_IFLNK;
}

static bool all_zero(const void *p, u32 len)
{
	const u8 *b = p;
	u32 i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

int stalefs_verify_inode_csum(u32 seed, u32 ino, const struct stalefs_inode *inode)
{
	return le32_to_cpu(inode->i_checksum) == stalefs_inode_csum(seed, ino, inode) ?
		0 : STALEFS_R_INODE_CSUM;
}

int stalefs_verify_inode(const struct stalefs_geom *g, u32 ino, const struct stalefs_inode *inode)
{
	u16 mode = le16_to_cpu(inode->i_mode);
	u16 type = mode & STALEFS_S_IFMT;
	u32 flags = le32_to_cpu(inode->i_flags);
	u64 size = le64_to_cpu(inode->i_size);

	if (le32_to_cpu(inode->i_ino) != ino)
		return STALEFS_R_INODE_INO;
	if (!stalefs_mode_valid(mode))
		return STALEFS_R_INODE_MODE;
	if (flags & ~STALEFS_INODE_FLAGS_ALL)
		return STALEFS_R_INODE_FLAGS;
	if ((flags & STALEFS_INODE_INLINE_FL) && type != STALEFS_S_IFLNK)
		return STALEFS_R_INODE_INLINE_NOT_SYMLINK;
	if ((flags & STALEFS_INODE_INLINE_FL) && (size == 0 || size > STALEFS_INLINE_SYMLINK_MAX))
		return STALEFS_R_INODE_INLINE_SIZE;
	if ((flags & STALEFS_INODE_STALE_FL) && type != STALEFS_S_IFREG)
		return STALEFS_R_INODE_STALE_NOT_REG;
	if (le64_to_cpu(inode->i_dtime) != 0 && le16_to_cpu(inode->i_links_count) != 0)
		return STALEFS_R_INODE_DTIME;
	if (le32_to_cpu(inode->i_atime_nsec) >= 1000000000u ||
	    le32_to_cpu(inode->i_ctime_nsec) >= 1000000000u ||
	    le32_to_cpu(inode->i_mtime_nsec) >= 1000000000u ||
	    le32_to_cpu(inode->i_crtime_nsec) >= 1000000000u)
		return STALEFS_R_INODE_NSEC;
	if (size > (STALEFS_MAX_FILE_BLOCKS << g->log_block_size))
		return STALEFS_R_INODE_SIZE;
	if (!all_zero(inode->i_reserved, sizeof(inode->i_reserved)))
		return STALEFS_R_INODE_RESERVED;
	return 0;
}

int stalefs_verify_extent_header(const struct stalefs_extent_header *eh, u32 max_entries, int expect_depth)
{
	u32 entries = le16_to_cpu(eh->eh_entries);
	u32 depth = le16_to_cpu(eh->eh_depth);

	if (le16_to_cpu(eh->eh_magic) != STALEFS_EXT_MAGIC)
		return STALEFS_R_EXT_MAGIC;
	if (le16_to_cpu(eh->eh_max) != max_entries)
		return STALEFS_R_EXT_MAX;
	if (entries > max_entries)
		return STALEFS_R_EXT_ENTRIES;
	if (depth > STALEFS_EXT_MAX_DEPTH || (expect_depth >= 0 && depth != (u32)expect_depth))
		return STALEFS_R_EXT_DEPTH;
	if (depth > 0 && entries == 0)
		return STALEFS_R_EXT_ENTRIES;
	return 0;
}

int stalefs_verify_extent_node(const struct stalefs_geom *g, const struct stalefs_extent_header *eh,
			       u32 max_entries, int expect_depth)
{
	u32 entries = le16_to_cpu(eh->eh_entries);
	u32 depth = le16_to_cpu(eh->eh_depth);
	u64 prev_end = 0;
	u32 i;
	int rule = stalefs_verify_extent_header(eh, max_entries, expect_depth);

	if (rule)
		return rule;
	if (depth > 0) {
		const struct stalefs_extent_idx *ix = stalefs_eh_index(eh);

		for (i = 0; i < entries; i++) {
			u64 pblk = le64_to_cpu(ix[i].ei_pblk);

			if (ix[i].ei_reserved != 0)
				return STALEFS_R_EXT_IDX_RESERVED;
			if (pblk == 0 || pblk >= g->blocks_count)
				return STALEFS_R_EXT_PBLK_RANGE;
			if (i > 0 && le32_to_cpu(ix[i].ei_lblk) <= le32_to_cpu(ix[i - 1].ei_lblk))
				return STALEFS_R_EXT_UNSORTED;
		}
		return 0;
	}
	for (i = 0; i < entries; i++) {
		const struct stalefs_extent *ex = &stalefs_eh_extents(eh)[i];
		u64 lblk = le32_to_cpu(ex->ee_lblk);
		u32 len = le16_to_cpu(ex->ee_len);
		u16 flags = le16_to_cpu(ex->ee_flags);
		u64 pblk = le64_to_cpu(ex->ee_pblk);

		if (len == 0 || len > STALEFS_EXT_MAX_LEN)
			return STALEFS_R_EXT_LEN;
		if (flags & ~STALEFS_EXT_FLAGS_ALL)
			return STALEFS_R_EXT_FLAGS_UNKNOWN;
		if ((flags & STALEFS_EXT_UNWRITTEN) && (flags & STALEFS_EXT_STALE))
			return STALEFS_R_EXT_UNWRITTEN_AND_STALE;
		if (pblk == 0 || pblk >= g->blocks_count || pblk + len > g->blocks_count)
			return STALEFS_R_EXT_PBLK_RANGE;
		if (lblk + len > STALEFS_MAX_FILE_BLOCKS)
			return STALEFS_R_EXT_LBLK_RANGE;
		if (i > 0 && lblk < le32_to_cpu(stalefs_eh_extents(eh)[i - 1].ee_lblk))
			return STALEFS_R_EXT_UNSORTED;
		if (i > 0 && lblk < prev_end)
			return STALEFS_R_EXT_OVERLAP;
		prev_end = lblk + len;
	}
	return 0;
}

int stalefs_verify_extblock_header(const void *block, u64 blocknr, u32 owner, u32 owner_gen)
{
	const struct stalefs_extent_block *eb = block;

	if (le32_to_cpu(eb->eb_magic) != STALEFS_EXTBLK_MAGIC)
		return STALEFS_R_EXTBLK_MAGIC;
	if (le64_to_cpu(eb->eb_blocknr) != blocknr)
		return STALEFS_R_EXTBLK_BLOCKNR;
	if (le32_to_cpu(eb->eb_owner) != owner || le32_to_cpu(eb->eb_owner_gen) != owner_gen)
		return STALEFS_R_EXTBLK_OWNER;
	if (eb->eb_reserved != 0)
		return STALEFS_R_EXTBLK_RESERVED;
	return 0;
}

int stalefs_verify_extblock_csum(u32 seed, const void *block, u32 block_size)
{
	const struct stalefs_extent_block *eb = block;

	return le32_to_cpu(eb->eb_checksum) == stalefs_extblock_csum(seed, block, block_size) ?
		0 : STALEFS_R_EXTBLK_CSUM;
}

int stalefs_verify_dirblock_csum(u32 seed, const void *block, u32 block_size)
{
	const struct stalefs_dir_block *db = block;

	return le32_to_cpu(db->db_checksum) == stalefs_dirblock_csum(seed, block, block_size) ?
		0 : STALEFS_R_DIR_CSUM;
}

int stalefs_verify_dirblock_header(const void *block, u64 blocknr, u32 owner, u32 lblk)
{
	const struct stalefs_dir_block *db = block;

	if (le32_to_cpu(db->db_magic) != STALEFS_DIRBLK_MAGIC)
		return STALEFS_R_DIR_MAGIC;
	if (le64_to_cpu(db->db_blocknr) != blocknr)
		return STALEFS_R_DIR_BLOCKNR;
	if (le32_to_cpu(db->db_owner) != owner)
		return STALEFS_R_DIR_OWNER;
	if (le32_to_cpu(db->db_lblk) != lblk)
		return STALEFS_R_DIR_LBLK;
	return 0;
}

int stalefs_verify_dirent_fit(const void *block, u32 block_size, u32 off)
{
	const struct stalefs_dir_entry *de = (const void *)((const u8 *)block + off);
	u32 rec_len;

	if (block_size - off < sizeof(*de))
		return STALEFS_R_DIR_REC_LEN;
	rec_len = le16_to_cpu(de->rec_len);
	if (rec_len < sizeof(*de) || rec_len % 4 != 0 || rec_len > block_size - off)
		return STALEFS_R_DIR_REC_LEN;
	if (le32_to_cpu(de->inode) != 0 && (de->name_len == 0 || STALEFS_DIR_REC_LEN(de->name_len) > rec_len))
		return STALEFS_R_DIR_NAME_LEN;
	return 0;
}

int stalefs_verify_dirblock(const void *block, u32 block_size, u64 blocknr, u32 owner, u32 lblk)
{
	const u8 *p = block;
	u32 off = sizeof(struct stalefs_dir_block);
	int rule = stalefs_verify_dirblock_header(block, blocknr, owner, lblk);

	if (rule)
		return rule;
	while (off < block_size) {
		const struct stalefs_dir_entry *de = (const void *)(p + off);
		u32 i;

		rule = stalefs_verify_dirent_fit(block, block_size, off);
		if (rule)
			return rule;
		if (le32_to_cpu(de->inode) != 0) {
			for (i = 0; i < de->name_len; i++)
				if (de->name[i] == '/' || de->name[i] == '\0')
					return STALEFS_R_DIR_NAME;
			if (de->file_type == STALEFS_FT_UNKNOWN || de->file_type >= STALEFS_FT_MAX)
				return STALEFS_R_DIR_FILE_TYPE;
		}
		off += le16_to_cpu(de->rec_len);
	}
	return 0;
}

int stalefs_verify_dirblock_inodes(const struct stalefs_geom *g, const void *block)
{
	const u8 *p = block;
	u32 off = sizeof(struct stalefs_dir_block);

	while (off + sizeof(struct stalefs_dir_entry) <= g->block_size) {
		const struct stalefs_dir_entry *de = (const void *)(p + off);
		u32 ino = le32_to_cpu(de->inode), rec_len = le16_to_cpu(de->rec_len);

		if (ino != 0 && ino != STALEFS_ROOT_INO &&
		    (ino < STALEFS_FIRST_INO || ino > g->inodes_count))
			return STALEFS_R_DIR_INODE;
		if (rec_len < sizeof(*de))
			return STALEFS_R_DIR_REC_LEN;	/* never loop on a chain not checked first */
		off += rec_len;
	}
	return 0;
}

static int verify_bitmap_csum(u32 seed, u32 group, bool uninit, __le32 stored,
			      const void *bitmap, u32 len, int rule)
{
	if (uninit)
		return le32_to_cpu(stored) == 0 ? 0 : rule;
	return le32_to_cpu(stored) == stalefs_bitmap_csum(seed, group, bitmap, len) ? 0 : rule;
}

int stalefs_verify_block_bitmap_csum(u32 seed, u32 group, const struct stalefs_group_desc *d,
				     const void *bitmap, u32 len)
{
	return verify_bitmap_csum(seed, group, le16_to_cpu(d->bg_flags) & STALEFS_BG_BLOCK_UNINIT,
				  d->bg_block_bitmap_csum, bitmap, len, STALEFS_R_BG_BLOCK_BITMAP_CSUM);
}

int stalefs_verify_inode_bitmap_csum(u32 seed, u32 group, const struct stalefs_group_desc *d,
				     const void *bitmap, u32 len)
{
	return verify_bitmap_csum(seed, group, le16_to_cpu(d->bg_flags) & STALEFS_BG_INODE_UNINIT,
				  d->bg_inode_bitmap_csum, bitmap, len, STALEFS_R_BG_INODE_BITMAP_CSUM);
}
