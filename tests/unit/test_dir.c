/*
 * Directories and names: many entries spanning blocks, names of length 1
 * and 255, invalid names, removal and re-use of space, mkdir link counts,
 * namei with symlinks (and their loops), damaged blocks, and everything
 * still there after close and reopen.
 */
#include <errno.h>
#include <stdio.h>
#include "unit.h"

#define NAMES 400

/* Names of varied length (1..60 and a few of 255), all distinct. */
/* sep '_' for the first generation of names, '-' for their same-length replacements. */
static void name_sep(u32 i, char *out, char sep)
{
	u32 len = i % 7 == 3 ? 255 : 1 + (i * 37) % 60, n = (u32)snprintf(out, 300, "%u%c", i, sep);

	for (; n < len; n++)
		out[n] = (char)('a' + (i + n) % 26);
	out[n] = '\0';
}

static void name_of(u32 i, char *out)
{
	name_sep(i, out, '_');
}

struct collect {
	u32 count, dots;
	u8 *seen;	/* by inode number */
	u32 max_ino;
};

static int collect_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct collect *c = priv;

	(void)fs;
	if ((de->name_len == 1 && de->name[0] == '.') || (de->name_len == 2 && memcmp(de->name, "..", 2) == 0)) {
		c->dots++;
		return 0;
	}
	if (de->ino > c->max_ino || c->seen[de->ino])
		return -EINVAL;
	c->seen[de->ino] = 1;
	c->count++;
	return 0;
}

/* Every block of a directory verifies: header, entries, inode numbers, checksum. */
static void dir_blocks_verify(stalefs_fs *fs, u32 dir)
{
	struct stalefs_inode inode;
	u8 *buf = malloc(fs->block_size);
	u32 lblk, nblocks;

	ck_ok(stalefs_read_inode(fs, dir, &inode));
	nblocks = (u32)(le64_to_cpu(inode.i_size) / fs->block_size);
	ck_assert_uint_eq(le64_to_cpu(inode.i_size) % fs->block_size, 0);
	for (lblk = 0; lblk < nblocks; lblk++) {
		u64 pblk;
		u16 flags;

		ck_ok(stalefs_bmap(fs, dir, lblk, &pblk, &flags));
		ck_assert_msg(pblk != 0, "directory block %u is a hole", lblk);
		ck_ok(stalefs_read_block(fs, pblk, buf));
		ck_assert_int_eq(stalefs_verify_dirblock(buf, fs->block_size, pblk, dir, lblk), 0);
		ck_assert_int_eq(stalefs_verify_dirblock_inodes(&fs->geom, buf), 0);
		ck_assert_int_eq(stalefs_verify_dirblock_csum(fs->seed, buf, fs->block_size), 0);
	}
	free(buf);
}

START_TEST(many_entries)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 1024);
	u32 dir, *inos = calloc(NAMES, sizeof(u32)), i, ino;
	char name[300];
	struct collect c = { 0 };
	struct stalefs_inode inode;

	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "big", 0755, 0, 0, &dir));
	for (i = 0; i < NAMES; i++) {
		name_of(i, name);
		ck_ok(stalefs_create(fs, dir, name, STALEFS_S_IFREG | 0644, 0, 0, &inos[i]));
	}
	ck_ok(stalefs_read_inode(fs, dir, &inode));
	ck_assert_uint_gt(le64_to_cpu(inode.i_size) / 1024, 20);	/* spans many blocks */
	dir_blocks_verify(fs, dir);
	fs = scratch_reopen(&s);
	for (i = 0; i < NAMES; i++) {
		name_of(i, name);
		ck_ok(stalefs_lookup(fs, dir, name, strlen(name), &ino));
		ck_assert_uint_eq(ino, inos[i]);
	}
	c.max_ino = fs->geom.inodes_count;
	c.seen = calloc(c.max_ino + 1, 1);
	ck_ok(stalefs_dir_iterate(fs, dir, 0, collect_cb, &c));
	ck_assert_uint_eq(c.count, NAMES);
	ck_assert_uint_eq(c.dots, 2);
	for (i = 0; i < NAMES; i++)
		ck_assert(c.seen[inos[i]]);
	/* A name that is a prefix of an existing one, or differs in the last byte, is not found. */
	name_of(3, name);
	ck_assert_uint_eq(strlen(name), 255);
	ck_err(stalefs_lookup(fs, dir, name, 254, &ino), STALEFS_ERR_NOT_FOUND);
	name[254] ^= 1;
	ck_err(stalefs_lookup(fs, dir, name, 255, &ino), STALEFS_ERR_NOT_FOUND);
	free(c.seen);
	free(inos);
	scratch_done(&s);
}
END_TEST

