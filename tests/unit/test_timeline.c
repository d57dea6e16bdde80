/*
 * Timelines: bodyfile lines as fls -m writes them (mode strings, deleted marks,
 * symlinks, no-inode lines, TSK's virtual directory, names escaped for mactime),
 * removed directory entries found where a removal left them, and the whole walk
 * on a small filesystem: live names, a removed name, a removed directory and
 * what it held, inodes no name refers to, -d and -u.
 */
#include <stdio.h>
#include "unit.h"

/* What f received, as a string (freed by the caller). */
struct memout {
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct memout *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	ck_assert_ptr_nonnull(m->f);
}

static char *mem_close(struct memout *m)
{
	fclose(m->f);
	return m->buf;
}

static void inode_times(struct stalefs_inode *in, u16 mode, u32 uid, u32 gid, u64 size)
{
	memset(in, 0, sizeof(*in));
	in->i_mode = cpu_to_le16(mode);
	in->i_uid = cpu_to_le32(uid);
	in->i_gid = cpu_to_le32(gid);
	in->i_size = cpu_to_le64(size);
	in->i_atime = cpu_to_le64(1000000001);
	in->i_mtime = cpu_to_le64(1000000002);
	in->i_ctime = cpu_to_le64(1000000003);
	in->i_crtime = cpu_to_le64(1000000004);
}

static char *line_of(const char *prefix, const struct stalefs_body_entry *e)
{
	struct memout m;

	mem_open(&m);
	stalefs_body_print(m.f, prefix, e);
	return mem_close(&m);
}

START_TEST(body_lines)
{
	struct stalefs_inode in;
	struct stalefs_body_entry e = { .path = "/dir/file", .ino = 12, .name_type = STALEFS_FT_REG,
					.meta_in_use = true, .inode = &in };
	char *l;

	inode_times(&in, STALEFS_S_IFREG | 04755, 1000, 100, 5000);
	l = line_of(NULL, &e);
	ck_assert_str_eq(l, "0|/dir/file|12|r/rrwsr-xr-x|1000|100|5000|1000000001|1000000002|1000000003|1000000004\n");
	free(l);
	/* A mount point before the path (its trailing '/' is the timeline's to drop), a hash. */
	e.hash = "d41d8cd98f00b204e9800998ecf8427e";
	l = line_of("/mnt", &e);
	ck_assert_str_eq(l, "d41d8cd98f00b204e9800998ecf8427e|/mnt/dir/file|12|r/rrwsr-xr-x|1000|100|5000|"
			    "1000000001|1000000002|1000000003|1000000004\n");
	free(l);
	e.hash = NULL;
	/* Removed names: deleted, or deleted-realloc when the inode is someone's again. */
	e.name_deleted = true;
	e.meta_in_use = false;
	l = line_of(NULL, &e);
	ck_assert_ptr_nonnull(strstr(l, "|/dir/file (deleted)|12|"));
	free(l);
	e.meta_in_use = true;
	l = line_of(NULL, &e);
	ck_assert_ptr_nonnull(strstr(l, "|/dir/file (deleted-realloc)|12|"));
	free(l);
	/* No inode to show: the entry's type letter, then nothing. */
	e.inode = NULL;
	e.ino = 0;
	l = line_of(NULL, &e);
	ck_assert_str_eq(l, "0|/dir/file (deleted)|0|r/----------|0|0|0|0|0|0|0\n");
	free(l);
	/* A symlink: " -> target" before the mark; sticky and setgid letters. */
	inode_times(&in, STALEFS_S_IFLNK | 0777, 0, 0, 5);
	e = (struct stalefs_body_entry){ .path = "/l", .link = "a.txt", .ino = 14, .name_type = STALEFS_FT_SYMLINK,
					 .meta_in_use = true, .inode = &in };
	l = line_of(NULL, &e);
	ck_assert_str_eq(l, "0|/l -> a.txt|14|l/lrwxrwxrwx|0|0|5|1000000001|1000000002|1000000003|1000000004\n");
	free(l);
	inode_times(&in, STALEFS_S_IFDIR | 03750, 0, 0, 4096);
	e = (struct stalefs_body_entry){ .path = "/t", .ino = 15, .name_type = STALEFS_FT_DIR, .inode = &in };
	l = line_of(NULL, &e);
	ck_assert_ptr_nonnull(strstr(l, "|d/drwxr-s--T|"));
	free(l);
	/* Every type letter, on both sides of the '/'. */
	inode_times(&in, STALEFS_S_IFIFO | 0600, 0, 0, 0);
	e = (struct stalefs_body_entry){ .path = "/p", .ino = 16, .name_type = STALEFS_FT_FIFO, .inode = &in };
	l = line_of(NULL, &e);
	ck_assert_ptr_nonnull(strstr(l, "|p/prw-------|"));
	free(l);
	inode_times(&in, STALEFS_S_IFSOCK | 0600, 0, 0, 0);
	e.name_type = STALEFS_FT_SOCK;
	l = line_of(NULL, &e);
	ck_assert_ptr_nonnull(strstr(l, "|s/srw-------|"));
	free(l);
	inode_times(&in, STALEFS_S_IFCHR | 0600, 0, 0, 0);
	e.name_type = STALEFS_FT_CHRDEV;
	l = line_of(NULL, &e);
	ck_assert_ptr_nonnull(strstr(l, "|c/crw-------|"));
	free(l);
	inode_times(&in, STALEFS_S_IFBLK | 0600, 0, 0, 0);
	e.name_type = STALEFS_FT_BLKDEV;
	l = line_of(NULL, &e);
	ck_assert_ptr_nonnull(strstr(l, "|b/brw-------|"));
	free(l);
	/* TSK's virtual directory. */
	e = (struct stalefs_body_entry){ .path = "/$OrphanFiles", .ino = 1025, .virtual_dir = true };
	l = line_of(NULL, &e);
	ck_assert_str_eq(l, "0|/$OrphanFiles|1025|V/V---------|0|0|0|0|0|0|0\n");
	free(l);
}
END_TEST

