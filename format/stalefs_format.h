/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stalefs on-disk format: the structures, constants and feature bits.
 *
 * This header is shared verbatim by the kernel module and the userspace
 * library (libstalefs); format/FORMAT.md is its prose twin.  Every field is
 * little-endian.  Userspace gets the kernel types from stalefs_compat.h.
 */
#ifndef STALEFS_FORMAT_H
#define STALEFS_FORMAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#define STALEFS_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#include "stalefs_compat.h"
#define STALEFS_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* ---- magic numbers: each metadata structure says what it is ---- */
#define STALEFS_SUPER_MAGIC	0x534C4653u	/* "SFLS" on disk */
#define STALEFS_EXT_MAGIC	0xF51Eu		/* extent header (root and nodes) */
#define STALEFS_EXTBLK_MAGIC	0x58544C53u	/* "SLTX": extent tree node block */
#define STALEFS_DIRBLK_MAGIC	0x52444C53u	/* "SLDR": directory block */
#define STALEFS_XATTR_MAGIC	0x41584C53u	/* "SLXA": xattr block and in-inode xattr area */

/* ---- geometry ---- */
#define STALEFS_SUPER_OFFSET	1024	/* primary superblock: byte 1024 of the device */
#define STALEFS_SUPER_SIZE	1024
#define STALEFS_MIN_LOG_BLOCK	10	/* 1024 */
#define STALEFS_MAX_LOG_BLOCK	12	/* 4096: the kernel needs block <= page */
#define STALEFS_INODE_SIZE	256	/* struct stalefs_inode; s_inode_size may be larger */
#define STALEFS_INODE_SIZE_MAX	1024	/* s_inode_size: a power of two, 256..min(this, block) */
#define STALEFS_DESC_SIZE	64
#define STALEFS_MIN_BLOCKS_PER_GROUP 256
#define STALEFS_MAX_LOG_GROUP	28	/* at most 2^28 blocks in a group */
#define STALEFS_JOURNAL_MIN_BLOCKS 1024	/* jbd2's smallest journal */
#define STALEFS_MAX_BLOCKS	(1ULL << 48)	/* extent pblk is 48 bits */
#define STALEFS_MAX_FILE_BLOCKS	0xFFFFFFFFULL	/* logical blocks are 32 bits */
#define STALEFS_NAME_LEN	255
#define STALEFS_SYMLINK_MAX	4095	/* one block at 4096; less on smaller blocks */
#define STALEFS_LINK_MAX	65000	/* links an inode may get (i_links_count is 16 bits) */

/* ---- reserved inode numbers ---- */
#define STALEFS_BAD_INO		1	/* reserved, never allocated */
#define STALEFS_ROOT_INO	2
#define STALEFS_FIRST_INO	11	/* first ordinary inode; mkfs makes lost+found here */

/* ---- superblock s_state ---- */
#define STALEFS_STATE_CLEAN	0x0001	/* unmounted cleanly */
#define STALEFS_STATE_ERRORS	0x0002	/* errors were detected */

/* ---- superblock s_errors: behaviour on a detected error ---- */
#define STALEFS_ERRORS_CONTINUE	1
#define STALEFS_ERRORS_RO	2
#define STALEFS_ERRORS_PANIC	3
#define STALEFS_ERRORS_VALID(e)	((e) >= STALEFS_ERRORS_CONTINUE && (e) <= STALEFS_ERRORS_PANIC)

/*
 * Limits on the tunable superblock fields, one place for every writer:
 * mkfs and tunefs check them, and so does the kernel's online change
 * (STALEFS_IOC_SET_TUNE, FS_IOC_SETFSLABEL in stalefs_ioctl.h).
 */
#define STALEFS_LABEL_MAX	31	/* s_volume_name bytes, less the NUL a reader may rely on */
#define STALEFS_MAX_MNT_COUNT_LIMIT 16000	/* s_max_mnt_count, as tune2fs; 0 turns the check off */

