// SPDX-License-Identifier: GPL-2.0
/* Inodes: reading and writing slots of the inode tables, creating and deleting files. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <sys/random.h>
#include "libstalefs.h"
#include "lib_internal.h"

static errcode_t locate(stalefs_fs *fs, u32 ino, u64 *block, u32 *offset, bool *initialised)
{
	const struct stalefs_geom *g = &fs->geom;
	const struct stalefs_group_desc *d;
	u32 index;

	if (!stalefs_ino_valid(fs, ino))
		return STALEFS_ERR_BAD_INODE_NUM;
	d = &fs->groups[stalefs_ino_group(g, ino)].desc;
	index = (ino - 1) % g->inodes_per_group;
	stalefs_ino_locate(g, d, ino, block, offset);
	if (*block >= g->blocks_count)
		return STALEFS_ERR_BAD_BLOCK_NUM;
	if (initialised)
		*initialised = index < g->inodes_per_group - le32_to_cpu(d->bg_itable_unused);
	return 0;
}

errcode_t stalefs_read_inode_raw(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode, int *rule)
{
	u8 *buf = stalefs_xmalloc(fs->block_size);
	u64 block;
	u32 offset;
	bool init;
	errcode_t err;

	*rule = 0;
	err = locate(fs, ino, &block, &offset, &init);
	if (!err && !init) {
		/* Never initialised: whatever the disk holds there means nothing. */
		memset(inode, 0, sizeof(*inode));
		free(buf);
		return 0;
	}
	if (!err)
		err = stalefs_io_read(fs->io, block, 1, buf);
	if (!err) {
		memcpy(inode, buf + offset, sizeof(*inode));
		if (le16_to_cpu(inode->i_mode) != 0 || le32_to_cpu(inode->i_checksum) != 0) {
			*rule = stalefs_verify_inode_csum(fs->seed, ino, inode);
			if (!*rule && le16_to_cpu(inode->i_mode) != 0)
				*rule = stalefs_verify_inode(&fs->geom, ino, inode);
		}
	}
	free(buf);
	return err;
}

errcode_t stalefs_read_inode(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode)
{
	int rule;
	errcode_t err = stalefs_read_inode_raw(fs, ino, inode, &rule);

	if (err)
		return err;
	if (rule == STALEFS_R_INODE_CSUM)
		return (fs->flags & STALEFS_OPEN_IGNORE_CSUM) ? 0 : STALEFS_ERR_INODE_CSUM;
	if (rule)
		return STALEFS_ERR_INODE_CORRUPT;
	return 0;
}

errcode_t stalefs_write_inode_raw(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode)
{
	u8 *buf;
	u64 block;
	u32 offset;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = locate(fs, ino, &block, &offset, NULL);
	if (err)
		return err;
	buf = stalefs_xmalloc(fs->block_size);
	err = stalefs_io_read(fs->io, block, 1, buf);
	if (!err) {
		memcpy(buf + offset, inode, sizeof(*inode));
		err = stalefs_io_write(fs->io, block, 1, buf);
	}
	free(buf);
	return err;
}

errcode_t stalefs_write_inode(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode)
{
	inode->i_ino = cpu_to_le32(ino);
	stalefs_inode_set_csum(fs->seed, ino, inode);
	return stalefs_write_inode_raw(fs, ino, inode);
}

/* The in-inode xattr area of a slot: its bytes past the 256-byte inode (FORMAT.md 5, 14). */
errcode_t stalefs_read_inode_area(stalefs_fs *fs, u32 ino, void *area)
{
	u32 len = stalefs_xattr_ibody_len(&fs->geom), offset;
	u8 *buf;
	u64 block;
	bool init;
	errcode_t err;

	err = locate(fs, ino, &block, &offset, &init);
	if (err || !len)
		return err;
	if (!init) {
		/* Never initialised: reads as an empty area, as the inode reads as zeros. */
		memset(area, 0, len);
		return 0;
	}
	buf = stalefs_xmalloc(fs->block_size);
	err = stalefs_io_read(fs->io, block, 1, buf);
	if (!err)
		memcpy(area, buf + offset + STALEFS_INODE_SIZE, len);
	free(buf);
	return err;
}

errcode_t stalefs_write_inode_area(stalefs_fs *fs, u32 ino, const void *area)
{
	u32 len = stalefs_xattr_ibody_len(&fs->geom), offset;
	u8 *buf;
	u64 block;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	err = locate(fs, ino, &block, &offset, NULL);
	if (err || !len)
		return err;
	buf = stalefs_xmalloc(fs->block_size);
	err = stalefs_io_read(fs->io, block, 1, buf);
	if (!err) {
		if (area)
			memcpy(buf + offset + STALEFS_INODE_SIZE, area, len);
		else
			memset(buf + offset + STALEFS_INODE_SIZE, 0, len);
		err = stalefs_io_write(fs->io, block, 1, buf);
	}
	free(buf);
	return err;
}