START_TEST(name_edges)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 4096);
	char n255[256], n256[257];
	u32 ino, a, b;

	memset(n255, 'x', 255);
	n255[255] = '\0';
	memset(n256, 'y', 256);
	n256[256] = '\0';
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "a", STALEFS_S_IFREG | 0644, 0, 0, &a));
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, n255, STALEFS_S_IFREG | 0644, 0, 0, &b));
	ck_ok(stalefs_lookup(fs, STALEFS_ROOT_INO, "a", 1, &ino));
	ck_assert_uint_eq(ino, a);
	ck_ok(stalefs_lookup(fs, STALEFS_ROOT_INO, n255, 255, &ino));
	ck_assert_uint_eq(ino, b);
	ck_err(stalefs_create(fs, STALEFS_ROOT_INO, n256, STALEFS_S_IFREG | 0644, 0, 0, &ino),
	       STALEFS_ERR_NAME_TOO_LONG);
	ck_err(stalefs_lookup(fs, STALEFS_ROOT_INO, n256, 256, &ino), STALEFS_ERR_NAME_TOO_LONG);
	ck_err(stalefs_create(fs, STALEFS_ROOT_INO, "", STALEFS_S_IFREG | 0644, 0, 0, &ino), STALEFS_ERR_BAD_NAME);
	ck_err(stalefs_create(fs, STALEFS_ROOT_INO, "a/b", STALEFS_S_IFREG | 0644, 0, 0, &ino), STALEFS_ERR_BAD_NAME);
	ck_err(stalefs_create(fs, STALEFS_ROOT_INO, ".", STALEFS_S_IFREG | 0644, 0, 0, &ino), STALEFS_ERR_BAD_NAME);
	ck_err(stalefs_create(fs, STALEFS_ROOT_INO, "..", STALEFS_S_IFREG | 0644, 0, 0, &ino), STALEFS_ERR_BAD_NAME);
	ck_err(stalefs_mkdir(fs, STALEFS_ROOT_INO, "x/", 0755, 0, 0, &ino), STALEFS_ERR_BAD_NAME);
	ck_err(stalefs_create(fs, STALEFS_ROOT_INO, "a", STALEFS_S_IFREG | 0644, 0, 0, &ino), STALEFS_ERR_EXISTS);
	ck_err(stalefs_link(fs, STALEFS_ROOT_INO, "q/r", a, STALEFS_FT_REG), STALEFS_ERR_BAD_NAME);
	ck_err(stalefs_link(fs, STALEFS_ROOT_INO, n256, a, STALEFS_FT_REG), STALEFS_ERR_NAME_TOO_LONG);
	ck_assert(stalefs_name_valid("...", 3));
	ck_assert(!stalefs_name_valid("a\0b", 3));
	ck_assert(!stalefs_name_valid("..", 2));
	/* A failed create leaves no inode behind. */
	ck_assert(!stalefs_test_inode(fs, b + 1));
	ck_err(stalefs_lookup(fs, a, "x", 1, &ino), STALEFS_ERR_NOT_DIR);
	ck_err(stalefs_unlink(fs, STALEFS_ROOT_INO, "nope", &ino), STALEFS_ERR_NOT_FOUND);
	dir_blocks_verify(fs, STALEFS_ROOT_INO);
	scratch_done(&s);
}
END_TEST

START_TEST(remove_and_reuse)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 1024);
	u32 dir, i, ino;
	char name[300];
	struct stalefs_inode inode;
	u64 size;
	struct collect c = { 0 };

	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "d", 0755, 0, 0, &dir));
	for (i = 0; i < 120; i++) {
		name_of(i, name);
		ck_ok(stalefs_create(fs, dir, name, STALEFS_S_IFREG | 0644, 0, 0, &ino));
	}
	ck_ok(stalefs_read_inode(fs, dir, &inode));
	size = le64_to_cpu(inode.i_size);
	/* Remove every other entry (first-in-block ones included), then add as many of the same lengths. */
	for (i = 0; i < 120; i += 2) {
		u32 removed;

		name_of(i, name);
		ck_ok(stalefs_unlink(fs, dir, name, &removed));
		ck_err(stalefs_lookup(fs, dir, name, strlen(name), &ino), STALEFS_ERR_NOT_FOUND);
		ck_ok(stalefs_drop_link(fs, removed));
		ck_assert(!stalefs_test_inode(fs, removed));
	}
	dir_blocks_verify(fs, dir);
	for (i = 0; i < 120; i += 2) {
		name_sep(i, name, '-');
		ck_ok(stalefs_create(fs, dir, name, STALEFS_S_IFREG | 0644, 0, 0, &ino));
	}
	ck_ok(stalefs_read_inode(fs, dir, &inode));
	ck_assert_msg(le64_to_cpu(inode.i_size) == size, "directory grew from %llu to %llu bytes instead of reusing space",
		      (unsigned long long)size, (unsigned long long)le64_to_cpu(inode.i_size));
	fs = scratch_reopen(&s);
	dir_blocks_verify(fs, dir);
	c.max_ino = fs->geom.inodes_count;
	c.seen = calloc(c.max_ino + 1, 1);
	ck_ok(stalefs_dir_iterate(fs, dir, 0, collect_cb, &c));
	ck_assert_uint_eq(c.count, 120);
	for (i = 1; i < 120; i += 2) {
		name_of(i, name);
		ck_ok(stalefs_lookup(fs, dir, name, strlen(name), &ino));
	}
	free(c.seen);
	scratch_done(&s);
}
END_TEST

