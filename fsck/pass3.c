// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 3: every directory must be reachable from the root.  Each directory
 * walks up its parents (found in pass 2) until it meets the root or a
 * directory already known connected; a walk that meets itself is a loop, one
 * that runs out of parents is disconnected.  Both go to /lost+found (created
 * when missing), and then every '..' is set to the parent that names it.
 */
#include <stdio.h>
#include <stdlib.h>
#include "fsck.h"

static bool read_dir_block0(struct fsck_ctx *ctx, struct dir_info *di)
{
	if (!di->blk0 || stalefs_read_block(ctx->fs, di->blk0, ctx->buf))
		return false;
	return le32_to_cpu(((struct stalefs_dir_block *)ctx->buf)->db_magic) == STALEFS_DIRBLK_MAGIC;
}

/* Point the second entry of the directory's first block ('..') at parent. */
bool fix_dotdot(struct fsck_ctx *ctx, struct dir_info *di, u32 parent)
{
	u32 bs = ctx->fs->block_size, off = sizeof(struct stalefs_dir_block), first;
	struct stalefs_dir_entry *de;
	errcode_t err;

	if (!read_dir_block0(ctx, di))
		return false;
	first = le16_to_cpu(((struct stalefs_dir_entry *)(ctx->buf + off))->rec_len);
	if (first < 8 || off + first + 8 > bs)
		return false;
	de = (void *)(ctx->buf + off + first);
	if (le16_to_cpu(de->rec_len) < STALEFS_DIR_REC_LEN(2) || off + first + le16_to_cpu(de->rec_len) > bs)
		return false;
	/* Never write over a real entry: it may have been placed in '..''s room since. */
	if (de->inode && !(de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.')) {
		struct stalefs_dir_entry *dot = (void *)(ctx->buf + off);

		if (first < STALEFS_DIR_REC_LEN(1) + STALEFS_DIR_REC_LEN(2))
			return false;
		dot->rec_len = cpu_to_le16(STALEFS_DIR_REC_LEN(1));
		de = (void *)(ctx->buf + off + STALEFS_DIR_REC_LEN(1));
		de->rec_len = cpu_to_le16((u16)(first - STALEFS_DIR_REC_LEN(1)));
	}
	de->inode = cpu_to_le32(parent);
	de->name_len = 2;
	de->file_type = STALEFS_FT_DIR;
	de->name[0] = '.';
	de->name[1] = '.';
	stalefs_dirblock_set_csum(ctx->fs->seed, ctx->buf, bs);
	err = stalefs_write_block(ctx->fs, di->blk0, ctx->buf);
	if (err) {
		fsck_library_error(ctx, err, "while writing '..'");
		return false;
	}
	di->dotdot = parent;
	return true;
}

static void create_root(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_inode inode;
	struct dir_info *di;
	errcode_t err;
	u64 pblk;
	u16 flags;

	stalefs_inode_init(fs, STALEFS_ROOT_INO, &inode, STALEFS_S_IFDIR | 0755, 0, 0);
	inode.i_links_count = cpu_to_le16(2);
	err = stalefs_dir_init(fs, STALEFS_ROOT_INO, &inode, STALEFS_ROOT_INO);
	if (!err)
		err = stalefs_write_inode(fs, STALEFS_ROOT_INO, &inode);
	if (err) {
		fsck_library_error(ctx, err, "while creating the root directory");
		return;
	}
	/* Not allocated through the library, which zeroes a new inode's xattr area: a new
	 * root must not take the attributes of the slot's old life. */
	xattr_ibody_write(ctx, STALEFS_ROOT_INO, NULL);
	stalefs_mark_inode(fs, STALEFS_ROOT_INO);
	note_inode_created(ctx, STALEFS_ROOT_INO, STALEFS_S_IFDIR, 2);
	inode_count_ref(ctx, STALEFS_ROOT_INO, 1);	/* its '.' */
	di = dir_add(ctx, STALEFS_ROOT_INO);
	di->parent = STALEFS_ROOT_INO;
	di->dotdot = STALEFS_ROOT_INO;
	di->done = true;
	if (stalefs_bmap(fs, STALEFS_ROOT_INO, 0, &pblk, &flags) == 0)
		di->blk0 = pblk;
}

/* Look up (and with create, make) /lost+found; 0 if there is none. */
u32 get_lost_and_found(struct fsck_ctx *ctx, bool create)
{
	stalefs_fs *fs = ctx->fs;
	struct problem_ctx p;
	struct dir_info *di;
	u32 ino = 0;
	errcode_t err;
	bool changed;
	u64 pblk;
	u16 flags;

	if (ctx->lpf_ino)
		return ctx->lpf_ino == ~0u ? 0 : ctx->lpf_ino;
	memset(&p, 0, sizeof(p));
	if (inode_ft(ctx, STALEFS_ROOT_INO) == STALEFS_FT_DIR &&
	    stalefs_lookup(fs, STALEFS_ROOT_INO, "lost+found", 10, &ino) == 0) {
		if (inode_ft(ctx, ino) == STALEFS_FT_DIR) {
			ctx->lpf_ino = ino;
			if (le32_to_cpu(fs->sb.s_lpf_ino) != ino) {
				p.ino = ino;
				p.num = le32_to_cpu(fs->sb.s_lpf_ino);
				if (fix_problem(ctx, PR_3_LPF_SB, &p)) {
					fs->sb.s_lpf_ino = cpu_to_le32(ino);
					stalefs_mark_super_dirty(fs);
				}
			}
			return ino;
		}
		p.ino = ino;
		if (!fix_problem(ctx, PR_3_LPF_NOT_DIR, &p)) {
			ctx->lpf_ino = ~0u;
			return 0;
		}
		err = stalefs_unlink(fs, STALEFS_ROOT_INO, "lost+found", NULL);
		if (err) {
			fsck_library_error(ctx, err, "while unlinking /lost+found");
			ctx->lpf_ino = ~0u;
			return 0;
		}
		inode_count_ref(ctx, ino, -1);
	}
	if (!create)
		return 0;
	changed = ctx->changed;
	if (!fix_problem(ctx, PR_3_NO_LPF, &p)) {
		ctx->lpf_ino = ~0u;
		return 0;
	}
	err = stalefs_mkdir(fs, STALEFS_ROOT_INO, "lost+found", 0700, 0, 0, &ino);
	if (err) {
		p.str = error_message(err);
		fix_problem(ctx, PR_3_CREATE_FAILED, &p);
		/* The yes changed nothing: the run is not "modified" because of it. */
		ctx->changed = changed;
		ctx->uncorrected = true;
		ctx->lpf_ino = ~0u;
		return 0;
	}
	note_inode_created(ctx, ino, STALEFS_S_IFDIR, 2);
	inode_count_ref(ctx, ino, 1);	/* the entry in / */
	inode_count_ref(ctx, ino, 1);	/* its '.' */
	(*inode_links_ptr(ctx, STALEFS_ROOT_INO))++;	/* the library counted its '..' on disk */
	di = dir_add(ctx, ino);
	di->parent = STALEFS_ROOT_INO;
	di->dotdot = STALEFS_ROOT_INO;
	di->done = true;
	if (ctx->dotdot_counted)
		inode_count_ref(ctx, STALEFS_ROOT_INO, 1);
	if (stalefs_bmap(fs, ino, 0, &pblk, &flags) == 0)
		di->blk0 = pblk;
	fs->sb.s_lpf_ino = cpu_to_le32(ino);
	stalefs_mark_super_dirty(fs);
	ctx->lpf_ino = ino;
	return ino;
}

/*
 * Link ino into /lost+found as #ino.  changed is ctx->changed from before the
 * question whose yes asked for this: with no /lost+found that yes changed nothing.
 */
bool reconnect_file(struct fsck_ctx *ctx, u32 ino, bool changed)
{
	u32 lpf = get_lost_and_found(ctx, true);
	char name[16];
	struct problem_ctx p;
	errcode_t err;

	if (!lpf) {
		memset(&p, 0, sizeof(p));
		p.ino = ino;
		fix_problem(ctx, PR_3_NO_LPF_RECONNECT, &p);
		ctx->uncorrected = true;
		ctx->changed = changed;
		return false;
	}
	snprintf(name, sizeof(name), "#%u", ino);
	err = stalefs_link(ctx->fs, lpf, name, ino, inode_ft(ctx, ino));
	if (err) {
		fsck_library_error(ctx, err, "while linking into /lost+found");
		return false;
	}
	inode_count_ref(ctx, ino, 1);
	return true;
}

static bool is_dot_or_dotdot(const struct stalefs_dir_entry *de)
{
	return de->name[0] == '.' && (de->name_len == 1 || (de->name_len == 2 && de->name[1] == '.'));
}

/* Remove the entry naming child from dir (a directory loop is broken there; never '.' or '..'). */
static void unlink_child(struct fsck_ctx *ctx, u32 dir, u32 child)
{
	u32 bs = ctx->fs->block_size, i;

	for (i = 0; i < ctx->ndb; i++) {
		struct dir_block *db = &ctx->dblist[i];
		u32 off = sizeof(struct stalefs_dir_block);

		if (db->ino != dir || stalefs_read_block(ctx->fs, db->pblk, ctx->buf))
			continue;
		while (off + 8 <= bs) {
			struct stalefs_dir_entry *de = (void *)(ctx->buf + off);
			u32 rec = le16_to_cpu(de->rec_len);

			if (rec < 8 || off + rec > bs)
				break;
			if (le32_to_cpu(de->inode) == child && !is_dot_or_dotdot(de)) {
				de->inode = 0;
				stalefs_dirblock_set_csum(ctx->fs->seed, ctx->buf, bs);
				if (stalefs_write_block(ctx->fs, db->pblk, ctx->buf) == 0)
					inode_count_ref(ctx, child, -1);
				return;
			}
			off += rec;
		}
	}
}

static void connect_dir(struct fsck_ctx *ctx, struct dir_info *di, bool loop)
{
	struct problem_ctx p;
	bool changed;

	memset(&p, 0, sizeof(p));
	p.ino = di->ino;
	p.ino2 = loop ? di->parent : di->dotdot;
	changed = ctx->changed;
	if (!fix_problem(ctx, loop ? PR_3_DIR_LOOP : PR_3_UNCONNECTED_DIR, &p))
		return;
	if (loop) {
		unlink_child(ctx, di->parent, di->ino);
		changed = true;
	}
	if (reconnect_file(ctx, di->ino, changed)) {
		di = dir_find(ctx, p.ino);	/* the list may have grown */
		di->parent = ctx->lpf_ino;
	}
}

static void check_connectivity(struct fsck_ctx *ctx)
{
	u32 i, stamp = 0;

	for (i = 0; i < ctx->ndirs; i++) {
		u32 ino = ctx->dirs[i].ino;
		struct dir_info *di;

		if (ctx->dirs[i].done)
			continue;
		fsck_check_cancel(ctx);
		stamp++;
		di = &ctx->dirs[i];
		for (;;) {
			struct dir_info *up;

			if (di->ino == STALEFS_ROOT_INO || di->done)
				break;
			if (di->stamp == stamp) {
				connect_dir(ctx, di, true);
				break;
			}
			di->stamp = stamp;
			up = di->parent ? dir_find(ctx, di->parent) : NULL;
			if (!up) {
				connect_dir(ctx, di, false);
				break;
			}
			di = up;
		}
		/* Everything on this walk is settled now (connected, reconnected, or refused). */
		di = dir_find(ctx, ino);
		while (di && !di->done && di->stamp == stamp) {
			di->done = true;
			di = di->parent ? dir_find(ctx, di->parent) : NULL;
		}
	}
}

void pass3(struct fsck_ctx *ctx)
{
	struct problem_ctx p;
	u32 i;

	pass_header(ctx, PR_3_PASS_HEADER);
	memset(&p, 0, sizeof(p));
	if (inode_ft(ctx, STALEFS_ROOT_INO) != STALEFS_FT_DIR) {
		if (fix_problem(ctx, PR_3_NO_ROOT, &p))
			create_root(ctx);
	}
	{
		struct dir_info *root = dir_find(ctx, STALEFS_ROOT_INO);

		if (root)
			root->done = true;
	}
	check_connectivity(ctx);
	/* lost+found exists even when nothing had to go there. */
	if (inode_ft(ctx, STALEFS_ROOT_INO) == STALEFS_FT_DIR)
		get_lost_and_found(ctx, true);
	for (i = 0; i < ctx->ndirs; i++) {
		struct dir_info *di = &ctx->dirs[i];
		u32 want = di->ino == STALEFS_ROOT_INO ? STALEFS_ROOT_INO : di->parent;

		if (!want)
			continue;
		if (di->dotdot != want) {
			memset(&p, 0, sizeof(p));
			p.ino = di->ino;
			p.ino2 = di->dotdot;
			p.num = want;
			if (fix_problem(ctx, PR_3_BAD_DOTDOT, &p))
				fix_dotdot(ctx, di, want);
		}
		if (di->dotdot && inode_ft(ctx, di->dotdot) == STALEFS_FT_DIR)
			inode_count_ref(ctx, di->dotdot, 1);
	}
	ctx->dotdot_counted = true;
}