void stalefs_inode_set_times_now(struct stalefs_inode *inode, bool atime, bool mtime, bool ctime)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (atime) {
		inode->i_atime = cpu_to_le64((u64)ts.tv_sec);
		inode->i_atime_nsec = cpu_to_le32((u32)ts.tv_nsec);
	}
	if (mtime) {
		inode->i_mtime = cpu_to_le64((u64)ts.tv_sec);
		inode->i_mtime_nsec = cpu_to_le32((u32)ts.tv_nsec);
	}
	if (ctime) {
		inode->i_ctime = cpu_to_le64((u64)ts.tv_sec);
		inode->i_ctime_nsec = cpu_to_le32((u32)ts.tv_nsec);
	}
}

static void empty_extent_root(struct stalefs_inode *inode)
{
	stalefs_extent_root_init((struct stalefs_extent_header *)inode->i_block);
}

/* Generation numbers, drawn from the kernel a batch at a time: mkfs -d of
 * 100,000 files made 100,000 getrandom calls otherwise. */
static bool random_u32(u32 *out)
{
	static u32 pool[256];
	static size_t left;

	if (!left) {
		if (getrandom(pool, sizeof(pool), GRND_NONBLOCK) != (ssize_t)sizeof(pool))
			return false;
		left = sizeof(pool) / sizeof(pool[0]);
	}
	*out = pool[--left];
	return true;
}

void stalefs_inode_init(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode, u16 mode, u32 uid, u32 gid)
{
	u32 gen = 0;
	u16 type = mode & STALEFS_S_IFMT;

	(void)fs;
	memset(inode, 0, sizeof(*inode));
	inode->i_mode = cpu_to_le16(mode);
	inode->i_links_count = cpu_to_le16(1);
	inode->i_uid = cpu_to_le32(uid);
	inode->i_gid = cpu_to_le32(gid);
	inode->i_ino = cpu_to_le32(ino);
	if (!random_u32(&gen))
		gen = (u32)time(NULL) ^ ino;
	inode->i_generation = cpu_to_le32(gen);
	stalefs_inode_set_times_now(inode, true, true, true);
	inode->i_crtime = inode->i_ctime;
	inode->i_crtime_nsec = inode->i_ctime_nsec;
	if (type == STALEFS_S_IFREG || type == STALEFS_S_IFDIR || type == STALEFS_S_IFLNK)
		empty_extent_root(inode);
}

u32 stalefs_encode_dev(u32 major, u32 minor)
{
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);	/* new_encode_dev */
}

void stalefs_decode_dev(u32 dev, u32 *major, u32 *minor)
{
	*major = (dev & 0xfff00) >> 8;	/* new_decode_dev */
	*minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
}

u16 stalefs_ft_to_mode(u8 ft)
{
	static const u16 type[STALEFS_FT_MAX] = {
		[STALEFS_FT_REG] = STALEFS_S_IFREG,	[STALEFS_FT_DIR] = STALEFS_S_IFDIR,
		[STALEFS_FT_CHRDEV] = STALEFS_S_IFCHR,	[STALEFS_FT_BLKDEV] = STALEFS_S_IFBLK,
		[STALEFS_FT_FIFO] = STALEFS_S_IFIFO,	[STALEFS_FT_SOCK] = STALEFS_S_IFSOCK,
		[STALEFS_FT_SYMLINK] = STALEFS_S_IFLNK,
	};

	return ft < STALEFS_FT_MAX ? type[ft] : 0;
}

u8 stalefs_ft_from_mode(u16 mode)
{
	return stalefs_mode_to_ft(mode);
}

/* A name that may be created in dir: valid and not there yet. */
static errcode_t check_new_name(stalefs_fs *fs, u32 dir, const char *name)
{
	u32 existing;
	errcode_t err;

	if (!stalefs_name_valid(name, strlen(name)))
		return strlen(name) > STALEFS_NAME_LEN ? STALEFS_ERR_NAME_TOO_LONG : STALEFS_ERR_BAD_NAME;
	if (fs->names_known_unique)
		return 0;
	err = stalefs_lookup(fs, dir, name, strlen(name), &existing);
	if (!err)
		return STALEFS_ERR_EXISTS;
	return err == STALEFS_ERR_NOT_FOUND ? 0 : err;
}

