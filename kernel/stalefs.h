/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stalefs kernel module: in-memory structures and the functions the source
 * files share.  The on-disk format and its verifiers come from format/core
 * (compiled into this module through the kernel/core symlink).
 */
#ifndef STALEFS_KERNEL_H
#define STALEFS_KERNEL_H

#include <linux/fs.h>
#include <linux/buffer_head.h>
#include <linux/jbd2.h>
#include <linux/iomap.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/rbtree.h>
#include <linux/blkdev.h>
#include "core/stalefs_core.h"
#include "core/../stalefs_ioctl.h"

struct journal_s;

#define STALEFS_ERR_ON_DEFAULT 0	/* use s_errors from the superblock */

/* Mount options (fs_context) */
struct stalefs_mount_opts {
	int errors;		/* STALEFS_ERRORS_*, 0: superblock default */
	bool commit_set;	/* commit= given */
	u32 commit;		/* seconds between journal commits, 0: jbd2's default (5) */
	bool norecovery;	/* norecovery / noload: do not replay (read-only only) */
	bool stale_gid_set;	/* stale.c: nohide_stale_gid= given */
	u32 stale_gid;
	bool noacl;		/* noacl given (acl, the default, clears it) */
	bool acl_set;		/* acl or noacl given */
	bool discard;		/* discard given (nodiscard clears it) */
	bool discard_set;	/* discard or nodiscard given */
};

/* trim.c: an extent FITRIM is discarding, which the allocator must skip meanwhile. */
struct stalefs_trim_ext {
	u64 start, len;
};

/* trim.c: discards queued as one bio chain, waited for once. */
struct stalefs_discard {
	struct super_block *sb;
	struct bio *bio;
	struct blk_plug plug;
	int err;
	u64 blocks;		/* queued */
};

/* super.c: error records made while the superblock is in the journal (resize.c), for after. */
struct stalefs_err_stash {
	u32 count;
	u64 first_time, first_block, last_time, last_block;
	u32 first_ino, last_ino;
	char first_func[32], last_func[32];
};

struct stalefs_sb_info {
	struct super_block *sb;
	struct stalefs_geom geom;
	struct buffer_head *sbh;		/* primary superblock */
	struct stalefs_super_block *raw;	/* inside sbh */
	struct buffer_head **gd_bh;		/* descriptor table blocks */
	u32 csum_seed;
	int errors;				/* effective errors= behaviour */
	bool errors_opt;			/* errors= given at mount */
	/*
	 * One lock for block and inode bitmaps, descriptors and the free
	 * summaries: allocation is short and this keeps the counters exact.
	 */
	struct mutex alloc_lock;
	u64 free_blocks;
	/*
	 * The last blocks, kept for unwritten conversion: it runs after the
	 * data I/O and may need extent tree blocks, and failing it then would
	 * lose data a write already reported written (ext4 keeps a reserve for
	 * the same reason).
	 */
	u64 resv_blocks;
	u32 free_inodes;
	u32 last_group;				/* rotor for directory placement */
	spinlock_t err_lock;			/* superblock error fields */
	struct workqueue_struct *conv_wq;	/* unwritten conversion after writeback */
	/* stale.c: NO_HIDE_STALE armed by nohide_stale_gid=stale_gid */
	bool stale_armed;
	u32 stale_gid;
	/* journal.c */
	struct journal_s *journal;		/* NULL: no journal (or norecovery) */
	u64 journal_start;			/* first block, its jbd2 superblock */
	u32 journal_blocks;
	u32 commit_interval;			/* commit= seconds, 0: default */
	bool norecovery;
	unsigned long flags;			/* STALEFS_FLAG_* */
	spinlock_t pending_lock;		/* freed blocks waiting for their commit */
	struct rb_root pending;
	struct list_head pending_list;
	u64 pending_count;
	/* trim.c: FITRIM and online discard (mount option discard) */
	bool discard;
	struct mutex trim_mutex;		/* one FITRIM at a time */
	struct stalefs_trim_ext *trim_busy;	/* being discarded (alloc_lock) */
	u32 trim_nbusy;
	/*
	 * resize.c: sb_mutex serialises what changes the superblock in place
	 * outside the error and summary paths (tune.c, the permitted group in
	 * stale.c) with an online grow; descriptor arrays a grow replaced stay
	 * here until unmount.
	 */
	struct mutex sb_mutex;
	struct list_head gd_retired;
	struct stalefs_err_stash err_stash;	/* err_lock */
	/* iomap.c: inodes whose converted extents wait to be saved */
	spinlock_t save_lock;
	struct list_head save_list;
	struct delayed_work save_work;
	struct rb_root windows;			/* alloc_window.c (alloc_lock) */
};

