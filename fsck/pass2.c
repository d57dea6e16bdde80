// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 2: every directory block, in disk order (the list pass 1 built), read
 * in runs and uncached.  Each block: header (magic, its own block, owner,
 * logical block), entry chain, names, '.' and '..', the inode each entry
 * names (in range, not reserved, in use, file type matching its mode), a
 * directory named twice, and the checksum.  Entries are counted for pass 4;
 * each directory's parent (the first entry naming it) and '..' are recorded
 * for pass 3.
 */
#include <stdlib.h>
#include "fsck.h"

#define RUN_BLOCKS 16

void dirblock_init(struct fsck_ctx *ctx, u8 *buf, u64 pblk, u32 owner, u32 lblk, u32 parent)
{
	u32 bs = ctx->fs->block_size, hdr = sizeof(struct stalefs_dir_block), off = hdr;
	struct stalefs_dir_block *db = (void *)buf;
	struct stalefs_dir_entry *de;

	memset(buf, 0, bs);
	db->db_magic = cpu_to_le32(STALEFS_DIRBLK_MAGIC);
	db->db_blocknr = cpu_to_le64(pblk);
	db->db_owner = cpu_to_le32(owner);
	db->db_lblk = cpu_to_le32(lblk);
	if (lblk == 0) {
		de = (void *)(buf + off);
		de->inode = cpu_to_le32(owner);
		de->rec_len = cpu_to_le16(STALEFS_DIR_REC_LEN(1));
		de->name_len = 1;
		de->file_type = STALEFS_FT_DIR;
		de->name[0] = '.';
		off += STALEFS_DIR_REC_LEN(1);
		de = (void *)(buf + off);
		de->inode = cpu_to_le32(parent);
		de->rec_len = cpu_to_le16((u16)(bs - off));
		de->name_len = 2;
		de->file_type = STALEFS_FT_DIR;
		de->name[0] = '.';
		de->name[1] = '.';
		return;
	}
	de = (void *)(buf + off);
	de->rec_len = cpu_to_le16((u16)(bs - off));
}

