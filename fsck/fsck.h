/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fsck.stalefs internals: the check context shared by the passes.
 *
 * Memory follows what is used, not the device: per-group bitmaps are
 * allocated only for groups that hold something beyond their own metadata
 * (or whose bitmaps were initialised on disk), per-inode records only for
 * groups with initialised inode table slots, and per-directory records only
 * for directories.
 */
#ifndef FSCK_H
#define FSCK_H

#include <signal.h>
#include "libstalefs.h"
#include "problem.h"

#ifndef STALEFS_VERSION
#define STALEFS_VERSION "0.1"
#endif

/* Exit status bits (fsck(8)). */
#define FSCK_OK			0
#define FSCK_NONDESTRUCT	1
#define FSCK_REBOOT		2
#define FSCK_UNCORRECTED	4
#define FSCK_ERROR		8
#define FSCK_USAGE		16
#define FSCK_CANCELED		32
#define FSCK_LIBRARY		128

/* Options. */
#define OPT_READONLY	0x0001	/* -n */
#define OPT_YES		0x0002	/* -y */
#define OPT_PREEN	0x0004	/* -p / -a */
#define OPT_FORCE	0x0008	/* -f */
#define OPT_HIDE_STALE	0x0010	/* -E hide_stale */
#define OPT_DEBUG	0x0020	/* -d: print problem codes */

/* Per-inode file type kept from pass 1 (0: not in use). */
#define FT_RESERVED	0xFE	/* reserved inodes 1, 3..10 */

/* What a rebuild of an inode's extent tree applies (accepted answers). */
#define FIX_STRUCT	0x01	/* drop bad entries and subtrees, rewrite nodes */
#define FIX_S1		0x02	/* STALE|UNWRITTEN -> UNWRITTEN */
#define FIX_S2		0x04	/* STALE in a non-regular file: directory -> written, else UNWRITTEN */
#define FIX_S3		0x08	/* STALE without the feature -> UNWRITTEN */
#define FIX_HIDE	0x10	/* -E hide_stale: STALE -> UNWRITTEN */
#define FIX_FLAGS	0x20	/* unknown extent flags dropped */
#define FIX_DIR_HOLES	0x40	/* directory: fill holes, convert unwritten blocks */
#define FIX_CLONE	0x80	/* copy multiply-claimed blocks to new ones */

struct group_info {
	u32 mark;		/* initialised inode slots (ipg - itable_unused) at pass 1 */
	u8 *ft;			/* per slot: file type (STALEFS_FT_*), FT_RESERVED, or 0 */
	u16 *links;		/* i_links_count as on disk (after pass 1 fixes) */
	u16 *counted;		/* references found (directory entries, '.', '..') */
	u8 *bmap;		/* computed block bitmap, NULL: only the group's metadata */
	u8 *orig_bb;		/* on-disk block bitmap kept for pass 5 (NULL: uninitialised) */
	u8 *orig_ib;		/* on-disk inode bitmap kept for pass 5 */
	bool orig_bb_loaded, orig_ib_loaded;
	u8 *snap_bb, *snap_ib;	/* the computed maps at the swap: what repairs changed since is theirs */
	bool snap_taken;
	u32 orphans;		/* inodes in use still flagged ORPHAN after pass 1 (pass 5 checks the count) */
	u32 stale;		/* regular files left holding STALE extents after pass 1 (S6, pass 5) */
};

struct dir_info {
	u32 ino;
	u32 parent;		/* the directory whose entry names it (pass 2), 0 if none */
	u32 dotdot;		/* what its '..' says */
	u32 stamp;		/* pass 3 walk marker */
	u64 blk0;		/* physical block of its first directory block, 0 if none */
	bool done;		/* pass 3: known connected to the root */
};

struct dir_block {
	u64 pblk;
	u32 ino;		/* 0: dropped (the directory was rebuilt) */
	u32 lblk;
};

struct dup_entry {
	u64 block;
	u32 claims;
};

struct xattr_owner {
	u32 ino;
	u64 block;		/* its xattr block, claimed in pass 1; 0: given back */
};

struct rebuild {
	u32 ino;
	u8 fixes;		/* FIX_* accepted */
};

struct fsck_ctx {
	const char *program;
	const char *device;
	const char *name;		/* -N, else the device */
	int options;
	int progress_fd;		/* -C: -1 none */
	bool progress_bar;
	u64 sb_block;			/* -b */
	u32 block_size;			/* -B */
	stalefs_fs *fs;
	u32 stale_gid;

	/* answers */
	bool yes_to_all;		/* interactive 'a' */
	bool changed;			/* something was fixed */
	bool uncorrected;		/* something was left unfixed */
	bool library_error;		/* the library refused a repair */
	bool latch_active[LATCH_MAX];
	bool latch_answer[LATCH_MAX];

