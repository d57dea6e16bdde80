// SPDX-License-Identifier: GPL-2.0
/*
 * report [output_file]: one JSON object summing up an image for a case file --
 * where it was read from (a partition, an EWF image and the hashes recorded
 * at its acquisition), geometry, features, mount history, the error records,
 * the permitted group and who holds STALE extents, the journal's state and
 * history, orphans, and every deleted inode with how much of it could come
 * back (from its own map, or from the journal's older copies of it).  Only
 * reads.  The keys are described in debugfs.stalefs(8); new keys may be
 * added, existing ones keep their meaning.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "debugfs.h"
#include "scan.h"

#define REPORT_VERSION 1

struct report {
	FILE *f;
	struct stalefs_journal *j;	/* NULL without a journal (or when it cannot be read) */
	struct stalefs_jhistory h;
	bool first;
	u64 deleted, recoverable, in_use, dirs, regular, symlinks, other;
	u64 stale_files, stale_blocks, unconfined;
	u64 unreadable;
};

static void str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "\"%s\":", key);
	json_str(f, v);
}

static void strn(FILE *f, const char *key, const char *v, size_t max)
{
	fprintf(f, "\"%s\":", key);
	json_strn(f, v, strnlen(v, max));
}

static void source(struct report *r)
{
	struct stalefs_io_info info;

	stalefs_io_info(dbg.fs->io, &info);
	fprintf(r->f, "\"source\":{");
	str(r->f, "name", dbg.fs->device_name);
	fprintf(r->f, ",");
	str(r->f, "path", info.path ? info.path : "");
	fprintf(r->f, ",\"media_bytes\":%llu,\"offset\":%llu,\"size\":%llu,\"partition\":", (unsigned long long)info.media_bytes,
		(unsigned long long)info.offset, (unsigned long long)info.size);
	if (info.part)
		fprintf(r->f, "%u", info.part);
	else
		fprintf(r->f, "null");
	fprintf(r->f, ",\"ewf\":%s", info.ewf ? "true" : "false");
	if (info.ewf) {
		fprintf(r->f, ",");
		str(r->f, "ewf_md5", info.ewf_md5);
		fprintf(r->f, ",");
		str(r->f, "ewf_sha1", info.ewf_sha1);
	}
	fprintf(r->f, ",\"superblock_backup\":%llu}", (unsigned long long)dbg.fs->sb_block);
}

static void geometry(struct report *r)
{
	const struct stalefs_super_block *sb = &dbg.fs->sb;
	const struct stalefs_geom *g = &dbg.fs->geom;
	char uuid[37];
	int rule = stalefs_verify_super(sb);

	if (!rule)
		rule = stalefs_verify_super_csum(sb);
	stalefs_uuid_unparse(sb->s_uuid, uuid);
	fprintf(r->f, ",\"filesystem\":{\"uuid\":\"%s\",", uuid);
	strn(r->f, "label", sb->s_volume_name, sizeof(sb->s_volume_name));
	fprintf(r->f, ",\"revision\":%u,\"block_size\":%u,\"blocks\":%llu,\"free_blocks\":%llu,\"reserved_blocks\":%llu,"
		"\"inodes\":%u,\"free_inodes\":%u,\"inode_size\":%u,\"groups\":%u,\"blocks_per_group\":%u,"
		"\"inodes_per_group\":%u,\"first_inode\":%u,\"lost_found\":%u,\"superblock_verdict\":",
		le32_to_cpu(sb->s_rev_level), g->block_size, (unsigned long long)g->blocks_count,
		(unsigned long long)le64_to_cpu(sb->s_free_blocks_count), (unsigned long long)le64_to_cpu(sb->s_r_blocks_count),
		g->inodes_count, le32_to_cpu(sb->s_free_inodes_count), le16_to_cpu(sb->s_inode_size), g->groups_count,
		g->blocks_per_group, g->inodes_per_group, le32_to_cpu(sb->s_first_ino), le32_to_cpu(sb->s_lpf_ino));
	json_str(r->f, rule ? stalefs_rule_msg(rule) : "ok");
	fprintf(r->f, ",\"bad_group_descriptors\":%d,\"bitmaps_loaded\":%s,\"features\":{\"compat\":[",
		dbg.fs->bad_desc_count, dbg.fs->bitmaps_loaded ? "true" : "false");
	stalefs_print_features(r->f, 0, le32_to_cpu(sb->s_feature_compat), true);
	fprintf(r->f, "],\"ro_compat\":[");
	stalefs_print_features(r->f, 1, le32_to_cpu(sb->s_feature_ro_compat), true);
	fprintf(r->f, "],\"incompat\":[");
	stalefs_print_features(r->f, 2, le32_to_cpu(sb->s_feature_incompat), true);
	fprintf(r->f, "]}}");
}

