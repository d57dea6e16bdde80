/* Well-formed on-disk structures, built field by field, for the checksum and verifier tests. */
#include "unit.h"

void fix_super(struct stalefs_super_block *sb, struct stalefs_geom *g)
{
	struct stalefs_mkfs_params p;
	u32 i;

	/* 256 MiB at 4 KiB: two groups of 32768 blocks. */
	stalefs_mkfs_defaults(&p, 256ULL << 20, FIX_BS);
	/* No journal: the verifier cases add one where they need it. */
	p.feature_compat &= ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
	for (i = 0; i < 16; i++)
		p.uuid[i] = (u8)(0xA0 + i);
	ck_ok(stalefs_mkfs_layout(&p, sb, g));
	ck_assert_uint_eq(g->groups_count, 2);
	sb->s_free_blocks_count = cpu_to_le64(g->blocks_count / 2);
	sb->s_free_inodes_count = cpu_to_le32(g->inodes_count - 11);
	sb->s_lpf_ino = cpu_to_le32(STALEFS_FIRST_INO);
	stalefs_super_set_csum(sb);
	ck_assert_int_eq(stalefs_verify_super(sb), 0);
	ck_assert_int_eq(stalefs_verify_super_csum(sb), 0);
}

void fix_desc(const struct stalefs_geom *g, u32 group, struct stalefs_group_desc *d)
{
	u64 bb, ib, it;

	memset(d, 0, sizeof(*d));
	stalefs_group_default_layout(g, group, &bb, &ib, &it);
	d->bg_block_bitmap = cpu_to_le64(bb);
	d->bg_inode_bitmap = cpu_to_le64(ib);
	d->bg_inode_table = cpu_to_le64(it);
	d->bg_free_blocks_count = cpu_to_le32(stalefs_group_nblocks(g, group) - stalefs_group_meta_blocks(g, group));
	d->bg_free_inodes_count = cpu_to_le32(g->inodes_per_group - 1);
	d->bg_used_dirs_count = cpu_to_le32(1);
	d->bg_itable_unused = cpu_to_le32(g->inodes_per_group - 16);
	stalefs_desc_set_csum(FIX_SEED, group, d);
	ck_assert_int_eq(stalefs_verify_desc(g, group, d), 0);
	ck_assert_int_eq(stalefs_verify_desc_csum(FIX_SEED, group, d), 0);
}

void fix_inode(u32 ino, u16 mode, struct stalefs_inode *inode)
{
	struct stalefs_extent_header *eh = (struct stalefs_extent_header *)inode->i_block;
	struct stalefs_extent *ex = stalefs_eh_extents(eh);

	memset(inode, 0, sizeof(*inode));
	inode->i_mode = cpu_to_le16(mode);
	inode->i_links_count = cpu_to_le16(1);
	inode->i_uid = cpu_to_le32(1000);
	inode->i_gid = cpu_to_le32(100);
	inode->i_size = cpu_to_le64(3 * FIX_BS);
	inode->i_blocks = cpu_to_le64(3);
	inode->i_atime = cpu_to_le64(1700000000);
	inode->i_ctime = cpu_to_le64(1700000001);
	inode->i_mtime = cpu_to_le64(1700000002);
	inode->i_crtime = cpu_to_le64(1700000003);
	inode->i_mtime_nsec = cpu_to_le32(999999999);
	inode->i_generation = cpu_to_le32(0xC0FFEE);
	inode->i_ino = cpu_to_le32(ino);
	eh->eh_magic = cpu_to_le16(STALEFS_EXT_MAGIC);
	eh->eh_max = cpu_to_le16(STALEFS_ROOT_EXTENTS);
	eh->eh_entries = cpu_to_le16(1);
	ex->ee_lblk = cpu_to_le32(0);
	ex->ee_len = cpu_to_le16(3);
	ex->ee_pblk = cpu_to_le64(5000);
	stalefs_inode_set_csum(FIX_SEED, ino, inode);
}

void fix_extblock(void *buf, u32 bs, u64 blocknr, u32 owner, u32 gen, u32 n)
{
	struct stalefs_extent_block *eb = buf;
	struct stalefs_extent *ex = stalefs_eh_extents(&eb->eb_hdr);
	u32 i;

	memset(buf, 0, bs);
	eb->eb_magic = cpu_to_le32(STALEFS_EXTBLK_MAGIC);
	eb->eb_blocknr = cpu_to_le64(blocknr);
	eb->eb_owner = cpu_to_le32(owner);
	eb->eb_owner_gen = cpu_to_le32(gen);
	eb->eb_hdr.eh_magic = cpu_to_le16(STALEFS_EXT_MAGIC);
	eb->eb_hdr.eh_entries = cpu_to_le16((u16)n);
	eb->eb_hdr.eh_max = cpu_to_le16((u16)stalefs_extblock_max_entries(bs));
	for (i = 0; i < n; i++) {
		ex[i].ee_lblk = cpu_to_le32(i * 8);
		ex[i].ee_len = cpu_to_le16(4);
		ex[i].ee_flags = cpu_to_le16(i % 3 == 1 ? STALEFS_EXT_UNWRITTEN : 0);
		ex[i].ee_pblk = cpu_to_le64(3000 + i * 8);
	}
	stalefs_extblock_set_csum(FIX_SEED, buf, bs);
}

static u32 put(void *buf, u32 off, u32 ino, u32 rec_len, const char *name, u8 ft)
{
	struct stalefs_dir_entry *de = fix_dirent(buf, off);

	de->inode = cpu_to_le32(ino);
	de->rec_len = cpu_to_le16((u16)rec_len);
	de->name_len = (u8)strlen(name);
	de->file_type = ft;
	memcpy(de->name, name, strlen(name));
	return off + rec_len;
}

void fix_dirblock(void *buf, u32 bs, u64 blocknr, u32 owner, u32 lblk)
{
	struct stalefs_dir_block *db = buf;
	u32 off = sizeof(*db);

	memset(buf, 0, bs);
	db->db_magic = cpu_to_le32(STALEFS_DIRBLK_MAGIC);
	db->db_blocknr = cpu_to_le64(blocknr);
	db->db_owner = cpu_to_le32(owner);
	db->db_lblk = cpu_to_le32(lblk);
	off = put(buf, off, owner, 12, ".", STALEFS_FT_DIR);
	off = put(buf, off, STALEFS_ROOT_INO, 12, "..", STALEFS_FT_DIR);
	put(buf, off, 12, bs - off, "file", STALEFS_FT_REG);
	stalefs_dirblock_set_csum(FIX_SEED, buf, bs);
}
