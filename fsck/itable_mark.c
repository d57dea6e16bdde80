// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 0, last step: each group's unused-inode mark (bg_itable_unused).
 *
 * Slots past the mark were never initialised: mkfs leaves the table as the
 * device held it and the kernel zeroes slots only as the mark passes them
 * (FORMAT.md 4), so what they hold is undefined.  It can be an inode sound
 * in every field: a device that once held a later state of this very
 * filesystem (a dm-log-writes log replayed onto the disk it was recorded
 * from, a restored snapshot) keeps that state's inodes there.  So a slot
 * past the mark counts as in use only on the word of something the
 * filesystem defines:
 *  - its bit in an initialised inode bitmap (the kernel moves bit and mark
 *    in one transaction), or
 *  - a directory entry naming it: without a journal, a power cut can leave
 *    an fsync'd inode and the entry naming it on disk but not the
 *    descriptor (e2fsck's "inode in the unused area").
 * Sound-looking slots past a mark are only candidates; the directories are
 * read for names only when some group has one, so a healthy filesystem
 * pays nothing for it.
 */
#include <stdlib.h>
#include "fsck.h"

struct candidate {
	u32 ino;
	bool dir;
	bool named;
	bool scanned;		/* a named directory whose own entries were read */
};

struct candidates {
	struct candidate *v;	/* sorted by ino: collected group by group, slot by slot */
	size_t n, cap;
};

static void cand_add(struct candidates *c, u32 ino, bool dir)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		if (!c->v) {
			fprintf(stderr, "fsck.stalefs: out of memory while checking the inode table marks\n");
			fsck_exit(FSCK_ERROR);
		}
	}
	c->v[c->n++] = (struct candidate){ .ino = ino, .dir = dir };
}

