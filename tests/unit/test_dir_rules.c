/*
 * The format core's directory block rules (format/core/dir_rules.c), which
 * the module and the library both edit blocks by: a fresh block, "." and
 * "..", finding room, splitting an entry's slack, removing an entry.
 * Every block they make must pass the verifier.
 */
#include "unit.h"

#define BS 1024u
#define HDR ((u32)sizeof(struct stalefs_dir_block))

static const struct stalefs_dir_entry *de_at(const u8 *b, u32 off)
{
	return (const struct stalefs_dir_entry *)(b + off);
}

START_TEST(fresh_and_dots_verify)
{
	u8 b[BS];
	const struct stalefs_dir_entry *de;

	memset(b, 0x5A, sizeof(b));
	stalefs_dirblock_init(b, BS, 900, 12, 3);
	ck_assert_int_eq(stalefs_verify_dirblock(b, BS, 900, 12, 3), 0);
	ck_assert_int_eq(stalefs_verify_dirblock_header(b, 900, 13, 3), STALEFS_R_DIR_OWNER);
	ck_assert_int_eq(stalefs_verify_dirblock_header(b, 900, 12, 4), STALEFS_R_DIR_LBLK);
	de = de_at(b, HDR);
	ck_assert_uint_eq(le32_to_cpu(de->inode), 0);
	ck_assert_uint_eq(le16_to_cpu(de->rec_len), BS - HDR);
	ck_assert_uint_eq(b[BS - 1], 0);

	stalefs_dirblock_init_dots(b, BS, 901, 12, 2);
	ck_assert_int_eq(stalefs_verify_dirblock(b, BS, 901, 12, 0), 0);
	de = de_at(b, HDR);
	ck_assert(stalefs_dirent_is_dots(de));
	ck_assert_uint_eq(le32_to_cpu(de->inode), 12);
	ck_assert_uint_eq(de->file_type, STALEFS_FT_DIR);
	de = de_at(b, HDR + le16_to_cpu(de->rec_len));
	ck_assert(stalefs_dirent_is_dots(de));
	ck_assert_uint_eq(le32_to_cpu(de->inode), 2);
	ck_assert_uint_eq(de->name_len, 2);
	ck_assert_uint_eq(HDR + STALEFS_DIR_REC_LEN(1) + le16_to_cpu(de->rec_len), BS);
}
END_TEST

START_TEST(fill_until_full)
{
	u8 b[BS];
	char name[16];
	u32 n = 0, off, need = STALEFS_DIR_REC_LEN(10);

	stalefs_dirblock_init_dots(b, BS, 901, 12, 2);
	for (;;) {
		snprintf(name, sizeof(name), "file%06u", n);
		off = stalefs_dirblock_find_room(b, BS, 10);
		if (!off)
			break;
		ck_assert_uint_eq(stalefs_dirblock_place(b, off, 20 + n, name, 10, STALEFS_FT_REG) % 4, 0);
		ck_assert_int_eq(stalefs_verify_dirblock(b, BS, 901, 12, 0), 0);
		n++;
	}
	/* Everything but the dots and the unusable tail went to entries of `need` bytes. */
	ck_assert_uint_eq(n, (BS - HDR - STALEFS_DIR_REC_LEN(1) - STALEFS_DIR_REC_LEN(2)) / need);
	/* And a name longer than any slack left finds no room. */
	ck_assert_uint_eq(stalefs_dirblock_find_room(b, BS, 250), 0);
}
END_TEST

START_TEST(remove_joins_previous)
{
	u8 b[BS];
	u32 a, c, d, first;
	const struct stalefs_dir_entry *de;

	stalefs_dirblock_init(b, BS, 900, 12, 1);
	first = stalefs_dirblock_place(b, stalefs_dirblock_find_room(b, BS, 1), 30, "a", 1, STALEFS_FT_REG);
	ck_assert_uint_eq(first, HDR);			/* the unused first entry is taken whole */
	a = first;
	c = stalefs_dirblock_place(b, stalefs_dirblock_find_room(b, BS, 3), 31, "ccc", 3, STALEFS_FT_REG);
	d = stalefs_dirblock_place(b, stalefs_dirblock_find_room(b, BS, 2), 32, "dd", 2, STALEFS_FT_DIR);
	ck_assert_uint_eq(c, a + STALEFS_DIR_REC_LEN(1));
	ck_assert_uint_eq(d, c + STALEFS_DIR_REC_LEN(3));
	/* Middle entry: its space joins "a". */
	stalefs_dirblock_remove(b, c, a);
	ck_assert_int_eq(stalefs_verify_dirblock(b, BS, 900, 12, 1), 0);
	ck_assert_uint_eq(le16_to_cpu(de_at(b, a)->rec_len), STALEFS_DIR_REC_LEN(1) + STALEFS_DIR_REC_LEN(3));
	/* The room it left is found again, right after "a". */
	ck_assert_uint_eq(stalefs_dirblock_find_room(b, BS, 3), a);
	/* First entry: it stays, unused, and keeps its length. */
	stalefs_dirblock_remove(b, a, 0);
	de = de_at(b, a);
	ck_assert_uint_eq(le32_to_cpu(de->inode), 0);
	ck_assert_int_eq(stalefs_verify_dirblock(b, BS, 900, 12, 1), 0);
	ck_assert_uint_eq(le32_to_cpu(de_at(b, d)->inode), 32);
}
END_TEST

START_TEST(bad_chain_no_loop)
{
	u8 b[BS];

	stalefs_dirblock_init(b, BS, 900, 12, 1);
	((struct stalefs_dir_entry *)(b + HDR))->rec_len = cpu_to_le16(0);
	ck_assert_uint_eq(stalefs_dirblock_find_room(b, BS, 1), 0);
	((struct stalefs_dir_entry *)(b + HDR))->rec_len = cpu_to_le16(BS);	/* past the end */
	ck_assert_uint_eq(stalefs_dirblock_find_room(b, BS, 1), 0);
}
END_TEST

Suite *dir_rules_suite(void)
{
	Suite *s = suite_create("dir_rules");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, fresh_and_dots_verify);
	tcase_add_test(tc, fill_until_full);
	tcase_add_test(tc, remove_joins_previous);
	tcase_add_test(tc, bad_chain_no_loop);
	suite_add_tcase(s, tc);
	return s;
}
