/*
 * Checksums: the CRC is the one FORMAT.md section 7 names (checked against a
 * bit-by-bit reference written here), each structure's checksum covers what
 * the table says with the seeds it says, a set checksum verifies, every
 * single-bit change anywhere is detected, and a structure copied to another
 * place (group, inode slot, block, filesystem) no longer verifies.
 */
#include "unit.h"

/* crc32_le as the kernel computes it: reflected IEEE polynomial, no inversion. */
static u32 ref_crc(u32 crc, const void *data, size_t len)
{
	const u8 *p = data;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return crc;
}

static u32 ref_crc_le32(u32 crc, u32 v)
{
	u8 b[4] = { (u8)v, (u8)(v >> 8), (u8)(v >> 16), (u8)(v >> 24) };

	return ref_crc(crc, b, 4);
}

START_TEST(crc_is_kernel_crc32_le)
{
	/* The standard check value: zlib's crc32("123456789") = 0xCBF43926 = ~crc32_le(~0, ...). */
	ck_assert_uint_eq(stalefs_crc32_le(~0u, "123456789", 9), ~0xCBF43926u);
	ck_assert_uint_eq(ref_crc(~0u, "123456789", 9), ~0xCBF43926u);
	ck_assert_uint_eq(stalefs_crc32_le(0x12345678u, "stalefs", 7), ref_crc(0x12345678u, "stalefs", 7));
	ck_assert_uint_eq(stalefs_crc32_le(7, "", 0), 7);
}
END_TEST

/* Every length and alignment (fast paths work on 16/64-byte chunks), with random seeds. */
START_TEST(crc_all_lengths_and_alignments)
{
	static u8 buf[70000];
	u64 rng = 0xC3C;
	u32 len, align;

	unit_fill(&rng, buf, sizeof(buf));
	for (align = 0; align < 16; align++)
		for (len = 0; len <= 600; len++) {
			u32 seed = (u32)unit_rand(&rng);

			hot_assert(stalefs_crc32_le(seed, buf + align, len) == ref_crc(seed, buf + align, len),
				   "crc differs at length %u, alignment %u", len, align);
		}
	for (len = 4096 - 3; len <= 4096 + 3; len++)
		ck_assert_uint_eq(stalefs_crc32_le(7, buf + 1, len), ref_crc(7, buf + 1, len));
	ck_assert_uint_eq(stalefs_crc32_le(~0u, buf, 65536 + 17), ref_crc(~0u, buf, 65536 + 17));
	/* Chaining: crc(a then b) = crc(b, seeded with crc(a)). */
	ck_assert_uint_eq(stalefs_crc32_le(stalefs_crc32_le(5, buf, 1000), buf + 1000, 3000),
			  stalefs_crc32_le(5, buf, 4000));
}
END_TEST

START_TEST(seed_from_uuid)
{
	u8 uuid[16];
	u32 i;

	for (i = 0; i < 16; i++)
		uuid[i] = (u8)(i * 17 + 3);
	ck_assert_uint_eq(stalefs_csum_seed_from_uuid(uuid), ref_crc(0xFFFFFFFFu, uuid, 16));
}
END_TEST

START_TEST(super_csum_reference)
{
	struct stalefs_super_block sb, z;
	struct stalefs_geom g;

	fix_super(&sb, &g);
	ck_assert_uint_eq(le32_to_cpu(sb.s_csum_seed), ref_crc(0xFFFFFFFFu, sb.s_uuid, 16));
	z = sb;
	z.s_checksum = 0;
	ck_assert_uint_eq(le32_to_cpu(sb.s_checksum), ref_crc(le32_to_cpu(sb.s_csum_seed), &z, sizeof(z)));
}
END_TEST

START_TEST(desc_csum_reference)
{
	struct stalefs_super_block sb;
	struct stalefs_geom g;
	struct stalefs_group_desc d, z;

	fix_super(&sb, &g);
	fix_desc(&g, 1, &d);
	z = d;
	z.bg_checksum = 0;
	ck_assert_uint_eq(le32_to_cpu(d.bg_checksum), ref_crc(ref_crc_le32(FIX_SEED, 1), &z, sizeof(z)));
}
END_TEST

START_TEST(bitmap_csum_reference)
{
	u8 map[FIX_BS];
	u64 rng = 42;

	unit_fill(&rng, map, sizeof(map));
	ck_assert_uint_eq(stalefs_bitmap_csum(FIX_SEED, 3, map, sizeof(map)),
			  ref_crc(ref_crc_le32(FIX_SEED, 3), map, sizeof(map)));
}
END_TEST

