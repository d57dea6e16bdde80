// SPDX-License-Identifier: GPL-2.0
/*
 * Pass 1B-1D and the deferred extent tree rewrites.
 *
 * Pass 1 only notes what must change in a tree; the rewrites happen here,
 * after the computed maps have replaced the library's bitmaps, so every new
 * block (tree nodes, cloned data, directory holes) comes from blocks nobody
 * owns.  A tree is rewritten from the list the scanner yields under the
 * accepted fixes, which is exactly what pass 1 claimed.
 *
 * Multiply-claimed blocks: pass 1 counted the claims of each shared block.
 * Pass 1B finds the inodes holding one; each of them, in inode order, copies
 * the shared blocks it holds that still have another claimant to new blocks
 * and gives up its claim ("clone all but the last", as e2fsck does).
 */
#include <stdlib.h>
#include "fsck.h"

struct collect {
	struct stalefs_extent_list list;
	u64 *nodes;
	u32 nnodes, cap;
	u64 dup_blocks;		/* blocks with another claimant (pass 1B counting) */
};

static void collect_extent(struct fsck_ctx *ctx, struct extent_scan *s, const struct stalefs_ext *e)
{
	struct collect *c = s->priv;

	(void)ctx;
	stalefs_extent_list_append(&c->list, e->lblk, e->len, e->pblk, e->flags);
}

static void collect_node(struct fsck_ctx *ctx, struct extent_scan *s, u64 block)
{
	struct collect *c = s->priv;

	(void)ctx;
	if (c->nnodes == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->nodes = realloc(c->nodes, c->cap * sizeof(*c->nodes));
		if (!c->nodes)
			fsck_fatal(ctx, STALEFS_ERR_NO_MEMORY, "while collecting tree nodes");
	}
	c->nodes[c->nnodes++] = block;
}

static u8 pending_fixes(struct fsck_ctx *ctx, u32 ino)
{
	u32 i;

	for (i = 0; i < ctx->nrebuilds; i++)
		if (ctx->rebuilds[i].ino == ino)
			return ctx->rebuilds[i].fixes;
	return 0;
}

static void collect_tree(struct fsck_ctx *ctx, u32 ino, const struct stalefs_inode *inode, u8 fixes,
			 struct collect *c)
{
	struct extent_scan s;

	memset(c, 0, sizeof(*c));
	memset(&s, 0, sizeof(s));
	s.ino = ino;
	s.inode = inode;
	s.report = false;
	s.accepted = fixes;
	s.extent = collect_extent;
	s.node = collect_node;
	s.priv = c;
	scan_extents(ctx, &s);
}

static void collect_free(struct collect *c)
{
	stalefs_extent_list_free(&c->list);
	free(c->nodes);
}

static u64 count_shared(struct fsck_ctx *ctx, const struct collect *c)
{
	u64 n = 0, b;
	u32 i;

	for (i = 0; i < c->list.count; i++)
		for (b = 0; b < c->list.ext[i].len; b++)
			if (dup_claims(ctx, c->list.ext[i].pblk + b) > 1)
				n++;
	for (i = 0; i < c->nnodes; i++)
		if (dup_claims(ctx, c->nodes[i]) > 1)
			n++;
	return n;
}

/* Blocks of the tree that lie in the journal (which pass 1 claimed before any file). */
static u64 count_in_journal(struct fsck_ctx *ctx, const struct collect *c)
{
	u64 n = 0, js = ctx->journal_start, je = js + ctx->journal_len;
	u32 i;

	if (!ctx->journal_ok)
		return 0;
	for (i = 0; i < c->list.count; i++) {
		u64 a = c->list.ext[i].pblk, b = a + c->list.ext[i].len;

		if (a < je && js < b)
			n += (b < je ? b : je) - (a > js ? a : js);
	}
	for (i = 0; i < c->nnodes; i++)
		n += c->nodes[i] >= js && c->nodes[i] < je;
	return n;
}