/* Control characters as '^' (fls), '|' and '%' as mactime's %XX; other bytes as they are. */
START_TEST(body_escapes)
{
	struct stalefs_body_entry e = { .path = "/a|b%c\nd\x7f" "e\xc3\xa9", .ino = 3, .name_type = STALEFS_FT_REG };
	char *l = line_of("/m|", &e);

	ck_assert_str_eq(l, "0|/m%7C/a%7Cb%25c^d^e\xc3\xa9|3|r/----------|0|0|0|0|0|0|0\n");
	free(l);
}
END_TEST

START_TEST(mode_strings)
{
	char m[11];

	stalefs_mode_string(STALEFS_S_IFREG | 0644, m);
	ck_assert_str_eq(m, "-rw-r--r--");
	stalefs_mode_string(STALEFS_S_IFDIR | 01777, m);
	ck_assert_str_eq(m, "drwxrwxrwt");
	stalefs_mode_string(STALEFS_S_IFREG | 06644, m);
	ck_assert_str_eq(m, "-rwSr-Sr--");
	stalefs_mode_string(0170000 | 0644, m);
	ck_assert_str_eq(m, "?rw-r--r--");
}
END_TEST

struct names {
	char seen[32][STALEFS_NAME_LEN + 1];
	u32 ino[32];
	bool deleted[32];
	int n;
};

static int names_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct names *n = priv;

	(void)fs;
	if (!de->name_len || n->n == 32)
		return 0;
	memcpy(n->seen[n->n], de->name, de->name_len + 1);
	n->ino[n->n] = de->ino;
	n->deleted[n->n] = de->deleted;
	n->n++;
	return 0;
}

static int find_name(const struct names *n, const char *name)
{
	int i;

	for (i = 0; i < n->n; i++)
		if (strcmp(n->seen[i], name) == 0)
			return i;
	return -1;
}

static void scan_dir(stalefs_fs *fs, u32 dir, int flags, struct names *n)
{
	struct stalefs_inode inode;
	const struct stalefs_dir_scan_ops ops = { .flags = flags, .entry = names_cb };

	memset(n, 0, sizeof(*n));
	ck_ok(stalefs_read_inode(fs, dir, &inode));
	ck_assert_int_eq(stalefs_dir_scan(fs, dir, &inode, &ops, n), 0);
}

