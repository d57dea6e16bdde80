// SPDX-License-Identifier: GPL-2.0
/*
 * sif / ssv / set_bg / seb: write one field of an inode, the superblock, a
 * group descriptor or an extent tree block exactly as asked.  Nothing is
 * validated beyond the field's width, so any invalid state can be built.
 * The structure's checksum is recomputed afterwards unless -n was given
 * (to the program or the command) or the field set is the checksum itself;
 * "checksum calc" recomputes it explicitly.
 */
#include <stdlib.h>
#include "debugfs.h"
#include "fields.h"

struct set_opts {
	bool list, no_csum;
	int first;	/* index of the first positional argument */
};

static bool parse_opts(int argc, const char *const *argv, struct set_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->no_csum = dbg.no_csum;
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "-l") == 0)
			o->list = true;
		else if (strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "--no-csum") == 0)
			o->no_csum = true;
		else if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else
			return false;
	}
	o->first = i;
	return true;
}

/* Set field `name` of buf; *csum_mode: 0 recompute, 1 leave alone, 2 "calc" asked. */
static bool apply(const char *cmd, const struct field *table, const char *prefix, u8 *buf, u32 buflen,
		  const char *name, const char *value, u32 entries_cap, int *csum_mode)
{
	const struct field *f;
	char err[160];
	u32 off;

	f = field_find(table, prefix, name, &off, err, sizeof(err));
	if (!f) {
		dbg_msg(cmd, "%s", err);
		return false;
	}
	if (f->stride && !f->count && (off - f->offset) / f->stride >= entries_cap) {
		dbg_msg(cmd, "index out of range for %s (0..%u)", f->name, entries_cap - 1);
		return false;
	}
	if (off + f->size > buflen) {
		dbg_msg(cmd, "field %s lies outside the structure", name);
		return false;
	}
	if (f->kind == F_CSUM && strcmp(value, "calc") == 0) {
		*csum_mode = 2;
		return true;
	}
	if (!field_set(f, buf, off, value, err, sizeof(err))) {
		dbg_msg(cmd, "%s", err);
		return false;
	}
	if (f->kind == F_CSUM)
		*csum_mode = 1;
	return true;
}

DBG_CMD(do_set_inode_field)
{
	static const char usage[] = "[-n|--no-csum] <file> <field> <value>\n\t\"set_inode_field -l\" lists the fields";
	struct set_opts o;
	struct stalefs_inode inode;
	u32 ino;
	int rule, csum_mode = 0;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!parse_opts(argc, argv, &o)) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (o.list) {
		field_list(inode_fields, "Inode");
		return;
	}
	if (argc - o.first != 3) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]) || !dbg_name_to_ino(argv[0], argv[o.first], &ino) ||
	    !dbg_read_inode(argv[0], ino, &inode, &rule))
		return;
	if (!apply(argv[0], inode_fields, "i_", (u8 *)&inode, sizeof(inode), argv[o.first + 1], argv[o.first + 2],
		   STALEFS_ROOT_EXTENTS, &csum_mode))
		return;
	if (csum_mode == 2 || (csum_mode == 0 && !o.no_csum))
		stalefs_inode_set_csum(dbg.fs->seed, ino, &inode);
	err = stalefs_write_inode_raw(dbg.fs, ino, &inode);
	if (err)
		dbg_err(argv[0], err, "writing inode %u", ino);
	else
		dbg_warn_uninit(argv[0], ino);
}

DBG_CMD(do_set_super)
{
	static const char usage[] = "[-n|--no-csum] <field> <value>\n\t\"set_super_value -l\" lists the fields";
	struct set_opts o;
	struct stalefs_super_block sb;
	int csum_mode = 0;

	(void)sci_idx; (void)info;
	if (!parse_opts(argc, argv, &o)) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (o.list) {
		field_list(super_fields, "Superblock");
		return;
	}
	if (argc - o.first != 2) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]))
		return;
	sb = dbg.fs->sb;
	if (dbg.sb_csum_pending)
		sb.s_checksum = cpu_to_le32(dbg.sb_csum);
	if (!apply(argv[0], super_fields, "s_", (u8 *)&sb, sizeof(sb), argv[o.first], argv[o.first + 1], 0,
		   &csum_mode))
		return;
	/* The library checksums the superblock whenever it writes it; a checksum
	 * that must stay wrong is put back after every flush (dbg_flush). */
	if (csum_mode == 2 || (csum_mode == 0 && !o.no_csum)) {
		dbg.sb_csum_pending = false;
	} else {
		dbg.sb_csum_pending = true;
		dbg.sb_csum = le32_to_cpu(sb.s_checksum);
	}
	dbg.fs->sb = sb;
	stalefs_mark_super_dirty(dbg.fs);
}

