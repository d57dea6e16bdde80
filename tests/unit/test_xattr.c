/*
 * The library's extended attributes (format/lib/xattr.c, FORMAT.md 14): set, get,
 * replace, create, remove and list on 256-byte inodes (block only) and 512-byte
 * inodes (in the inode first, then the block); the block allocated, counted in
 * i_blocks and the free counts, and freed when emptied or when the inode goes;
 * the errors (name too long, buffer too small, not found, exists, no space,
 * unknown prefix); a corrupt block and a corrupt area refused; persistence.
 */
#include <stdio.h>
#include "unit.h"

#define IMG_BYTES (8ULL << 20)

static void inode_512(struct stalefs_mkfs_params *p)
{
	p->inode_size = 512;
}

static u64 free_blocks(stalefs_fs *fs)
{
	return le64_to_cpu(fs->sb.s_free_blocks_count);
}

static u32 new_file(stalefs_fs *fs, const char *name)
{
	u32 ino;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, name, STALEFS_S_IFREG | 0644, 0, 0, &ino));
	return ino;
}

static struct stalefs_inode inode_of(stalefs_fs *fs, u32 ino)
{
	struct stalefs_inode inode;

	ck_ok(stalefs_read_inode(fs, ino, &inode));
	return inode;
}

static void expect_value(stalefs_fs *fs, u32 ino, const char *name, const void *want, size_t len)
{
	char buf[4096];
	size_t size = 12345;

	ck_ok(stalefs_xattr_get(fs, ino, name, NULL, 0, &size));
	ck_assert_uint_eq(size, len);
	size = 0;
	ck_ok(stalefs_xattr_get(fs, ino, name, buf, sizeof(buf), &size));
	ck_assert_uint_eq(size, len);
	ck_assert_msg(memcmp(buf, want, len) == 0, "value of %s differs", name);
}

struct listing {
	char names[16][300];
	size_t sizes[16];
	int n;
};

static int collect(const char *name, const void *value, size_t size, void *priv)
{
	struct listing *l = priv;

	(void)value;
	ck_assert_int_lt(l->n, 16);
	snprintf(l->names[l->n], sizeof(l->names[0]), "%s", name);
	l->sizes[l->n++] = size;
	return 0;
}

static bool listed(const struct listing *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->names[i], name) == 0)
			return true;
	return false;
}

/* 256-byte inodes have no area: the first attribute takes a block, the last frees it. */
START_TEST(block_placement_256)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	u64 before = free_blocks(fs);
	u32 ino = new_file(fs, "f");
	struct stalefs_inode in;
	u64 blk;

	ck_assert_uint_eq(stalefs_xattr_ibody_len(&fs->geom), 0);
	ck_ok(stalefs_xattr_set(fs, ino, "user.a", "one", 3, 0));
	in = inode_of(fs, ino);
	blk = le64_to_cpu(in.i_xattr_block);
	ck_assert_uint_ne(blk, 0);
	ck_assert(stalefs_test_block(fs, blk));
	ck_assert_uint_eq(le64_to_cpu(in.i_blocks), 1);
	ck_assert_uint_eq(free_blocks(fs), before - 1);
	expect_value(fs, ino, "user.a", "one", 3);
	/* a second one shares the block */
	ck_ok(stalefs_xattr_set(fs, ino, "trusted.b", "", 0, 0));
	ck_assert_uint_eq(le64_to_cpu(inode_of(fs, ino).i_xattr_block), blk);
	ck_assert_uint_eq(free_blocks(fs), before - 1);
	expect_value(fs, ino, "trusted.b", "", 0);
	ck_ok(stalefs_xattr_delete(fs, ino, "user.a"));
	ck_assert_uint_eq(le64_to_cpu(inode_of(fs, ino).i_xattr_block), blk);
	ck_ok(stalefs_xattr_delete(fs, ino, "trusted.b"));
	in = inode_of(fs, ino);
	ck_assert_uint_eq(le64_to_cpu(in.i_xattr_block), 0);
	ck_assert_uint_eq(le64_to_cpu(in.i_blocks), 0);
	ck_assert(!stalefs_test_block(fs, blk));
	ck_assert_uint_eq(free_blocks(fs), before);
	scratch_done(&s);
}
END_TEST