/* ---- feature flags ---- */
#define STALEFS_FEATURE_COMPAT_LAZY_ITABLE	0x0001	/* inode tables may be uninitialised past bg_itable_unused */
#define STALEFS_FEATURE_COMPAT_HAS_JOURNAL	0x0002	/* a jbd2 journal at s_journal_block (FORMAT.md 12) */
#define STALEFS_FEATURE_COMPAT_SUPP \
	(STALEFS_FEATURE_COMPAT_LAZY_ITABLE | STALEFS_FEATURE_COMPAT_HAS_JOURNAL)

#define STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE	0x0001	/* STALE extents may exist; s_stale_gid is set */
#define STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER	0x0002	/* backups only in groups 1 and powers of 3, 5, 7 */
#define STALEFS_FEATURE_RO_COMPAT_XATTR		0x0004	/* inodes may hold extended attributes (FORMAT.md 14) */
#define STALEFS_FEATURE_RO_COMPAT_SUPP \
	(STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE | STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER | \
	 STALEFS_FEATURE_RO_COMPAT_XATTR)

#define STALEFS_FEATURE_INCOMPAT_EXTENTS	0x0001	/* files are mapped by extent trees (always set) */
#define STALEFS_FEATURE_INCOMPAT_FILETYPE	0x0002	/* directory entries carry the file type (always set) */
#define STALEFS_FEATURE_INCOMPAT_RECOVER	0x0004	/* the journal may hold transactions to replay */
#define STALEFS_FEATURE_INCOMPAT_META_BG	0x0008	/* descriptor blocks past s_first_meta_bg live in their own groups */
#define STALEFS_FEATURE_INCOMPAT_SUPP \
	(STALEFS_FEATURE_INCOMPAT_EXTENTS | STALEFS_FEATURE_INCOMPAT_FILETYPE | \
	 STALEFS_FEATURE_INCOMPAT_RECOVER | STALEFS_FEATURE_INCOMPAT_META_BG)
#define STALEFS_FEATURE_INCOMPAT_REQUIRED \
	(STALEFS_FEATURE_INCOMPAT_EXTENTS | STALEFS_FEATURE_INCOMPAT_FILETYPE)

#define STALEFS_STALE_GID_NONE	0xFFFFFFFFu	/* no permitted group recorded */

/*
 * The superblock: 1024 bytes at byte 1024 of the device; backup copies at
 * byte 0 of the first block of each backup group (s_block_group_nr says
 * which).  s_checksum covers all 1024 bytes, seeded with s_csum_seed.
 */