static void history(struct report *r)
{
	const struct stalefs_super_block *sb = &dbg.fs->sb;
	u16 state = le16_to_cpu(sb->s_state);

	fprintf(r->f, ",\"mount_history\":{\"created\":%lld,\"last_mount\":%lld,\"last_write\":%lld,\"last_check\":%lld,"
		"\"mount_count\":%u,\"max_mount_count\":%u,\"check_interval\":%u,",
		(long long)le64_to_cpu(sb->s_mkfs_time), (long long)le64_to_cpu(sb->s_mtime),
		(long long)le64_to_cpu(sb->s_wtime), (long long)le64_to_cpu(sb->s_lastcheck), le32_to_cpu(sb->s_mnt_count),
		le32_to_cpu(sb->s_max_mnt_count), le32_to_cpu(sb->s_checkinterval));
	strn(r->f, "last_mounted_on", sb->s_last_mounted, sizeof(sb->s_last_mounted));
	fprintf(r->f, ",\"state\":\"%s\",\"state_errors\":%s,", (state & STALEFS_STATE_CLEAN) ? "clean" : "not clean",
		(state & STALEFS_STATE_ERRORS) ? "true" : "false");
	/* The words mkfs -e and tunefs -e take. */
	switch (le16_to_cpu(sb->s_errors)) {
	case STALEFS_ERRORS_CONTINUE: str(r->f, "errors_behaviour", "continue"); break;
	case STALEFS_ERRORS_RO: str(r->f, "errors_behaviour", "remount-ro"); break;
	case STALEFS_ERRORS_PANIC: str(r->f, "errors_behaviour", "panic"); break;
	default: fprintf(r->f, "\"errors_behaviour\":null");
	}
	fprintf(r->f, "},\"errors\":{\"count\":%u", le32_to_cpu(sb->s_error_count));
	if (sb->s_first_error_time) {
		fprintf(r->f, ",\"first\":{\"time\":%lld,\"block\":%llu,\"inode\":%u,", (long long)le64_to_cpu(sb->s_first_error_time),
			(unsigned long long)le64_to_cpu(sb->s_first_error_block), le32_to_cpu(sb->s_first_error_ino));
		strn(r->f, "function", sb->s_first_error_func, sizeof(sb->s_first_error_func));
		fprintf(r->f, "}");
	}
	if (sb->s_last_error_time) {
		fprintf(r->f, ",\"last\":{\"time\":%lld,\"block\":%llu,\"inode\":%u,", (long long)le64_to_cpu(sb->s_last_error_time),
			(unsigned long long)le64_to_cpu(sb->s_last_error_block), le32_to_cpu(sb->s_last_error_ino));
		strn(r->f, "function", sb->s_last_error_func, sizeof(sb->s_last_error_func));
		fprintf(r->f, "}");
	}
	fprintf(r->f, "}");
}

static void journal(struct report *r)
{
	struct stalefs_journal_info ji;
	u32 live = 0, n;

	stalefs_journal_info(dbg.fs, &ji);
	fprintf(r->f, ",\"journal\":{\"present\":%s,\"needs_recovery\":%s", ji.present ? "true" : "false",
		ji.needs_recovery ? "true" : "false");
	if (ji.present) {
		fprintf(r->f, ",\"block\":%llu,\"blocks\":%u,\"superblock_readable\":%s", (unsigned long long)ji.block, ji.blocks,
			ji.readable ? "true" : "false");
		if (ji.readable) {
			fprintf(r->f, ",\"superblock_verdict\":");
			json_str(r->f, ji.rule ? stalefs_jsb_rule_msg(ji.rule) : "ok");
			fprintf(r->f, ",\"sequence\":%u,\"start\":%u,\"errno\":%d", be32toh(ji.jsb.s_sequence),
				be32toh(ji.jsb.s_start), (int)be32toh(ji.jsb.s_errno));
		}
	}
	if (r->j) {
		for (n = 0; n < r->h.maxlen; n++)
			live += r->h.b[n].live;
		fprintf(r->f, ",\"history\":{\"live_blocks\":%u,\"transactions\":%u,\"copies\":%llu", live, r->h.transactions,
			(unsigned long long)r->h.copies);
		if (r->h.have_range)
			fprintf(r->f, ",\"oldest\":%u,\"newest\":%u", r->h.oldest, r->h.newest);
		fprintf(r->f, "}");
	}
	fprintf(r->f, "},\"orphan_inodes\":%u", ji.orphans);
}