static int cmp_rebuild(const void *a, const void *b)
{
	const struct rebuild *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void sort_rebuilds(struct fsck_ctx *ctx)
{
	u32 i, j = 0;

	if (!ctx->nrebuilds)
		return;
	qsort(ctx->rebuilds, ctx->nrebuilds, sizeof(*ctx->rebuilds), cmp_rebuild);
	for (i = 0; i < ctx->nrebuilds; i++) {
		if (j > 0 && ctx->rebuilds[j - 1].ino == ctx->rebuilds[i].ino)
			ctx->rebuilds[j - 1].fixes |= ctx->rebuilds[i].fixes;
		else
			ctx->rebuilds[j++] = ctx->rebuilds[i];
	}
	ctx->nrebuilds = j;
}

void pass1b(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	u32 g, i, ipg = fs->geom.inodes_per_group;

	if (!ctx->ndups)
		return;
	fix_problem(ctx, PR_1B_HEADER, &(struct problem_ctx){ 0 });
	sort_rebuilds(ctx);
	for (g = 0; g < fs->geom.groups_count; g++) {
		struct group_info *gi = &ctx->groups[g];

		if (!gi->ft)
			continue;
		for (i = 0; i < ipg; i++) {
			u32 ino = g * ipg + i + 1;
			struct stalefs_inode inode;
			struct collect c;
			int rule;

			if (gi->ft[i] != STALEFS_FT_REG && gi->ft[i] != STALEFS_FT_DIR &&
			    gi->ft[i] != STALEFS_FT_SYMLINK)
				continue;
			if (stalefs_read_inode_raw(fs, ino, &inode, &rule) || !stalefs_inode_has_extents(&inode))
				continue;
			collect_tree(ctx, ino, &inode, pending_fixes(ctx, ino), &c);
			if (count_shared(ctx, &c))
				rebuild_add(ctx, ino, FIX_CLONE);
			collect_free(&c);
		}
	}
}

/* One piece of a file after cloning: kept where it is (dst 0) or copied to dst. */
struct clone_piece {
	u32 lblk, len;
	u64 src, dst;
	u16 flags;
};

struct clone_plan {
	struct clone_piece *p;
	u32 n, cap;
};

static void plan_add(struct fsck_ctx *ctx, struct clone_plan *cp, struct clone_piece piece)
{
	if (cp->n == cp->cap) {
		cp->cap = cp->cap ? cp->cap * 2 : 16;
		cp->p = realloc(cp->p, cp->cap * sizeof(*cp->p));
		if (!cp->p)
			fsck_fatal(ctx, STALEFS_ERR_NO_MEMORY, "while planning a clone");
	}
	cp->p[cp->n++] = piece;
}

/*
 * Copy the blocks of l that another inode also claims to new blocks.  The
 * claims are given up while planning (a block this file lists twice is then
 * cloned once, as walking and releasing used to do), and every new block is
 * allocated before anything is copied; if one cannot be, the claims are
 * taken back and nothing has changed, so a full filesystem fails the clone
 * cleanly (and the caller can clear the inode instead, as e2fsck does).
 */
static errcode_t clone_shared(struct fsck_ctx *ctx, struct stalefs_extent_list *l)
{
	stalefs_fs *fs = ctx->fs;
	struct clone_plan plan = { 0 }, cp = { 0 };
	struct stalefs_extent_list out;
	errcode_t err = 0;
	u32 i, k;

	for (i = 0; i < l->count; i++) {
		const struct stalefs_ext *e = &l->ext[i];

		for (k = 0; k < e->len;) {
			bool shared = dup_claims(ctx, e->pblk + k) > 1;
			u32 n = 1, b;

			while (k + n < e->len && (dup_claims(ctx, e->pblk + k + n) > 1) == shared)
				n++;
			for (b = 0; shared && b < n; b++)
				dup_release(ctx, e->pblk + k + b);
			/* dst 1 marks "to copy" until a block is allocated */
			plan_add(ctx, &plan, (struct clone_piece){ .lblk = e->lblk + k, .len = n,
				 .src = e->pblk + k, .dst = shared, .flags = e->flags });
			k += n;
		}
	}
	for (i = 0; i < plan.n && !err; i++) {
		struct clone_piece piece = plan.p[i];

		if (!piece.dst) {
			plan_add(ctx, &cp, piece);
			continue;
		}
		for (k = 0; k < plan.p[i].len && !err;) {
			u32 got;

			err = stalefs_alloc_blocks(fs, plan.p[i].src + k, plan.p[i].len - k, &piece.dst, &got);
			if (err)
				break;
			piece.lblk = plan.p[i].lblk + k;
			piece.src = plan.p[i].src + k;
			piece.len = got;
			plan_add(ctx, &cp, piece);
			k += got;
		}
	}
	if (err) {
		for (i = 0; i < cp.n; i++)
			if (cp.p[i].dst)
				stalefs_free_blocks(fs, cp.p[i].dst, cp.p[i].len);
		for (i = 0; i < plan.n; i++)
			for (k = 0; plan.p[i].dst && k < plan.p[i].len; k++)
				dup_reclaim(ctx, plan.p[i].src + k);
		free(plan.p);
		free(cp.p);
		return err;
	}
	free(plan.p);
	memset(&out, 0, sizeof(out));
	for (i = 0; i < cp.n && !err; i++) {
		const struct clone_piece *c = &cp.p[i];

		for (k = 0; c->dst && k < c->len && !err; k++) {
			err = stalefs_io_read(fs->io, c->src + k, 1, ctx->buf);
			if (!err)
				err = stalefs_io_write(fs->io, c->dst + k, 1, ctx->buf);
		}
		stalefs_extent_list_append(&out, c->lblk, c->len, c->dst ? c->dst : c->src, c->flags);
	}
	free(cp.p);
	if (err) {
		stalefs_extent_list_free(&out);
		return err;
	}
	stalefs_extent_list_free(l);
	*l = out;
	return 0;
}

/*
 * A directory has no holes.  Its blocks keep their order but are numbered
 * 0, 1, 2, ... again (pass 2 then corrects each block's header), so a
 * damaged logical number never costs an allocation; only a missing block 0
 * is made anew, with '.' and '..'.  Unwritten blocks become written: pass 2
 * judges what they hold.
 */
static errcode_t fill_dir_holes(struct fsck_ctx *ctx, u32 ino, struct stalefs_extent_list *l, u32 *nblocks)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_extent_list out;
	u32 next = 0, i;
	errcode_t err;

	memset(&out, 0, sizeof(out));
	if (l->count == 0 || l->ext[0].lblk != 0) {
		u64 pblk, goal = l->count ? l->ext[0].pblk
					  : stalefs_group_first_block(&fs->geom, stalefs_ino_group(&fs->geom, ino));

		err = stalefs_alloc_block(fs, goal, &pblk);
		if (err)
			return err;
		dirblock_init(ctx, ctx->buf, pblk, ino, 0, STALEFS_ROOT_INO);
		err = stalefs_write_block(fs, pblk, ctx->buf);
		if (err)
			return err;
		stalefs_extent_list_append(&out, 0, 1, pblk, 0);
		next = 1;
	}
	for (i = 0; i < l->count; i++) {
		stalefs_extent_list_append(&out, next, l->ext[i].len, l->ext[i].pblk,
					   (u16)(l->ext[i].flags & ~STALEFS_EXT_UNWRITTEN));
		next += l->ext[i].len;
	}
	stalefs_extent_list_free(l);
	*l = out;
	*nblocks = next;
	return 0;
}

