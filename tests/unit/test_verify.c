/*
 * Every verifier rule: for each STALEFS_R_* (but R_OK and R_MAX) at least one
 * case below starts from a well-formed structure, breaks exactly that rule,
 * and expects the verifier to name exactly that rule.  `all_rules_covered`
 * fails when a rule is added to stalefs_core.h without a case here.
 */
#include "unit.h"

enum kind {
	K_SB, K_SB_CSUM, K_DESC, K_DESC_CSUM, K_BB_CSUM, K_IB_CSUM, K_INODE, K_INODE_CSUM,
	K_LEAF, K_INDEX, K_EXTBLK, K_EXTBLK_CSUM, K_DIR, K_DIR_CSUM, K_DIR_INODES,
	K_XBLK, K_XBLK_CSUM, K_XBODY, K_XBODY_CSUM,
};

#define INO 12
#define GEN 0xC0FFEEu
#define EB_NR 4000
#define DB_NR 4001
#define XB_NR 4002
#define XBODY_LEN 256		/* a 512-byte inode's area */
#define DIR_INO 20
#define DIR_LBLK 3
#define FILE_OFF (24 + 12 + 12)		/* "file" entry in fix_dirblock */
#define DOTDOT_OFF (24 + 12)

struct ctx {
	struct stalefs_super_block sb;
	struct stalefs_geom g;
	struct stalefs_group_desc d;		/* group 1 */
	u8 bmap[FIX_BS];
	struct stalefs_inode in;
	u8 leaf[STALEFS_IBLOCK_SIZE];		/* a root leaf: header and 7 slots */
	u8 index[STALEFS_IBLOCK_SIZE];		/* a root index node of depth 1 */
	u8 eb[FIX_BS];
	u8 db[FIX_BS];
	u8 xb[FIX_BS];
	u8 xbody[XBODY_LEN];
};

static struct stalefs_extent_header *leaf_eh(struct ctx *c) { return (void *)c->leaf; }
static struct stalefs_extent *leaf_ex(struct ctx *c) { return stalefs_eh_extents(leaf_eh(c)); }
static struct stalefs_extent_header *index_eh(struct ctx *c) { return (void *)c->index; }
static struct stalefs_extent_idx *index_ix(struct ctx *c) { return stalefs_eh_index(index_eh(c)); }
static struct stalefs_extent_block *ebh(struct ctx *c) { return (void *)c->eb; }
static struct stalefs_dir_block *dbh(struct ctx *c) { return (void *)c->db; }
static struct stalefs_xattr_block *xbh(struct ctx *c) { return (void *)c->xb; }
#define XR stalefs_xattr_block_region(c->xb)
#define XR_LEN stalefs_xattr_block_region_len(FIX_BS)
#define IR stalefs_xattr_ibody_region(c->xbody)
#define IR_LEN (XBODY_LEN - 8)
static struct stalefs_xattr_entry *xent(u8 *region, int n)
{
	u32 off = 0;
	struct stalefs_xattr_ref r;

	while (n-- > 0) {
		ck_assert(stalefs_xattr_entry_at(region, 4096, off, &r));
		off += stalefs_xattr_entry_len(r.name_len, r.value_size);
	}
	return (void *)(region + off);
}

static void set_extent(struct stalefs_extent *ex, u32 lblk, u16 len, u64 pblk, u16 flags)
{
	ex->ee_lblk = cpu_to_le32(lblk);
	ex->ee_len = cpu_to_le16(len);
	ex->ee_pblk = cpu_to_le64(pblk);
	ex->ee_flags = cpu_to_le16(flags);
}