struct stalefs_super_block {
	__le32	s_magic;		/* 0x000 STALEFS_SUPER_MAGIC */
	__le32	s_checksum;		/* 0x004 crc32 of the 1024 bytes, this field as zero */
	__le32	s_rev_level;		/* 0x008 format revision: 1 */
	__le32	s_log_block_size;	/* 0x00C block size = 1024 << this */
	__le64	s_blocks_count;		/* 0x010 blocks in the filesystem */
	__le64	s_free_blocks_count;	/* 0x018 free blocks (summary) */
	__le64	s_r_blocks_count;	/* 0x020 blocks reserved for root */
	__le32	s_inodes_count;		/* 0x028 inodes in the filesystem */
	__le32	s_free_inodes_count;	/* 0x02C free inodes (summary) */
	__le32	s_blocks_per_group;	/* 0x030 power of two, multiple of 8 * block size / 8 */
	__le32	s_inodes_per_group;	/* 0x034 multiple of inodes per block */
	__le32	s_groups_count;		/* 0x038 ceil(blocks / blocks_per_group) */
	__le16	s_inode_size;		/* 0x03C STALEFS_INODE_SIZE */
	__le16	s_desc_size;		/* 0x03E STALEFS_DESC_SIZE */
	__le32	s_feature_compat;	/* 0x040 */
	__le32	s_feature_ro_compat;	/* 0x044 */
	__le32	s_feature_incompat;	/* 0x048 */
	__le32	s_first_ino;		/* 0x04C first ordinary inode (11) */
	__le32	s_lpf_ino;		/* 0x050 lost+found, 0 if none */
	__le32	s_stale_gid;		/* 0x054 permitted group, STALEFS_STALE_GID_NONE if unset */
	__le32	s_csum_seed;		/* 0x058 crc32(~0, uuid): seeds every checksum */
	__le16	s_state;		/* 0x05C STALEFS_STATE_* */
	__le16	s_errors;		/* 0x05E STALEFS_ERRORS_* */
	__u8	s_uuid[16];		/* 0x060 */
	char	s_volume_name[32];	/* 0x070 label, NUL padded */
	char	s_last_mounted[64];	/* 0x090 directory last mounted on */
	__le64	s_mkfs_time;		/* 0x0D0 seconds since the epoch */
	__le64	s_mtime;		/* 0x0D8 last mount */
	__le64	s_wtime;		/* 0x0E0 last superblock write */
	__le64	s_lastcheck;		/* 0x0E8 last fsck */
	__le32	s_mnt_count;		/* 0x0F0 mounts since last fsck */
	__le32	s_error_count;		/* 0x0F4 errors recorded by the kernel */
	__le64	s_first_error_time;	/* 0x0F8 */
	__le64	s_first_error_block;	/* 0x100 */
	__le32	s_first_error_ino;	/* 0x108 */
	__le32	s_last_error_ino;	/* 0x10C */
	__le64	s_last_error_time;	/* 0x110 */
	__le64	s_last_error_block;	/* 0x118 */
	char	s_first_error_func[32];	/* 0x120 */
	char	s_last_error_func[32];	/* 0x140 */
	__le32	s_block_group_nr;	/* 0x160 group holding this copy */
	__le32	s_gdt_blocks;		/* 0x164 blocks of group descriptors */
	__le32	s_max_mnt_count;	/* 0x168 0: no mount-count check */
	__le32	s_checkinterval;	/* 0x16C seconds between checks, 0: no time-based check */
	__le64	s_journal_block;	/* 0x170 first block of the journal (its jbd2 superblock), 0: none */
	__le32	s_journal_blocks;	/* 0x178 journal length in blocks, 0: none */
	__le32	s_journal_pad;		/* 0x17C zero */
	__le32	s_first_meta_bg;	/* 0x180 META_BG: descriptor blocks kept as one table (FORMAT.md 4) */
	__u8	s_reserved[636];	/* 0x184 zero */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_super_block) == 1024, "superblock is 1024 bytes");
STALEFS_STATIC_ASSERT(STALEFS_LABEL_MAX < sizeof(((struct stalefs_super_block *)0)->s_volume_name),
		      "a label of STALEFS_LABEL_MAX bytes fits s_volume_name with its NUL");

/* ---- group descriptor flags ---- */
#define STALEFS_BG_INODE_UNINIT	0x0001	/* inode bitmap not written: all free */
#define STALEFS_BG_BLOCK_UNINIT	0x0002	/* block bitmap not written: only the group's metadata used */
#define STALEFS_BG_FLAGS_ALL	(STALEFS_BG_INODE_UNINIT | STALEFS_BG_BLOCK_UNINIT)

/*
 * Group descriptor: 64 bytes, s_groups_count of them in the blocks after the
 * superblock.  Bitmaps are raw bit arrays (so bit arithmetic stays simple);
 * their checksums live here, seeded with the group number, which is how a
 * bitmap block says where it belongs.
 */