enum {
	STALEFS_FLAG_SHUTDOWN,			/* FS_IOC_GOINGDOWN: write nothing more */
	STALEFS_FLAG_SB_JOURNALED,		/* resize.c: the superblock is in a transaction */
};

static inline struct stalefs_sb_info *STALEFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

#include "extent_map.h"

/* alloc_window.c: blocks past a growing file's end that others step around */
struct stalefs_window {
	struct rb_node node;		/* in sbi->windows; empty: no window */
	u64 start, end;
};

struct stalefs_inode_info {
	/*
	 * i_map_sem guards the extent list and the tree blocks below; i_map_seq
	 * changes with every change of the mapping so that iomap can tell a
	 * cached mapping went stale (->iomap_valid, writeback map_blocks).
	 */
	struct rw_semaphore i_map_sem;
	u64 i_map_seq;
	u64 i_root_gen;			/* bumped by every save of the root (i_data) */
	struct stalefs_emap i_map;	/* the extents, sorted by lblk, non-overlapping */
	u32 i_nstale;			/* extents flagged STALE */
	/* Starts (lblk) of the extents edited since the last save: [lo, hi]. */
	u64 i_dirty_lo, i_dirty_hi;
	bool i_repack;			/* next save packs every leaf afresh */
	u64 *i_nodes;			/* tree node blocks: the leaves in order, then index nodes */
	u32 i_nnodes;
	u32 i_nleaves;
	u32 *i_leaf_key;		/* first lblk of each leaf, as last saved */
	unsigned long *i_leaf_dirty;	/* bitmap: leaves an edit touched (NULL: use the lo/hi range) */
	struct stalefs_dx *i_dx;	/* large directories: in-memory index (dir_index.c) */
	struct mutex i_dx_lock;		/* building i_dx */
	u8 i_data[STALEFS_IBLOCK_SIZE];	/* extent root or inline symlink, on-disk form */
	u32 i_dflags;			/* STALEFS_INODE_*_FL */
	struct timespec64 i_crtime;
	u64 i_dtime;
	u32 i_dir_group;		/* allocation goal group */
	/* xattr.c: the external attribute block (0: none), and what guards both regions */
	u64 i_xattr_block;
	struct rw_semaphore i_xattr_sem;
	bool i_converting;		/* in unwritten conversion: may use the reserve (i_map_sem) */
	/* journal.c: the last transactions holding a change of the inode (fsync commits them) */
	u32 i_sync_tid, i_datasync_tid;
	/*
	 * iomap.c: extents converted in memory at I/O completion and not saved
	 * yet (i_map_sem); the inode is on sbi->save_list (save_lock) meanwhile.
	 */
	unsigned long i_stale_reported;	/* stale.c: an escape was recorded (bit 0) */
	bool i_save_pending;
	u32 i_pending_edits;
	struct list_head i_save_node;
	/* Writeback ioends waiting for unwritten conversion. */
	spinlock_t i_ioend_lock;
	struct list_head i_ioend_list;
	struct work_struct i_ioend_work;
	struct stalefs_window i_window;	/* alloc_window.c (sbi->alloc_lock) */
	struct inode vfs_inode;
};

static inline struct stalefs_inode_info *STALEFS_I(struct inode *inode)
{
	return container_of(inode, struct stalefs_inode_info, vfs_inode);
}

