/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pure format code shared by the kernel module and libstalefs:
 * geometry, checksums and verifiers.  Nothing here does I/O or allocates.
 */
#ifndef STALEFS_CORE_H
#define STALEFS_CORE_H

#include "../stalefs_format.h"

#ifdef __KERNEL__
/* What the core uses from the kernel: byte order, offsetof, memset. */
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#include <linux/crc32.h>
#define stalefs_crc32_le(crc, p, len) crc32_le((crc), (const unsigned char *)(p), (len))
#endif

/* ---- geometry derived from a superblock ---- */
struct stalefs_geom {
	u32 block_size;
	u32 log_block_size;	/* log2(block_size) */
	u64 blocks_count;
	u32 blocks_per_group;
	u32 log_blocks_per_group;
	u32 inodes_per_group;
	u32 groups_count;
	u32 inodes_count;
	u32 inode_size;			/* s_inode_size: the stride of an inode table */
	u32 inodes_per_block;
	u32 desc_per_block;
	u32 gdt_blocks;
	u32 block_bitmap_blocks;	/* per group */
	u32 inode_bitmap_blocks;	/* per group */
	u32 inode_table_blocks;		/* per group */
	u32 sb_block;			/* block holding the primary superblock */
	bool sparse_super;
	/*
	 * META_BG (FORMAT.md 4): descriptor blocks from first_meta_bg on live in
	 * the first, second and last group of the groups they describe; the
	 * blocks before it form the table after each superblock copy.  Without
	 * META_BG, first_meta_bg is gdt_blocks: the whole table is one.
	 */
	bool meta_bg;
	u32 first_meta_bg;
};

/* Fills g from the counts that define a layout; returns a rule (0 = ok). */
int stalefs_geom_init(struct stalefs_geom *g, u32 log_block_size, u64 blocks_count,
		      u32 blocks_per_group, u32 inodes_per_group, u32 inode_size, bool sparse_super);
/* s_inode_size is a power of two from 256 to the block size and STALEFS_INODE_SIZE_MAX. */
bool stalefs_inode_size_valid(u32 inode_size, u32 block_size);
int stalefs_geom_from_super(struct stalefs_geom *g, const struct stalefs_super_block *sb);
/*
 * The same filesystem at another size (a resize): g from old with
 * blocks_count and, when meta_bg, the descriptor blocks from first_meta_bg
 * on kept in their groups.  Returns a rule as stalefs_geom_init.
 */
int stalefs_geom_resize(struct stalefs_geom *g, const struct stalefs_geom *old, u64 blocks_count,
			bool meta_bg, u32 first_meta_bg);
/* Descriptor blocks a filesystem of `groups` groups needs. */
u32 stalefs_gdt_blocks_for(const struct stalefs_geom *g, u64 groups);

bool stalefs_group_has_super(const struct stalefs_geom *g, u32 group);
u64 stalefs_group_first_block(const struct stalefs_geom *g, u32 group);
u32 stalefs_group_nblocks(const struct stalefs_geom *g, u32 group);
/* Blocks used by the superblock copy and descriptor table at the group start. */
u32 stalefs_group_super_blocks(const struct stalefs_geom *g, u32 group);
/* Is the group's descriptor in the one table (always, without META_BG)?  Such a group with a
 * superblock copy holds a copy of the table. */
bool stalefs_group_in_table(const struct stalefs_geom *g, u32 group);
/* Descriptor blocks the group holds a copy of (0, 1 with META_BG, or the table). */
u32 stalefs_group_gdt_blocks(const struct stalefs_geom *g, u32 group);
/* The descriptor block covering `group` (its index in the table). */
static inline u32 stalefs_gdt_index(const struct stalefs_geom *g, u32 group)
{
	return group / g->desc_per_block;
}
/*
 * Where descriptor block i lies as the superblock copy in group `view`
 * sees it: view 0 is the primary (the one mount and the tools use); a
 * backup reads the table after itself (group 1's when it has none, being
 * past the table's groups), and META_BG blocks from their group's second
 * group when it exists (FORMAT.md 4).
 */
