/*
 * The journal's format in userspace: CRC32C against published vectors and a
 * bit-by-bit reference, the checksums of blocks e2fsprogs wrote (so ours are
 * jbd2's, not merely self-consistent), the journal superblock verifier (a
 * case per rule), the default size table and its cap, placement, and
 * creating a journal (also on a 1 TiB sparse image, which must stay sparse).
 */
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <sys/stat.h>
#include "unit.h"

/* ---- CRC32C ---- */

/* Bit at a time, straight from the polynomial: nothing shared with the code under test. */
static u32 crc32c_bitwise(u32 crc, const u8 *p, size_t len)
{
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
	}
	return crc;
}

START_TEST(crc32c_vectors)
{
	u8 buf[32];
	int i;

	/* The usual check value is for init ~0 and a final inversion: stalefs_crc32c does neither. */
	ck_assert_uint_eq(~stalefs_crc32c(~0u, "123456789", 9), 0xE3069283u);
	ck_assert_uint_eq(~stalefs_crc32c_portable(~0u, "123456789", 9), 0xE3069283u);
	/* RFC 3720 (iSCSI) B.4. */
	memset(buf, 0, sizeof(buf));
	ck_assert_uint_eq(~stalefs_crc32c(~0u, buf, 32), 0x8A9136AAu);
	memset(buf, 0xFF, sizeof(buf));
	ck_assert_uint_eq(~stalefs_crc32c(~0u, buf, 32), 0x62A8AB43u);
	for (i = 0; i < 32; i++)
		buf[i] = (u8)i;
	ck_assert_uint_eq(~stalefs_crc32c(~0u, buf, 32), 0x46DD794Eu);
	for (i = 0; i < 32; i++)
		buf[i] = (u8)(31 - i);
	ck_assert_uint_eq(~stalefs_crc32c(~0u, buf, 32), 0x113FDB5Cu);
	/* Nothing in, the seed out: no hidden inversion. */
	ck_assert_uint_eq(stalefs_crc32c(0x12345678u, buf, 0), 0x12345678u);
	ck_assert_uint_eq(stalefs_crc32c(0, "", 0), 0);
}
END_TEST

/* Both paths, every alignment and many lengths, chained or not, against the bitwise reference. */
START_TEST(crc32c_random)
{
	u64 st = 0xC3C3;
	u8 *buf = malloc(5000);
	size_t off, len;

	unit_fill(&st, buf, 5000);
	for (off = 0; off < 9; off++)
		for (len = 0; len < 4096; len += len < 80 ? 1 : 253) {
			u32 seed = (u32)unit_rand(&st), want = crc32c_bitwise(seed, buf + off, len);
			size_t half = len / 3;

			hot_assert(stalefs_crc32c(seed, buf + off, len) == want, "off %zu len %zu", off, len);
			hot_assert(stalefs_crc32c_portable(seed, buf + off, len) == want, "portable off %zu len %zu",
				   off, len);
			hot_assert(stalefs_crc32c(stalefs_crc32c(seed, buf + off, half), buf + off + half,
						  len - half) == want, "chained off %zu len %zu", off, len);
		}
	free(buf);
}
END_TEST

/* ---- blocks written by e2fsprogs ----
 * tests/unit/data/e2fsprogs-journal.bin.gz: the first 7 blocks of an ext4 journal (1 KiB
 * blocks, 64bit, csum v3) that e2fsprogs 1.47's debugfs wrote: "jo -c", "jw -b 300,301 data"
 * (the second data block begins with the jbd2 magic, so it is escaped), "jw -r 302", "jc".
 * Log: 1 descriptor, 2-3 data, 4 commit (transaction 1), 5 revoke, 6 commit (transaction 2).
 */