static u16 links_of(stalefs_fs *fs, u32 ino)
{
	struct stalefs_inode inode;

	ck_ok(stalefs_read_inode(fs, ino, &inode));
	return le16_to_cpu(inode.i_links_count);
}

START_TEST(mkdir_links)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 4096);
	u32 a, b, ino, f;
	u16 root_links = links_of(fs, STALEFS_ROOT_INO);
	bool empty;

	/* Root: ".", its own "..", and lost+found's "..". */
	ck_assert_uint_eq(root_links, 3);
	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "a", 0755, 0, 0, &a));
	ck_ok(stalefs_mkdir(fs, a, "b", 0700, 0, 0, &b));
	ck_ok(stalefs_create(fs, b, "f", STALEFS_S_IFREG | 0600, 0, 0, &f));
	ck_assert_uint_eq(links_of(fs, STALEFS_ROOT_INO), 4);
	ck_assert_uint_eq(links_of(fs, a), 3);
	ck_assert_uint_eq(links_of(fs, b), 2);
	ck_assert_uint_eq(links_of(fs, f), 1);
	ck_ok(stalefs_lookup(fs, b, "..", 2, &ino));
	ck_assert_uint_eq(ino, a);
	ck_ok(stalefs_lookup(fs, b, ".", 1, &ino));
	ck_assert_uint_eq(ino, b);
	ck_ok(stalefs_lookup(fs, STALEFS_ROOT_INO, "..", 2, &ino));
	ck_assert_uint_eq(ino, STALEFS_ROOT_INO);
	ck_ok(stalefs_dir_is_empty(fs, a, &empty));
	ck_assert(!empty);
	ck_ok(stalefs_dir_is_empty(fs, b, &empty));
	ck_assert(!empty);
	ck_ok(stalefs_dir_is_empty(fs, le32_to_cpu(fs->sb.s_lpf_ino), &empty));
	ck_assert(empty);
	/* A hard link counts; dropping it does not free the inode. */
	ck_ok(stalefs_link(fs, a, "hard", f, STALEFS_FT_REG));
	{
		struct stalefs_inode inode;

		ck_ok(stalefs_read_inode(fs, f, &inode));
		inode.i_links_count = cpu_to_le16(2);
		ck_ok(stalefs_write_inode(fs, f, &inode));
	}
	ck_ok(stalefs_unlink(fs, b, "f", &ino));
	ck_ok(stalefs_drop_link(fs, ino));
	ck_assert_uint_eq(links_of(fs, f), 1);
	ck_assert(stalefs_test_inode(fs, f));
	ck_ok(stalefs_dir_is_empty(fs, b, &empty));
	ck_assert(empty);
	fs = scratch_reopen(&s);
	ck_assert_uint_eq(links_of(fs, STALEFS_ROOT_INO), 4);
	ck_assert_uint_eq(links_of(fs, a), 3);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "/a/hard", false, &ino));
	ck_assert_uint_eq(ino, f);
	scratch_done(&s);
}
END_TEST