u64 stalefs_gdt_block_loc(const struct stalefs_geom *g, u32 view, u32 i);
/* Is block a copy of a descriptor block?  Then in which group, and which block of the table. */
bool stalefs_block_is_gdt(const struct stalefs_geom *g, u64 block, u32 *group, u32 *index);
/* Every copy of descriptor block i: the primary first; returns how many (at most 3 with META_BG,
 * else the groups holding a superblock copy, which may be many: max bounds what is stored). */
u32 stalefs_gdt_block_copies(const struct stalefs_geom *g, u32 i, u64 *out, u32 max);
/* All metadata blocks of a group: super/GDT copy, both bitmaps, inode table. */
u32 stalefs_group_meta_blocks(const struct stalefs_geom *g, u32 group);
/* Default placement of a group's bitmaps and table, as mkfs lays them out. */
void stalefs_group_default_layout(const struct stalefs_geom *g, u32 group,
				  u64 *block_bitmap, u64 *inode_bitmap, u64 *inode_table);

/* ---- resizing (resize_geom.c) ---- */
/*
 * The geometry of the filesystem `old` at `want` blocks: the descriptor table keeps the
 * blocks it has and META_BG carries the rest (it goes away again when a shrink fits the
 * table); a last group too small for its own metadata is left off (ng->blocks_count says
 * what was kept).  Returns a rule (0 = ok).
 */
int stalefs_resize_geometry(const struct stalefs_geom *old, u64 want, struct stalefs_geom *ng);
/* A new group's descriptor as mkfs and a grow make it (checksummed): bitmaps uninitialised,
 * every inode free, the inode table unused (lazy_itable) or zeroed by the caller. */
void stalefs_desc_init_new(const struct stalefs_geom *g, u32 group, bool lazy_itable, u32 seed,
			   struct stalefs_group_desc *d);
/* The superblock's size fields for geometry ng (the root reserve scaled, META_BG and
 * s_first_meta_bg, the free counts given); the checksum is the caller's. */
void stalefs_super_resize(struct stalefs_super_block *sb, const struct stalefs_geom *ng,
			  u64 free_blocks, u32 free_inodes);

/* ---- a group's own metadata (group_meta.c) ---- */
enum stalefs_group_meta {
	STALEFS_GM_SUPER,		/* superblock copy and descriptor table (len 0 without one) */
	STALEFS_GM_BLOCK_BITMAP,
	STALEFS_GM_INODE_BITMAP,
	STALEFS_GM_INODE_TABLE,
	STALEFS_GM_COUNT
};
struct stalefs_brange {
	u64 start, len;
};
/* Where the group's metadata lies, as its descriptor d places it. */
void stalefs_group_meta_ranges(const struct stalefs_geom *g, u32 group,
			       const struct stalefs_group_desc *d,
			       struct stalefs_brange r[STALEFS_GM_COUNT]);
bool stalefs_group_meta_overlaps(const struct stalefs_geom *g, u32 group,
				 const struct stalefs_group_desc *d, u64 start, u64 len);
/* Each world keeps its descriptors its own way; the core asks through this. */
typedef const struct stalefs_group_desc *(*stalefs_desc_fn)(void *priv, u32 group);
/* Does [start, start+len) touch the boot area or the metadata of any group it spans? */
bool stalefs_range_on_group_meta(const struct stalefs_geom *g, stalefs_desc_fn desc, void *priv,
				 u64 start, u64 len);
/* [start, start+len) lies inside the group, past its superblock copy and descriptor table. */
bool stalefs_group_data_holds(const struct stalefs_geom *g, u32 group, u64 start, u64 len);
/* The bitmaps and table d places outside the group's data or on each other: bits 1 << STALEFS_GM_*. */
u32 stalefs_desc_misplaced(const struct stalefs_geom *g, u32 group, const struct stalefs_group_desc *d);
/* The block bitmap of a group never written (BLOCK_UNINIT): its metadata, and the bits past its end. */
void stalefs_group_uninit_block_bitmap(const struct stalefs_geom *g, u32 group,
				       const struct stalefs_group_desc *d, u8 *map, u32 bytes);