/* 512-byte inodes: small attributes stay in the inode; a large one spills to a block. */
START_TEST(inode_placement_512)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, IMG_BYTES, 4096, inode_512);
	u64 before = free_blocks(fs);
	u32 ino = new_file(fs, "f");
	u8 big[1000], area[256];
	struct listing l = { .n = 0 };
	u64 blk;

	memset(big, 0xA5, sizeof(big));
	ck_assert_uint_eq(stalefs_xattr_ibody_len(&fs->geom), 256);
	ck_ok(stalefs_xattr_set(fs, ino, "user.small", "v", 1, 0));
	ck_ok(stalefs_xattr_set(fs, ino, "security.selinux", "system_u:object_r:etc_t:s0", 26, 0));
	ck_assert_uint_eq(le64_to_cpu(inode_of(fs, ino).i_xattr_block), 0);
	ck_assert_uint_eq(free_blocks(fs), before);
	ck_ok(stalefs_read_inode_area(fs, ino, area));
	ck_assert(!stalefs_xattr_ibody_empty(area));
	ck_assert_int_eq(stalefs_verify_xattr_ibody(area, 256), 0);
	ck_assert_int_eq(stalefs_verify_xattr_ibody_csum(fs->seed, ino,
							 le32_to_cpu(inode_of(fs, ino).i_generation), area, 256), 0);
	/* 1000 bytes cannot fit in 248: it goes to a block */
	ck_ok(stalefs_xattr_set(fs, ino, "user.big", big, sizeof(big), 0));
	blk = le64_to_cpu(inode_of(fs, ino).i_xattr_block);
	ck_assert_uint_ne(blk, 0);
	ck_assert_uint_eq(le64_to_cpu(inode_of(fs, ino).i_blocks), 1);
	ck_assert_uint_eq(free_blocks(fs), before - 1);
	expect_value(fs, ino, "user.big", big, sizeof(big));
	expect_value(fs, ino, "user.small", "v", 1);
	ck_ok(stalefs_xattr_iterate(fs, ino, collect, &l));
	ck_assert_int_eq(l.n, 3);
	ck_assert(listed(&l, "user.small") && listed(&l, "security.selinux") && listed(&l, "user.big"));
	/* replaced by a small value: it moves into the inode and the block goes */
	ck_ok(stalefs_xattr_set(fs, ino, "user.big", "tiny", 4, STALEFS_XATTR_REPLACE));
	ck_assert_uint_eq(le64_to_cpu(inode_of(fs, ino).i_xattr_block), 0);
	ck_assert(!stalefs_test_block(fs, blk));
	ck_assert_uint_eq(free_blocks(fs), before);
	expect_value(fs, ino, "user.big", "tiny", 4);
	/* everything removed: the area is all zero again */
	ck_ok(stalefs_xattr_delete(fs, ino, "user.big"));
	ck_ok(stalefs_xattr_delete(fs, ino, "user.small"));
	ck_ok(stalefs_xattr_delete(fs, ino, "security.selinux"));
	ck_ok(stalefs_read_inode_area(fs, ino, area));
	for (int i = 0; i < 256; i++)
		ck_assert_msg(area[i] == 0, "area byte %d is %u after the last removal", i, area[i]);
	scratch_done(&s);
}
END_TEST

START_TEST(create_replace_errors)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, IMG_BYTES, 4096, inode_512);
	u32 ino = new_file(fs, "f");
	char longname[300], buf[2];
	size_t size = 0;

	ck_err(stalefs_xattr_set(fs, ino, "user.x", "1", 1, STALEFS_XATTR_REPLACE), STALEFS_ERR_XATTR_NOT_FOUND);
	ck_ok(stalefs_xattr_set(fs, ino, "user.x", "1", 1, STALEFS_XATTR_CREATE));
	ck_err(stalefs_xattr_set(fs, ino, "user.x", "2", 1, STALEFS_XATTR_CREATE), STALEFS_ERR_XATTR_EXISTS);
	expect_value(fs, ino, "user.x", "1", 1);
	ck_ok(stalefs_xattr_set(fs, ino, "user.x", "22", 2, STALEFS_XATTR_REPLACE));
	expect_value(fs, ino, "user.x", "22", 2);
	ck_ok(stalefs_xattr_set(fs, ino, "user.x", "333", 3, 0));
	expect_value(fs, ino, "user.x", "333", 3);
	/* a buffer too small: ERANGE-like, and the size is still reported */
	ck_err(stalefs_xattr_get(fs, ino, "user.x", buf, sizeof(buf), &size), STALEFS_ERR_XATTR_RANGE);
	ck_assert_uint_eq(size, 3);
	ck_err(stalefs_xattr_get(fs, ino, "user.nope", NULL, 0, &size), STALEFS_ERR_XATTR_NOT_FOUND);
	ck_err(stalefs_xattr_delete(fs, ino, "user.nope"), STALEFS_ERR_XATTR_NOT_FOUND);
	/* names */
	memcpy(longname, "user.", 5);
	memset(longname + 5, 'n', 256);
	longname[5 + 256] = '\0';
	ck_err(stalefs_xattr_set(fs, ino, longname, "v", 1, 0), STALEFS_ERR_XATTR_RANGE);
	longname[5 + 255] = '\0';
	ck_ok(stalefs_xattr_set(fs, ino, longname, "v", 1, 0));
	expect_value(fs, ino, longname, "v", 1);
	ck_err(stalefs_xattr_set(fs, ino, "os2.x", "v", 1, 0), STALEFS_ERR_XATTR_BAD_NAME);
	ck_err(stalefs_xattr_set(fs, ino, "user.", "v", 1, 0), STALEFS_ERR_XATTR_BAD_NAME);
	ck_err(stalefs_xattr_set(fs, ino, "system.posix_acl_accessX", "v", 1, 0), STALEFS_ERR_XATTR_BAD_NAME);
	ck_err(stalefs_xattr_get(fs, ino, "bogus", NULL, 0, &size), STALEFS_ERR_XATTR_BAD_NAME);
	/* the ACL names are whole names */
	ck_ok(stalefs_xattr_set(fs, ino, "system.posix_acl_access", "\x02\0\0\0", 4, 0));
	expect_value(fs, ino, "system.posix_acl_access", "\x02\0\0\0", 4);
	scratch_done(&s);
}
END_TEST

