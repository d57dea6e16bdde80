// SPDX-License-Identifier: GPL-2.0
/*
 * Opening, flushing and closing a filesystem: the superblock (primary or a
 * backup), the group descriptor table, and the bitmaps.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "libstalefs.h"
#include "lib_internal.h"

u64 stalefs_super_offset(const struct stalefs_geom *g, u32 group)
{
	if (group == 0)
		return STALEFS_SUPER_OFFSET;
	return stalefs_group_first_block(g, group) << g->log_block_size;
}

errcode_t stalefs_read_super(struct stalefs_io *io, u64 off, struct stalefs_super_block *sb)
{
	return stalefs_io_pread(io, off, sizeof(*sb), sb);
}

void stalefs_mark_super_dirty(stalefs_fs *fs)
{
	fs->sb_dirty = true;
}

void stalefs_mark_desc_dirty(stalefs_fs *fs, u32 group)
{
	fs->groups[group].desc_dirty = true;
}

static errcode_t super_error(int rule)
{
	switch (rule) {
	case STALEFS_R_SB_MAGIC: return STALEFS_ERR_BAD_MAGIC;
	case STALEFS_R_SB_CSUM: return STALEFS_ERR_SB_CSUM;
	case STALEFS_R_SB_INCOMPAT_UNKNOWN:
	case STALEFS_R_SB_INCOMPAT_MISSING: return STALEFS_ERR_UNSUPP_FEATURE;
	case STALEFS_R_SB_RO_COMPAT_UNKNOWN: return STALEFS_ERR_RO_UNSUPP_FEATURE;
	}
	return STALEFS_ERR_SB_CORRUPT;
}

/* Find a backup superblock at sb_block, trying each block size when not given. */
static errcode_t read_backup_super(struct stalefs_io *io, u64 sb_block, u32 block_size,
				   struct stalefs_super_block *sb)
{
	u32 log;
	errcode_t err, last = STALEFS_ERR_BAD_MAGIC;

	for (log = STALEFS_MIN_LOG_BLOCK; log <= STALEFS_MAX_LOG_BLOCK; log++) {
		u32 bs = 1u << log;

		if (block_size && block_size != bs)
			continue;
		err = stalefs_read_super(io, sb_block * bs, sb);
		if (err) {
			last = err;
			continue;
		}
		if (le32_to_cpu(sb->s_magic) == STALEFS_SUPER_MAGIC &&
		    le32_to_cpu(sb->s_log_block_size) + 10 == log &&
		    (u64)le32_to_cpu(sb->s_block_group_nr) * le32_to_cpu(sb->s_blocks_per_group) == sb_block)
			return 0;
	}
	return last;
}

/*
 * The group whose descriptor table goes with the superblock we opened: a backup's
 * own group (read_backup_super checked s_block_group_nr against its place), and
 * always group 0 for the primary, whatever its s_block_group_nr says (fsck repairs
 * that field; trusting it read a backup's old table, or past the device's end).
 */
static u32 opened_group(const stalefs_fs *fs)
{
	return fs->sb_block ? le32_to_cpu(fs->sb.s_block_group_nr) : 0;
}

/*
 * The descriptor table as the superblock copy in group `view` sees it (FORMAT.md 4): the
 * blocks before first_meta_bg in one read, each META_BG block where it lies.
 */
static errcode_t read_gdt_blocks(stalefs_fs *fs, u32 view, u8 *buf)
{
	const struct stalefs_geom *g = &fs->geom;
	errcode_t err;
	u32 i;

	err = stalefs_io_read(fs->io, stalefs_gdt_block_loc(g, view, 0), g->first_meta_bg, buf);
	for (i = g->first_meta_bg; i < g->gdt_blocks && !err; i++)
		err = stalefs_io_read(fs->io, stalefs_gdt_block_loc(g, view, i), 1,
				      buf + (size_t)i * g->block_size);
	return err;
}

