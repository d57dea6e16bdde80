/*
 * Layout pinning: the size of every on-disk structure and the offset and size
 * of every field, against the numbers written here, the offset comments of
 * format/stalefs_format.h and the tables of FORMAT.md Appendix A.  The table
 * below must list the fields of each structure back to back from offset 0 to
 * its size, so a field added to a structure without a row here fails too.
 */
#include <ctype.h>
#include <stdio.h>
#include "unit.h"
#include "stalefs_journal.h"

struct field {
	const char *type;	/* struct name without "struct " */
	const char *name;
	size_t off, size;	/* as compiled */
	size_t want_off, want_size;	/* as specified */
};

#define F(t, f, o, s) { #t, #f, offsetof(struct t, f), sizeof(((struct t *)0)->f), o, s }
/* The flexible name[] of a directory entry has no size of its own. */
#define FLEX(t, f, o) { #t, #f, offsetof(struct t, f), 0, o, 0 }

static const struct field fields[] = {
	F(stalefs_super_block, s_magic, 0x000, 4),
	F(stalefs_super_block, s_checksum, 0x004, 4),
	F(stalefs_super_block, s_rev_level, 0x008, 4),
	F(stalefs_super_block, s_log_block_size, 0x00C, 4),
	F(stalefs_super_block, s_blocks_count, 0x010, 8),
	F(stalefs_super_block, s_free_blocks_count, 0x018, 8),
	F(stalefs_super_block, s_r_blocks_count, 0x020, 8),
	F(stalefs_super_block, s_inodes_count, 0x028, 4),
	F(stalefs_super_block, s_free_inodes_count, 0x02C, 4),
	F(stalefs_super_block, s_blocks_per_group, 0x030, 4),
	F(stalefs_super_block, s_inodes_per_group, 0x034, 4),
	F(stalefs_super_block, s_groups_count, 0x038, 4),
	F(stalefs_super_block, s_inode_size, 0x03C, 2),
	F(stalefs_super_block, s_desc_size, 0x03E, 2),
	F(stalefs_super_block, s_feature_compat, 0x040, 4),
	F(stalefs_super_block, s_feature_ro_compat, 0x044, 4),
	F(stalefs_super_block, s_feature_incompat, 0x048, 4),
	F(stalefs_super_block, s_first_ino, 0x04C, 4),
	F(stalefs_super_block, s_lpf_ino, 0x050, 4),
	F(stalefs_super_block, s_stale_gid, 0x054, 4),
	F(stalefs_super_block, s_csum_seed, 0x058, 4),
	F(stalefs_super_block, s_state, 0x05C, 2),
	F(stalefs_super_block, s_errors, 0x05E, 2),
	F(stalefs_super_block, s_uuid, 0x060, 16),
	F(stalefs_super_block, s_volume_name, 0x070, 32),
	F(stalefs_super_block, s_last_mounted, 0x090, 64),
	F(stalefs_super_block, s_mkfs_time, 0x0D0, 8),
	F(stalefs_super_block, s_mtime, 0x0D8, 8),
	F(stalefs_super_block, s_wtime, 0x0E0, 8),
	F(stalefs_super_block, s_lastcheck, 0x0E8, 8),
	F(stalefs_super_block, s_mnt_count, 0x0F0, 4),
	F(stalefs_super_block, s_error_count, 0x0F4, 4),
	F(stalefs_super_block, s_first_error_time, 0x0F8, 8),
	F(stalefs_super_block, s_first_error_block, 0x100, 8),
	F(stalefs_super_block, s_first_error_ino, 0x108, 4),
	F(stalefs_super_block, s_last_error_ino, 0x10C, 4),
	F(stalefs_super_block, s_last_error_time, 0x110, 8),
	F(stalefs_super_block, s_last_error_block, 0x118, 8),
	F(stalefs_super_block, s_first_error_func, 0x120, 32),
	F(stalefs_super_block, s_last_error_func, 0x140, 32),
	F(stalefs_super_block, s_block_group_nr, 0x160, 4),
	F(stalefs_super_block, s_gdt_blocks, 0x164, 4),
	F(stalefs_super_block, s_max_mnt_count, 0x168, 4),
	F(stalefs_super_block, s_checkinterval, 0x16C, 4),
	F(stalefs_super_block, s_journal_block, 0x170, 8),
	F(stalefs_super_block, s_journal_blocks, 0x178, 4),
	F(stalefs_super_block, s_journal_pad, 0x17C, 4),
	F(stalefs_super_block, s_first_meta_bg, 0x180, 4),
	F(stalefs_super_block, s_reserved, 0x184, 636),

	F(stalefs_group_desc, bg_block_bitmap, 0x00, 8),
	F(stalefs_group_desc, bg_inode_bitmap, 0x08, 8),
	F(stalefs_group_desc, bg_inode_table, 0x10, 8),
	F(stalefs_group_desc, bg_free_blocks_count, 0x18, 4),
	F(stalefs_group_desc, bg_free_inodes_count, 0x1C, 4),
	F(stalefs_group_desc, bg_used_dirs_count, 0x20, 4),
	F(stalefs_group_desc, bg_itable_unused, 0x24, 4),
	F(stalefs_group_desc, bg_flags, 0x28, 2),
	F(stalefs_group_desc, bg_reserved0, 0x2A, 2),
	F(stalefs_group_desc, bg_block_bitmap_csum, 0x2C, 4),
	F(stalefs_group_desc, bg_inode_bitmap_csum, 0x30, 4),
	F(stalefs_group_desc, bg_checksum, 0x34, 4),
	F(stalefs_group_desc, bg_orphan_count, 0x38, 4),
	F(stalefs_group_desc, bg_stale_count, 0x3C, 4),

	F(stalefs_inode, i_mode, 0x00, 2),
	F(stalefs_inode, i_links_count, 0x02, 2),
	F(stalefs_inode, i_flags, 0x04, 4),
	F(stalefs_inode, i_uid, 0x08, 4),
	F(stalefs_inode, i_gid, 0x0C, 4),
	F(stalefs_inode, i_size, 0x10, 8),
	F(stalefs_inode, i_blocks, 0x18, 8),
	F(stalefs_inode, i_atime, 0x20, 8),
	F(stalefs_inode, i_ctime, 0x28, 8),
	F(stalefs_inode, i_mtime, 0x30, 8),
	F(stalefs_inode, i_crtime, 0x38, 8),
	F(stalefs_inode, i_atime_nsec, 0x40, 4),
	F(stalefs_inode, i_ctime_nsec, 0x44, 4),
	F(stalefs_inode, i_mtime_nsec, 0x48, 4),
	F(stalefs_inode, i_crtime_nsec, 0x4C, 4),
	F(stalefs_inode, i_dtime, 0x50, 8),
	F(stalefs_inode, i_generation, 0x58, 4),
	F(stalefs_inode, i_rdev, 0x5C, 4),
	F(stalefs_inode, i_ino, 0x60, 4),
	F(stalefs_inode, i_checksum, 0x64, 4),
	F(stalefs_inode, i_xattr_block, 0x68, 8),
	F(stalefs_inode, i_block, 0x70, 120),
	F(stalefs_inode, i_reserved, 0xE8, 24),

	F(stalefs_extent_header, eh_magic, 0x0, 2),
	F(stalefs_extent_header, eh_entries, 0x2, 2),
	F(stalefs_extent_header, eh_max, 0x4, 2),
	F(stalefs_extent_header, eh_depth, 0x6, 2),

	F(stalefs_extent, ee_lblk, 0x0, 4),
	F(stalefs_extent, ee_len, 0x4, 2),
	F(stalefs_extent, ee_flags, 0x6, 2),
	F(stalefs_extent, ee_pblk, 0x8, 8),

	F(stalefs_extent_idx, ei_lblk, 0x0, 4),
	F(stalefs_extent_idx, ei_reserved, 0x4, 4),
	F(stalefs_extent_idx, ei_pblk, 0x8, 8),

	F(stalefs_extent_block, eb_magic, 0x00, 4),
	F(stalefs_extent_block, eb_checksum, 0x04, 4),
	F(stalefs_extent_block, eb_blocknr, 0x08, 8),
	F(stalefs_extent_block, eb_owner, 0x10, 4),
	F(stalefs_extent_block, eb_owner_gen, 0x14, 4),
	F(stalefs_extent_block, eb_reserved, 0x18, 8),
	F(stalefs_extent_block, eb_hdr, 0x20, 8),

	F(stalefs_dir_block, db_magic, 0x00, 4),
	F(stalefs_dir_block, db_checksum, 0x04, 4),
	F(stalefs_dir_block, db_blocknr, 0x08, 8),
	F(stalefs_dir_block, db_owner, 0x10, 4),
	F(stalefs_dir_block, db_lblk, 0x14, 4),

	F(stalefs_dir_entry, inode, 0x0, 4),
	F(stalefs_dir_entry, rec_len, 0x4, 2),
	F(stalefs_dir_entry, name_len, 0x6, 1),
	F(stalefs_dir_entry, file_type, 0x7, 1),
	FLEX(stalefs_dir_entry, name, 0x8),

	F(stalefs_xattr_ibody_header, xh_magic, 0x0, 4),
	F(stalefs_xattr_ibody_header, xh_checksum, 0x4, 4),

	F(stalefs_xattr_block, xb_magic, 0x00, 4),
	F(stalefs_xattr_block, xb_checksum, 0x04, 4),
	F(stalefs_xattr_block, xb_blocknr, 0x08, 8),
	F(stalefs_xattr_block, xb_owner, 0x10, 4),
	F(stalefs_xattr_block, xb_owner_gen, 0x14, 4),
	F(stalefs_xattr_block, xb_reserved, 0x18, 8),

	F(stalefs_xattr_entry, xe_name_index, 0x0, 1),
	F(stalefs_xattr_entry, xe_name_len, 0x1, 1),
	F(stalefs_xattr_entry, xe_value_size, 0x2, 2),

	/* The journal (format/stalefs_journal.h): jbd2's structures, big-endian. */
	F(stalefs_jbd2_header, h_magic, 0x0, 4),
	F(stalefs_jbd2_header, h_blocktype, 0x4, 4),
	F(stalefs_jbd2_header, h_sequence, 0x8, 4),

	F(stalefs_jbd2_super, s_header, 0x000, 12),
	F(stalefs_jbd2_super, s_blocksize, 0x00C, 4),
	F(stalefs_jbd2_super, s_maxlen, 0x010, 4),
	F(stalefs_jbd2_super, s_first, 0x014, 4),
	F(stalefs_jbd2_super, s_sequence, 0x018, 4),
	F(stalefs_jbd2_super, s_start, 0x01C, 4),
	F(stalefs_jbd2_super, s_errno, 0x020, 4),
	F(stalefs_jbd2_super, s_feature_compat, 0x024, 4),
	F(stalefs_jbd2_super, s_feature_incompat, 0x028, 4),
	F(stalefs_jbd2_super, s_feature_ro_compat, 0x02C, 4),
	F(stalefs_jbd2_super, s_uuid, 0x030, 16),
	F(stalefs_jbd2_super, s_nr_users, 0x040, 4),
	F(stalefs_jbd2_super, s_dynsuper, 0x044, 4),
	F(stalefs_jbd2_super, s_max_transaction, 0x048, 4),
	F(stalefs_jbd2_super, s_max_trans_data, 0x04C, 4),
	F(stalefs_jbd2_super, s_checksum_type, 0x050, 1),
	F(stalefs_jbd2_super, s_padding2, 0x051, 3),
	F(stalefs_jbd2_super, s_num_fc_blks, 0x054, 4),
	F(stalefs_jbd2_super, s_padding, 0x058, 164),
	F(stalefs_jbd2_super, s_checksum, 0x0FC, 4),
	F(stalefs_jbd2_super, s_users, 0x100, 768),

	F(stalefs_jbd2_tag3, t_blocknr, 0x0, 4),
	F(stalefs_jbd2_tag3, t_flags, 0x4, 4),
	F(stalefs_jbd2_tag3, t_blocknr_high, 0x8, 4),
	F(stalefs_jbd2_tag3, t_checksum, 0xC, 4),

	F(stalefs_jbd2_block_tail, t_checksum, 0x0, 4),

	F(stalefs_jbd2_revoke_header, r_header, 0x00, 12),
	F(stalefs_jbd2_revoke_header, r_count, 0x0C, 4),

	F(stalefs_jbd2_commit, h_header, 0x00, 12),
	F(stalefs_jbd2_commit, h_chksum_type, 0x0C, 1),
	F(stalefs_jbd2_commit, h_chksum_size, 0x0D, 1),
	F(stalefs_jbd2_commit, h_padding, 0x0E, 2),
	F(stalefs_jbd2_commit, h_chksum, 0x10, 32),
	F(stalefs_jbd2_commit, h_commit_sec, 0x30, 8),
	F(stalefs_jbd2_commit, h_commit_nsec, 0x38, 4),
	F(stalefs_jbd2_commit, h_padding2, 0x3C, 4),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static const struct {
	const char *type;
	size_t size, want;
} sizes[] = {
	{ "stalefs_super_block", sizeof(struct stalefs_super_block), 1024 },
	{ "stalefs_group_desc", sizeof(struct stalefs_group_desc), 64 },
	{ "stalefs_inode", sizeof(struct stalefs_inode), 256 },
	{ "stalefs_extent_header", sizeof(struct stalefs_extent_header), 8 },
	{ "stalefs_extent", sizeof(struct stalefs_extent), 16 },
	{ "stalefs_extent_idx", sizeof(struct stalefs_extent_idx), 16 },
	{ "stalefs_extent_block", sizeof(struct stalefs_extent_block), 40 },
	{ "stalefs_dir_block", sizeof(struct stalefs_dir_block), 24 },
	{ "stalefs_dir_entry", sizeof(struct stalefs_dir_entry), 8 },
	{ "stalefs_xattr_ibody_header", sizeof(struct stalefs_xattr_ibody_header), 8 },
	{ "stalefs_xattr_block", sizeof(struct stalefs_xattr_block), 32 },
	{ "stalefs_xattr_entry", sizeof(struct stalefs_xattr_entry), 4 },
	{ "stalefs_jbd2_header", sizeof(struct stalefs_jbd2_header), 12 },
	{ "stalefs_jbd2_super", sizeof(struct stalefs_jbd2_super), 1024 },
	{ "stalefs_jbd2_tag3", sizeof(struct stalefs_jbd2_tag3), 16 },
	{ "stalefs_jbd2_block_tail", sizeof(struct stalefs_jbd2_block_tail), 4 },
	{ "stalefs_jbd2_revoke_header", sizeof(struct stalefs_jbd2_revoke_header), 16 },
	{ "stalefs_jbd2_commit", sizeof(struct stalefs_jbd2_commit), 64 },
};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static size_t spec_size(const char *type)
{
	size_t i;

	for (i = 0; i < NSIZES; i++)
		if (strcmp(sizes[i].type, type) == 0)
			return sizes[i].want;
	ck_abort_msg("no size recorded for struct %s", type);
	return 0;
}

static const struct field *find_field(const char *type, const char *name)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++)
		if (strcmp(fields[i].type, type) == 0 && strcmp(fields[i].name, name) == 0)
			return &fields[i];
	return NULL;
}