START_TEST(no_space)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 1024);
	u32 ino = new_file(fs, "f");
	u64 before = free_blocks(fs);
	u8 *v = calloc(1, 2000);

	ck_assert_ptr_nonnull(v);
	/* at most block size - 36 - name: 1024 - 36 - 1 = 987 bytes for "user.a" */
	ck_err(stalefs_xattr_set(fs, ino, "user.a", v, 988, 0), STALEFS_ERR_XATTR_NO_SPACE);
	ck_assert_uint_eq(free_blocks(fs), before);
	ck_assert_uint_eq(le64_to_cpu(inode_of(fs, ino).i_xattr_block), 0);
	ck_ok(stalefs_xattr_set(fs, ino, "user.a", v, 987, 0));
	ck_assert_uint_eq(free_blocks(fs), before - 1);
	/* the block is full: another attribute finds no room, nothing changes */
	ck_err(stalefs_xattr_set(fs, ino, "user.b", "x", 1, 0), STALEFS_ERR_XATTR_NO_SPACE);
	ck_err(stalefs_xattr_get(fs, ino, "user.b", NULL, 0, NULL), STALEFS_ERR_XATTR_NOT_FOUND);
	expect_value(fs, ino, "user.a", v, 987);
	/* a replacement that does not fit leaves the old value */
	ck_err(stalefs_xattr_set(fs, ino, "user.a", v, 1500, 0), STALEFS_ERR_XATTR_NO_SPACE);
	expect_value(fs, ino, "user.a", v, 987);
	free(v);
	scratch_done(&s);
}
END_TEST

/* Deleting the inode frees its block and zeroes its area; the counts come back. */
START_TEST(release_with_inode)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, IMG_BYTES, 4096, inode_512);
	u64 before = free_blocks(fs);
	u32 ino = new_file(fs, "f");
	u8 big[3000], area[256];
	u64 blk;

	memset(big, 7, sizeof(big));
	ck_ok(stalefs_xattr_set(fs, ino, "user.in", "x", 1, 0));
	ck_ok(stalefs_xattr_set(fs, ino, "user.out", big, sizeof(big), 0));
	blk = le64_to_cpu(inode_of(fs, ino).i_xattr_block);
	ck_assert_uint_ne(blk, 0);
	ck_assert(stalefs_xattr_present(fs, ino, &(struct stalefs_inode){ .i_xattr_block = 0 }));
	ck_ok(stalefs_unlink(fs, STALEFS_ROOT_INO, "f", NULL));
	ck_ok(stalefs_drop_link(fs, ino));
	ck_assert(!stalefs_test_block(fs, blk));
	ck_assert_uint_eq(free_blocks(fs), before);
	ck_ok(stalefs_read_inode_area(fs, ino, area));
	ck_assert(stalefs_xattr_ibody_empty(area));
	ck_assert_uint_eq(le64_to_cpu(inode_of(fs, ino).i_xattr_block), 0);
	scratch_done(&s);
}
END_TEST

