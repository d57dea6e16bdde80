/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libstalefs: the userspace library the stalefs tools share.
 *
 * Every function that can fail returns an errcode_t: 0 on success, otherwise
 * a code from stalefs_err.et (or an errno value), printable with com_err().
 */
#ifndef LIBSTALEFS_H
#define LIBSTALEFS_H

#include <stdio.h>
#include <sys/types.h>
#include <et/com_err.h>
#include "stalefs_core.h"
#include "stalefs_journal.h"
#include "stalefs_err.h"

/* ---- the I/O layer: a file or block device with a write-back block cache ---- */
struct stalefs_io;

/*
 * Image names (io_name.c): PATH, or PATH?offset=N[&size=M] (either order; bytes, with the
 * K/M/G/T suffixes of stalefs_parse_size) for a filesystem N bytes into PATH, as a partition
 * inside a whole-disk image.  A name that exists as it is is that path, '?' or not; a name
 * that does not exist is split at its last '?' when the part before it exists, and the rest
 * must then be a region (STALEFS_ERR_BAD_REGION otherwise).
 */
struct stalefs_io_name {
	char *path;		/* what is opened */
	bool region;		/* the name gave ?offset= or ?part= */
	u64 offset;		/* bytes into path */
	u64 size;		/* region size in bytes; 0: to the end of path */
	u32 part;		/* ?part=N: partition N of path's table (offset and size found at open) */
};
errcode_t stalefs_io_parse_name(const char *name, struct stalefs_io_name *n);
void stalefs_io_name_free(struct stalefs_io_name *n);
/* The error is about the device or its name (an errno, mounted, a bad or misplaced region),
 * not about a filesystem on it: nothing a backup superblock or FORCE can help with. */
bool stalefs_io_error(errcode_t err);

/*
 * PATH?part=N names partition N of PATH's partition table (MBR or GPT, numbered as Linux
 * numbers them; stalefs-mmls lists them): the region is where the table says it is.
 * An EWF image (an .E01 file, found by its signature; its other segments beside it) is read
 * through libewf, read-only: opening it writable is STALEFS_ERR_EWF_READ_ONLY.  Regions and
 * partitions apply to the media the EWF image holds.
 *
 * Opens the file or device name names, and for a region adds its offset to every read and
 * write; the region's size is the device size (stalefs_io_size), and I/O past its end fails
 * with STALEFS_ERR_PAST_REGION.  A region must start inside the image; with size= on a block
 * device it must also end inside it (STALEFS_ERR_REGION_OUTSIDE), while a regular file may be
 * shorter (it grows when written, as an image file given to mkfs does).
 */
errcode_t stalefs_io_open(const char *name, bool writable, bool exclusive, struct stalefs_io **ret);
/* What an open io reads: for case files and the tools' listings. */
struct stalefs_io_info {
	const char *path;	/* the file or device opened */
	bool ewf;		/* an EWF image, read through libewf */
	u64 media_bytes;	/* the whole file, device or EWF media */
	u64 offset, size;	/* the region (offset 0 and the media size for a plain name) */
	u32 part;		/* ?part=N, else 0 */
	/* EWF: the hashes recorded at acquisition (hex, "" when none) */
	char ewf_md5[33], ewf_sha1[41];
};
void stalefs_io_info(struct stalefs_io *io, struct stalefs_io_info *info);
errcode_t stalefs_io_close(struct stalefs_io *io);	/* flushes */
void stalefs_io_set_block_size(struct stalefs_io *io, u32 block_size);
errcode_t stalefs_io_read(struct stalefs_io *io, u64 block, u32 count, void *buf);
errcode_t stalefs_io_write(struct stalefs_io *io, u64 block, u32 count, const void *buf);
/* File data: straight to the device, never held for a journal transaction; cached copies of
 * the blocks are dropped. */
errcode_t stalefs_io_write_data(struct stalefs_io *io, u64 block, u32 count, const void *buf);
/* fsync the device if anything was written since the last one (the cache is not written back). */
errcode_t stalefs_io_sync(struct stalefs_io *io);
/* Byte-addressed I/O, uncached, for the superblock at 1024 (a read sees held blocks: txn.c). */
errcode_t stalefs_io_pread(struct stalefs_io *io, u64 off, u32 len, void *buf);
errcode_t stalefs_io_pwrite(struct stalefs_io *io, u64 off, u32 len, const void *buf);
/* Discard bytes [off, off+len): a hole punched in a regular file, BLKDISCARD on a device
 * (mkfs before it writes; the cache is dropped).  What the range reads afterwards is not
 * promised.  EOPNOTSUPP when the device or the file's filesystem cannot. */
errcode_t stalefs_io_trim(struct stalefs_io *io, u64 off, u64 len);
/* Zero-fill blocks (punching the range of a regular file where possible). */
errcode_t stalefs_io_zero(struct stalefs_io *io, u64 block, u64 count);
errcode_t stalefs_io_flush(struct stalefs_io *io);	/* write back the cache and fsync */
/* Size of the device or file in bytes (of the region, for IMAGE?offset=N). */
errcode_t stalefs_io_size(struct stalefs_io *io, u64 *bytes);
u64 stalefs_io_bytes_written(const struct stalefs_io *io);
/* Cap the block cache (in blocks, at least 1); a read-only checker keeps its memory small. */
void stalefs_io_set_cache_limit(struct stalefs_io *io, u32 max_blocks);
/* Blocks straight from the device (and the overlay), newer cached copies patched in, nothing
 * added to the cache: for long sequential reads such as the journal's log. */
errcode_t stalefs_io_read_uncached(struct stalefs_io *io, u64 block, u32 count, void *buf);
/*
 * Overlay mode: from now on every write (blocks, byte ranges, zeroing, cache
 * write-back) lands in an in-memory layer that reads see, and flush and close
 * write nothing to the device.  The device is (re)opened O_RDONLY, so nothing
 * can reach it.  fsck -n replays the journal this way and checks the result.
 */
errcode_t stalefs_io_set_overlay(struct stalefs_io *io);
bool stalefs_io_is_overlay(const struct stalefs_io *io);
/* The descriptor a reader may read file data from itself, and the byte offset of the region in
 * it (IMAGE?offset=N): false in overlay mode, where reads must be patched with the overlay. */
bool stalefs_io_data_fd(const struct stalefs_io *io, int *fd, u64 *base);

/* ---- an open filesystem ---- */
#define STALEFS_OPEN_RW			0x0001	/* open for writing */
#define STALEFS_OPEN_IGNORE_CSUM	0x0002	/* report but accept bad checksums */
#define STALEFS_OPEN_NO_BITMAPS		0x0004	/* catastrophic: do not read bitmaps */
#define STALEFS_OPEN_FORCE		0x0008	/* open despite a superblock that fails verification */
#define STALEFS_OPEN_EXCLUSIVE		0x0010	/* O_EXCL on block devices */
/* Read-write although the journal needs recovery (RECOVER): the caller replays it
 * (fsck, debugfs).  Without it such an open is refused with STALEFS_ERR_NEEDS_RECOVERY. */
#define STALEFS_OPEN_JOURNAL		0x0020
/* The device opened read-only, every write kept in memory (stalefs_io_set_overlay);
 * implies STALEFS_OPEN_RW for the library, never writes the device. */
#define STALEFS_OPEN_OVERLAY		0x0040

struct stalefs_group {
	struct stalefs_group_desc desc;
	u8 *block_bitmap;	/* NULL until loaded */
	u8 *inode_bitmap;
	bool desc_dirty, bb_dirty, ib_dirty;
	bool bb_bad_csum, ib_bad_csum;	/* what was found when loading */
};

typedef struct stalefs_fs {
	char *device_name;
	int flags;
	struct stalefs_io *io;
	struct stalefs_super_block sb;
	struct stalefs_geom geom;
	u32 seed;
	u32 block_size;
	u64 sb_block;			/* 0: primary; else the block of the backup we opened */
	struct stalefs_group *groups;	/* geom.groups_count of them */
	u32 ngroups_alloc;		/* entries allocated (a resize changes geom.groups_count) */
	bool sb_dirty;
	bool bitmaps_loaded;
	bool write_backups;		/* rewrite backup superblocks/GDTs on flush */
	u64 block_alloc_goal;
	u64 alloc_end;			/* nonzero: blocks are allocated below it (a shrink) */
	u32 ino_alloc_end;		/* nonzero: inodes are allocated at or below it */
	u32 dir_hint_ino, dir_hint_lblk;	/* where the last directory entry went */
	bool names_known_unique;	/* creators skip the existence lookup (mkfs -d: names come from readdir) */
	/* how many verifier failures opening met (only with IGNORE_CSUM or FORCE) */
	int sb_rule;
	int bad_desc_count;
	errcode_t (*progress)(struct stalefs_fs *fs, const char *what, u64 done, u64 total);
	void *priv;
	struct stalefs_txn *txn;	/* the journaled write path, when started (txn.c) */
	struct stalefs_dir_index *dir_index;	/* indexes of large directories, when enabled */
} stalefs_fs;

/* sb_block 0 opens the primary superblock; otherwise the backup at that block
 * (block_size 0: try each supported size), as e2fsck -b / -B. */