START_TEST(struct_sizes)
{
	size_t i;

	for (i = 0; i < NSIZES; i++)
		ck_assert_msg(sizes[i].size == sizes[i].want, "sizeof(struct %s) is %zu, the format says %zu",
			      sizes[i].type, sizes[i].size, sizes[i].want);
}
END_TEST

START_TEST(field_offsets)
{
	size_t i;

	for (i = 0; i < NFIELDS; i++) {
		ck_assert_msg(fields[i].off == fields[i].want_off, "%s.%s is at 0x%zx, the format says 0x%zx",
			      fields[i].type, fields[i].name, fields[i].off, fields[i].want_off);
		ck_assert_msg(fields[i].size == fields[i].want_size, "%s.%s is %zu bytes, the format says %zu",
			      fields[i].type, fields[i].name, fields[i].size, fields[i].want_size);
	}
}
END_TEST

/* Fields back to back from 0 to the structure's size: none missing, no padding. */
START_TEST(fields_tile_structures)
{
	size_t i, end = 0;
	const char *type = NULL;

	for (i = 0; i <= NFIELDS; i++) {
		if (i == NFIELDS || (type && strcmp(type, fields[i].type) != 0)) {
			ck_assert_msg(end == spec_size(type), "fields of %s end at 0x%zx, not at its size 0x%zx",
				      type, end, spec_size(type));
			if (i == NFIELDS)
				break;
			end = 0;
		}
		type = fields[i].type;
		ck_assert_msg(fields[i].want_off == end, "%s.%s starts at 0x%zx: a gap or a missing field after 0x%zx",
			      type, fields[i].name, fields[i].want_off, end);
		end = fields[i].want_off + fields[i].want_size;
	}
}
END_TEST