static errcode_t read_gdt(stalefs_fs *fs, u32 sb_group)
{
	const struct stalefs_geom *g = &fs->geom;
	u8 *buf;
	u32 i;
	errcode_t err;

	buf = malloc((size_t)g->gdt_blocks * g->block_size);
	if (!buf)
		return STALEFS_ERR_NO_MEMORY;
	err = read_gdt_blocks(fs, sb_group, buf);
	if (err) {
		free(buf);
		return err;
	}
	for (i = 0; i < g->groups_count; i++) {
		struct stalefs_group_desc *d = &fs->groups[i].desc;

		memcpy(d, buf + (size_t)i * STALEFS_DESC_SIZE, sizeof(*d));
		if (stalefs_verify_desc_csum(fs->seed, i, d) || stalefs_verify_desc(g, i, d)) {
			fs->bad_desc_count++;
			if (!(fs->flags & (STALEFS_OPEN_FORCE | STALEFS_OPEN_IGNORE_CSUM)))
				err = stalefs_verify_desc(g, i, d) ? STALEFS_ERR_GD_CORRUPT : STALEFS_ERR_GD_CSUM;
		}
	}
	free(buf);
	/* A backup's descriptors are old: the primary is rewritten from them. */
	if (sb_group != 0)
		for (i = 0; i < g->groups_count; i++)
			fs->groups[i].desc_dirty = true;
	return err;
}

errcode_t stalefs_open(const char *name, int flags, u64 sb_block, u32 block_size, stalefs_fs **ret)
{
	stalefs_fs *fs;
	errcode_t err;
	u64 dev_bytes;
	int rule;

	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return STALEFS_ERR_NO_MEMORY;
	/* Overlay: the library writes as usual, the I/O layer keeps it all in memory. */
	if (flags & STALEFS_OPEN_OVERLAY)
		flags |= STALEFS_OPEN_RW;
	fs->flags = flags;
	fs->device_name = strdup(name);
	err = stalefs_io_open(name, (flags & STALEFS_OPEN_RW) && !(flags & STALEFS_OPEN_OVERLAY),
			      flags & STALEFS_OPEN_EXCLUSIVE, &fs->io);
	if (!err && (flags & STALEFS_OPEN_OVERLAY))
		err = stalefs_io_set_overlay(fs->io);
	if (err)
		goto fail;
	if (sb_block)
		err = read_backup_super(fs->io, sb_block, block_size, &fs->sb);
	else
		err = stalefs_read_super(fs->io, STALEFS_SUPER_OFFSET, &fs->sb);
	if (err)
		goto fail;
	fs->sb_block = sb_block;
	if (le32_to_cpu(fs->sb.s_magic) != STALEFS_SUPER_MAGIC) {
		err = STALEFS_ERR_BAD_MAGIC;
		goto fail;
	}
	rule = stalefs_verify_super(&fs->sb);
	if (!rule)
		rule = stalefs_verify_super_csum(&fs->sb);
	fs->sb_rule = rule;
	if (rule == STALEFS_R_SB_RO_COMPAT_UNKNOWN && !(flags & STALEFS_OPEN_RW))
		rule = 0;
	if (rule == STALEFS_R_SB_CSUM && (flags & STALEFS_OPEN_IGNORE_CSUM))
		rule = 0;
	/* Unknown incompat features are never forced: we cannot understand the layout. */
	if (rule && (!(flags & STALEFS_OPEN_FORCE) || rule == STALEFS_R_SB_INCOMPAT_UNKNOWN ||
		     stalefs_geom_from_super(&fs->geom, &fs->sb))) {
		err = super_error(rule);
		goto fail;
	}
	err = stalefs_geom_from_super(&fs->geom, &fs->sb) ? STALEFS_ERR_SB_CORRUPT : 0;
	if (err)
		goto fail;
	/*
	 * The journal may hold committed transactions not yet in place: writing
	 * around them would be undone (or worse) by the replay.  Reading is fine
	 * (the state before recovery); writing is for those who replay first.
	 */
	if ((le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER) &&
	    (flags & STALEFS_OPEN_RW) && !(flags & (STALEFS_OPEN_JOURNAL | STALEFS_OPEN_OVERLAY))) {
		err = STALEFS_ERR_NEEDS_RECOVERY;
		goto fail;
	}
	fs->block_size = fs->geom.block_size;
	fs->seed = le32_to_cpu(fs->sb.s_csum_seed);
	stalefs_io_set_block_size(fs->io, fs->block_size);
	err = stalefs_io_size(fs->io, &dev_bytes);
	if (err)
		goto fail;
	if (dev_bytes / fs->block_size < fs->geom.blocks_count) {
		err = STALEFS_ERR_DEVICE_TOO_SMALL;
		goto fail;
	}
	fs->groups = calloc(fs->geom.groups_count, sizeof(*fs->groups));
	if (!fs->groups) {
		err = STALEFS_ERR_NO_MEMORY;
		goto fail;
	}
	fs->ngroups_alloc = fs->geom.groups_count;
	err = read_gdt(fs, opened_group(fs));
	if (err)
		goto fail;
	if (sb_block)
		fs->sb_dirty = true;	/* the primary gets this copy back */
	if (!(flags & STALEFS_OPEN_NO_BITMAPS)) {
		err = stalefs_read_bitmaps(fs);
		if (err)
			goto fail;
	}
	*ret = fs;
	return 0;
fail:
	stalefs_free(fs);
	return err;
}