START_TEST(namei_and_symlinks)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 1024);
	u32 a, b, f, l1, l2, lx, ly, labs, llong, ino, dir;
	const char *name;
	char target[600], back[1100];
	size_t i;

	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "a", 0755, 0, 0, &a));
	ck_ok(stalefs_mkdir(fs, a, "b", 0755, 0, 0, &b));
	ck_ok(stalefs_create(fs, b, "f", STALEFS_S_IFREG | 0644, 0, 0, &f));
	ck_ok(stalefs_symlink(fs, STALEFS_ROOT_INO, "l1", "a/b", 0, 0, &l1));
	ck_ok(stalefs_symlink(fs, a, "l2", "../l1/f", 0, 0, &l2));
	ck_ok(stalefs_symlink(fs, STALEFS_ROOT_INO, "abs", "/a/b/f", 0, 0, &labs));
	ck_ok(stalefs_symlink(fs, STALEFS_ROOT_INO, "x", "y", 0, 0, &lx));
	ck_ok(stalefs_symlink(fs, STALEFS_ROOT_INO, "y", "x/z", 0, 0, &ly));
	/* A target too long to sit in the inode: it goes to a block. */
	for (i = 0; i < 200; i++)
		memcpy(target + 2 * i, "./", 2);
	strcpy(target + 400, "a/b/f");
	ck_ok(stalefs_symlink(fs, STALEFS_ROOT_INO, "long", target, 0, 0, &llong));

	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "/a/b/f", false, &ino));
	ck_assert_uint_eq(ino, f);
	ck_ok(stalefs_namei(fs, a, "b/f", false, &ino));
	ck_assert_uint_eq(ino, f);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "//a///b//", false, &ino));
	ck_assert_uint_eq(ino, b);
	ck_ok(stalefs_namei(fs, b, "../../a/./b/f", false, &ino));
	ck_assert_uint_eq(ino, f);
	/* The last component is followed only on request; inner ones always. */
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "/l1", false, &ino));
	ck_assert_uint_eq(ino, l1);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "/l1", true, &ino));
	ck_assert_uint_eq(ino, b);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "/l1/f", false, &ino));
	ck_assert_uint_eq(ino, f);
	/* Relative targets resolve from the link's directory; chains work. */
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "/a/l2", true, &ino));
	ck_assert_uint_eq(ino, f);
	ck_ok(stalefs_namei(fs, b, "/abs", true, &ino));
	ck_assert_uint_eq(ino, f);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "long", true, &ino));
	ck_assert_uint_eq(ino, f);
	ck_ok(stalefs_read_symlink(fs, llong, back, sizeof(back)));
	ck_assert_str_eq(back, target);
	ck_ok(stalefs_read_symlink(fs, l2, back, sizeof(back)));
	ck_assert_str_eq(back, "../l1/f");
	/* x -> y -> x/z -> ...: a loop. */
	ck_err(stalefs_namei(fs, STALEFS_ROOT_INO, "/x", true, &ino), STALEFS_ERR_SYMLINK_LOOP);
	ck_err(stalefs_namei(fs, STALEFS_ROOT_INO, "/y/q", false, &ino), STALEFS_ERR_SYMLINK_LOOP);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "/x", false, &ino));
	ck_assert_uint_eq(ino, lx);
	/* Missing components, files used as directories. */
	ck_err(stalefs_namei(fs, STALEFS_ROOT_INO, "/a/nope", false, &ino), STALEFS_ERR_NOT_FOUND);
	ck_err(stalefs_namei(fs, STALEFS_ROOT_INO, "/a/b/f/g", false, &ino), STALEFS_ERR_NOT_DIR);
	ck_err(stalefs_namei(fs, STALEFS_ROOT_INO, "", false, &ino), STALEFS_ERR_NOT_FOUND);
	ck_ok(stalefs_namei_parent(fs, STALEFS_ROOT_INO, "/a/b/newname", &dir, &name));
	ck_assert_uint_eq(dir, b);
	ck_assert_str_eq(name, "newname");
	ck_ok(stalefs_namei_parent(fs, STALEFS_ROOT_INO, "/top", &dir, &name));
	ck_assert_uint_eq(dir, STALEFS_ROOT_INO);
	ck_err(stalefs_namei_parent(fs, STALEFS_ROOT_INO, "/a/", &dir, &name), STALEFS_ERR_BAD_NAME);
	/* Symlink targets: empty, or longer than a block, are refused. */
	ck_err(stalefs_symlink(fs, STALEFS_ROOT_INO, "e", "", 0, 0, &ino), STALEFS_ERR_NAME_TOO_LONG);
	memset(back, 'q', 1024);
	back[1024] = '\0';
	ck_err(stalefs_symlink(fs, STALEFS_ROOT_INO, "e", back, 0, 0, &ino), STALEFS_ERR_NAME_TOO_LONG);
	fs = scratch_reopen(&s);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "/a/l2", true, &ino));
	ck_assert_uint_eq(ino, f);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "long", true, &ino));
	ck_assert_uint_eq(ino, f);
	(void)ly;
	scratch_done(&s);
}
END_TEST

