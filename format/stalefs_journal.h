/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The journal's on-disk format: jbd2's, the kernel's journaling layer
 * (ext4, ocfs2), as stalefs uses it.  FORMAT.md section 12 is its prose twin
 * and tests/unit/test_layout.c pins every offset.
 *
 * Unlike the rest of stalefs every integer here is BIG-endian, because jbd2
 * writes it so.  The kernel module does not use this header (it drives the
 * kernel's own jbd2); kernel/journal.c asserts at build time that the
 * numbers below are jbd2's.  The tools (mkfs, fsck's replay, debugfs
 * logdump) read and write journals through these structures.
 *
 * What stalefs uses of jbd2: a journal superblock of version 2, block tags
 * of version 3 (64-bit block numbers and a CRC32C per block), revoke records
 * of 8 bytes, CRC32C checksums seeded with the journal's UUID (the
 * filesystem's).  Other jbd2 features (async commit, checksum v1/v2, fast
 * commits) are unknown to stalefs: a journal asking for them is refused.
 */
#ifndef STALEFS_JOURNAL_H
#define STALEFS_JOURNAL_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#else
#include "stalefs_compat.h"
#endif

#define STALEFS_JBD2_MAGIC		0xC03B3998u	/* every journal metadata block starts with it */

/* h_blocktype */
#define STALEFS_JBD2_DESCRIPTOR_BLOCK	1
#define STALEFS_JBD2_COMMIT_BLOCK	2
#define STALEFS_JBD2_SUPERBLOCK_V1	3
#define STALEFS_JBD2_SUPERBLOCK_V2	4
#define STALEFS_JBD2_REVOKE_BLOCK	5
#define STALEFS_JBD2_FC_BLOCK		6

/* Journal superblock features: the ones stalefs knows (and writes). */
#define STALEFS_JBD2_COMPAT_CHECKSUM	0x00000001	/* checksum v1: unsupported */
#define STALEFS_JBD2_INCOMPAT_REVOKE	0x00000001	/* revoke blocks may appear */
#define STALEFS_JBD2_INCOMPAT_64BIT	0x00000002	/* tags carry 64-bit block numbers */
#define STALEFS_JBD2_INCOMPAT_ASYNC_COMMIT 0x00000004	/* unsupported */
#define STALEFS_JBD2_INCOMPAT_CSUM_V2	0x00000008	/* unsupported */
#define STALEFS_JBD2_INCOMPAT_CSUM_V3	0x00000010	/* CRC32C of every block, 16-byte tags */
#define STALEFS_JBD2_INCOMPAT_FAST_COMMIT 0x00000020	/* unsupported */
#define STALEFS_JBD2_INCOMPAT_SUPP \
	(STALEFS_JBD2_INCOMPAT_REVOKE | STALEFS_JBD2_INCOMPAT_64BIT | STALEFS_JBD2_INCOMPAT_CSUM_V3)
/* What mkfs writes (REVOKE is set by the kernel when it first revokes). */
#define STALEFS_JBD2_INCOMPAT_MKFS \
	(STALEFS_JBD2_INCOMPAT_64BIT | STALEFS_JBD2_INCOMPAT_CSUM_V3)

#define STALEFS_JBD2_CRC32C_CHKSUM	4	/* s_checksum_type */

/* Block tag flags (t_flags). */
#define STALEFS_JBD2_FLAG_ESCAPE	1	/* the block began with the magic: written with it zeroed */
#define STALEFS_JBD2_FLAG_SAME_UUID	2	/* no UUID follows this tag */
#define STALEFS_JBD2_FLAG_DELETED	4	/* (unused by jbd2 today) */
#define STALEFS_JBD2_FLAG_LAST_TAG	8	/* the descriptor's last tag */

/* Every journal metadata block starts with this header. */
struct stalefs_jbd2_header {
	__be32	h_magic;		/* 0x0 STALEFS_JBD2_MAGIC */
	__be32	h_blocktype;		/* 0x4 STALEFS_JBD2_*_BLOCK */
	__be32	h_sequence;		/* 0x8 transaction the block belongs to */
};

/*
 * The journal superblock: block 0 of the journal (1024 bytes used).  Log
 * blocks are numbered from 0 at the journal's first block; the log proper is
 * [s_first, s_maxlen).
 */