/*
 * The locking rules the comments state, asserted.  Under lockdep the
 * assertion is exact (this task holds it, for writing where it says so);
 * without lockdep, as in Debian's kernels, at least that someone holds the
 * lock, which the VM tests catch as a WARNING.
 */
#define stalefs_assert_rwsem(sem)						\
	do {									\
		lockdep_assert_held(sem);					\
		WARN_ON_ONCE(!rwsem_is_locked(sem));				\
	} while (0)
#define stalefs_assert_rwsem_write(sem)						\
	do {									\
		lockdep_assert_held_write(sem);					\
		WARN_ON_ONCE(!rwsem_is_locked(sem));				\
	} while (0)
#define stalefs_assert_mutex(m)							\
	do {									\
		lockdep_assert_held(m);						\
		WARN_ON_ONCE(!mutex_is_locked(m));				\
	} while (0)

/*
 * Dirty a buffer the filesystem holds for its whole mount (superblock,
 * group descriptors).  A failed write-back left it not uptodate with a
 * write error, but what it holds in memory is still the newest; say so
 * before dirtying it again (mark_buffer_dirty warns on a buffer that is
 * not uptodate), so the write is retried, as ext4_commit_super does.
 */
static inline void stalefs_dirty_held(struct buffer_head *bh)
{
	if (buffer_write_io_error(bh) || !buffer_uptodate(bh)) {
		clear_buffer_write_io_error(bh);
		set_buffer_uptodate(bh);
	}
	mark_buffer_dirty(bh);
}

/*
 * Buffer verified once after read.  jbd2 owns the private buffer bits from
 * BH_PrivateStart (BH_JBD first); a filesystem's own start after them.
 */
enum { BH_Stalefs_Verified = BH_JBDPrivateStart };
BUFFER_FNS(Stalefs_Verified, stalefs_verified)

/* journal.c (the rest is in journal.h) */
int stalefs_pending_init_cache(void);
void stalefs_pending_destroy_cache(void);
void stalefs_journal_set_options(struct super_block *sb);

/* super.c */
__printf(5, 6)
void __stalefs_error(struct super_block *sb, const char *func, u32 ino, u64 block,
		     const char *fmt, ...);