/* 119 bytes fit in the inode; 120 take a block; the longest fits a block minus one byte. */
START_TEST(symlink_sizes)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 1024);
	static const u32 lens[] = { 1, 118, 119, 120, 1023 };
	char target[1024], back[1100], name[8];
	struct stalefs_inode inode;
	size_t i;
	u32 ino;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(target, 'a' + (int)i, lens[i]);
		target[lens[i]] = '\0';
		snprintf(name, sizeof(name), "l%zu", i);
		ck_ok(stalefs_symlink(fs, STALEFS_ROOT_INO, name, target, 0, 0, &ino));
		ck_ok(stalefs_read_inode(fs, ino, &inode));
		ck_assert_uint_eq(le64_to_cpu(inode.i_size), lens[i]);
		ck_assert_uint_eq(le16_to_cpu(inode.i_mode), STALEFS_S_IFLNK | 0777);
		if (lens[i] <= STALEFS_INLINE_SYMLINK_MAX) {
			ck_assert(le32_to_cpu(inode.i_flags) & STALEFS_INODE_INLINE_FL);
			ck_assert_uint_eq(le64_to_cpu(inode.i_blocks), 0);
		} else {
			ck_assert(!(le32_to_cpu(inode.i_flags) & STALEFS_INODE_INLINE_FL));
			ck_assert_uint_eq(le64_to_cpu(inode.i_blocks), 1);
		}
		ck_assert_int_eq(stalefs_verify_inode(&fs->geom, ino, &inode), 0);
		ck_ok(stalefs_read_symlink(fs, ino, back, sizeof(back)));
		ck_assert_str_eq(back, target);
		/* A buffer one byte short (no room for the NUL) is refused, not overrun. */
		ck_err(stalefs_read_symlink(fs, ino, back, lens[i]), STALEFS_ERR_NAME_TOO_LONG);
	}
	fs = scratch_reopen(&s);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "l3", false, &ino));
	ck_ok(stalefs_read_symlink(fs, ino, back, sizeof(back)));
	ck_assert_uint_eq(strlen(back), 120);
	scratch_done(&s);
}
END_TEST

/* A create that fails for want of a directory block leaves no half-made inode behind. */
START_TEST(create_fails_cleanly)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 1024);
	u64 start, b, zeros = 0;
	u32 got, ino, i, free_inodes, dirs, n;
	char name[16];
	errcode_t err = 0;
	struct stalefs_inode raw;
	int rule;

	while (stalefs_alloc_blocks(fs, 0, 1024, &start, &got) == 0)
		;
	for (i = 0; i < 1000 && !err; i++) {
		snprintf(name, sizeof(name), "file%04u", i);
		err = stalefs_create(fs, STALEFS_ROOT_INO, name, STALEFS_S_IFREG | 0644, 0, 0, &ino);
	}
	ck_err(err, STALEFS_ERR_NO_SPACE);
	free_inodes = le32_to_cpu(fs->sb.s_free_inodes_count);
	ck_ok(stalefs_find_free_inode(fs, STALEFS_FIRST_INO, &ino));
	ck_ok(stalefs_read_inode_raw(fs, ino, &raw, &rule));
	ck_assert_msg(raw.i_mode == 0 || (raw.i_links_count == 0 && raw.i_dtime != 0),
		      "inode %u is free in the bitmap but its slot looks in use (mode 0%o, links %u)", ino,
		      le16_to_cpu(raw.i_mode), le16_to_cpu(raw.i_links_count));
	ck_err(stalefs_lookup(fs, STALEFS_ROOT_INO, name, strlen(name), &ino), STALEFS_ERR_NOT_FOUND);
	/* mkdir finds no block for its own directory: the inode and its group's counts are given back. */
	dirs = le32_to_cpu(fs->groups[0].desc.bg_used_dirs_count);
	ck_err(stalefs_mkdir(fs, STALEFS_ROOT_INO, "d", 0755, 0, 0, &ino), STALEFS_ERR_NO_SPACE);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_free_inodes_count), free_inodes);
	for (i = 0, n = 0; i < fs->geom.groups_count; i++)
		n += le32_to_cpu(fs->groups[i].desc.bg_used_dirs_count);
	ck_assert_uint_eq(n, dirs);
	for (b = 0; b < fs->geom.blocks_count; b++)
		zeros += !stalefs_test_block(fs, b);
	ck_assert_uint_eq(zeros, 0);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), 0);
	fs = scratch_reopen(&s);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_free_inodes_count), free_inodes);
	scratch_done(&s);
}
END_TEST

START_TEST(damaged_dir_block)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 8 << 20, 4096);
	u32 d, e, ino;
	u64 pd, pe;
	u16 flags;
	u8 buf[4096];

	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "d", 0755, 0, 0, &d));
	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "e", 0755, 0, 0, &e));
	ck_ok(stalefs_create(fs, d, "file", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_bmap(fs, d, 0, &pd, &flags));
	ck_ok(stalefs_bmap(fs, e, 0, &pe, &flags));
	/* e's block copied over d's: it names another block and owner. */
	ck_ok(stalefs_read_block(fs, pe, buf));
	ck_ok(stalefs_write_block(fs, pd, buf));
	ck_err(stalefs_lookup(fs, d, "file", 4, &ino), STALEFS_ERR_DIR_CORRUPT);
	/* d's own block with one bit flipped: the checksum says so. */
	ck_ok(stalefs_read_block(fs, pe, buf));
	{
		struct stalefs_dir_block *db = (void *)buf;

		db->db_blocknr = cpu_to_le64(pd);
		db->db_owner = cpu_to_le32(d);
		stalefs_dirblock_set_csum(fs->seed, buf, 4096);
		ck_ok(stalefs_write_block(fs, pd, buf));
		ck_err(stalefs_lookup(fs, d, "file", 4, &ino), STALEFS_ERR_NOT_FOUND);
		buf[4000] ^= 1;
		ck_ok(stalefs_write_block(fs, pd, buf));
		ck_err(stalefs_lookup(fs, d, "file", 4, &ino), STALEFS_ERR_DIR_CSUM);
	}
	scratch_done(&s);
}
END_TEST