START_TEST(e2fsprogs_checksums)
{
	u8 log[7 * 1024];
	const struct stalefs_jbd2_super *jsb = (const void *)log;
	struct stalefs_journal j;
	const struct stalefs_jbd2_tag3 *tag;
	gzFile f = gzopen(STALEFS_SRCDIR "/tests/unit/data/e2fsprogs-journal.bin.gz", "rb");
	u32 be;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(gzread(f, log, sizeof(log)), (int)sizeof(log));
	gzclose(f);
	ck_assert_uint_eq(be32toh(jsb->s_header.h_magic), STALEFS_JBD2_MAGIC);
	ck_assert_uint_eq(be32toh(jsb->s_feature_incompat),
			  STALEFS_JBD2_INCOMPAT_REVOKE | STALEFS_JBD2_INCOMPAT_64BIT | STALEFS_JBD2_INCOMPAT_CSUM_V3);
	/* The journal superblock: crc32c(~0, 1024 bytes with the checksum zero). */
	ck_assert_uint_eq(stalefs_jsb_csum(jsb), be32toh(jsb->s_checksum));
	memset(&j, 0, sizeof(j));
	j.block_size = 1024;
	j.maxlen = 1024;
	j.first = 1;
	j.seed = stalefs_crc32c(~0u, jsb->s_uuid, 16);
	/* Descriptor and revoke blocks: their tails. */
	memcpy(&be, log + 1024 + 1020, 4);
	ck_assert_uint_eq(stalefs_journal_block_tail_csum(&j, log + 1024), be32toh(be));
	memcpy(&be, log + 5 * 1024 + 1020, 4);
	ck_assert_uint_eq(stalefs_journal_block_tail_csum(&j, log + 5 * 1024), be32toh(be));
	/* Commit blocks. */
	ck_assert_uint_eq(stalefs_journal_commit_csum(&j, log + 4 * 1024),
			  be32toh(((const struct stalefs_jbd2_commit *)(log + 4 * 1024))->h_chksum[0]));
	ck_assert_uint_eq(stalefs_journal_commit_csum(&j, log + 6 * 1024),
			  be32toh(((const struct stalefs_jbd2_commit *)(log + 6 * 1024))->h_chksum[0]));
	/* Each tag: the sequence, then the block as it sits in the log (escaped). */
	tag = (const void *)(log + 1024 + 12);
	ck_assert_uint_eq(be32toh(tag->t_blocknr), 300);
	ck_assert_uint_eq(stalefs_journal_tag_csum(&j, 1, log + 2 * 1024), be32toh(tag->t_checksum));
	tag = (const void *)(log + 1024 + 12 + 16 + 16);
	ck_assert_uint_eq(be32toh(tag->t_blocknr), 301);
	ck_assert_uint_eq(be32toh(tag->t_flags) & 0xFFFF,
			  STALEFS_JBD2_FLAG_ESCAPE | STALEFS_JBD2_FLAG_SAME_UUID | STALEFS_JBD2_FLAG_LAST_TAG);
	ck_assert_uint_eq(be32toh(*(const __be32 *)(log + 3 * 1024)), 0);
	ck_assert_uint_eq(stalefs_journal_tag_csum(&j, 1, log + 3 * 1024), be32toh(tag->t_checksum));
	/* And a flipped bit is seen. */
	log[2 * 1024 + 100] ^= 4;
	ck_assert_uint_ne(stalefs_journal_tag_csum(&j, 1, log + 2 * 1024), be32toh(((const struct stalefs_jbd2_tag3 *)
			  (log + 1024 + 12))->t_checksum));
}
END_TEST

/* ---- the journal superblock verifier: a case per rule ---- */