/* Blocks of a map, and how many are free now. */
static void count_map(const struct stalefs_extent_list *l, size_t nodes, const struct stalefs_jmap_node *nv,
		      u64 *blocks, u64 *free_now)
{
	u32 i, b;
	size_t k;

	*blocks = *free_now = 0;
	for (i = 0; i < l->count; i++)
		for (b = 0; b < l->ext[i].len; b++) {
			(*blocks)++;
			*free_now += dbg.fs->bitmaps_loaded && !stalefs_test_block(dbg.fs, l->ext[i].pblk + b);
		}
	for (k = 0; k < nodes; k++) {
		(*blocks)++;
		*free_now += dbg.fs->bitmaps_loaded && !stalefs_test_block(dbg.fs, nv[k].block);
	}
}

/* Where a deleted inode could come back from: its own map, else the newest journaled copy of
 * it in use. */
static void recovery(struct report *r, u32 ino, const struct stalefs_inode *inode)
{
	struct stalefs_extent_list l;
	struct stalefs_jmap_nodes nodes = { 0 };
	struct stalefs_jinode_copy *v = NULL;
	u64 blocks = 0, free_now = 0;
	size_t n = 0, i;
	bool own = stalefs_inode_has_extents(inode) && !stalefs_extent_read(dbg.fs, ino, inode, &l);

	if (own && l.count) {
		count_map(&l, 0, NULL, &blocks, &free_now);
		stalefs_extent_list_free(&l);
		fprintf(r->f, ",\"recover_from\":\"inode\",\"blocks\":%llu,\"blocks_free\":%llu", (unsigned long long)blocks,
			(unsigned long long)free_now);
		r->recoverable += blocks && blocks == free_now;
		return;
	}
	if (own)
		stalefs_extent_list_free(&l);
	if (r->j && !stalefs_jhistory_inode(r->j, &r->h, ino, &v, &n))
		for (i = 0; i < n; i++) {
			const struct stalefs_inode *in = &v[i].inode;

			if (!in->i_mode || !in->i_links_count || in->i_dtime || v[i].rule)
				continue;
			if (stalefs_jhistory_extent_map(r->j, &r->h, ino, &v[i], &l, &nodes))
				break;
			count_map(&l, nodes.n, nodes.v, &blocks, &free_now);
			fprintf(r->f, ",\"recover_from\":\"journal\",\"transaction\":%u,\"size_then\":%llu,\"blocks\":%llu,"
				"\"blocks_free\":%llu", v[i].sequence, (unsigned long long)le64_to_cpu(in->i_size),
				(unsigned long long)blocks, (unsigned long long)free_now);
			r->recoverable += blocks == free_now;
			stalefs_extent_list_free(&l);
			free(nodes.v);
			free(v);
			return;
		}
	free(v);
	fprintf(r->f, ",\"recover_from\":null");
}

static int stale_count(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	(void)fs;
	if (!e->is_index && (e->flags & STALEFS_EXT_STALE))
		*(u64 *)priv += e->len;
	return 0;
}