errcode_t stalefs_open(const char *name, int flags, u64 sb_block, u32 block_size, stalefs_fs **ret);
/* As an inspector opens evidence: a superblock or descriptor that fails verification is
 * opened anyway (STALEFS_OPEN_FORCE), bitmaps that fail without them (NO_BITMAPS), each
 * fallback said through warn; only what cannot be understood (no stalefs magic, unknown
 * incompatible features, an errno) is refused. */
errcode_t stalefs_open_tolerant(const char *name, int flags, u64 sb_block, u32 block_size, stalefs_fs **ret,
				void (*warn)(void *priv, const char *what), void *priv);
errcode_t stalefs_flush(stalefs_fs *fs);	/* write back everything dirty */
errcode_t stalefs_close(stalefs_fs *fs);	/* flush (if writable) and free */
void stalefs_free(stalefs_fs *fs);		/* free without writing */
void stalefs_mark_super_dirty(stalefs_fs *fs);
void stalefs_mark_desc_dirty(stalefs_fs *fs, u32 group);
errcode_t stalefs_read_bitmaps(stalefs_fs *fs);
/* Switch a filesystem opened read-only to overlay mode (STALEFS_OPEN_OVERLAY): writable from
 * now on, every write kept in memory, the device never written (fsck -n replaying the journal
 * or finishing orphans, only when there is something to do). */
errcode_t stalefs_set_overlay(stalefs_fs *fs);
/* Forget the in-memory descriptors and bitmaps and read them again (after a journal
 * replay rewrote them underneath); the group count follows fs->geom. */
errcode_t stalefs_reload_groups(stalefs_fs *fs);
/* Take the primary superblock again from its block (through the cache: a journal replay
 * wrote it), verified, with the geometry it describes; the groups are reloaded by the
 * caller (stalefs_reload_groups).  STALEFS_ERR_SB_CORRUPT if it does not verify. */
errcode_t stalefs_reload_super(stalefs_fs *fs);
/* Read the superblock at byte offset off (1024 for the primary). */
errcode_t stalefs_read_super(struct stalefs_io *io, u64 off, struct stalefs_super_block *sb);
/* Byte offset of group's superblock copy. */
u64 stalefs_super_offset(const struct stalefs_geom *g, u32 group);
errcode_t stalefs_write_super_copy(stalefs_fs *fs, u32 group);
/* The superblock copies and descriptor-table copies that lie in groups from first_group on
 * (0: every backup), from the in-memory state (a grow writes its new groups' first). */
errcode_t stalefs_write_backups_from(stalefs_fs *fs, u32 first_group);
/* Take geometry ng (a resize): fs->groups follows its group count (new groups zeroed, the
 * groups past its end dropped with their bitmaps); the superblock's fields are the caller's. */
errcode_t stalefs_set_geometry(stalefs_fs *fs, const struct stalefs_geom *ng);

/* Blocks. */
errcode_t stalefs_read_block(stalefs_fs *fs, u64 block, void *buf);
errcode_t stalefs_write_block(stalefs_fs *fs, u64 block, const void *buf);
bool stalefs_block_valid(const stalefs_fs *fs, u64 block);

/*
 * ---- the journaled write path (txn.c): metadata changes as jbd2 transactions ----
 *
 * After stalefs_txn_start, every metadata block the library writes (inodes, directory and
 * extent blocks, xattr blocks, bitmaps, descriptors) stays in the block cache, and each
 * stalefs_flush (stalefs_txn_commit) makes all of them one jbd2 transaction: the log blocks
 * are written, the device flushed (file data written before is durable with them), the
 * commit block written and flushed; only then are the blocks written in place (the
 * checkpoint), the device flushed, and the log emptied.  A crash at any point leaves either
 * the state before the transaction or, after recovery, the state after it.  File data goes
 * to the device at once (stalefs_io_write_data).  New data blocks are mapped UNWRITTEN until
 * their data is written, so the transaction that commits them comes after the data is
 * durable, and a failed data write leaves zeros, never old bytes.  A block freed by the
 * running transaction is not handed out again before it commits (unless the same
 * transaction allocated it: then the committed state never saw it in use).  The superblock
 * is written in place, never journaled (its free counts are summaries fsck recomputes), as
 * the kernel module does -- unless the transaction is STALEFS_TXN_ATOMIC.
 */
/* Needs the has_journal feature (STALEFS_ERR_NO_JOURNAL) and an empty log (callers replay first:
 * STALEFS_ERR_NEEDS_RECOVERY).  Sets RECOVER and writes the superblock, durably, before any
 * transaction can commit. */
errcode_t stalefs_txn_start(stalefs_fs *fs, unsigned flags);
/*
 * Every commit is whole or not done at all (resize.stalefs): the superblock is logged with
 * the rest and written in place last (a resize changes the size it gives, a journal move the
 * journal it names: the log is written to the journal open at start), and a transaction too
 * large for the log fails with STALEFS_ERR_JOURNAL_FULL instead of going in place.
 */
#define STALEFS_TXN_ATOMIC	0x1
/* Commit the running transaction (nothing to log: just make written data durable).  Held
 * blocks past the filesystem's end at the last commit (a grow's new groups: nothing committed
 * names them) go in place before the log, unlogged. */
errcode_t stalefs_txn_commit(stalefs_fs *fs);
/* Commit, leave the journaled path, clear RECOVER (the log is empty) and write the superblock. */
errcode_t stalefs_txn_stop(stalefs_fs *fs);
/* Leave the journaled path without committing: what the running transaction changed is dropped
 * unwritten (the device keeps the last committed state).  The in-memory filesystem still has
 * the changes: free it (stalefs_free), never flush it. */
void stalefs_txn_abort(stalefs_fs *fs);
/* The running transaction has grown to a quarter of the log: commit before it grows more. */
bool stalefs_txn_should_commit(const stalefs_fs *fs);
/* Blocks one transaction should stay within (a quarter of the log, as jbd2 bounds one), for
 * callers that plan their commits (a shrink moving many blocks). */
u32 stalefs_txn_room(const stalefs_fs *fs);
/* Blocks the running transaction freed that are not free for allocation before it commits. */
u64 stalefs_txn_busy_blocks(const stalefs_fs *fs);
struct stalefs_txn_stats {
	u64 commits;		/* transactions committed */
	u64 blocks_logged;	/* metadata blocks they logged */
	u64 overflows;		/* transactions too large for the log, written in place unjournaled */
};
void stalefs_txn_stats(const stalefs_fs *fs, struct stalefs_txn_stats *st);

/* ---- bitmaps and allocation ---- */
bool stalefs_test_block(stalefs_fs *fs, u64 block);
void stalefs_mark_block(stalefs_fs *fs, u64 block);		/* bitmap only */
void stalefs_unmark_block(stalefs_fs *fs, u64 block);		/* bitmap only */
bool stalefs_test_inode(stalefs_fs *fs, u32 ino);
void stalefs_mark_inode(stalefs_fs *fs, u32 ino);
void stalefs_unmark_inode(stalefs_fs *fs, u32 ino);
/* Allocate up to `want` contiguous blocks at or after goal; updates all counts. */
errcode_t stalefs_alloc_blocks(stalefs_fs *fs, u64 goal, u32 want, u64 *start, u32 *got);
errcode_t stalefs_alloc_block(stalefs_fs *fs, u64 goal, u64 *block);
/* Free the node blocks of the inode's tree (its data blocks are the caller's). */
errcode_t stalefs_extent_free_nodes(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode);
errcode_t stalefs_free_blocks(stalefs_fs *fs, u64 start, u64 count);
/* Allocate an inode near the parent's group; updates counts and dirs. */
errcode_t stalefs_alloc_inode(stalefs_fs *fs, u32 parent, u16 mode, u32 *ino);
errcode_t stalefs_free_inode(stalefs_fs *fs, u32 ino, bool is_dir);
/* Move a group's and the superblock's free counts by delta. Counts read from a
 * damaged image can be anything, so the sums wrap (as the unsigned on-disk
 * fields do) instead of overflowing; fsck reports and rewrites them. */
void stalefs_adjust_free_blocks(stalefs_fs *fs, u32 group, s64 delta);
void stalefs_adjust_free_inodes(stalefs_fs *fs, u32 group, s64 delta);
/* ino's group counts one inode flagged STALE more (delta 1) or less (-1): FORMAT.md 10, S6. */
void stalefs_adjust_stale_count(stalefs_fs *fs, u32 ino, int delta);
/* Find the first free/used block or inode at or after start (ffb/ffi). */
errcode_t stalefs_find_free_block(stalefs_fs *fs, u64 start, u64 *block);
errcode_t stalefs_find_free_inode(stalefs_fs *fs, u32 start, u32 *ino);
/* The inode stalefs_alloc_inode would give a new file of this mode in parent, taking nothing. */
errcode_t stalefs_peek_inode(stalefs_fs *fs, u32 parent, u16 mode, u32 *ino);
/* Recompute group and superblock summaries from the bitmaps. */
void stalefs_recount(stalefs_fs *fs);