struct stalefs_group_desc {
	__le64	bg_block_bitmap;	/* 0x00 first block of the block bitmap */
	__le64	bg_inode_bitmap;	/* 0x08 first block of the inode bitmap */
	__le64	bg_inode_table;		/* 0x10 first block of the inode table */
	__le32	bg_free_blocks_count;	/* 0x18 */
	__le32	bg_free_inodes_count;	/* 0x1C */
	__le32	bg_used_dirs_count;	/* 0x20 */
	__le32	bg_itable_unused;	/* 0x24 slots at the end of the table never initialised */
	__le16	bg_flags;		/* 0x28 STALEFS_BG_* */
	__le16	bg_reserved0;		/* 0x2A */
	__le32	bg_block_bitmap_csum;	/* 0x2C crc of the block bitmap (0 if BLOCK_UNINIT) */
	__le32	bg_inode_bitmap_csum;	/* 0x30 crc of the inode bitmap (0 if INODE_UNINIT) */
	__le32	bg_checksum;		/* 0x34 crc of this descriptor, seeded with the group number */
	__le32	bg_orphan_count;	/* 0x38 inodes of the group flagged ORPHAN (FORMAT.md 13) */
	__le32	bg_stale_count;		/* 0x3C inodes of the group flagged STALE (FORMAT.md 10) */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_group_desc) == 64, "group descriptor is 64 bytes");

/* ---- extents ---- */
#define STALEFS_EXT_UNWRITTEN	0x0001	/* allocated, reads as zeros */
#define STALEFS_EXT_STALE	0x0002	/* allocated without zeroing: exposes old contents */
#define STALEFS_EXT_FLAGS_ALL	(STALEFS_EXT_UNWRITTEN | STALEFS_EXT_STALE)
#define STALEFS_EXT_MAX_LEN	32768	/* blocks in one extent */
#define STALEFS_EXT_MAX_DEPTH	5

/* Header of every extent node: the root in the inode and each tree block. */
struct stalefs_extent_header {
	__le16	eh_magic;		/* 0x0 STALEFS_EXT_MAGIC */
	__le16	eh_entries;		/* 0x2 valid entries */
	__le16	eh_max;			/* 0x4 capacity */
	__le16	eh_depth;		/* 0x6 0: entries are extents; >0: index entries */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_extent_header) == 8, "extent header is 8 bytes");

/* Leaf entry: a run of logical blocks mapped to a run of physical blocks. */
struct stalefs_extent {
	__le32	ee_lblk;		/* 0x0 first logical block */
	__le16	ee_len;			/* 0x4 blocks, 1..STALEFS_EXT_MAX_LEN */
	__le16	ee_flags;		/* 0x6 STALEFS_EXT_* */
	__le64	ee_pblk;		/* 0x8 first physical block */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_extent) == 16, "extent is 16 bytes");

/* Index entry: the subtree covering logical blocks from ei_lblk on. */
struct stalefs_extent_idx {
	__le32	ei_lblk;		/* 0x0 first logical block covered */
	__le32	ei_reserved;		/* 0x4 zero */
	__le64	ei_pblk;		/* 0x8 block holding the child node */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_extent_idx) == 16, "extent index is 16 bytes");

/* Tree node block: this header, then the extent header, then entries. */
struct stalefs_extent_block {
	__le32	eb_magic;		/* 0x00 STALEFS_EXTBLK_MAGIC */
	__le32	eb_checksum;		/* 0x04 crc of the whole block */
	__le64	eb_blocknr;		/* 0x08 this block's own number */
	__le32	eb_owner;		/* 0x10 owning inode */
	__le32	eb_owner_gen;		/* 0x14 owning inode's generation */
	__le64	eb_reserved;		/* 0x18 zero */
	struct stalefs_extent_header eb_hdr;	/* 0x20 */
	/* 0x28: eh_max entries of 16 bytes */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_extent_block) == 40, "extent block header is 40 bytes");

/* ---- inodes ---- */
#define STALEFS_IBLOCK_SIZE	120	/* extent root: header + 7 entries, or inline symlink */
#define STALEFS_ROOT_EXTENTS	((STALEFS_IBLOCK_SIZE - 8) / 16)
#define STALEFS_INLINE_SYMLINK_MAX (STALEFS_IBLOCK_SIZE - 1)