static int inode_cb(u32 ino, const struct stalefs_inode *inode, int rule, bool in_use, void *priv)
{
	struct report *r = priv;
	u16 mode = le16_to_cpu(inode->i_mode);

	if (rule == STALEFS_R_INODE_CSUM && inode->i_mode)
		r->unreadable++;
	if (in_use) {
		u64 n = 0;

		/* Reserved inodes (but the root) are the filesystem's, not anyone's files. */
		if (ino < le32_to_cpu(dbg.fs->sb.s_first_ino) && ino != STALEFS_ROOT_INO)
			return 0;
		r->in_use++;
		switch (mode & STALEFS_S_IFMT) {
		case STALEFS_S_IFDIR: r->dirs++; break;
		case STALEFS_S_IFREG: r->regular++; break;
		case STALEFS_S_IFLNK: r->symlinks++; break;
		default: r->other++;
		}
		if (stalefs_inode_has_extents(inode))
			stalefs_extent_scan(dbg.fs, ino, inode, &(struct stalefs_xscan_ops){ .entry = stale_count }, &n);
		if (n || (le32_to_cpu(inode->i_flags) & STALEFS_INODE_STALE_FL)) {
			r->stale_files++;
			r->stale_blocks += n;
			r->unconfined += !dbg_confined(le32_to_cpu(inode->i_gid), mode);
		}
		return 0;
	}
	if (!mode || inode->i_links_count || !inode->i_dtime)
		return 0;
	r->deleted++;
	fprintf(r->f, "%s{\"ino\":%u,\"mode\":%u,\"uid\":%u,\"gid\":%u,\"size\":%llu,\"dtime\":%llu,\"atime\":%lld,"
		"\"mtime\":%lld,\"ctime\":%lld,\"crtime\":%lld", r->first ? "" : ",", ino, mode, le32_to_cpu(inode->i_uid),
		le32_to_cpu(inode->i_gid), (unsigned long long)le64_to_cpu(inode->i_size),
		(unsigned long long)le64_to_cpu(inode->i_dtime), (long long)le64_to_cpu(inode->i_atime),
		(long long)le64_to_cpu(inode->i_mtime), (long long)le64_to_cpu(inode->i_ctime),
		(long long)le64_to_cpu(inode->i_crtime));
	r->first = false;
	recovery(r, ino, inode);
	fprintf(r->f, "}");
	return 0;
}

static void stale(struct report *r)
{
	const struct stalefs_super_block *sb = &dbg.fs->sb;
	u32 sg = le32_to_cpu(sb->s_stale_gid), g;
	u64 counted = 0;

	for (g = 0; g < dbg.fs->geom.groups_count; g++)
		counted += le32_to_cpu(dbg.fs->groups[g].desc.bg_stale_count);
	fprintf(r->f, ",\"stale\":{\"feature\":%s,\"permitted_group\":",
		(le32_to_cpu(sb->s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE) ? "true" : "false");
	if (sg == STALEFS_STALE_GID_NONE)
		fprintf(r->f, "null");
	else
		fprintf(r->f, "%u", sg);
	fprintf(r->f, ",\"files\":%llu,\"blocks\":%llu,\"unconfined\":%llu,\"group_descriptors_count\":%llu}",
		(unsigned long long)r->stale_files, (unsigned long long)r->stale_blocks, (unsigned long long)r->unconfined,
		(unsigned long long)counted);
}

DBG_CMD(do_report)
{
	struct report r = { .f = stdout, .first = true };
	time_t now = time(NULL);

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 1, "[output_file]") || !dbg_need_fs(argv[0]))
		return;
	if (argc > 1 && !(r.f = fopen(argv[1], "w"))) {
		dbg_err(argv[0], errno, "opening %s for the report", argv[1]);
		return;
	}
	if (le32_to_cpu(dbg.fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) {
		if (stalefs_journal_open(dbg.fs, STALEFS_JOURNAL_FORCE, &r.j) == 0 && stalefs_jhistory_build(r.j, &r.h)) {
			stalefs_journal_close(r.j);
			r.j = NULL;
		}
		if (!r.j)
			fprintf(stderr, "%s: warning: the journal cannot be read: its history is left out\n", argv[0]);
	}
	fprintf(r.f, "{\"report_version\":%d,\"tool\":\"%s\",\"generated\":%lld,", REPORT_VERSION, DBG_PROG, (long long)now);
	source(&r);
	geometry(&r);
	history(&r);
	fprintf(r.f, ",\"deleted_inodes\":[");
	dbg_inode_scan(inode_cb, &r);
	fprintf(r.f, "],\"inodes\":{\"in_use\":%llu,\"directories\":%llu,\"regular\":%llu,\"symlinks\":%llu,\"other\":%llu,"
		"\"deleted\":%llu,\"deleted_recoverable\":%llu,\"bad_checksum\":%llu}", (unsigned long long)r.in_use,
		(unsigned long long)r.dirs, (unsigned long long)r.regular, (unsigned long long)r.symlinks,
		(unsigned long long)r.other, (unsigned long long)r.deleted, (unsigned long long)r.recoverable,
		(unsigned long long)r.unreadable);
	stale(&r);
	journal(&r);
	fprintf(r.f, "}\n");
	if (r.j)
		dbg_jhistory_close(r.j, &r.h);
	if (r.f != stdout && fclose(r.f) != 0)
		dbg_err(argv[0], errno, "writing %s", argv[1]);
}