/* ---- inodes ---- */
errcode_t stalefs_read_inode(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode);
/* As above, but never fails on content: *rule says what the verifier found. */
errcode_t stalefs_read_inode_raw(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode, int *rule);
/*
 * Every initialised inode slot, group by group (uninitialised groups and the
 * slots past bg_itable_unused are skipped): fn gets the inode as read, or
 * NULL when its table block cannot be read, and whether it is in use (the
 * bitmap when loaded, else the inode's own fields).  A non-zero return from
 * fn stops the walk and is returned.
 */
typedef int (*stalefs_inode_scan_fn)(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode,
				     int rule, bool in_use, void *priv);
int stalefs_inode_scan(stalefs_fs *fs, stalefs_inode_scan_fn fn, void *priv);
errcode_t stalefs_write_inode(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode);
errcode_t stalefs_write_inode_raw(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode);
bool stalefs_ino_valid(const stalefs_fs *fs, u32 ino);
/* The slot's bytes past the inode, the in-inode xattr area (stalefs_xattr_ibody_len bytes;
 * nothing to do when inodes are 256 bytes).  Reading a never-initialised slot gives zeros;
 * writing NULL zeroes the area.  Raw: no checksum set or checked (see xattr.c). */
errcode_t stalefs_read_inode_area(stalefs_fs *fs, u32 ino, void *area);
errcode_t stalefs_write_inode_area(stalefs_fs *fs, u32 ino, const void *area);
/* Initialise a fresh in-memory inode (times now, generation random, empty extent root). */
void stalefs_inode_init(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode, u16 mode, u32 uid, u32 gid);
void stalefs_inode_set_times_now(struct stalefs_inode *inode, bool atime, bool mtime, bool ctime);
/* Create: allocate an inode, initialise and write it, link it into dir. */
errcode_t stalefs_create(stalefs_fs *fs, u32 dir, const char *name, u16 mode, u32 uid, u32 gid, u32 *ino);
errcode_t stalefs_mkdir(stalefs_fs *fs, u32 parent, const char *name, u16 mode, u32 uid, u32 gid, u32 *ino);
errcode_t stalefs_symlink(stalefs_fs *fs, u32 dir, const char *name, const char *target,
			  u32 uid, u32 gid, u32 *ino);
errcode_t stalefs_read_symlink(stalefs_fs *fs, u32 ino, char *buf, size_t bufsize);
/* i_links_count += delta (a directory's parent gaining or losing a subdirectory), ctime (and
 * mtime for a new link) now. */
errcode_t stalefs_adjust_links(stalefs_fs *fs, u32 ino, int delta);
/* Drop one link to ino (from a removed name); frees the inode and its blocks at zero. */
errcode_t stalefs_drop_link(stalefs_fs *fs, u32 ino);
/* Free every block of an inode and mark it deleted (dtime), clearing its bitmap bit (and its
 * ORPHAN flag, with its group's bg_orphan_count). */
errcode_t stalefs_delete_inode(stalefs_fs *fs, u32 ino);

/* ---- extended attributes (xattr.c; FORMAT.md 14) ----
 * Names are full names ("user.foo", "system.posix_acl_access"); an unknown prefix is
 * STALEFS_ERR_XATTR_BAD_NAME, a suffix over 255 bytes STALEFS_ERR_XATTR_RANGE.  Every region
 * read is verified: STALEFS_ERR_XATTR_CORRUPT (or _CSUM, accepted with IGNORE_CSUM). */
#define STALEFS_XATTR_CREATE	0x1	/* fail with STALEFS_ERR_XATTR_EXISTS if it exists */
#define STALEFS_XATTR_REPLACE	0x2	/* fail with STALEFS_ERR_XATTR_NOT_FOUND if it does not */
/* The value into buf (bufsize bytes) and its size into *size; buf NULL: the size alone.
 * A value larger than bufsize: STALEFS_ERR_XATTR_RANGE (*size still says how large). */
errcode_t stalefs_xattr_get(stalefs_fs *fs, u32 ino, const char *name, void *buf, size_t bufsize,
			    size_t *size);
/* Set (create or replace) an attribute: in the in-inode area if it fits, else in the inode's
 * xattr block (allocated near the inode when there is none).  Sets RO_COMPAT_XATTR.
 * STALEFS_ERR_XATTR_NO_SPACE when it fits in neither region. */
errcode_t stalefs_xattr_set(stalefs_fs *fs, u32 ino, const char *name, const void *value,
			    size_t size, int flags);
/* Remove one attribute (STALEFS_ERR_XATTR_NOT_FOUND if absent); an emptied block is freed.
 * (stalefs_xattr_remove is format/core's entry edit, hence the name.) */
errcode_t stalefs_xattr_delete(stalefs_fs *fs, u32 ino, const char *name);
/* Every attribute, in-inode area first, then the block.  A nonzero return from fn stops
 * the walk and is returned. */
typedef int (*stalefs_xattr_iter_fn)(const char *name, const void *value, size_t size, void *priv);
errcode_t stalefs_xattr_iterate(stalefs_fs *fs, u32 ino, stalefs_xattr_iter_fn fn, void *priv);
/* Whether an inode holds any attribute (without verifying them). */
bool stalefs_xattr_present(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode);
/* An inode's attributes go with it (freeing an inode): its xattr block is freed (bitmap and
 * counts; i_blocks and i_xattr_block in *inode, which the caller writes) and its in-inode
 * area zeroed.  A block that does not name this inode as its owner is not freed:
 * STALEFS_ERR_XATTR_CORRUPT, nothing changed. */
errcode_t stalefs_xattr_release(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode);
/* The first inode in use that holds attributes (*ino 0: none), for turning the feature off.
 * An inode table block that cannot be read: STALEFS_ERR_SHORT_READ, *ino its first inode. */
errcode_t stalefs_xattr_first_holder(stalefs_fs *fs, u32 *ino);

/* ---- orphans (FORMAT.md 13) ---- */
struct stalefs_orphan_result {
	bool freed;		/* it had no links: freed with its blocks; else truncated to its size */
	u16 mode, links;	/* as found */
	u64 size;
	u64 blocks_freed;	/* i_blocks it gave up (data and tree nodes) */
};
/*
 * Finish an ORPHAN inode as the kernel's mount does: with no links, free it and its blocks;
 * with links, free a regular file's blocks at and past ceil(i_size / block size), then clear
 * the flag.  The group's bg_orphan_count follows.  The inode must verify (stalefs_read_inode);
 * EINVAL if it is not flagged ORPHAN.
 */
errcode_t stalefs_orphan_finish(stalefs_fs *fs, u32 ino, struct stalefs_orphan_result *r);
/* Flag an inode ORPHAN (its last link is gone while it is open; the group counts it) and write
 * it; nothing to do when it is flagged already.  *inode is the caller's verified copy. */
errcode_t stalefs_orphan_list_add(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode);
/* Finish every orphan, as a mount does after recovery: fn (may be NULL) hears of each, with
 * the error finishing it gave.  Returns the first error. */
typedef void (*stalefs_orphan_fn)(stalefs_fs *fs, u32 ino, errcode_t err, const struct stalefs_orphan_result *r,
				  void *priv);
errcode_t stalefs_orphans_finish_all(stalefs_fs *fs, stalefs_orphan_fn fn, void *priv);

/* ---- extent trees ---- */
/* A file's whole mapping, as a sorted array (what the library edits). */
struct stalefs_extent_list {
	struct stalefs_ext *ext;
	u32 count, cap;
	u64 tree_blocks;	/* node blocks the tree used when read */
};

void stalefs_extent_list_free(struct stalefs_extent_list *l);
/* Read the whole tree of an inode into l, verifying every node. */
errcode_t stalefs_extent_read(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode,
			      struct stalefs_extent_list *l);
/*
 * Write l as the inode's tree: frees the old node blocks, allocates and writes
 * new ones as needed (index nodes once more than 7 extents), merges adjacent
 * extents, updates i_block and i_blocks (for the node blocks), and sets the
 * STALE inode flag from the extents.  Does not write the inode itself.
 */
errcode_t stalefs_extent_write(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode,
			       struct stalefs_extent_list *l);
/* Find the extent holding lblk; *found false with *next_lblk = start of the next extent (or ~0). */
bool stalefs_extent_list_find(const struct stalefs_extent_list *l, u32 lblk, u32 *index);
/* Map [lblk, lblk+len) to pblk.. with flags, replacing whatever mapped there (returned to
 * the caller through *old, if not NULL, for freeing). */
errcode_t stalefs_extent_list_set(struct stalefs_extent_list *l, u32 lblk, u32 len, u64 pblk,
				  u16 flags, struct stalefs_extent_list *old);
/* Remove the mapping of [lblk, lblk+len); removed pieces go to *old. */
errcode_t stalefs_extent_list_remove(struct stalefs_extent_list *l, u32 lblk, u32 len,
				     struct stalefs_extent_list *old);
/* Change flags of the mapped parts of [lblk, lblk+len): flags = (flags & ~clear) | set. */
errcode_t stalefs_extent_list_change_flags(struct stalefs_extent_list *l, u32 lblk, u32 len,
					   u16 clear, u16 set);
void stalefs_extent_list_merge(struct stalefs_extent_list *l);
errcode_t stalefs_extent_list_append(struct stalefs_extent_list *l, u32 lblk, u32 len, u64 pblk, u16 flags);