u32 stalefs_block_group(const struct stalefs_geom *g, u64 block);
u32 stalefs_ino_group(const struct stalefs_geom *g, u32 ino);
/* Inode location: block within the table and byte offset within that block. */
void stalefs_ino_locate(const struct stalefs_geom *g, const struct stalefs_group_desc *d,
			u32 ino, u64 *block, u32 *offset);
u32 stalefs_extblock_max_entries(u32 block_size);
/*
 * The journal [start, start+len) as the superblock may record it: at least
 * STALEFS_JOURNAL_MIN_BLOCKS, inside one group, past its superblock copy and
 * descriptor table (the bitmaps and inode table are checked against the
 * descriptors by whoever has them).
 */
bool stalefs_journal_range_ok(const struct stalefs_geom *g, u64 start, u64 len);

/* ---- extents and tree nodes (extent_rules.c) ---- */
/* One extent in memory: a leaf entry, decoded. */
struct stalefs_ext {
	u32 lblk;
	u32 len;
	u64 pblk;
	u16 flags;
};
static inline u64 stalefs_ext_end(const struct stalefs_ext *e)
{
	return (u64)e->lblk + e->len;
}
void stalefs_ext_decode(const struct stalefs_extent *d, struct stalefs_ext *e);
void stalefs_ext_encode(struct stalefs_extent *d, const struct stalefs_ext *e);
/* b follows a on disk and in the file, with the same flags, and the sum fits one extent. */
bool stalefs_ext_mergeable(const struct stalefs_ext *a, const struct stalefs_ext *b);
/* Cut e at logical block at (strictly inside it): e keeps the head, *tail gets the rest. */
void stalefs_ext_split(struct stalefs_ext *e, u32 at, struct stalefs_ext *tail);
/* In a sorted run of n extents, the index of the first one ending after lblk (n if none). */
u32 stalefs_ext_array_search(const struct stalefs_ext *a, u32 n, u32 lblk);
void stalefs_eh_init(struct stalefs_extent_header *eh, u32 entries, u32 max, u32 depth);
/* An inode's empty tree: the root header alone, in the STALEFS_IBLOCK_SIZE bytes of i_block. */
void stalefs_extent_root_init(struct stalefs_extent_header *root);
/* A zeroed node block with its head (magic, location, owner) and a header for entries. */
void stalefs_extblock_init(void *block, u32 block_size, u64 blocknr, u32 owner, u32 owner_gen,
			   u32 depth, u32 entries);
/*
 * The index levels above nleaves leaves of node_cap entries, until the root
 * (STALEFS_ROOT_EXTENTS entries, in the inode) holds the top: level_count[0]
 * is the leaves, *depth the root's depth, *nindex the index node blocks.
 * -1 when that takes more than STALEFS_EXT_MAX_DEPTH levels.
 */
int stalefs_ext_tree_levels(u32 nleaves, u32 node_cap, u32 level_count[STALEFS_EXT_MAX_DEPTH + 1],
			    u32 *depth, u32 *nindex);

/* ---- directory blocks (dir_rules.c); callers checksum and journal ---- */
/* An entry with its name, padding zeroed. */
void stalefs_dirent_put(struct stalefs_dir_entry *de, u32 ino, u32 rec_len, const char *name,
			u32 len, u8 file_type);