/* The constants FORMAT.md states, as the header defines them. */
START_TEST(format_constants)
{
	ck_assert_uint_eq(STALEFS_SUPER_MAGIC, 0x534C4653u);
	ck_assert_uint_eq(STALEFS_EXT_MAGIC, 0xF51Eu);
	ck_assert_uint_eq(STALEFS_EXTBLK_MAGIC, 0x58544C53u);
	ck_assert_uint_eq(STALEFS_DIRBLK_MAGIC, 0x52444C53u);
	ck_assert_uint_eq(STALEFS_XATTR_MAGIC, 0x41584C53u);
	ck_assert_uint_eq(STALEFS_FEATURE_RO_COMPAT_XATTR, 0x4);
	ck_assert_uint_eq(STALEFS_XATTR_INDEX_USER, 1);
	ck_assert_uint_eq(STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS, 2);
	ck_assert_uint_eq(STALEFS_XATTR_INDEX_POSIX_ACL_DEFAULT, 3);
	ck_assert_uint_eq(STALEFS_XATTR_INDEX_TRUSTED, 4);
	ck_assert_uint_eq(STALEFS_XATTR_INDEX_SECURITY, 6);
	ck_assert_uint_eq(STALEFS_INODE_SIZE_MAX, 1024);
	ck_assert_uint_eq(stalefs_xattr_entry_len(4, 5), 16);
	ck_assert_uint_eq(STALEFS_SUPER_OFFSET, 1024);
	ck_assert_uint_eq(STALEFS_ROOT_EXTENTS, 7);
	ck_assert_uint_eq(STALEFS_INLINE_SYMLINK_MAX, 119);
	ck_assert_uint_eq(stalefs_extblock_max_entries(4096), 253);
	ck_assert_uint_eq(stalefs_extblock_max_entries(2048), 125);
	ck_assert_uint_eq(stalefs_extblock_max_entries(1024), 61);
	ck_assert_uint_eq(STALEFS_EXT_MAX_LEN, 32768);
	ck_assert_uint_eq(STALEFS_EXT_MAX_DEPTH, 5);
	ck_assert_uint_eq(STALEFS_EXT_UNWRITTEN, 0x1);
	ck_assert_uint_eq(STALEFS_EXT_STALE, 0x2);
	ck_assert_uint_eq(STALEFS_FEATURE_INCOMPAT_EXTENTS, 0x1);
	ck_assert_uint_eq(STALEFS_FEATURE_INCOMPAT_FILETYPE, 0x2);
	ck_assert_uint_eq(STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE, 0x1);
	ck_assert_uint_eq(STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER, 0x2);
	ck_assert_uint_eq(STALEFS_FEATURE_COMPAT_LAZY_ITABLE, 0x1);
	ck_assert_uint_eq(STALEFS_BG_INODE_UNINIT, 0x1);
	ck_assert_uint_eq(STALEFS_BG_BLOCK_UNINIT, 0x2);
	ck_assert_uint_eq(STALEFS_INODE_STALE_FL, 0x1);
	ck_assert_uint_eq(STALEFS_INODE_INLINE_FL, 0x10000000);
	ck_assert_uint_eq(STALEFS_STALE_GID_NONE, 0xFFFFFFFFu);
	ck_assert_uint_eq(STALEFS_DIR_REC_LEN(1), 12);
	ck_assert_uint_eq(STALEFS_DIR_REC_LEN(4), 12);
	ck_assert_uint_eq(STALEFS_DIR_REC_LEN(5), 16);
	ck_assert_uint_eq(STALEFS_DIR_REC_LEN(255), 264);
	ck_assert_uint_eq(STALEFS_FEATURE_COMPAT_HAS_JOURNAL, 0x2);
	ck_assert_uint_eq(STALEFS_FEATURE_INCOMPAT_RECOVER, 0x4);
	ck_assert_uint_eq(STALEFS_INODE_ORPHAN_FL, 0x02000000);
	ck_assert_uint_eq(STALEFS_JOURNAL_MIN_BLOCKS, 1024);
	ck_assert_uint_eq(STALEFS_JBD2_MAGIC, 0xC03B3998u);
	ck_assert_uint_eq(STALEFS_JBD2_DESCRIPTOR_BLOCK, 1);
	ck_assert_uint_eq(STALEFS_JBD2_COMMIT_BLOCK, 2);
	ck_assert_uint_eq(STALEFS_JBD2_SUPERBLOCK_V2, 4);
	ck_assert_uint_eq(STALEFS_JBD2_REVOKE_BLOCK, 5);
	ck_assert_uint_eq(STALEFS_JBD2_INCOMPAT_REVOKE, 0x1);
	ck_assert_uint_eq(STALEFS_JBD2_INCOMPAT_64BIT, 0x2);
	ck_assert_uint_eq(STALEFS_JBD2_INCOMPAT_CSUM_V3, 0x10);
	ck_assert_uint_eq(STALEFS_JBD2_CRC32C_CHKSUM, 4);
	ck_assert_uint_eq(STALEFS_JBD2_FLAG_ESCAPE, 1);
	ck_assert_uint_eq(STALEFS_JBD2_FLAG_SAME_UUID, 2);
	ck_assert_uint_eq(STALEFS_JBD2_FLAG_LAST_TAG, 8);
}
END_TEST