static void jsb_fixture(struct stalefs_super_block *sb, struct stalefs_jbd2_super *jsb)
{
	struct stalefs_geom g;

	fix_super(sb, &g);
	sb->s_feature_compat |= cpu_to_le32(STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	sb->s_journal_blocks = cpu_to_le32(4096);
	sb->s_journal_block = cpu_to_le64(40000);
	stalefs_jsb_init(jsb, sb, 77);
	ck_assert_int_eq(stalefs_jsb_verify(jsb, sb), 0);
}

struct jsb_case {
	int rule;
	void (*edit)(struct stalefs_jbd2_super *jsb, struct stalefs_super_block *sb);
	bool keep_csum;		/* leave the checksum as it was (the checksum rule) */
};

static void e_magic(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_header.h_magic = htobe32(0xC03B3999); }
static void e_v1(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_header.h_blocktype = htobe32(STALEFS_JBD2_SUPERBLOCK_V1); }
static void e_bs(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_blocksize = htobe32(1024); }
static void e_maxlen(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_maxlen = htobe32(4095); }
static void e_maxlen_sb(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)j; s->s_journal_blocks = cpu_to_le32(8192); }
static void e_first0(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_first = 0; }
static void e_first2(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_first = htobe32(2); }
static void e_start(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_start = htobe32(4096); }
static void e_async(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_feature_incompat |= htobe32(STALEFS_JBD2_INCOMPAT_ASYNC_COMMIT); }
static void e_fc(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_feature_incompat |= htobe32(STALEFS_JBD2_INCOMPAT_FAST_COMMIT); }
static void e_csum_v2(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_feature_incompat |= htobe32(STALEFS_JBD2_INCOMPAT_CSUM_V2); }
static void e_compat(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_feature_compat = htobe32(STALEFS_JBD2_COMPAT_CHECKSUM); }
static void e_ro(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_feature_ro_compat = htobe32(1); }
static void e_no_v3(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_feature_incompat = htobe32(STALEFS_JBD2_INCOMPAT_64BIT); }
static void e_no_64(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_feature_incompat = htobe32(STALEFS_JBD2_INCOMPAT_CSUM_V3); }
static void e_ctype(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_checksum_type = 1; }
static void e_csum(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_nr_users = htobe32(2); }
static void e_uuid(struct stalefs_jbd2_super *j, struct stalefs_super_block *s) { (void)s; j->s_uuid[15] ^= 1; }

static const struct jsb_case jsb_cases[] = {
	{ STALEFS_JSB_MAGIC, e_magic, false },
	{ STALEFS_JSB_BLOCKTYPE, e_v1, false },
	{ STALEFS_JSB_BLOCKSIZE, e_bs, false },
	{ STALEFS_JSB_MAXLEN, e_maxlen, false },
	{ STALEFS_JSB_MAXLEN, e_maxlen_sb, false },
	{ STALEFS_JSB_FIRST, e_first0, false },
	{ STALEFS_JSB_FIRST, e_first2, false },
	{ STALEFS_JSB_START, e_start, false },
	{ STALEFS_JSB_FEATURES_UNKNOWN, e_async, false },
	{ STALEFS_JSB_FEATURES_UNKNOWN, e_fc, false },
	{ STALEFS_JSB_FEATURES_UNKNOWN, e_csum_v2, false },
	{ STALEFS_JSB_FEATURES_UNKNOWN, e_compat, false },
	{ STALEFS_JSB_FEATURES_UNKNOWN, e_ro, false },
	{ STALEFS_JSB_FEATURES_MISSING, e_no_v3, false },
	{ STALEFS_JSB_FEATURES_MISSING, e_no_64, false },
	{ STALEFS_JSB_CSUM_TYPE, e_ctype, false },
	{ STALEFS_JSB_CSUM, e_csum, true },
	{ STALEFS_JSB_UUID, e_uuid, false },
};

START_TEST(jsb_rules)
{
	const struct jsb_case *c = &jsb_cases[_i];
	struct stalefs_super_block sb;
	struct stalefs_jbd2_super jsb;
	int got;

	jsb_fixture(&sb, &jsb);
	c->edit(&jsb, &sb);
	if (!c->keep_csum)
		stalefs_jsb_set_csum(&jsb);
	got = stalefs_jsb_verify(&jsb, &sb);
	ck_assert_msg(got == c->rule, "case %d: verifier says %d (%s), expected %d (%s)", _i, got,
		      stalefs_jsb_rule_msg(got), c->rule, stalefs_jsb_rule_msg(c->rule));
	ck_assert_uint_ne(stalefs_jsb_rule_error(got), 0);
}
END_TEST