/* "." or "..". */
bool stalefs_dirent_is_dots(const struct stalefs_dir_entry *de);
/* An empty directory block: the header, one unused entry spanning the rest. */
void stalefs_dirblock_init(void *block, u32 block_size, u64 blocknr, u32 owner, u32 lblk);
/* Block 0 of a new directory: "." and "..", the second spanning the rest. */
void stalefs_dirblock_init_dots(void *block, u32 block_size, u64 blocknr, u32 dir, u32 parent);
/* Offset of the first entry with room after it for a name of name_len bytes (0: none). */
u32 stalefs_dirblock_find_room(const void *block, u32 block_size, u32 name_len);
/* Put the entry at the room stalefs_dirblock_find_room gave; returns the new entry's offset. */
u32 stalefs_dirblock_place(void *block, u32 off, u32 ino, const char *name, u32 len, u8 file_type);
/* Remove the entry at off; prev_off is the entry before it in the block, 0 if it is the first. */
void stalefs_dirblock_remove(void *block, u32 off, u32 prev_off);

/* ---- checksums (CRC32 as the kernel's crc32_le, seeded per filesystem) ---- */
u32 stalefs_csum_seed_from_uuid(const u8 uuid[16]);
u32 stalefs_super_csum(const struct stalefs_super_block *sb);
u32 stalefs_desc_csum(u32 seed, u32 group, const struct stalefs_group_desc *d);
u32 stalefs_bitmap_csum(u32 seed, u32 group, const void *bitmap, u32 len);
u32 stalefs_inode_csum(u32 seed, u32 ino, const struct stalefs_inode *inode);
u32 stalefs_extblock_csum(u32 seed, const void *block, u32 block_size);
u32 stalefs_dirblock_csum(u32 seed, const void *block, u32 block_size);

void stalefs_super_set_csum(struct stalefs_super_block *sb);
void stalefs_desc_set_csum(u32 seed, u32 group, struct stalefs_group_desc *d);
void stalefs_inode_set_csum(u32 seed, u32 ino, struct stalefs_inode *inode);
void stalefs_extblock_set_csum(u32 seed, void *block, u32 block_size);
void stalefs_dirblock_set_csum(u32 seed, void *block, u32 block_size);

/*
 * ---- verifiers ----
 * Each returns 0 when the structure is well formed, otherwise the rule it
 * breaks (STALEFS_R_*), which stalefs_rule_msg() names.  Checksums are
 * checked by separate calls, so a caller can ignore them (debugfs -n).
 */
