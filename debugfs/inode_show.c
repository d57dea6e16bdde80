// SPDX-License-Identifier: GPL-2.0
/* Looking at one inode: stat, ex/dump_extents, blocks, bmap, imap, idump. */
#include <getopt.h>
#include <stdlib.h>
#include "debugfs.h"

static const struct { u32 bit; const char *name; } inode_flags[] = {
	{ STALEFS_INODE_STALE_FL, "STALE" },
	{ STALEFS_INODE_SECRM_FL, "SECRM" },
	{ STALEFS_INODE_SYNC_FL, "SYNC" },
	{ STALEFS_INODE_IMMUTABLE_FL, "IMMUTABLE" },
	{ STALEFS_INODE_APPEND_FL, "APPEND" },
	{ STALEFS_INODE_NODUMP_FL, "NODUMP" },
	{ STALEFS_INODE_NOATIME_FL, "NOATIME" },
	{ STALEFS_INODE_INLINE_FL, "INLINE" },
};

static void flag_names(u32 flags, char *out, size_t len)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i < sizeof(inode_flags) / sizeof(inode_flags[0]); i++)
		if (flags & inode_flags[i].bit)
			snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", inode_flags[i].name);
}

/* Parse "FILE" into inode number and raw inode; failures reported. */
static bool get_inode(const char *cmd, const char *name, u32 *ino, struct stalefs_inode *inode, int *rule)
{
	return dbg_name_to_ino(cmd, name, ino) && dbg_read_inode(cmd, *ino, inode, rule);
}

/* ---- stat ---- */
static const char *node_where(const struct stalefs_xnode *n)
{
	static char buf[48];

	if (n->level == 0)
		return "in inode";
	snprintf(buf, sizeof(buf), "at block %llu", (unsigned long long)n->block);
	return buf;
}

struct stat_ctx {
	bool json, first;
	u64 stale_blocks, unwritten_blocks;
	int printed;
};

static void json_flags(u16 flags)
{
	bool first = true;

	printf("[");
	if (flags & STALEFS_EXT_UNWRITTEN) {
		printf("\"UNWRITTEN\"");
		first = false;
	}
	if (flags & STALEFS_EXT_STALE) {
		printf("%s\"STALE\"", first ? "" : ",");
		first = false;
	}
	if (flags & ~STALEFS_EXT_FLAGS_ALL)
		printf("%s\"0x%x\"", first ? "" : ",", flags & ~STALEFS_EXT_FLAGS_ALL);
	printf("]");
}

static int stat_node(stalefs_fs *fs, const struct stalefs_xnode *n, void *priv)
{
	(void)fs;
	struct stat_ctx *c = priv;

	if (!stalefs_xnode_problem(n))
		return 0;
	if (c->json)
		return 0;	/* reported in the "bad_nodes" count */
	printf("  ** extent node %s: %s **\n", node_where(n), stalefs_xnode_problem(n));
	return 0;
}

static int stat_entry(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	(void)fs;
	struct stat_ctx *c = priv;

	if (e->is_index)
		return 0;
	if (e->flags & STALEFS_EXT_STALE)
		c->stale_blocks += e->len;
	if (e->flags & STALEFS_EXT_UNWRITTEN)
		c->unwritten_blocks += e->len;
	if (c->json) {
		printf("%s{\"lblk\":%u,\"len\":%u,\"pblk\":%llu,\"flags\":", c->first ? "" : ",", e->lblk, e->len,
		       (unsigned long long)e->pblk);
		json_flags(e->flags);
		printf("}");
		c->first = false;
		return 0;
	}
	printf("%s(%u", c->printed % 4 ? ", " : (c->printed ? "\n  " : "  "), e->lblk);
	if (e->len > 1)
		printf("-%llu", (unsigned long long)e->lblk + e->len - 1);
	printf("):%llu", (unsigned long long)e->pblk);
	if (e->len > 1)
		printf("-%llu", (unsigned long long)e->pblk + e->len - 1);
	if (e->flags)
		printf(" [%s]", dbg_ext_flags(e->flags));
	c->printed++;
	return 0;
}

