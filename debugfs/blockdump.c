// SPDX-License-Identifier: GPL-2.0
/*
 * block_dump / bd: a block in hex, what structure it is (found from the
 * layout, or from its magic number), and whether that structure's checksum
 * and verifier pass.
 */
#include <getopt.h>
#include <stdlib.h>
#include "debugfs.h"

/* The group metadata role of a block (the library's layout kinds), NULL if none. */
const char *dbg_block_role(u64 block, u32 *group_out)
{
	int kind = stalefs_block_layout_kind(dbg.fs, block, group_out);

	return kind == STALEFS_BK_DATA || kind == STALEFS_BK_OUTSIDE ? NULL : stalefs_block_kind_name(kind);
}

static void verdict(const char *what, int rule)
{
	printf("%s: %s%s\n", what, rule ? stalefs_rule_msg(rule) : "ok", rule ? "  *** BAD ***" : "");
}

static void explain_bitmap(u32 grp, bool block_bitmap)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	const struct stalefs_group_desc *d = &dbg.fs->groups[grp].desc;
	u32 nblocks = block_bitmap ? g->block_bitmap_blocks : g->inode_bitmap_blocks;
	u64 first = le64_to_cpu(block_bitmap ? d->bg_block_bitmap : d->bg_inode_bitmap);
	u16 uninit = block_bitmap ? STALEFS_BG_BLOCK_UNINIT : STALEFS_BG_INODE_UNINIT;
	u32 want = le32_to_cpu(block_bitmap ? d->bg_block_bitmap_csum : d->bg_inode_bitmap_csum);
	u8 *buf;

	if (le16_to_cpu(d->bg_flags) & uninit) {
		printf("Checksum: not kept (the group's %s bitmap is uninitialised)\n", block_bitmap ? "block" : "inode");
		return;
	}
	buf = malloc((size_t)nblocks * g->block_size);
	if (!buf || stalefs_io_read(dbg.fs->io, first, nblocks, buf)) {
		printf("Checksum: could not read the whole bitmap\n");
		free(buf);
		return;
	}
	verdict("Checksum (whole bitmap, kept in the descriptor)",
		stalefs_bitmap_csum(dbg.fs->seed, grp, buf, nblocks * g->block_size) == want ? 0
		: block_bitmap ? STALEFS_R_BG_BLOCK_BITMAP_CSUM : STALEFS_R_BG_INODE_BITMAP_CSUM);
	free(buf);
}

static void explain_itable(u64 block, u32 grp, const u8 *buf)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	u64 it = le64_to_cpu(dbg.fs->groups[grp].desc.bg_inode_table);
	u32 first = grp * g->inodes_per_group + (u32)(block - it) * g->inodes_per_block + 1, i;
	int bad = 0;

	printf("Inodes %u to %u\n", first, first + g->inodes_per_block - 1);
	for (i = 0; i < g->inodes_per_block; i++) {
		const struct stalefs_inode *in = (const void *)(buf + (size_t)i * g->inode_size);
		int rule;

		if (!in->i_mode && !in->i_checksum)
			continue;
		rule = stalefs_verify_inode_csum(dbg.fs->seed, first + i, in);
		if (!rule && in->i_mode)
			rule = stalefs_verify_inode(g, first + i, in);
		if (rule) {
			printf("  inode %u: %s\n", first + i, stalefs_rule_msg(rule));
			bad++;
		}
	}
	printf("Inode checks: %s\n", bad ? "some inodes are bad (above)" : "ok");
}

