// SPDX-License-Identifier: GPL-2.0
/*
 * logdump: the journal's log, block by block, in the spirit of e2fsprogs'
 * logdump -- transactions, the filesystem blocks each descriptor's tags
 * name, revoke records, commit blocks -- with the checksum verdict of every
 * block, so a damaged journal can be read before (or instead of) replaying it.
 *
 *   -a          every tag and revoke record (default: one line per log block)
 *   -c          with -a, or for the blocks -b/-i select: their contents in hex
 *   -b block    only what touches filesystem block `block` (its journaled copies,
 *               revokes of it, and its group's block bitmap with its bit)
 *   -i filespec the journaled copies of the block holding that inode, and the inode in them
 *   -s          walk even when the journal superblock fails verification, with the
 *               geometry the filesystem superblock records
 *   -O          go on past the end of the log through older blocks that still have
 *               the magic (once round the ring at most)
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <time.h>
#include "debugfs.h"

#define LOGDUMP_USAGE "[-acsO] [-b block] [-i filespec] [output_file]"
#define ANY_BLOCK (~0ULL)

struct logdump {
	FILE *out;
	bool all, contents, descriptors;
	u64 block;			/* -b, or ANY_BLOCK */
	u64 bitmap_block;		/* the block bitmap block holding -b's bit */
	u32 bitmap_bit;
	u64 inode_block;		/* -i: the inode table block, or ANY_BLOCK */
	u32 ino, inode_offset;
};

static const char *type_name(u32 type)
{
	switch (type) {
	case STALEFS_JBD2_DESCRIPTOR_BLOCK: return "descriptor block";
	case STALEFS_JBD2_COMMIT_BLOCK: return "commit block";
	case STALEFS_JBD2_SUPERBLOCK_V1: return "V1 superblock";
	case STALEFS_JBD2_SUPERBLOCK_V2: return "V2 superblock";
	case STALEFS_JBD2_REVOKE_BLOCK: return "revoke table";
	case STALEFS_JBD2_FC_BLOCK: return "fast commit block";
	}
	return "unrecognised type";
}

static const char *tag_flag_names(u32 flags)
{
	static char buf[64];

	buf[0] = '\0';
	if (flags & STALEFS_JBD2_FLAG_ESCAPE)
		strcat(buf, " ESCAPE");
	if (flags & STALEFS_JBD2_FLAG_SAME_UUID)
		strcat(buf, " SAME_UUID");
	if (flags & STALEFS_JBD2_FLAG_DELETED)
		strcat(buf, " DELETED");
	if (flags & STALEFS_JBD2_FLAG_LAST_TAG)
		strcat(buf, " LAST_TAG");
	return buf;
}

static void hexdump(FILE *out, const u8 *p, u32 len)
{
	u32 i, j;

	for (i = 0; i < len; i += 16) {
		fprintf(out, "    %04x: ", i);
		for (j = 0; j < 16; j++)
			fprintf(out, "%02x%s", p[i + j], j % 4 == 3 ? " " : "");
		for (j = 0; j < 16; j++)
			fputc(p[i + j] >= 0x20 && p[i + j] < 0x7f ? p[i + j] : '.', out);
		fputc('\n', out);
	}
}

static const char *verdict(bool ok)
{
	return ok ? "checksum ok" : "checksum BAD";
}

/* The inode -i asked for, as the journaled copy of its table block holds it. */
static void show_logged_inode(const struct logdump *ld, const u8 *block)
{
	struct stalefs_inode inode;
	int rule;

	memcpy(&inode, block + ld->inode_offset, sizeof(inode));
	fprintf(ld->out, "    (inode block for inode %u):\n", ld->ino);
	if (!inode.i_mode) {
		fprintf(ld->out, "    free slot (mode 0)\n");
		return;
	}
	rule = stalefs_verify_inode_csum(dbg.fs->seed, ld->ino, &inode);
	if (!rule)
		rule = stalefs_verify_inode(&dbg.fs->geom, ld->ino, &inode);
	fprintf(ld->out, "    mode 0%o links %u uid %u gid %u size %llu blocks %llu flags 0x%x dtime %llu: %s\n",
		le16_to_cpu(inode.i_mode), le16_to_cpu(inode.i_links_count), le32_to_cpu(inode.i_uid),
		le32_to_cpu(inode.i_gid), (unsigned long long)le64_to_cpu(inode.i_size),
		(unsigned long long)le64_to_cpu(inode.i_blocks), le32_to_cpu(inode.i_flags),
		(unsigned long long)le64_to_cpu(inode.i_dtime), rule ? stalefs_rule_msg(rule) : "ok");
}