#define STALEFS_INODE_STALE_FL		0x00000001	/* holds STALE extents */
#define STALEFS_INODE_SECRM_FL		0x00000002	/* unused, reserved */
#define STALEFS_INODE_SYNC_FL		0x00000008
#define STALEFS_INODE_IMMUTABLE_FL	0x00000010
#define STALEFS_INODE_APPEND_FL		0x00000020
#define STALEFS_INODE_NODUMP_FL		0x00000040
#define STALEFS_INODE_NOATIME_FL	0x00000080
#define STALEFS_INODE_ORPHAN_FL		0x02000000	/* unlinked while open, or mid-truncate (FORMAT.md 13) */
#define STALEFS_INODE_INLINE_FL		0x10000000	/* i_block holds a symlink target */
#define STALEFS_INODE_FLAGS_ALL \
	(STALEFS_INODE_STALE_FL | STALEFS_INODE_SYNC_FL | STALEFS_INODE_IMMUTABLE_FL | \
	 STALEFS_INODE_APPEND_FL | STALEFS_INODE_NODUMP_FL | STALEFS_INODE_NOATIME_FL | \
	 STALEFS_INODE_ORPHAN_FL | STALEFS_INODE_INLINE_FL)
#define STALEFS_INODE_USER_FLAGS \
	(STALEFS_INODE_SYNC_FL | STALEFS_INODE_IMMUTABLE_FL | STALEFS_INODE_APPEND_FL | \
	 STALEFS_INODE_NODUMP_FL | STALEFS_INODE_NOATIME_FL)

struct stalefs_inode {
	__le16	i_mode;			/* 0x00 type and permissions (S_IF*) */
	__le16	i_links_count;		/* 0x02 hard links */
	__le32	i_flags;		/* 0x04 STALEFS_INODE_*_FL */
	__le32	i_uid;			/* 0x08 */
	__le32	i_gid;			/* 0x0C */
	__le64	i_size;			/* 0x10 bytes */
	__le64	i_blocks;		/* 0x18 filesystem blocks held: data and tree nodes */
	__le64	i_atime;		/* 0x20 signed seconds since the epoch */
	__le64	i_ctime;		/* 0x28 */
	__le64	i_mtime;		/* 0x30 */
	__le64	i_crtime;		/* 0x38 */
	__le32	i_atime_nsec;		/* 0x40 */
	__le32	i_ctime_nsec;		/* 0x44 */
	__le32	i_mtime_nsec;		/* 0x48 */
	__le32	i_crtime_nsec;		/* 0x4C */
	__le64	i_dtime;		/* 0x50 deletion time; 0 while in use */
	__le32	i_generation;		/* 0x58 */
	__le32	i_rdev;			/* 0x5C device number (new_encode_dev) */
	__le32	i_ino;			/* 0x60 this inode's own number */
	__le32	i_checksum;		/* 0x64 crc of the 256 bytes, seeded with ino and generation */
	__le64	i_xattr_block;		/* 0x68 external xattr block, 0 for none (FORMAT.md 14) */
	__u8	i_block[STALEFS_IBLOCK_SIZE];	/* 0x70 extent root or inline symlink */
	__u8	i_reserved[24];		/* 0xE8 zero */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_inode) == STALEFS_INODE_SIZE, "inode is 256 bytes");

/* ---- extended attributes (FORMAT.md 14) ---- */
#define STALEFS_XATTR_INDEX_USER		1	/* "user." */
#define STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS	2	/* "system.posix_acl_access", empty suffix */
#define STALEFS_XATTR_INDEX_POSIX_ACL_DEFAULT	3	/* "system.posix_acl_default", empty suffix */
#define STALEFS_XATTR_INDEX_TRUSTED		4	/* "trusted." */
#define STALEFS_XATTR_INDEX_SECURITY		6	/* "security." */
#define STALEFS_XATTR_NAME_MAX			255	/* suffix bytes, as ext4 */