static void print_time(const char *name, u64 sec, u32 nsec)
{
	char t[64];

	dbg_time_string((s64)sec, t, sizeof(t));
	printf("%6s: 0x%016llx:%08x -- %s\n", name, (unsigned long long)sec, nsec, t);
}

static void stat_text(u32 ino, const struct stalefs_inode *in, int rule)
{
	u16 mode = le16_to_cpu(in->i_mode);
	u32 flags = le32_to_cpu(in->i_flags);
	char fl[128];
	struct stat_ctx c = { .json = false };
	int bad = 0;

	flag_names(flags, fl, sizeof(fl));
	printf("Inode: %u   Type: %s    Mode:  %04o   Flags: 0x%x%s%s%s\n", ino, dbg_mode_type(mode), mode & 07777,
	       flags, fl[0] ? " [" : "", fl, fl[0] ? "]" : "");
	printf("Generation: %u    Version: 1\n", le32_to_cpu(in->i_generation));
	printf("User: %5u   Group: %5u   Size: %llu\n", le32_to_cpu(in->i_uid), le32_to_cpu(in->i_gid),
	       (unsigned long long)le64_to_cpu(in->i_size));
	printf("File ACL: %llu\n", (unsigned long long)le64_to_cpu(in->i_xattr_block));
	printf("Links: %u   Blockcount: %llu\n", le16_to_cpu(in->i_links_count),
	       (unsigned long long)le64_to_cpu(in->i_blocks));
	if (le32_to_cpu(in->i_rdev))
		printf("Device: %u (major %u, minor %u)\n", le32_to_cpu(in->i_rdev),
		       (le32_to_cpu(in->i_rdev) & 0xfff00) >> 8,
		       (le32_to_cpu(in->i_rdev) & 0xff) | ((le32_to_cpu(in->i_rdev) >> 12) & 0xfff00));
	print_time("ctime", le64_to_cpu(in->i_ctime), le32_to_cpu(in->i_ctime_nsec));
	print_time("atime", le64_to_cpu(in->i_atime), le32_to_cpu(in->i_atime_nsec));
	print_time("mtime", le64_to_cpu(in->i_mtime), le32_to_cpu(in->i_mtime_nsec));
	print_time("crtime", le64_to_cpu(in->i_crtime), le32_to_cpu(in->i_crtime_nsec));
	if (le64_to_cpu(in->i_dtime))
		print_time("dtime", le64_to_cpu(in->i_dtime), 0);
	printf("Inode checksum: 0x%08x (%s)   Self number: %u%s\n", le32_to_cpu(in->i_checksum),
	       rule ? stalefs_rule_msg(rule) : "ok", le32_to_cpu(in->i_ino),
	       dbg.fs->bitmaps_loaded && !stalefs_test_inode(dbg.fs, ino) ? "   (not in use in the inode bitmap)" : "");
	if (le16_to_cpu(in->i_mode))
		dbg_stat_xattrs(ino, in);
	if ((flags & STALEFS_INODE_INLINE_FL) && (mode & STALEFS_S_IFMT) == STALEFS_S_IFLNK) {
		u64 sz = le64_to_cpu(in->i_size);

		printf("Fast link dest: \"%.*s\"\n", (int)(sz < STALEFS_IBLOCK_SIZE ? sz : STALEFS_IBLOCK_SIZE),
		       (const char *)in->i_block);
		return;
	}
	if (!stalefs_inode_has_extents(in))
		return;
	printf("EXTENTS:\n");
	bad = stalefs_extent_scan(dbg.fs, ino, in, &(struct stalefs_xscan_ops){ .node = stat_node, .entry = stat_entry }, &c);
	if (c.printed)
		printf("\n");
	if (c.stale_blocks)
		printf("*** STALE: %llu block(s) allocated without zeroing (old contents exposed); group %u, %s ***\n",
		       (unsigned long long)c.stale_blocks, le32_to_cpu(in->i_gid),
		       dbg_confined(le32_to_cpu(in->i_gid), mode) ? "confined" : "NOT CONFINED");
	if (c.unwritten_blocks)
		printf("Unwritten: %llu block(s)\n", (unsigned long long)c.unwritten_blocks);
	if (bad > 0)
		printf("*** %d bad extent node(s) ***\n", bad);
}