DBG_CMD(do_set_block_group_descriptor)
{
	static const char usage[] = "[-n|--no-csum] <bg number> <field> <value>\n\t\"set_block_group -l\" lists the fields";
	struct set_opts o;
	struct stalefs_group_desc d;
	u32 g;
	int csum_mode = 0;

	(void)sci_idx; (void)info;
	if (!parse_opts(argc, argv, &o)) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (o.list) {
		field_list(desc_fields, "Block group descriptor");
		return;
	}
	if (argc - o.first != 3) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]) || !dbg_parse_u32(argv[0], argv[o.first], "block group number", &g))
		return;
	if (g >= dbg.fs->geom.groups_count) {
		dbg_msg(argv[0], "block group number too big: %u (the filesystem has %u groups)", g,
			dbg.fs->geom.groups_count);
		return;
	}
	d = dbg.fs->groups[g].desc;
	if (dbg.desc_csum_pending[g])
		d.bg_checksum = cpu_to_le32(dbg.desc_csum[g]);
	if (!apply(argv[0], desc_fields, "bg_", (u8 *)&d, sizeof(d), argv[o.first + 1], argv[o.first + 2], 0,
		   &csum_mode))
		return;
	if (csum_mode == 2 || (csum_mode == 0 && !o.no_csum)) {
		dbg.desc_csum_pending[g] = 0;
	} else {
		dbg.desc_csum_pending[g] = 1;
		dbg.desc_csum[g] = le32_to_cpu(d.bg_checksum);
	}
	dbg.fs->groups[g].desc = d;
	stalefs_mark_desc_dirty(dbg.fs, g);
}

/*
 * seb BLOCK FIELD VALUE: a field of an extent tree node block.  "seb BLOCK init
 * OWNER [DEPTH]" first makes the block an empty node owned by inode OWNER (with
 * that inode's generation), so a corrupt tree can be built from nothing.
 */
DBG_CMD(do_set_extent_block)
{
	static const char usage[] = "[-n|--no-csum] <block> <field> <value>\n"
				    "\t\"set_extent_block <block> init <owner ino> [depth]\" makes an empty node\n"
				    "\t\"set_extent_block -l\" lists the fields";
	struct set_opts o;
	u8 *buf;
	u64 block;
	u32 cap;
	int csum_mode = 0;
	bool init;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!parse_opts(argc, argv, &o)) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (o.list) {
		field_list(extblock_fields, "Extent tree block");
		return;
	}
	init = argc - o.first >= 2 && strcmp(argv[o.first + 1], "init") == 0;
	if ((!init && argc - o.first != 3) || (init && argc - o.first != 3 && argc - o.first != 4)) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]) || !dbg_parse_block(argv[0], argv[o.first], &block))
		return;
	cap = stalefs_extblock_max_entries(dbg.fs->block_size);
	buf = calloc(1, dbg.fs->block_size);
	if (!buf) {
		dbg_err(argv[0], STALEFS_ERR_NO_MEMORY, "allocating a block buffer");
		return;
	}
	if (init) {
		struct stalefs_extent_block *eb = (struct stalefs_extent_block *)buf;
		struct stalefs_inode inode;
		u32 owner, depth = 0;
		int rule;

		if (!dbg_parse_u32(argv[0], argv[o.first + 2], "owner inode", &owner) ||
		    (argc - o.first == 4 && !dbg_parse_u32(argv[0], argv[o.first + 3], "depth", &depth)))
			goto out;
		if (!stalefs_ino_valid(dbg.fs, owner)) {
			dbg_msg(argv[0], "Bad inode - %s", argv[o.first + 2]);
			goto out;
		}
		if (!dbg_read_inode(argv[0], owner, &inode, &rule))
			goto out;
		eb->eb_magic = cpu_to_le32(STALEFS_EXTBLK_MAGIC);
		eb->eb_blocknr = cpu_to_le64(block);
		eb->eb_owner = cpu_to_le32(owner);
		eb->eb_owner_gen = inode.i_generation;
		eb->eb_hdr.eh_magic = cpu_to_le16(STALEFS_EXT_MAGIC);
		eb->eb_hdr.eh_max = cpu_to_le16((u16)cap);
		eb->eb_hdr.eh_depth = cpu_to_le16((u16)depth);
	} else {
		err = stalefs_read_block(dbg.fs, block, buf);
		if (err) {
			dbg_err(argv[0], err, "reading block %llu", (unsigned long long)block);
			goto out;
		}
		if (!apply(argv[0], extblock_fields, "eb_", buf, dbg.fs->block_size, argv[o.first + 1],
			   argv[o.first + 2], cap, &csum_mode))
			goto out;
	}
	if (csum_mode == 2 || (csum_mode == 0 && !o.no_csum))
		stalefs_extblock_set_csum(dbg.fs->seed, buf, dbg.fs->block_size);
	err = stalefs_write_block(dbg.fs, block, buf);
	if (err)
		dbg_err(argv[0], err, "writing block %llu", (unsigned long long)block);
out:
	free(buf);
}
