// SPDX-License-Identifier: GPL-2.0
/*
 * Making a new filesystem.  Only group 0's own metadata, the superblock
 * copies and the descriptor tables are written: every other group starts
 * BLOCK_UNINIT | INODE_UNINIT with its whole inode table unused, so the cost
 * of mkfs does not grow with the device (FORMAT.md section 4).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "libstalefs.h"
#include "lib_internal.h"

#define MAX_GROUPS_TARGET 1024	/* bigger devices get bigger groups, not more of them */

static u32 ceil_pow2(u64 v)
{
	u32 r = 1;

	while (r < v && r < (1u << 31))
		r <<= 1;
	return r;
}

void stalefs_mkfs_defaults(struct stalefs_mkfs_params *p, u64 bytes, u32 block_size)
{
	memset(p, 0, sizeof(*p));
	p->block_size = block_size ? block_size : 4096;
	p->blocks_count = bytes / p->block_size;
	p->bytes_per_inode = 16384;
	p->reserved_percent = 5;
	p->stale_gid = STALEFS_STALE_GID_NONE;
	p->feature_compat = STALEFS_FEATURE_COMPAT_LAZY_ITABLE | STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
	p->feature_ro_compat = STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER | STALEFS_FEATURE_RO_COMPAT_XATTR;
	p->feature_incompat = STALEFS_FEATURE_INCOMPAT_REQUIRED;
	p->errors = STALEFS_ERRORS_CONTINUE;
	p->root_mode = 0755;
	stalefs_uuid_random(p->uuid);
}

static u32 log2_u32(u32 v)
{
	u32 r = 0;

	while (v >>= 1)
		r++;
	return r;
}