static struct candidate *cand_find(struct candidates *c, u32 ino)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].ino == ino)
			return &c->v[mid];
		if (c->v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A slot's bytes as the table holds them, whatever the mark says (NULL buf: unreadable). */
static bool read_slot(struct fsck_ctx *ctx, u32 ino, struct stalefs_inode *inode)
{
	stalefs_fs *fs = ctx->fs;
	const struct stalefs_geom *g = &fs->geom;
	u64 block;
	u32 offset;

	stalefs_ino_locate(g, &fs->groups[stalefs_ino_group(g, ino)].desc, ino, &block, &offset);
	if (block >= g->blocks_count || stalefs_read_block(fs, block, ctx->buf))
		return false;
	memcpy(inode, ctx->buf + offset, sizeof(*inode));
	return true;
}

static bool looks_alive(stalefs_fs *fs, const struct stalefs_inode *inode)
{
	/* Made before this filesystem was: a table mkfs left unzeroed, from an older one. */
	return le16_to_cpu(inode->i_mode) && le16_to_cpu(inode->i_links_count) &&
	       !le64_to_cpu(inode->i_dtime) &&
	       le64_to_cpu(inode->i_crtime) >= le64_to_cpu(fs->sb.s_mkfs_time);
}

static bool is_dir(const struct stalefs_inode *inode)
{
	return (le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
}

/*
 * Sound inodes at or past slot 'mark' of the group, as candidates.  New
 * inodes are taken lowest slot first, so the table is followed block by
 * block only while a block still holds one that looks allocated (checksum
 * aside: a bad one is pass 1's to judge, and stopping at it once left a
 * sound inode behind it unseen).
 */
static void collect_candidates(struct fsck_ctx *ctx, u32 group, u32 mark, struct candidates *c)
{
	stalefs_fs *fs = ctx->fs;
	const struct stalefs_geom *g = &fs->geom;
	u64 table = le64_to_cpu(fs->groups[group].desc.bg_inode_table);
	u32 ipb = g->inodes_per_block, b, s;
	u8 *buf = malloc(fs->block_size);

	if (!buf)
		fsck_fatal(ctx, STALEFS_ERR_NO_MEMORY, "while reading the inode table");
	for (b = mark / ipb; b < g->inode_table_blocks; b++) {
		bool found = false;

		if (stalefs_io_read(fs->io, table + b, 1, buf))
			break;		/* pass 1 reports an unreadable table */
		for (s = b == mark / ipb ? mark % ipb : 0; s < ipb; s++) {
			struct stalefs_inode inode;
			u32 ino = group * g->inodes_per_group + b * ipb + s + 1;

			memcpy(&inode, buf + (size_t)s * g->inode_size, sizeof(inode));
			if (!looks_alive(fs, &inode))
				continue;
			found = true;
			if (!stalefs_verify_inode_csum(fs->seed, ino, &inode))
				cand_add(c, ino, is_dir(&inode));
		}
		if (!found)
			break;
	}
	free(buf);
}

static int name_entry(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct candidate *x = cand_find(priv, de->ino);

	(void)fs;
	if (x)
		x->named = true;
	return 0;
}

static void read_names(stalefs_fs *fs, u32 dir, const struct stalefs_inode *inode, struct candidates *c)
{
	static const struct stalefs_dir_scan_ops ops = { .entry = name_entry };

	stalefs_dir_scan(fs, dir, inode, &ops, c);
}

/* Below the marks every slot is defined: a directory there names what it names, bitmap or not. */
static int names_of_dir(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode, int rule,
			bool in_use, void *priv)
{
	(void)rule;
	(void)in_use;
	if (inode && is_dir(inode) && inode->i_links_count && !inode->i_dtime)
		read_names(fs, ino, inode, priv);
	return 0;
}

/* Where the group's table walk for candidates starts. */
static u32 scan_start(stalefs_fs *fs, u32 group)
{
	const struct stalefs_group_desc *d = &fs->groups[group].desc;
	u32 ipg = fs->geom.inodes_per_group, mark = ipg - le32_to_cpu(d->bg_itable_unused);

	if (le16_to_cpu(d->bg_flags) & STALEFS_BG_INODE_UNINIT)
		return 0;
	/* Group 0's reserved slots are mostly empty: the walk would stop in them. */
	if (group == 0 && mark < STALEFS_FIRST_INO - 1)
		return STALEFS_FIRST_INO - 1;
	return mark;
}

/* Which candidates a directory names: every directory below the marks, then named candidates. */
static void find_names(struct fsck_ctx *ctx, struct candidates *c)
{
	bool more = true;
	size_t i;

	stalefs_inode_scan(ctx->fs, names_of_dir, c);
	/* The root's slot is always in use, even past a mark that says otherwise (check_mark). */
	if (scan_start(ctx->fs, 0) == 0 ||
	    le32_to_cpu(ctx->fs->groups[0].desc.bg_itable_unused) >
		    ctx->fs->geom.inodes_per_group - STALEFS_ROOT_INO) {
		struct stalefs_inode root;

		if (read_slot(ctx, STALEFS_ROOT_INO, &root))
			names_of_dir(ctx->fs, STALEFS_ROOT_INO, &root, 0, true, c);
	}
	while (more) {
		more = false;
		for (i = 0; i < c->n; i++) {
			struct stalefs_inode inode;

			if (!c->v[i].named || !c->v[i].dir || c->v[i].scanned)
				continue;
			c->v[i].scanned = true;
			if (read_slot(ctx, c->v[i].ino, &inode)) {
				read_names(ctx->fs, c->v[i].ino, &inode, c);
				more = true;
			}
		}
	}
}

/* An out-of-range count first: nothing else about the group's mark makes sense until it is fixed. */
static bool check_range(struct fsck_ctx *ctx, u32 group)
{
	struct stalefs_group_desc *d = &ctx->fs->groups[group].desc;
	u32 ipg = ctx->fs->geom.inodes_per_group;
	struct problem_ctx p;

	if (le32_to_cpu(d->bg_itable_unused) <= ipg)
		return true;
	memset(&p, 0, sizeof(p));
	p.group = group;
	p.num = le32_to_cpu(d->bg_itable_unused);
	p.num2 = ipg;
	if (!fix_problem(ctx, PR_0_ITABLE_UNUSED_RANGE, &p))
		return false;
	d->bg_itable_unused = cpu_to_le32(ipg);
	stalefs_mark_desc_dirty(ctx->fs, group);
	return true;
}

/* Inodes in use past the mark would never be scanned: move the mark. */
static void check_mark(struct fsck_ctx *ctx, u32 group, long named)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_group *grp = &fs->groups[group];
	struct stalefs_group_desc *d = &grp->desc;
	u32 ipg = fs->geom.inodes_per_group, unused = le32_to_cpu(d->bg_itable_unused), i, last = 0;
	bool any = false, uninit = le16_to_cpu(d->bg_flags) & STALEFS_BG_INODE_UNINIT;
	struct problem_ctx p;

	if (!uninit && grp->inode_bitmap)
		for (i = ipg; i-- > 0;)
			if (bit_test(grp->inode_bitmap, i)) {
				last = i;
				any = true;
				break;
			}
	/* Group 0's reserved inodes (1-10) are always in use: their slots must be scanned. */
	if (group == 0 && (!any || last < STALEFS_FIRST_INO - 2)) {
		any = true;
		last = STALEFS_FIRST_INO - 2;
	}
	if (named >= 0 && (!any || (u32)named > last)) {
		any = true;
		last = (u32)named;
	}
	if (!any || !(last >= ipg - unused || (uninit && named >= 0)))
		return;
	memset(&p, 0, sizeof(p));
	p.group = group;
	p.ino = group * ipg + last + 1;
	p.num = unused;
	if (!fix_problem(ctx, PR_0_ITABLE_UNUSED, &p))
		return;
	if (last >= ipg - unused)
		d->bg_itable_unused = cpu_to_le32(ipg - last - 1);
	/* Its bitmap is rebuilt from what pass 1 finds. */
	if (uninit && named >= 0)
		d->bg_flags = cpu_to_le16(le16_to_cpu(d->bg_flags) & ~STALEFS_BG_INODE_UNINIT);
	stalefs_mark_desc_dirty(fs, group);
}

void check_itable_marks(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	u32 ngroups = fs->geom.groups_count, g;
	struct candidates c = { NULL, 0, 0 };
	bool *ok = calloc(ngroups, sizeof(*ok));
	long *named = malloc(ngroups * sizeof(*named));	/* per group: the last named slot, or -1 */
	size_t i;

	if (!ok || !named)
		fsck_fatal(ctx, STALEFS_ERR_NO_MEMORY, "while checking the inode table marks");
	for (g = 0; g < ngroups; g++) {
		ok[g] = check_range(ctx, g);
		if (ok[g])
			collect_candidates(ctx, g, scan_start(fs, g), &c);
	}
	if (c.n)
		find_names(ctx, &c);
	for (g = 0; g < ngroups; g++)
		named[g] = -1;
	for (i = 0; i < c.n; i++)
		if (c.v[i].named)
			named[(c.v[i].ino - 1) / fs->geom.inodes_per_group] =
				(long)((c.v[i].ino - 1) % fs->geom.inodes_per_group);
	for (g = 0; g < ngroups; g++)
		if (ok[g])
			check_mark(ctx, g, named[g]);
	free(c.v);
	free(named);
	free(ok);
}