START_TEST(inode_csum_reference)
{
	struct stalefs_inode in, z;

	fix_inode(77, STALEFS_S_IFREG | 0644, &in);
	z = in;
	z.i_checksum = 0;
	ck_assert_uint_eq(le32_to_cpu(in.i_checksum),
			  ref_crc(ref_crc_le32(ref_crc_le32(FIX_SEED, 77), 0xC0FFEE), &z, sizeof(z)));
}
END_TEST

START_TEST(block_csum_reference)
{
	u8 buf[FIX_BS], z[FIX_BS];

	fix_extblock(buf, FIX_BS, 900, 12, 5, 10);
	memcpy(z, buf, FIX_BS);
	((struct stalefs_extent_block *)z)->eb_checksum = 0;
	ck_assert_uint_eq(le32_to_cpu(((struct stalefs_extent_block *)buf)->eb_checksum),
			  ref_crc(FIX_SEED, z, FIX_BS));
	fix_dirblock(buf, FIX_BS, 901, 12, 0);
	memcpy(z, buf, FIX_BS);
	((struct stalefs_dir_block *)z)->db_checksum = 0;
	ck_assert_uint_eq(le32_to_cpu(((struct stalefs_dir_block *)buf)->db_checksum),
			  ref_crc(FIX_SEED, z, FIX_BS));
}
END_TEST

/* Flip each bit position (stepping through all bytes) and expect the verifier to notice. */
#define FLIP_ALL(obj, len, verify_expr, rule) do { \
	u8 *fb_ = (u8 *)(obj); \
	size_t fi_; \
	ck_assert_int_eq((verify_expr), 0); \
	for (fi_ = 0; fi_ < (len); fi_++) { \
		u8 bit_ = (u8)(1u << (fi_ % 8)); \
		fb_[fi_] ^= bit_; \
		hot_assert((verify_expr) == (rule), "flipping byte %zu of %s went unnoticed", fi_, #obj); \
		fb_[fi_] ^= bit_; \
	} \
	ck_assert_int_eq((verify_expr), 0); \
} while (0)

START_TEST(every_bit_covered)
{
	struct stalefs_super_block sb;
	struct stalefs_geom g;
	struct stalefs_group_desc d;
	struct stalefs_inode in;
	static u8 eb[FIX_BS], db[FIX_BS], map[FIX_BS];
	u64 rng = 7;

	fix_super(&sb, &g);
	/* The seed lives in the superblock it seeds: flipping it must still fail. */
	FLIP_ALL(&sb, sizeof(sb), stalefs_verify_super_csum(&sb), STALEFS_R_SB_CSUM);
	fix_desc(&g, 0, &d);
	FLIP_ALL(&d, sizeof(d), stalefs_verify_desc_csum(FIX_SEED, 0, &d), STALEFS_R_BG_CSUM);
	fix_inode(12, STALEFS_S_IFREG | 0600, &in);
	FLIP_ALL(&in, sizeof(in), stalefs_verify_inode_csum(FIX_SEED, 12, &in), STALEFS_R_INODE_CSUM);
	fix_extblock(eb, FIX_BS, 100, 12, 0xC0FFEE, 30);
	FLIP_ALL(eb, FIX_BS, stalefs_verify_extblock_csum(FIX_SEED, eb, FIX_BS), STALEFS_R_EXTBLK_CSUM);
	fix_dirblock(db, FIX_BS, 101, 12, 0);
	FLIP_ALL(db, FIX_BS, stalefs_verify_dirblock_csum(FIX_SEED, db, FIX_BS), STALEFS_R_DIR_CSUM);
	unit_fill(&rng, map, sizeof(map));
	d.bg_block_bitmap_csum = cpu_to_le32(stalefs_bitmap_csum(FIX_SEED, 0, map, sizeof(map)));
	d.bg_inode_bitmap_csum = d.bg_block_bitmap_csum;
	FLIP_ALL(map, FIX_BS, stalefs_verify_block_bitmap_csum(FIX_SEED, 0, &d, map, FIX_BS),
		 STALEFS_R_BG_BLOCK_BITMAP_CSUM);
	FLIP_ALL(map, FIX_BS, stalefs_verify_inode_bitmap_csum(FIX_SEED, 0, &d, map, FIX_BS),
		 STALEFS_R_BG_INODE_BITMAP_CSUM);
}
END_TEST