static void show_tag(const struct logdump *ld, const struct stalefs_jwalk_entry *e)
{
	bool selected = e->fs_block == ld->block || e->fs_block == ld->inode_block ||
			(ld->block != ANY_BLOCK && e->fs_block == ld->bitmap_block);

	if (!ld->all && !selected)
		return;
	fprintf(ld->out, "  FS block %llu logged at ", (unsigned long long)e->fs_block);
	if (!ld->all)
		fprintf(ld->out, "sequence %u, ", e->sequence);
	fprintf(ld->out, "journal block %u (flags 0x%x%s), %s\n", e->log_block, e->tag_flags,
		tag_flag_names(e->tag_flags), e->block ? verdict(e->csum_ok) : "unreadable");
	if (!e->block)
		return;
	if (ld->block != ANY_BLOCK && e->fs_block == ld->bitmap_block) {
		/* The journaled copy as it will be replayed: its magic back if it was escaped. */
		u8 byte = e->block[ld->bitmap_bit / 8];

		if ((e->tag_flags & STALEFS_JBD2_FLAG_ESCAPE) && ld->bitmap_bit / 8 < 4)
			byte = (u8)(STALEFS_JBD2_MAGIC >> (24 - 8 * (ld->bitmap_bit / 8)));
		fprintf(ld->out, "    (block bitmap for block %llu: block is %s)\n", (unsigned long long)ld->block,
			byte & (1u << (ld->bitmap_bit % 8)) ? "SET" : "CLEAR");
	}
	if (e->fs_block == ld->inode_block)
		show_logged_inode(ld, e->block);
	if (ld->contents && (ld->all || selected))
		hexdump(ld->out, e->block, dbg.fs->block_size);
}

static int logdump_entry(const struct stalefs_jwalk_entry *e, void *priv)
{
	const struct logdump *ld = priv;
	char t[64];

	switch (e->what) {
	case STALEFS_JW_DESCRIPTOR:
	case STALEFS_JW_COMMIT:
	case STALEFS_JW_REVOKE:
		if (ld->descriptors)
			fprintf(ld->out, "Found expected sequence %u, type %u (%s) at block %u%s\n", e->sequence,
				e->blocktype, type_name(e->blocktype), e->log_block, e->csum_ok ? "" : ", checksum BAD");
		if (!ld->all)
			break;
		if (e->what == STALEFS_JW_DESCRIPTOR) {
			fprintf(ld->out, "Dumping descriptor block, sequence %u, at block %u: %s\n", e->sequence,
				e->log_block, verdict(e->csum_ok));
		} else if (e->what == STALEFS_JW_REVOKE) {
			fprintf(ld->out, "Dumping revoke block, sequence %u, at block %u: %u record%s, %s%s\n",
				e->sequence, e->log_block, e->count, e->count == 1 ? "" : "s", verdict(e->csum_ok),
				e->bad_count ? ", its record count runs past the block" : "");
		} else {
			dbg_time_string((s64)e->commit_sec, t, sizeof(t));
			fprintf(ld->out, "Commit block, sequence %u, at block %u: committed %s (+%u ns), %s\n",
				e->sequence, e->log_block, t, e->commit_nsec, verdict(e->csum_ok));
		}
		break;
	case STALEFS_JW_TAG:
		show_tag(ld, e);
		break;
	case STALEFS_JW_REVOKE_RECORD:
		if (ld->all)
			fprintf(ld->out, "  Revoke FS block %llu\n", (unsigned long long)e->fs_block);
		else if (e->fs_block == ld->block)
			fprintf(ld->out, "  Revoke FS block %llu at block %u, sequence %u\n",
				(unsigned long long)e->fs_block, e->log_block, e->sequence);
		break;
	case STALEFS_JW_END:
		switch (e->end_reason) {
		case STALEFS_JW_END_EMPTY:
			fprintf(ld->out, "The journal is empty (s_start is 0); -O shows what is left in it.\n");
			break;
		case STALEFS_JW_END_NO_MAGIC:
			fprintf(ld->out, "No magic number at block %u: end of journal.\n", e->log_block);
			break;
		case STALEFS_JW_END_SEQUENCE:
			fprintf(ld->out, "Found sequence %u (not %u) at block %u: end of journal.\n", e->sequence,
				e->expected, e->log_block);
			break;
		case STALEFS_JW_END_BLOCKTYPE:
			fprintf(ld->out, "Unexpected block type %u (%s) at block %u: end of journal.\n", e->blocktype,
				type_name(e->blocktype), e->log_block);
			break;
		case STALEFS_JW_END_LAP:
			fprintf(ld->out, "Went once round the log at block %u: end of dump.\n", e->log_block);
			break;
		default:
			fprintf(ld->out, "Cannot read log block %u: %s\n", e->log_block, error_message(e->err));
		}
		break;
	}
	return 0;
}

