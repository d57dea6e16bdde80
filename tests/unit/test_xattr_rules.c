/*
 * The format core's xattr entry lists (format/core/xattr_rules.c): name
 * prefixes, append until the region is full, find, remove closing the gap.
 * Every region they leave must pass the verifier.
 */
#include "unit.h"

#define LEN 120u

START_TEST(split_names)
{
	u8 idx = 0;
	const char *sfx = NULL;

	ck_assert(stalefs_xattr_split("user.mime_type", &idx, &sfx));
	ck_assert_uint_eq(idx, STALEFS_XATTR_INDEX_USER);
	ck_assert_str_eq(sfx, "mime_type");
	ck_assert(stalefs_xattr_split("trusted.overlay.opaque", &idx, &sfx));
	ck_assert_uint_eq(idx, STALEFS_XATTR_INDEX_TRUSTED);
	ck_assert(stalefs_xattr_split("security.selinux", &idx, &sfx));
	ck_assert_uint_eq(idx, STALEFS_XATTR_INDEX_SECURITY);
	ck_assert(stalefs_xattr_split("system.posix_acl_access", &idx, &sfx));
	ck_assert_uint_eq(idx, STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS);
	ck_assert_str_eq(sfx, "");
	ck_assert(stalefs_xattr_split("system.posix_acl_default", &idx, &sfx));
	ck_assert_uint_eq(idx, STALEFS_XATTR_INDEX_POSIX_ACL_DEFAULT);
	ck_assert(!stalefs_xattr_split("system.posix_acl_accessX", &idx, &sfx));
	ck_assert(!stalefs_xattr_split("system.other", &idx, &sfx));
	ck_assert(!stalefs_xattr_split("usr.x", &idx, &sfx));
	ck_assert_str_eq(stalefs_xattr_prefix(STALEFS_XATTR_INDEX_SECURITY), "security.");
	ck_assert_ptr_null(stalefs_xattr_prefix(5));
	ck_assert_ptr_null(stalefs_xattr_prefix(0));
}
END_TEST

START_TEST(append_find_remove)
{
	u8 r[LEN];
	u32 used;
	int off;
	struct stalefs_xattr_ref ref;

	memset(r, 0, sizeof(r));
	ck_assert_int_eq(stalefs_xattr_region_check(r, LEN, &used), 0);
	ck_assert_uint_eq(used, 0);
	ck_assert_int_eq(stalefs_xattr_append(r, LEN, STALEFS_XATTR_INDEX_USER, "a", 1, "12345", 5), 0);
	ck_assert_int_eq(stalefs_xattr_append(r, LEN, STALEFS_XATTR_INDEX_USER, "bb", 2, "x", 1), 0);
	ck_assert_int_eq(stalefs_xattr_append(r, LEN, STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS, "", 0, "acl!", 4), 0);
	ck_assert_int_eq(stalefs_xattr_region_check(r, LEN, &used), 0);
	ck_assert_uint_eq(used, (4 + 8) + (4 + 4) + (4 + 4));
	ck_assert_uint_eq(stalefs_xattr_region_used(r, LEN), used);

	off = stalefs_xattr_find(r, LEN, STALEFS_XATTR_INDEX_USER, "bb", 2);
	ck_assert_int_eq(off, 12);
	ck_assert(stalefs_xattr_entry_at(r, LEN, (u32)off, &ref));
	ck_assert_uint_eq(ref.value_size, 1);
	ck_assert_mem_eq(ref.value, "x", 1);
	ck_assert_int_eq(stalefs_xattr_find(r, LEN, STALEFS_XATTR_INDEX_TRUSTED, "bb", 2), -1);
	ck_assert_int_eq(stalefs_xattr_find(r, LEN, STALEFS_XATTR_INDEX_USER, "b", 1), -1);
	ck_assert_int_eq(stalefs_xattr_find(r, LEN, STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS, "", 0), 20);

	/* Removing the middle entry moves the last one down and zeroes the tail. */
	stalefs_xattr_remove(r, LEN, (u32)off);
	ck_assert_int_eq(stalefs_xattr_region_check(r, LEN, &used), 0);
	ck_assert_uint_eq(used, 12 + 8);
	ck_assert_int_eq(stalefs_xattr_find(r, LEN, STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS, "", 0), 12);
	ck_assert_int_eq(stalefs_xattr_find(r, LEN, STALEFS_XATTR_INDEX_USER, "a", 1), 0);
}
END_TEST