static void free_old_nodes(struct fsck_ctx *ctx, const struct collect *c)
{
	u32 i;

	for (i = 0; i < c->nnodes; i++) {
		u64 b = c->nodes[i];
		u32 claims = dup_claims(ctx, b);

		if (claims > 0)
			dup_release(ctx, b);
		if (claims <= 1)
			stalefs_free_blocks(ctx->fs, b, 1);
	}
}

/*
 * An inode whose shared blocks cannot be cloned goes (e2fsck's "Delete
 * file"): the blocks others claim stay theirs, its own are freed, and pass 2
 * then drops the entries naming it (a directory's children go to
 * /lost+found in pass 3).
 */
static void clear_claimant(struct fsck_ctx *ctx, u32 ino, const struct collect *c, bool is_dir)
{
	u32 i, k;

	for (i = 0; i < c->list.count; i++) {
		const struct stalefs_ext *e = &c->list.ext[i];

		for (k = 0; k < e->len; k++) {
			u32 claims = dup_claims(ctx, e->pblk + k);

			if (claims > 0)
				dup_release(ctx, e->pblk + k);
			if (claims <= 1)
				stalefs_free_blocks(ctx->fs, e->pblk + k, 1);
		}
	}
	free_old_nodes(ctx, c);
	/* Its xattr block (claimed in pass 1) goes with it. */
	{
		u64 xb = xattr_block_of(ctx, ino);

		if (xb) {
			u32 claims = dup_claims(ctx, xb);

			if (claims > 0)
				dup_release(ctx, xb);
			if (claims <= 1)
				stalefs_free_blocks(ctx->fs, xb, 1);
			xattr_forget(ctx, ino);
		}
	}
	clear_inode(ctx, ino);
	stalefs_unmark_inode(ctx->fs, ino);
	if (is_dir) {
		struct dir_info *di = dir_find(ctx, ino);

		dblist_drop(ctx, ino);
		if (di) {
			/* Nothing to connect or fix in pass 3: it is gone. */
			di->parent = 0;
			di->done = true;
		}
	}
}