/* Every rule has a case above, a message of its own, and an error code. */
START_TEST(jsb_rules_complete)
{
	int r, k;
	size_t i;

	for (r = 1; r < STALEFS_JSB_RULE_MAX; r++) {
		bool covered = false;

		for (i = 0; i < sizeof(jsb_cases) / sizeof(jsb_cases[0]); i++)
			covered |= jsb_cases[i].rule == r;
		ck_assert_msg(covered, "journal superblock rule %d has no test case", r);
		ck_assert_str_ne(stalefs_jsb_rule_msg(r), "unknown journal superblock rule");
		for (k = 1; k < r; k++)
			ck_assert_str_ne(stalefs_jsb_rule_msg(r), stalefs_jsb_rule_msg(k));
	}
	ck_assert_uint_eq(stalefs_jsb_rule_error(STALEFS_JSB_CSUM), STALEFS_ERR_JSB_CSUM);
	ck_assert_uint_eq(stalefs_jsb_rule_error(STALEFS_JSB_FEATURES_UNKNOWN), STALEFS_ERR_JOURNAL_UNSUPP);
	ck_assert_uint_eq(stalefs_jsb_rule_error(STALEFS_JSB_UUID), STALEFS_ERR_JSB_CORRUPT);
	ck_assert_uint_eq(stalefs_jsb_rule_error(0), 0);
}
END_TEST

/* What a fresh journal superblock holds (FORMAT.md Appendix A.11), and what is accepted. */
START_TEST(jsb_fresh)
{
	struct stalefs_super_block sb;
	struct stalefs_jbd2_super jsb;

	jsb_fixture(&sb, &jsb);
	ck_assert_uint_eq(be32toh(jsb.s_header.h_blocktype), 4);
	ck_assert_uint_eq(be32toh(jsb.s_blocksize), FIX_BS);
	ck_assert_uint_eq(be32toh(jsb.s_maxlen), 4096);
	ck_assert_uint_eq(be32toh(jsb.s_first), 1);
	ck_assert_uint_eq(be32toh(jsb.s_sequence), 77);
	ck_assert_uint_eq(jsb.s_start, 0);
	ck_assert_uint_eq(be32toh(jsb.s_feature_incompat), 0x12);
	ck_assert_uint_eq(be32toh(jsb.s_nr_users), 1);
	ck_assert_uint_eq(jsb.s_checksum_type, 4);
	ck_assert_mem_eq(jsb.s_uuid, sb.s_uuid, 16);
	/* REVOKE (the kernel adds it), a log in use and an aborted journal are all well formed. */
	jsb.s_feature_incompat |= htobe32(STALEFS_JBD2_INCOMPAT_REVOKE);
	jsb.s_start = htobe32(4095);
	jsb.s_errno = htobe32((u32)-5);
	stalefs_jsb_set_csum(&jsb);
	ck_assert_int_eq(stalefs_jsb_verify(&jsb, &sb), 0);
}
END_TEST

/* ---- sizing and placement ---- */

static void geom_for(u64 bytes, u32 bs, struct stalefs_geom *g)
{
	struct stalefs_mkfs_params p;
	struct stalefs_super_block sb;

	stalefs_mkfs_defaults(&p, bytes, bs);
	ck_ok(stalefs_mkfs_layout(&p, &sb, g));
}

static const struct {
	u64 bytes;
	u32 bs, table;		/* the table's size for it (0: none) */
} sizes[] = {
	{ 4ULL << 20, 4096, 0 }, { (8ULL << 20) - 4096, 4096, 0 }, { 8ULL << 20, 4096, 1024 },
	{ 2ULL << 20, 1024, 1024 }, { 127ULL << 20, 4096, 1024 }, { 128ULL << 20, 4096, 4096 },
	{ 1ULL << 30, 4096, 8192 }, { 2ULL << 30, 4096, 16384 }, { 16ULL << 30, 4096, 32768 },
	{ 32ULL << 30, 4096, 65536 }, { 64ULL << 30, 4096, 131072 }, { 128ULL << 30, 4096, 262144 },
	{ 1ULL << 40, 4096, 262144 }, { 16ULL << 40, 4096, 262144 }, { 1ULL << 30, 1024, 16384 },
};