/*
 * Undo a half-made inode whose name was never linked: free its blocks and the
 * inode, and zero its slot (FORMAT.md 5: a free slot is zeros or a deleted
 * inode, never one that looks in use).
 */
static void undo_new_inode(stalefs_fs *fs, u32 ino, bool is_dir, bool written)
{
	struct stalefs_inode zero;

	if (!written || stalefs_delete_inode(fs, ino))
		stalefs_free_inode(fs, ino, is_dir);	/* only the bitmap and counts to undo */
	memset(&zero, 0, sizeof(zero));
	stalefs_write_inode_raw(fs, ino, &zero);
}

errcode_t stalefs_create(stalefs_fs *fs, u32 dir, const char *name, u16 mode, u32 uid, u32 gid, u32 *ret)
{
	struct stalefs_inode inode;
	u32 ino;
	bool written;
	errcode_t err;

	err = check_new_name(fs, dir, name);
	if (err)
		return err;
	err = stalefs_alloc_inode(fs, dir, mode, &ino);
	if (err)
		return err;
	stalefs_inode_init(fs, ino, &inode, mode, uid, gid);
	err = stalefs_write_inode(fs, ino, &inode);
	written = !err;
	if (!err)
		err = stalefs_link(fs, dir, name, ino, stalefs_mode_to_ft(mode));
	if (err) {
		undo_new_inode(fs, ino, (mode & STALEFS_S_IFMT) == STALEFS_S_IFDIR, written);
		return err;
	}
	*ret = ino;
	return 0;
}

errcode_t stalefs_adjust_links(stalefs_fs *fs, u32 ino, int delta)
{
	struct stalefs_inode inode;
	errcode_t err = stalefs_read_inode(fs, ino, &inode);

	if (err)
		return err;
	inode.i_links_count = cpu_to_le16((u16)(le16_to_cpu(inode.i_links_count) + delta));
	stalefs_inode_set_times_now(&inode, false, delta > 0, true);
	return stalefs_write_inode(fs, ino, &inode);
}

errcode_t stalefs_mkdir(stalefs_fs *fs, u32 parent, const char *name, u16 mode, u32 uid, u32 gid, u32 *ret)
{
	struct stalefs_inode inode;
	u32 ino;
	bool written;
	errcode_t err;

	mode = (u16)((mode & ~STALEFS_S_IFMT) | STALEFS_S_IFDIR);
	err = check_new_name(fs, parent, name);
	if (err)
		return err;
	err = stalefs_alloc_inode(fs, parent, mode, &ino);
	if (err)
		return err;
	stalefs_inode_init(fs, ino, &inode, mode, uid, gid);
	inode.i_links_count = cpu_to_le16(2);
	err = stalefs_dir_init(fs, ino, &inode, parent);
	if (!err)
		err = stalefs_write_inode(fs, ino, &inode);
	written = !err;
	if (!err)
		err = stalefs_link(fs, parent, name, ino, STALEFS_FT_DIR);
	if (err) {
		undo_new_inode(fs, ino, true, written);
		return err;
	}
	err = stalefs_adjust_links(fs, parent, 1);
	if (err)
		return err;
	*ret = ino;
	return 0;
}

errcode_t stalefs_symlink(stalefs_fs *fs, u32 dir, const char *name, const char *target,
			  u32 uid, u32 gid, u32 *ret)
{
	struct stalefs_inode inode;
	size_t len = strlen(target);
	u32 ino;
	errcode_t err;

	if (len == 0 || len >= fs->block_size || len > STALEFS_SYMLINK_MAX)
		return STALEFS_ERR_NAME_TOO_LONG;
	err = stalefs_create(fs, dir, name, STALEFS_S_IFLNK | 0777, uid, gid, &ino);
	if (err)
		return err;
	err = stalefs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	if (len <= STALEFS_INLINE_SYMLINK_MAX) {
		memset(inode.i_block, 0, sizeof(inode.i_block));
		memcpy(inode.i_block, target, len);
		inode.i_flags = cpu_to_le32(le32_to_cpu(inode.i_flags) | STALEFS_INODE_INLINE_FL);
		inode.i_size = cpu_to_le64(len);
		err = stalefs_write_inode(fs, ino, &inode);
	} else {
		err = stalefs_file_write(fs, ino, 0, target, len);
	}
	if (!err)
		*ret = ino;
	return err;
}