static void rebuild_one(struct fsck_ctx *ctx, u32 ino, u8 fixes)
{
	stalefs_fs *fs = ctx->fs;
	struct stalefs_inode inode;
	struct collect c;
	struct problem_ctx p;
	u32 nblocks = 0, i;
	int rule;
	errcode_t err;
	bool is_dir;

	memset(&p, 0, sizeof(p));
	p.ino = ino;
	if (stalefs_read_inode_raw(fs, ino, &inode, &rule) || !stalefs_inode_has_extents(&inode))
		return;
	is_dir = (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
	collect_tree(ctx, ino, &inode, fixes, &c);
	if (fixes & FIX_CLONE) {
		p.num = count_in_journal(ctx, &c);
		if (p.num)
			fix_problem(ctx, PR_1B_JOURNAL_SHARED, &p);
		p.num = count_shared(ctx, &c);
		if (p.num == 0) {
			fix_problem(ctx, PR_1B_ALREADY_CLONED, &p);
			fixes &= (u8)~FIX_CLONE;
		} else if (!fix_problem(ctx, PR_1B_DUP_INODE, &p)) {
			fixes &= (u8)~FIX_CLONE;
		}
		if (!fixes || (ctx->options & OPT_READONLY)) {
			collect_free(&c);
			return;
		}
	}
	if (fixes & FIX_CLONE) {
		err = clone_shared(ctx, &c.list);
		if (err) {
			p.str = error_message(err);
			fix_problem(ctx, PR_1B_CLONE_FAILED, &p);
			if (fix_problem(ctx, PR_1B_CLEAR_SHARED, &p))
				clear_claimant(ctx, ino, &c, is_dir);
			else
				ctx->uncorrected = true;
			collect_free(&c);
			return;
		}
	}
	if (is_dir && (fixes & FIX_DIR_HOLES)) {
		err = fill_dir_holes(ctx, ino, &c.list, &nblocks);
		if (err) {
			fsck_library_error(ctx, err, "while filling a directory's holes");
			collect_free(&c);
			return;
		}
		inode.i_size = cpu_to_le64((u64)nblocks << fs->geom.log_block_size);
	}
	free_old_nodes(ctx, &c);
	/* The old nodes are accounted for: start the tree from an empty root. */
	stalefs_extent_root_init((struct stalefs_extent_header *)inode.i_block);
	err = stalefs_extent_write(fs, ino, &inode, &c.list);
	if (err) {
		fsck_library_error(ctx, err, "while rewriting an extent tree");
		collect_free(&c);
		return;
	}
	fsck_write_inode(ctx, ino, &inode);
	if (is_dir) {
		struct dir_info *di = dir_find(ctx, ino);

		dblist_drop(ctx, ino);
		for (i = 0; i < c.list.count; i++) {
			const struct stalefs_ext *e = &c.list.ext[i];
			u32 k;

			for (k = 0; k < e->len; k++)
				dblist_add(ctx, ino, e->lblk + k, e->pblk + k);
			if (e->lblk == 0 && di)
				di->blk0 = e->pblk;
		}
	}
	collect_free(&c);
}

void run_rebuilds(struct fsck_ctx *ctx)
{
	u32 i;

	sort_rebuilds(ctx);
	for (i = 0; i < ctx->nrebuilds; i++) {
		fsck_check_cancel(ctx);
		rebuild_one(ctx, ctx->rebuilds[i].ino, ctx->rebuilds[i].fixes);
	}
}