	/* maps */
	struct group_info *groups;
	u32 ngroups;
	struct dir_info *dirs;
	u32 ndirs, dirs_cap;
	struct dir_block *dblist;
	u32 ndb, db_cap;
	struct dup_entry *dups;		/* open-addressing hash of multiply-claimed blocks */
	u32 dups_cap, ndups;
	struct rebuild *rebuilds;
	u32 nrebuilds, rebuilds_cap;
	u32 *dup_inodes;		/* pass 1B: inodes holding a multiply-claimed block */
	u32 ndup_inodes, dup_inodes_cap;
	struct xattr_owner *xowners;	/* inodes whose xattr block pass 1 claimed, by inode */
	u32 nxowners, xowners_cap;
	bool maps_swapped;		/* fs bitmaps are now the computed ones */

	/* what pass 1 found */
	u32 lpf_ino;
	u64 fs_fragmented;
	u32 files_reg, files_dir, files_lnk, files_other;
	u64 stale_files, stale_blocks, stale_escaped;
	u64 free_blocks_counted;	/* pass 5 */
	u32 free_inodes_counted;
	bool dotdot_counted;		/* pass 3 has counted every '..' */
	bool used_backup;

	/* the journal (journal.c) */
	bool journal_ok;		/* a journal pass 1 claims: [journal_start, +journal_len) */
	u64 journal_start;
	u32 journal_len;
	bool journal_cleared;		/* an unusable journal was cleared: recreate one at the end */
	bool journal_free_pending;	/* ... whose blocks are freed once the bitmaps are read */
	u64 journal_free_start;
	u32 journal_free_len;
	bool recovery_left;		/* RECOVER is still set: the journal could not be replayed */
	bool stale_forced;		/* the quick stale audit found what needs the full check (said so) */
	bool force_check;		/* the journal or orphans need a full check even if marked clean */
	bool overlay_noted;		/* -n: said once that changes stay in memory */

	u8 *buf;			/* one block */
};

extern volatile sig_atomic_t fsck_cancel_requested;

/* main.c */
int fsck_main(int argc, char **argv);
/* The filesystem has a journal (or had one this run cleared): PR_JOURNAL_LAZY rules are lazy. */
bool fsck_journal_lazy(struct fsck_ctx *ctx);
/* Every way out goes through here, so that an embedding (the fuzzer) can return instead. */
_Noreturn void fsck_exit(int status);
extern void *fsck_exit_jmp;		/* a jmp_buf *: longjmp there with 0x100 | status */
void fsck_check_cancel(struct fsck_ctx *ctx);
void fsck_fatal(struct fsck_ctx *ctx, errcode_t err, const char *what);
void fsck_library_error(struct fsck_ctx *ctx, errcode_t err, const char *what);

/* progress.c */
void progress_update(struct fsck_ctx *ctx, int pass, u64 done, u64 total);
void progress_done(struct fsck_ctx *ctx);

/* super.c: pass 0 */
int fsck_open(struct fsck_ctx *ctx);
void check_super_and_groups(struct fsck_ctx *ctx);
/* itable_mark.c: each group's unused-inode mark against its bitmap and the names that point past it */
void check_itable_marks(struct fsck_ctx *ctx);

/* journal.c: before the check (fields, journal superblock, replay), after it (recreate) */
void journal_check(struct fsck_ctx *ctx);
void journal_after_bitmaps(struct fsck_ctx *ctx);
void journal_recreate(struct fsck_ctx *ctx);
/* -n: changes the journal and orphans need are kept in memory from here on */
void fsck_use_overlay(struct fsck_ctx *ctx);

/* orphans.c: finish what the kernel left flagged ORPHAN (FORMAT.md 13), before pass 1 */
bool orphans_pending(struct fsck_ctx *ctx);
void finish_orphans(struct fsck_ctx *ctx);