/* Where the journal goes (stalefs_journal_plan), recorded in the superblock. */
static errcode_t layout_journal(const struct stalefs_mkfs_params *p, struct stalefs_super_block *sb,
				const struct stalefs_geom *g)
{
	u32 blocks = p->journal_blocks;
	u64 start;
	errcode_t err;

	sb->s_feature_incompat = cpu_to_le32(le32_to_cpu(sb->s_feature_incompat) & ~STALEFS_FEATURE_INCOMPAT_RECOVER);
	if (!(p->feature_compat & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		return 0;
	if (!blocks) {
		/* The default: none at all on a filesystem too small for one, as mke2fs. */
		blocks = stalefs_journal_default_blocks(g);
		if (!blocks) {
			sb->s_feature_compat = cpu_to_le32(p->feature_compat & ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
			return 0;
		}
	}
	if (blocks < STALEFS_JOURNAL_MIN_BLOCKS)
		return STALEFS_ERR_JOURNAL_TOO_SMALL;
	if (blocks > stalefs_journal_max_blocks(g))
		return STALEFS_ERR_JOURNAL_NO_ROOM;
	err = stalefs_journal_plan(g, blocks, &start);
	if (err)
		return err;
	sb->s_journal_block = cpu_to_le64(start);
	sb->s_journal_blocks = cpu_to_le32(blocks);
	return 0;
}

errcode_t stalefs_mkfs_layout(const struct stalefs_mkfs_params *p, struct stalefs_super_block *sb,
			      struct stalefs_geom *g)
{
	u32 bs = p->block_size, bpg = p->blocks_per_group, ipb, ipg, groups, isz;
	u64 blocks = p->blocks_count;
	int rule;

	if (bs != 1024 && bs != 2048 && bs != 4096)
		return STALEFS_ERR_BAD_ARGUMENT;
	if (blocks >= STALEFS_MAX_BLOCKS)
		return STALEFS_ERR_FILE_TOO_BIG;
	if (!bpg) {
		bpg = 8 * bs;
		if (blocks / MAX_GROUPS_TARGET > bpg)
			bpg = ceil_pow2(blocks / MAX_GROUPS_TARGET);
		if (bpg > (1u << STALEFS_MAX_LOG_GROUP))
			bpg = 1u << STALEFS_MAX_LOG_GROUP;
		/* A small filesystem is one group, not one big group of mostly nothing. */
		if (bpg > blocks && blocks >= STALEFS_MIN_BLOCKS_PER_GROUP)
			bpg = ceil_pow2(blocks) >= STALEFS_MIN_BLOCKS_PER_GROUP ? ceil_pow2(blocks) : bpg;
	}
	isz = p->inode_size ? p->inode_size : STALEFS_INODE_SIZE;
	if (!stalefs_inode_size_valid(isz, bs))
		return STALEFS_ERR_BAD_ARGUMENT;
	ipb = bs / isz;
	for (int attempt = 0; attempt < 2; attempt++) {
		groups = (u32)((blocks + bpg - 1) / bpg);
		if (groups == 0)
			return STALEFS_ERR_DEVICE_TOO_SMALL;
		if (p->inodes_count)
			ipg = (u32)(((u64)p->inodes_count + groups - 1) / groups);
		else
			ipg = (u32)((u64)bpg * bs / (p->bytes_per_inode ? p->bytes_per_inode : 16384));
		/* Room for the reserved inodes and lost+found in group 0. */
		if (ipg < 16)
			ipg = 16;
		ipg = (ipg + ipb - 1) / ipb * ipb;
		if ((u64)ipg * groups > 0xFFFFFFFFULL)
			ipg = (u32)(0xFFFFFFFFULL / groups / ipb * ipb);
		rule = stalefs_geom_init(g, log2_u32(bs), blocks, bpg, ipg, isz,
					 p->feature_ro_compat & STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER);
		if (rule == STALEFS_R_SB_BLOCKS_COUNT && attempt == 0 && groups > 1) {
			/* The last group cannot hold its own metadata: leave it off, as mke2fs does. */
			blocks = (u64)(groups - 1) * bpg;
			continue;
		}
		break;
	}
	if (rule == STALEFS_R_SB_INODES_PER_GROUP || rule == STALEFS_R_SB_BLOCKS_COUNT)
		return STALEFS_ERR_DEVICE_TOO_SMALL;
	if (rule)
		return STALEFS_ERR_BAD_ARGUMENT;
	/* Group 0 must hold root, lost+found and a few blocks to grow. */
	if (stalefs_group_nblocks(g, 0) < stalefs_group_meta_blocks(g, 0) + 8)
		return STALEFS_ERR_DEVICE_TOO_SMALL;

	memset(sb, 0, sizeof(*sb));
	sb->s_magic = cpu_to_le32(STALEFS_SUPER_MAGIC);
	sb->s_rev_level = cpu_to_le32(1);
	sb->s_log_block_size = cpu_to_le32(g->log_block_size - 10);
	sb->s_blocks_count = cpu_to_le64(g->blocks_count);
	sb->s_r_blocks_count = cpu_to_le64(g->blocks_count * p->reserved_percent / 100);
	sb->s_inodes_count = cpu_to_le32(g->inodes_count);
	sb->s_blocks_per_group = cpu_to_le32(g->blocks_per_group);
	sb->s_inodes_per_group = cpu_to_le32(g->inodes_per_group);
	sb->s_groups_count = cpu_to_le32(g->groups_count);
	sb->s_inode_size = cpu_to_le16((u16)isz);
	sb->s_desc_size = cpu_to_le16(STALEFS_DESC_SIZE);
	sb->s_feature_compat = cpu_to_le32(p->feature_compat);
	sb->s_feature_ro_compat = cpu_to_le32(p->feature_ro_compat);
	sb->s_feature_incompat = cpu_to_le32(p->feature_incompat);
	sb->s_first_ino = cpu_to_le32(STALEFS_FIRST_INO);
	sb->s_stale_gid = cpu_to_le32(p->stale_gid);
	if (p->stale_gid != STALEFS_STALE_GID_NONE)
		sb->s_feature_ro_compat = cpu_to_le32(p->feature_ro_compat | STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE);
	memcpy(sb->s_uuid, p->uuid, 16);
	sb->s_csum_seed = cpu_to_le32(stalefs_csum_seed_from_uuid(p->uuid));
	memcpy(sb->s_volume_name, p->label, sizeof(sb->s_volume_name));
	sb->s_state = cpu_to_le16(STALEFS_STATE_CLEAN);
	sb->s_errors = cpu_to_le16(p->errors);
	sb->s_mkfs_time = sb->s_wtime = sb->s_lastcheck = cpu_to_le64((u64)time(NULL));
	sb->s_gdt_blocks = cpu_to_le32(g->gdt_blocks);
	return layout_journal(p, sb, g);
}

/* Descriptors for every group: group 0 initialised below, the rest uninitialised. */
static void make_descs(stalefs_fs *fs)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 free_blocks = 0;
	u32 i;

	for (i = 0; i < g->groups_count; i++) {
		struct stalefs_group_desc *d = &fs->groups[i].desc;

		stalefs_desc_init_new(g, i, true, fs->seed, d);
		fs->groups[i].desc_dirty = true;
		free_blocks += le32_to_cpu(d->bg_free_blocks_count);
	}
	fs->sb.s_free_blocks_count = cpu_to_le64(free_blocks);
	fs->sb.s_free_inodes_count = cpu_to_le32(g->inodes_count);
}

/* Reserve inodes 1..10 in group 0 and initialise their slots. */
static errcode_t reserve_inodes(stalefs_fs *fs)
{
	struct stalefs_group_desc *d = &fs->groups[0].desc;
	struct stalefs_inode zero;
	u32 ino;
	errcode_t err;

	memset(&zero, 0, sizeof(zero));
	d->bg_itable_unused = cpu_to_le32(fs->geom.inodes_per_group - (STALEFS_FIRST_INO - 1));
	for (ino = 1; ino < STALEFS_FIRST_INO; ino++) {
		err = stalefs_write_inode_raw(fs, ino, &zero);
		if (err)
			return err;
		stalefs_mark_inode(fs, ino);
	}
	d->bg_free_inodes_count = cpu_to_le32(fs->geom.inodes_per_group - (STALEFS_FIRST_INO - 1));
	fs->sb.s_free_inodes_count = cpu_to_le32(fs->geom.inodes_count - (STALEFS_FIRST_INO - 1));
	return 0;
}

static errcode_t make_root_and_lpf(stalefs_fs *fs, const struct stalefs_mkfs_params *p)
{
	struct stalefs_inode root;
	struct stalefs_group_desc *d = &fs->groups[0].desc;
	u32 lpf;
	errcode_t err;

	stalefs_inode_init(fs, STALEFS_ROOT_INO, &root, STALEFS_S_IFDIR | (p->root_mode & 07777),
			   p->root_uid, p->root_gid);
	root.i_links_count = cpu_to_le16(2);
	err = stalefs_dir_init(fs, STALEFS_ROOT_INO, &root, STALEFS_ROOT_INO);
	if (!err)
		err = stalefs_write_inode(fs, STALEFS_ROOT_INO, &root);
	if (err)
		return err;
	d->bg_used_dirs_count = cpu_to_le32(le32_to_cpu(d->bg_used_dirs_count) + 1);
	err = stalefs_mkdir(fs, STALEFS_ROOT_INO, "lost+found", 0700, 0, 0, &lpf);
	if (err)
		return err;
	fs->sb.s_lpf_ino = cpu_to_le32(lpf);
	return 0;
}

static errcode_t zero_itables(stalefs_fs *fs)
{
	const struct stalefs_geom *g = &fs->geom;
	errcode_t err;
	u32 i;

	for (i = 0; i < g->groups_count; i++) {
		struct stalefs_group_desc *d = &fs->groups[i].desc;

		err = stalefs_io_zero(fs->io, le64_to_cpu(d->bg_inode_table), g->inode_table_blocks);
		if (err)
			return err;
		if (i > 0)
			d->bg_itable_unused = 0;
	}
	return 0;
}

errcode_t stalefs_mkfs(const char *device, const struct stalefs_mkfs_params *p, stalefs_fs **ret)
{
	stalefs_fs *fs;
	errcode_t err;
	u64 dev_bytes;

	fs = stalefs_xcalloc(1, sizeof(*fs));
	fs->flags = STALEFS_OPEN_RW;
	fs->device_name = strdup(device);
	err = stalefs_mkfs_layout(p, &fs->sb, &fs->geom);
	if (err)
		goto fail;
	err = stalefs_io_open(device, true, true, &fs->io);
	if (err)
		goto fail;
	err = stalefs_io_size(fs->io, &dev_bytes);
	if (!err && dev_bytes / p->block_size < fs->geom.blocks_count)
		err = STALEFS_ERR_DEVICE_TOO_SMALL;
	if (err)
		goto fail;
	fs->block_size = fs->geom.block_size;
	fs->seed = le32_to_cpu(fs->sb.s_csum_seed);
	stalefs_io_set_block_size(fs->io, fs->block_size);
	fs->groups = stalefs_xcalloc(fs->geom.groups_count, sizeof(*fs->groups));
	fs->ngroups_alloc = fs->geom.groups_count;
	make_descs(fs);
	fs->bitmaps_loaded = true;	/* all uninitialised: made up in memory on use */
	if (p->zero_itables) {
		err = zero_itables(fs);
		if (err)
			goto fail;
	}
	/* The journal first, where the layout planned it: right after the inode table of
	 * its group, ahead of the root and lost+found when that group is group 0. */
	if (le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) {
		u64 start = le64_to_cpu(fs->sb.s_journal_block);
		u32 blocks = le32_to_cpu(fs->sb.s_journal_blocks);

		fs->sb.s_feature_compat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_compat) &
						      ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
		fs->sb.s_journal_block = 0;
		fs->sb.s_journal_blocks = 0;
		err = stalefs_journal_create(fs, start, blocks);
		if (err)
			goto fail;
	}
	err = reserve_inodes(fs);
	if (!err)
		err = make_root_and_lpf(fs, p);
	if (err)
		goto fail;
	fs->write_backups = true;
	fs->sb_dirty = true;
	err = stalefs_flush(fs);
	if (err)
		goto fail;
	*ret = fs;
	return 0;
fail:
	if (fs->io)
		stalefs_io_discard(fs->io);
	stalefs_free(fs);
	return err;
}