/* Walk the tree node by node (debugfs ex, fsck): called for each entry. */
struct stalefs_extent_walk {
	u32 depth;		/* depth of the node holding this entry (0 = leaf) */
	u32 level;		/* 0 = root */
	u64 node_block;		/* 0 for the root in the inode */
	u32 index;		/* entry index in its node */
	u32 entries, max;	/* of its node */
	bool is_index;
	struct stalefs_ext e;	/* for index entries: lblk and pblk (child) */
	int rule;		/* nonzero: the node failed this verifier rule (entry not valid) */
};
typedef int (*stalefs_extent_walk_fn)(stalefs_fs *fs, const struct stalefs_extent_walk *w, void *priv);
errcode_t stalefs_extent_walk(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode,
			      stalefs_extent_walk_fn fn, void *priv);

/*
 * The tolerant scan (extent_scan.c): every node with its verdict, every entry
 * of a node whose magic is right (as far as the node has room), whatever else
 * is wrong; the callbacks are the policy.  stalefs_extent_walk above is one.
 */
struct stalefs_xnode {
	u32 level;		/* 0 = the root in the inode */
	u64 block;		/* 0 for the root */
	u64 lo, hi;		/* logical blocks the parent index entry promised: [lo, hi) */
	u32 cap;		/* entries the node has room for */
	int expect_depth;	/* what the parent implies; -1 for the root */
	const struct stalefs_extent_header *eh;	/* NULL when the block was not read */
	u32 entries, max, depth, magic;	/* as the header says */
	errcode_t err;		/* the block could not be read */
	bool revisit;		/* named a second time: not read, not walked */
	int block_rule;		/* tree block header (STALEFS_R_EXTBLK_*), or the index names no block of ours */
	bool csum_bad;		/* tree block checksum does not match */
	int header_rule;	/* stalefs_verify_extent_header() */
	int rule;		/* the first rule broken: block, checksum, then the whole node */
};
struct stalefs_xentry {
	const struct stalefs_xnode *node;
	u32 index;
	bool is_index;
	u32 lblk, len;		/* len 0 for index entries */
	u64 pblk;		/* the child node for index entries */
	u16 flags;
	u32 reserved;		/* index entries: ei_reserved */
	u64 next;		/* index entries: the child's range ends here (next larger start) */
};
/* Callbacks return 0 to go on, STALEFS_XSCAN_SKIP (a node: not its entries; an
 * index entry: not its child), or a negative value that stops the scan. */
#define STALEFS_XSCAN_SKIP	1
struct stalefs_xscan_ops {
	int (*node)(stalefs_fs *fs, const struct stalefs_xnode *n, void *priv);
	int (*entry)(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv);
};
/* The number of bad nodes met (0: a sound tree), or a callback's negative value. */
int stalefs_extent_scan(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode,
			const struct stalefs_xscan_ops *ops, void *priv);
/* What is wrong with a node, in words; NULL when nothing is. */
const char *stalefs_xnode_problem(const struct stalefs_xnode *n);

/* ---- file data ---- */
errcode_t stalefs_file_read(stalefs_fs *fs, u32 ino, u64 off, void *buf, size_t len, size_t *got);
/*
 * Where bytes [off, off + len) of a regular file are (clipped at its size): runs of data at byte
 * dev_off of the device (the I/O layer's offsets: within the region), or of zeros (holes and
 * UNWRITTEN extents; a STALE extent is data).  At most max runs; more is STALEFS_ERR_BAD_ARGUMENT.
 * For a reader that moves the data itself (stalefs-fuse splices it to the kernel).
 */
struct stalefs_file_run {
	u64 len;
	bool zero;
	u64 dev_off;
};
errcode_t stalefs_file_map(stalefs_fs *fs, u32 ino, u64 off, size_t len, struct stalefs_file_run *runs, u32 max,
			   u32 *n);
/* Write data, allocating blocks; holes stay holes where buf is NULL. */
errcode_t stalefs_file_write(stalefs_fs *fs, u32 ino, u64 off, const void *buf, size_t len);
/*
 * Fill a fresh (empty) regular file from an fd; sparse regions stay holes.
 * On failure the file is left empty and every block taken is freed again.
 */
errcode_t stalefs_file_write_from_fd(stalefs_fs *fs, u32 ino, int fd, u64 size);
errcode_t stalefs_truncate(stalefs_fs *fs, u32 ino, u64 size);
/* Allocate [lblk, lblk+count) as UNWRITTEN, or STALE with stale=true (holes and unwritten only). */
errcode_t stalefs_fallocate(stalefs_fs *fs, u32 ino, u32 lblk, u32 count, bool stale);
errcode_t stalefs_punch(stalefs_fs *fs, u32 ino, u32 lblk, u32 count);
/* FALLOC_FL_ZERO_RANGE: bytes [off, off+len) read as zeros and stay allocated (whole blocks
 * become UNWRITTEN, no longer STALE; holes among them are allocated UNWRITTEN; the parts of
 * blocks at the ends are written with zeros).  The size is the caller's. */
errcode_t stalefs_zero_range(stalefs_fs *fs, u32 ino, u64 off, u64 len);
/* lseek(SEEK_DATA / SEEK_HOLE) from off (hole: SEEK_HOLE): data is a mapped block that is not
 * UNWRITTEN, at block granularity; past the size, or no data after off: ENXIO. */
errcode_t stalefs_seek_data(stalefs_fs *fs, u32 ino, u64 off, bool hole, u64 *result);
/* bmap: physical block for lblk (0 for a hole) and its flags. */
errcode_t stalefs_bmap(stalefs_fs *fs, u32 ino, u32 lblk, u64 *pblk, u16 *flags);

/* ---- directories ---- */
struct stalefs_dirent_info {
	u32 ino;
	u8 file_type;
	u8 name_len;
	char name[STALEFS_NAME_LEN + 1];
	u32 lblk;		/* directory block holding it */
	u64 pblk;
	u32 offset;		/* byte offset in the block */
	u32 rec_len;
	/* STALEFS_DIR_ITER_DELETED: a removed entry (an unused slot that still holds a name, or
	 * one found in the space a removal gave to the entry before it); ino is what it held */
	bool deleted;
};
/* Callback returns 0 to go on, 1 to stop (success), <0 to abort with that errno. */
typedef int (*stalefs_dir_iter_fn)(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv);
#define STALEFS_DIR_ITER_EMPTY	0x1	/* also report unused slots (ino 0), with the name they still hold */
/* Also report removed entries, as fls and e2fsprogs' ls -d find them: unused slots that still
 * hold a name, and the entries left in the unused tail of an entry's rec_len (a removal adds
 * the removed entry's rec_len to the entry before it, FORMAT.md 8), marked deleted. */
#define STALEFS_DIR_ITER_DELETED	0x2
errcode_t stalefs_dir_iterate(stalefs_fs *fs, u32 dir, int flags, stalefs_dir_iter_fn fn, void *priv);
/* The same from directory block first_lblk on (readdir resuming where it stopped). */
errcode_t stalefs_dir_iterate_from(stalefs_fs *fs, u32 dir, u32 first_lblk, int flags, stalefs_dir_iter_fn fn,
				   void *priv);

/*
 * The tolerant directory scan (dir_scan.c): every block the extent tree maps, read
 * and judged; the entries of every block whose magic is right, as far as the
 * rec_len chain holds.  Callbacks return 0 to go on, nonzero to stop (returned).
 */
struct stalefs_dirblock_info {
	u32 dir, lblk;
	u64 pblk;
	errcode_t err;		/* could not be read (no entries follow) */
	int rule;		/* header, entry or checksum rule broken (DIR_MAGIC: no entries follow) */
};
struct stalefs_dir_scan_ops {
	int flags;		/* STALEFS_DIR_ITER_EMPTY */
	stalefs_dir_iter_fn entry;
	int (*bad_block)(stalefs_fs *fs, const struct stalefs_dirblock_info *b, void *priv);
	/* STALEFS_R_DIR_REC_LEN: the rest of the block is lost; NAME_LEN: this entry is skipped */
	int (*bad_entry)(stalefs_fs *fs, const struct stalefs_dirent_info *de, int rule, void *priv);
	/* the extent tree has bad_nodes damaged nodes: the blocks behind them are not scanned */
	int (*bad_tree)(stalefs_fs *fs, u32 dir, int bad_nodes, void *priv);
};
int stalefs_dir_scan(stalefs_fs *fs, u32 dir, const struct stalefs_inode *inode,
		     const struct stalefs_dir_scan_ops *ops, void *priv);
/* The entries of one block (lblk, pblk say where it is), judged by stalefs_verify_dirent_fit. */
int stalefs_dirblock_entries(stalefs_fs *fs, const void *block, u32 lblk, u64 pblk,
			     const struct stalefs_dir_scan_ops *ops, void *priv);
errcode_t stalefs_lookup(stalefs_fs *fs, u32 dir, const char *name, size_t len, u32 *ino);
/* Keep an in-memory index of each large directory used (dir_index.c): lookups and adds stop
 * costing a read of every block.  For a long-lived user that makes all its directory changes
 * through the library (stalefs-fuse); freed with the filesystem. */