/* What the tolerant scan met: entries per block, and the damage it named. */
struct scan_seen {
	u32 per_block[64], entries;
	u32 bad_blocks[64], bad_rec_len[64], bad_name_len[64];
	int tree;
};

static int scan_entry_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct scan_seen *s = priv;

	(void)fs;
	ck_assert_uint_lt(de->lblk, 64);
	s->per_block[de->lblk]++;
	s->entries++;
	return 0;
}

static int scan_bad_block(stalefs_fs *fs, const struct stalefs_dirblock_info *b, void *priv)
{
	(void)fs;
	ck_assert_int_ne(b->rule, 0);
	((struct scan_seen *)priv)->bad_blocks[b->lblk]++;
	return 0;
}

static int scan_bad_entry(stalefs_fs *fs, const struct stalefs_dirent_info *de, int rule, void *priv)
{
	struct scan_seen *s = priv;

	(void)fs;
	if (rule == STALEFS_R_DIR_REC_LEN)
		s->bad_rec_len[de->lblk]++;
	else if (rule == STALEFS_R_DIR_NAME_LEN)
		s->bad_name_len[de->lblk]++;
	else
		ck_abort_msg("unexpected entry rule %d", rule);
	return 0;
}

static int scan_bad_tree(stalefs_fs *fs, u32 dir, int bad_nodes, void *priv)
{
	(void)fs;
	(void)dir;
	((struct scan_seen *)priv)->tree += bad_nodes;
	return 0;
}

static const struct stalefs_dir_scan_ops scan_ops = {
	.entry = scan_entry_cb, .bad_block = scan_bad_block, .bad_entry = scan_bad_entry, .bad_tree = scan_bad_tree,
};

/* The scan goes on past damaged blocks and entries and says what it lost. */
START_TEST(scan_past_damage)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 1024);
	struct stalefs_inode inode;
	struct scan_seen clean, seen;
	struct stalefs_dir_entry *de;
	u32 dir, i, ino;
	u64 pblk;
	u16 flags;
	char name[300];
	u8 buf[1024];
	const u32 hdr = sizeof(struct stalefs_dir_block);

	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "big", 0755, 0, 0, &dir));
	for (i = 0; i < 120; i++) {
		name_of(i, name);
		ck_ok(stalefs_create(fs, dir, name, STALEFS_S_IFREG | 0644, 0, 0, &ino));
	}
	ck_ok(stalefs_read_inode(fs, dir, &inode));
	memset(&clean, 0, sizeof(clean));
	ck_assert_int_eq(stalefs_dir_scan(fs, dir, &inode, &scan_ops, &clean), 0);
	ck_assert_uint_eq(clean.entries, 122);	/* and . and .. */
	ck_assert_uint_gt(clean.per_block[3], 1);

	/* Block 1: the chain breaks at its first entry. */
	ck_ok(stalefs_bmap(fs, dir, 1, &pblk, &flags));
	ck_ok(stalefs_read_block(fs, pblk, buf));
	de = (void *)(buf + hdr);
	de->rec_len = cpu_to_le16(3);
	ck_ok(stalefs_write_block(fs, pblk, buf));
	/* Block 2: one bit of its last byte: only the checksum (or a name) knows. */
	ck_ok(stalefs_bmap(fs, dir, 2, &pblk, &flags));
	ck_ok(stalefs_read_block(fs, pblk, buf));
	buf[sizeof(buf) - 1] ^= 1;
	ck_ok(stalefs_write_block(fs, pblk, buf));
	/* Block 3: its first entry in use with no name. */
	ck_ok(stalefs_bmap(fs, dir, 3, &pblk, &flags));
	ck_ok(stalefs_read_block(fs, pblk, buf));
	de = (void *)(buf + hdr);
	de->name_len = 0;
	stalefs_dirblock_set_csum(fs->seed, buf, sizeof(buf));
	ck_ok(stalefs_write_block(fs, pblk, buf));

	ck_assert_int_ne(stalefs_dir_iterate(fs, dir, 0, collect_cb,
					     &(struct collect){ .max_ino = 0 }), 0);	/* the strict one stops */
	memset(&seen, 0, sizeof(seen));
	ck_assert_int_eq(stalefs_dir_scan(fs, dir, &inode, &scan_ops, &seen), 0);
	ck_assert_uint_eq(seen.bad_blocks[1], 1);
	ck_assert_uint_eq(seen.bad_blocks[2], 1);
	ck_assert_uint_eq(seen.bad_blocks[3], 1);
	ck_assert_uint_eq(seen.bad_rec_len[1], 1);
	ck_assert_uint_eq(seen.bad_name_len[3], 1);
	ck_assert_uint_eq(seen.per_block[1], 0);
	ck_assert_uint_eq(seen.per_block[2], clean.per_block[2]);
	ck_assert_uint_eq(seen.per_block[3], clean.per_block[3] - 1);
	ck_assert_uint_eq(seen.entries, clean.entries - clean.per_block[1] - 1);
	ck_assert_int_eq(seen.tree, 0);
	scratch_done(&s);
}
END_TEST