#define stalefs_error(sb, ino, block, fmt, ...) \
	__stalefs_error(sb, __func__, ino, block, fmt, ##__VA_ARGS__)
__printf(5, 6)
void __stalefs_note_error(struct super_block *sb, const char *func, u32 ino, u64 block,
			  const char *fmt, ...);
#define stalefs_note_error(sb, ino, block, fmt, ...) \
	__stalefs_note_error(sb, __func__, ino, block, fmt, ##__VA_ARGS__)
void stalefs_commit_super(struct super_block *sb, bool wait);
/* resize.c: the superblock joins a transaction (on) or is an in-place buffer again (off). */
void stalefs_super_journaled(struct super_block *sb, bool on);
/* Stop writing: the journal aborted or a transaction failed (read-only, or panic). */
void __stalefs_abort(struct super_block *sb, const char *func, int err, const char *why);

/* tune.c: the ioctls that change a mounted filesystem's superblock settings */
long stalefs_ioc_getfslabel(struct file *file, char __user *ulabel);
long stalefs_ioc_setfslabel(struct file *file, const char __user *ulabel);
long stalefs_ioc_get_tune(struct file *file, struct stalefs_tune __user *ut);
long stalefs_ioc_set_tune(struct file *file, const struct stalefs_tune __user *ut);

/* trim.c */
int stalefs_trim_init(struct super_block *sb);
void stalefs_trim_release(struct super_block *sb);
long stalefs_ioc_fitrim(struct file *file, struct fstrim_range __user *urange);
/* The allocator's test: pending (journal.c) or being trimmed: as stalefs_pending_skip. */
u64 stalefs_busy_skip(struct super_block *sb, u64 block, u64 *limit);
void stalefs_discard_begin(struct super_block *sb, struct stalefs_discard *dc);
void stalefs_discard_add(struct stalefs_discard *dc, u64 start, u64 len);
int stalefs_discard_finish(struct stalefs_discard *dc);
void stalefs_discard_now(struct super_block *sb, u64 start, u32 len);

/* resize.c */
long stalefs_ioc_resize_fs(struct file *file, const u64 __user *arg);
void stalefs_resize_release(struct super_block *sb);

/* alloc_window.c */
u64 stalefs_window_skip(struct inode *owner, u64 block, u64 *limit);
void stalefs_window_moved(struct inode *owner, u64 lblk_end, u64 pblk, u32 got, u64 limit);
void stalefs_window_drop(struct inode *inode);

/* alloc.c */
int stalefs_load_groups(struct super_block *sb);
void stalefs_put_groups(struct super_block *sb);
struct stalefs_group_desc *stalefs_get_desc(struct super_block *sb, u32 group,
					    struct buffer_head **bhp);
int stalefs_new_blocks(struct inode *inode, u64 goal, u32 want, u64 *pblk, u32 *got);
int stalefs_new_data_blocks(struct inode *inode, u64 goal, u32 want, u64 lblk_end, u64 *pblk,
			    u32 *got);
void stalefs_free_file_blocks(struct inode *inode, u64 pblk, u32 len, bool metadata);
bool stalefs_blocks_valid(struct super_block *sb, u64 pblk, u64 len);
bool stalefs_meta_free(struct super_block *sb, u64 pblk, u64 len);
int stalefs_new_ino(struct inode *dir, umode_t mode, u32 *ino);
void stalefs_free_ino(struct super_block *sb, u32 ino, bool dir, bool orphan);
int stalefs_group_count(struct super_block *sb, u32 ino, bool stale, int delta);
u64 stalefs_count_stale_inodes(struct super_block *sb);
u64 stalefs_count_free_blocks(struct super_block *sb);
u32 stalefs_count_free_inodes(struct super_block *sb);
int stalefs_group_grow_bitmap(struct super_block *sb, u32 group, u32 from, u32 to);

/* extents.c */
#define STALEFS_HOLE_PBLK 0
int stalefs_ext_load(struct inode *inode);
void stalefs_ext_init_empty(struct inode *inode);
void stalefs_ext_release(struct inode *inode);
void stalefs_ext_forget_nodes(struct stalefs_inode_info *ei);
void stalefs_ext_reset_dirty(struct stalefs_inode_info *ei, u32 nleaves);
/* Lookup: 1 and *ex = extent holding lblk, or 0 and ex->len = hole length (0: to the end). */
int stalefs_ext_lookup(struct inode *inode, u32 lblk, struct stalefs_ext *ex);
int stalefs_ext_insert(struct inode *inode, const struct stalefs_ext *ex);
/*
 * Edits touch at most STALEFS_EDIT_EXTENTS extents per call, so that one
 * transaction holds them (journal.h): *next says where to go on from
 * (lblk + len when done); *more whether anything is left to remove.
 */
int stalefs_ext_convert(struct inode *inode, u32 lblk, u32 len, u16 from, u16 to, u64 *next);
int stalefs_ext_convert_mem(struct inode *inode, u32 lblk, u32 len, u16 from, u16 to, u64 *next);
int stalefs_ext_remove(struct inode *inode, u32 lblk, u64 len, bool *more);
int stalefs_fill_holes(struct inode *inode, u64 start, u64 end, u16 flags);
int stalefs_convert_range(struct inode *inode, u64 first, u64 last, u16 from, u16 to);
int stalefs_ext_alloc_range(struct inode *inode, u32 lblk, u32 len, u16 flags,
			    struct stalefs_ext *first);
int stalefs_ext_save(struct inode *inode);
u64 stalefs_ext_blocks(struct inode *inode);

/* inode.c */
#define STALEFS_IGET_ORPHAN	0x1	/* an ORPHAN inode with no links is fine (orphan.c) */
struct inode *stalefs_iget(struct super_block *sb, u32 ino);
/* The table block holding inode ino (referenced) and the slot's offset in it. */
struct buffer_head *stalefs_inode_bh(struct super_block *sb, u32 ino, u32 *offset, int *err);
struct inode *stalefs_iget_flags(struct super_block *sb, u32 ino, int flags);
void stalefs_sb_dirty_inode(struct inode *inode, int flags);
int stalefs_inode_to_table(struct inode *inode, bool map_locked, bool datasync);
int stalefs_sb_write_inode(struct inode *inode, struct writeback_control *wbc);
void stalefs_sb_evict_inode(struct inode *inode);
struct inode *stalefs_new_inode(struct inode *dir, umode_t mode, const struct qstr *name);
void stalefs_set_ops(struct inode *inode);
int stalefs_setattr(struct user_namespace *mnt_userns, struct dentry *dentry, struct iattr *attr);
int stalefs_getattr(struct user_namespace *mnt_userns, const struct path *path,
		    struct kstat *stat, u32 request_mask, unsigned int flags);
int stalefs_truncate_blocks(struct inode *inode, loff_t size);
struct fileattr;
int stalefs_fileattr_get(struct dentry *dentry, struct fileattr *fa);
int stalefs_fileattr_set(struct user_namespace *mnt_userns, struct dentry *dentry,
			 struct fileattr *fa);
int stalefs_sync_inode(struct inode *inode);
int stalefs_sync_metadata(struct inode *inode, int datasync);
int stalefs_fsync(struct file *file, loff_t start, loff_t end, int datasync);
int stalefs_update_inode(struct inode *inode);

/* orphan.c: inodes unlinked while open, or mid-truncate (FORMAT.md 13) */
int stalefs_orphan_add(struct inode *inode);
int stalefs_orphan_del(struct inode *inode);
void stalefs_orphan_cleanup(struct super_block *sb);
bool stalefs_orphans_pending(struct super_block *sb);

/* iomap.c */
extern const struct iomap_ops stalefs_iomap_ops;
extern const struct iomap_writeback_ops stalefs_writeback_ops;
extern const struct iomap_dio_ops stalefs_dio_ops;
void stalefs_ioend_work(struct work_struct *work);
int stalefs_convert_unwritten(struct inode *inode, loff_t pos, loff_t len);
/* Extents converted in memory and not yet saved (journal mode): save them now. */
int stalefs_save_pending(struct inode *inode);
void stalefs_save_forget(struct inode *inode);
int stalefs_save_all_pending(struct super_block *sb);
void stalefs_save_work(struct work_struct *work);

/* file.c */
extern const struct file_operations stalefs_file_operations;
extern const struct inode_operations stalefs_file_inode_operations;
extern const struct address_space_operations stalefs_aops;

/* dir.c */
extern const struct file_operations stalefs_dir_operations;
struct stalefs_dir_pos {
	struct buffer_head *bh;
	struct stalefs_dir_entry *de;
	struct stalefs_dir_entry *prev;	/* entry before de in its block, NULL if first */
};
int stalefs_dir_find(struct inode *dir, const struct qstr *name, struct stalefs_dir_pos *pos);
int stalefs_dir_add(struct inode *dir, const struct qstr *name, u32 ino, umode_t mode);
int stalefs_dir_delete(struct inode *dir, struct stalefs_dir_pos *pos);
int stalefs_dir_set(struct inode *dir, struct stalefs_dir_pos *pos, u32 ino, umode_t mode);
int stalefs_init_new_dir(struct inode *dir, struct inode *parent);
int stalefs_empty_dir(struct inode *dir);
int stalefs_dir_dotdot(struct inode *dir, struct stalefs_dir_pos *pos);
void stalefs_dir_dirty(struct inode *dir, struct buffer_head *bh);

/* namei.c */
extern const struct inode_operations stalefs_dir_inode_operations;
extern const struct inode_operations stalefs_special_inode_operations;
extern const struct inode_operations stalefs_symlink_inode_operations;
extern const struct inode_operations stalefs_fast_symlink_inode_operations;

#endif /* STALEFS_KERNEL_H */