START_TEST(default_sizes)
{
	struct stalefs_geom g;
	u32 want = sizes[_i].table, got, max, cap;
	u64 start;

	geom_for(sizes[_i].bytes, sizes[_i].bs, &g);
	got = stalefs_journal_default_blocks(&g);
	max = stalefs_journal_max_blocks(&g);
	cap = (u32)((u64)max * 7 / 8);
	if (want > cap)
		want = cap < STALEFS_JOURNAL_MIN_BLOCKS ? 0 : cap;
	ck_assert_msg(got == want, "%llu bytes at %u: %u journal blocks, expected %u (cap %u)",
		      (unsigned long long)sizes[_i].bytes, sizes[_i].bs, got, want, cap);
	if (!got)
		return;
	/* It goes where the plan says: the middle group, right after its inode table. */
	ck_ok(stalefs_journal_plan(&g, got, &start));
	ck_assert(stalefs_journal_range_ok(&g, start, got));
	ck_assert_uint_eq(stalefs_block_group(&g, start), g.groups_count / 2);
	{
		u64 bb, ib, it;

		stalefs_group_default_layout(&g, g.groups_count / 2, &bb, &ib, &it);
		ck_assert_uint_eq(start, it + g.inode_table_blocks);
	}
}
END_TEST

START_TEST(plan_limits)
{
	struct stalefs_geom g;
	u64 start, start2, it, bb, ib;
	u32 max;

	/* 256 MiB at 4 KiB: two groups; the largest area is group 1's (no boot area, no root). */
	geom_for(256ULL << 20, 4096, &g);
	max = stalefs_journal_max_blocks(&g);
	ck_assert_uint_eq(max, stalefs_group_nblocks(&g, 1) - stalefs_group_meta_blocks(&g, 1));
	ck_err(stalefs_journal_plan(&g, STALEFS_JOURNAL_MIN_BLOCKS - 1, &start), STALEFS_ERR_JOURNAL_TOO_SMALL);
	ck_err(stalefs_journal_plan(&g, (u64)max + 1, &start), STALEFS_ERR_JOURNAL_NO_ROOM);
	ck_ok(stalefs_journal_plan(&g, max, &start));
	ck_assert(stalefs_journal_range_ok(&g, start, max));
	ck_assert_uint_eq(start + max, stalefs_group_first_block(&g, 1) + stalefs_group_nblocks(&g, 1));
	/* One group: group 0, after its inode table. */
	geom_for(16ULL << 20, 4096, &g);
	ck_assert_uint_eq(g.groups_count, 1);
	ck_ok(stalefs_journal_plan(&g, 1024, &start2));
	stalefs_group_default_layout(&g, 0, &bb, &ib, &it);
	ck_assert_uint_eq(start2, it + g.inode_table_blocks);
	/* The middle group is the last one and too short: the plan wraps round to group 0. */
	geom_for((32768ULL + 3000) * 4096, 4096, &g);
	ck_assert_uint_eq(g.groups_count, 2);
	ck_ok(stalefs_journal_plan(&g, 2000, &start));
	ck_assert_uint_eq(stalefs_block_group(&g, start), 1);
	ck_ok(stalefs_journal_plan(&g, 4000, &start));
	ck_assert_uint_eq(stalefs_block_group(&g, start), 0);
	stalefs_group_default_layout(&g, 0, &bb, &ib, &it);
	ck_assert_uint_eq(start, it + g.inode_table_blocks);
}
END_TEST