/* Checksummed structures in the wrong place, or from another filesystem. */
START_TEST(copied_elsewhere_detected)
{
	struct stalefs_super_block sb;
	struct stalefs_geom g;
	struct stalefs_group_desc d;
	struct stalefs_inode in;
	static u8 eb[FIX_BS], db[FIX_BS], map[FIX_BS];
	const u32 other_seed = FIX_SEED ^ 0x100;

	fix_super(&sb, &g);
	fix_desc(&g, 1, &d);
	ck_assert_int_eq(stalefs_verify_desc_csum(FIX_SEED, 1, &d), 0);
	ck_assert_int_eq(stalefs_verify_desc_csum(FIX_SEED, 0, &d), STALEFS_R_BG_CSUM);
	ck_assert_int_eq(stalefs_verify_desc_csum(other_seed, 1, &d), STALEFS_R_BG_CSUM);

	memset(map, 0x5A, sizeof(map));
	d.bg_block_bitmap_csum = cpu_to_le32(stalefs_bitmap_csum(FIX_SEED, 1, map, sizeof(map)));
	ck_assert_int_eq(stalefs_verify_block_bitmap_csum(FIX_SEED, 1, &d, map, FIX_BS), 0);
	ck_assert_int_eq(stalefs_verify_block_bitmap_csum(FIX_SEED, 0, &d, map, FIX_BS),
			 STALEFS_R_BG_BLOCK_BITMAP_CSUM);
	ck_assert_int_eq(stalefs_verify_block_bitmap_csum(other_seed, 1, &d, map, FIX_BS),
			 STALEFS_R_BG_BLOCK_BITMAP_CSUM);

	/* An inode copied into another slot: the seed and i_ino both give it away. */
	fix_inode(20, STALEFS_S_IFREG | 0600, &in);
	ck_assert_int_eq(stalefs_verify_inode_csum(FIX_SEED, 21, &in), STALEFS_R_INODE_CSUM);
	ck_assert_int_eq(stalefs_verify_inode(&g, 21, &in), STALEFS_R_INODE_INO);
	ck_assert_int_eq(stalefs_verify_inode_csum(other_seed, 20, &in), STALEFS_R_INODE_CSUM);
	/* A new generation in the same slot: old checksums do not verify. */
	in.i_generation = cpu_to_le32(0xC0FFEF);
	ck_assert_int_eq(stalefs_verify_inode_csum(FIX_SEED, 20, &in), STALEFS_R_INODE_CSUM);

	fix_extblock(eb, FIX_BS, 500, 20, 0xC0FFEE, 3);
	ck_assert_int_eq(stalefs_verify_extblock_header(eb, 500, 20, 0xC0FFEE), 0);
	ck_assert_int_eq(stalefs_verify_extblock_header(eb, 501, 20, 0xC0FFEE), STALEFS_R_EXTBLK_BLOCKNR);
	ck_assert_int_eq(stalefs_verify_extblock_header(eb, 500, 21, 0xC0FFEE), STALEFS_R_EXTBLK_OWNER);
	ck_assert_int_eq(stalefs_verify_extblock_header(eb, 500, 20, 0xC0FFEF), STALEFS_R_EXTBLK_OWNER);
	ck_assert_int_eq(stalefs_verify_extblock_csum(other_seed, eb, FIX_BS), STALEFS_R_EXTBLK_CSUM);

	fix_dirblock(db, FIX_BS, 600, 20, 2);
	ck_assert_int_eq(stalefs_verify_dirblock(db, FIX_BS, 600, 20, 2), 0);
	ck_assert_int_eq(stalefs_verify_dirblock(db, FIX_BS, 601, 20, 2), STALEFS_R_DIR_BLOCKNR);
	ck_assert_int_eq(stalefs_verify_dirblock(db, FIX_BS, 600, 21, 2), STALEFS_R_DIR_OWNER);
	ck_assert_int_eq(stalefs_verify_dirblock(db, FIX_BS, 600, 20, 3), STALEFS_R_DIR_LBLK);
	ck_assert_int_eq(stalefs_verify_dirblock_csum(other_seed, db, FIX_BS), STALEFS_R_DIR_CSUM);

	/* A superblock from a filesystem with another uuid carries its own seed: still valid
	 * by itself, but its seed no longer verifies this filesystem's descriptors. */
	sb.s_uuid[0] ^= 1;
	sb.s_csum_seed = cpu_to_le32(stalefs_csum_seed_from_uuid(sb.s_uuid));
	stalefs_super_set_csum(&sb);
	ck_assert_int_eq(stalefs_verify_super_csum(&sb), 0);
	ck_assert_int_eq(stalefs_verify_desc_csum(le32_to_cpu(sb.s_csum_seed), 1, &d), STALEFS_R_BG_CSUM);
}
END_TEST