/* A file's data written after its block keeps the block in i_blocks. */
START_TEST(i_blocks_with_data)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	u32 ino = new_file(fs, "f");
	u8 data[8192];

	memset(data, 1, sizeof(data));
	ck_ok(stalefs_xattr_set(fs, ino, "user.a", "1", 1, 0));
	ck_ok(stalefs_file_write(fs, ino, 0, data, sizeof(data)));
	ck_assert_uint_eq(le64_to_cpu(inode_of(fs, ino).i_blocks), 3);
	ck_ok(stalefs_xattr_delete(fs, ino, "user.a"));
	ck_assert_uint_eq(le64_to_cpu(inode_of(fs, ino).i_blocks), 2);
	scratch_done(&s);
}
END_TEST

START_TEST(persists_and_sets_feature)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, IMG_BYTES, 4096, inode_512);
	u32 ino = new_file(fs, "f");
	u8 big[2000];

	memset(big, 3, sizeof(big));
	fs->sb.s_feature_ro_compat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_ro_compat) &
						 ~STALEFS_FEATURE_RO_COMPAT_XATTR);
	stalefs_mark_super_dirty(fs);
	ck_ok(stalefs_xattr_set(fs, ino, "user.in", "inside", 6, 0));
	ck_ok(stalefs_xattr_set(fs, ino, "trusted.out", big, sizeof(big), 0));
	fs = scratch_reopen(&s);
	ck_assert(le32_to_cpu(fs->sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_XATTR);
	expect_value(fs, ino, "user.in", "inside", 6);
	expect_value(fs, ino, "trusted.out", big, sizeof(big));
	scratch_done(&s);
}
END_TEST

/* What is read is verified: a damaged block or area is refused, never trusted. */
START_TEST(corrupt_rejected)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, IMG_BYTES, 4096, inode_512);
	u32 ino = new_file(fs, "f"), ino2 = new_file(fs, "g");
	u8 *blk = malloc(4096), area[256], big[600];
	struct stalefs_inode in;
	u64 b;
	size_t size;

	ck_assert_ptr_nonnull(blk);
	memset(big, 9, sizeof(big));
	ck_ok(stalefs_xattr_set(fs, ino, "user.out", big, sizeof(big), 0));
	b = le64_to_cpu(inode_of(fs, ino).i_xattr_block);
	ck_ok(stalefs_read_block(fs, b, blk));
	/* an entry whose value size runs past the block, checksum made right again */
	((struct stalefs_xattr_entry *)stalefs_xattr_block_region(blk))->xe_value_size = cpu_to_le16(0xFFF0);
	stalefs_xattr_block_set_csum(fs->seed, blk, 4096);
	ck_ok(stalefs_write_block(fs, b, blk));
	ck_err(stalefs_xattr_get(fs, ino, "user.out", NULL, 0, &size), STALEFS_ERR_XATTR_CORRUPT);
	ck_err(stalefs_xattr_set(fs, ino, "user.x", "1", 1, 0), STALEFS_ERR_XATTR_CORRUPT);
	/* only the checksum wrong */
	ck_ok(stalefs_read_block(fs, b, blk));
	((struct stalefs_xattr_entry *)stalefs_xattr_block_region(blk))->xe_value_size = cpu_to_le16(600);
	ck_ok(stalefs_write_block(fs, b, blk));
	ck_err(stalefs_xattr_get(fs, ino, "user.out", NULL, 0, &size), STALEFS_ERR_XATTR_CSUM);
	/* a pointer to a block of someone else (ino2 points at ino's block): refused, not freed */
	in = inode_of(fs, ino2);
	in.i_xattr_block = cpu_to_le64(b);
	ck_ok(stalefs_write_inode(fs, ino2, &in));
	ck_err(stalefs_xattr_get(fs, ino2, "user.out", NULL, 0, &size), STALEFS_ERR_XATTR_CORRUPT);
	ck_err(stalefs_delete_inode(fs, ino2), STALEFS_ERR_XATTR_CORRUPT);
	ck_assert(stalefs_test_block(fs, b));
	/* out of range */
	in.i_xattr_block = cpu_to_le64(fs->geom.blocks_count + 5);
	ck_ok(stalefs_write_inode(fs, ino2, &in));
	ck_err(stalefs_xattr_get(fs, ino2, "user.out", NULL, 0, &size), STALEFS_ERR_XATTR_CORRUPT);
	/* an in-inode area with a bad magic, and one left from another generation */
	in.i_xattr_block = 0;
	ck_ok(stalefs_write_inode(fs, ino2, &in));
	ck_ok(stalefs_xattr_set(fs, ino2, "user.in", "1", 1, 0));
	ck_ok(stalefs_read_inode_area(fs, ino2, area));
	area[0] ^= 0xFF;
	ck_ok(stalefs_write_inode_area(fs, ino2, area));
	ck_err(stalefs_xattr_get(fs, ino2, "user.in", NULL, 0, &size), STALEFS_ERR_XATTR_CORRUPT);
	area[0] ^= 0xFF;
	ck_ok(stalefs_write_inode_area(fs, ino2, area));
	expect_value(fs, ino2, "user.in", "1", 1);
	in = inode_of(fs, ino2);
	in.i_generation = cpu_to_le32(le32_to_cpu(in.i_generation) + 1);
	ck_ok(stalefs_write_inode(fs, ino2, &in));
	ck_err(stalefs_xattr_get(fs, ino2, "user.in", NULL, 0, &size), STALEFS_ERR_XATTR_CSUM);
	free(blk);
	scratch_done(&s);
}
END_TEST