static char *slurp(const char *rel)
{
	char path[512];
	FILE *f;
	long n;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", STALEFS_SRCDIR, rel);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * Every member line of each structure in the header carries its offset in a
 * comment ("type name;  / * 0x10 ... * /"): each must match the compiled one,
 * and each field of the table must have been seen.
 */
START_TEST(header_comments)
{
	static const char *const headers[] = { "format/stalefs_format.h", "format/stalefs_journal.h" };
	char *texts[2], *save = NULL, *line;
	char type[64] = "";
	bool seen[NFIELDS] = { false };
	size_t i, h;
	int members = 0;

	for (h = 0; h < 2; h++)
	for (texts[h] = slurp(headers[h]), line = strtok_r(texts[h], "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		const char *semi, *p, *cmt;
		const struct field *f;
		unsigned long off;
		size_t len;

		if (sscanf(line, "struct %63[a-z0-9_] {", type) == 1 && strchr(line, '{'))
			continue;
		if (strncmp(line, "};", 2) == 0) {
			type[0] = '\0';
			continue;
		}
		if (!type[0] || !(semi = strchr(line, ';')))
			continue;
		/* The member name: the identifier before ';' or before '['. */
		p = semi;
		if (memchr(line, '[', (size_t)(semi - line)))
			p = memchr(line, '[', (size_t)(semi - line));
		len = 0;
		while (p - len > line && (isalnum((unsigned char)p[-1 - (long)len]) || p[-1 - (long)len] == '_'))
			len++;
		ck_assert_msg(len > 0 && len < sizeof(name), "cannot parse member line: %s", line);
		memcpy(name, p - len, len);
		name[len] = '\0';
		cmt = strstr(line, "/* 0x");
		ck_assert_msg(cmt != NULL, "struct %s member %s has no offset comment", type, name);
		off = strtoul(cmt + 3, NULL, 16);
		f = find_field(type, name);
		ck_assert_msg(f != NULL, "struct %s member %s is in the header but not in the layout test", type, name);
		ck_assert_msg(off == f->off, "header comment says %s.%s is at 0x%lx, it is at 0x%zx", type, name,
			      off, f->off);
		seen[f - fields] = true;
		members++;
	}
	for (i = 0; i < NFIELDS; i++)
		ck_assert_msg(seen[i], "%s.%s has no commented line in the header", fields[i].type, fields[i].name);
	ck_assert_int_eq(members, (int)NFIELDS);
	free(texts[0]);
	free(texts[1]);
}
END_TEST

/*
 * FORMAT.md Appendix A: one table per structure, under a heading naming
 * `struct stalefs_...`; rows "| 0x.. | size | `field` | meaning |".
 */
START_TEST(format_md_appendix)
{
	char *text = slurp("format/FORMAT.md"), *save = NULL, *line, *app;
	char type[64] = "";
	bool seen[NFIELDS] = { false };
	size_t i;

	app = strstr(text, "## Appendix A");
	ck_assert_msg(app != NULL, "FORMAT.md has no Appendix A");
	for (line = strtok_r(app, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *s;
		char name[64], size_txt[32];
		unsigned long off;
		const struct field *f;

		if (strncmp(line, "## ", 3) == 0 && strncmp(line, "## Appendix A", 13) != 0)
			break;	/* the next appendix */
		if (strncmp(line, "### ", 4) == 0) {
			s = strstr(line, "`struct ");
			ck_assert_msg(s && sscanf(s, "`struct %63[a-z0-9_]`", type) == 1,
				      "appendix heading names no structure: %s", line);
			continue;
		}
		if (sscanf(line, "| 0x%lx | %31[^ |] | `%63[^`]` |", &off, size_txt, name) != 3)
			continue;
		ck_assert_msg(type[0], "a field row before any structure heading: %s", line);
		f = find_field(type, name);
		ck_assert_msg(f != NULL, "FORMAT.md lists %s.%s, which the structure lacks", type, name);
		ck_assert_msg(off == f->off, "FORMAT.md says %s.%s is at 0x%lx, it is at 0x%zx", type, name, off,
			      f->off);
		if (f->size)
			ck_assert_msg(strtoul(size_txt, NULL, 10) == f->size, "FORMAT.md says %s.%s is %s bytes, it is %zu",
				      type, name, size_txt, f->size);
		seen[f - fields] = true;
	}
	for (i = 0; i < NFIELDS; i++)
		ck_assert_msg(seen[i], "FORMAT.md Appendix A lacks %s.%s", fields[i].type, fields[i].name);
	free(text);
}
END_TEST

/* Encoding is little-endian whatever the host: a field's bytes land where the spec says. */
START_TEST(little_endian_bytes)
{
	struct stalefs_super_block sb;
	const u8 *b = (const u8 *)&sb;

	memset(&sb, 0, sizeof(sb));
	sb.s_magic = cpu_to_le32(STALEFS_SUPER_MAGIC);
	sb.s_blocks_count = cpu_to_le64(0x0102030405060708ULL);
	sb.s_inode_size = cpu_to_le16(0x0A0B);
	ck_assert(memcmp(b, "SFLS", 4) == 0);
	ck_assert_uint_eq(b[0x10], 0x08);
	ck_assert_uint_eq(b[0x17], 0x01);
	ck_assert_uint_eq(b[0x3C], 0x0B);
	ck_assert_uint_eq(b[0x3D], 0x0A);
}
END_TEST

Suite *layout_suite(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, struct_sizes);
	tcase_add_test(tc, field_offsets);
	tcase_add_test(tc, fields_tile_structures);
	tcase_add_test(tc, format_constants);
	tcase_add_test(tc, header_comments);
	tcase_add_test(tc, format_md_appendix);
	tcase_add_test(tc, little_endian_bytes);
	suite_add_tcase(s, tc);
	return s;
}