/* The layout records the journal; explicit sizes are checked, the default gives way on tiny filesystems. */
START_TEST(layout_journal)
{
	struct stalefs_mkfs_params p;
	struct stalefs_super_block sb;
	struct stalefs_geom g;

	stalefs_mkfs_defaults(&p, 256ULL << 20, 4096);
	ck_assert(p.feature_compat & STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	ck_ok(stalefs_mkfs_layout(&p, &sb, &g));
	ck_assert(le32_to_cpu(sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	ck_assert_uint_eq(le32_to_cpu(sb.s_journal_blocks), 4096);
	ck_assert_int_eq(stalefs_verify_super(&sb), 0);
	p.journal_blocks = 1023;
	ck_err(stalefs_mkfs_layout(&p, &sb, &g), STALEFS_ERR_JOURNAL_TOO_SMALL);
	p.journal_blocks = 32768;
	ck_err(stalefs_mkfs_layout(&p, &sb, &g), STALEFS_ERR_JOURNAL_NO_ROOM);
	p.journal_blocks = 20000;
	ck_ok(stalefs_mkfs_layout(&p, &sb, &g));
	ck_assert_uint_eq(le32_to_cpu(sb.s_journal_blocks), 20000);
	p.feature_compat &= ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
	ck_ok(stalefs_mkfs_layout(&p, &sb, &g));
	ck_assert(!(le32_to_cpu(sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL));
	ck_assert_uint_eq(sb.s_journal_block, 0);
	ck_assert_uint_eq(sb.s_journal_blocks, 0);
	ck_assert_int_eq(stalefs_verify_super(&sb), 0);
	/* 4 MiB at 4 KiB (1024 blocks): no journal by default, a usage of its own when asked. */
	stalefs_mkfs_defaults(&p, 4ULL << 20, 4096);
	ck_ok(stalefs_mkfs_layout(&p, &sb, &g));
	ck_assert(!(le32_to_cpu(sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL));
	ck_assert_int_eq(stalefs_verify_super(&sb), 0);
	p.journal_blocks = 1024;
	ck_err(stalefs_mkfs_layout(&p, &sb, &g), STALEFS_ERR_JOURNAL_NO_ROOM);
}
END_TEST

static void no_journal(struct stalefs_mkfs_params *p)
{
	p->feature_compat &= ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
}

/* A journal added to a filesystem in use: placed by the bitmaps, made, and consistent on disk. */
START_TEST(place_and_create)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, 64ULL << 20, 1024, no_journal);
	struct stalefs_jbd2_super jsb;
	u64 start, free0 = le64_to_cpu(fs->sb.s_free_blocks_count), planned, b;
	u8 *buf = malloc(1024), zero[1024];
	u32 grp;

	memset(zero, 0, sizeof(zero));
	ck_assert_uint_eq(fs->geom.groups_count, 8);
	ck_err(stalefs_journal_read_super(fs, &jsb), STALEFS_ERR_NO_JOURNAL);
	ck_ok(stalefs_journal_place(fs, 2048, &start));
	ck_ok(stalefs_journal_plan(&fs->geom, 2048, &planned));
	ck_assert_uint_eq(start, planned);
	/* Something in the way: the next free run of that length. */
	stalefs_mark_block(fs, start + 100);
	ck_ok(stalefs_journal_place(fs, 2048, &b));
	ck_assert_uint_eq(b, start + 101);
	ck_err(stalefs_journal_create(fs, start, 2048), STALEFS_ERR_JOURNAL_NO_ROOM);
	stalefs_unmark_block(fs, start + 100);
	stalefs_mark_block(fs, start + 2047);	/* the last block, past the whole bytes */
	ck_err(stalefs_journal_create(fs, start, 2048), STALEFS_ERR_JOURNAL_NO_ROOM);
	stalefs_unmark_block(fs, start + 2047);
	ck_err(stalefs_journal_place(fs, 9000, &b), STALEFS_ERR_JOURNAL_NO_ROOM);
	ck_err(stalefs_journal_create(fs, start, 1000), STALEFS_ERR_JOURNAL_TOO_SMALL);
	ck_err(stalefs_journal_create(fs, fs->geom.blocks_count - 100, 1024), STALEFS_ERR_BAD_BLOCK_NUM);
	/* Dirty the log area first: create must zero it. */
	memset(buf, 0xC0, 1024);
	for (b = start; b < start + 2048; b += 511)
		ck_ok(stalefs_io_write(fs->io, b, 1, buf));
	ck_ok(stalefs_journal_create(fs, start, 2048));
	ck_err(stalefs_journal_create(fs, start, 2048), STALEFS_ERR_JOURNAL_EXISTS);
	fs = scratch_reopen(&s);
	ck_assert_int_eq(stalefs_verify_super(&fs->sb), 0);
	ck_assert(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_journal_block), start);
	ck_assert_uint_eq(le32_to_cpu(fs->sb.s_journal_blocks), 2048);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 2048);
	grp = stalefs_block_group(&fs->geom, start);
	ck_assert(!(le16_to_cpu(fs->groups[grp].desc.bg_flags) & STALEFS_BG_BLOCK_UNINIT));
	for (b = start; b < start + 2048; b++)
		hot_assert(stalefs_test_block(fs, b), "journal block %llu is free", (unsigned long long)b);
	ck_assert(!stalefs_test_block(fs, start + 2048));
	/* The bitmaps and counts agree: recount changes nothing. */
	stalefs_recount(fs);
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free0 - 2048);
	ck_ok(stalefs_journal_read_super(fs, &jsb));
	ck_assert_int_eq(stalefs_jsb_verify(&jsb, &fs->sb), 0);
	ck_assert_uint_eq(jsb.s_start, 0);
	for (b = start + 1; b < start + 2048; b += 511) {
		ck_ok(stalefs_read_block(fs, b, buf));
		ck_assert_mem_eq(buf, zero, 1024);
	}
	/* The allocator never hands out journal blocks. */
	for (b = 0; b < 200; b++) {
		u64 got;

		ck_ok(stalefs_alloc_block(fs, start, &got));
		hot_assert(got < start || got >= start + 2048, "allocated journal block %llu", (unsigned long long)got);
	}
	free(buf);
	scratch_done(&s);
}
END_TEST

