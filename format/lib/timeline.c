// SPDX-License-Identifier: GPL-2.0
/*
 * The timeline: every name and every inode of a filesystem as bodyfile lines
 * (bodyfile.c), the walk TSK's fls -m -r makes of an ext4 image.
 *
 * First the tree from the root, depth first in directory order, removed names
 * included (they keep the inode number they named, FORMAT.md 8); a removed
 * directory whose inode is not in use again is entered, and all it holds is
 * deleted with it.  Then the inodes no name refers to -- deleted ones, and any
 * in use that nothing names -- under TSK's virtual /$OrphanFiles, an orphan
 * directory with what it still holds.  Which inodes are named is one bit
 * each, so memory follows the inode count, not the tree.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

struct tl {
	stalefs_fs *fs;
	const struct stalefs_timeline_opts *o;
	FILE *out;
	struct stalefs_timeline_stats *st;
	const char *prefix;
	u8 *named;		/* a name (live or removed) refers to the inode */
	u8 *walked;		/* a directory already entered */
	bool print;		/* false: only mark what orphan directories name */
	char *path;		/* the current path, grown as needed */
	size_t path_cap;
	char *link;		/* a symlink's target */
	errcode_t err;		/* a write error on out */
	struct stalefs_journal *j;	/* -j: the journal's history, for removed directories */
	struct stalefs_jhistory hist;
};

/* One directory's entries, packed (names in one buffer), collected before any is printed. */
struct tl_entry {
	u32 ino;
	u32 name_off;
	u8 name_len, file_type;
	bool deleted;
};

struct tl_batch {
	struct tl_entry *e;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct tl *t;
	u32 dir;
	bool quiet;		/* a deleted directory: blocks that fail are what reuse left */
};

static bool bit_test(const u8 *map, u32 n) { return map[n / 8] & (1u << (n % 8)); }
static void bit_set(u8 *map, u32 n) { map[n / 8] |= (u8)(1u << (n % 8)); }

static void problem(struct tl *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct tl *t, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	t->st->problems++;
	if (!t->o->problem)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	t->o->problem(t->o->priv, what);
}

static bool in_use(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode)
{
	if (fs->bitmaps_loaded)
		return stalefs_test_inode(fs, ino);
	return inode->i_mode && inode->i_links_count && !inode->i_dtime;
}

/* path[len..] = "/name" (grown as needed); returns the old length to cut back to. */
static size_t path_push(struct tl *t, const char *name, size_t name_len)
{
	size_t len = strlen(t->path);

	if (len + 1 + name_len + 1 > t->path_cap) {
		t->path_cap = (len + 1 + name_len + 1) * 2;
		t->path = stalefs_xrealloc(t->path, t->path_cap);
	}
	t->path[len] = '/';
	memcpy(t->path + len + 1, name, name_len);
	t->path[len + 1 + name_len] = '\0';
	return len;
}

