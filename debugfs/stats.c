// SPDX-License-Identifier: GPL-2.0
/* stats: the superblock, features, the permitted group and every group descriptor. */
#include <getopt.h>
#include "debugfs.h"
#include "fields.h"

static void journal_json(void)
{
	struct stalefs_journal_info ji;
	const struct stalefs_jbd2_super *j = &ji.jsb;

	stalefs_journal_info(dbg.fs, &ji);
	printf(",\"journal\":{\"present\":%s,\"needs_recovery\":%s", ji.present ? "true" : "false",
	       ji.needs_recovery ? "true" : "false");
	if (ji.present) {
		printf(",\"block\":%llu,\"blocks\":%u,\"group\":%u,\"superblock_readable\":%s",
		       (unsigned long long)ji.block, ji.blocks, ji.group, ji.readable ? "true" : "false");
		if (ji.readable) {
			printf(",\"superblock_verdict\":");
			json_str(stdout, ji.rule ? stalefs_jsb_rule_msg(ji.rule) : "ok");
			printf(",\"sequence\":%u,\"start\":%u,\"errno\":%d,\"features\":[", be32toh(j->s_sequence),
			       be32toh(j->s_start), (int)be32toh(j->s_errno));
			stalefs_print_jfeatures(stdout, j, true);
			printf("],\"checksum_type\":%u,\"checksum\":%u,\"checksum_ok\":%s", j->s_checksum_type,
			       be32toh(j->s_checksum), ji.csum_ok ? "true" : "false");
		}
	}
	printf("},\"orphan_inodes\":%u", ji.orphans);
}

static const char *desc_verdict(u32 g, int *rule_out)
{
	const struct stalefs_group_desc *d = &dbg.fs->groups[g].desc;
	int rule = stalefs_verify_desc_csum(dbg.fs->seed, g, d);

	if (!rule)
		rule = stalefs_verify_desc(&dbg.fs->geom, g, d);
	*rule_out = rule;
	return rule ? stalefs_rule_msg(rule) : "ok";
}

/* Every scalar field of a structure, by the names sif/ssv/set_bg use. */
static void json_fields(const struct field *table, const u8 *base)
{
	const struct field *f;

	for (f = table; f->name; f++) {
		const u8 *p = base + f->offset;

		if (f->stride)
			continue;	/* reserved byte arrays */
		printf("\"%s\":", f->name);
		switch (f->kind) {
		case F_STRING:
			json_strn(stdout, (const char *)p, strnlen((const char *)p, f->size));
			break;
		case F_UUID:
			printf("\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\"", p[0], p[1],
			       p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15]);
			break;
		case F_TIME:
			printf("%lld", (long long)(s64)field_get_le(p, f->size));
			break;
		default:
			printf("%llu", (unsigned long long)field_get_le(p, f->size));
		}
		printf(",");
	}
}

static void stats_json(bool header_only)
{
	const struct stalefs_super_block *sb = &dbg.fs->sb;
	int rule = stalefs_verify_super(sb);
	u32 g;

	if (!rule)
		rule = stalefs_verify_super_csum(sb);
	printf("{\"superblock\":{");
	json_fields(super_fields, (const u8 *)sb);
	printf("\"verdict\":");
	json_str(stdout, rule ? stalefs_rule_msg(rule) : "ok");
	printf(",\"block_size\":%u,\"stale_gid_recorded\":%s,\"features\":{\"compat\":[", dbg.fs->block_size,
	       le32_to_cpu(sb->s_stale_gid) == STALEFS_STALE_GID_NONE ? "false" : "true");
	stalefs_print_features(stdout, 0, le32_to_cpu(sb->s_feature_compat), true);
	printf("],\"ro_compat\":[");
	stalefs_print_features(stdout, 1, le32_to_cpu(sb->s_feature_ro_compat), true);
	printf("],\"incompat\":[");
	stalefs_print_features(stdout, 2, le32_to_cpu(sb->s_feature_incompat), true);
	printf("]}}");
	journal_json();
	if (!header_only) {
		printf(",\"groups\":[");
		for (g = 0; g < dbg.fs->geom.groups_count; g++) {
			int r;
			const char *v = desc_verdict(g, &r);

			printf("%s{\"group\":%u,", g ? "," : "", g);
			json_fields(desc_fields, (const u8 *)&dbg.fs->groups[g].desc);
			printf("\"verdict\":");
			json_str(stdout, v);
			printf("}");
		}
		printf("]");
	}
	printf("}\n");
}