void stalefs_dir_index_enable(stalefs_fs *fs);
errcode_t stalefs_link(stalefs_fs *fs, u32 dir, const char *name, u32 ino, u8 file_type);
errcode_t stalefs_unlink(stalefs_fs *fs, u32 dir, const char *name, u32 *ino);
/* Point the entry name (".." too) at another inode, in place. */
errcode_t stalefs_dir_set_entry(stalefs_fs *fs, u32 dir, const char *name, u32 ino, u8 file_type);
/*
 * rename(2) for the library (rename.c): RENAME_NOREPLACE / RENAME_EXCHANGE flags as the
 * kernel's (STALEFS_RENAME_*).  A replaced target loses a link (freed at none, or flagged
 * ORPHAN with keep_orphans: the caller still holds it); a directory moved to another parent
 * gets its ".." and both parents' link counts.  STALEFS_ERR_EXISTS (NOREPLACE),
 * STALEFS_ERR_NOT_FOUND, STALEFS_ERR_NOT_DIR / STALEFS_ERR_IS_DIR (types differ),
 * STALEFS_ERR_DIR_NOT_EMPTY, STALEFS_ERR_BAD_ARGUMENT (a directory into itself).
 * *replaced: the inode that lost its name (0: none).
 */
#define STALEFS_RENAME_NOREPLACE	0x1
#define STALEFS_RENAME_EXCHANGE		0x2
errcode_t stalefs_rename(stalefs_fs *fs, u32 olddir, const char *oldname, u32 newdir, const char *newname,
			 int flags, bool keep_orphans, u32 *replaced);
/* Write an empty directory's first block with . and .. */
errcode_t stalefs_dir_init(stalefs_fs *fs, u32 dir, struct stalefs_inode *inode, u32 parent);
errcode_t stalefs_dir_is_empty(stalefs_fs *fs, u32 dir, bool *empty);
/* Resolve a path (absolute from root, or relative to cwd); follows symlinks except the last
 * component unless follow is set. */
errcode_t stalefs_namei(stalefs_fs *fs, u32 cwd, const char *path, bool follow, u32 *ino);
/* Split "a/b/c" into the directory inode of "a/b" and the name "c". */
errcode_t stalefs_namei_parent(stalefs_fs *fs, u32 cwd, const char *path, u32 *dir, const char **name);
bool stalefs_name_valid(const char *name, size_t len);

/* ---- making a filesystem (mkfs, tests) ---- */
struct stalefs_mkfs_params {
	u32 block_size;			/* 1024, 2048, 4096 */
	u64 blocks_count;		/* filesystem size in blocks */
	u32 blocks_per_group;		/* 0: chosen from the size */
	u32 inodes_count;		/* 0: from bytes_per_inode */
	u32 bytes_per_inode;		/* 0: 16384 */
	u32 inode_size;			/* s_inode_size; 0: STALEFS_INODE_SIZE (no in-inode xattrs) */
	u32 reserved_percent;		/* blocks reserved for root, percent */
	u8 uuid[16];
	char label[32];
	u32 stale_gid;			/* STALEFS_STALE_GID_NONE: none */
	u32 feature_compat, feature_ro_compat, feature_incompat;
	u16 errors;			/* STALEFS_ERRORS_* */
	u32 root_uid, root_gid;
	u16 root_mode;			/* permission bits of / */
	bool zero_itables;		/* lazy_itable_init=0: write every inode table */
	bool no_discard;		/* -E nodiscard, -K: leave the device's blocks as they are */
	/* With has_journal: the journal's size in blocks; 0 picks the default for the size
	 * (stalefs_journal_default_blocks), which is no journal on a tiny filesystem. */
	u32 journal_blocks;
};
/* Fill p with the defaults for a device of `bytes` bytes at block_size (0: 4096). */
void stalefs_mkfs_defaults(struct stalefs_mkfs_params *p, u64 bytes, u32 block_size);
/* Compute the layout (no I/O): fills sb and geom, or returns the rule broken.  With
 * has_journal the superblock records where the journal goes (stalefs_journal_plan);
 * the default size leaves has_journal off when the filesystem is too small for one. */
errcode_t stalefs_mkfs_layout(const struct stalefs_mkfs_params *p, struct stalefs_super_block *sb,
			      struct stalefs_geom *geom);
/* Write a new filesystem with root and lost+found, and open it read-write. */
errcode_t stalefs_mkfs(const char *device, const struct stalefs_mkfs_params *p, stalefs_fs **ret);

/* ---- the journal (FORMAT.md 12): jbd2's on-disk format, read and written in userspace ---- */
/* CRC32C as the kernel's crc32c(): no inversion before or after. */
u32 stalefs_crc32c(u32 crc, const void *p, size_t len);
u32 stalefs_crc32c_portable(u32 crc, const void *p, size_t len);	/* the table-driven path alone */

/* What a journal superblock can break; stalefs_jsb_rule_msg() names each. */
enum stalefs_jsb_rule {
	STALEFS_JSB_OK = 0,
	STALEFS_JSB_MAGIC,
	STALEFS_JSB_BLOCKTYPE,
	STALEFS_JSB_BLOCKSIZE,
	STALEFS_JSB_MAXLEN,
	STALEFS_JSB_FIRST,
	STALEFS_JSB_START,
	STALEFS_JSB_FEATURES_UNKNOWN,
	STALEFS_JSB_FEATURES_MISSING,
	STALEFS_JSB_CSUM_TYPE,
	STALEFS_JSB_CSUM,
	STALEFS_JSB_UUID,
	STALEFS_JSB_RULE_MAX
};
const char *stalefs_jsb_rule_msg(int rule);
/* The error a rule is reported as (corrupt, checksum, unsupported features). */
errcode_t stalefs_jsb_rule_error(int rule);
u32 stalefs_jsb_csum(const struct stalefs_jbd2_super *jsb);
void stalefs_jsb_set_csum(struct stalefs_jbd2_super *jsb);
/* The journal superblock against the filesystem's superblock (block size, s_journal_blocks,
 * UUID) and FORMAT.md 12: 0, or the first rule it breaks. */
int stalefs_jsb_verify(const struct stalefs_jbd2_super *jsb, const struct stalefs_super_block *sb);
/* A fresh journal superblock for sb's journal: empty log, first transaction `sequence`. */
void stalefs_jsb_init(struct stalefs_jbd2_super *jsb, const struct stalefs_super_block *sb, u32 sequence);
/* Journal block 0 of an open filesystem (through the block cache); write sets the checksum. */
errcode_t stalefs_journal_read_super(stalefs_fs *fs, struct stalefs_jbd2_super *jsb);
errcode_t stalefs_journal_write_super(stalefs_fs *fs, struct stalefs_jbd2_super *jsb);
/* The log needs no replay: clear RECOVER in the (dirtied) filesystem superblock. */
void stalefs_journal_clear_recover(stalefs_fs *fs);

/* Sizing and placement (mkfs.stalefs(8) documents the table). */
#define STALEFS_JOURNAL_MIN_FS_BLOCKS 2048	/* smaller filesystems get no journal by default */
/* ext4's size table capped to 7/8 of the largest group's data area; 0 = no journal. */
u32 stalefs_journal_default_blocks(const struct stalefs_geom *g);
/* The most blocks a journal may have here: a whole group's data area (group 0 keeps room
 * for the root and lost+found). */
u32 stalefs_journal_max_blocks(const struct stalefs_geom *g);
/* Where mkfs puts a journal of `blocks` on a fresh filesystem of this geometry: right after
 * the inode table of the middle group, else of the nearest group with room.
 * STALEFS_ERR_JOURNAL_TOO_SMALL / STALEFS_ERR_JOURNAL_NO_ROOM otherwise. */
errcode_t stalefs_journal_plan(const struct stalefs_geom *g, u64 blocks, u64 *start);
/* The same preference on a filesystem in use: the first free run of `blocks` in one group's
 * data area, per the block bitmaps. */
errcode_t stalefs_journal_place(stalefs_fs *fs, u64 blocks, u64 *start);
/* Make the journal at [start, start+blocks): zero the log (holes in an image file,
 * BLKZEROOUT on a device), write a journal superblock with a random first sequence, mark
 * the blocks in use, record it in the superblock with has_journal. */
errcode_t stalefs_journal_create(stalefs_fs *fs, u64 start, u32 blocks);
/* Make the recorded journal new where it is (a journal superblock beyond repair): the log
 * zeroed, a fresh journal superblock, RECOVER cleared.  Whatever the log held is lost. */
errcode_t stalefs_journal_reset(stalefs_fs *fs);
/* Move the journal (its log empty) to [start, start+s_journal_blocks): a fresh journal written
 * there, its blocks marked, the old run freed, the superblock pointed at it.  In an atomic
 * transaction (txn.c) the old journal logs the move and the superblock goes last. */
errcode_t stalefs_journal_relocate(stalefs_fs *fs, u64 start);

/* An open journal: the geometry comes from the filesystem superblock, the log state
 * (s_start, s_sequence) from the journal superblock. */