errcode_t stalefs_open_tolerant(const char *name, int flags, u64 sb_block, u32 block_size, stalefs_fs **ret,
				void (*warn)(void *priv, const char *what), void *priv)
{
	char what[256];
	errcode_t err = stalefs_open(name, flags, sb_block, block_size, ret);

	/* Not the device or its name: the image is there but damaged.  A bad magic number or
	 * unknown incompatible features mean the layout cannot be understood at all. */
	if (err && err != STALEFS_ERR_BAD_MAGIC && err != STALEFS_ERR_UNSUPP_FEATURE &&
	    !stalefs_io_error(err) && !(flags & STALEFS_OPEN_FORCE)) {
		snprintf(what, sizeof(what), "%s; opening anyway", error_message(err));
		warn(priv, what);
		flags |= STALEFS_OPEN_FORCE;
		err = stalefs_open(name, flags, sb_block, block_size, ret);
	}
	if (err == STALEFS_ERR_BITMAP_CSUM && !(flags & STALEFS_OPEN_NO_BITMAPS)) {
		/* A bad bitmap should not hide the rest of the image. */
		snprintf(what, sizeof(what), "%s while reading bitmaps; opening without them (catastrophic mode)",
			 error_message(err));
		warn(priv, what);
		err = stalefs_open(name, flags | STALEFS_OPEN_NO_BITMAPS, sb_block, block_size, ret);
	}
	return err;
}

errcode_t stalefs_set_overlay(stalefs_fs *fs)
{
	errcode_t err = stalefs_io_set_overlay(fs->io);

	if (!err)
		fs->flags |= STALEFS_OPEN_RW | STALEFS_OPEN_OVERLAY;
	return err;
}

errcode_t stalefs_reload_groups(stalefs_fs *fs)
{
	errcode_t err;
	u32 i;

	for (i = 0; i < fs->ngroups_alloc; i++) {
		free(fs->groups[i].block_bitmap);
		free(fs->groups[i].inode_bitmap);
	}
	free(fs->groups);
	fs->groups = stalefs_xcalloc(fs->geom.groups_count, sizeof(*fs->groups));
	fs->ngroups_alloc = fs->geom.groups_count;
	fs->bitmaps_loaded = false;
	fs->bad_desc_count = 0;
	err = read_gdt(fs, opened_group(fs));
	if (!err && !(fs->flags & STALEFS_OPEN_NO_BITMAPS))
		err = stalefs_read_bitmaps(fs);
	return err;
}

errcode_t stalefs_reload_super(stalefs_fs *fs)
{
	struct stalefs_super_block sb;
	struct stalefs_geom g;
	u8 *buf = stalefs_xmalloc(fs->block_size);
	errcode_t err = stalefs_io_read(fs->io, fs->geom.sb_block, 1, buf);

	if (!err) {
		memcpy(&sb, buf + STALEFS_SUPER_OFFSET % fs->block_size, sizeof(sb));
		if (stalefs_verify_super_csum(&sb) || stalefs_verify_super(&sb) ||
		    stalefs_geom_from_super(&g, &sb) || g.block_size != fs->block_size)
			err = STALEFS_ERR_SB_CORRUPT;
	}
	free(buf);
	if (err)
		return err;
	fs->sb = sb;
	fs->geom = g;
	fs->sb_block = 0;
	return 0;
}

errcode_t stalefs_write_super_copy(stalefs_fs *fs, u32 group)
{
	struct stalefs_super_block sb = fs->sb;

	sb.s_block_group_nr = cpu_to_le32(group);
	stalefs_super_set_csum(&sb);
	if (group == 0)
		fs->sb = sb;
	return stalefs_io_pwrite(fs->io, stalefs_super_offset(&fs->geom, group), sizeof(sb), &sb);
}