static int cmp_pblk(const void *a, const void *b)
{
	const struct dir_block *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

static bool is_name(const struct stalefs_dir_entry *de, const char *name)
{
	size_t len = strlen(name);

	return de->name_len == len && memcmp(de->name, name, len) == 0;
}

struct block_state {
	struct fsck_ctx *ctx;
	u8 *buf;
	u64 pblk;
	u32 dir, lblk;
	bool dirty;
	bool dotdot_made;	/* '..' was carved out of '.': it needs no check */
	bool dotdot_wanted;	/* a missing '..' is to be made, once there is room */
};

static void entry_ctx(struct block_state *b, const struct stalefs_dir_entry *de, struct problem_ctx *p)
{
	memset(p, 0, sizeof(*p));
	p->ino = b->dir;
	p->ino2 = le32_to_cpu(de->inode);
	p->lblk = b->lblk;
	p->blk = b->pblk;
	p->name = de->name;
	p->name_len = de->name_len;
}

static void clear_entry(struct block_state *b, struct stalefs_dir_entry *de)
{
	de->inode = 0;
	b->dirty = true;
}

/* '.' as the first entry of block 0 (overwriting what is there when it must). */
static void check_dot(struct block_state *b, struct stalefs_dir_entry *de)
{
	struct problem_ctx p;

	entry_ctx(b, de, &p);
	if (!de->inode || !is_name(de, ".") || le16_to_cpu(de->rec_len) < STALEFS_DIR_REC_LEN(1)) {
		if (!fix_problem(b->ctx, PR_2_MISSING_DOT, &p))
			return;
		/* The entry that was here is lost; its inode shows up unattached in pass 4. */
		de->inode = cpu_to_le32(b->dir);
		de->name_len = 1;
		de->file_type = STALEFS_FT_DIR;
		de->name[0] = '.';
		b->dirty = true;
	} else if (le32_to_cpu(de->inode) != b->dir) {
		if (!fix_problem(b->ctx, PR_2_BAD_DOT, &p))
			return;
		de->inode = cpu_to_le32(b->dir);
		b->dirty = true;
	}
	if (de->file_type != STALEFS_FT_DIR) {
		de->file_type = STALEFS_FT_DIR;
		b->dirty = true;
	}
	inode_count_ref(b->ctx, b->dir, 1);
}

/*
 * '..' as the second entry of block 0.  A missing one is made from the room
 * after '.', or written over the second entry; it names the root until pass 3
 * knows the parent.
 */
static struct stalefs_dir_entry *check_dotdot(struct block_state *b, struct stalefs_dir_entry *dot,
					      struct stalefs_dir_entry *de)
{
	struct problem_ctx p;
	struct dir_info *di = dir_find(b->ctx, b->dir);
	u32 bs = b->ctx->fs->block_size;

	memset(&p, 0, sizeof(p));
	p.ino = b->dir;
	if (de && de->inode && is_name(de, "..")) {
		if (di)
			di->dotdot = le32_to_cpu(de->inode);
		if (de->file_type != STALEFS_FT_DIR) {
			de->file_type = STALEFS_FT_DIR;
			b->dirty = true;
		}
		return de;
	}
	/* Asked once: a retry after the rest of the block is salvaged does not ask again. */
	if (!b->dotdot_wanted && !fix_problem(b->ctx, PR_2_MISSING_DOTDOT, &p))
		return de;
	b->dotdot_wanted = true;
	if (le16_to_cpu(dot->rec_len) >= STALEFS_DIR_REC_LEN(1) + STALEFS_DIR_REC_LEN(2)) {
		u32 rest = le16_to_cpu(dot->rec_len) - STALEFS_DIR_REC_LEN(1);

		dot->rec_len = cpu_to_le16(STALEFS_DIR_REC_LEN(1));
		de = (void *)((u8 *)dot + STALEFS_DIR_REC_LEN(1));
		de->rec_len = cpu_to_le16((u16)rest);
	} else if (!de || le16_to_cpu(de->rec_len) < STALEFS_DIR_REC_LEN(2)) {
		return de;
	}
	(void)bs;
	/*
	 * The root until pass 3 knows the parent: an entry with inode 0 would be
	 * free space to the library, and a new name could land on it.
	 */
	de->inode = cpu_to_le32(STALEFS_ROOT_INO);
	de->name_len = 2;
	de->file_type = STALEFS_FT_DIR;
	de->name[0] = '.';
	de->name[1] = '.';
	b->dirty = true;
	b->dotdot_wanted = false;
	if (di)
		di->dotdot = STALEFS_ROOT_INO;
	return de;
}

static bool name_has_bad_chars(const struct stalefs_dir_entry *de)
{
	u32 i;

	for (i = 0; i < de->name_len; i++)
		if (de->name[i] == '/' || de->name[i] == '\0')
			return true;
	return false;
}

static void check_entry(struct block_state *b, struct stalefs_dir_entry *de)
{
	struct fsck_ctx *ctx = b->ctx;
	u32 ino = le32_to_cpu(de->inode);
	struct problem_ctx p;
	u8 ft;

	entry_ctx(b, de, &p);
	if (name_has_bad_chars(de)) {
		if (fix_problem(ctx, PR_2_NAME_CHARS, &p)) {
			u32 i;

			for (i = 0; i < de->name_len; i++)
				if (de->name[i] == '/' || de->name[i] == '\0')
					de->name[i] = '.';
			b->dirty = true;
		}
	}
	/* After the name fix: a name of NULs or slashes may have become '.' or '..'. */
	if (is_name(de, ".") || is_name(de, "..")) {
		if (fix_problem(ctx, PR_2_DUP_DOT, &p))
			clear_entry(b, de);
		return;
	}
	if (ino > ctx->fs->geom.inodes_count) {
		if (fix_problem(ctx, PR_2_BAD_INO, &p))
			clear_entry(b, de);
		return;
	}
	if (ino < STALEFS_FIRST_INO && ino != STALEFS_ROOT_INO) {
		if (fix_problem(ctx, PR_2_RESERVED_INO, &p))
			clear_entry(b, de);
		return;
	}
	if (ino == b->dir) {
		/* Only '.' may name the directory itself: anything else is a loop. */
		if (fix_problem(ctx, PR_2_LINK_DOT, &p))
			clear_entry(b, de);
		return;
	}
	ft = inode_ft(ctx, ino);
	if (ft == 0 || ft == FT_RESERVED) {
		if (fix_problem(ctx, PR_2_UNUSED_INO, &p))
			clear_entry(b, de);
		return;
	}
	if (de->file_type != ft) {
		p.num = de->file_type;
		p.num2 = ft;
		if (fix_problem(ctx, PR_2_FILE_TYPE, &p)) {
			de->file_type = ft;
			b->dirty = true;
		}
	}
	if (ft == STALEFS_FT_DIR) {
		struct dir_info *di = dir_find(ctx, ino);

		if (di && di->parent) {
			p.num = di->parent;
			if (fix_problem(ctx, PR_2_LINK_DIR, &p)) {
				clear_entry(b, de);
				return;
			}
		} else if (di) {
			di->parent = b->dir;
		}
	}
	inode_count_ref(ctx, ino, 1);
}

/* Cut the chain at off: the rest of the block joins the entry before (or becomes one empty entry). */
static void salvage_at(struct block_state *b, u32 prev, u32 off)
{
	u32 bs = b->ctx->fs->block_size;

	if (prev) {
		struct stalefs_dir_entry *pde = (void *)(b->buf + prev);

		pde->rec_len = cpu_to_le16((u16)(bs - prev));
	} else {
		struct stalefs_dir_entry *de = (void *)(b->buf + off);

		de->inode = 0;
		de->rec_len = cpu_to_le16((u16)(bs - off));
	}
	b->dirty = true;
}

static void check_header(struct block_state *b, bool *usable, bool *fresh)
{
	struct fsck_ctx *ctx = b->ctx;
	struct stalefs_dir_block *db = (void *)b->buf;
	struct problem_ctx p;
	int rule = 0;

	*usable = true;
	*fresh = false;
	memset(&p, 0, sizeof(p));
	p.ino = b->dir;
	p.lblk = b->lblk;
	p.blk = b->pblk;
	if (le32_to_cpu(db->db_magic) != STALEFS_DIRBLK_MAGIC) {
		p.rule = STALEFS_R_DIR_MAGIC;
		if (fix_problem(ctx, PR_2_BLOCK_HEADER, &p)) {
			struct dir_info *di = dir_find(ctx, b->dir);

			dirblock_init(ctx, b->buf, b->pblk, b->dir, b->lblk, STALEFS_ROOT_INO);
			if (b->lblk == 0 && di)
				di->dotdot = STALEFS_ROOT_INO;	/* pass 3 points '..' at the parent */
			b->dirty = true;
			*fresh = true;
		} else {
			*usable = false;
		}
		return;
	}
	if (le64_to_cpu(db->db_blocknr) != b->pblk)
		rule = STALEFS_R_DIR_BLOCKNR;
	else if (le32_to_cpu(db->db_owner) != b->dir)
		rule = STALEFS_R_DIR_OWNER;
	else if (le32_to_cpu(db->db_lblk) != b->lblk)
		rule = STALEFS_R_DIR_LBLK;
	if (rule) {
		p.rule = rule;
		if (fix_problem(ctx, PR_2_BLOCK_ID, &p)) {
			db->db_blocknr = cpu_to_le64(b->pblk);
			db->db_owner = cpu_to_le32(b->dir);
			db->db_lblk = cpu_to_le32(b->lblk);
			b->dirty = true;
		}
	}
}

static void check_block(struct fsck_ctx *ctx, u8 *buf, const struct dir_block *dbe)
{
	struct block_state b = { ctx, buf, dbe->pblk, dbe->ino, dbe->lblk, false, false, false };
	u32 bs = ctx->fs->block_size, off = sizeof(struct stalefs_dir_block), prev = 0, index = 0;
	struct stalefs_dir_entry *dot = NULL;
	bool usable, fresh, seen_dotdot = false;
	struct problem_ctx p;

	check_header(&b, &usable, &fresh);
	if (!usable)
		return;
	if (fresh) {
		/* Made empty just now: only its '.' to count. */
		if (b.lblk == 0)
			inode_count_ref(ctx, b.dir, 1);
		off = bs;
	}
	while (off < bs) {
		struct stalefs_dir_entry *de = (void *)(buf + off);
		u32 rec_len = bs - off >= sizeof(*de) ? le16_to_cpu(de->rec_len) : 0;
		int rule = stalefs_verify_dirent_fit(buf, bs, off);

		memset(&p, 0, sizeof(p));
		p.ino = b.dir;
		p.lblk = b.lblk;
		p.num = off;
		p.num2 = rec_len;
		if (rule == STALEFS_R_DIR_REC_LEN) {
			if (fix_problem(ctx, PR_2_REC_LEN, &p)) {
				if (b.lblk == 0 && index == 0) {
					/* Nothing before it, not even '.': the block starts over. */
					struct dir_info *di = dir_find(ctx, b.dir);

					dirblock_init(ctx, buf, b.pblk, b.dir, 0, STALEFS_ROOT_INO);
					if (di)
						di->dotdot = STALEFS_ROOT_INO;
					inode_count_ref(ctx, b.dir, 1);
					b.dirty = true;
					fresh = true;
				} else {
					salvage_at(&b, prev, off);
				}
			}
			break;
		}
		if (rule == STALEFS_R_DIR_NAME_LEN) {
			p.num2 = de->name_len;
			if (fix_problem(ctx, PR_2_NAME_LEN, &p))
				clear_entry(&b, de);
		}
		if (b.lblk == 0 && index == 0) {
			check_dot(&b, de);
			dot = de;
		} else if (b.lblk == 0 && index == 1 && b.dotdot_made) {
			/* made just above */
		} else if (b.lblk == 0 && index == 1 && dot) {
			struct stalefs_dir_entry *dd = check_dotdot(&b, dot, de);

			seen_dotdot = true;

			if (dd != de) {
				/* '..' was carved out of '.''s room: de is now the entry after it. */
				off = (u32)((u8 *)dd - buf);
				de = dd;
			}
		} else if (de->inode) {
			check_entry(&b, de);
		}
		if (b.lblk == 0 && index == 0 && le16_to_cpu(de->rec_len) + off >= bs) {
			/* Only '.' in the block: '..' has to be made. */
			if (check_dotdot(&b, dot, NULL))
				b.dotdot_made = true;
		}
		prev = off;
		off += le16_to_cpu(de->rec_len);
		index++;
	}
	/*
	 * The chain was cut before '..' (salvaged), or the second entry had no
	 * room for it until the salvage gave it the rest of the block: make it
	 * from the room after '.', or in the entry that follows '.'.
	 */
	if (b.lblk == 0 && dot && !fresh && !b.dotdot_made && (!seen_dotdot || b.dotdot_wanted)) {
		u32 next = (u32)((u8 *)dot - buf) + le16_to_cpu(dot->rec_len);

		check_dotdot(&b, dot, next + 8 <= bs ? (void *)(buf + next) : NULL);
	}
	if (!b.dirty && stalefs_verify_dirblock_csum(ctx->fs->seed, buf, bs)) {
		memset(&p, 0, sizeof(p));
		p.ino = b.dir;
		p.lblk = b.lblk;
		p.blk = b.pblk;
		if (fix_problem(ctx, PR_2_BLOCK_CSUM, &p))
			b.dirty = true;
	}
	if (b.dirty && !(ctx->options & OPT_READONLY)) {
		errcode_t err;

		stalefs_dirblock_set_csum(ctx->fs->seed, buf, bs);
		err = stalefs_write_block(ctx->fs, b.pblk, buf);
		if (err)
			fsck_library_error(ctx, err, "while writing a directory block");
	}
}

void pass2(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	u32 bs = fs->block_size, i = 0, j;
	u8 *run = malloc((size_t)RUN_BLOCKS * bs);

	if (!run)
		fsck_fatal(ctx, STALEFS_ERR_NO_MEMORY, "while allocating the directory buffer");
	pass_header(ctx, PR_2_PASS_HEADER);
	if (ctx->ndb)
		qsort(ctx->dblist, ctx->ndb, sizeof(*ctx->dblist), cmp_pblk);
	while (i < ctx->ndb) {
		u32 n = 1;
		errcode_t run_err;

		fsck_check_cancel(ctx);
		if (!ctx->dblist[i].ino) {
			i++;
			continue;
		}
		/* A run of consecutive blocks is one read. */
		while (i + n < ctx->ndb && n < RUN_BLOCKS && ctx->dblist[i + n].ino &&
		       ctx->dblist[i + n].pblk == ctx->dblist[i].pblk + n)
			n++;
		run_err = stalefs_io_read(fs->io, ctx->dblist[i].pblk, n, run);
		for (j = 0; j < n; j++) {
			const struct dir_block *dbe = &ctx->dblist[i + j];
			u8 *buf = run + (size_t)j * bs;
			errcode_t err = run_err;

			/* One bad block fails its whole run: read them one by one, only the bad ones are lost. */
			if (err && n > 1)
				err = stalefs_io_read(fs->io, dbe->pblk, 1, buf);
			if (err) {
				struct problem_ctx p;

				memset(&p, 0, sizeof(p));
				p.blk = dbe->pblk;
				p.ino = dbe->ino;
				p.lblk = dbe->lblk;
				p.str = error_message(err);
				fix_problem(ctx, PR_2_READ_ERROR, &p);
				ctx->uncorrected = true;
				continue;
			}
			check_block(ctx, buf, dbe);
		}
		i += n;
		progress_update(ctx, 2, i, ctx->ndb);
	}
	free(run);
}