/* A removal leaves the entry inside its neighbour's rec_len; the scan finds it there. */
START_TEST(removed_entries)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 4096);
	struct names n;
	u32 a, b, c, d, ino;
	int i;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "alpha", STALEFS_S_IFREG | 0644, 0, 0, &a));
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "bravo", STALEFS_S_IFREG | 0644, 0, 0, &b));
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "charlie", STALEFS_S_IFREG | 0644, 0, 0, &c));
	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "delta", 0755, 0, 0, &d));
	ck_ok(stalefs_unlink(fs, STALEFS_ROOT_INO, "bravo", &ino));
	ck_assert_uint_eq(ino, b);
	ck_ok(stalefs_unlink(fs, STALEFS_ROOT_INO, "charlie", &ino));
	/* Without the flag: only live names. */
	scan_dir(fs, STALEFS_ROOT_INO, 0, &n);
	ck_assert_int_eq(find_name(&n, "bravo"), -1);
	ck_assert_int_eq(find_name(&n, "charlie"), -1);
	ck_assert_int_ge(find_name(&n, "alpha"), 0);
	/* With it: both removed names, in order, with the inodes they named. */
	scan_dir(fs, STALEFS_ROOT_INO, STALEFS_DIR_ITER_DELETED, &n);
	i = find_name(&n, "bravo");
	ck_assert_int_ge(i, 0);
	ck_assert(n.deleted[i]);
	ck_assert_uint_eq(n.ino[i], b);
	ck_assert_int_eq(find_name(&n, "charlie"), i + 1);
	ck_assert(n.deleted[i + 1]);
	ck_assert_uint_eq(n.ino[i + 1], c);
	i = find_name(&n, "alpha");
	ck_assert(!n.deleted[i]);
	ck_assert_uint_eq(n.ino[i], a);
	ck_assert(!n.deleted[find_name(&n, "delta")]);
	/* A new name written over the space: what it overwrote is gone, not invented. */
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "echo-a-long-name-over-both", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	scan_dir(fs, STALEFS_ROOT_INO, STALEFS_DIR_ITER_DELETED, &n);
	for (i = 0; i < n.n; i++)
		ck_assert_msg(!n.deleted[i] || !strcmp(n.seen[i], "bravo") || !strcmp(n.seen[i], "charlie"),
			      "invented a removed entry \"%s\"", n.seen[i]);
	scratch_done(&s);
}
END_TEST

static char *timeline_of(stalefs_fs *fs, const struct stalefs_timeline_opts *o, struct stalefs_timeline_stats *st)
{
	struct memout m;

	mem_open(&m);
	ck_ok(stalefs_timeline(fs, o, m.f, st));
	return mem_close(&m);
}

static void has_line(const char *out, const char *start)
{
	const char *p;
	size_t n = strlen(start);

	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, start, n) == 0)
			return;
	ck_abort_msg("no line starting \"%s\" in:\n%s", start, out);
}

static void no_line(const char *out, const char *part)
{
	ck_assert_msg(!strstr(out, part), "\"%s\" in:\n%s", part, out);
}