/* The descriptor table as it goes on disk, every block of it; NULL when out of memory. */
static u8 *build_gdt(const stalefs_fs *fs)
{
	const struct stalefs_geom *g = &fs->geom;
	u8 *table = calloc(g->gdt_blocks, g->block_size);
	u32 i;

	if (table)
		for (i = 0; i < g->groups_count; i++)
			memcpy(table + (size_t)i * STALEFS_DESC_SIZE, &fs->groups[i].desc, STALEFS_DESC_SIZE);
	return table;
}

/* Does descriptor block b hold a descriptor changed since the last flush? */
static bool gdt_block_dirty(const stalefs_fs *fs, u32 b)
{
	const struct stalefs_geom *g = &fs->geom;
	u32 i;

	for (i = b * g->desc_per_block; i < (b + 1) * g->desc_per_block && i < g->groups_count; i++)
		if (fs->groups[i].desc_dirty)
			return true;
	return false;
}

/* The primary descriptor table: every block, or only those holding dirty descriptors. */
static errcode_t write_gdt_primary(stalefs_fs *fs, bool all, const u8 *table)
{
	const struct stalefs_geom *g = &fs->geom;
	errcode_t err = 0;
	u32 b;

	if (all)
		err = stalefs_io_write(fs->io, stalefs_gdt_block_loc(g, 0, 0), g->first_meta_bg, table);
	for (b = all ? g->first_meta_bg : 0; b < g->gdt_blocks && !err; b++)
		if (all || gdt_block_dirty(fs, b))
			err = stalefs_io_write(fs->io, stalefs_gdt_block_loc(g, 0, b), 1,
					       table + (size_t)b * g->block_size);
	return err;
}

/*
 * Every backup copy of the table and of the superblock.  The table's copy in a backup
 * group goes out in one write past the block cache: nothing reads a backup table back,
 * and caching the 15 copies of a 1 TiB filesystem cost mkfs more CPU (page faults, heap
 * trimming) than all its writes.
 */
static errcode_t write_backups(stalefs_fs *fs, const u8 *table, u32 from_group)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 where[3];
	errcode_t err = 0;
	u32 i, b, n, k;

	for (i = from_group ? from_group : 1; i < g->groups_count && !err; i++) {
		if (!stalefs_group_has_super(g, i))
			continue;
		if (stalefs_group_in_table(g, i))
			err = stalefs_io_write(fs->io, stalefs_gdt_block_loc(g, i, 0), g->first_meta_bg, table);
		if (!err)
			err = stalefs_write_super_copy(fs, i);
	}
	for (b = g->first_meta_bg; b < g->gdt_blocks && !err; b++) {
		n = stalefs_gdt_block_copies(g, b, where, 3);
		/* The primary of a block in a meta group counts as a backup for the groups from from_group. */
		for (k = from_group ? 0 : 1; k < n && !err; k++)
			if (stalefs_block_group(g, where[k]) >= from_group)
				err = stalefs_io_write(fs->io, where[k], 1, table + (size_t)b * g->block_size);
	}
	return err;
}

errcode_t stalefs_write_backups_from(stalefs_fs *fs, u32 first_group)
{
	u8 *table;
	errcode_t err;
	u32 i;

	for (i = 0; i < fs->geom.groups_count; i++)
		stalefs_desc_set_csum(fs->seed, i, &fs->groups[i].desc);
	table = build_gdt(fs);
	if (!table)
		return STALEFS_ERR_NO_MEMORY;
	err = write_backups(fs, table, first_group);
	free(table);
	return err;
}

errcode_t stalefs_set_geometry(stalefs_fs *fs, const struct stalefs_geom *ng)
{
	u32 i;

	/* Groups past the new end go, their bitmaps with them; new ones start empty. */
	for (i = ng->groups_count; i < fs->ngroups_alloc; i++) {
		free(fs->groups[i].block_bitmap);
		free(fs->groups[i].inode_bitmap);
		memset(&fs->groups[i], 0, sizeof(fs->groups[i]));
	}
	if (ng->groups_count > fs->ngroups_alloc) {
		fs->groups = stalefs_xrealloc(fs->groups, (size_t)ng->groups_count * sizeof(*fs->groups));
		memset(fs->groups + fs->ngroups_alloc, 0,
		       (size_t)(ng->groups_count - fs->ngroups_alloc) * sizeof(*fs->groups));
		fs->ngroups_alloc = ng->groups_count;
	}
	fs->geom = *ng;
	fs->sb_dirty = true;
	return 0;
}

/*
 * Bitmaps and descriptors into the block cache (the primary table, and with
 * write_backups every copy and the backup superblocks): what a flush writes
 * back, and what a journaled commit logs.  *changed: something was staged
 * that the superblock's summaries follow.
 */
