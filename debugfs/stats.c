// SPDX-License-Identifier: GPL-2.0
/* stats: the superblock, features, the permitted group and every group descriptor. */
#include <getopt.h>
#include "debugfs.h"
#include "fields.h"

static void print_features(FILE *f, int kind, u32 mask, bool json)
{
	u32 bit;
	bool first = true;

	for (bit = 0; bit < 32; bit++) {
		const char *name;
		char raw[32];

		if (!(mask & (1u << bit)))
			continue;
		name = stalefs_feature_name(kind, 1u << bit);
		if (!name) {
			snprintf(raw, sizeof(raw), "FEATURE_%c%u", "CRI"[kind], bit);
			name = raw;
		}
		if (json) {
			fputs(first ? "" : ",", f);
			json_str(f, name);
		} else {
			printf(" %s", name);
		}
		first = false;
	}
}

/* ---- the journal: where, its superblock's state, and whether it needs recovery ---- */
struct journal_info {
	bool present, readable, csum_ok, needs_recovery;
	u64 block;
	u32 blocks, group;
	int rule;			/* the journal superblock's verdict */
	struct stalefs_jbd2_super jsb;
	u32 orphans;			/* inodes flagged ORPHAN, per the descriptors */
};

static void journal_info(struct journal_info *ji)
{
	const struct stalefs_super_block *sb = &dbg.fs->sb;
	u32 g;

	memset(ji, 0, sizeof(*ji));
	ji->present = le32_to_cpu(sb->s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
	ji->needs_recovery = le32_to_cpu(sb->s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER;
	for (g = 0; g < dbg.fs->geom.groups_count; g++)
		ji->orphans += le32_to_cpu(dbg.fs->groups[g].desc.bg_orphan_count);
	if (!ji->present)
		return;
	ji->block = le64_to_cpu(sb->s_journal_block);
	ji->blocks = le32_to_cpu(sb->s_journal_blocks);
	ji->group = stalefs_block_group(&dbg.fs->geom, ji->block);
	ji->readable = stalefs_journal_read_super(dbg.fs, &ji->jsb) == 0;
	if (!ji->readable)
		return;
	ji->rule = stalefs_jsb_verify(&ji->jsb, sb);
	ji->csum_ok = be32toh(ji->jsb.s_checksum) == stalefs_jsb_csum(&ji->jsb);
}

/* jbd2 feature names, as dumpe2fs prints them (JSON gets the short ones). */
static const struct {
	int kind;		/* 0 compat, 1 incompat, 2 ro_compat */
	u32 bit;
	const char *name, *json;
} jfeatures[] = {
	{ 0, STALEFS_JBD2_COMPAT_CHECKSUM, "journal_checksum", "checksum" },
	{ 1, STALEFS_JBD2_INCOMPAT_REVOKE, "journal_incompat_revoke", "revoke" },
	{ 1, STALEFS_JBD2_INCOMPAT_64BIT, "journal_64bit", "64bit" },
	{ 1, STALEFS_JBD2_INCOMPAT_ASYNC_COMMIT, "journal_async_commit", "async_commit" },
	{ 1, STALEFS_JBD2_INCOMPAT_CSUM_V2, "journal_checksum_v2", "csum_v2" },
	{ 1, STALEFS_JBD2_INCOMPAT_CSUM_V3, "journal_checksum_v3", "csum_v3" },
	{ 1, STALEFS_JBD2_INCOMPAT_FAST_COMMIT, "journal_fast_commit", "fast_commit" },
};

static void print_jfeatures(const struct stalefs_jbd2_super *jsb, bool json)
{
	u32 masks[3] = { be32toh(jsb->s_feature_compat), be32toh(jsb->s_feature_incompat),
			 be32toh(jsb->s_feature_ro_compat) };
	bool first = true;
	size_t i;
	int k;
	u32 bit;

	for (i = 0; i < sizeof(jfeatures) / sizeof(jfeatures[0]); i++) {
		if (!(masks[jfeatures[i].kind] & jfeatures[i].bit))
			continue;
		masks[jfeatures[i].kind] &= ~jfeatures[i].bit;
		if (json) {
			fputs(first ? "" : ",", stdout);
			json_str(stdout, jfeatures[i].json);
		} else {
			printf(" %s", jfeatures[i].name);
		}
		first = false;
	}
	/* Bits nobody knows, by kind and number. */
	for (k = 0; k < 3; k++)
		for (bit = 0; bit < 32; bit++) {
			char raw[32];

			if (!(masks[k] & (1u << bit)))
				continue;
			snprintf(raw, sizeof(raw), "journal_%s_%u", k == 0 ? "compat" : k == 1 ? "incompat" : "ro_compat",
				 bit);
			if (json) {
				fputs(first ? "" : ",", stdout);
				json_str(stdout, raw);
			} else {
				printf(" %s", raw);
			}
			first = false;
		}
}

static void journal_text(void)
{
	struct journal_info ji;
	const struct stalefs_jbd2_super *j = &ji.jsb;

	journal_info(&ji);
	if (!ji.present) {
		printf("Journal:                  <none>\n");
	} else {
		printf("Journal:                  %u blocks at block %llu (group %u)\n", ji.blocks,
		       (unsigned long long)ji.block, ji.group);
		if (!ji.readable) {
			printf("Journal superblock:       cannot be read  *** BAD ***\n");
		} else {
			printf("Journal superblock:       %s%s\n", ji.rule ? stalefs_jsb_rule_msg(ji.rule) : "ok",
			       ji.rule ? "  *** BAD ***" : "");
			printf("Journal features:        ");
			print_jfeatures(j, false);
			printf("\n");
			printf("Journal checksum type:    %s (%u)\n",
			       j->s_checksum_type == STALEFS_JBD2_CRC32C_CHKSUM ? "crc32c" : "unknown", j->s_checksum_type);
			printf("Journal checksum:         0x%08x (%s)\n", be32toh(j->s_checksum), ji.csum_ok ? "ok" : "bad");
			printf("Journal sequence:         0x%08x (%u)\n", be32toh(j->s_sequence), be32toh(j->s_sequence));
			printf("Journal start:            %u%s\n", be32toh(j->s_start), j->s_start ? "" : " (empty)");
			printf("Journal errno:            %d\n", (int)be32toh(j->s_errno));
		}
	}
	printf("Needs recovery:           %s\n", ji.needs_recovery ? "yes" : "no");
	printf("Orphan inodes:            %u\n", ji.orphans);
}

static void journal_json(void)
{
	struct journal_info ji;
	const struct stalefs_jbd2_super *j = &ji.jsb;

	journal_info(&ji);
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
			print_jfeatures(j, true);
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
	print_features(stdout, 0, le32_to_cpu(sb->s_feature_compat), true);
	printf("],\"ro_compat\":[");
	print_features(stdout, 1, le32_to_cpu(sb->s_feature_ro_compat), true);
	printf("],\"incompat\":[");
	print_features(stdout, 2, le32_to_cpu(sb->s_feature_incompat), true);
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

static void stats_text(bool header_only)
{
	const struct stalefs_super_block *sb = &dbg.fs->sb;
	int rule = stalefs_verify_super(sb);
	u32 g, dirs, sg = le32_to_cpu(sb->s_stale_gid);
	const u8 *u = sb->s_uuid;
	char t[64];

	if (!rule)
		rule = stalefs_verify_super_csum(sb);
	printf("Filesystem volume name:   %.32s\n", sb->s_volume_name[0] ? sb->s_volume_name : "<none>");
	printf("Filesystem UUID:          %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
	       u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	printf("Filesystem magic number:  0x%08X\n", le32_to_cpu(sb->s_magic));
	printf("Filesystem revision #:    %u\n", le32_to_cpu(sb->s_rev_level));
	printf("Superblock checksum:      0x%08x\n", le32_to_cpu(sb->s_checksum));
	printf("Superblock verdict:       %s%s\n", rule ? stalefs_rule_msg(rule) : "ok", rule ? "  *** BAD ***" : "");
	printf("Filesystem features:     ");
	print_features(stdout, 0, le32_to_cpu(sb->s_feature_compat), false);
	print_features(stdout, 1, le32_to_cpu(sb->s_feature_ro_compat), false);
	print_features(stdout, 2, le32_to_cpu(sb->s_feature_incompat), false);
	printf("\n");
	if (sg == STALEFS_STALE_GID_NONE)
		printf("Stale gid (permitted):    <none>\n");
	else
		printf("Stale gid (permitted):    %u\n", sg);
	printf("Filesystem state:         %s%s\n",
	       (le16_to_cpu(sb->s_state) & STALEFS_STATE_CLEAN) ? "clean" : "not clean",
	       (le16_to_cpu(sb->s_state) & STALEFS_STATE_ERRORS) ? " with errors" : "");
	printf("Errors behavior:          %u\n", le16_to_cpu(sb->s_errors));
	printf("Block size:               %u\n", dbg.fs->block_size);
	printf("Block count:              %llu\n", (unsigned long long)le64_to_cpu(sb->s_blocks_count));
	printf("Free blocks:              %llu\n", (unsigned long long)le64_to_cpu(sb->s_free_blocks_count));
	printf("Reserved block count:     %llu\n", (unsigned long long)le64_to_cpu(sb->s_r_blocks_count));
	printf("Inode count:              %u\n", le32_to_cpu(sb->s_inodes_count));
	printf("Free inodes:              %u\n", le32_to_cpu(sb->s_free_inodes_count));
	printf("Blocks per group:         %u\n", le32_to_cpu(sb->s_blocks_per_group));
	printf("Inodes per group:         %u\n", le32_to_cpu(sb->s_inodes_per_group));
	printf("Group count:              %u\n", le32_to_cpu(sb->s_groups_count));
	printf("GDT blocks:               %u\n", le32_to_cpu(sb->s_gdt_blocks));
	printf("First inode:              %u\n", le32_to_cpu(sb->s_first_ino));
	printf("Lost+found inode:         %u\n", le32_to_cpu(sb->s_lpf_ino));
	printf("Checksum seed:            0x%08x\n", le32_to_cpu(sb->s_csum_seed));
	dbg_time_string((s64)le64_to_cpu(sb->s_mkfs_time), t, sizeof(t));
	printf("Filesystem created:       %s\n", t);
	dbg_time_string((s64)le64_to_cpu(sb->s_wtime), t, sizeof(t));
	printf("Last write time:          %s\n", t);
	printf("Mount count:              %u\n", le32_to_cpu(sb->s_mnt_count));
	printf("Error count:              %u\n", le32_to_cpu(sb->s_error_count));
	if (dbg.fs->sb_block)
		printf("Opened from backup superblock at block %llu\n", (unsigned long long)dbg.fs->sb_block);
	journal_text();
	if (header_only)
		return;
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
