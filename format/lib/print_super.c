// SPDX-License-Identifier: GPL-2.0
/*
 * The superblock in words: what debugfs' stats and tunefs -l print, in one
 * place so the two tools can never describe the same field differently.
 */
#include <endian.h>
#include <string.h>
#include <time.h>
#include "libstalefs.h"

void stalefs_print_features(FILE *f, int kind, u32 mask, bool json)
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
		/* Names are identifiers: quoting them is all JSON needs. */
		if (json)
			fprintf(f, "%s\"%s\"", first ? "" : ",", name);
		else
			fprintf(f, " %s", name);
		first = false;
	}
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

void stalefs_print_jfeatures(FILE *f, const struct stalefs_jbd2_super *jsb, bool json)
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
		if (json)
			fprintf(f, "%s\"%s\"", first ? "" : ",", jfeatures[i].json);
		else
			fprintf(f, " %s", jfeatures[i].name);
		first = false;
	}
	/* Bits nobody knows, by kind and number. */
	for (k = 0; k < 3; k++)
		for (bit = 0; bit < 32; bit++) {
			char raw[48];

			if (!(masks[k] & (1u << bit)))
				continue;
			snprintf(raw, sizeof(raw), "journal_%s_%u", k == 0 ? "compat" : k == 1 ? "incompat" : "ro_compat",
				 bit);
			if (json)
				fprintf(f, "%s\"%s\"", first ? "" : ",", raw);
			else
				fprintf(f, " %s", raw);
			first = false;
		}
}