START_TEST(full_region_refuses)
{
	u8 r[LEN], before[LEN];
	char val[LEN];
	u32 n = 0;

	memset(r, 0, sizeof(r));
	memset(val, 'v', sizeof(val));
	while (stalefs_xattr_append(r, LEN, STALEFS_XATTR_INDEX_USER, (char[]){ (char)('a' + n) }, 1,
				    val, 15) == 0)
		n++;
	ck_assert_uint_eq(n, LEN / 20);
	memcpy(before, r, LEN);
	/* A refused append leaves the region as it was. */
	ck_assert_int_eq(stalefs_xattr_append(r, LEN, STALEFS_XATTR_INDEX_USER, "z", 1, val, 1), -1);
	ck_assert_mem_eq(r, before, LEN);
	ck_assert_int_eq(stalefs_xattr_region_check(r, LEN, NULL), 0);
	/* A value bigger than the region can never fit, nor a name past 255. */
	memset(r, 0, sizeof(r));
	ck_assert_int_eq(stalefs_xattr_append(r, LEN, STALEFS_XATTR_INDEX_USER, "a", 1, val, LEN), -1);
	ck_assert_int_eq(stalefs_xattr_append(r, LEN, STALEFS_XATTR_INDEX_USER, val, 256, "", 0), -1);
}
END_TEST

START_TEST(walk_stops_on_bad_entry)
{
	u8 r[LEN];
	struct stalefs_xattr_ref ref;

	memset(r, 0, sizeof(r));
	ck_assert_int_eq(stalefs_xattr_append(r, LEN, STALEFS_XATTR_INDEX_USER, "a", 1, "1", 1), 0);
	/* A value size past the region end: the walk ends instead of reading beyond it. */
	((struct stalefs_xattr_entry *)r)->xe_value_size = cpu_to_le16(0xFFFF);
	ck_assert(!stalefs_xattr_entry_at(r, LEN, 0, &ref));
	ck_assert_uint_eq(stalefs_xattr_region_used(r, LEN), 0);
	ck_assert_int_eq(stalefs_xattr_find(r, LEN, STALEFS_XATTR_INDEX_USER, "a", 1), -1);
	ck_assert_int_eq(stalefs_xattr_region_check(r, LEN, NULL), STALEFS_R_XATTR_OVERRUN);
	/* The last 3 bytes cannot hold an entry header. */
	ck_assert(!stalefs_xattr_entry_at(r, LEN, LEN - 3, &ref));
}
END_TEST

START_TEST(block_and_ibody_init)
{
	u8 b[1024], area[256];

	memset(b, 0x5A, sizeof(b));
	stalefs_xattr_block_init(b, sizeof(b), 77, 12, 9);
	ck_assert_int_eq(stalefs_verify_xattr_block(b, sizeof(b), 77, 12, 9), 0);
	stalefs_xattr_block_set_csum(1, b, sizeof(b));
	ck_assert_int_eq(stalefs_verify_xattr_block_csum(1, b, sizeof(b)), 0);
	ck_assert_int_eq(stalefs_verify_xattr_block_csum(2, b, sizeof(b)), STALEFS_R_XATTR_CSUM);
	/* The owner check reads the header only: damaged entries are still this inode's to free. */
	b[32] = 0xEE;
	ck_assert_int_eq(stalefs_verify_xattr_block(b, sizeof(b), 77, 12, 9), STALEFS_R_XATTR_INDEX);
	ck_assert_int_eq(stalefs_verify_xattr_block_owner(b, 77, 12, 9), 0);
	ck_assert_int_eq(stalefs_verify_xattr_block_owner(b, 78, 12, 9), STALEFS_R_XATTR_BLOCKNR);
	ck_assert_int_eq(stalefs_verify_xattr_block_owner(b, 77, 13, 9), STALEFS_R_XATTR_OWNER);
	ck_assert_int_eq(stalefs_verify_xattr_block_owner(b, 77, 12, 10), STALEFS_R_XATTR_OWNER);
	b[0] ^= 1;
	ck_assert_int_eq(stalefs_verify_xattr_block_owner(b, 77, 12, 9), STALEFS_R_XATTR_MAGIC);

	memset(area, 0, sizeof(area));
	ck_assert(stalefs_xattr_ibody_empty(area));
	stalefs_xattr_ibody_init(area, sizeof(area));
	ck_assert(!stalefs_xattr_ibody_empty(area));
	ck_assert_int_eq(stalefs_verify_xattr_ibody(area, sizeof(area)), 0);
	stalefs_xattr_ibody_set_csum(1, 12, 9, area, sizeof(area));
	ck_assert_int_eq(stalefs_verify_xattr_ibody_csum(1, 12, 9, area, sizeof(area)), 0);
	/* The same area under another inode number does not verify. */
	ck_assert_int_eq(stalefs_verify_xattr_ibody_csum(1, 13, 9, area, sizeof(area)), STALEFS_R_XATTR_CSUM);
}
END_TEST

Suite *xattr_rules_suite(void)
{
	Suite *s = suite_create("xattr_rules");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, split_names);
	tcase_add_test(tc, append_find_remove);
	tcase_add_test(tc, full_region_refuses);
	tcase_add_test(tc, walk_stops_on_bad_entry);
	tcase_add_test(tc, block_and_ibody_init);
	suite_add_tcase(s, tc);
	return s;
}