struct stalefs_journal {
	stalefs_fs *fs;
	struct stalefs_jbd2_super jsb;	/* as read (or as last written) */
	int jsb_rule;			/* its verdict (nonzero only when opened with FORCE) */
	u64 fs_start;			/* filesystem block of journal block 0 */
	u32 maxlen;			/* journal blocks; the log is [first, maxlen) */
	u32 first;
	u32 block_size;
	u32 seed;			/* crc32c(~0, jsb s_uuid) */
	/* the writer's position: the block after the last complete transaction, and its successor */
	bool head_known;
	u32 head, next_sequence;
};
#define STALEFS_JOURNAL_FORCE	0x1	/* open despite a journal superblock that fails verification */
errcode_t stalefs_journal_open(stalefs_fs *fs, int flags, struct stalefs_journal **ret);
void stalefs_journal_close(struct stalefs_journal *j);
/* Write j->jsb (checksummed) to this journal's block 0, straight to the device: the journal
 * j was opened on, whatever the superblock names by now (a journal move). */
errcode_t stalefs_journal_put_super(struct stalefs_journal *j);
/* Journal block n (0 <= n < maxlen), past the cache. */
errcode_t stalefs_journal_read_block(struct stalefs_journal *j, u32 n, void *buf);
/* The next log block after n, wrapping from maxlen - 1 to first. */
static inline u32 stalefs_journal_next(const struct stalefs_journal *j, u32 n)
{
	return n + 1 >= j->maxlen ? j->first : n + 1;
}
/* Checksums of the log's blocks (FORMAT.md 12), as jbd2 computes them. */
u32 stalefs_journal_block_tail_csum(const struct stalefs_journal *j, const void *block);
u32 stalefs_journal_commit_csum(const struct stalefs_journal *j, const void *block);
u32 stalefs_journal_tag_csum(const struct stalefs_journal *j, u32 sequence, const void *block);
/* tid arithmetic modulo 2^32, as jbd2's tid_gt(). */
static inline bool stalefs_tid_gt(u32 x, u32 y) { return (s32)(x - y) > 0; }

/* Recovery, as fs/jbd2/recovery.c: scan, revoke and replay passes. */
struct stalefs_journal_recovery {
	u32 start_sequence;		/* the first transaction looked for (s_sequence) */
	u32 end_sequence;		/* the first transaction not replayed */
	u32 next_sequence;		/* s_sequence once the log is emptied: end_sequence + 1 */
	u32 transactions;		/* complete transactions replayed */
	u64 blocks_replayed;
	u64 revoke_records;
	u64 revoke_hits;		/* journaled blocks skipped because a revoke covers them */
	u64 bad_blocks;			/* journaled blocks not written: checksum or target wrong */
	u32 jsb_errno;			/* s_errno: nonzero if the kernel aborted the journal */
	bool was_empty;			/* s_start was 0: nothing to replay */
	bool super_replayed;		/* the primary superblock's block was written (a grow) */
	bool commit_csum_failed;	/* the log ended at a commit block that fails its checksum */
	bool stale_end;			/* it ended at blocks left from an earlier use of the log */
	char detail[256];		/* where the log ended or what is corrupt, for the user */
};
/*
 * Replay the journal of a filesystem opened read-write (STALEFS_OPEN_JOURNAL, or
 * STALEFS_OPEN_OVERLAY to keep every write in memory).  Writes go through the block
 * cache.  On success the log is emptied (stalefs_journal_mark_empty) and the in-memory
 * descriptors and bitmaps are re-read.  A journal that is corrupt
 * (STALEFS_ERR_JOURNAL_CORRUPT: nothing is written) or a journaled block that fails its
 * checksum (STALEFS_ERR_JOURNAL_BLOCK_CSUM: the rest is replayed) leaves the journal
 * superblock and RECOVER as they were: the caller decides (e2fsck empties the log anyway).
 */
errcode_t stalefs_journal_recover(stalefs_fs *fs, struct stalefs_journal_recovery *r);
/* s_start = 0, s_sequence = next_sequence, and RECOVER cleared in the superblock. */
errcode_t stalefs_journal_mark_empty(stalefs_fs *fs, u32 next_sequence);
/* Give up on what the journal holds (after a recovery that failed): the log zeroed, so
 * no block of it can be replayed later whatever sequence follows, then marked empty. */
errcode_t stalefs_journal_discard(stalefs_fs *fs);
/* Find the end of the valid log (the scan pass alone): sets j->head and j->next_sequence. */
errcode_t stalefs_journal_find_head(struct stalefs_journal *j, struct stalefs_journal_recovery *r);

/* Walking the log block by block, for logdump. */
enum stalefs_jwalk_what {
	STALEFS_JW_DESCRIPTOR = 1,	/* a descriptor block: count = its tags */
	STALEFS_JW_TAG,			/* one tag and the log block it describes */
	STALEFS_JW_REVOKE,		/* a revoke block: count = its records */
	STALEFS_JW_REVOKE_RECORD,	/* one revoked filesystem block */
	STALEFS_JW_COMMIT,		/* a commit block */
	STALEFS_JW_END,			/* the walk stops: end_reason says why */
};
enum stalefs_jwalk_end {
	STALEFS_JW_END_EMPTY = 1,	/* s_start is 0 */
	STALEFS_JW_END_NO_MAGIC,	/* a block without the jbd2 magic */
	STALEFS_JW_END_SEQUENCE,	/* a block of another transaction */
	STALEFS_JW_END_BLOCKTYPE,	/* a block type that cannot be in the log */
	STALEFS_JW_END_LAP,		/* the walk went once around the ring */
	STALEFS_JW_END_READ_ERROR,
};
struct stalefs_jwalk_entry {
	int what;
	u32 log_block;		/* journal block number (a tag: of the block it describes) */
	u32 sequence;		/* the block's h_sequence (a tag: its descriptor's) */
	u32 expected;		/* the sequence the walk expected there */
	u32 blocktype;
	bool csum_ok;		/* the block's checksum (a tag: the described block's) */
	const u8 *block;	/* the log block as read; NULL for records and ends */
	u64 fs_block;		/* TAG, REVOKE_RECORD: the filesystem block */
	u32 tag_flags;		/* TAG */
	u32 count;		/* DESCRIPTOR: tags; REVOKE: records */
	bool bad_count;		/* REVOKE: r_count past the block (records not listed) */
	u64 commit_sec;		/* COMMIT */
	u32 commit_nsec;
	int end_reason;		/* END */
	errcode_t err;		/* END with READ_ERROR */
};
#define STALEFS_JWALK_OLD	0x1	/* go on past the end through every block that has the magic */
/* Calls fn for each entry in log order; fn returns nonzero to stop. */
typedef int (*stalefs_jwalk_fn)(const struct stalefs_jwalk_entry *e, void *priv);
errcode_t stalefs_journal_walk(struct stalefs_journal *j, int flags, stalefs_jwalk_fn fn, void *priv);

/*
 * The journal as history (journal_history.c): every journal block and what it holds,
 * the live log (what recovery would replay) and every older block the ring has not
 * overwritten, found by reading the whole journal (jls, jcat, jinode, undel -j).
 */
enum stalefs_jblock_type {
	STALEFS_JB_UNUSED = 0,	/* nothing the log recognises: zeros, or pieces written over */
	STALEFS_JB_SUPER,	/* journal block 0 */
	STALEFS_JB_DESCRIPTOR,
	STALEFS_JB_COMMIT,
	STALEFS_JB_REVOKE,
	STALEFS_JB_COPY,	/* a copy of a filesystem block, as its transaction logged it */
	STALEFS_JB_OTHER,	/* the jbd2 magic with a block type stalefs never writes */
};
const char *stalefs_jblock_type_name(int type);
struct stalefs_jblock {
	u8 type;		/* STALEFS_JB_* */
	bool live;		/* in the log from s_start that recovery would replay */
	bool committed;		/* its transaction's commit block is in the journal, checksum good */
	bool csum_ok;		/* its own checksum; a copy: its tag's */
	bool revoked;		/* COPY: a revoke record of the same or a later transaction names its block */
	u32 sequence;		/* its transaction */
	u32 flags;		/* COPY: its tag's flags (ESCAPE, ...) */
	u32 count;		/* DESCRIPTOR: tags; REVOKE: records */
	u64 fs_block;		/* COPY: the filesystem block it is a copy of */
	u64 commit_sec;		/* the commit time of its transaction (when committed) */
	u32 commit_nsec;
	int kind;		/* COPY: stalefs_block_classify of the copy */
	u32 group, owner;	/* COPY: the group of group metadata; the inode an extent/dir/xattr block names */
};
struct stalefs_jcopy_ref {
	u64 fs_block;
	u32 n;				/* the journal block holding a copy of it */
};
struct stalefs_jhistory {
	struct stalefs_jblock *b;	/* maxlen entries, by journal block number */
	u32 maxlen;
	struct stalefs_jcopy_ref *by_block;	/* every copy, by filesystem block then journal block */
	u64 copies;			/* blocks that are copies */
	u32 transactions;		/* distinct transactions with a commit block */
	bool have_range;
	u32 oldest, newest;		/* of those */
};
errcode_t stalefs_jhistory_build(struct stalefs_journal *j, struct stalefs_jhistory *h);
void stalefs_jhistory_free(struct stalefs_jhistory *h);
/* The copies of fs_block: how many, the first at h->by_block[*first]. */
size_t stalefs_jhistory_copies_of(const struct stalefs_jhistory *h, u64 fs_block, size_t *first);
/* Journal block n; a copy as its transaction would write it (an escaped magic put back). */
errcode_t stalefs_jhistory_read_copy(struct stalefs_journal *j, const struct stalefs_jhistory *h, u32 n, void *buf);
/* One inode as each journaled copy of its inode table block holds it. */
struct stalefs_jinode_copy {
	u32 log_block, sequence;
	bool live, committed;
	bool block_csum_ok;	/* the copy's tag checksum */
	int rule;		/* the inode's checksum and verifier verdict in that copy (0: good) */
	u64 commit_sec;
	u32 commit_nsec;
	struct stalefs_inode inode;
};
/* Every copy of ino, newest transaction first; *ret is freed by the caller. */
errcode_t stalefs_jhistory_inode(struct stalefs_journal *j, const struct stalefs_jhistory *h, u32 ino,
				 struct stalefs_jinode_copy **ret, size_t *count);