/*
 * Where group g keeps a superblock copy and descriptor blocks, as dumpe2fs says it (a grow
 * writes them for its new groups; FORMAT.md 1 and 4).
 */
static void print_copies(u32 g)
{
	const struct stalefs_geom *geom = &dbg.fs->geom;
	u32 n = stalefs_group_gdt_blocks(geom, g);
	u64 first = stalefs_group_first_block(geom, g);
	u64 gdt = first + stalefs_group_super_blocks(geom, g) - n;

	if (!stalefs_group_super_blocks(geom, g))
		return;
	printf("           ");
	if (stalefs_group_has_super(geom, g))
		printf("%s superblock at %llu%s", g ? "Backup" : "Primary",
		       (unsigned long long)(g ? first : geom->sb_block), n ? ", " : "");
	if (n == 1 && !stalefs_group_in_table(geom, g))
		printf("Group descriptors (meta_bg block %u) at %llu", stalefs_gdt_index(geom, g),
		       (unsigned long long)gdt);
	else if (n)
		printf("Group descriptors at %llu-%llu", (unsigned long long)gdt, (unsigned long long)(gdt + n - 1));
	printf("\n");
}

/* The superblock and journal part is the library's (tunefs -l prints the same); the groups are ours. */
static void stats_text(bool header_only)
{
	u32 g, dirs;
	u64 dev_bytes;

	stalefs_print_super(stdout, dbg.fs);
	if (header_only)
		return;
	/* The size the device offers, against the one the superblock claims (a resize's business). */
	if (!stalefs_io_size(dbg.fs->io, &dev_bytes))
		printf("Device size:              %llu blocks%s\n", (unsigned long long)(dev_bytes / dbg.fs->block_size),
		       dev_bytes / dbg.fs->block_size < dbg.fs->geom.blocks_count ? "  *** smaller than the filesystem ***" : "");
	dirs = 0;
	for (g = 0; g < dbg.fs->geom.groups_count; g++)
		dirs += le32_to_cpu(dbg.fs->groups[g].desc.bg_used_dirs_count);
	printf("Directories:              %u\n", dirs);
	for (g = 0; g < dbg.fs->geom.groups_count; g++) {
		const struct stalefs_group_desc *d = &dbg.fs->groups[g].desc;
		u16 fl = le16_to_cpu(d->bg_flags);
		int r;
		const char *v = desc_verdict(g, &r);

		printf(" Group %3u: block bitmap at %llu, inode bitmap at %llu, inode table at %llu\n",
		       g, (unsigned long long)le64_to_cpu(d->bg_block_bitmap),
		       (unsigned long long)le64_to_cpu(d->bg_inode_bitmap),
		       (unsigned long long)le64_to_cpu(d->bg_inode_table));
		printf("           %u free blocks, %u free inodes, %u used directories, %u unused inodes",
		       le32_to_cpu(d->bg_free_blocks_count), le32_to_cpu(d->bg_free_inodes_count),
		       le32_to_cpu(d->bg_used_dirs_count), le32_to_cpu(d->bg_itable_unused));
		/* Orphans only when there are some: the line stays as it was otherwise. */
		if (d->bg_orphan_count)
			printf(", %u orphan inodes", le32_to_cpu(d->bg_orphan_count));
		printf("\n");
		print_copies(g);
		printf("           [%s%s%s] checksum 0x%08x (%s)%s\n",
		       (fl & STALEFS_BG_INODE_UNINIT) ? "Inode not init" : "",
		       (fl & STALEFS_BG_INODE_UNINIT) && (fl & STALEFS_BG_BLOCK_UNINIT) ? ", " : "",
		       (fl & STALEFS_BG_BLOCK_UNINIT) ? "Block not init" : "", le32_to_cpu(d->bg_checksum), v,
		       r ? "  *** BAD ***" : "");
	}
}

DBG_CMD(do_show_super_stats)
{
	int c;
	bool header_only = false;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "h")) != -1) {
		if (c != 'h') {
			dbg_usage(argv[0], "[-h]");
			return;
		}
		header_only = true;
	}
	if (optind != argc) {
		dbg_usage(argv[0], "[-h]");
		return;
	}
	if (!dbg_need_fs(argv[0]))
		return;
	if (dbg.json)
		stats_json(header_only);
	else
		stats_text(header_only);
}