/* -b: the block bitmap block (and bit) of the block's group. */
static void locate_bitmap(struct logdump *ld)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	u32 grp = stalefs_block_group(g, ld->block);
	u64 bit = ld->block - stalefs_group_first_block(g, grp);

	ld->bitmap_block = le64_to_cpu(dbg.fs->groups[grp].desc.bg_block_bitmap) + bit / (8ULL * g->block_size);
	ld->bitmap_bit = (u32)(bit % (8ULL * g->block_size));
}

static bool parse_logdump(int argc, const char *const *argv, struct logdump *ld, bool *use_sb, int *walk_flags,
			  const char **spec)
{
	int c;

	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "ab:ci:sO")) != -1) {
		switch (c) {
		case 'a': ld->all = true; break;
		case 'c': ld->contents = true; break;
		case 's': *use_sb = true; break;
		case 'O': *walk_flags |= STALEFS_JWALK_OLD; break;
		case 'b':
			if (!dbg_need_fs(argv[0]) || !dbg_parse_block(argv[0], optarg, &ld->block))
				return false;
			ld->descriptors = false;
			break;
		case 'i':
			*spec = optarg;
			ld->descriptors = false;
			break;
		default:
			dbg_usage(argv[0], LOGDUMP_USAGE);
			return false;
		}
	}
	if (argc - optind > 1) {
		dbg_usage(argv[0], LOGDUMP_USAGE);
		return false;
	}
	return true;
}

DBG_CMD(do_logdump)
{
	struct logdump ld = { stdout, false, false, true, ANY_BLOCK, ANY_BLOCK, 0, ANY_BLOCK, 0, 0 };
	struct stalefs_journal *j;
	const char *spec = NULL;
	bool use_sb = false;
	int walk_flags = 0;
	errcode_t err;
	u64 start;

	(void)sci_idx; (void)info;
	if (!parse_logdump(argc, argv, &ld, &use_sb, &walk_flags, &spec) || !dbg_need_fs(argv[0]))
		return;
	if (!(le32_to_cpu(dbg.fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL)) {
		dbg_msg(argv[0], "the filesystem has no journal");
		return;
	}
	if (spec) {
		u32 off;

		if (!dbg_name_to_ino(argv[0], spec, &ld.ino))
			return;
		stalefs_ino_locate(&dbg.fs->geom, &dbg.fs->groups[stalefs_ino_group(&dbg.fs->geom, ld.ino)].desc,
				   ld.ino, &ld.inode_block, &off);
		ld.inode_offset = off;
		printf("Inode %u is at group %u, block %llu, offset %u\n", ld.ino,
		       stalefs_ino_group(&dbg.fs->geom, ld.ino), (unsigned long long)ld.inode_block, off);
	}
	if (ld.block != ANY_BLOCK)
		locate_bitmap(&ld);
	err = stalefs_journal_open(dbg.fs, STALEFS_JOURNAL_FORCE, &j);
	if (err) {
		dbg_err(argv[0], err, "opening the journal");
		return;
	}
	if (j->jsb_rule && !use_sb) {
		dbg_msg(argv[0], "journal superblock: %s (-s dumps it with the filesystem superblock's geometry)",
			stalefs_jsb_rule_msg(j->jsb_rule));
		stalefs_journal_close(j);
		return;
	}
	if (optind < argc) {
		ld.out = fopen(argv[optind], "w");
		if (!ld.out) {
			dbg_err(argv[0], errno, "opening %s for logdump", argv[optind]);
			stalefs_journal_close(j);
			return;
		}
	}
	start = le64_to_cpu(dbg.fs->sb.s_journal_block);
	fprintf(ld.out, "Journal at block %llu (group %u), %u blocks; journal superblock: %s\n",
		(unsigned long long)start, stalefs_block_group(&dbg.fs->geom, start), j->maxlen,
		j->jsb_rule ? stalefs_jsb_rule_msg(j->jsb_rule) : "ok");
	fprintf(ld.out, "Journal starts at block %u, transaction %u\n", be32toh(j->jsb.s_start),
		be32toh(j->jsb.s_sequence));
	err = stalefs_journal_walk(j, walk_flags, logdump_entry, &ld);
	if (err)
		dbg_err(argv[0], err, "walking the journal");
	if (ld.out != stdout && fclose(ld.out) != 0)
		dbg_err(argv[0], errno, "writing %s", argv[optind]);
	stalefs_journal_close(j);
}