static void ctx_init(struct ctx *c)
{
	u64 rng = 99;

	memset(c, 0, sizeof(*c));
	fix_super(&c->sb, &c->g);
	fix_desc(&c->g, 1, &c->d);
	unit_fill(&rng, c->bmap, sizeof(c->bmap));
	c->d.bg_block_bitmap_csum = cpu_to_le32(stalefs_bitmap_csum(FIX_SEED, 1, c->bmap, FIX_BS));
	c->d.bg_inode_bitmap_csum = cpu_to_le32(stalefs_bitmap_csum(FIX_SEED, 1, c->bmap, FIX_BS));
	stalefs_desc_set_csum(FIX_SEED, 1, &c->d);
	fix_inode(INO, STALEFS_S_IFREG | 0640, &c->in);

	leaf_eh(c)->eh_magic = cpu_to_le16(STALEFS_EXT_MAGIC);
	leaf_eh(c)->eh_max = cpu_to_le16(STALEFS_ROOT_EXTENTS);
	leaf_eh(c)->eh_entries = cpu_to_le16(3);
	set_extent(&leaf_ex(c)[0], 0, 4, 1000, 0);
	set_extent(&leaf_ex(c)[1], 8, 4, 1008, STALEFS_EXT_UNWRITTEN);
	set_extent(&leaf_ex(c)[2], 16, 2, 1100, STALEFS_EXT_STALE);

	index_eh(c)->eh_magic = cpu_to_le16(STALEFS_EXT_MAGIC);
	index_eh(c)->eh_max = cpu_to_le16(STALEFS_ROOT_EXTENTS);
	index_eh(c)->eh_entries = cpu_to_le16(2);
	index_eh(c)->eh_depth = cpu_to_le16(1);
	index_ix(c)[0].ei_lblk = cpu_to_le32(0);
	index_ix(c)[0].ei_pblk = cpu_to_le64(2000);
	index_ix(c)[1].ei_lblk = cpu_to_le32(100);
	index_ix(c)[1].ei_pblk = cpu_to_le64(2001);

	fix_extblock(c->eb, FIX_BS, EB_NR, INO, GEN, 20);
	fix_dirblock(c->db, FIX_BS, DB_NR, DIR_INO, DIR_LBLK);

	/* An xattr block with three entries, and an in-inode area with two. */
	stalefs_xattr_block_init(c->xb, FIX_BS, XB_NR, INO, GEN);
	ck_assert_int_eq(stalefs_xattr_append(XR, XR_LEN, STALEFS_XATTR_INDEX_USER, "mime", 4, "text", 4), 0);
	ck_assert_int_eq(stalefs_xattr_append(XR, XR_LEN, STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS, "", 0,
					      "\2\0\0\0\1\0\6\0\377\377\377\377", 12), 0);
	ck_assert_int_eq(stalefs_xattr_append(XR, XR_LEN, STALEFS_XATTR_INDEX_TRUSTED, "overlay.opaque", 14,
					      "y", 1), 0);
	stalefs_xattr_block_set_csum(FIX_SEED, c->xb, FIX_BS);
	stalefs_xattr_ibody_init(c->xbody, XBODY_LEN);
	ck_assert_int_eq(stalefs_xattr_append(IR, IR_LEN, STALEFS_XATTR_INDEX_SECURITY, "selinux", 7,
					      "system_u:object_r:etc_t:s0", 27), 0);
	ck_assert_int_eq(stalefs_xattr_append(IR, IR_LEN, STALEFS_XATTR_INDEX_USER, "a", 1, "", 0), 0);
	stalefs_xattr_ibody_set_csum(FIX_SEED, INO, GEN, c->xbody, XBODY_LEN);
}

static int run_verifier(struct ctx *c, enum kind k)
{
	switch (k) {
	case K_SB: return stalefs_verify_super(&c->sb);
	case K_SB_CSUM: return stalefs_verify_super_csum(&c->sb);
	case K_DESC: return stalefs_verify_desc(&c->g, 1, &c->d);
	case K_DESC_CSUM: return stalefs_verify_desc_csum(FIX_SEED, 1, &c->d);
	case K_BB_CSUM: return stalefs_verify_block_bitmap_csum(FIX_SEED, 1, &c->d, c->bmap, FIX_BS);
	case K_IB_CSUM: return stalefs_verify_inode_bitmap_csum(FIX_SEED, 1, &c->d, c->bmap, FIX_BS);
	case K_INODE: return stalefs_verify_inode(&c->g, INO, &c->in);
	case K_INODE_CSUM: return stalefs_verify_inode_csum(FIX_SEED, INO, &c->in);
	case K_LEAF: return stalefs_verify_extent_node(&c->g, leaf_eh(c), STALEFS_ROOT_EXTENTS, -1);
	case K_INDEX: return stalefs_verify_extent_node(&c->g, index_eh(c), STALEFS_ROOT_EXTENTS, 1);
	case K_EXTBLK: return stalefs_verify_extblock_header(c->eb, EB_NR, INO, GEN);
	case K_EXTBLK_CSUM: return stalefs_verify_extblock_csum(FIX_SEED, c->eb, FIX_BS);
	case K_DIR: return stalefs_verify_dirblock(c->db, FIX_BS, DB_NR, DIR_INO, DIR_LBLK);
	case K_DIR_CSUM: return stalefs_verify_dirblock_csum(FIX_SEED, c->db, FIX_BS);
	case K_DIR_INODES: return stalefs_verify_dirblock_inodes(&c->g, c->db);
	case K_XBLK: return stalefs_verify_xattr_block(c->xb, FIX_BS, XB_NR, INO, GEN);
	case K_XBLK_CSUM: return stalefs_verify_xattr_block_csum(FIX_SEED, c->xb, FIX_BS);
	case K_XBODY: return stalefs_verify_xattr_ibody(c->xbody, XBODY_LEN);
	case K_XBODY_CSUM: return stalefs_verify_xattr_ibody_csum(FIX_SEED, INO, GEN, c->xbody, XBODY_LEN);
	}
	ck_abort_msg("unknown verifier kind %d", k);
	return -1;
}

#define SB c->sb
#define D c->d
#define IN c->in
#define LX leaf_ex(c)
#define FILE_DE fix_dirent(c->db, FILE_OFF)
#define DOTDOT_DE fix_dirent(c->db, DOTDOT_OFF)

struct vcase {
	int rule;
	const char *what;
	enum kind kind;
	void (*mutate)(struct ctx *c);
};

#define M(name, body) static void name(struct ctx *c) { body; }

