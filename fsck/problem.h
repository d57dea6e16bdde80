/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The problem table: every inconsistency fsck.stalefs can report has one
 * stable code here, and fix_problem() is the only place that decides what to
 * do about it (-n, -y, -p, or a question on the terminal).
 *
 * Codes are 0xPPNNNN: PP is the pass (0 superblock/descriptors, the journal
 * and orphans, 1 inodes and extents, 0x11 duplicate blocks, 2 directories,
 * 3 connectivity, 4 link counts, 5 bitmaps and summaries, 6 after the
 * passes: recreating the journal).  A code never changes meaning once
 * released: tests and scripts match on it (fsck -d prints codes).
 */
#ifndef FSCK_PROBLEM_H
#define FSCK_PROBLEM_H

#include "libstalefs.h"

struct fsck_ctx;

/* What a message template can refer to (see expand() in problem.c). */
struct problem_ctx {
	u32 ino;	/* %i */
	u32 ino2;	/* %j */
	u32 dir;	/* %d */
	u64 blk;	/* %b */
	u64 blk2;	/* %c */
	u64 num;	/* %N */
	u64 num2;	/* %M */
	u32 group;	/* %g */
	u32 lblk;	/* %l */
	int rule;	/* %r: stalefs_rule_msg() */
	const char *str;	/* %s */
	const char *name;	/* %n: a directory entry name (printed safely) */
	u32 name_len;
};

/* Flags. */
#define PR_PREEN_OK	0x0001	/* -p may fix it without asking */
#define PR_NO_OK	0x0002	/* answering no leaves nothing wrong (not a fix) */
#define PR_FATAL	0x0004	/* fsck cannot go on after reporting it */
#define PR_MSG_ONLY	0x0008	/* a message, no question */
#define PR_PREEN_NOMSG	0x0010	/* in preen mode fix it silently */
#define PR_NO_NOMSG	0x0020	/* with -n, say nothing (follows from an earlier answer) */
#define PR_LATCH	0x0040	/* a fragment of a latched question (see latch groups) */
/*
 * With a journal the kernel keeps this lazily, not at every commit (the
 * superblock's summaries are written in place at sync and unmount only),
 * so after a crash it may lag what the journal made consistent: fixed
 * without a word (-n leaves it, also without a word), and no change or
 * error is counted.  Without a journal it is a problem like any other.
 * kernel/README.md lists what the kernel writes in place and why.
 */
#define PR_JOURNAL_LAZY	0x0080

/* Latch groups: fragments printed on one line, answered once by end_latch(). */
enum problem_latch {
	LATCH_NONE = 0,
	LATCH_BBITMAP,
	LATCH_IBITMAP,
	LATCH_MAX
};

enum problem_code {
	/* ---- pass 0: superblock and group descriptors ---- */
	PR_0_SB_CORRUPT = 0x000001,	/* primary unusable: a backup is used */
	PR_0_SB_CSUM = 0x000002,
	PR_0_SB_FIRST_INO = 0x000003,
	PR_0_SB_STATE = 0x000004,
	PR_0_SB_ERRORS = 0x000005,
	PR_0_SB_R_BLOCKS = 0x000006,
	PR_0_SB_LPF_RANGE = 0x000007,
	PR_0_SB_STALE_NO_GID = 0x000008,
	PR_0_SB_STALE_GID_NO_FEATURE = 0x000009,
	PR_0_SB_GROUP_NR = 0x00000A,
	PR_0_GDESC_CSUM = 0x000010,
	PR_0_BB_LOCATION = 0x000011,
	PR_0_IB_LOCATION = 0x000012,
	PR_0_IT_LOCATION = 0x000013,
	PR_0_BG_FLAGS = 0x000014,
	PR_0_ITABLE_UNUSED = 0x000015,
	PR_0_ITABLE_UNUSED_RANGE = 0x000016,
	PR_0_BITMAP_READ = 0x000017,
	PR_0_DESC_BACKUP = 0x000018,	/* primary descriptors wrecked: a backup's are used */
	PR_0_BACKUP_SB_BAD = 0x000019,	/* a backup superblock missing or damaged (resize writes them) */
	/* the journal (FORMAT.md 12) */
	PR_0_JOURNAL_FEATURE_LOST = 0x000020,
	PR_0_JOURNAL_FIELDS_NO_FEATURE = 0x000021,
	PR_0_JOURNAL_RECOVER_NO_JOURNAL = 0x000022,
	PR_0_JOURNAL_BAD_LOCATION = 0x000023,
	PR_0_JOURNAL_PAD = 0x000024,
	PR_0_JOURNAL_BAD_SUPER = 0x000025,
	PR_0_JOURNAL_BAD_SUPER_RECOVER = 0x000026,
	PR_0_JOURNAL_UNSUPP = 0x000027,
	PR_0_JOURNAL_CORRUPT = 0x000028,
	PR_0_JOURNAL_BLOCKS_BAD = 0x000029,
	PR_0_JOURNAL_DATA_NO_RECOVER = 0x00002A,
	PR_0_JOURNAL_CLEAR_DATA = 0x00002B,
	PR_0_JOURNAL_ERRNO = 0x00002C,
	/* orphans (FORMAT.md 13) */
	PR_0_ORPHAN_CLEAR = 0x000030,
	PR_0_ORPHAN_TRUNCATE = 0x000031,
	PR_0_ORPHAN_FAILED = 0x000032,