/* Every structure survives encode -> checksum -> verify -> decode unchanged. */
START_TEST(round_trips)
{
	struct stalefs_super_block sb;
	struct stalefs_geom g, g2;
	struct stalefs_group_desc d;
	struct stalefs_inode in;
	static u8 eb[FIX_BS], db[FIX_BS];
	const struct stalefs_extent *ex;
	const struct stalefs_dir_entry *de;

	fix_super(&sb, &g);
	ck_assert_int_eq(stalefs_geom_from_super(&g2, &sb), 0);
	ck_assert_uint_eq(le32_to_cpu(sb.s_magic), STALEFS_SUPER_MAGIC);
	ck_assert_uint_eq(le64_to_cpu(sb.s_blocks_count), 65536);
	ck_assert_uint_eq(g2.blocks_count, 65536);
	ck_assert_uint_eq(g2.groups_count, 2);
	ck_assert_uint_eq(g2.block_size, 4096);
	ck_assert_uint_eq(le32_to_cpu(sb.s_inodes_count), g2.inodes_count);
	ck_assert_uint_eq(le32_to_cpu(sb.s_lpf_ino), 11);
	ck_assert_uint_eq(le16_to_cpu(sb.s_state), STALEFS_STATE_CLEAN);

	fix_desc(&g, 1, &d);
	/* group 1 holds a backup: its superblock copy and one GDT block come first */
	ck_assert_uint_eq(le64_to_cpu(d.bg_block_bitmap), stalefs_group_first_block(&g, 1) + 2);
	ck_assert_uint_eq(le32_to_cpu(d.bg_used_dirs_count), 1);

	fix_inode(12, STALEFS_S_IFLNK | 0777, &in);
	ck_assert_int_eq(stalefs_verify_inode(&g, 12, &in), 0);
	ck_assert_int_eq(stalefs_verify_inode_csum(FIX_SEED, 12, &in), 0);
	ck_assert_uint_eq(le16_to_cpu(in.i_mode), STALEFS_S_IFLNK | 0777);
	ck_assert_uint_eq(le32_to_cpu(in.i_generation), 0xC0FFEE);
	ck_assert_uint_eq(le32_to_cpu(in.i_mtime_nsec), 999999999);
	ck_assert_uint_eq(le16_to_cpu(stalefs_inode_eh(&in)->eh_entries), 1);
	ck_assert_uint_eq(le64_to_cpu(stalefs_eh_extents(stalefs_inode_eh(&in))[0].ee_pblk), 5000);

	fix_extblock(eb, FIX_BS, 700, 12, 0xC0FFEE, 253);
	ck_assert_int_eq(stalefs_verify_extblock_header(eb, 700, 12, 0xC0FFEE), 0);
	ck_assert_int_eq(stalefs_verify_extblock_csum(FIX_SEED, eb, FIX_BS), 0);
	ck_assert_int_eq(stalefs_verify_extent_node(&g, stalefs_extblock_eh(eb), 253, 0), 0);
	ex = stalefs_eh_extents(stalefs_extblock_eh(eb));
	ck_assert_uint_eq(le32_to_cpu(ex[252].ee_lblk), 252 * 8);
	ck_assert_uint_eq(le16_to_cpu(ex[252].ee_len), 4);
	ck_assert_uint_eq(le64_to_cpu(ex[252].ee_pblk), 3000 + 252 * 8);
	ck_assert_uint_eq(le16_to_cpu(ex[1].ee_flags), STALEFS_EXT_UNWRITTEN);
	/* The last entry ends exactly at the block's end. */
	ck_assert_ptr_eq((const u8 *)&ex[253], eb + FIX_BS - (FIX_BS - 40) % 16);

	fix_dirblock(db, FIX_BS, 701, 12, 0);
	ck_assert_int_eq(stalefs_verify_dirblock(db, FIX_BS, 701, 12, 0), 0);
	ck_assert_int_eq(stalefs_verify_dirblock_inodes(&g, db), 0);
	ck_assert_int_eq(stalefs_verify_dirblock_csum(FIX_SEED, db, FIX_BS), 0);
	de = fix_dirent(db, 24 + 12 + 12);
	ck_assert_uint_eq(le32_to_cpu(de->inode), 12);
	ck_assert_uint_eq(de->name_len, 4);
	ck_assert(memcmp(de->name, "file", 4) == 0);
	ck_assert_uint_eq(de->file_type, STALEFS_FT_REG);
	ck_assert_uint_eq(le16_to_cpu(de->rec_len), FIX_BS - 48);
}
END_TEST

Suite *checksum_suite(void)
{
	Suite *s = suite_create("checksum");
	TCase *tc = tcase_create("checksum");

	tcase_add_test(tc, crc_is_kernel_crc32_le);
	tcase_add_test(tc, crc_all_lengths_and_alignments);
	tcase_add_test(tc, seed_from_uuid);
	tcase_add_test(tc, super_csum_reference);
	tcase_add_test(tc, desc_csum_reference);
	tcase_add_test(tc, bitmap_csum_reference);
	tcase_add_test(tc, inode_csum_reference);
	tcase_add_test(tc, block_csum_reference);
	tcase_add_test(tc, every_bit_covered);
	tcase_add_test(tc, copied_elsewhere_detected);
	tcase_add_test(tc, round_trips);
	suite_add_tcase(s, tc);
	return s;
}