enum stalefs_rule {
	STALEFS_R_OK = 0,
	/* superblock */
	STALEFS_R_SB_MAGIC,
	STALEFS_R_SB_CSUM,
	STALEFS_R_SB_REV,
	STALEFS_R_SB_BLOCK_SIZE,
	STALEFS_R_SB_BLOCKS_COUNT,
	STALEFS_R_SB_BLOCKS_PER_GROUP,
	STALEFS_R_SB_INODES_PER_GROUP,
	STALEFS_R_SB_GROUPS_COUNT,
	STALEFS_R_SB_INODES_COUNT,
	STALEFS_R_SB_INODE_SIZE,
	STALEFS_R_SB_DESC_SIZE,
	STALEFS_R_SB_GDT_BLOCKS,
	STALEFS_R_SB_FIRST_INO,
	STALEFS_R_SB_FREE_BLOCKS,
	STALEFS_R_SB_FREE_INODES,
	STALEFS_R_SB_R_BLOCKS,
	STALEFS_R_SB_STATE,
	STALEFS_R_SB_ERRORS,
	STALEFS_R_SB_INCOMPAT_UNKNOWN,
	STALEFS_R_SB_INCOMPAT_MISSING,
	STALEFS_R_SB_RO_COMPAT_UNKNOWN,
	STALEFS_R_SB_STALE_NO_GID,
	STALEFS_R_SB_STALE_GID_NO_FEATURE,
	STALEFS_R_SB_LPF_INO,
	STALEFS_R_SB_JOURNAL_RANGE,
	STALEFS_R_SB_JOURNAL_NO_FEATURE,
	STALEFS_R_SB_RECOVER_NO_JOURNAL,
	STALEFS_R_SB_META_BG,
	/* group descriptor */
	STALEFS_R_BG_CSUM,
	STALEFS_R_BG_BLOCK_BITMAP,
	STALEFS_R_BG_INODE_BITMAP,
	STALEFS_R_BG_INODE_TABLE,
	STALEFS_R_BG_FREE_BLOCKS,
	STALEFS_R_BG_FREE_INODES,
	STALEFS_R_BG_USED_DIRS,
	STALEFS_R_BG_ITABLE_UNUSED,
	STALEFS_R_BG_FLAGS,
	STALEFS_R_BG_BLOCK_BITMAP_CSUM,
	STALEFS_R_BG_INODE_BITMAP_CSUM,
	STALEFS_R_BG_ORPHANS,
	STALEFS_R_BG_STALE_COUNT,
	/* inode */
	STALEFS_R_INODE_CSUM,
	STALEFS_R_INODE_INO,
	STALEFS_R_INODE_MODE,
	STALEFS_R_INODE_FLAGS,
	STALEFS_R_INODE_INLINE_NOT_SYMLINK,
	STALEFS_R_INODE_INLINE_SIZE,
	STALEFS_R_INODE_STALE_NOT_REG,
	STALEFS_R_INODE_DTIME,
	STALEFS_R_INODE_NSEC,
	STALEFS_R_INODE_SIZE,
	STALEFS_R_INODE_RESERVED,
	/* extent nodes */
	STALEFS_R_EXT_MAGIC,
	STALEFS_R_EXT_MAX,
	STALEFS_R_EXT_ENTRIES,
	STALEFS_R_EXT_DEPTH,
	STALEFS_R_EXT_LEN,
	STALEFS_R_EXT_FLAGS_UNKNOWN,
	STALEFS_R_EXT_UNWRITTEN_AND_STALE,
	STALEFS_R_EXT_PBLK_RANGE,
	STALEFS_R_EXT_LBLK_RANGE,
	STALEFS_R_EXT_UNSORTED,
	STALEFS_R_EXT_OVERLAP,
	STALEFS_R_EXT_IDX_RESERVED,
	STALEFS_R_EXTBLK_MAGIC,
	STALEFS_R_EXTBLK_CSUM,
	STALEFS_R_EXTBLK_BLOCKNR,
	STALEFS_R_EXTBLK_OWNER,
	STALEFS_R_EXTBLK_RESERVED,
	/* directory blocks */
	STALEFS_R_DIR_MAGIC,
	STALEFS_R_DIR_CSUM,
	STALEFS_R_DIR_BLOCKNR,
	STALEFS_R_DIR_OWNER,
	STALEFS_R_DIR_LBLK,
	STALEFS_R_DIR_REC_LEN,
	STALEFS_R_DIR_NAME_LEN,
	STALEFS_R_DIR_NAME,
	STALEFS_R_DIR_FILE_TYPE,
	STALEFS_R_DIR_INODE,
	/* extended attributes: external block and in-inode area */
	STALEFS_R_XATTR_MAGIC,
	STALEFS_R_XATTR_CSUM,
	STALEFS_R_XATTR_BLOCKNR,
	STALEFS_R_XATTR_OWNER,
	STALEFS_R_XATTR_RESERVED,
	STALEFS_R_XATTR_INDEX,
	STALEFS_R_XATTR_NAME,
	STALEFS_R_XATTR_OVERRUN,
	STALEFS_R_XATTR_PADDING,
	STALEFS_R_XATTR_DUPLICATE,
	STALEFS_R_XATTR_TAIL,
	STALEFS_R_MAX
};

const char *stalefs_rule_msg(int rule);