	/* ---- pass 1: inodes and extent trees ---- */
	PR_1_PASS_HEADER = 0x010000,
	PR_1_RESERVED_NONZERO = 0x010001,
	PR_1_INODE_CSUM = 0x010002,
	PR_1_INODE_GARBAGE = 0x010003,
	PR_1_INODE_INO = 0x010004,
	PR_1_BAD_MODE = 0x010005,
	PR_1_UNKNOWN_FLAGS = 0x010006,
	PR_1_INLINE_NOT_SYMLINK = 0x010007,
	PR_1_INLINE_SIZE = 0x010008,
	PR_1_STALE_FL_NOT_REG = 0x010009,
	PR_1_DTIME_IN_USE = 0x01000A,
	PR_1_NSEC = 0x01000B,
	PR_1_SIZE_TOO_BIG = 0x01000C,
	PR_1_RESERVED_FIELDS = 0x01000D,
	PR_1_ROOT_NOT_DIR = 0x01000E,
	PR_1_SPECIAL_IBLOCK = 0x01000F,
	PR_1_RDEV = 0x010010,
	PR_1_EXT_ROOT_BAD = 0x010011,
	PR_1_EXT_NODE_BAD = 0x010012,
	PR_1_EXT_NODE_CSUM = 0x010013,
	PR_1_EXT_IDX_BAD = 0x010014,
	PR_1_EXT_LEN = 0x010015,
	PR_1_EXT_FLAGS_UNKNOWN = 0x010016,
	PR_1_EXT_RANGE = 0x010017,
	PR_1_EXT_META = 0x010018,
	PR_1_EXT_LBLK_RANGE = 0x010019,
	PR_1_EXT_UNSORTED = 0x01001A,
	PR_1_EXT_OVERLAP = 0x01001B,
	PR_1_EXT_IDX_RESERVED = 0x01001C,
	PR_1_I_BLOCKS = 0x01001E,
	PR_1_DIR_SIZE = 0x01001F,
	PR_1_DIR_HOLE = 0x010020,
	PR_1_DIR_UNWRITTEN = 0x010021,
	PR_1_SYMLINK_SIZE = 0x010022,
	PR_1_ORPHAN_FLAG = 0x010023,
	PR_1_EXT_NODE_TWICE = 0x010024,
	/* extended attributes (FORMAT.md 14) */
	PR_1_XATTR_FEATURE = 0x010025,
	PR_1_XATTR_NO_FEATURE_CLEAR = 0x010026,
	PR_1_XATTR_IBODY_BAD = 0x010027,
	PR_1_XATTR_IBODY_CSUM = 0x010028,
	PR_1_XATTR_BLOCK_RANGE = 0x010029,
	PR_1_XATTR_BLOCK_READ = 0x01002A,
	PR_1_XATTR_BLOCK_HEADER = 0x01002B,
	PR_1_XATTR_BLOCK_ENTRIES = 0x01002C,
	PR_1_XATTR_BLOCK_DUP = 0x01002D,
	PR_1_XATTR_BLOCK_CSUM = 0x01002E,
	PR_1_XATTR_NAME_TWICE = 0x01002F,
	/* the stale audit (FORMAT.md section 11) */
	PR_1_S1_BOTH = 0x010101,
	PR_1_S2_NOT_REG = 0x010102,
	PR_1_S3_NO_FEATURE = 0x010103,
	PR_1_S4_GID = 0x010104,
	PR_1_S4_OTHERS = 0x010105,
	PR_1_S4_HIDE = 0x010106,
	PR_1_S5_FLAG_SET = 0x010107,
	PR_1_S5_FLAG_CLEAR = 0x010108,