/* Two journals made the same way start at different sequences (random), each verified. */
START_TEST(random_first_sequence)
{
	struct scratch s1, s2;
	struct stalefs_jbd2_super a, b;

	scratch_mkfs(&s1, 16ULL << 20, 4096);
	scratch_mkfs(&s2, 16ULL << 20, 4096);
	ck_ok(stalefs_journal_read_super(s1.fs, &a));
	ck_ok(stalefs_journal_read_super(s2.fs, &b));
	ck_assert_int_eq(stalefs_jsb_verify(&a, &s1.fs->sb), 0);
	ck_assert_int_eq(stalefs_jsb_verify(&b, &s2.fs->sb), 0);
	ck_assert_uint_ne(a.s_sequence, b.s_sequence);
	scratch_done(&s1);
	scratch_done(&s2);
}
END_TEST

/* 1 TiB: the journal (262144 blocks wanted, capped to its group) is a hole, not a gigabyte written. */
START_TEST(terabyte_stays_sparse)
{
	struct scratch s;
	struct stat st;
	stalefs_fs *fs = scratch_mkfs(&s, 1ULL << 40, 4096);
	u32 blocks = le32_to_cpu(fs->sb.s_journal_blocks);

	ck_assert_uint_eq(blocks, stalefs_journal_default_blocks(&fs->geom));
	ck_assert_uint_gt(blocks, 200000);
	fs = scratch_reopen(&s);
	ck_assert_int_eq(fstat(s.fd, &st), 0);
	ck_assert_msg((u64)st.st_blocks * 512 < (64ULL << 20), "%llu bytes allocated",
		      (unsigned long long)st.st_blocks * 512);
	scratch_done(&s);
}
END_TEST

Suite *journal_format_suite(void)
{
	Suite *s = suite_create("journal_format");
	TCase *tc = tcase_create("journal_format");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, crc32c_vectors);
	tcase_add_test(tc, crc32c_random);
	tcase_add_test(tc, e2fsprogs_checksums);
	tcase_add_loop_test(tc, jsb_rules, 0, sizeof(jsb_cases) / sizeof(jsb_cases[0]));
	tcase_add_test(tc, jsb_rules_complete);
	tcase_add_test(tc, jsb_fresh);
	tcase_add_loop_test(tc, default_sizes, 0, sizeof(sizes) / sizeof(sizes[0]));
	tcase_add_test(tc, plan_limits);
	tcase_add_test(tc, layout_journal);
	tcase_add_test(tc, place_and_create);
	tcase_add_test(tc, random_first_sequence);
	tcase_add_test(tc, terabyte_stays_sparse);
	suite_add_tcase(s, tc);
	return s;
}