int stalefs_verify_super(const struct stalefs_super_block *sb);
int stalefs_verify_super_csum(const struct stalefs_super_block *sb);
int stalefs_verify_desc(const struct stalefs_geom *g, u32 group, const struct stalefs_group_desc *d);
int stalefs_verify_desc_csum(u32 seed, u32 group, const struct stalefs_group_desc *d);
/* An in-use inode (i_mode != 0); free slots are not verified. */
int stalefs_verify_inode(const struct stalefs_geom *g, u32 ino, const struct stalefs_inode *inode);
int stalefs_verify_inode_csum(u32 seed, u32 ino, const struct stalefs_inode *inode);
/* The node header alone (magic, max, entries, depth; expect_depth -1: any): what a
 * checker that judges each entry itself needs before it may look at the entries. */
int stalefs_verify_extent_header(const struct stalefs_extent_header *eh, u32 max_entries, int expect_depth);
/* A node's header and entries; max_entries is what the node can hold. */
int stalefs_verify_extent_node(const struct stalefs_geom *g, const struct stalefs_extent_header *eh,
			       u32 max_entries, int expect_depth);
int stalefs_verify_extblock_header(const void *block, u64 blocknr, u32 owner, u32 owner_gen);
int stalefs_verify_extblock_csum(u32 seed, const void *block, u32 block_size);
/* The header alone (magic, location, owner): cheap enough for every use of a cached block. */
int stalefs_verify_dirblock_header(const void *block, u64 blocknr, u32 owner, u32 lblk);
/* The entry at off (off < block_size) against the chain: its rec_len (REC_LEN: nothing after it
 * can be found) and, in use, whether its name fits (NAME_LEN).  The rules every walker shares. */
int stalefs_verify_dirent_fit(const void *block, u32 block_size, u32 off);
int stalefs_verify_dirblock(const void *block, u32 block_size, u64 blocknr, u32 owner, u32 lblk);
int stalefs_verify_dirblock_csum(u32 seed, const void *block, u32 block_size);
/* Every entry's inode: 0 (unused), the root, or an ordinary inode of the filesystem.
 * Call after stalefs_verify_dirblock (it walks the rec_len chain that one checked). */
int stalefs_verify_dirblock_inodes(const struct stalefs_geom *g, const void *block);
/* A group's bitmap against the checksum its descriptor holds (0 while the bitmap is
 * uninitialised, when the bitmap itself is not looked at). */
int stalefs_verify_block_bitmap_csum(u32 seed, u32 group, const struct stalefs_group_desc *d,
				     const void *bitmap, u32 len);
int stalefs_verify_inode_bitmap_csum(u32 seed, u32 group, const struct stalefs_group_desc *d,
				     const void *bitmap, u32 len);

/* ---- extended attributes (xattr_rules.c; FORMAT.md 14) ----
 * A region is the entry list of an xattr block (past its header) or of an in-inode area
 * (past its 8-byte header).  Entries are packed from the region start; the list ends at
 * an entry whose name index is 0, or at the region end. */
struct stalefs_xattr_ref {
	u32 off;			/* entry offset in the region */
	u8 index;
	u8 name_len;
	u16 value_size;
	const char *name;		/* name_len bytes, not NUL-terminated */
	const u8 *value;
};
/* "user.x" -> USER, "x"; system.posix_acl_* -> their index, "".  False: no known prefix. */
bool stalefs_xattr_split(const char *full, u8 *index, const char **suffix);
/* The full-name prefix of an index ("user.", "system.posix_acl_access"), NULL if unknown. */
const char *stalefs_xattr_prefix(u8 index);
static inline u32 stalefs_xattr_entry_len(u32 name_len, u32 value_size)
{
	return (u32)sizeof(struct stalefs_xattr_entry) + ((name_len + value_size + 3) & ~3u);
}
/* Entry at off; false at the end of the list (or when the entry breaks a rule: check first). */
bool stalefs_xattr_entry_at(const u8 *region, u32 len, u32 off, struct stalefs_xattr_ref *ref);
/* Every rule of a region; *used (may be NULL) is the bytes the entries take. */
int stalefs_xattr_region_check(const u8 *region, u32 len, u32 *used);
/* Offset of the entry named (index, name), or -1. */
int stalefs_xattr_find(const u8 *region, u32 len, u8 index, const char *name, u32 name_len);
/* Bytes the entries take (region must have passed the check). */
u32 stalefs_xattr_region_used(const u8 *region, u32 len);
/* Removes the entry at off, closing the gap and zeroing the freed tail. */
void stalefs_xattr_remove(u8 *region, u32 len, u32 off);
/* Appends an entry; -1 when it does not fit (the caller says ENOSPC). */
int stalefs_xattr_append(u8 *region, u32 len, u8 index, const char *name, u32 name_len,
			 const void *value, u32 value_size);