/* superblock */
M(sb_magic, SB.s_magic = cpu_to_le32(0x53464C53))
M(sb_csum, SB.s_volume_name[3] ^= 0x20)
M(sb_rev, SB.s_rev_level = cpu_to_le32(2))
M(sb_bs, SB.s_log_block_size = cpu_to_le32(3))
M(sb_blocks_tiny, SB.s_blocks_count = cpu_to_le64(32))
M(sb_blocks_short_last, SB.s_blocks_count = cpu_to_le64(32768 + 2))	/* last group cannot hold its metadata */
M(sb_bpg, SB.s_blocks_per_group = cpu_to_le32(12345))
M(sb_bpg_small, SB.s_blocks_per_group = cpu_to_le32(128))
M(sb_ipg, SB.s_inodes_per_group = cpu_to_le32(le32_to_cpu(SB.s_inodes_per_group) + 1))
M(sb_groups, SB.s_groups_count = cpu_to_le32(3))
M(sb_inodes, SB.s_inodes_count = cpu_to_le32(le32_to_cpu(SB.s_inodes_count) + 16))
M(sb_isize, SB.s_inode_size = cpu_to_le16(128))
M(sb_dsize, SB.s_desc_size = cpu_to_le16(32))
M(sb_gdt, SB.s_gdt_blocks = cpu_to_le32(2))
M(sb_first_ino, SB.s_first_ino = cpu_to_le32(12))
M(sb_free_blocks, SB.s_free_blocks_count = cpu_to_le64(le64_to_cpu(SB.s_blocks_count) + 1))
M(sb_free_inodes, SB.s_free_inodes_count = cpu_to_le32(le32_to_cpu(SB.s_inodes_count) + 1))
M(sb_r_blocks, SB.s_r_blocks_count = cpu_to_le64(le64_to_cpu(SB.s_blocks_count) + 1))
M(sb_state, SB.s_state = cpu_to_le16(0x4 | STALEFS_STATE_CLEAN))
M(sb_errors0, SB.s_errors = cpu_to_le16(0))
M(sb_errors4, SB.s_errors = cpu_to_le16(4))
M(sb_incompat_unknown, SB.s_feature_incompat |= cpu_to_le32(0x100))
M(sb_incompat_missing, SB.s_feature_incompat = cpu_to_le32(STALEFS_FEATURE_INCOMPAT_EXTENTS))
M(sb_ro_unknown, SB.s_feature_ro_compat |= cpu_to_le32(0x8000))
M(sb_stale_no_gid, SB.s_feature_ro_compat |= cpu_to_le32(STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE))
M(sb_gid_no_feature, SB.s_stale_gid = cpu_to_le32(100))
M(sb_lpf_reserved, SB.s_lpf_ino = cpu_to_le32(5))
M(sb_lpf_high, SB.s_lpf_ino = cpu_to_le32(le32_to_cpu(SB.s_inodes_count) + 1))
/* A journal in group 1's data blocks (past its superblock copy), as set_journal() makes it. */
static void set_journal(struct ctx *c, u64 start, u32 len)
{
	SB.s_feature_compat |= cpu_to_le32(STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	SB.s_journal_block = cpu_to_le64(start);
	SB.s_journal_blocks = cpu_to_le32(len);
}
M(sb_journal_none, set_journal(c, 0, 0))
M(sb_journal_small, set_journal(c, 40000, STALEFS_JOURNAL_MIN_BLOCKS - 1))
M(sb_journal_across, set_journal(c, 32000, 2000))
M(sb_journal_on_super, set_journal(c, 32768, 4096))
M(sb_journal_past_end, set_journal(c, c->g.blocks_count - 1000, 4096))
M(sb_journal_pad, set_journal(c, 40000, 4096); SB.s_journal_pad = cpu_to_le32(1))
M(sb_journal_no_feature, SB.s_journal_blocks = cpu_to_le32(4096))
M(sb_recover_no_journal, SB.s_feature_incompat |= cpu_to_le32(STALEFS_FEATURE_INCOMPAT_RECOVER))
M(sb_meta_bg_no_field, SB.s_feature_incompat |= cpu_to_le32(STALEFS_FEATURE_INCOMPAT_META_BG))
M(sb_meta_bg_no_feature, SB.s_first_meta_bg = cpu_to_le32(1))
M(sb_meta_bg_past_table, SB.s_feature_incompat |= cpu_to_le32(STALEFS_FEATURE_INCOMPAT_META_BG);
  SB.s_first_meta_bg = cpu_to_le32(le32_to_cpu(SB.s_gdt_blocks) + 1))

/* group descriptor (group 1) */
M(bg_csum, D.bg_free_blocks_count = cpu_to_le32(le32_to_cpu(D.bg_free_blocks_count) - 1))
M(bg_bb_on_super, D.bg_block_bitmap = cpu_to_le64(stalefs_group_first_block(&c->g, 1)))
M(bg_bb_outside, D.bg_block_bitmap = cpu_to_le64(stalefs_group_first_block(&c->g, 1) - 1))
M(bg_ib_overlap, D.bg_inode_bitmap = D.bg_block_bitmap)
M(bg_ib_outside, D.bg_inode_bitmap = cpu_to_le64(c->g.blocks_count))
M(bg_it_overlap, D.bg_inode_table = D.bg_inode_bitmap)
M(bg_it_past_end, D.bg_inode_table = cpu_to_le64(c->g.blocks_count - c->g.inode_table_blocks + 1))
M(bg_free_blocks, D.bg_free_blocks_count = cpu_to_le32(stalefs_group_nblocks(&c->g, 1) + 1))
M(bg_free_inodes, D.bg_free_inodes_count = cpu_to_le32(c->g.inodes_per_group + 1))
M(bg_used_dirs, D.bg_used_dirs_count = cpu_to_le32(c->g.inodes_per_group + 1))
M(bg_itable_unused, D.bg_itable_unused = cpu_to_le32(le32_to_cpu(D.bg_free_inodes_count) + 1))
M(bg_flags, D.bg_flags = cpu_to_le16(0x4))
M(bg_bb_csum, c->bmap[100] ^= 0x10)
M(bg_bb_csum_uninit, D.bg_flags = cpu_to_le16(STALEFS_BG_BLOCK_UNINIT))	/* uninit bitmaps have csum 0 */
M(bg_ib_csum, D.bg_inode_bitmap_csum = cpu_to_le32(le32_to_cpu(D.bg_inode_bitmap_csum) + 1))
M(bg_ib_csum_uninit, D.bg_flags = cpu_to_le16(STALEFS_BG_INODE_UNINIT))
M(bg_orphans, D.bg_orphan_count = cpu_to_le32(c->g.inodes_per_group + 1))
M(bg_stale_count, D.bg_stale_count = cpu_to_le32(c->g.inodes_per_group + 1))

/* inode */
M(in_csum, IN.i_size = cpu_to_le64(le64_to_cpu(IN.i_size) + 1))
M(in_ino, IN.i_ino = cpu_to_le32(INO + 1))
M(in_mode, IN.i_mode = cpu_to_le16(0644))
M(in_mode_type, IN.i_mode = cpu_to_le16(0170000 | 0644))
M(in_flags, IN.i_flags = cpu_to_le32(0x100))
M(in_inline_reg, IN.i_flags = cpu_to_le32(STALEFS_INODE_INLINE_FL))
M(in_inline_size, IN.i_mode = cpu_to_le16(STALEFS_S_IFLNK | 0777);
  IN.i_flags = cpu_to_le32(STALEFS_INODE_INLINE_FL); IN.i_size = cpu_to_le64(120))
M(in_inline_empty, IN.i_mode = cpu_to_le16(STALEFS_S_IFLNK | 0777);
  IN.i_flags = cpu_to_le32(STALEFS_INODE_INLINE_FL); IN.i_size = 0)
M(in_stale_dir, IN.i_mode = cpu_to_le16(STALEFS_S_IFDIR | 0750); IN.i_flags = cpu_to_le32(STALEFS_INODE_STALE_FL))
M(in_dtime, IN.i_dtime = cpu_to_le64(1700000000))
M(in_nsec, IN.i_ctime_nsec = cpu_to_le32(1000000000))
M(in_nsec_cr, IN.i_crtime_nsec = cpu_to_le32(0xFFFFFFFF))
M(in_size, IN.i_size = cpu_to_le64((STALEFS_MAX_FILE_BLOCKS << 12) + 1))
M(in_reserved, IN.i_reserved[23] = 1)

/* extent nodes */
M(ext_magic, leaf_eh(c)->eh_magic = cpu_to_le16(0xF51F))
M(ext_max, leaf_eh(c)->eh_max = cpu_to_le16(6))
M(ext_entries, leaf_eh(c)->eh_entries = cpu_to_le16(8))
M(ext_index_empty, index_eh(c)->eh_entries = 0)
M(ext_depth, leaf_eh(c)->eh_depth = cpu_to_le16(STALEFS_EXT_MAX_DEPTH + 1))
M(ext_depth_child, index_eh(c)->eh_depth = cpu_to_le16(2))
M(ext_len0, LX[1].ee_len = 0)
M(ext_len_long, LX[2].ee_len = cpu_to_le16(STALEFS_EXT_MAX_LEN + 1))
M(ext_flags, LX[0].ee_flags = cpu_to_le16(0x4))
M(ext_both, LX[1].ee_flags = cpu_to_le16(STALEFS_EXT_UNWRITTEN | STALEFS_EXT_STALE))
M(ext_pblk0, LX[0].ee_pblk = 0)
M(ext_pblk_end, LX[2].ee_pblk = cpu_to_le64(c->g.blocks_count - 1))
M(ext_idx_pblk, index_ix(c)[1].ei_pblk = cpu_to_le64(c->g.blocks_count))
M(ext_lblk, set_extent(&LX[2], 0xFFFFFFFEu, 2, 1100, 0))
M(ext_unsorted, LX[2].ee_lblk = cpu_to_le32(2))
M(ext_idx_unsorted, index_ix(c)[1].ei_lblk = cpu_to_le32(0))
M(ext_overlap, LX[1].ee_lblk = cpu_to_le32(3))
M(ext_idx_reserved, index_ix(c)[0].ei_reserved = cpu_to_le32(1))

/* extent tree blocks */
M(eb_magic, ebh(c)->eb_magic = cpu_to_le32(STALEFS_DIRBLK_MAGIC))
M(eb_csum, stalefs_eh_extents(&ebh(c)->eb_hdr)[5].ee_pblk = cpu_to_le64(9999))
M(eb_blocknr, ebh(c)->eb_blocknr = cpu_to_le64(EB_NR + 1))
M(eb_owner, ebh(c)->eb_owner = cpu_to_le32(INO + 1))
M(eb_owner_gen, ebh(c)->eb_owner_gen = cpu_to_le32(GEN + 1))
M(eb_reserved, ebh(c)->eb_reserved = cpu_to_le64(1ULL << 40))

/* directory blocks */
M(db_magic, dbh(c)->db_magic = cpu_to_le32(STALEFS_EXTBLK_MAGIC))
M(db_csum, FILE_DE->name[0] = 'F')
M(db_blocknr, dbh(c)->db_blocknr = cpu_to_le64(DB_NR - 1))
M(db_owner, dbh(c)->db_owner = cpu_to_le32(DIR_INO + 1))
M(db_lblk, dbh(c)->db_lblk = cpu_to_le32(DIR_LBLK + 1))
M(db_rec_len_odd, FILE_DE->rec_len = cpu_to_le16((u16)(FIX_BS - FILE_OFF - 2)))
M(db_rec_len_small, DOTDOT_DE->rec_len = cpu_to_le16(4))
M(db_rec_len_past_end, FILE_DE->rec_len = cpu_to_le16((u16)(FIX_BS - FILE_OFF + 4)))
M(db_rec_len_short_chain, FILE_DE->rec_len = cpu_to_le16(12))	/* the zeros after it read as a record of length 0 */
M(db_name_len0, FILE_DE->name_len = 0)
M(db_name_len_long, DOTDOT_DE->name_len = 5)
M(db_name_slash, FILE_DE->name[1] = '/')
M(db_name_nul, FILE_DE->name[3] = '\0')
M(db_ft0, FILE_DE->file_type = STALEFS_FT_UNKNOWN)
M(db_ft_max, FILE_DE->file_type = STALEFS_FT_MAX)
M(db_inode_high, FILE_DE->inode = cpu_to_le32(c->g.inodes_count + 1))
M(db_inode_reserved, FILE_DE->inode = cpu_to_le32(STALEFS_BAD_INO))

/* xattrs */
M(xb_magic, xbh(c)->xb_magic = cpu_to_le32(STALEFS_EXTBLK_MAGIC))
M(xb_csum, c->xb[FIX_BS - 1] ^= 1)
M(xb_csum_entry, xent(XR, 0)->xe_value_size = cpu_to_le16(3))
M(xb_blocknr, xbh(c)->xb_blocknr = cpu_to_le64(XB_NR + 1))
M(xb_owner, xbh(c)->xb_owner = cpu_to_le32(INO + 1))
M(xb_owner_gen, xbh(c)->xb_owner_gen = cpu_to_le32(GEN + 1))
M(xb_reserved, xbh(c)->xb_reserved = cpu_to_le64(1))
M(xb_index0_mid, xent(XR, 1)->xe_name_index = 5)
M(xb_index_high, xent(XR, 2)->xe_name_index = 200)
M(xb_name_empty, xent(XR, 0)->xe_name_len = 0)
M(xb_name_on_acl, xent(XR, 1)->xe_name_len = 1)
M(xb_overrun, xent(XR, 2)->xe_value_size = cpu_to_le16(FIX_BS))
M(xb_padding, ((u8 *)xent(XR, 2))[4 + 14 + 1] = 1)
M(xb_duplicate, memcpy(xent(XR, 2) + 1, "mime", 4); xent(XR, 2)->xe_name_len = 4;
  xent(XR, 2)->xe_name_index = STALEFS_XATTR_INDEX_USER; memset((u8 *)(xent(XR, 2) + 1) + 4, 0, 11);
  xent(XR, 2)->xe_value_size = cpu_to_le16(11))
M(xb_tail, c->xb[FIX_BS - 1] = 1)
M(xbody_magic, c->xbody[0] ^= 1)
M(xbody_csum, c->xbody[XBODY_LEN - 1] ^= 1)
M(xbody_csum_gen, stalefs_xattr_ibody_set_csum(FIX_SEED, INO, GEN + 1, c->xbody, XBODY_LEN))
M(xbody_overrun, xent(IR, 1)->xe_value_size = cpu_to_le16(IR_LEN))
M(xbody_tail, c->xbody[XBODY_LEN - 1] = 1)
M(sb_isize_big, SB.s_inode_size = cpu_to_le16(2048))
M(sb_isize_odd, SB.s_inode_size = cpu_to_le16(384))

#define C(rule, kind, fn) { STALEFS_##rule, #rule " (" #fn ")", kind, fn }

static const struct vcase cases[] = {
	C(R_SB_MAGIC, K_SB, sb_magic),
	C(R_SB_CSUM, K_SB_CSUM, sb_csum),
	C(R_SB_REV, K_SB, sb_rev),
	C(R_SB_BLOCK_SIZE, K_SB, sb_bs),
	C(R_SB_BLOCKS_COUNT, K_SB, sb_blocks_tiny),
	C(R_SB_BLOCKS_COUNT, K_SB, sb_blocks_short_last),
	C(R_SB_BLOCKS_PER_GROUP, K_SB, sb_bpg),
	C(R_SB_BLOCKS_PER_GROUP, K_SB, sb_bpg_small),
	C(R_SB_INODES_PER_GROUP, K_SB, sb_ipg),
	C(R_SB_GROUPS_COUNT, K_SB, sb_groups),
	C(R_SB_INODES_COUNT, K_SB, sb_inodes),
	C(R_SB_INODE_SIZE, K_SB, sb_isize),
	C(R_SB_INODE_SIZE, K_SB, sb_isize_big),
	C(R_SB_INODE_SIZE, K_SB, sb_isize_odd),
	C(R_SB_DESC_SIZE, K_SB, sb_dsize),
	C(R_SB_GDT_BLOCKS, K_SB, sb_gdt),
	C(R_SB_FIRST_INO, K_SB, sb_first_ino),
	C(R_SB_FREE_BLOCKS, K_SB, sb_free_blocks),
	C(R_SB_FREE_INODES, K_SB, sb_free_inodes),
	C(R_SB_R_BLOCKS, K_SB, sb_r_blocks),
	C(R_SB_STATE, K_SB, sb_state),
	C(R_SB_ERRORS, K_SB, sb_errors0),
	C(R_SB_ERRORS, K_SB, sb_errors4),
	C(R_SB_INCOMPAT_UNKNOWN, K_SB, sb_incompat_unknown),
	C(R_SB_INCOMPAT_MISSING, K_SB, sb_incompat_missing),
	C(R_SB_RO_COMPAT_UNKNOWN, K_SB, sb_ro_unknown),
	C(R_SB_STALE_NO_GID, K_SB, sb_stale_no_gid),
	C(R_SB_STALE_GID_NO_FEATURE, K_SB, sb_gid_no_feature),
	C(R_SB_LPF_INO, K_SB, sb_lpf_reserved),
	C(R_SB_LPF_INO, K_SB, sb_lpf_high),
	C(R_SB_JOURNAL_RANGE, K_SB, sb_journal_none),
	C(R_SB_JOURNAL_RANGE, K_SB, sb_journal_small),
	C(R_SB_JOURNAL_RANGE, K_SB, sb_journal_across),
	C(R_SB_JOURNAL_RANGE, K_SB, sb_journal_on_super),
	C(R_SB_JOURNAL_RANGE, K_SB, sb_journal_past_end),
	C(R_SB_JOURNAL_RANGE, K_SB, sb_journal_pad),
	C(R_SB_JOURNAL_NO_FEATURE, K_SB, sb_journal_no_feature),
	C(R_SB_RECOVER_NO_JOURNAL, K_SB, sb_recover_no_journal),
	C(R_SB_META_BG, K_SB, sb_meta_bg_no_field),
	C(R_SB_META_BG, K_SB, sb_meta_bg_no_feature),
	C(R_SB_META_BG, K_SB, sb_meta_bg_past_table),

	C(R_BG_CSUM, K_DESC_CSUM, bg_csum),
	C(R_BG_BLOCK_BITMAP, K_DESC, bg_bb_on_super),
	C(R_BG_BLOCK_BITMAP, K_DESC, bg_bb_outside),
	C(R_BG_INODE_BITMAP, K_DESC, bg_ib_overlap),
	C(R_BG_INODE_BITMAP, K_DESC, bg_ib_outside),
	C(R_BG_INODE_TABLE, K_DESC, bg_it_overlap),
	C(R_BG_INODE_TABLE, K_DESC, bg_it_past_end),
	C(R_BG_FREE_BLOCKS, K_DESC, bg_free_blocks),
	C(R_BG_FREE_INODES, K_DESC, bg_free_inodes),
	C(R_BG_USED_DIRS, K_DESC, bg_used_dirs),
	C(R_BG_ITABLE_UNUSED, K_DESC, bg_itable_unused),
	C(R_BG_FLAGS, K_DESC, bg_flags),
	C(R_BG_BLOCK_BITMAP_CSUM, K_BB_CSUM, bg_bb_csum),
	C(R_BG_BLOCK_BITMAP_CSUM, K_BB_CSUM, bg_bb_csum_uninit),
	C(R_BG_INODE_BITMAP_CSUM, K_IB_CSUM, bg_ib_csum),
	C(R_BG_INODE_BITMAP_CSUM, K_IB_CSUM, bg_ib_csum_uninit),
	C(R_BG_ORPHANS, K_DESC, bg_orphans),
	C(R_BG_STALE_COUNT, K_DESC, bg_stale_count),

	C(R_INODE_CSUM, K_INODE_CSUM, in_csum),
	C(R_INODE_INO, K_INODE, in_ino),
	C(R_INODE_MODE, K_INODE, in_mode),
	C(R_INODE_MODE, K_INODE, in_mode_type),
	C(R_INODE_FLAGS, K_INODE, in_flags),
	C(R_INODE_INLINE_NOT_SYMLINK, K_INODE, in_inline_reg),
	C(R_INODE_INLINE_SIZE, K_INODE, in_inline_size),
	C(R_INODE_INLINE_SIZE, K_INODE, in_inline_empty),
	C(R_INODE_STALE_NOT_REG, K_INODE, in_stale_dir),
	C(R_INODE_DTIME, K_INODE, in_dtime),
	C(R_INODE_NSEC, K_INODE, in_nsec),
	C(R_INODE_NSEC, K_INODE, in_nsec_cr),
	C(R_INODE_SIZE, K_INODE, in_size),
	C(R_INODE_RESERVED, K_INODE, in_reserved),

	C(R_EXT_MAGIC, K_LEAF, ext_magic),
	C(R_EXT_MAX, K_LEAF, ext_max),
	C(R_EXT_ENTRIES, K_LEAF, ext_entries),
	C(R_EXT_ENTRIES, K_INDEX, ext_index_empty),
	C(R_EXT_DEPTH, K_LEAF, ext_depth),
	C(R_EXT_DEPTH, K_INDEX, ext_depth_child),
	C(R_EXT_LEN, K_LEAF, ext_len0),
	C(R_EXT_LEN, K_LEAF, ext_len_long),
	C(R_EXT_FLAGS_UNKNOWN, K_LEAF, ext_flags),
	C(R_EXT_UNWRITTEN_AND_STALE, K_LEAF, ext_both),
	C(R_EXT_PBLK_RANGE, K_LEAF, ext_pblk0),
	C(R_EXT_PBLK_RANGE, K_LEAF, ext_pblk_end),
	C(R_EXT_PBLK_RANGE, K_INDEX, ext_idx_pblk),
	C(R_EXT_LBLK_RANGE, K_LEAF, ext_lblk),
	C(R_EXT_UNSORTED, K_LEAF, ext_unsorted),
	C(R_EXT_UNSORTED, K_INDEX, ext_idx_unsorted),
	C(R_EXT_OVERLAP, K_LEAF, ext_overlap),
	C(R_EXT_IDX_RESERVED, K_INDEX, ext_idx_reserved),

	C(R_EXTBLK_MAGIC, K_EXTBLK, eb_magic),
	C(R_EXTBLK_CSUM, K_EXTBLK_CSUM, eb_csum),
	C(R_EXTBLK_BLOCKNR, K_EXTBLK, eb_blocknr),
	C(R_EXTBLK_OWNER, K_EXTBLK, eb_owner),
	C(R_EXTBLK_OWNER, K_EXTBLK, eb_owner_gen),
	C(R_EXTBLK_RESERVED, K_EXTBLK, eb_reserved),

	C(R_DIR_MAGIC, K_DIR, db_magic),
	C(R_DIR_CSUM, K_DIR_CSUM, db_csum),
	C(R_DIR_BLOCKNR, K_DIR, db_blocknr),
	C(R_DIR_OWNER, K_DIR, db_owner),
	C(R_DIR_LBLK, K_DIR, db_lblk),
	C(R_DIR_REC_LEN, K_DIR, db_rec_len_odd),
	C(R_DIR_REC_LEN, K_DIR, db_rec_len_small),
	C(R_DIR_REC_LEN, K_DIR, db_rec_len_past_end),
	C(R_DIR_REC_LEN, K_DIR, db_rec_len_short_chain),
	C(R_DIR_NAME_LEN, K_DIR, db_name_len0),
	C(R_DIR_NAME_LEN, K_DIR, db_name_len_long),
	C(R_DIR_NAME, K_DIR, db_name_slash),
	C(R_DIR_NAME, K_DIR, db_name_nul),
	C(R_DIR_FILE_TYPE, K_DIR, db_ft0),
	C(R_DIR_FILE_TYPE, K_DIR, db_ft_max),
	C(R_DIR_INODE, K_DIR_INODES, db_inode_high),
	C(R_DIR_INODE, K_DIR_INODES, db_inode_reserved),

	C(R_XATTR_MAGIC, K_XBLK, xb_magic),
	C(R_XATTR_MAGIC, K_XBODY, xbody_magic),
	C(R_XATTR_CSUM, K_XBLK_CSUM, xb_csum),
	C(R_XATTR_CSUM, K_XBLK_CSUM, xb_csum_entry),
	C(R_XATTR_CSUM, K_XBODY_CSUM, xbody_csum),
	C(R_XATTR_CSUM, K_XBODY_CSUM, xbody_csum_gen),
	C(R_XATTR_BLOCKNR, K_XBLK, xb_blocknr),
	C(R_XATTR_OWNER, K_XBLK, xb_owner),
	C(R_XATTR_OWNER, K_XBLK, xb_owner_gen),
	C(R_XATTR_RESERVED, K_XBLK, xb_reserved),
	C(R_XATTR_INDEX, K_XBLK, xb_index0_mid),
	C(R_XATTR_INDEX, K_XBLK, xb_index_high),
	C(R_XATTR_NAME, K_XBLK, xb_name_empty),
	C(R_XATTR_NAME, K_XBLK, xb_name_on_acl),
	C(R_XATTR_OVERRUN, K_XBLK, xb_overrun),
	C(R_XATTR_OVERRUN, K_XBODY, xbody_overrun),
	C(R_XATTR_PADDING, K_XBLK, xb_padding),
	C(R_XATTR_DUPLICATE, K_XBLK, xb_duplicate),
	C(R_XATTR_TAIL, K_XBLK, xb_tail),
	C(R_XATTR_TAIL, K_XBODY, xbody_tail),
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

/* Each case: the untouched structure passes, the broken one fails with exactly its rule. */
START_TEST(rule_case)
{
	static struct ctx c;
	const struct vcase *vc = &cases[_i];
	int got;

	ctx_init(&c);
	ck_assert_msg(run_verifier(&c, vc->kind) == 0, "%s: the structure fails before it is broken", vc->what);
	vc->mutate(&c);
	got = run_verifier(&c, vc->kind);
	ck_assert_msg(got == vc->rule, "%s: verifier returned %d (%s), expected %d (%s)", vc->what, got,
		      stalefs_rule_msg(got), vc->rule, stalefs_rule_msg(vc->rule));
}
END_TEST

START_TEST(all_rules_covered)
{
	bool covered[STALEFS_R_MAX] = { false };
	int i, r;

	for (i = 0; i < NCASES; i++) {
		ck_assert_msg(cases[i].rule > STALEFS_R_OK && cases[i].rule < STALEFS_R_MAX, "case %s has no rule",
			      cases[i].what);
		covered[cases[i].rule] = true;
	}
	for (r = STALEFS_R_OK + 1; r < STALEFS_R_MAX; r++)
		ck_assert_msg(covered[r], "rule %d (%s) has no verifier test case", r, stalefs_rule_msg(r));
}
END_TEST

START_TEST(rule_messages)
{
	int r, s;

	ck_assert_str_eq(stalefs_rule_msg(STALEFS_R_MAX), "unknown rule");
	ck_assert_str_eq(stalefs_rule_msg(-1), "unknown rule");
	for (r = STALEFS_R_OK; r < STALEFS_R_MAX; r++) {
		ck_assert_msg(strcmp(stalefs_rule_msg(r), "unknown rule") != 0, "rule %d has no message", r);
		for (s = STALEFS_R_OK; s < r; s++)
			ck_assert_msg(strcmp(stalefs_rule_msg(r), stalefs_rule_msg(s)) != 0,
				      "rules %d and %d share the message \"%s\"", s, r, stalefs_rule_msg(r));
	}
}
END_TEST

/* What the rules allow: these must pass. */
START_TEST(accepted_edge_cases)
{
	static struct ctx c;
	struct stalefs_dir_entry *de;

	ctx_init(&c);
	/* Free space in a directory (inode 0) may hold anything in name_len/file_type. */
	de = fix_dirent(c.db, FILE_OFF);
	de->inode = 0;
	de->name_len = 0;
	de->file_type = 0xEE;
	ck_assert_int_eq(run_verifier(&c, K_DIR), 0);
	ck_assert_int_eq(run_verifier(&c, K_DIR_INODES), 0);
	/* The root and the last inode are fine entry targets. */
	de->inode = cpu_to_le32(c.g.inodes_count);
	de->name_len = 1;
	de->file_type = STALEFS_FT_REG;
	ck_assert_int_eq(run_verifier(&c, K_DIR_INODES), 0);
	de->inode = cpu_to_le32(STALEFS_ROOT_INO);
	ck_assert_int_eq(run_verifier(&c, K_DIR_INODES), 0);
	/* A longest name in a record of exactly its size, then free space to the block's end. */
	de->name_len = STALEFS_NAME_LEN;
	memset(de->name, 'n', STALEFS_NAME_LEN);
	de->rec_len = cpu_to_le16(STALEFS_DIR_REC_LEN(STALEFS_NAME_LEN));
	fix_dirent(c.db, FILE_OFF + STALEFS_DIR_REC_LEN(STALEFS_NAME_LEN))->rec_len =
		cpu_to_le16((u16)(FIX_BS - FILE_OFF - STALEFS_DIR_REC_LEN(STALEFS_NAME_LEN)));
	ck_assert_int_eq(run_verifier(&c, K_DIR), 0);
	ck_assert_int_eq(run_verifier(&c, K_DIR_INODES), 0);
	/* An extent of the maximum length, ending at the last block and the last logical block. */
	set_extent(&leaf_ex(&c)[2], 0xFFFFFFFFu - STALEFS_EXT_MAX_LEN, STALEFS_EXT_MAX_LEN,
		   c.g.blocks_count - STALEFS_EXT_MAX_LEN, 0);
	ck_assert_int_eq(run_verifier(&c, K_LEAF), 0);
	/* Adjacent mergeable extents are accepted unmerged. */
	set_extent(&leaf_ex(&c)[1], 4, 4, 1004, 0);
	ck_assert_int_eq(run_verifier(&c, K_LEAF), 0);
	/* A deleted inode (links 0, dtime set) is consistent; an in-use one with dtime is not. */
	c.in.i_links_count = 0;
	c.in.i_dtime = cpu_to_le64(5);
	ck_assert_int_eq(run_verifier(&c, K_INODE), 0);
	/* The STALE flag on a regular file; an orphan with no links; unknown compat features. */
	c.in.i_flags = cpu_to_le32(STALEFS_INODE_STALE_FL);
	ck_assert_int_eq(run_verifier(&c, K_INODE), 0);
	c.in.i_flags = cpu_to_le32(STALEFS_INODE_ORPHAN_FL);
	c.in.i_dtime = 0;
	ck_assert_int_eq(run_verifier(&c, K_INODE), 0);
	c.sb.s_feature_compat = cpu_to_le32(0xFFFFFFFF & ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	ck_assert_int_eq(run_verifier(&c, K_SB), 0);
	/* A journal filling group 1's data blocks exactly, needing recovery. */
	set_journal(&c, stalefs_group_first_block(&c.g, 1) + stalefs_group_super_blocks(&c.g, 1),
		    stalefs_group_nblocks(&c.g, 1) - stalefs_group_super_blocks(&c.g, 1));
	c.sb.s_feature_incompat |= cpu_to_le32(STALEFS_FEATURE_INCOMPAT_RECOVER);
	ck_assert_int_eq(run_verifier(&c, K_SB), 0);
	/* A group with orphans. */
	c.d.bg_orphan_count = cpu_to_le32(c.g.inodes_per_group);
	ck_assert_int_eq(run_verifier(&c, K_DESC), 0);
	/* A recorded permitted group with its feature. */
	c.sb.s_feature_ro_compat |= cpu_to_le32(STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE);
	c.sb.s_stale_gid = cpu_to_le32(0);
	ck_assert_int_eq(run_verifier(&c, K_SB), 0);
}
END_TEST

Suite *verify_suite(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("rules");

	tcase_add_loop_test(tc, rule_case, 0, NCASES);
	tcase_add_test(tc, all_rules_covered);
	tcase_add_test(tc, rule_messages);
	tcase_add_test(tc, accepted_edge_cases);
	suite_add_tcase(s, tc);
	return s;
}
