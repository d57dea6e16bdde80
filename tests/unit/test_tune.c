/*
 * What tunefs.stalefs changes, through the library: the option parsers mkfs
 * shares (UUID forms and their version bits, -J sizes, -e, -G), a new UUID
 * (the checksum seed kept, the journal superblock following, refused with a
 * log to replay), removing the journal (its blocks freed, refused with a log
 * to replay), and the permitted group's record/forget rule with a file
 * holding STALE extents.
 */
#include <string.h>
#include "unit.h"

#define IMG_BYTES (32ULL << 20)

START_TEST(parse_uuid_forms)
{
	u8 u[16], zero[16] = { 0 };
	char s[37];

	ck_assert_int_eq(stalefs_parse_uuid("0123abcd-4567-89ef-0123-456789abcdef", u), 0);
	stalefs_uuid_unparse(u, s);
	ck_assert_str_eq(s, "0123abcd-4567-89ef-0123-456789abcdef");
	ck_assert_int_eq(stalefs_parse_uuid("0123ABCD456789EF0123456789ABCDEF", u), 0);
	stalefs_uuid_unparse(u, s);
	ck_assert_str_eq(s, "0123abcd-4567-89ef-0123-456789abcdef");
	/* Refused values store nothing. */
	ck_assert_int_eq(stalefs_parse_uuid("0123abcd-4567-89ef-0123-456789abcdeg", u), -1);
	ck_assert_int_eq(stalefs_parse_uuid("0123abcd", u), -1);
	ck_assert_int_eq(stalefs_parse_uuid("0123abcd-4567-89ef-0123-456789abcdef00", u), -1);
	stalefs_uuid_unparse(u, s);
	ck_assert_str_eq(s, "0123abcd-4567-89ef-0123-456789abcdef");
	ck_assert_int_eq(stalefs_parse_uuid("clear", u), 0);
	ck_assert_mem_eq(u, zero, 16);
	ck_assert_int_eq(stalefs_parse_uuid("random", u), 0);
	ck_assert_uint_eq(u[6] >> 4, 4);		/* version 4 */
	ck_assert_uint_eq(u[8] & 0xc0, 0x80);		/* RFC 4122 variant */
	ck_assert_int_eq(stalefs_parse_uuid("time", u), 0);
	ck_assert_uint_eq(u[6] >> 4, 1);		/* version 1 */
	ck_assert_uint_eq(u[8] & 0xc0, 0x80);
	ck_assert_uint_eq(u[10] & 1, 1);		/* multicast: no real MAC address */
}
END_TEST

START_TEST(parse_other_options)
{
	u32 blocks = 7, gid = 7;
	u16 e = 0;
	char why[256];

	ck_assert_int_eq(stalefs_parse_journal_opts("size=4", 4096, &blocks, why, sizeof(why)), 0);
	ck_assert_uint_eq(blocks, 1024);
	ck_assert_int_eq(stalefs_parse_journal_opts("size=3", 4096, &blocks, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "768 blocks of 4096 bytes"));
	ck_assert_int_eq(stalefs_parse_journal_opts("device=/dev/x", 4096, &blocks, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "unknown journal option"));
	ck_assert_int_eq(stalefs_parse_journal_opts("size=-4", 1024, &blocks, why, sizeof(why)), -1);
	ck_assert_uint_eq(blocks, 1024);
	ck_assert_int_eq(stalefs_parse_errors("remount-ro", &e), 0);
	ck_assert_uint_eq(e, STALEFS_ERRORS_RO);
	ck_assert_int_eq(stalefs_parse_errors("sometimes", &e), -1);
	ck_assert_int_eq(stalefs_parse_gid("1234", &gid), 0);
	ck_assert_uint_eq(gid, 1234);
	ck_assert_int_eq(stalefs_parse_gid("4294967295", &gid), -1);	/* means "none" on disk */
	ck_assert_int_eq(stalefs_parse_gid("-1", &gid), -1);
	ck_assert_int_eq(stalefs_parse_gid("root", &gid), 0);
	ck_assert_uint_eq(gid, 0);
}
END_TEST