/* maps.c */
void maps_init(struct fsck_ctx *ctx);
void maps_free(struct fsck_ctx *ctx);
void group_ensure_inodes(struct fsck_ctx *ctx, u32 group);
u8 *inode_ft_ptr(struct fsck_ctx *ctx, u32 ino);
u16 *inode_links_ptr(struct fsck_ctx *ctx, u32 ino);
u16 *inode_counted_ptr(struct fsck_ctx *ctx, u32 ino);
u8 inode_ft(struct fsck_ctx *ctx, u32 ino);
void inode_count_ref(struct fsck_ctx *ctx, u32 ino, int delta);
bool block_range_in_meta(struct fsck_ctx *ctx, u64 start, u64 len);
/* Claim [start, start+len) for an owner; returns how many were already claimed. */
u64 claim_blocks(struct fsck_ctx *ctx, u64 start, u64 len);
bool block_claimed(struct fsck_ctx *ctx, u64 block);
u32 dup_claims(struct fsck_ctx *ctx, u64 block);
void dup_release(struct fsck_ctx *ctx, u64 block);
void dup_reclaim(struct fsck_ctx *ctx, u64 block);
struct dir_info *dir_add(struct fsck_ctx *ctx, u32 ino);
struct dir_info *dir_find(struct fsck_ctx *ctx, u32 ino);
void dblist_add(struct fsck_ctx *ctx, u32 ino, u32 lblk, u64 pblk);
void dblist_drop(struct fsck_ctx *ctx, u32 ino);
void rebuild_add(struct fsck_ctx *ctx, u32 ino, u8 fixes);
void maps_swap_into_fs(struct fsck_ctx *ctx);
void group_meta_bitmap(struct fsck_ctx *ctx, u32 group, u8 *map);
void inode_pad_bitmap(struct fsck_ctx *ctx, u8 *map);
size_t bb_bytes(struct fsck_ctx *ctx);
size_t ib_bytes(struct fsck_ctx *ctx);
/* Inode bookkeeping when repairs create or delete inodes through the library. */
void note_inode_created(struct fsck_ctx *ctx, u32 ino, u16 mode, u16 links);
void note_inode_deleted(struct fsck_ctx *ctx, u32 ino);

static inline bool bit_test(const u8 *map, u64 i) { return map[i >> 3] & (1u << (i & 7)); }
static inline void bit_set(u8 *map, u64 i) { map[i >> 3] |= (u8)(1u << (i & 7)); }
static inline void bit_clear(u8 *map, u64 i) { map[i >> 3] &= (u8)~(1u << (i & 7)); }

/* extents.c: walk an extent tree, checking every node and entry */
struct extent_scan {
	/* in */
	u32 ino;
	const struct stalefs_inode *inode;
	bool report;		/* ask about problems (pass 1) or apply silently (rebuild) */
	u8 accepted;		/* FIX_* to apply to yielded extents when !report */
	/* called for every extent kept (flags already corrected) and every node block kept */
	void (*extent)(struct fsck_ctx *ctx, struct extent_scan *s, const struct stalefs_ext *e);
	void (*node)(struct fsck_ctx *ctx, struct extent_scan *s, u64 block);
	void *priv;
	/* out */
	u8 fixes;		/* FIX_* accepted while reporting */
	bool declined;		/* a structural fix was refused: leave the tree alone */
	bool root_bad;		/* the root itself is unusable (answer in clear_inode) */
	bool clear_inode;
	u32 depth;
};
void scan_extents(struct fsck_ctx *ctx, struct extent_scan *s);
/* The flags an extent gets under the accepted fixes. */
u16 extent_fixed_flags(struct fsck_ctx *ctx, const struct stalefs_inode *inode, u16 flags, u8 fixes);

/* pass1.c */
void pass1(struct fsck_ctx *ctx);
void clear_inode(struct fsck_ctx *ctx, u32 ino);
bool fsck_write_inode(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode);

/* xattr.c: pass 1's checks of extended attributes (FORMAT.md 14) */
u64 check_xattrs(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode, u8 *area, bool *dirty);
bool xattr_ibody_write(struct fsck_ctx *ctx, u32 ino, const u8 *area);
u64 xattr_block_of(struct fsck_ctx *ctx, u32 ino);
void xattr_forget(struct fsck_ctx *ctx, u32 ino);

/* rebuild.c: pass 1B-1D and deferred tree rewrites (after the maps swap) */
void pass1b(struct fsck_ctx *ctx);
void run_rebuilds(struct fsck_ctx *ctx);

/* stale.c */
void stale_check_inode(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode,
		       u64 stale_blocks, bool rebuild_pending, bool *dirty, u8 *fixes);
void stale_summary(struct fsck_ctx *ctx);
/* The audit of a run that skips the full check: false when it found what needs one. */
bool stale_quick_audit(struct fsck_ctx *ctx);

/* pass2.c .. pass5.c */
void pass2(struct fsck_ctx *ctx);
void pass3(struct fsck_ctx *ctx);
bool fix_dotdot(struct fsck_ctx *ctx, struct dir_info *di, u32 parent);
u32 get_lost_and_found(struct fsck_ctx *ctx, bool create);
bool reconnect_file(struct fsck_ctx *ctx, u32 ino, bool changed);
void pass4(struct fsck_ctx *ctx);
void pass5(struct fsck_ctx *ctx);

/* dirblock helpers (pass2.c) */
void dirblock_init(struct fsck_ctx *ctx, u8 *buf, u64 pblk, u32 owner, u32 lblk, u32 parent);

#endif