static void stat_json(u32 ino, const struct stalefs_inode *in, int rule)
{
	u16 mode = le16_to_cpu(in->i_mode);
	u32 flags = le32_to_cpu(in->i_flags);
	struct stat_ctx c = { .json = true, .first = true };
	size_t i;
	bool first = true;
	int bad = 0;

	printf("{\"ino\":%u,\"type\":", ino);
	json_str(stdout, dbg_mode_type(mode));
	printf(",\"mode\":%u,\"flags\":%u,\"flag_names\":[", mode, flags);
	for (i = 0; i < sizeof(inode_flags) / sizeof(inode_flags[0]); i++)
		if (flags & inode_flags[i].bit) {
			printf("%s\"%s\"", first ? "" : ",", inode_flags[i].name);
			first = false;
		}
	printf("],\"uid\":%u,\"gid\":%u,\"size\":%llu,\"links_count\":%u,\"blocks\":%llu,\"generation\":%u,"
	       "\"atime\":%lld,\"atime_nsec\":%u,\"ctime\":%lld,\"ctime_nsec\":%u,\"mtime\":%lld,\"mtime_nsec\":%u,"
	       "\"crtime\":%lld,\"crtime_nsec\":%u,\"dtime\":%lld,\"rdev\":%u,\"self_ino\":%u,\"checksum\":%u,"
	       "\"verdict\":",
	       le32_to_cpu(in->i_uid), le32_to_cpu(in->i_gid), (unsigned long long)le64_to_cpu(in->i_size),
	       le16_to_cpu(in->i_links_count), (unsigned long long)le64_to_cpu(in->i_blocks),
	       le32_to_cpu(in->i_generation), (long long)le64_to_cpu(in->i_atime), le32_to_cpu(in->i_atime_nsec),
	       (long long)le64_to_cpu(in->i_ctime), le32_to_cpu(in->i_ctime_nsec),
	       (long long)le64_to_cpu(in->i_mtime), le32_to_cpu(in->i_mtime_nsec),
	       (long long)le64_to_cpu(in->i_crtime), le32_to_cpu(in->i_crtime_nsec),
	       (long long)le64_to_cpu(in->i_dtime), le32_to_cpu(in->i_rdev), le32_to_cpu(in->i_ino),
	       le32_to_cpu(in->i_checksum));
	json_str(stdout, rule ? stalefs_rule_msg(rule) : "ok");
	if ((flags & STALEFS_INODE_INLINE_FL) && (mode & STALEFS_S_IFMT) == STALEFS_S_IFLNK) {
		u64 sz = le64_to_cpu(in->i_size);

		printf(",\"link_target\":");
		json_strn(stdout, (const char *)in->i_block, sz < STALEFS_IBLOCK_SIZE ? sz : STALEFS_IBLOCK_SIZE);
	}
	if (le16_to_cpu(in->i_mode))
		dbg_stat_xattrs_json(ino, in);
	printf(",\"extents\":[");
	if (stalefs_inode_has_extents(in))
		bad = stalefs_extent_scan(dbg.fs, ino, in, &(struct stalefs_xscan_ops){ .node = stat_node, .entry = stat_entry }, &c);
	printf("],\"stale_blocks\":%llu,\"unwritten_blocks\":%llu,\"confined\":%s,\"bad_extent_nodes\":%d}\n",
	       (unsigned long long)c.stale_blocks, (unsigned long long)c.unwritten_blocks,
	       dbg_confined(le32_to_cpu(in->i_gid), mode) ? "true" : "false", bad > 0 ? bad : 0);
}

DBG_CMD(do_stat)
{
	struct stalefs_inode inode;
	u32 ino;
	int rule;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<file>") || !dbg_need_fs(argv[0]))
		return;
	if (!get_inode(argv[0], argv[1], &ino, &inode, &rule))
		return;
	if (dbg.json)
		stat_json(ino, &inode, rule);
	else
		stat_text(ino, &inode, rule);
}