/*
 * The index of large directories (dir_index.c): a seeded run of creates, unlinks and renames in
 * one directory with indexes on, checked against a model after each step by lookups of every
 * name and of absent ones, and at the end by the linear listing (which never uses the index).
 */
#define DX_NAMES 1500

static int count_entries_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	(void)fs;
	(void)de;
	(*(u32 *)priv)++;
	return 0;
}

START_TEST(indexed_directory)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 32ULL << 20, 1024);
	static u32 model[DX_NAMES];	/* inode of name i, 0: absent */
	u64 st = 99;
	u32 dir, ino, i, step, listed = 0;
	char name[64];

	stalefs_dir_index_enable(fs);
	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "big", 0755, 0, 0, &dir));
	for (step = 0; step < 6000; step++) {
		u32 k = (u32)(unit_rand(&st) % DX_NAMES), op = (u32)(unit_rand(&st) % 4);

		/* names of many lengths: blocks fill unevenly */
		snprintf(name, sizeof(name), "n%u-%.*s", k, (int)(k % 40), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN");
		if (!model[k] && op < 3) {
			ck_ok(stalefs_create(fs, dir, name, STALEFS_S_IFREG | 0644, 0, 0, &model[k]));
		} else if (model[k] && op == 3) {
			ck_ok(stalefs_unlink(fs, dir, name, &ino));
			hot_assert(ino == model[k], "unlink of %s gave inode %u, not %u", name, ino, model[k]);
			ck_ok(stalefs_drop_link(fs, ino));
			model[k] = 0;
		} else if (model[k]) {
			/* rename to a fresh slot: the index moves the name */
			u32 k2 = (u32)(unit_rand(&st) % DX_NAMES);
			char to[64];

			if (model[k2])
				continue;
			snprintf(to, sizeof(to), "n%u-%.*s", k2, (int)(k2 % 40), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN");
			ck_ok(stalefs_rename(fs, dir, name, dir, to, 0, false, &ino));
			model[k2] = model[k];
			model[k] = 0;
		}
		if (step % 500 == 499)
			for (i = 0; i < DX_NAMES; i++) {
				errcode_t err;

				snprintf(name, sizeof(name), "n%u-%.*s", i, (int)(i % 40), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN");
				err = stalefs_lookup(fs, dir, name, strlen(name), &ino);
				if (model[i])
					hot_assert(!err && ino == model[i], "step %u: lookup %s: %s", step, name, error_message(err));
				else
					hot_assert(err == STALEFS_ERR_NOT_FOUND, "step %u: %s found though removed", step, name);
			}
	}
	/* The linear listing agrees, and so does a reopened filesystem without indexes. */
	for (i = 0; i < DX_NAMES; i++)
		listed += model[i] != 0;
	{
		u32 n = 0;

		ck_ok(stalefs_dir_iterate(fs, dir, 0, count_entries_cb, &n));
		ck_assert_uint_eq(n, listed + 2);	/* and . and .. */
	}
	fs = scratch_reopen(&s);
	for (i = 0; i < DX_NAMES; i++) {
		snprintf(name, sizeof(name), "n%u-%.*s", i, (int)(i % 40), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN");
		if (model[i]) {
			ck_ok(stalefs_lookup(fs, dir, name, strlen(name), &ino));
			ck_assert_uint_eq(ino, model[i]);
		}
	}
	scratch_done(&s);
}
END_TEST

/* rename(2)'s flavours in the library: replacing, NOREPLACE, EXCHANGE across parents (".." and
 * link counts follow), a directory into itself, types that differ, a non-empty target. */
START_TEST(rename_flavours)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16ULL << 20, 1024);
	u32 a, b, sub, f, g, x, rep;

	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "a", 0755, 0, 0, &a));
	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "b", 0755, 0, 0, &b));
	ck_ok(stalefs_mkdir(fs, a, "sub", 0755, 0, 0, &sub));
	ck_ok(stalefs_create(fs, a, "f", STALEFS_S_IFREG | 0644, 0, 0, &f));
	ck_ok(stalefs_create(fs, b, "g", STALEFS_S_IFREG | 0644, 0, 0, &g));
	/* over an existing file: it loses its link and is freed */
	ck_ok(stalefs_rename(fs, a, "f", b, "g", 0, false, &rep));
	ck_assert_uint_eq(rep, g);
	ck_assert(!stalefs_test_inode(fs, g));
	ck_ok(stalefs_lookup(fs, b, "g", 1, &x));
	ck_assert_uint_eq(x, f);
	ck_err(stalefs_lookup(fs, a, "f", 1, &x), STALEFS_ERR_NOT_FOUND);
	/* NOREPLACE */
	ck_ok(stalefs_create(fs, b, "h", STALEFS_S_IFREG | 0644, 0, 0, &x));
	ck_err(stalefs_rename(fs, b, "g", b, "h", STALEFS_RENAME_NOREPLACE, false, &rep), STALEFS_ERR_EXISTS);
	/* EXCHANGE a file in b with a directory in a: the directory's ".." and both link counts */
	ck_assert_uint_eq(links_of(fs, a), 3);
	ck_assert_uint_eq(links_of(fs, b), 2);
	ck_ok(stalefs_rename(fs, a, "sub", b, "g", STALEFS_RENAME_EXCHANGE, false, &rep));
	ck_ok(stalefs_lookup(fs, b, "g", 1, &x));
	ck_assert_uint_eq(x, sub);
	ck_ok(stalefs_lookup(fs, sub, "..", 2, &x));
	ck_assert_uint_eq(x, b);
	ck_assert_uint_eq(links_of(fs, a), 2);
	ck_assert_uint_eq(links_of(fs, b), 3);
	/* a directory into itself; a directory over a file and back; over a non-empty directory */
	ck_err(stalefs_rename(fs, STALEFS_ROOT_INO, "b", sub, "x", 0, false, &rep), STALEFS_ERR_BAD_ARGUMENT);
	ck_err(stalefs_rename(fs, b, "g", b, "h", 0, false, &rep), STALEFS_ERR_NOT_DIR);
	ck_err(stalefs_rename(fs, b, "h", STALEFS_ROOT_INO, "a", 0, false, &rep), STALEFS_ERR_IS_DIR);
	ck_ok(stalefs_create(fs, a, "inside", STALEFS_S_IFREG | 0644, 0, 0, &x));
	ck_err(stalefs_rename(fs, b, "g", STALEFS_ROOT_INO, "a", 0, false, &rep), STALEFS_ERR_DIR_NOT_EMPTY);
	/* a directory over an empty one, keeping the orphan for the caller (a holds the file
	 * the exchange put there, and "inside") */
	ck_ok(stalefs_unlink(fs, a, "inside", &x));
	ck_ok(stalefs_drop_link(fs, x));
	ck_ok(stalefs_unlink(fs, a, "sub", &x));
	ck_assert_uint_eq(x, f);
	ck_ok(stalefs_drop_link(fs, x));
	ck_ok(stalefs_rename(fs, b, "g", STALEFS_ROOT_INO, "a", 0, true, &rep));
	ck_assert_uint_eq(rep, a);
	{
		struct stalefs_inode inode;

		ck_ok(stalefs_read_inode(fs, a, &inode));
		ck_assert_uint_eq(le16_to_cpu(inode.i_links_count), 0);
		ck_assert(le32_to_cpu(inode.i_flags) & STALEFS_INODE_ORPHAN_FL);
	}
	ck_ok(stalefs_lookup(fs, sub, "..", 2, &x));
	ck_assert_uint_eq(x, STALEFS_ROOT_INO);
	ck_assert_uint_eq(links_of(fs, b), 2);
	scratch_done(&s);
}
END_TEST

Suite *dir_suite(void)
{
	Suite *s = suite_create("dir");
	TCase *tc = tcase_create("dir");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, many_entries);
	tcase_add_test(tc, name_edges);
	tcase_add_test(tc, remove_and_reuse);
	tcase_add_test(tc, mkdir_links);
	tcase_add_test(tc, namei_and_symlinks);
	tcase_add_test(tc, symlink_sizes);
	tcase_add_test(tc, create_fails_cleanly);
	tcase_add_test(tc, damaged_dir_block);
	tcase_add_test(tc, scan_past_damage);
	tcase_add_test(tc, indexed_directory);
	tcase_add_test(tc, rename_flavours);
	suite_add_tcase(s, tc);
	return s;
}