void stalefs_xattr_block_init(void *block, u32 block_size, u64 blocknr, u32 owner, u32 owner_gen);
static inline u8 *stalefs_xattr_block_region(void *block)
{
	return (u8 *)block + sizeof(struct stalefs_xattr_block);
}
static inline u32 stalefs_xattr_block_region_len(u32 block_size)
{
	return block_size - (u32)sizeof(struct stalefs_xattr_block);
}
/* The in-inode area of a slot of g->inode_size bytes (len 0: inodes have none). */
static inline u32 stalefs_xattr_ibody_len(const struct stalefs_geom *g)
{
	return g->inode_size > STALEFS_INODE_SIZE ? g->inode_size - STALEFS_INODE_SIZE : 0;
}
static inline u8 *stalefs_xattr_ibody_region(void *area)
{
	return (u8 *)area + sizeof(struct stalefs_xattr_ibody_header);
}
/* An area is empty (no attributes) while its header is all zero. */
bool stalefs_xattr_ibody_empty(const void *area);
void stalefs_xattr_ibody_init(void *area, u32 area_len);
u32 stalefs_xattr_block_csum(u32 seed, const void *block, u32 block_size);
void stalefs_xattr_block_set_csum(u32 seed, void *block, u32 block_size);
u32 stalefs_xattr_ibody_csum(u32 seed, u32 ino, u32 generation, const void *area, u32 area_len);
void stalefs_xattr_ibody_set_csum(u32 seed, u32 ino, u32 generation, void *area, u32 area_len);
/* Header (magic, location, owner, reserved) and entries; the checksum is separate. */
int stalefs_verify_xattr_block(const void *block, u32 block_size, u64 blocknr, u32 owner,
			       u32 owner_gen);
/*
 * The header alone: magic, own block number, owner.  What freeing an inode's
 * block asks (its entries may be damaged; it is still the inode's to free).
 */
int stalefs_verify_xattr_block_owner(const void *block, u64 blocknr, u32 owner, u32 owner_gen);
int stalefs_verify_xattr_block_csum(u32 seed, const void *block, u32 block_size);
/* A non-empty in-inode area: magic and entries (checksum separate, below). */
int stalefs_verify_xattr_ibody(const void *area, u32 area_len);
int stalefs_verify_xattr_ibody_csum(u32 seed, u32 ino, u32 generation, const void *area,
				    u32 area_len);

/* ---- small helpers ---- */
static inline const struct stalefs_extent_header *stalefs_inode_eh(const struct stalefs_inode *inode)
{
	return (const struct stalefs_extent_header *)inode->i_block;
}
static inline struct stalefs_extent_header *stalefs_extblock_eh(void *block)
{
	return &((struct stalefs_extent_block *)block)->eb_hdr;
}
static inline struct stalefs_extent *stalefs_eh_extents(const struct stalefs_extent_header *eh)
{
	return (struct stalefs_extent *)(eh + 1);
}
static inline struct stalefs_extent_idx *stalefs_eh_index(const struct stalefs_extent_header *eh)
{
	return (struct stalefs_extent_idx *)(eh + 1);
}
/* i_mode type to directory entry file type. */
u8 stalefs_mode_to_ft(u16 mode);
bool stalefs_mode_valid(u16 mode);
bool stalefs_inode_has_extents(const struct stalefs_inode *inode);

#endif /* STALEFS_CORE_H */