/* The index nodes an old extent map was read through, and where each came from. */
#define STALEFS_JMAP_FROM_JOURNAL	1	/* a journaled copy no newer than the inode's */
#define STALEFS_JMAP_FROM_DISK		2	/* the disk, where the block still is that inode's node */
struct stalefs_jmap_node {
	u64 block;
	int from;
	u32 log_block;		/* FROM_JOURNAL: the journal block holding the copy used */
};
struct stalefs_jmap_nodes {
	struct stalefs_jmap_node *v;	/* freed by the caller */
	size_t n;
	u64 bad;			/* the node that could not be found, on STALEFS_ERR_EXTENT_CORRUPT */
};
/* The extent map copy c of ino held: its root, then each index node from the newest
 * journaled copy no newer than c's transaction that is ino's node (owner and generation,
 * checksum, rules), else from the disk if the block there still is.  Neither:
 * STALEFS_ERR_EXTENT_CORRUPT with nodes->bad.  Free map with stalefs_extent_list_free. */
errcode_t stalefs_jhistory_extent_map(struct stalefs_journal *j, const struct stalefs_jhistory *h, u32 ino,
				      const struct stalefs_jinode_copy *c, struct stalefs_extent_list *map,
				      struct stalefs_jmap_nodes *nodes);

/* Writing transactions (debugfs journal_write, tests), as jbd2's commit writes them. */
struct stalefs_jtrans;
errcode_t stalefs_jtrans_begin(struct stalefs_journal *j, struct stalefs_jtrans **ret);
/* Journal `data` (one block) to be written to fs_block at replay; a block added twice keeps
 * the last content. */
errcode_t stalefs_jtrans_add_block(struct stalefs_jtrans *t, u64 fs_block, const void *data);
errcode_t stalefs_jtrans_revoke(struct stalefs_jtrans *t, u64 fs_block);
/* The commit time recorded (default: now); recovery compares commit times. */
void stalefs_jtrans_set_time(struct stalefs_jtrans *t, u64 sec, u32 nsec);
#define STALEFS_JTRANS_NO_COMMIT	0x01	/* leave it without a commit block: a crash mid-commit */
#define STALEFS_JTRANS_BAD_COMMIT_CSUM	0x02	/* corruption tests: a wrong checksum in ... */
#define STALEFS_JTRANS_BAD_DESC_CSUM	0x04	/* ... the first descriptor block */
#define STALEFS_JTRANS_BAD_REVOKE_CSUM	0x08	/* ... the first revoke block */
#define STALEFS_JTRANS_BAD_BLOCK_CSUM	0x10	/* ... the first journaled block's tag */
#define STALEFS_JTRANS_DURABLE		0x20	/* flush the device before the commit block and after it */
/*
 * Write the transaction at the log head (after every complete transaction, wrapping):
 * revoke blocks, descriptors with v3 tags each followed by its (escaped) blocks, and the
 * commit block.  An empty log gets s_start; the superblock gets RECOVER.  Frees t.
 */
errcode_t stalefs_jtrans_commit(struct stalefs_jtrans *t, int flags);
void stalefs_jtrans_abort(struct stalefs_jtrans *t);
/* Log blocks the transaction would take now. */
u32 stalefs_jtrans_blocks(const struct stalefs_jtrans *t);

/* ---- offline tuning (tunefs.stalefs; debugfs stale_group) ---- */
/* Who holds STALE extents, read from the inodes themselves (not bg_stale_count). */
struct stalefs_stale_census {
	u64 files;		/* inodes in use holding STALE extents or flagged STALE */
	u64 blocks;		/* STALE blocks among them */
	u64 unreadable;		/* inodes or extent trees that could not be read: may hold more */
};
errcode_t stalefs_stale_census(stalefs_fs *fs, struct stalefs_stale_census *c);
/*
 * Record gid as the permitted group (with the nohide_stale feature), or forget it
 * (gid STALEFS_STALE_GID_NONE: both cleared); every superblock copy is rewritten at
 * close.  Refused while files hold STALE extents, unless gid is the group already
 * recorded: STALEFS_ERR_STALE_EXTENTS, or STALEFS_ERR_STALE_UNKNOWN when some could
 * not be read.  *c says what the census found either way.
 */
errcode_t stalefs_stale_group_set(stalefs_fs *fs, u32 gid, struct stalefs_stale_census *c);
/* S4 (docs/nohide-stale.md): the file's group is the permitted one and others have no
 * permission.  A file flagged STALE that is not confined is not to be read by anyone. */
bool stalefs_stale_confined(const stalefs_fs *fs, const struct stalefs_inode *inode);
/* May a file flagged STALE take this owner, group or mode (NULL: unchanged)?  The kernel
 * module's rule: the same owner, the same or the permitted group, nothing for others. */
bool stalefs_stale_attr_allowed(const stalefs_fs *fs, const struct stalefs_inode *inode, const u32 *uid,
				const u32 *gid, const u16 *mode);
/* A new filesystem UUID; the checksum seed stays (FORMAT.md 2), the journal superblock's
 * UUID follows.  Refused while the journal needs recovery or its log is not empty. */
errcode_t stalefs_set_uuid(stalefs_fs *fs, const u8 uuid[16]);
/* A new volume label (at most 31 bytes: STALEFS_ERR_BAD_ARGUMENT otherwise). */
errcode_t stalefs_set_label(stalefs_fs *fs, const char *label);
/* Take the journal away: its blocks freed, has_journal and the journal fields cleared.
 * Refused (nothing changed) while it needs recovery or its log is not empty, or when its
 * superblock does not verify. */
errcode_t stalefs_journal_remove(stalefs_fs *fs);

/* ---- option values mkfs and tunefs share (parse_opts.c): 0, or -1 with nothing stored ---- */
/* A UUID as 8-4-4-4-12 hex (dashes optional), or random, time, clear (null). */
int stalefs_parse_uuid(const char *s, u8 out[16]);
void stalefs_uuid_random(u8 out[16]);
void stalefs_uuid_time(u8 out[16]);
void stalefs_uuid_unparse(const u8 uuid[16], char out[37]);
/* continue, remount-ro, panic: STALEFS_ERRORS_*. */
int stalefs_parse_errors(const char *s, u16 *out);
const char *stalefs_errors_name(u16 errors);
/* A gid number or a group name; never STALEFS_STALE_GID_NONE. */
int stalefs_parse_gid(const char *s, u32 *out);
/* -J's list ("size=MiB"): the journal's size in blocks of block_size; why says what is wrong. */
int stalefs_parse_journal_opts(const char *list, u32 block_size, u32 *blocks, char *why, size_t whylen);

/* ---- the superblock in words (debugfs stats, tunefs -l): print_super.c ---- */
/* Feature names of one mask (kind 0 compat, 1 ro_compat, 2 incompat), each after a space;
 * json: quoted and comma separated instead. */
void stalefs_print_features(FILE *f, int kind, u32 mask, bool json);
/* The journal superblock's feature names, as dumpe2fs prints them (json: the short ones). */
void stalefs_print_jfeatures(FILE *f, const struct stalefs_jbd2_super *jsb, bool json);
struct stalefs_journal_info {
	bool present, readable, csum_ok, needs_recovery;
	u64 block;
	u32 blocks, group;
	int rule;			/* the journal superblock's verdict */
	struct stalefs_jbd2_super jsb;
	u32 orphans;			/* inodes flagged ORPHAN, per the descriptors */
};
void stalefs_journal_info(stalefs_fs *fs, struct stalefs_journal_info *ji);
/* "YYYY-MM-DD HH:MM:SS UTC", or the number when it has no such date. */
void stalefs_time_string(s64 t, char *out, size_t len);
/* Every superblock field and the journal's state, one "Name:  value" line each. */
void stalefs_print_super(FILE *f, stalefs_fs *fs);