static void explain(u64 block, const u8 *buf)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	u32 grp = 0;
	const char *role = dbg_block_role(block, &grp);
	u32 magic = le32_to_cpu(*(const __le32 *)buf);

	if (role && strcmp(role, "superblock") == 0) {
		const struct stalefs_super_block *sb =
			(const void *)(buf + (grp == 0 && g->block_size > 1024 ? 1024 : 0));
		int rule = stalefs_verify_super(sb);

		printf("Structure: superblock (group %u copy)\n", grp);
		verdict("Verdict", rule ? rule : stalefs_verify_super_csum(sb));
		return;
	}
	if (role && strcmp(role, "group descriptor table") == 0) {
		u32 index = 0, d0, i;
		int bad = 0;

		stalefs_block_is_gdt(g, block, &grp, &index);
		d0 = index * g->desc_per_block;

		printf("Structure: group descriptor table (copy in group %u), descriptors %u..%u\n", grp, d0,
		       d0 + g->desc_per_block - 1);
		for (i = 0; i < g->desc_per_block && d0 + i < g->groups_count; i++) {
			const struct stalefs_group_desc *d = (const void *)(buf + (size_t)i * STALEFS_DESC_SIZE);
			int rule = stalefs_verify_desc_csum(dbg.fs->seed, d0 + i, d);

			if (!rule)
				rule = stalefs_verify_desc(g, d0 + i, d);
			if (rule) {
				printf("  descriptor %u: %s\n", d0 + i, stalefs_rule_msg(rule));
				bad++;
			}
		}
		printf("Descriptor checks: %s\n", bad ? "some descriptors are bad (above)" : "ok");
		return;
	}
	if (role && strstr(role, "bitmap")) {
		printf("Structure: %s of group %u\n", role, grp);
		explain_bitmap(grp, role[0] == 'b');
		return;
	}
	if (role && strcmp(role, "inode table") == 0) {
		printf("Structure: inode table of group %u\n", grp);
		explain_itable(block, grp, buf);
		return;
	}
	if (role && strcmp(role, "journal superblock") == 0) {
		int rule = stalefs_jsb_verify((const struct stalefs_jbd2_super *)buf, &dbg.fs->sb);

		printf("Structure: journal superblock (journal block 0)\n");
		printf("Verdict: %s%s\n", rule ? stalefs_jsb_rule_msg(rule) : "ok", rule ? "  *** BAD ***" : "");
		return;
	}
	if (role && strcmp(role, "journal") == 0) {
		const struct stalefs_jbd2_header *h = (const void *)buf;

		printf("Structure: journal block %llu", (unsigned long long)(block - le64_to_cpu(dbg.fs->sb.s_journal_block)));
		if (be32toh(h->h_magic) == STALEFS_JBD2_MAGIC)
			printf(" (jbd2 block type %u, sequence %u: logdump shows it)", be32toh(h->h_blocktype),
			       be32toh(h->h_sequence));
		printf("\n");
		return;
	}
	if (role) {
		printf("Structure: %s\n", role);
		return;
	}
	if (magic == STALEFS_EXTBLK_MAGIC) {
		const struct stalefs_extent_block *eb = (const void *)buf;
		u32 owner = le32_to_cpu(eb->eb_owner);
		int rule = stalefs_verify_extblock_header(buf, block, owner, le32_to_cpu(eb->eb_owner_gen));

		printf("Structure: extent tree node (owner inode %u, generation %u, depth %u, %u/%u entries)\n", owner,
		       le32_to_cpu(eb->eb_owner_gen), le16_to_cpu(eb->eb_hdr.eh_depth),
		       le16_to_cpu(eb->eb_hdr.eh_entries), le16_to_cpu(eb->eb_hdr.eh_max));
		if (!rule)
			rule = stalefs_verify_extblock_csum(dbg.fs->seed, buf, g->block_size);
		if (!rule)
			rule = stalefs_verify_extent_node(g, &eb->eb_hdr, stalefs_extblock_max_entries(g->block_size), -1);
		if (!rule && stalefs_ino_valid(dbg.fs, owner)) {
			struct stalefs_inode in;
			int r;

			if (!stalefs_read_inode_raw(dbg.fs, owner, &in, &r) && in.i_generation != eb->eb_owner_gen)
				rule = STALEFS_R_EXTBLK_OWNER;
		}
		verdict("Verdict", rule);
		return;
	}
	if (magic == STALEFS_DIRBLK_MAGIC) {
		const struct stalefs_dir_block *db = (const void *)buf;
		int rule = stalefs_verify_dirblock(buf, g->block_size, block, le32_to_cpu(db->db_owner),
						   le32_to_cpu(db->db_lblk));

		printf("Structure: directory block (owner inode %u, logical block %u)\n", le32_to_cpu(db->db_owner),
		       le32_to_cpu(db->db_lblk));
		if (!rule)
			rule = stalefs_verify_dirblock_csum(dbg.fs->seed, buf, g->block_size);
		/* Where it says it belongs: its owner must map that logical block here. */
		if (!rule && stalefs_ino_valid(dbg.fs, le32_to_cpu(db->db_owner))) {
			u64 p = 0;
			u16 fl;

			if (stalefs_bmap(dbg.fs, le32_to_cpu(db->db_owner), le32_to_cpu(db->db_lblk), &p, &fl) || p != block)
				rule = STALEFS_R_DIR_OWNER;
		}
		verdict("Verdict", rule);
		return;
	}
	printf("Structure: data or bitmap (no metadata magic; not checksummed)\n");
}

DBG_CMD(do_block_dump)
{
	static const char usage[] = "[-f inode] block_num";
	const char *file = NULL;
	u64 block;
	u8 *buf;
	int c;
	errcode_t err;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "f:")) != -1) {
		if (c != 'f') {
			dbg_usage(argv[0], usage);
			return;
		}
		file = optarg;
	}
	if (optind != argc - 1) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_fs(argv[0]))
		return;
	if (!dbg_parse_file_block(argv[0], file, argv[optind], &block))
		return;
	buf = malloc(dbg.fs->block_size);
	if (!buf) {
		dbg_err(argv[0], STALEFS_ERR_NO_MEMORY, "allocating a block buffer");
		return;
	}
	err = stalefs_io_read(dbg.fs->io, block, 1, buf);
	if (err) {
		dbg_err(argv[0], err, "reading block %llu", (unsigned long long)block);
		free(buf);
		return;
	}
	printf("Block %llu%s\n", (unsigned long long)block,
	       dbg.fs->bitmaps_loaded ? (stalefs_test_block(dbg.fs, block) ? " (in use)" : " (free)") : "");
	dbg_hexdump(buf, dbg.fs->block_size, 0);
	explain(block, buf);
	free(buf);
}
