// SPDX-License-Identifier: GPL-2.0
/*
 * The one problem table and fix_problem(), which applies -n, -y, -p or an
 * interactive question to every problem in the same way.
 *
 * Templates expand: %i inode, %j second inode, %d directory, %b block,
 * %c second block, %N and %M numbers, %O number in octal, %x / %X number /
 * second number in hex, %g group, %l logical block, %r verifier rule, %s
 * string, %n directory entry name (non-printable bytes shown as ^X / M-X).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include "fsck.h"

enum prompt {
	P_NONE, P_FIX, P_CLEAR, P_RELOCATE, P_ALLOCATE, P_CONNECT, P_CREATE, P_SALVAGE,
	P_CLONE, P_CONFINE, P_HIDE, P_UNLINK, P_SET_FEATURE, P_CLEAR_FEATURE, P_CLEAR_JOURNAL,
	P_RUN_JOURNAL, P_RECREATE_JOURNAL, P_MAX
};

static const char *const prompt_text[P_MAX] = {
	[P_NONE] = "", [P_FIX] = "Fix", [P_CLEAR] = "Clear", [P_RELOCATE] = "Relocate",
	[P_ALLOCATE] = "Allocate", [P_CONNECT] = "Connect to /lost+found", [P_CREATE] = "Create",
	[P_SALVAGE] = "Salvage", [P_CLONE] = "Clone multiply-claimed blocks",
	[P_CONFINE] = "Re-confine", [P_HIDE] = "Hide stale blocks", [P_UNLINK] = "Unlink",
	[P_SET_FEATURE] = "Set feature", [P_CLEAR_FEATURE] = "Clear feature",
	[P_CLEAR_JOURNAL] = "Clear journal", [P_RUN_JOURNAL] = "Run journal anyway",
	[P_RECREATE_JOURNAL] = "Recreate journal",
};

static const char *const past_text[P_MAX] = {
	[P_NONE] = "", [P_FIX] = "FIXED.", [P_CLEAR] = "CLEARED.", [P_RELOCATE] = "RELOCATED.",
	[P_ALLOCATE] = "ALLOCATED.", [P_CONNECT] = "CONNECTED.", [P_CREATE] = "CREATED.",
	[P_SALVAGE] = "SALVAGED.", [P_CLONE] = "CLONED.", [P_CONFINE] = "RE-CONFINED.",
	[P_HIDE] = "HIDDEN.", [P_UNLINK] = "UNLINKED.", [P_SET_FEATURE] = "FEATURE SET.",
	[P_CLEAR_FEATURE] = "FEATURE CLEARED.", [P_CLEAR_JOURNAL] = "JOURNAL CLEARED.",
	[P_RUN_JOURNAL] = "JOURNAL REPLAYED.", [P_RECREATE_JOURNAL] = "JOURNAL RECREATED.",
};

struct problem {
	int code;
	const char *msg;
	enum prompt prompt;
	int flags;
	enum problem_latch latch;
};

struct latch_desc {
	enum problem_latch latch;
	int header;	/* printed before the first fragment */
	int end;	/* asks the one question */
};