/* ---- partition tables (partition.c): MBR and GPT of whole-disk images ---- */
#define STALEFS_PT_NONE	0
#define STALEFS_PT_MBR	1
#define STALEFS_PT_GPT	2
struct stalefs_partition {
	u32 number;		/* as Linux numbers them: MBR 1-4 primary, 5.. logical; GPT entry + 1 */
	u64 first_sector, sectors;	/* in the table's sectors */
	u64 start, size;	/* in bytes */
	u8 mbr_type;		/* MBR: the type byte */
	bool bootable, extended, logical;
	u8 type_guid[16], part_guid[16];	/* GPT, as on disk */
	u64 attributes;		/* GPT */
	char name[80];		/* GPT: the partition's name, UTF-8 */
	const char *problem;	/* why it cannot be opened ("empty", "extends past ..."), or NULL */
	bool stalefs;		/* a stalefs superblock at its byte 1024 */
	u64 stalefs_bytes;	/* that filesystem's size, by its superblock */
	char label[32];		/* and its label */
};
struct stalefs_ptable {
	int kind;		/* STALEFS_PT_* */
	u32 sector_size;
	u64 disk_bytes;
	u8 disk_guid[16];	/* GPT */
	u64 first_usable, last_usable;	/* GPT, in sectors */
	bool used_backup;	/* GPT: the primary header failed; the backup at the end was read */
	char note[160];		/* what was wrong with the table, or "" */
	struct stalefs_partition *v;	/* by start sector */
	size_t n;
};
/* The partition table of the media io reads (a plain name: the whole disk), each partition
 * probed for stalefs.  STALEFS_ERR_NO_PARTITION_TABLE when there is neither MBR nor GPT. */
errcode_t stalefs_ptable_read(struct stalefs_io *io, struct stalefs_ptable *t);
void stalefs_ptable_free(struct stalefs_ptable *t);
const struct stalefs_partition *stalefs_ptable_find(const struct stalefs_ptable *t, u32 number);
/* "Linux filesystem", "EFI System", "Linux" (MBR 0x83), ... */
const char *stalefs_partition_type_name(const struct stalefs_ptable *t, const struct stalefs_partition *p);
void stalefs_partition_probe(struct stalefs_io *io, struct stalefs_partition *p);
/* A GUID as on disk (mixed-endian) to its usual text form. */
void stalefs_guid_unparse(const u8 g[16], char out[37]);

/* ---- what a block is (block_kind.c) ---- */
enum stalefs_block_kind {
	STALEFS_BK_DATA = 0,		/* file data, free space, or nothing that names itself */
	STALEFS_BK_BOOT,		/* the 1024 bytes before the primary superblock (1 KiB blocks) */
	STALEFS_BK_SUPER,
	STALEFS_BK_GDT,
	STALEFS_BK_BLOCK_BITMAP,
	STALEFS_BK_INODE_BITMAP,
	STALEFS_BK_INODE_TABLE,
	STALEFS_BK_JOURNAL_SUPER,
	STALEFS_BK_JOURNAL,
	STALEFS_BK_EXTENT,		/* by content: the magic and its own block number */
	STALEFS_BK_DIR,
	STALEFS_BK_XATTR,
	STALEFS_BK_OUTSIDE,		/* past the end of the filesystem */
	STALEFS_BK_MAX
};
const char *stalefs_block_kind_name(int kind);	/* "inode table", "directory block", ... */
/* By where it lies: superblock and descriptor copies, the journal, a group's bitmaps and
 * inode table (*group: whose); STALEFS_BK_DATA for everything else. */
int stalefs_block_layout_kind(const stalefs_fs *fs, u64 block, u32 *group);
/* By what content (a copy of block) says of itself: an extent node, directory or xattr
 * block naming this block as its own (*owner: the inode it names); else STALEFS_BK_DATA. */
int stalefs_block_content_kind(const stalefs_fs *fs, u64 block, const void *content, u32 *owner);
/* The layout first, then the content (NULL: the layout alone). */
int stalefs_block_classify(const stalefs_fs *fs, u64 block, const void *content, u32 *group, u32 *owner);

/* ---- content hashes (hash.c): MD5 and SHA-256, for timelines and case files ---- */
#define STALEFS_HASH_MD5	1
#define STALEFS_HASH_SHA256	2
#define STALEFS_HASH_MAX_SIZE	32
struct stalefs_hash {
	int kind;
	u32 state[8];
	u8 buf[64];
	u32 fill;
	u64 bytes;
};
int stalefs_hash_kind(const char *name);	/* "md5", "sha256"; -1 for anything else */
const char *stalefs_hash_name(int kind);
u32 stalefs_hash_size(int kind);		/* digest bytes: 16, 32 */
void stalefs_hash_init(struct stalefs_hash *h, int kind);
void stalefs_hash_update(struct stalefs_hash *h, const void *data, size_t len);
void stalefs_hash_final(struct stalefs_hash *h, u8 *out);
void stalefs_hash_hex(const u8 *digest, u32 size, char *out);	/* out: 2 * size + 1 bytes */
/* A file's content as reading it returns it (holes and UNWRITTEN extents as zeros). */
errcode_t stalefs_file_hash(stalefs_fs *fs, u32 ino, int kind, u8 *digest);

/* ---- timelines (timeline.c): The Sleuth Kit's bodyfile (3.x), as fls -m writes it ---- */
/* One line: MD5|name|inode|mode_as_string|UID|GID|size|atime|mtime|ctime|crtime. */
struct stalefs_body_entry {
	const char *path;	/* from the root, starting with '/' (the prefix goes before it) */
	const char *link;	/* a symlink's target, or NULL: " -> target" after the name */
	u32 ino;
	u8 name_type;		/* STALEFS_FT_* of the directory entry; STALEFS_FT_UNKNOWN: none */
	bool name_deleted;	/* " (deleted)", or " (deleted-realloc)" when the inode is in use */
	bool meta_in_use;
	const struct stalefs_inode *inode;	/* NULL: no inode to show ("-/----------", zeros) */
	const char *hash;	/* hex digest, or NULL: "0" */
	bool virtual_dir;	/* TSK's $OrphanFiles: "V/V---------" and no times (inode NULL) */
};
/* The line for e.  In names, control characters become '^' (as fls prints them), and '|' and
 * '%' become %7C and %25, which mactime decodes (fls would split the line there). */
void stalefs_body_print(FILE *f, const char *prefix, const struct stalefs_body_entry *e);
/* "-rw-r--r--" as ls -l (TSK's mode string, with its type letter: 'r' for regular files). */
void stalefs_mode_string(u16 mode, char out[11]);
struct stalefs_timeline_opts {
	const char *prefix;	/* before every path (fls -m's mount point; trailing '/' dropped) */
	int hash;		/* 0, or STALEFS_HASH_*: the content of regular files in use */
	bool allocated_only;	/* names in use only (fls -u) */
	bool deleted_only;	/* deleted names and inodes only (fls -d) */
	/* Removed directories whose inode no longer maps its blocks (the kernel frees them
	 * first): their blocks found through the journal's copies (stalefs_jhistory). */
	bool journal;
	/* What could not be read (a block of a directory in use, an inode), in words; the
	 * walk goes on.  NULL: not said. */
	void (*problem)(void *priv, const char *what);
	void *priv;
};
struct stalefs_timeline_stats {
	u64 entries;		/* lines written */
	u64 deleted;		/* of them, deleted names and orphan inodes */
	u64 orphans;		/* inodes no name refers to, under $OrphanFiles */
	u64 problems;		/* what could not be read */
};
/*
 * Every name from the root down (the root itself as "/"), removed names included
 * (STALEFS_DIR_ITER_DELETED) with the inode they still name, and every inode in use or
 * deleted that no name refers to, as /$OrphanFiles/OrphanFile-N (TSK's virtual directory,
 * numbered inodes_count + 1).  A removed directory that is not in use again is walked too;
 * what it holds is deleted with it.
 */
errcode_t stalefs_timeline(stalefs_fs *fs, const struct stalefs_timeline_opts *o, FILE *out,
			   struct stalefs_timeline_stats *st);

/* ---- small helpers ---- */
/* A tool's start: its name as invoked (argv[0]'s last part, else name), stdout
 * line-buffered, the com_err table loaded. */
const char *stalefs_tool_start(int argc, char **argv, const char *name);
/* Allocation that aborts with a message when memory runs out (the tools have no way on). */
void *stalefs_xcalloc(size_t n, size_t size);
void *stalefs_xmalloc(size_t size);
void *stalefs_xrealloc(void *old, size_t size);
/* The device, or a loop device backed by this image file, is mounted (per /proc/mounts). */
bool stalefs_device_is_mounted(const char *device);
/*
 * Where the device (or a loop device backed by this image file) is mounted:
 * its mount point into dir (len bytes), a read-write mount preferred, and
 * whether that mount is read-only.  False when it is not mounted here.
 */
bool stalefs_mount_point(const char *device, char *dir, size_t len, bool *read_only);
u8 stalefs_ft_from_mode(u16 mode);
/* A directory entry's file type as S_IF* type bits (0 for an unknown type). */
u16 stalefs_ft_to_mode(u8 ft);
/* i_rdev of device inodes: the kernel's new_encode_dev / new_decode_dev (FORMAT.md 5). */
u32 stalefs_encode_dev(u32 major, u32 minor);
void stalefs_decode_dev(u32 dev, u32 *major, u32 *minor);
const char *stalefs_feature_name(int kind, u32 bit);	/* kind 0 compat, 1 ro_compat, 2 incompat */
errcode_t stalefs_feature_parse(const char *name, int *kind, u32 *bit);
/* Parse a size with K/M/G/T suffix (binary); *bytes. */
int stalefs_parse_size(const char *s, u64 *bytes);

#endif /* LIBSTALEFS_H */
