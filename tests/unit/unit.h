/* Shared helpers of the unit tests: scratch images, assertions on errcodes. */
#ifndef STALEFS_UNIT_H
#define STALEFS_UNIT_H

#include <check.h>
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

/* A scratch filesystem in a temporary file, made by stalefs_mkfs. */
struct scratch {
	char path[64];		/* /proc/self/fd/N: the file is unlinked at once */
	int fd;
	stalefs_fs *fs;
	struct stalefs_mkfs_params p;
};

/* Defaults for a device of `bytes` at block size bs; tweak may change them before mkfs. */
stalefs_fs *scratch_mkfs_with(struct scratch *s, u64 bytes, u32 bs,
			      void (*tweak)(struct stalefs_mkfs_params *p));
stalefs_fs *scratch_mkfs(struct scratch *s, u64 bytes, u32 bs);
/* Close (flushing everything) and open again read-write from the disk. */
stalefs_fs *scratch_reopen(struct scratch *s);
/* Close the filesystem and the image (already unlinked). */
void scratch_done(struct scratch *s);

/* A committed one-block transaction in fs's journal, not replayed: block target gets block_size
 * bytes from seed (into blk too) at recovery. */
void unit_journal_block(stalefs_fs *fs, u64 target, u64 seed, void *blk);

/* Deterministic pseudo-random numbers (xorshift), so a failing run repeats. */
u64 unit_rand(u64 *state);
void unit_fill(u64 *state, void *buf, size_t len);

/* Check's ck_assert* report their position through a pipe on every call: in hot
 * loops test with plain C and only call into Check on failure. */
#define hot_assert(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

#define ck_ok(expr) do { \
	errcode_t ck_e_ = (expr); \
	ck_assert_msg(ck_e_ == 0, "%s failed: %s (%ld)", #expr, error_message(ck_e_), (long)ck_e_); \
} while (0)

#define ck_err(expr, want) do { \
	errcode_t ck_e_ = (expr), ck_w_ = (want); \
	ck_assert_msg(ck_e_ == ck_w_, "%s returned \"%s\" (%ld), expected \"%s\"", #expr, \
		      ck_e_ ? error_message(ck_e_) : "success", (long)ck_e_, error_message(ck_w_)); \
} while (0)

/* Well-formed structures to start from (fixtures.c); each passes its verifier. */
#define FIX_BS 4096
#define FIX_SEED 0x5eed1234u
void fix_super(struct stalefs_super_block *sb, struct stalefs_geom *g);
void fix_desc(const struct stalefs_geom *g, u32 group, struct stalefs_group_desc *d);
void fix_inode(u32 ino, u16 mode, struct stalefs_inode *inode);
/* An extent tree leaf block holding n extents of 4 blocks, 8 blocks apart. */
void fix_extblock(void *buf, u32 bs, u64 blocknr, u32 owner, u32 gen, u32 n);
/* A directory block with ".", ".." and "file" (inode 12). */
void fix_dirblock(void *buf, u32 bs, u64 blocknr, u32 owner, u32 lblk);
/* The dir entry at byte off of a directory block. */
static inline struct stalefs_dir_entry *fix_dirent(void *buf, u32 off)
{
	return (struct stalefs_dir_entry *)((u8 *)buf + off);
}

Suite *layout_suite(void);
Suite *checksum_suite(void);
Suite *verify_suite(void);
Suite *geometry_suite(void);
Suite *group_meta_suite(void);
Suite *extent_rules_suite(void);
Suite *dir_rules_suite(void);
Suite *xattr_rules_suite(void);
Suite *xattr_suite(void);
Suite *alloc_suite(void);
Suite *extent_list_suite(void);
Suite *extent_tree_suite(void);
Suite *dir_suite(void);
Suite *file_suite(void);
Suite *mkfs_lib_suite(void);
Suite *open_suite(void);
Suite *helpers_suite(void);
Suite *journal_format_suite(void);
Suite *journal_replay_suite(void);
Suite *overlay_suite(void);
Suite *io_region_suite(void);
Suite *txn_suite(void);
Suite *emap_suite(void);
Suite *orphan_suite(void);
Suite *tune_suite(void);
Suite *hash_suite(void);
Suite *timeline_suite(void);
Suite *jhistory_suite(void);
Suite *partition_suite(void);

#endif