/* In-inode area: bytes 256..s_inode_size of an inode slot; all zero = no attributes. */
struct stalefs_xattr_ibody_header {
	__le32	xh_magic;		/* 0x0 STALEFS_XATTR_MAGIC */
	__le32	xh_checksum;		/* 0x4 crc of the area, seeded with ino and generation */
	/* 0x8: entries */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_xattr_ibody_header) == 8, "in-inode xattr header is 8 bytes");

/* External block, owned by exactly one inode (never shared). */
struct stalefs_xattr_block {
	__le32	xb_magic;		/* 0x00 STALEFS_XATTR_MAGIC */
	__le32	xb_checksum;		/* 0x04 crc of the whole block */
	__le64	xb_blocknr;		/* 0x08 this block's own number */
	__le32	xb_owner;		/* 0x10 owning inode */
	__le32	xb_owner_gen;		/* 0x14 owning inode's generation */
	__le64	xb_reserved;		/* 0x18 zero */
	/* 0x20: entries */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_xattr_block) == 32, "xattr block header is 32 bytes");

/* One attribute: this, the name suffix, the value, zero padding to 4 bytes. */
struct stalefs_xattr_entry {
	__u8	xe_name_index;		/* 0x0 STALEFS_XATTR_INDEX_*; 0 ends the list */
	__u8	xe_name_len;		/* 0x1 suffix bytes (0 only for the ACL indexes) */
	__le16	xe_value_size;		/* 0x2 value bytes */
	/* 0x4: name, then value */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_xattr_entry) == 4, "xattr entry header is 4 bytes");

/* ---- i_mode file types (the Linux values, spelled out so the format needs no libc) ---- */
#define STALEFS_S_IFMT		0170000
#define STALEFS_S_IFSOCK	0140000
#define STALEFS_S_IFLNK		0120000
#define STALEFS_S_IFREG		0100000
#define STALEFS_S_IFBLK		0060000
#define STALEFS_S_IFDIR		0040000
#define STALEFS_S_IFCHR		0020000
#define STALEFS_S_IFIFO		0010000
#define STALEFS_S_IROTH		0000004
#define STALEFS_S_IRWXO		0000007	/* others' permission bits: none on a file holding STALE extents (S4) */

/* ---- directories ---- */
#define STALEFS_FT_UNKNOWN	0
#define STALEFS_FT_REG		1
#define STALEFS_FT_DIR		2
#define STALEFS_FT_CHRDEV	3
#define STALEFS_FT_BLKDEV	4
#define STALEFS_FT_FIFO		5
#define STALEFS_FT_SOCK		6
#define STALEFS_FT_SYMLINK	7
#define STALEFS_FT_MAX		8

/* Every directory block starts with this header. */
struct stalefs_dir_block {
	__le32	db_magic;		/* 0x00 STALEFS_DIRBLK_MAGIC */
	__le32	db_checksum;		/* 0x04 crc of the whole block */
	__le64	db_blocknr;		/* 0x08 this block's own number */
	__le32	db_owner;		/* 0x10 owning directory inode */
	__le32	db_lblk;		/* 0x14 logical block within the directory */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_dir_block) == 24, "directory block header is 24 bytes");

/* Entries follow the header and fill the block exactly (rec_len chain). */
struct stalefs_dir_entry {
	__le32	inode;			/* 0x0 0: unused slot */
	__le16	rec_len;		/* 0x4 bytes to the next entry, multiple of 4 */
	__u8	name_len;		/* 0x6 */
	__u8	file_type;		/* 0x7 STALEFS_FT_* */
	char	name[];			/* 0x8 not NUL terminated */
};
STALEFS_STATIC_ASSERT(sizeof(struct stalefs_dir_entry) == 8, "directory entry header is 8 bytes");

#define STALEFS_DIR_REC_LEN(name_len)	((8u + (name_len) + 3u) & ~3u)

#endif /* STALEFS_FORMAT_H */