static int collect(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct tl_batch *b = priv;

	(void)fs;
	if (!de->name_len || (de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (de->deleted && b->t->o->allocated_only)
		return 0;
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 32;
		b->e = stalefs_xrealloc(b->e, b->cap * sizeof(*b->e));
	}
	if (b->names_len + de->name_len > b->names_cap) {
		b->names_cap = (b->names_len + de->name_len) * 2;
		b->names = stalefs_xrealloc(b->names, b->names_cap);
	}
	memcpy(b->names + b->names_len, de->name, de->name_len);
	b->e[b->n++] = (struct tl_entry){ .ino = de->ino, .name_off = (u32)b->names_len, .name_len = de->name_len,
					  .file_type = de->file_type, .deleted = de->deleted || !de->ino };
	b->names_len += de->name_len;
	return 0;
}

static int bad_block(stalefs_fs *fs, const struct stalefs_dirblock_info *bi, void *priv)
{
	struct tl_batch *b = priv;

	(void)fs;
	if (!b->quiet && b->t->print)
		problem(b->t, "directory inode %u, block %u (physical %llu): %s", bi->dir, bi->lblk,
			(unsigned long long)bi->pblk, bi->err ? error_message(bi->err) : stalefs_rule_msg(bi->rule));
	return 0;
}

static int bad_entry(stalefs_fs *fs, const struct stalefs_dirent_info *de, int rule, void *priv)
{
	struct tl_batch *b = priv;

	(void)fs;
	if (!b->quiet && b->t->print)
		problem(b->t, "directory inode %u, block %u (physical %llu), offset %u: %s", b->dir, de->lblk,
			(unsigned long long)de->pblk, de->offset, stalefs_rule_msg(rule));
	return 0;
}

static int bad_tree(stalefs_fs *fs, u32 dir, int bad_nodes, void *priv)
{
	struct tl_batch *b = priv;

	(void)fs;
	if (!b->quiet && b->t->print)
		problem(b->t, "directory inode %u: %d extent tree node%s damaged; the blocks behind %s are not read",
			dir, bad_nodes, bad_nodes == 1 ? "" : "s", bad_nodes == 1 ? "it" : "them");
	return 0;
}

/* The line for one name (t->path) naming ino; hash only for regular files in use. */
static void emit(struct tl *t, u32 ino, u8 name_type, bool name_deleted, const struct stalefs_inode *inode,
		 bool meta_in_use)
{
	struct stalefs_body_entry e = { .path = t->path, .ino = ino, .name_type = name_type,
					.name_deleted = name_deleted, .meta_in_use = meta_in_use, .inode = inode };
	u16 mode = inode ? le16_to_cpu(inode->i_mode) : 0;
	char hex[2 * STALEFS_HASH_MAX_SIZE + 1];

	if (!t->print || (t->o->deleted_only && !name_deleted) || (t->o->allocated_only && name_deleted))
		return;
	if (inode && (mode & STALEFS_S_IFMT) == STALEFS_S_IFLNK) {
		u64 size = le64_to_cpu(inode->i_size);

		/* An inline target is in the inode whatever became of it; a block's only while in use. */
		if ((le32_to_cpu(inode->i_flags) & STALEFS_INODE_INLINE_FL) && size < STALEFS_IBLOCK_SIZE) {
			memcpy(t->link, inode->i_block, size);
			t->link[size] = '\0';
			e.link = t->link;
		} else if (meta_in_use && !stalefs_read_symlink(t->fs, ino, t->link, STALEFS_SYMLINK_MAX + 1)) {
			e.link = t->link;
		}
	}
	if (t->o->hash && inode && meta_in_use && !name_deleted && (mode & STALEFS_S_IFMT) == STALEFS_S_IFREG) {
		u8 digest[STALEFS_HASH_MAX_SIZE];
		errcode_t err = stalefs_file_hash(t->fs, ino, t->o->hash, digest);

		if (err) {
			problem(t, "inode %u (%s): %s while hashing its content", ino, t->path, error_message(err));
		} else {
			stalefs_hash_hex(digest, stalefs_hash_size(t->o->hash), hex);
			e.hash = hex;
		}
	}
	stalefs_body_print(t->out, t->prefix, &e);
	t->st->entries++;
	if (name_deleted)
		t->st->deleted++;
}

/* The inode a name refers to: false (and no inode to show) when there is none to read. */
static bool load(struct tl *t, u32 ino, struct stalefs_inode *inode, bool *used)
{
	int rule;
	errcode_t err;

	if (!stalefs_ino_valid(t->fs, ino))
		return false;
	err = stalefs_read_inode_raw(t->fs, ino, inode, &rule);
	if (err) {
		if (t->print)
			problem(t, "inode %u (%s): %s while reading it", ino, t->path, error_message(err));
		return false;
	}
	if (!inode->i_mode)
		return false;	/* never used, or cleared: nothing to show */
	*used = in_use(t->fs, ino, inode);
	if (rule && *used && t->print)
		problem(t, "inode %u (%s): %s (shown as found)", ino, t->path, stalefs_rule_msg(rule));
	return true;
}

static void walk_dir(struct tl *t, u32 dir, const struct stalefs_inode *dinode, bool deleted, int depth);

/* One name: its line, then, for a directory not entered yet, what it holds. */
static void visit(struct tl *t, u32 ino, u8 name_type, bool deleted, int depth)
{
	struct stalefs_inode inode;
	bool have, used = false;

	if (stalefs_ino_valid(t->fs, ino))
		bit_set(t->named, ino);
	have = load(t, ino, &inode, &used);
	emit(t, ino, name_type, deleted, have ? &inode : NULL, used);
	/* A removed name whose inode is someone else's now leads nowhere of its own. */
	if (have && (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR && !(deleted && used) &&
	    !bit_test(t->walked, ino)) {
		bit_set(t->walked, ino);
		walk_dir(t, ino, &inode, deleted || !used, depth + 1);
	}
}

/*
 * A removed directory whose inode no longer maps its blocks (the kernel frees them before
 * it marks the inode deleted): its blocks say whose they are (FORMAT.md 8), and the
 * journal's copies say where they were.  Each logical block once: the disk's block when
 * it still is that directory's, else the newest journaled copy.
 */
static void journal_dir_blocks(struct tl *t, u32 dir, struct tl_batch *b, const struct stalefs_dir_scan_ops *ops)
{
	const struct stalefs_jhistory *h = &t->hist;
	u32 bs = t->fs->block_size, k, i, n = 0;
	struct { u32 lblk, log_block, sequence; u64 pblk; } *best = NULL;
	u8 *buf = stalefs_xmalloc(bs);

	for (k = 0; k < h->maxlen; k++) {
		const struct stalefs_jblock *jb = &h->b[k];
		const struct stalefs_dir_block *db = (const void *)buf;

		if (jb->type != STALEFS_JB_COPY || jb->kind != STALEFS_BK_DIR || jb->owner != dir || !jb->csum_ok ||
		    stalefs_jhistory_read_copy(t->j, h, k, buf))
			continue;
		for (i = 0; i < n && best[i].lblk != le32_to_cpu(db->db_lblk); i++)
			;
		if (i == n) {
			best = stalefs_xrealloc(best, (n + 1) * sizeof(*best));
			n++;
		} else if (!stalefs_tid_gt(jb->sequence, best[i].sequence)) {
			continue;
		}
		best[i].lblk = le32_to_cpu(db->db_lblk);
		best[i].log_block = k;
		best[i].sequence = jb->sequence;
		best[i].pblk = jb->fs_block;
	}
	for (i = 0; i < n; i++) {
		bool disk = !stalefs_read_block(t->fs, best[i].pblk, buf) &&
			    !stalefs_verify_dirblock(buf, bs, best[i].pblk, dir, best[i].lblk) &&
			    !stalefs_verify_dirblock_csum(t->fs->seed, buf, bs);

		if (disk || !stalefs_jhistory_read_copy(t->j, h, best[i].log_block, buf))
			stalefs_dirblock_entries(t->fs, buf, best[i].lblk, best[i].pblk, ops, b);
	}
	free(best);
	free(buf);
}

static void walk_dir(struct tl *t, u32 dir, const struct stalefs_inode *dinode, bool deleted, int depth)
{
	struct tl_batch b = { .t = t, .dir = dir, .quiet = deleted };
	const struct stalefs_dir_scan_ops ops = {
		.flags = t->o->allocated_only ? 0 : STALEFS_DIR_ITER_DELETED,
		.entry = collect, .bad_block = bad_block, .bad_entry = bad_entry, .bad_tree = bad_tree,
	};
	const struct stalefs_extent_header *root = (const void *)dinode->i_block;
	size_t i;

	if (depth > 2048 || t->err)	/* a path of 4096 bytes is at most 2048 deep */
		return;
	if (deleted && t->j && le16_to_cpu(root->eh_entries) == 0)
		journal_dir_blocks(t, dir, &b, &ops);
	else if (stalefs_inode_has_extents(dinode))
		stalefs_dir_scan(t->fs, dir, dinode, &ops, &b);
	for (i = 0; i < b.n && !t->err; i++) {
		const struct tl_entry *e = &b.e[i];
		size_t len = path_push(t, b.names + e->name_off, e->name_len);

		visit(t, e->ino, e->file_type, deleted || e->deleted, depth);
		t->path[len] = '\0';
		if (ferror(t->out))
			t->err = errno ? errno : STALEFS_ERR_SHORT_WRITE;
	}
	free(b.e);
	free(b.names);
}

/* ---- inodes no name refers to ---- */
struct orphans {
	struct tl *t;
	u32 *v;
	size_t n, cap;
};

static int find_orphan(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode, int rule, bool used, void *priv)
{
	struct orphans *o = priv;

	(void)fs;
	(void)rule;
	(void)used;
	if (!inode || !inode->i_mode || bit_test(o->t->named, ino) || ino == STALEFS_ROOT_INO)
		return 0;
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->v = stalefs_xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	o->v[o->n++] = ino;
	return 0;
}

/* An orphan directory's entries name inodes too: they are listed under it, not on their own. */
static void mark_orphan_contents(struct tl *t, const struct orphans *o)
{
	size_t i;

	t->print = false;
	for (i = 0; i < o->n; i++) {
		struct stalefs_inode inode;
		bool used = false;

		/* One named by an orphan directory met earlier is listed under it, and walked there. */
		if (!bit_test(t->walked, o->v[i]) && !bit_test(t->named, o->v[i]) && load(t, o->v[i], &inode, &used) &&
		    (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR) {
			bit_set(t->walked, o->v[i]);
			walk_dir(t, o->v[i], &inode, !used, 1);
		}
	}
	t->print = true;
}

static void list_orphans(struct tl *t)
{
	struct orphans o = { .t = t };
	u8 *walked_main = t->walked;
	size_t i;

	stalefs_inode_scan(t->fs, find_orphan, &o);
	t->walked = stalefs_xcalloc(t->fs->geom.inodes_count / 8 + 1, 1);
	mark_orphan_contents(t, &o);
	memset(t->walked, 0, t->fs->geom.inodes_count / 8 + 1);
	/* TSK's virtual directory: type V, no times, numbered after the last inode. */
	strcpy(t->path, "/$OrphanFiles");
	if (!t->o->deleted_only) {
		struct stalefs_body_entry e = { .path = t->path, .ino = t->fs->geom.inodes_count + 1,
						.virtual_dir = true };

		stalefs_body_print(t->out, t->prefix, &e);
		t->st->entries++;
	}
	for (i = 0; i < o.n && !t->err; i++) {
		char name[32];
		struct stalefs_inode inode;
		bool used = false;

		if (bit_test(t->named, o.v[i]))
			continue;	/* an orphan directory holds it */
		snprintf(name, sizeof(name), "OrphanFile-%u", o.v[i]);
		path_push(t, name, strlen(name));
		if (load(t, o.v[i], &inode, &used)) {
			/* In use but named by nothing (unlinked while open, disconnected): not deleted. */
			emit(t, o.v[i], STALEFS_FT_UNKNOWN, !used, &inode, used);
			t->st->orphans++;
			if ((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR && !bit_test(t->walked, o.v[i])) {
				bit_set(t->walked, o.v[i]);
				walk_dir(t, o.v[i], &inode, !used, 1);
			}
		}
		strcpy(t->path, "/$OrphanFiles");
	}
	free(t->walked);
	t->walked = walked_main;
	free(o.v);
}

errcode_t stalefs_timeline(stalefs_fs *fs, const struct stalefs_timeline_opts *o, FILE *out,
			   struct stalefs_timeline_stats *st)
{
	struct tl t = { .fs = fs, .o = o, .out = out, .st = st, .print = true };
	size_t map = fs->geom.inodes_count / 8 + 1, plen;
	char *prefix = NULL;
	errcode_t err = 0;

	memset(st, 0, sizeof(*st));
	if (o->prefix) {
		prefix = stalefs_xmalloc(strlen(o->prefix) + 1);
		strcpy(prefix, o->prefix);
		for (plen = strlen(prefix); plen > 0 && prefix[plen - 1] == '/'; plen--)
			prefix[plen - 1] = '\0';
		t.prefix = prefix;
	}
	t.named = stalefs_xcalloc(map, 1);
	t.walked = stalefs_xcalloc(map, 1);
	t.path_cap = 4096;
	t.path = stalefs_xcalloc(t.path_cap, 1);
	t.link = stalefs_xmalloc(STALEFS_SYMLINK_MAX + 1);
	if (o->journal && (le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL)) {
		err = stalefs_journal_open(fs, STALEFS_JOURNAL_FORCE, &t.j);
		if (!err) {
			err = stalefs_jhistory_build(t.j, &t.hist);
			if (err) {
				stalefs_journal_close(t.j);
				t.j = NULL;
			}
		}
		if (err)
			problem(&t, "%s while reading the journal: removed directories are listed without it",
				error_message(err));
		err = 0;
	}
	/* The root, as "/": every inode in use gets its line (fls leaves the root out). */
	bit_set(t.walked, STALEFS_ROOT_INO);
	strcpy(t.path, "/");
	{
		struct stalefs_inode root;
		bool used = false;

		bit_set(t.named, STALEFS_ROOT_INO);
		if (load(&t, STALEFS_ROOT_INO, &root, &used)) {
			emit(&t, STALEFS_ROOT_INO, STALEFS_FT_DIR, false, &root, used);
			t.path[0] = '\0';
			if ((le16_to_cpu(root.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR)
				walk_dir(&t, STALEFS_ROOT_INO, &root, false, 0);
			else
				problem(&t, "inode %u, the root, is not a directory", STALEFS_ROOT_INO);
		} else {
			problem(&t, "the root directory (inode %u) cannot be read", STALEFS_ROOT_INO);
		}
	}
	if (!t.err)
		list_orphans(&t);
	if (fflush(out) != 0 || ferror(out))
		err = errno ? errno : STALEFS_ERR_SHORT_WRITE;
	if (t.err)
		err = t.err;
	if (t.j) {
		stalefs_jhistory_free(&t.hist);
		stalefs_journal_close(t.j);
	}
	free(t.named);
	free(t.walked);
	free(t.path);
	free(t.link);
	free(prefix);
	return err;
}