/* ---- ex / dump_extents ---- */
struct ex_ctx {
	bool json, first, leaf_only, index_only;
};

static int ex_node(stalefs_fs *fs, const struct stalefs_xnode *n, void *priv)
{
	(void)fs;
	struct ex_ctx *c = priv;

	if (c->json) {
		printf("%s{\"node\":true,\"level\":%u,\"block\":%llu,\"entries\":%u,\"max\":%u,\"depth\":%u,\"verdict\":",
		       c->first ? "" : ",", n->level, (unsigned long long)n->block, n->entries, n->max, n->depth);
		json_str(stdout, stalefs_xnode_problem(n) ? stalefs_xnode_problem(n) : "ok");
		printf("}");
		c->first = false;
		return 0;
	}
	printf("%*sNode %s: level %u, depth %u, %u/%u entries%s%s%s\n", (int)n->level * 2, "", node_where(n), n->level,
	       n->depth, n->entries, n->max, stalefs_xnode_problem(n) ? "  *** BAD: " : "",
	       stalefs_xnode_problem(n) ? stalefs_xnode_problem(n) : "", stalefs_xnode_problem(n) ? " ***" : "");
	return 0;
}

static int ex_entry(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	(void)fs;
	struct ex_ctx *c = priv;
	const struct stalefs_xnode *n = e->node;

	if ((c->leaf_only && e->is_index) || (c->index_only && !e->is_index))
		return 0;
	if (c->json) {
		printf(",{\"level\":%u,\"node_block\":%llu,\"index\":%u,\"is_index\":%s,\"lblk\":%u,\"len\":%u,"
		       "\"pblk\":%llu,\"flags\":", n->level, (unsigned long long)n->block, e->index,
		       e->is_index ? "true" : "false", e->lblk, e->len, (unsigned long long)e->pblk);
		json_flags(e->flags);
		printf("}");
		return 0;
	}
	if (e->is_index) {
		printf("%*s  %3u/%-3u  index  lblk %u -> node at block %llu\n", (int)n->level * 2, "", e->index + 1,
		       n->entries, e->lblk, (unsigned long long)e->pblk);
		return 0;
	}
	printf("%*s  %3u/%-3u %10u - %-10llu  %12llu - %-12llu  len %5u%s%s%s\n", (int)n->level * 2, "",
	       e->index + 1, n->entries, e->lblk, (unsigned long long)e->lblk + (e->len ? e->len - 1 : 0),
	       (unsigned long long)e->pblk, (unsigned long long)e->pblk + (e->len ? e->len - 1 : 0), e->len,
	       e->flags ? "  " : "", e->flags ? dbg_ext_flags(e->flags) : "",
	       (e->flags & STALEFS_EXT_STALE) ? "  <<< STALE: old contents exposed" : "");
	return 0;
}

DBG_CMD(do_dump_extents)
{
	struct stalefs_inode inode;
	struct ex_ctx c = { .json = dbg.json, .first = true };
	u32 ino;
	int rule, ch, bad;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((ch = getopt(argc, (char *const *)argv, "nl")) != -1) {
		switch (ch) {
		case 'n': c.index_only = true; break;
		case 'l': c.leaf_only = true; break;
		default: dbg_usage(argv[0], "[-n] [-l] file"); return;
		}
	}
	if (optind != argc - 1) {
		dbg_usage(argv[0], "[-n] [-l] file");
		return;
	}
	if (!dbg_need_fs(argv[0]) || !get_inode(argv[0], argv[optind], &ino, &inode, &rule))
		return;
	if (!stalefs_inode_has_extents(&inode)) {
		dbg_msg(argv[0], "inode %u has no extent tree (%s%s)", ino, dbg_mode_type(le16_to_cpu(inode.i_mode)),
			(le32_to_cpu(inode.i_flags) & STALEFS_INODE_INLINE_FL) ? ", inline" : "");
		return;
	}
	if (c.json)
		printf("{\"ino\":%u,\"entries\":[", ino);
	else
		printf("Extent tree of inode %u (Level/Entries: logical range, physical range, length, flags):\n", ino);
	bad = stalefs_extent_scan(dbg.fs, ino, &inode, &(struct stalefs_xscan_ops){ .node = ex_node, .entry = ex_entry }, &c);
	if (c.json)
		printf("],\"bad_nodes\":%d}\n", bad > 0 ? bad : 0);
}