START_TEST(timeline_walk)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 4096);
	struct stalefs_timeline_opts o = { 0 };
	struct stalefs_timeline_stats st;
	struct stalefs_inode in;
	u32 keep, gone, dir, inner, lone, loose, link;
	char want[128], *out;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "keep", STALEFS_S_IFREG | 0644, 1, 2, &keep));
	ck_ok(stalefs_file_write(fs, keep, 0, "hello\n", 6));
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "gone", STALEFS_S_IFREG | 0600, 0, 0, &gone));
	ck_ok(stalefs_symlink(fs, STALEFS_ROOT_INO, "ln", "keep", 0, 0, &link));
	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "olddir", 0755, 0, 0, &dir));
	ck_ok(stalefs_create(fs, dir, "inner", STALEFS_S_IFREG | 0644, 0, 0, &inner));
	/* In use with no name, and deleted with no name. */
	ck_ok(stalefs_alloc_inode(fs, STALEFS_ROOT_INO, STALEFS_S_IFREG, &loose));
	stalefs_inode_init(fs, loose, &in, STALEFS_S_IFREG | 0640, 0, 0);
	in.i_links_count = cpu_to_le16(1);
	ck_ok(stalefs_write_inode(fs, loose, &in));
	ck_ok(stalefs_alloc_inode(fs, STALEFS_ROOT_INO, STALEFS_S_IFREG, &lone));
	stalefs_inode_init(fs, lone, &in, STALEFS_S_IFREG | 0644, 0, 0);
	in.i_links_count = cpu_to_le16(1);
	ck_ok(stalefs_write_inode(fs, lone, &in));
	/* Removed, as rm and rmdir remove them (after every allocation: no inode is reused). */
	ck_ok(stalefs_unlink(fs, STALEFS_ROOT_INO, "gone", NULL));
	ck_ok(stalefs_drop_link(fs, gone));
	ck_ok(stalefs_unlink(fs, dir, "inner", NULL));
	ck_ok(stalefs_drop_link(fs, inner));
	ck_ok(stalefs_unlink(fs, STALEFS_ROOT_INO, "olddir", NULL));
	ck_ok(stalefs_delete_inode(fs, dir));
	ck_ok(stalefs_delete_inode(fs, lone));

	o.hash = STALEFS_HASH_MD5;
	out = timeline_of(fs, &o, &st);
	has_line(out, "0|/|2|d/drwxr-xr-x|");
	has_line(out, "0|/lost+found|11|d/drwx------|");
	snprintf(want, sizeof(want), "b1946ac92492d2347c6235b4d2611184|/keep|%u|r/rrw-r--r--|1|2|6|", keep);
	has_line(out, want);
	snprintf(want, sizeof(want), "0|/gone (deleted)|%u|r/rrw-------|", gone);
	has_line(out, want);
	snprintf(want, sizeof(want), "0|/ln -> keep|%u|l/lrwxrwxrwx|", link);
	has_line(out, want);
	snprintf(want, sizeof(want), "0|/olddir (deleted)|%u|d/drwxr-xr-x|", dir);
	has_line(out, want);
	snprintf(want, sizeof(want), "0|/olddir/inner (deleted)|%u|r/rrw-r--r--|", inner);
	has_line(out, want);
	snprintf(want, sizeof(want), "0|/$OrphanFiles|%u|V/V---------|", fs->geom.inodes_count + 1);
	has_line(out, want);
	/* In use: hashed like any file in use (it is empty). */
	snprintf(want, sizeof(want), "d41d8cd98f00b204e9800998ecf8427e|/$OrphanFiles/OrphanFile-%u|%u|-/rrw-r-----|",
		 loose, loose);
	has_line(out, want);
	snprintf(want, sizeof(want), "0|/$OrphanFiles/OrphanFile-%u (deleted)|%u|-/rrw-r--r--|", lone, lone);
	has_line(out, want);
	/* Named inodes are not orphans, whatever became of them. */
	snprintf(want, sizeof(want), "OrphanFile-%u|", gone);
	no_line(out, want);
	snprintf(want, sizeof(want), "OrphanFile-%u|", inner);
	no_line(out, want);
	ck_assert_uint_eq(st.entries, 10);
	ck_assert_uint_eq(st.deleted, 4);
	ck_assert_uint_eq(st.orphans, 2);
	ck_assert_uint_eq(st.problems, 0);
	free(out);

	/* -d: deleted only; -u: names in use only (and inodes in use no name refers to). */
	o = (struct stalefs_timeline_opts){ .deleted_only = true, .prefix = "/evidence/" };
	out = timeline_of(fs, &o, &st);
	no_line(out, "|/evidence/keep|");
	no_line(out, "$OrphanFiles|");
	snprintf(want, sizeof(want), "0|/evidence/gone (deleted)|%u|", gone);
	has_line(out, want);
	ck_assert_uint_eq(st.entries, 4);
	free(out);
	o = (struct stalefs_timeline_opts){ .allocated_only = true };
	out = timeline_of(fs, &o, &st);
	no_line(out, "(deleted");
	has_line(out, "0|/keep|");
	snprintf(want, sizeof(want), "0|/$OrphanFiles/OrphanFile-%u|", loose);
	has_line(out, want);
	free(out);
	scratch_done(&s);
}
END_TEST

/* A directory block that fails its checksum: said, and the rest is still listed. */
static void count_problem(void *priv, const char *what)
{
	(void)what;
	(*(int *)priv)++;
}

START_TEST(timeline_damage)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 4096);
	int problems = 0;
	struct stalefs_timeline_opts o = { .problem = count_problem, .priv = &problems };
	struct stalefs_timeline_stats st;
	u32 dir, f, g;
	u64 pblk;
	u16 flags;
	u8 *blk = malloc(4096);
	char *out;

	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "bad", 0755, 0, 0, &dir));
	ck_ok(stalefs_create(fs, dir, "hidden", STALEFS_S_IFREG | 0644, 0, 0, &f));
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "fine", STALEFS_S_IFREG | 0644, 0, 0, &g));
	ck_ok(stalefs_bmap(fs, dir, 0, &pblk, &flags));
	ck_ok(stalefs_read_block(fs, pblk, blk));
	blk[100] ^= 0xff;		/* inside an entry's name: the checksum fails */
	ck_ok(stalefs_io_write(fs->io, pblk, 1, blk));
	out = timeline_of(fs, &o, &st);
	has_line(out, "0|/fine|");
	has_line(out, "0|/bad|");
	ck_assert_uint_eq(st.problems, 1);
	ck_assert_int_eq(problems, 1);
	free(out);
	free(blk);
	scratch_done(&s);
}
END_TEST

Suite *timeline_suite(void)
{
	Suite *su = suite_create("timeline");
	TCase *tc = tcase_create("timeline");

	tcase_add_test(tc, body_lines);
	tcase_add_test(tc, body_escapes);
	tcase_add_test(tc, mode_strings);
	tcase_add_test(tc, removed_entries);
	tcase_add_test(tc, timeline_walk);
	tcase_add_test(tc, timeline_damage);
	suite_add_tcase(su, tc);
	return su;
}