errcode_t stalefs_stage_groups(stalefs_fs *fs, bool *changed)
{
	const struct stalefs_geom *g = &fs->geom;
	bool any_desc = false;
	errcode_t err;
	u32 i;

	err = stalefs_write_dirty_bitmaps(fs);
	if (err)
		return err;
	for (i = 0; i < g->groups_count; i++) {
		if (fs->groups[i].desc_dirty) {
			stalefs_desc_set_csum(fs->seed, i, &fs->groups[i].desc);
			any_desc = true;
		}
	}
	if (any_desc || fs->sb_dirty || fs->write_backups) {
		/* One copy of the table serves the primary and every backup. */
		u8 *table = build_gdt(fs);

		if (!table)
			return STALEFS_ERR_NO_MEMORY;
		err = write_gdt_primary(fs, fs->sb_block != 0, table);
		if (!err && fs->write_backups)
			err = write_backups(fs, table, 0);
		free(table);
		if (err)
			return err;
	}
	for (i = 0; i < g->groups_count; i++)
		fs->groups[i].desc_dirty = false;
	*changed = any_desc || fs->sb_dirty || fs->write_backups;
	return 0;
}

/* The primary superblock, in place, when something it summarises changed. */
errcode_t stalefs_write_super_if_dirty(stalefs_fs *fs, bool changed)
{
	errcode_t err = 0;

	if (fs->sb_dirty || changed) {
		fs->sb.s_wtime = cpu_to_le64((u64)time(NULL));
		err = stalefs_write_super_copy(fs, 0);
	}
	if (!err) {
		fs->sb_dirty = false;
		fs->write_backups = false;
		fs->sb_block = 0;
	}
	return err;
}

errcode_t stalefs_flush(stalefs_fs *fs)
{
	bool changed;
	errcode_t err;

	if (!(fs->flags & STALEFS_OPEN_RW))
		return 0;
	/* Journaled: everything goes through a transaction (txn.c). */
	if (fs->txn)
		return stalefs_txn_commit(fs);
	err = stalefs_stage_groups(fs, &changed);
	if (!err)
		err = stalefs_io_flush(fs->io);
	if (err)
		return err;
	if (fs->sb_dirty || changed) {
		err = stalefs_write_super_if_dirty(fs, changed);
		if (!err)
			err = stalefs_io_flush(fs->io);
	}
	return err;
}

void stalefs_free(stalefs_fs *fs)
{
	u32 i;

	if (!fs)
		return;
	stalefs_txn_free(fs);
	stalefs_dir_index_free(fs);
	if (fs->groups) {
		for (i = 0; i < fs->ngroups_alloc; i++) {
			free(fs->groups[i].block_bitmap);
			free(fs->groups[i].inode_bitmap);
		}
		free(fs->groups);
	}
	if (fs->io) {
		/* Dropping a writable fs without flush must not write: discard the cache. */
		stalefs_io_discard(fs->io);
		stalefs_io_close(fs->io);
	}
	free(fs->device_name);
	free(fs);
}

errcode_t stalefs_close(stalefs_fs *fs)
{
	errcode_t err = 0;

	if (!fs)
		return 0;
	if (fs->txn)
		err = stalefs_txn_stop(fs);
	if (!err && (fs->flags & STALEFS_OPEN_RW))
		err = stalefs_flush(fs);
	if (!err && fs->io) {
		err = stalefs_io_close(fs->io);
		fs->io = NULL;
	}
	stalefs_free(fs);
	return err;
}

errcode_t stalefs_read_block(stalefs_fs *fs, u64 block, void *buf)
{
	if (block >= fs->geom.blocks_count)
		return STALEFS_ERR_BAD_BLOCK_NUM;
	return stalefs_io_read(fs->io, block, 1, buf);
}

errcode_t stalefs_write_block(stalefs_fs *fs, u64 block, const void *buf)
{
	if (!(fs->flags & STALEFS_OPEN_RW))
		return STALEFS_ERR_RO_FILSYS;
	if (block == 0 || block >= fs->geom.blocks_count)
		return STALEFS_ERR_BAD_BLOCK_NUM;
	return stalefs_io_write(fs->io, block, 1, buf);
}

bool stalefs_block_valid(const stalefs_fs *fs, u64 block)
{
	return block > fs->geom.sb_block && block < fs->geom.blocks_count;
}