/* ---- blocks ---- */
static int blocks_entry(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	(void)fs;
	u32 i;

	(void)priv;
	if (e->is_index || e->len > STALEFS_EXT_MAX_LEN)
		return 0;
	for (i = 0; i < e->len; i++)
		printf("%llu ", (unsigned long long)e->pblk + i);
	return 0;
}

DBG_CMD(do_blocks)
{
	struct stalefs_inode inode;
	u32 ino;
	int rule;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<file>") || !dbg_need_fs(argv[0]) ||
	    !get_inode(argv[0], argv[1], &ino, &inode, &rule))
		return;
	if (stalefs_inode_has_extents(&inode))
		stalefs_extent_scan(dbg.fs, ino, &inode, &(struct stalefs_xscan_ops){ .entry = blocks_entry }, NULL);
	printf("\n");
}

/* ---- bmap ---- */
DBG_CMD(do_bmap)
{
	u32 ino, lblk;
	u64 pblk;
	u16 flags;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 2, 2, "<file> logical_blk") || !dbg_need_fs(argv[0]) ||
	    !dbg_name_to_ino(argv[0], argv[1], &ino) || !dbg_parse_u32(argv[0], argv[2], "logical block", &lblk))
		return;
	err = stalefs_bmap(dbg.fs, ino, lblk, &pblk, &flags);
	if (err) {
		dbg_err(argv[0], err, "mapping logical block %u of inode %u", lblk, ino);
		return;
	}
	if (!pblk) {
		printf("%u: hole\n", lblk);
		return;
	}
	printf("%llu%s%s\n", (unsigned long long)pblk, flags ? " " : "", flags ? dbg_ext_flags(flags) : "");
}

/* ---- imap ---- */
DBG_CMD(do_imap)
{
	u32 ino, group, offset;
	u64 block;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<file>") || !dbg_need_fs(argv[0]) ||
	    !dbg_name_to_ino(argv[0], argv[1], &ino))
		return;
	group = stalefs_ino_group(&dbg.fs->geom, ino);
	stalefs_ino_locate(&dbg.fs->geom, &dbg.fs->groups[group].desc, ino, &block, &offset);
	printf("Inode %u is part of block group %u\n\tlocated at block %llu, offset 0x%04x\n", ino, group,
	       (unsigned long long)block, offset);
}

/* ---- idump ---- */
void dbg_hexdump(const u8 *p, u32 len, u64 base)
{
	static const u8 zero16[16];
	bool starred = false;
	u32 i, j;

	for (i = 0; i < len; i += 16) {
		u32 n = len - i < 16 ? len - i : 16;

		/* Runs of zero lines collapse to one "*", as od does (the last line always shows). */
		if (i > 0 && i + 16 < len && n == 16 && !memcmp(p + i, zero16, 16) && !memcmp(p + i - 16, zero16, 16)) {
			if (!starred)
				printf("*\n");
			starred = true;
			continue;
		}
		starred = false;
		printf("%04llx  ", (unsigned long long)(base + i));
		for (j = 0; j < 16; j++) {
			if (j < n)
				printf("%02x", p[i + j]);
			else
				printf("  ");
			if (j % 2)
				printf(" ");
		}
		printf(" ");
		for (j = 0; j < n; j++)
			putchar(p[i + j] >= 0x20 && p[i + j] < 0x7f ? p[i + j] : '.');
		printf("\n");
	}
}

DBG_CMD(do_idump)
{
	struct stalefs_inode inode;
	u32 ino;
	int rule;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<file>") || !dbg_need_fs(argv[0]) ||
	    !get_inode(argv[0], argv[1], &ino, &inode, &rule))
		return;
	dbg_hexdump((const u8 *)&inode, sizeof(inode), 0);
	printf("Inode %u checksum: %s\n", ino, rule ? stalefs_rule_msg(rule) : "ok");
}