void stalefs_journal_info(stalefs_fs *fs, struct stalefs_journal_info *ji)
{
	const struct stalefs_super_block *sb = &fs->sb;
	u32 g;

	memset(ji, 0, sizeof(*ji));
	ji->present = le32_to_cpu(sb->s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
	ji->needs_recovery = le32_to_cpu(sb->s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER;
	for (g = 0; g < fs->geom.groups_count; g++)
		ji->orphans += le32_to_cpu(fs->groups[g].desc.bg_orphan_count);
	if (!ji->present)
		return;
	ji->block = le64_to_cpu(sb->s_journal_block);
	ji->blocks = le32_to_cpu(sb->s_journal_blocks);
	ji->group = stalefs_block_group(&fs->geom, ji->block);
	ji->readable = stalefs_journal_read_super(fs, &ji->jsb) == 0;
	if (!ji->readable)
		return;
	ji->rule = stalefs_jsb_verify(&ji->jsb, sb);
	ji->csum_ok = be32toh(ji->jsb.s_checksum) == stalefs_jsb_csum(&ji->jsb);
}

void stalefs_time_string(s64 t, char *out, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, len, "%lld", (long long)t);
}

static void print_journal(FILE *f, stalefs_fs *fs)
{
	struct stalefs_journal_info ji;
	const struct stalefs_jbd2_super *j = &ji.jsb;

	stalefs_journal_info(fs, &ji);
	if (!ji.present) {
		fprintf(f, "Journal:                  <none>\n");
	} else {
		fprintf(f, "Journal:                  %u blocks at block %llu (group %u)\n", ji.blocks,
			(unsigned long long)ji.block, ji.group);
		if (!ji.readable) {
			fprintf(f, "Journal superblock:       cannot be read  *** BAD ***\n");
		} else {
			fprintf(f, "Journal superblock:       %s%s\n", ji.rule ? stalefs_jsb_rule_msg(ji.rule) : "ok",
				ji.rule ? "  *** BAD ***" : "");
			fprintf(f, "Journal features:        ");
			stalefs_print_jfeatures(f, j, false);
			fprintf(f, "\n");
			fprintf(f, "Journal checksum type:    %s (%u)\n",
				j->s_checksum_type == STALEFS_JBD2_CRC32C_CHKSUM ? "crc32c" : "unknown",
				j->s_checksum_type);
			fprintf(f, "Journal checksum:         0x%08x (%s)\n", be32toh(j->s_checksum),
				ji.csum_ok ? "ok" : "bad");
			fprintf(f, "Journal sequence:         0x%08x (%u)\n", be32toh(j->s_sequence),
				be32toh(j->s_sequence));
			fprintf(f, "Journal start:            %u%s\n", be32toh(j->s_start), j->s_start ? "" : " (empty)");
			fprintf(f, "Journal errno:            %d\n", (int)be32toh(j->s_errno));
		}
	}
	fprintf(f, "Needs recovery:           %s\n", ji.needs_recovery ? "yes" : "no");
	fprintf(f, "Orphan inodes:            %u\n", ji.orphans);
}

/* The schedule of checks (FORMAT.md 2): 0 turns each one off. */
static void print_schedule(FILE *f, const struct stalefs_super_block *sb)
{
	u32 max = le32_to_cpu(sb->s_max_mnt_count), interval = le32_to_cpu(sb->s_checkinterval);
	s64 last = (s64)le64_to_cpu(sb->s_lastcheck);
	char t[64];

	fprintf(f, "Mount count:              %u\n", le32_to_cpu(sb->s_mnt_count));
	if (max)
		fprintf(f, "Maximum mount count:      %u\n", max);
	else
		fprintf(f, "Maximum mount count:      0 (no mount-count check)\n");
	stalefs_time_string(last, t, sizeof(t));
	fprintf(f, "Last checked:             %s\n", t);
	if (!interval) {
		fprintf(f, "Check interval:           0 (<none>)\n");
		return;
	}
	if (interval % 86400 == 0)
		fprintf(f, "Check interval:           %u (%u days)\n", interval, interval / 86400);
	else
		fprintf(f, "Check interval:           %u seconds\n", interval);
	stalefs_time_string(last + (s64)interval, t, sizeof(t));
	fprintf(f, "Next check after:         %s\n", t);
}

void stalefs_print_super(FILE *f, stalefs_fs *fs)
{
	const struct stalefs_super_block *sb = &fs->sb;
	int rule = stalefs_verify_super(sb);
	u32 sg = le32_to_cpu(sb->s_stale_gid);
	u16 errors = le16_to_cpu(sb->s_errors);
	char t[64], uuid[37];

	if (!rule)
		rule = stalefs_verify_super_csum(sb);
	stalefs_uuid_unparse(sb->s_uuid, uuid);
	fprintf(f, "Filesystem volume name:   %.32s\n", sb->s_volume_name[0] ? sb->s_volume_name : "<none>");
	fprintf(f, "Filesystem UUID:          %s\n", uuid);
	fprintf(f, "Filesystem magic number:  0x%08X\n", le32_to_cpu(sb->s_magic));
	fprintf(f, "Filesystem revision #:    %u\n", le32_to_cpu(sb->s_rev_level));
	fprintf(f, "Superblock checksum:      0x%08x\n", le32_to_cpu(sb->s_checksum));
	fprintf(f, "Superblock verdict:       %s%s\n", rule ? stalefs_rule_msg(rule) : "ok", rule ? "  *** BAD ***" : "");
	fprintf(f, "Filesystem features:     ");
	stalefs_print_features(f, 0, le32_to_cpu(sb->s_feature_compat), false);
	stalefs_print_features(f, 1, le32_to_cpu(sb->s_feature_ro_compat), false);
	stalefs_print_features(f, 2, le32_to_cpu(sb->s_feature_incompat), false);
	fprintf(f, "\n");
	if (sg == STALEFS_STALE_GID_NONE)
		fprintf(f, "Stale gid (permitted):    <none>\n");
	else
		fprintf(f, "Stale gid (permitted):    %u\n", sg);
	fprintf(f, "Filesystem state:         %s%s\n",
		(le16_to_cpu(sb->s_state) & STALEFS_STATE_CLEAN) ? "clean" : "not clean",
		(le16_to_cpu(sb->s_state) & STALEFS_STATE_ERRORS) ? " with errors" : "");
	fprintf(f, "Errors behavior:          %u (%s)\n", errors, stalefs_errors_name(errors));
	fprintf(f, "Block size:               %u\n", fs->block_size);
	fprintf(f, "Block count:              %llu\n", (unsigned long long)le64_to_cpu(sb->s_blocks_count));
	fprintf(f, "Free blocks:              %llu\n", (unsigned long long)le64_to_cpu(sb->s_free_blocks_count));
	fprintf(f, "Reserved block count:     %llu\n", (unsigned long long)le64_to_cpu(sb->s_r_blocks_count));
	fprintf(f, "Inode count:              %u\n", le32_to_cpu(sb->s_inodes_count));
	fprintf(f, "Free inodes:              %u\n", le32_to_cpu(sb->s_free_inodes_count));
	fprintf(f, "Blocks per group:         %u\n", le32_to_cpu(sb->s_blocks_per_group));
	fprintf(f, "Inodes per group:         %u\n", le32_to_cpu(sb->s_inodes_per_group));
	fprintf(f, "Inode size:               %u\n", le16_to_cpu(sb->s_inode_size));
	fprintf(f, "Group count:              %u\n", le32_to_cpu(sb->s_groups_count));
	fprintf(f, "GDT blocks:               %u\n", le32_to_cpu(sb->s_gdt_blocks));
	if (le32_to_cpu(sb->s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_META_BG)
		fprintf(f, "First meta block group:   %u\n", le32_to_cpu(sb->s_first_meta_bg));
	fprintf(f, "First inode:              %u\n", le32_to_cpu(sb->s_first_ino));
	fprintf(f, "Lost+found inode:         %u\n", le32_to_cpu(sb->s_lpf_ino));
	fprintf(f, "Checksum seed:            0x%08x\n", le32_to_cpu(sb->s_csum_seed));
	stalefs_time_string((s64)le64_to_cpu(sb->s_mkfs_time), t, sizeof(t));
	fprintf(f, "Filesystem created:       %s\n", t);
	stalefs_time_string((s64)le64_to_cpu(sb->s_wtime), t, sizeof(t));
	fprintf(f, "Last write time:          %s\n", t);
	print_schedule(f, sb);
	fprintf(f, "Error count:              %u\n", le32_to_cpu(sb->s_error_count));
	if (fs->sb_block)
		fprintf(f, "Opened from backup superblock at block %llu\n", (unsigned long long)fs->sb_block);
	print_journal(f, fs);
}