static const struct problem table[] = {
	/* ---- pass 0 ---- */
	{ PR_0_SB_CORRUPT, "The primary superblock is unusable (%s).\n"
	  "Using the backup superblock at block %b.", P_NONE, PR_MSG_ONLY | PR_PREEN_OK, 0 },
	{ PR_0_DESC_BACKUP, "The group descriptors look bad (%N of %M groups place their bitmaps or inode "
	  "table outside the group).\nUsing the backup superblock and descriptors at block %b.",
	  P_NONE, PR_MSG_ONLY | PR_PREEN_OK, 0 },
	/* A backup that lags (an older size, label, schedule) is normal after a crash mid-resize or a
	 * change through the kernel: rewritten quietly when fsck writes.  A missing one is damage. */
	{ PR_0_BACKUP_SB_BAD, "Backup superblock of group %g (block %b) %s.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_SB_CSUM, "Superblock checksum does not match.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_SB_FIRST_INO, "Superblock first ordinary inode is %N, should be 11.", P_FIX, 0, 0 },
	{ PR_0_SB_STATE, "Superblock state has unknown bits set (0x%x).", P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_SB_ERRORS, "Superblock error behaviour is %N, not continue (1), remount-ro (2) or panic (3).",
	  P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_SB_R_BLOCKS, "Reserved blocks count %N exceeds the blocks count %M.", P_FIX, 0, 0 },
	{ PR_0_SB_LPF_RANGE, "Superblock lost+found inode %N is out of range.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_SB_STALE_NO_GID, "Superblock has the nohide_stale feature but records no permitted group.",
	  P_CLEAR_FEATURE, 0, 0 },
	{ PR_0_SB_STALE_GID_NO_FEATURE, "Superblock records permitted group %N but not the nohide_stale feature.",
	  P_SET_FEATURE, 0, 0 },
	{ PR_0_SB_GROUP_NR, "The primary superblock says it is the copy of group %N.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_GDESC_CSUM, "Group descriptor %g checksum does not match (0x%x, should be 0x%X).",
	  P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_BB_LOCATION, "Block bitmap for group %g is not in its group or overlaps metadata (block %b).",
	  P_RELOCATE, 0, 0 },
	{ PR_0_IB_LOCATION, "Inode bitmap for group %g is not in its group or overlaps metadata (block %b).",
	  P_RELOCATE, 0, 0 },
	{ PR_0_IT_LOCATION, "Inode table for group %g is not in its group or overlaps metadata (block %b).",
	  P_RELOCATE, 0, 0 },
	{ PR_0_BG_FLAGS, "Group descriptor %g has unknown flags set (0x%x).", P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_ITABLE_UNUSED, "Group %g has inode %i in use past its unused-inode mark (%N unused).",
	  P_FIX, 0, 0 },
	{ PR_0_ITABLE_UNUSED_RANGE, "Group %g unused inode count %N exceeds inodes per group %M.",
	  P_FIX, 0, 0 },
	{ PR_0_BITMAP_READ, "Error reading the bitmaps: %s.", P_NONE, PR_MSG_ONLY, 0 },
	/* the journal */
	{ PR_0_JOURNAL_FEATURE_LOST, "Superblock has_journal flag is clear, but a journal of this "
	  "filesystem is at block %b (%N blocks).", P_SET_FEATURE, 0, 0 },
	{ PR_0_JOURNAL_FIELDS_NO_FEATURE, "Superblock records a journal (block %b, %N blocks) but not the "
	  "has_journal feature, and no journal of this filesystem is there.", P_CLEAR, PR_PREEN_OK, 0 },
	{ PR_0_JOURNAL_RECOVER_NO_JOURNAL, "Superblock needs_recovery flag is set, but the filesystem has "
	  "no journal.", P_CLEAR, PR_PREEN_OK, 0 },
	{ PR_0_JOURNAL_BAD_LOCATION, "The journal (block %b, %N blocks) %s.", P_CLEAR_JOURNAL, 0, 0 },
	{ PR_0_JOURNAL_PAD, "Superblock journal padding is not zero (0x%x).", P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_JOURNAL_BAD_SUPER, "The journal superblock is corrupt (%s).\nThe filesystem needs no "
	  "recovery: a new journal superblock loses nothing.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_0_JOURNAL_BAD_SUPER_RECOVER, "The journal superblock is corrupt (%s), and the filesystem "
	  "needs recovery.\nThe journal cannot be replayed: the changes it holds that are not yet in "
	  "place are lost.", P_CLEAR_JOURNAL, 0, 0 },
	{ PR_0_JOURNAL_UNSUPP, "The journal cannot be used: %s.", P_CLEAR_JOURNAL, 0, 0 },
	{ PR_0_JOURNAL_CORRUPT, "Journal recovery failed: %s.\nNothing was replayed: the changes the "
	  "journal holds that are not yet in place are lost.", P_CLEAR_JOURNAL, 0, 0 },
	{ PR_0_JOURNAL_BLOCKS_BAD, "Journal recovery failed: %s.\n%N journaled block(s) could not be "
	  "replayed and keep their old contents; the rest was replayed.", P_CLEAR_JOURNAL, 0, 0 },
	{ PR_0_JOURNAL_DATA_NO_RECOVER, "Superblock needs_recovery flag is clear, but the journal has data "
	  "(its log starts at block %N).", P_RUN_JOURNAL, 0, 0 },
	{ PR_0_JOURNAL_CLEAR_DATA, "", P_CLEAR_JOURNAL, 0, 0 },
	{ PR_0_JOURNAL_ERRNO, "The journal was aborted by the kernel (error %N: %s); the check goes "
	  "through everything.", P_CLEAR, PR_PREEN_OK, 0 },
	/* orphans: what the kernel's mount would finish, done before the check (not repairs) */
	{ PR_0_ORPHAN_CLEAR, "Clearing orphaned inode %i (mode 0%O, size %M).", P_NONE,
	  PR_MSG_ONLY | PR_PREEN_OK, 0 },
	{ PR_0_ORPHAN_TRUNCATE, "Truncating orphaned inode %i (mode 0%O, size %M): %b block(s) past "
	  "its end freed.", P_NONE, PR_MSG_ONLY | PR_PREEN_OK, 0 },
	{ PR_0_ORPHAN_FAILED, "Cannot finish orphaned inode %i (%s): the check will judge it.", P_NONE,
	  PR_MSG_ONLY, 0 },

	/* ---- pass 1 ---- */
	{ PR_1_PASS_HEADER, "Pass 1: Checking inodes, blocks, and sizes", P_NONE, PR_MSG_ONLY, 0 },
	{ PR_1_RESERVED_NONZERO, "Reserved inode %i has nonzero content.", P_CLEAR, 0, 0 },
	{ PR_1_INODE_CSUM, "Inode %i passes checks, but its checksum does not match.", P_FIX, 0, 0 },
	{ PR_1_INODE_GARBAGE, "Inode %i seems to contain garbage (%r).", P_CLEAR, 0, 0 },
	{ PR_1_INODE_INO, "Inode %i says it is inode %N.", P_FIX, 0, 0 },
	{ PR_1_BAD_MODE, "Inode %i has an invalid mode (0%O).", P_CLEAR, 0, 0 },
	{ PR_1_UNKNOWN_FLAGS, "Inode %i has unknown flags set (0x%x).", P_FIX, 0, 0 },
	{ PR_1_INLINE_NOT_SYMLINK, "Inode %i has the inline-data flag but is not a symlink.", P_FIX, 0, 0 },
	{ PR_1_INLINE_SIZE, "Inline symlink %i has an invalid size %N (target is %M bytes).", P_FIX, 0, 0 },
	{ PR_1_STALE_FL_NOT_REG, "Inode %i has the stale flag but is not a regular file.", P_FIX, 0, 0 },
	{ PR_1_DTIME_IN_USE, "Inode %i is in use, but has dtime set.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_1_NSEC, "Inode %i has a nanoseconds field of 1e9 or more.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_1_SIZE_TOO_BIG, "Inode %i has a size %N beyond the largest file.", P_FIX, 0, 0 },
	{ PR_1_RESERVED_FIELDS, "Inode %i has nonzero reserved fields.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_1_ROOT_NOT_DIR, "Root inode is not a directory (mode 0%O).", P_CLEAR, 0, 0 },
	{ PR_1_SPECIAL_IBLOCK, "Special (device/socket/fifo) inode %i has a nonzero block map or size.",
	  P_FIX, 0, 0 },
	{ PR_1_RDEV, "Inode %i is not a device but has a device number (0x%x).", P_FIX, PR_PREEN_OK, 0 },
	{ PR_1_EXT_ROOT_BAD, "Inode %i has a corrupt extent tree root (%r).", P_CLEAR, 0, 0 },
	{ PR_1_EXT_NODE_BAD, "Inode %i, extent tree node at block %b is corrupt (%r).", P_CLEAR, 0, 0 },
	{ PR_1_EXT_NODE_TWICE, "Inode %i, extent tree node at block %b is named a second time in the tree "
	  "(by the index entry for logical block %l).", P_CLEAR, 0, 0 },
	{ PR_1_EXT_NODE_CSUM, "Inode %i, extent tree node at block %b passes checks, but its checksum does not match.",
	  P_FIX, 0, 0 },
	{ PR_1_EXT_IDX_BAD, "Inode %i has an extent index (logical block %l) pointing to block %b, "
	  "outside the filesystem's data.", P_CLEAR, 0, 0 },
	{ PR_1_EXT_LEN, "Inode %i has an extent (logical block %l, physical block %b) of bad length %N.",
	  P_CLEAR, 0, 0 },
	{ PR_1_EXT_FLAGS_UNKNOWN, "Inode %i has an extent (logical block %l) with unknown flags (0x%x).",
	  P_FIX, 0, 0 },
	{ PR_1_EXT_RANGE, "Inode %i has an extent (logical block %l, physical block %b, length %N) "
	  "outside the filesystem.", P_CLEAR, 0, 0 },
	{ PR_1_EXT_META, "Inode %i has an extent (logical block %l, physical block %b, length %N) "
	  "overlapping filesystem metadata.", P_CLEAR, 0, 0 },
	{ PR_1_EXT_LBLK_RANGE, "Inode %i has an extent (logical block %l, length %N) ending beyond "
	  "the largest logical block.", P_CLEAR, 0, 0 },
	{ PR_1_EXT_UNSORTED, "Inode %i has an extent (logical block %l) out of order or outside its "
	  "index range (after logical block %M).", P_CLEAR, 0, 0 },
	{ PR_1_EXT_OVERLAP, "Inode %i has an extent (logical block %l) overlapping the one before it "
	  "(which ends at logical block %M).", P_CLEAR, 0, 0 },
	{ PR_1_EXT_IDX_RESERVED, "Inode %i has an extent index (logical block %l) with a nonzero "
	  "reserved field.", P_FIX, 0, 0 },
	{ PR_1_I_BLOCKS, "Inode %i, i_blocks is %N, should be %M.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_1_DIR_SIZE, "Directory inode %i, i_size is %N, should be %M.", P_FIX, 0, 0 },
	{ PR_1_DIR_HOLE, "Directory inode %i has an unallocated block #%l.", P_ALLOCATE, 0, 0 },
	{ PR_1_DIR_UNWRITTEN, "Directory inode %i has an unwritten block #%l.", P_FIX, 0, 0 },
	{ PR_1_SYMLINK_SIZE, "Symlink %i has an invalid size %N.", P_CLEAR, 0, 0 },
	{ PR_1_ORPHAN_FLAG, "Inode %i is flagged as an orphan, but it is not one left to finish.",
	  P_FIX, PR_PREEN_OK, 0 },
	{ PR_1_XATTR_FEATURE, "Inode %i has extended attributes, but the filesystem lacks the xattr feature.",
	  P_SET_FEATURE, 0, 0 },
	{ PR_1_XATTR_NO_FEATURE_CLEAR, "Inode %i's extended attributes cannot stay without the xattr "
	  "feature (its in-inode area and xattr block pointer).", P_CLEAR, 0, 0 },
	{ PR_1_XATTR_IBODY_BAD, "Inode %i has a corrupt in-inode extended attribute area (%r).",
	  P_CLEAR, 0, 0 },
	{ PR_1_XATTR_IBODY_CSUM, "Inode %i, in-inode extended attribute area passes checks, but its "
	  "checksum does not match.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_1_XATTR_BLOCK_RANGE, "Inode %i has an extended attribute block %b outside the filesystem's "
	  "data (out of range or on group metadata).", P_CLEAR, 0, 0 },
	{ PR_1_XATTR_BLOCK_READ, "Inode %i, error reading extended attribute block %b (%s).", P_CLEAR, 0, 0 },
	{ PR_1_XATTR_BLOCK_HEADER, "Inode %i has a bad extended attribute block %b (%r).", P_CLEAR, 0, 0 },
	{ PR_1_XATTR_BLOCK_ENTRIES, "Inode %i, extended attribute block %b has corrupt entries (%r).",
	  P_CLEAR, 0, 0 },
	{ PR_1_XATTR_BLOCK_DUP, "Inode %i, extended attribute block %b is already claimed (by an extent "
	  "tree, the journal or another inode).", P_CLEAR, 0, 0 },
	{ PR_1_XATTR_BLOCK_CSUM, "Inode %i, extended attribute block %b passes checks, but its checksum "
	  "does not match.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_1_XATTR_NAME_TWICE, "Inode %i has extended attribute '%n' both in the inode and in block %b: "
	  "the in-inode copy is kept, the block's is cleared.", P_CLEAR, 0, 0 },
	{ PR_1_S1_BOTH, "Stale audit (S1): inode %i has an extent (logical block %l, length %N) "
	  "marked both STALE and UNWRITTEN.", P_HIDE, 0, 0 },
	{ PR_1_S2_NOT_REG, "Stale audit (S2): inode %i is a %s but has a STALE extent "
	  "(logical block %l, length %N).", P_FIX, 0, 0 },
	{ PR_1_S3_NO_FEATURE, "Stale audit (S3): inode %i has a STALE extent (logical block %l, "
	  "length %N) but the filesystem records no permitted group.", P_HIDE, 0, 0 },
	{ PR_1_S4_GID, "Stale audit (S4): inode %i holds %N stale-exposed block(s) but belongs to "
	  "group %M, not the permitted group %j.", P_CONFINE, PR_PREEN_OK, 0 },
	/* Re-confining loses nothing and ends an exposure: safe, and urgent, unattended. */
	{ PR_1_S4_OTHERS, "Stale audit (S4): inode %i holds stale-exposed blocks and others "
	  "have permissions on it (mode 0%O).", P_CONFINE, PR_PREEN_OK, 0 },
	{ PR_1_S4_HIDE, "Stale audit (S4): inode %i holds %N stale-exposed block(s) that escape "
	  "the permitted group %j (group %M%s).", P_HIDE, 0, 0 },
	{ PR_1_S5_FLAG_SET, "Stale audit (S5): inode %i holds STALE extents but its stale flag is clear.",
	  P_FIX, PR_PREEN_OK, 0 },
	{ PR_1_S5_FLAG_CLEAR, "Stale audit (S5): inode %i has the stale flag set but holds no STALE extent.",
	  P_FIX, PR_PREEN_OK, 0 },

	/* ---- pass 1B ---- */
	{ PR_1B_HEADER, "\nRunning additional passes to resolve blocks claimed by more than one inode...\n"
	  "Pass 1B: Rescanning for multiply-claimed blocks", P_NONE, PR_MSG_ONLY, 0 },
	{ PR_1B_DUP_INODE, "Inode %i has %N multiply-claimed block(s).",
	  P_CLONE, 0, 0 },
	{ PR_1B_ALREADY_CLONED, "Multiply-claimed blocks of inode %i were already reassigned or cloned.",
	  P_NONE, PR_MSG_ONLY, 0 },
	{ PR_1B_CLONE_FAILED, "Could not clone the multiply-claimed blocks of inode %i: %s.",
	  P_NONE, PR_MSG_ONLY, 0 },
	{ PR_1B_CLEAR_SHARED, "Inode %i keeps sharing blocks with other inodes: clearing it leaves "
	  "them to the others.", P_CLEAR, 0, 0 },
	{ PR_1B_JOURNAL_SHARED, "Inode %i maps %N block(s) of the journal.", P_NONE, PR_MSG_ONLY, 0 },

	/* ---- pass 2 ---- */
	{ PR_2_PASS_HEADER, "Pass 2: Checking directory structure", P_NONE, PR_MSG_ONLY, 0 },
	{ PR_2_BLOCK_HEADER, "Directory inode %i, block #%l (at block %b) is not a directory block (%r).",
	  P_CLEAR, 0, 0 },
	{ PR_2_BLOCK_ID, "Directory inode %i, block #%l (at block %b) does not say where it belongs (%r).",
	  P_FIX, 0, 0 },
	{ PR_2_BLOCK_CSUM, "Directory inode %i, block #%l (at block %b) passes checks, but its checksum "
	  "does not match.", P_FIX, 0, 0 },
	{ PR_2_REC_LEN, "Directory inode %i, block #%l, offset %N: directory entry length %M is wrong.",
	  P_SALVAGE, 0, 0 },
	{ PR_2_NAME_LEN, "Directory inode %i, block #%l, offset %N: entry name length %M does not fit.",
	  P_CLEAR, 0, 0 },
	{ PR_2_NAME_CHARS, "Entry '%n' in directory inode %i has illegal characters in its name.", P_FIX, 0, 0 },
	{ PR_2_BAD_INO, "Entry '%n' in directory inode %i has a bad inode number %j.", P_CLEAR, 0, 0 },
	{ PR_2_RESERVED_INO, "Entry '%n' in directory inode %i points to reserved inode %j.", P_CLEAR, 0, 0 },
	{ PR_2_UNUSED_INO, "Entry '%n' in directory inode %i has deleted/unused inode %j.", P_CLEAR, 0, 0 },
	{ PR_2_FILE_TYPE, "Entry '%n' in directory inode %i (inode %j) has file type %N, should be %M.",
	  P_FIX, PR_PREEN_OK, 0 },
	{ PR_2_MISSING_DOT, "Missing '.' in directory inode %i.", P_FIX, 0, 0 },
	{ PR_2_BAD_DOT, "'.' in directory inode %i is %j, should be %i.", P_FIX, 0, 0 },
	{ PR_2_MISSING_DOTDOT, "Missing '..' in directory inode %i.", P_FIX, 0, 0 },
	{ PR_2_DUP_DOT, "Entry '%n' in directory inode %i is an extra '.' or '..' entry.", P_CLEAR, 0, 0 },
	{ PR_2_LINK_DIR, "Entry '%n' in directory inode %i is a second link to directory %j "
	  "(already in directory %N).", P_CLEAR, 0, 0 },
	{ PR_2_READ_ERROR, "Error reading directory block %b (inode %i, block #%l): %s.",
	  P_NONE, PR_MSG_ONLY, 0 },
	{ PR_2_LINK_DOT, "Entry '%n' in directory inode %i is a link to the directory itself.",
	  P_CLEAR, 0, 0 },

	/* ---- pass 3 ---- */
	{ PR_3_PASS_HEADER, "Pass 3: Checking directory connectivity", P_NONE, PR_MSG_ONLY, 0 },
	{ PR_3_NO_ROOT, "Root inode not allocated.", P_ALLOCATE, 0, 0 },
	{ PR_3_UNCONNECTED_DIR, "Unconnected directory inode %i (was in %j).", P_CONNECT, 0, 0 },
	{ PR_3_DIR_LOOP, "Directory inode %i is in a directory loop (its parent %j leads back to it).",
	  P_CONNECT, 0, 0 },
	{ PR_3_BAD_DOTDOT, "'..' in directory inode %i is %j, should be %N.", P_FIX, 0, 0 },
	{ PR_3_NO_LPF, "/lost+found not found.", P_CREATE, PR_PREEN_OK, 0 },
	{ PR_3_LPF_NOT_DIR, "/lost+found is not a directory (ino=%i).", P_UNLINK, 0, 0 },
	{ PR_3_LPF_SB, "Superblock names inode %N as lost+found, but it is inode %i.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_3_NO_LPF_RECONNECT, "Cannot reconnect inode %i: no /lost+found.", P_NONE, PR_MSG_ONLY, 0 },
	{ PR_3_CREATE_FAILED, "Cannot create /lost+found: %s.", P_NONE, PR_MSG_ONLY, 0 },

	/* ---- pass 4 ---- */
	{ PR_4_PASS_HEADER, "Pass 4: Checking reference counts", P_NONE, PR_MSG_ONLY, 0 },
	{ PR_4_UNATTACHED, "Unattached inode %i (mode 0%O).", P_CONNECT, 0, 0 },
	{ PR_4_BAD_REF_COUNT, "Inode %i ref count is %N, should be %M.", P_FIX, PR_PREEN_OK, 0 },

	/* ---- pass 5 ---- */
	{ PR_5_PASS_HEADER, "Pass 5: Checking group summary information", P_NONE, PR_MSG_ONLY, 0 },
	{ PR_5_BBITMAP_HEADER, "Block bitmap differences: ", P_NONE, PR_MSG_ONLY, 0 },
	{ PR_5_BBITMAP_USED, " +%s", P_NONE, PR_LATCH | PR_PREEN_OK, LATCH_BBITMAP },
	{ PR_5_BBITMAP_FREE, " -%s", P_NONE, PR_LATCH | PR_PREEN_OK, LATCH_BBITMAP },
	{ PR_5_BBITMAP_END, "", P_FIX, PR_PREEN_OK | PR_PREEN_NOMSG, 0 },
	{ PR_5_IBITMAP_HEADER, "Inode bitmap differences: ", P_NONE, PR_MSG_ONLY, 0 },
	{ PR_5_IBITMAP_USED, " +%s", P_NONE, PR_LATCH | PR_PREEN_OK, LATCH_IBITMAP },
	{ PR_5_IBITMAP_FREE, " -%s", P_NONE, PR_LATCH | PR_PREEN_OK, LATCH_IBITMAP },
	{ PR_5_IBITMAP_END, "", P_FIX, PR_PREEN_OK | PR_PREEN_NOMSG, 0 },
	{ PR_5_BB_CSUM, "Block bitmap checksum for group %g does not match.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_5_IB_CSUM, "Inode bitmap checksum for group %g does not match.", P_FIX, PR_PREEN_OK, 0 },
	{ PR_5_GROUP_FREE_BLOCKS, "Free blocks count wrong for group #%g (%N, counted=%M).",
	  P_FIX, PR_PREEN_OK | PR_PREEN_NOMSG, 0 },
	{ PR_5_GROUP_FREE_INODES, "Free inodes count wrong for group #%g (%N, counted=%M).",
	  P_FIX, PR_PREEN_OK | PR_PREEN_NOMSG, 0 },
	{ PR_5_GROUP_DIRS, "Directories count wrong for group #%g (%N, counted=%M).",
	  P_FIX, PR_PREEN_OK | PR_PREEN_NOMSG, 0 },
	/* The superblock totals are summaries the descriptors outrank: a wrong one is no error left behind. */
	{ PR_5_FREE_BLOCKS, "Free blocks count wrong (%N, counted=%M).", P_FIX,
	  PR_PREEN_OK | PR_PREEN_NOMSG | PR_NO_OK | PR_JOURNAL_LAZY, 0 },
	{ PR_5_FREE_INODES, "Free inodes count wrong (%N, counted=%M).", P_FIX,
	  PR_PREEN_OK | PR_PREEN_NOMSG | PR_NO_OK | PR_JOURNAL_LAZY, 0 },
	{ PR_5_GROUP_ORPHANS, "Orphan inodes count wrong for group #%g (%N, counted=%M).",
	  P_FIX, PR_PREEN_OK | PR_PREEN_NOMSG, 0 },
	/* Shown even when preening: it is the stale audit's index (S6). */
	{ PR_5_GROUP_STALE, "Stale audit (S6): count of files holding STALE extents wrong for group #%g "
	  "(%N, counted=%M).", P_FIX, PR_PREEN_OK, 0 },

	/* ---- after the passes ---- */
	{ PR_6_RECREATE_JOURNAL, "The journal was cleared: the filesystem has none now.", P_RECREATE_JOURNAL,
	  PR_PREEN_OK | PR_NO_OK, 0 },
	{ PR_6_JOURNAL_CREATED, "Created a journal of %N blocks at block %b.", P_NONE, PR_MSG_ONLY | PR_PREEN_OK, 0 },
	{ PR_6_JOURNAL_NOT_CREATED, "The journal was cleared, and no new one can be made: %s.\nThe "
	  "filesystem stays without a journal (mkfs.stalefs(8) tells the journal sizes).", P_NONE,
	  PR_MSG_ONLY | PR_PREEN_OK, 0 },
};

static const struct latch_desc latches[] = {
	{ LATCH_BBITMAP, PR_5_BBITMAP_HEADER, PR_5_BBITMAP_END },
	{ LATCH_IBITMAP, PR_5_IBITMAP_HEADER, PR_5_IBITMAP_END },
};

size_t problem_table_size(void)
{
	return sizeof(table) / sizeof(table[0]);
}

static const struct problem *find_problem(int code)
{
	size_t i;

	for (i = 0; i < problem_table_size(); i++)
		if (table[i].code == code)
			return &table[i];
	return NULL;
}

int problem_table_verify(void)
{
	size_t i, j;

	for (i = 0; i < problem_table_size(); i++) {
		for (j = i + 1; j < problem_table_size(); j++)
			if (table[i].code == table[j].code)
				return table[i].code;
		if ((table[i].flags & PR_LATCH) && table[i].latch == LATCH_NONE)
			return table[i].code;
		if (!(table[i].flags & (PR_MSG_ONLY | PR_LATCH)) && table[i].prompt == P_NONE)
			return table[i].code;
	}
	return 0;
}

/* A directory entry name, shown so that no byte can mess up the terminal. */
static void print_name(const char *name, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];

		if (ch >= 128) {
			fputs("M-", stdout);
			ch &= 127;
		}
		if (ch < 32 || ch == 127)
			printf("^%c", ch ^ 0x40);
		else
			putchar(ch);
	}
}

static void expand(const char *msg, const struct problem_ctx *p)
{
	const char *c;

	for (c = msg; *c; c++) {
		if (*c != '%' || !c[1]) {
			putchar(*c);
			continue;
		}
		switch (*++c) {
		case 'i': printf("%u", p->ino); break;
		case 'j': printf("%u", p->ino2); break;
		case 'd': printf("%u", p->dir); break;
		case 'b': printf("%llu", (unsigned long long)p->blk); break;
		case 'c': printf("%llu", (unsigned long long)p->blk2); break;
		case 'N': printf("%llu", (unsigned long long)p->num); break;
		case 'M': printf("%llu", (unsigned long long)p->num2); break;
		case 'O': printf("%llo", (unsigned long long)p->num); break;
		case 'x': printf("%llx", (unsigned long long)p->num); break;
		case 'X': printf("%llx", (unsigned long long)p->num2); break;
		case 'g': printf("%u", p->group); break;
		case 'l': printf("%u", p->lblk); break;
		case 'r': fputs(stalefs_rule_msg(p->rule), stdout); break;
		case 's': fputs(p->str ? p->str : "", stdout); break;
		case 'n': print_name(p->name ? p->name : "", p->name ? p->name_len : 0); break;
		case '%': putchar('%'); break;
		default: putchar('%'); putchar(*c); break;
		}
	}
}

static void preen_halt(struct fsck_ctx *ctx)
{
	printf("\n\n%s: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n"
	       "\t(i.e., without -a or -p options)\n", ctx->name);
	fflush(stdout);
	/* Nothing is written: the repairs made so far are in the cache and are dropped. */
	stalefs_free(ctx->fs);
	ctx->fs = NULL;
	fsck_exit(FSCK_UNCORRECTED);
}

/* One answer from the terminal: y, n, or a (yes to all); Enter means yes. */
static bool ask_terminal(struct fsck_ctx *ctx, const char *prompt)
{
	struct termios old, raw;
	bool have_termios = tcgetattr(0, &old) == 0;
	int ch;
	bool answer = true;

	printf("%s<y>? ", prompt);
	fflush(stdout);
	if (have_termios) {
		raw = old;
		raw.c_lflag &= (tcflag_t)~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(0, TCSANOW, &raw);
	}
	for (;;) {
		ch = getchar();
		if (ch == EOF || fsck_cancel_requested) {
			if (have_termios)
				tcsetattr(0, TCSANOW, &old);
			printf("cancelled!\n");
			fsck_cancel_requested = 1;
			fsck_check_cancel(ctx);
			answer = false;
			break;
		}
		ch = tolower(ch);
		if (ch == 'y' || ch == '\n' || ch == '\r') {
			answer = true;
			break;
		}
		if (ch == 'n') {
			answer = false;
			break;
		}
		if (ch == 'a') {
			ctx->yes_to_all = true;
			answer = true;
			break;
		}
	}
	if (have_termios)
		tcsetattr(0, TCSANOW, &old);
	printf(ch == 'a' ? "yes to all\n\n" : answer ? "yes\n\n" : "no\n\n");
	return answer;
}

void pass_header(struct fsck_ctx *ctx, int code)
{
	struct problem_ctx p;

	memset(&p, 0, sizeof(p));
	fix_problem(ctx, code, &p);
}

/*
 * STALEFS_FSCK_PROBLEM_LOG names a file that gets every problem code raised,
 * one per line: tests/fsck/coverage uses it to prove that each code in the
 * table is exercised by some corpus case.  Only the log is written, never
 * the image, so -n stays read-only.
 */
static void log_problem(int code)
{
	static FILE *log;
	static bool opened;

	if (!opened) {
		const char *path = getenv("STALEFS_FSCK_PROBLEM_LOG");

		opened = true;
		if (path && *path)
			log = fopen(path, "a");
	}
	if (log) {
		fprintf(log, "0x%06x\n", code);
		fflush(log);
	}
}

static bool latch_start(struct fsck_ctx *ctx, enum problem_latch latch)
{
	size_t i;
	struct problem_ctx p;

	if (ctx->latch_active[latch])
		return true;
	ctx->latch_active[latch] = true;
	memset(&p, 0, sizeof(p));
	for (i = 0; i < sizeof(latches) / sizeof(latches[0]); i++)
		if (latches[i].latch == latch) {
			const struct problem *h = find_problem(latches[i].header);

			log_problem(h->code);
			if (ctx->options & OPT_PREEN)
				printf("%s: ", ctx->name);
			expand(h->msg, &p);
		}
	return true;
}

bool fix_problem(struct fsck_ctx *ctx, int code, struct problem_ctx *pctx)
{
	const struct problem *pr = find_problem(code);
	bool preen = ctx->options & OPT_PREEN;
	bool answer;

	log_problem(code);

	if (!pr) {
		fprintf(stderr, "%s: unknown problem code 0x%06x\n", ctx->program, code);
		fsck_exit(FSCK_LIBRARY);
	}
	if (pr->flags & PR_LATCH) {
		latch_start(ctx, pr->latch);
		expand(pr->msg, pctx);
		return true;
	}
	if (pr->flags & PR_MSG_ONLY) {
		/* Pass headers and notes: preen mode stays quiet about headers. */
		if (preen && (code & 0xFFFF) == 0)
			return false;
		if (preen)
			printf("%s: ", ctx->name);
		expand(pr->msg, pctx);
		putchar('\n');
		if (pr->flags & PR_FATAL) {
			ctx->uncorrected = true;
			return false;
		}
		return false;
	}
	if ((pr->flags & PR_JOURNAL_LAZY) && fsck_journal_lazy(ctx))
		return !(ctx->options & OPT_READONLY);
	if (ctx->options & OPT_DEBUG)
		printf("(0x%06x) ", code);
	if (preen) {
		if (!(pr->flags & PR_PREEN_OK)) {
			printf("%s: ", ctx->name);
			expand(pr->msg, pctx);
			preen_halt(ctx);
		}
		if (!(pr->flags & PR_PREEN_NOMSG) && pr->msg[0]) {
			printf("%s: ", ctx->name);
			expand(pr->msg, pctx);
			printf(" %s\n", past_text[pr->prompt]);
		}
		ctx->changed = true;
		return true;
	}
	expand(pr->msg, pctx);
	if (pr->msg[0])
		putchar('\n');
	if (ctx->options & OPT_READONLY) {
		printf("%s? no\n\n", prompt_text[pr->prompt]);
		answer = false;
	} else if ((ctx->options & OPT_YES) || ctx->yes_to_all) {
		printf("%s? yes\n\n", prompt_text[pr->prompt]);
		answer = true;
	} else {
		answer = ask_terminal(ctx, prompt_text[pr->prompt]);
	}
	if (answer)
		ctx->changed = true;
	else if (!(pr->flags & PR_NO_OK))
		ctx->uncorrected = true;
	fflush(stdout);
	return answer;
}

bool end_latch(struct fsck_ctx *ctx, enum problem_latch latch)
{
	struct problem_ctx p;
	size_t i;

	if (!ctx->latch_active[latch])
		return false;
	ctx->latch_active[latch] = false;
	memset(&p, 0, sizeof(p));
	if (!(ctx->options & OPT_PREEN))
		putchar('\n');
	for (i = 0; i < sizeof(latches) / sizeof(latches[0]); i++)
		if (latches[i].latch == latch) {
			bool ans = fix_problem(ctx, latches[i].end, &p);

			if (ctx->options & OPT_PREEN)
				printf(" %s\n", ans ? "FIXED." : "");
			return ans;
		}
	return false;
}