/* IGNORE_CSUM accepts a bad checksum, as it does for other metadata. */
START_TEST(ignore_csum)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	u32 ino = new_file(fs, "f");
	u8 *blk = malloc(4096);
	size_t size = 0;
	u64 b;

	ck_assert_ptr_nonnull(blk);
	ck_ok(stalefs_xattr_set(fs, ino, "user.a", "abc", 3, 0));
	b = le64_to_cpu(inode_of(fs, ino).i_xattr_block);
	ck_ok(stalefs_read_block(fs, b, blk));
	((struct stalefs_xattr_block *)blk)->xb_checksum ^= cpu_to_le32(1);
	ck_ok(stalefs_write_block(fs, b, blk));
	ck_ok(stalefs_close(fs));
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_IGNORE_CSUM, 0, 0, &s.fs));
	ck_ok(stalefs_xattr_get(s.fs, ino, "user.a", NULL, 0, &size));
	ck_assert_uint_eq(size, 3);
	ck_err(stalefs_xattr_set(s.fs, ino, "user.b", "1", 1, 0), STALEFS_ERR_RO_FILSYS);
	free(blk);
	scratch_done(&s);
}
END_TEST

/* A slot's area left over from before (or garbage past bg_itable_unused) is zeroed when the
 * inode is allocated: the new inode has no attributes, not a corrupt area. */
START_TEST(area_zeroed_on_alloc)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, IMG_BYTES, 4096, inode_512);
	u8 junk[256], area[256];
	u32 next, ino, old;
	size_t size;

	memset(junk, 0x5A, sizeof(junk));
	/* past bg_itable_unused: the slots the allocator initialises */
	ck_ok(stalefs_peek_inode(fs, STALEFS_ROOT_INO, STALEFS_S_IFREG | 0644, &next));
	ck_ok(stalefs_write_inode_area(fs, next, junk));
	ck_ok(stalefs_write_inode_area(fs, next + 1, junk));
	ino = new_file(fs, "f");
	ck_assert_uint_eq(ino, next);
	ck_ok(stalefs_read_inode_area(fs, ino, area));
	ck_assert(stalefs_xattr_ibody_empty(area));
	ck_err(stalefs_xattr_get(fs, ino, "user.a", NULL, 0, &size), STALEFS_ERR_XATTR_NOT_FOUND);
	/* an initialised free slot whose area holds junk (an earlier life, another writer) */
	old = new_file(fs, "g");
	ck_ok(stalefs_unlink(fs, STALEFS_ROOT_INO, "g", NULL));
	ck_ok(stalefs_drop_link(fs, old));
	ck_ok(stalefs_write_inode_area(fs, old, junk));
	ino = new_file(fs, "h");
	ck_assert_uint_eq(ino, old);
	ck_ok(stalefs_read_inode_area(fs, ino, area));
	ck_assert(stalefs_xattr_ibody_empty(area));
	ck_err(stalefs_xattr_get(fs, ino, "user.a", NULL, 0, &size), STALEFS_ERR_XATTR_NOT_FOUND);
	ck_ok(stalefs_xattr_set(fs, ino, "user.a", "1", 1, 0));
	expect_value(fs, ino, "user.a", "1", 1);
	scratch_done(&s);
}
END_TEST

Suite *xattr_suite(void)
{
	Suite *su = suite_create("xattr");
	TCase *tc = tcase_create("xattr");

	tcase_add_test(tc, block_placement_256);
	tcase_add_test(tc, inode_placement_512);
	tcase_add_test(tc, create_replace_errors);
	tcase_add_test(tc, no_space);
	tcase_add_test(tc, release_with_inode);
	tcase_add_test(tc, i_blocks_with_data);
	tcase_add_test(tc, persists_and_sets_feature);
	tcase_add_test(tc, corrupt_rejected);
	tcase_add_test(tc, ignore_csum);
	tcase_add_test(tc, area_zeroed_on_alloc);
	suite_add_tcase(su, tc);
	return su;
}