START_TEST(uuid_keeps_seed_moves_journal)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	struct stalefs_jbd2_super jsb;
	u8 u[16];
	u32 seed = fs->seed, csum_before;

	ck_assert(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	ck_assert_int_eq(stalefs_parse_uuid("11111111-2222-3333-4444-555555555555", u), 0);
	ck_ok(stalefs_set_uuid(fs, u));
	fs = scratch_reopen(&s);
	ck_assert_mem_eq(fs->sb.s_uuid, u, 16);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_csum_seed), seed);
	ck_assert_uint_eq(fs->seed, seed);
	ck_ok(stalefs_journal_read_super(fs, &jsb));
	ck_assert_mem_eq(jsb.s_uuid, u, 16);
	ck_assert_int_eq(stalefs_jsb_verify(&jsb, &fs->sb), 0);

	/* A log with something in it (s_start set) would not verify under a new UUID. */
	jsb.s_start = htobe32(1);
	ck_ok(stalefs_journal_write_super(fs, &jsb));
	csum_before = le32_to_cpu(fs->sb.s_checksum);
	stalefs_uuid_random(u);
	ck_err(stalefs_set_uuid(fs, u), STALEFS_ERR_JOURNAL_NOT_EMPTY);
	ck_err(stalefs_journal_remove(fs), STALEFS_ERR_JOURNAL_NOT_EMPTY);
	ck_assert(!fs->sb_dirty);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_checksum), csum_before);
	scratch_done(&s);
}
END_TEST

START_TEST(journal_remove_frees)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	u64 start = le64_to_cpu(fs->sb.s_journal_block), b, free_before = le64_to_cpu(fs->sb.s_free_blocks_count);
	u32 len = le32_to_cpu(fs->sb.s_journal_blocks);

	ck_assert_uint_ge(len, STALEFS_JOURNAL_MIN_BLOCKS);
	ck_ok(stalefs_journal_remove(fs));
	fs = scratch_reopen(&s);
	ck_assert(!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_journal_block), 0);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_journal_blocks), 0);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free_before + len);
	for (b = start; b < start + len; b++)
		hot_assert(!stalefs_test_block(fs, b), "journal block %llu still in use", (unsigned long long)b);
	ck_err(stalefs_journal_remove(fs), STALEFS_ERR_NO_JOURNAL);
	scratch_done(&s);
}
END_TEST

START_TEST(stale_group_rule)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, IMG_BYTES, 4096);
	struct stalefs_stale_census c;
	u32 ino;

	ck_ok(stalefs_stale_group_set(fs, 1234, &c));
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_stale_gid), 1234);
	ck_assert(le32_to_cpu(fs->sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE);
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0640, 0, 1234, &ino));
	ck_ok(stalefs_fallocate(fs, ino, 0, 4, true));
	ck_err(stalefs_stale_group_set(fs, 99, &c), STALEFS_ERR_STALE_EXTENTS);
	ck_assert_uint_eq(c.files, 1);
	ck_assert_uint_eq(c.blocks, 4);
	ck_err(stalefs_stale_group_set(fs, STALEFS_STALE_GID_NONE, &c), STALEFS_ERR_STALE_EXTENTS);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_stale_gid), 1234);
	ck_ok(stalefs_stale_group_set(fs, 1234, &c));	/* the same group: nothing moves */
	ck_ok(stalefs_punch(fs, ino, 0, 4));
	ck_ok(stalefs_stale_group_set(fs, STALEFS_STALE_GID_NONE, &c));
	ck_assert_uint_eq(c.files, 0);
	fs = scratch_reopen(&s);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_stale_gid), STALEFS_STALE_GID_NONE);
	ck_assert(!(le32_to_cpu(fs->sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE));
	scratch_done(&s);
}
END_TEST

Suite *tune_suite(void)
{
	Suite *s = suite_create("tune");
	TCase *tc = tcase_create("tune");

	tcase_add_test(tc, parse_uuid_forms);
	tcase_add_test(tc, parse_other_options);
	tcase_add_test(tc, uuid_keeps_seed_moves_journal);
	tcase_add_test(tc, journal_remove_frees);
	tcase_add_test(tc, stale_group_rule);
	suite_add_tcase(s, tc);
	return s;
}