struct stalefs_jbd2_super {
	struct stalefs_jbd2_header s_header;	/* 0x000 blocktype SUPERBLOCK_V2 */
	__be32	s_blocksize;		/* 0x00C journal block size: the filesystem's */
	__be32	s_maxlen;		/* 0x010 blocks in the journal */
	__be32	s_first;		/* 0x014 first log block: 1 */
	__be32	s_sequence;		/* 0x018 first transaction expected in the log */
	__be32	s_start;		/* 0x01C log block of that transaction; 0: the log is empty */
	__be32	s_errno;		/* 0x020 nonzero: the journal was aborted with -s_errno */
	__be32	s_feature_compat;	/* 0x024 */
	__be32	s_feature_incompat;	/* 0x028 */
	__be32	s_feature_ro_compat;	/* 0x02C */
	__u8	s_uuid[16];		/* 0x030 the filesystem's UUID; seeds the checksums */
	__be32	s_nr_users;		/* 0x040 filesystems sharing the journal: 1 */
	__be32	s_dynsuper;		/* 0x044 (unused) */
	__be32	s_max_transaction;	/* 0x048 (unused: 0) */
	__be32	s_max_trans_data;	/* 0x04C (unused: 0) */
	__u8	s_checksum_type;	/* 0x050 STALEFS_JBD2_CRC32C_CHKSUM */
	__u8	s_padding2[3];		/* 0x051 */
	__be32	s_num_fc_blks;		/* 0x054 fast-commit blocks (unused: 0) */
	__u8	s_padding[164];		/* 0x058 zero */
	__be32	s_checksum;		/* 0x0FC CRC32C(~0, the 1024 bytes with this field zero) */
	__u8	s_users[16 * 48];	/* 0x100 (external journals only: zero) */
};

/*
 * A block tag (checksum v3): one per journaled block in a descriptor block.
 * The first tag of a descriptor, and any tag without SAME_UUID, is followed
 * by the 16-byte UUID.
 */
struct stalefs_jbd2_tag3 {
	__be32	t_blocknr;		/* 0x0 filesystem block, low 32 bits */
	__be32	t_flags;		/* 0x4 STALEFS_JBD2_FLAG_* */
	__be32	t_blocknr_high;		/* 0x8 high 32 bits */
	__be32	t_checksum;		/* 0xC CRC32C(seed, be32 sequence, block data) */
};

/* The last 4 bytes of descriptor and revoke blocks. */
struct stalefs_jbd2_block_tail {
	__be32	t_checksum;		/* 0x0 CRC32C(seed, the block with this field zero) */
};

/* A revoke block: the header, the bytes used, then 8-byte block numbers. */
struct stalefs_jbd2_revoke_header {
	struct stalefs_jbd2_header r_header;	/* 0x00 blocktype REVOKE */
	__be32	r_count;		/* 0x0C bytes used, this header included */
};

/* The commit block that ends a transaction. */
struct stalefs_jbd2_commit {
	struct stalefs_jbd2_header h_header;	/* 0x00 blocktype COMMIT */
	__u8	h_chksum_type;		/* 0x0C 0 with checksum v3 */
	__u8	h_chksum_size;		/* 0x0D 0 with checksum v3 */
	__u8	h_padding[2];		/* 0x0E */
	__be32	h_chksum[8];		/* 0x10 [0]: CRC32C(seed, the block with it zero) */
	__be64	h_commit_sec;		/* 0x30 commit time */
	__be32	h_commit_nsec;		/* 0x38 */
	__u8	h_padding2[4];		/* 0x3C zero */
};

_Static_assert(sizeof(struct stalefs_jbd2_header) == 12, "jbd2 header is 12 bytes");
_Static_assert(sizeof(struct stalefs_jbd2_super) == 1024, "jbd2 superblock is 1024 bytes");
_Static_assert(sizeof(struct stalefs_jbd2_tag3) == 16, "jbd2 tag3 is 16 bytes");
_Static_assert(sizeof(struct stalefs_jbd2_block_tail) == 4, "jbd2 block tail is 4 bytes");
_Static_assert(sizeof(struct stalefs_jbd2_revoke_header) == 16, "jbd2 revoke header is 16 bytes");
_Static_assert(sizeof(struct stalefs_jbd2_commit) == 64, "jbd2 commit block header is 64 bytes");

#endif /* STALEFS_JOURNAL_H */