errcode_t stalefs_read_symlink(stalefs_fs *fs, u32 ino, char *buf, size_t bufsize)
{
	struct stalefs_inode inode;
	size_t got, len;
	errcode_t err = stalefs_read_inode(fs, ino, &inode);

	if (err)
		return err;
	if ((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFLNK)
		return STALEFS_ERR_BAD_ARGUMENT;
	len = le64_to_cpu(inode.i_size);
	if (len >= bufsize || len > STALEFS_SYMLINK_MAX)
		return STALEFS_ERR_NAME_TOO_LONG;
	if (le32_to_cpu(inode.i_flags) & STALEFS_INODE_INLINE_FL) {
		memcpy(buf, inode.i_block, len);
	} else {
		err = stalefs_file_read(fs, ino, 0, buf, len, &got);
		if (err)
			return err;
		if (got != len)
			return STALEFS_ERR_SHORT_READ;
	}
	buf[len] = '\0';
	return 0;
}

errcode_t stalefs_delete_inode(stalefs_fs *fs, u32 ino)
{
	struct stalefs_inode inode;
	bool is_dir;
	errcode_t err = stalefs_read_inode(fs, ino, &inode);

	if (err)
		return err;
	is_dir = (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
	if (is_dir)
		stalefs_dirindex_drop(fs, ino);
	/* Attributes first: a block that is not this inode's stops the deletion before
	 * anything is freed.  They cannot be undeleted, so they go wholly. */
	err = stalefs_xattr_release(fs, ino, &inode);
	if (err)
		return err;
	if (stalefs_inode_has_extents(&inode)) {
		struct stalefs_extent_list l;

		/* Free the blocks but keep the mapping in the inode: undel can bring it back. */
		err = stalefs_extent_read(fs, ino, &inode, &l);
		if (err)
			return err;
		err = stalefs_free_extent_blocks(fs, &l);
		stalefs_extent_list_free(&l);
		if (!err)
			err = stalefs_extent_free_nodes(fs, ino, &inode);
		if (err)
			return err;
	}
	/* The flag stays (lsdel, undel); its group counts in-use STALE inodes only (S6). */
	if (le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL)
		stalefs_adjust_stale_count(fs, ino, -1);
	/* An orphan being released is one no more: its group counts it no longer. */
	if (le32_to_cpu(inode.i_flags) & STALEFS_INODE_ORPHAN_FL) {
		inode.i_flags = cpu_to_le32(le32_to_cpu(inode.i_flags) & ~STALEFS_INODE_ORPHAN_FL);
		stalefs_orphan_count_adjust(fs, ino, -1);
	}
	/* Keep the rest of the inode so lsdel can show what was there. */
	inode.i_links_count = 0;
	inode.i_dtime = cpu_to_le64((u64)time(NULL));
	if (inode.i_dtime == 0)
		inode.i_dtime = cpu_to_le64(1);
	err = stalefs_write_inode(fs, ino, &inode);
	if (!err)
		err = stalefs_free_inode(fs, ino, is_dir);
	return err;
}

errcode_t stalefs_drop_link(stalefs_fs *fs, u32 ino)
{
	struct stalefs_inode inode;
	u16 links;
	bool is_dir;
	errcode_t err = stalefs_read_inode(fs, ino, &inode);

	if (err)
		return err;
	links = le16_to_cpu(inode.i_links_count);
	is_dir = (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
	/* A directory's own "." accounts for its second link. */
	if (links <= 1 || (is_dir && links <= 2))
		return stalefs_delete_inode(fs, ino);
	inode.i_links_count = cpu_to_le16(links - 1);
	stalefs_inode_set_times_now(&inode, false, false, true);
	return stalefs_write_inode(fs, ino, &inode);
}

int stalefs_inode_scan(stalefs_fs *fs, stalefs_inode_scan_fn fn, void *priv)
{
	const struct stalefs_geom *g = &fs->geom;
	u32 grp, slot;

	for (grp = 0; grp < g->groups_count; grp++) {
		const struct stalefs_group_desc *d = &fs->groups[grp].desc;
		u32 unused = le32_to_cpu(d->bg_itable_unused);
		u32 init = unused < g->inodes_per_group ? g->inodes_per_group - unused : 0;

		if (le16_to_cpu(d->bg_flags) & STALEFS_BG_INODE_UNINIT)
			init = 0;
		for (slot = 0; slot < init; slot++) {
			struct stalefs_inode inode;
			u32 ino = grp * g->inodes_per_group + slot + 1;
			int rule, ret;
			bool in_use;

			if (stalefs_read_inode_raw(fs, ino, &inode, &rule)) {
				ret = fn(fs, ino, NULL, 0, false, priv);
			} else {
				if (fs->bitmaps_loaded)
					in_use = stalefs_test_inode(fs, ino);
				else
					in_use = inode.i_mode && inode.i_links_count && !inode.i_dtime;
				ret = fn(fs, ino, &inode, rule, in_use, priv);
			}
			if (ret)
				return ret;
		}
	}
	return 0;
}