	/* ---- pass 1B-1D: blocks claimed twice ---- */
	PR_1B_HEADER = 0x110000,
	PR_1B_DUP_INODE = 0x110001,
	PR_1B_CLONE_FAILED = 0x110002,
	PR_1B_ALREADY_CLONED = 0x110003,
	PR_1B_CLEAR_SHARED = 0x110004,
	PR_1B_JOURNAL_SHARED = 0x110005,

	/* ---- pass 2: directories ---- */
	PR_2_PASS_HEADER = 0x020000,
	PR_2_BLOCK_HEADER = 0x020001,
	PR_2_BLOCK_ID = 0x020002,
	PR_2_BLOCK_CSUM = 0x020003,
	PR_2_REC_LEN = 0x020004,
	PR_2_NAME_LEN = 0x020005,
	PR_2_NAME_CHARS = 0x020006,
	PR_2_BAD_INO = 0x020007,
	PR_2_RESERVED_INO = 0x020008,
	PR_2_UNUSED_INO = 0x020009,
	PR_2_FILE_TYPE = 0x02000A,
	PR_2_MISSING_DOT = 0x02000B,
	PR_2_BAD_DOT = 0x02000C,
	PR_2_MISSING_DOTDOT = 0x02000D,
	PR_2_DUP_DOT = 0x02000E,
	PR_2_LINK_DIR = 0x02000F,
	PR_2_READ_ERROR = 0x020010,
	PR_2_LINK_DOT = 0x020011,

	/* ---- pass 3: connectivity ---- */
	PR_3_PASS_HEADER = 0x030000,
	PR_3_NO_ROOT = 0x030001,
	PR_3_UNCONNECTED_DIR = 0x030002,
	PR_3_DIR_LOOP = 0x030003,
	PR_3_BAD_DOTDOT = 0x030004,
	PR_3_NO_LPF = 0x030005,
	PR_3_LPF_NOT_DIR = 0x030006,
	PR_3_LPF_SB = 0x030007,
	PR_3_NO_LPF_RECONNECT = 0x030008,
	PR_3_CREATE_FAILED = 0x030009,

	/* ---- pass 4: reference counts ---- */
	PR_4_PASS_HEADER = 0x040000,
	PR_4_UNATTACHED = 0x040001,
	PR_4_BAD_REF_COUNT = 0x040002,

	/* ---- pass 5: bitmaps and summaries ---- */
	PR_5_PASS_HEADER = 0x050000,
	PR_5_BBITMAP_HEADER = 0x050001,
	PR_5_BBITMAP_USED = 0x050002,
	PR_5_BBITMAP_FREE = 0x050003,
	PR_5_IBITMAP_HEADER = 0x050004,
	PR_5_IBITMAP_USED = 0x050005,
	PR_5_IBITMAP_FREE = 0x050006,
	PR_5_BBITMAP_END = 0x050007,
	PR_5_IBITMAP_END = 0x050008,
	PR_5_BB_CSUM = 0x050009,
	PR_5_IB_CSUM = 0x05000A,
	PR_5_GROUP_FREE_BLOCKS = 0x05000B,
	PR_5_GROUP_FREE_INODES = 0x05000C,
	PR_5_GROUP_DIRS = 0x05000D,
	PR_5_FREE_BLOCKS = 0x05000E,
	PR_5_FREE_INODES = 0x05000F,
	PR_5_GROUP_ORPHANS = 0x050010,
	PR_5_GROUP_STALE = 0x050011,

	/* ---- after the passes ---- */
	PR_6_RECREATE_JOURNAL = 0x060001,
	PR_6_JOURNAL_CREATED = 0x060002,
	PR_6_JOURNAL_NOT_CREATED = 0x060003,
};

/* Ask (or not) about problem `code`; true means: fix it. */
bool fix_problem(struct fsck_ctx *ctx, int code, struct problem_ctx *pctx);
/* Close a latch group: ask its one question (false if nothing was latched). */
bool end_latch(struct fsck_ctx *ctx, enum problem_latch latch);
/* Print "Pass N: ..." (not in preen mode). */
void pass_header(struct fsck_ctx *ctx, int code);
/* Number of entries in the table (for the unit test that checks it). */
size_t problem_table_size(void);
/* Check the table: codes unique, every latched code has a group. 0 if fine. */
int problem_table_verify(void);

#endif
