// SPDX-License-Identifier: GPL-2.0
/*
 * The journal as history, with TSK's jls/jcat habits (the library's
 * stalefs_jhistory reads the whole journal once):
 *
 *   jls [-c] [-b block] [-i filespec]   every journal block and what it holds:
 *                                       live or old, its transaction, and for a
 *                                       copy the filesystem block and what it is
 *   jcat [-r] journal_block [out_file]  one journal block (a copy as it would be
 *                                       replayed) in hex, raw to out_file or with -r
 *   jinode filespec                     every journaled copy of one inode, newest
 *                                       first, with its fields and extent map, and
 *                                       whether the mapped blocks are free now
 *
 * undel -j and jrecover (jrecover.c) bring a deleted file back from those copies.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include "debugfs.h"

bool dbg_jhistory_open(const char *cmd, struct stalefs_journal **j, struct stalefs_jhistory *h)
{
	errcode_t err;

	if (!dbg_need_fs(cmd))
		return false;
	if (!(le32_to_cpu(dbg.fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL)) {
		dbg_msg(cmd, "the filesystem has no journal");
		return false;
	}
	/* A damaged journal superblock: the filesystem superblock's geometry still says where. */
	err = stalefs_journal_open(dbg.fs, STALEFS_JOURNAL_FORCE, j);
	if (err) {
		dbg_err(cmd, err, "opening the journal");
		return false;
	}
	err = stalefs_jhistory_build(*j, h);
	if (err) {
		dbg_err(cmd, err, "reading the journal");
		stalefs_journal_close(*j);
		return false;
	}
	return true;
}

void dbg_jhistory_close(struct stalefs_journal *j, struct stalefs_jhistory *h)
{
	stalefs_jhistory_free(h);
	stalefs_journal_close(j);
}

/* What a copy is, in words: "inode table of group 0 (inodes 1-16)", "directory block of inode 2". */
void dbg_copy_what(const struct stalefs_jblock *b, char *out, size_t len)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	const char *name = stalefs_block_kind_name(b->kind);

	switch (b->kind) {
	case STALEFS_BK_INODE_TABLE: {
		u64 it = le64_to_cpu(dbg.fs->groups[b->group].desc.bg_inode_table);
		u32 first = b->group * g->inodes_per_group + (u32)(b->fs_block - it) * g->inodes_per_block + 1;

		snprintf(out, len, "%s of group %u (inodes %u-%u)", name, b->group, first, first + g->inodes_per_block - 1);
		break;
	}
	case STALEFS_BK_BLOCK_BITMAP:
	case STALEFS_BK_INODE_BITMAP:
	case STALEFS_BK_GDT:
	case STALEFS_BK_SUPER:
		snprintf(out, len, "%s of group %u", name, b->group);
		break;
	case STALEFS_BK_EXTENT:
	case STALEFS_BK_DIR:
	case STALEFS_BK_XATTR:
		snprintf(out, len, "%s of inode %u", name, b->owner);
		break;
	case STALEFS_BK_DATA:
		snprintf(out, len, "data (no metadata magic: file or symlink data)");
		break;
	default:
		snprintf(out, len, "%s", name);
	}
}

static void time_of(u64 sec, char *out, size_t len)
{
	dbg_time_string((s64)sec, out, len);
}

/* ---- jls ---- */
struct jls {
	bool copies_only, json, first;
	u64 block;		/* -b / -i: only copies of it; ~0 for all */
};

static bool jls_selected(const struct jls *o, const struct stalefs_jblock *b)
{
	if (o->block != ~0ULL)
		return b->type == STALEFS_JB_COPY && b->fs_block == o->block;
	return !o->copies_only || b->type == STALEFS_JB_COPY;
}

static void jls_text_line(u32 n, const struct stalefs_jblock *b)
{
	char what[160], t[64] = "";

	if (b->type == STALEFS_JB_SUPER) {
		printf("%6u  %-4s  %10s  journal superblock\n", n, "", "");
		return;
	}
	printf("%6u  %-4s  %10u  ", n, b->live ? "live" : "old", b->sequence);
	if (b->committed || b->type == STALEFS_JB_COMMIT)
		time_of(b->commit_sec, t, sizeof(t));
	switch (b->type) {
	case STALEFS_JB_DESCRIPTOR:
		printf("descriptor block (%u tag%s)", b->count, b->count == 1 ? "" : "s");
		break;
	case STALEFS_JB_REVOKE:
		printf("revoke block (%u record%s)", b->count, b->count == 1 ? "" : "s");
		break;
	case STALEFS_JB_COMMIT:
		printf("commit block, %s", t);
		break;
	case STALEFS_JB_COPY:
		dbg_copy_what(b, what, sizeof(what));
		printf("copy of block %llu: %s", (unsigned long long)b->fs_block, what);
		if (b->flags & STALEFS_JBD2_FLAG_ESCAPE)
			printf(", escaped");
		if (b->revoked)
			printf(", revoked");
		break;
	default:
		printf("%s", stalefs_jblock_type_name(b->type));
	}
	if (b->type != STALEFS_JB_COMMIT && b->type != STALEFS_JB_OTHER)
		printf(b->committed ? "" : ", uncommitted");
	if (b->type != STALEFS_JB_OTHER && !b->csum_ok)
		printf(", checksum BAD");
	printf("\n");
}

static void jls_json_block(struct jls *o, u32 n, const struct stalefs_jblock *b)
{
	printf("%s{\"block\":%u,\"type\":", o->first ? "" : ",", n);
	json_str(stdout, b->type == STALEFS_JB_COPY ? "copy" : stalefs_jblock_type_name(b->type));
	o->first = false;
	if (b->type == STALEFS_JB_SUPER) {
		printf("}");
		return;
	}
	printf(",\"live\":%s,\"sequence\":%u,\"committed\":%s,\"checksum_ok\":%s", b->live ? "true" : "false",
	       b->sequence, b->committed ? "true" : "false", b->csum_ok ? "true" : "false");
	if (b->committed || b->type == STALEFS_JB_COMMIT)
		printf(",\"commit_time\":%llu", (unsigned long long)b->commit_sec);
	if (b->type == STALEFS_JB_DESCRIPTOR)
		printf(",\"tags\":%u", b->count);
	if (b->type == STALEFS_JB_REVOKE)
		printf(",\"records\":%u", b->count);
	if (b->type == STALEFS_JB_COPY) {
		printf(",\"fs_block\":%llu,\"kind\":", (unsigned long long)b->fs_block);
		json_str(stdout, stalefs_block_kind_name(b->kind));
		printf(",\"group\":%u,\"owner\":%u,\"escaped\":%s,\"revoked\":%s", b->group, b->owner,
		       (b->flags & STALEFS_JBD2_FLAG_ESCAPE) ? "true" : "false", b->revoked ? "true" : "false");
	}
	printf("}");
}

static void jls_header(const struct stalefs_journal *j, const struct stalefs_jhistory *h)
{
	u64 start = le64_to_cpu(dbg.fs->sb.s_journal_block);
	u32 live = 0, n;

	for (n = 0; n < h->maxlen; n++)
		live += h->b[n].live;
	if (dbg.json) {
		printf("{\"journal\":{\"block\":%llu,\"blocks\":%u,\"superblock_verdict\":", (unsigned long long)start,
		       j->maxlen);
		json_str(stdout, j->jsb_rule ? stalefs_jsb_rule_msg(j->jsb_rule) : "ok");
		printf(",\"start\":%u,\"sequence\":%u,\"live_blocks\":%u,\"transactions\":%u,\"copies\":%llu",
		       be32toh(j->jsb.s_start), be32toh(j->jsb.s_sequence), live, h->transactions,
		       (unsigned long long)h->copies);
		if (h->have_range)
			printf(",\"oldest\":%u,\"newest\":%u", h->oldest, h->newest);
		printf("},\"blocks\":[");
		return;
	}
	printf("Journal at block %llu (group %u), %u blocks; journal superblock: %s\n", (unsigned long long)start,
	       stalefs_block_group(&dbg.fs->geom, start), j->maxlen, j->jsb_rule ? stalefs_jsb_rule_msg(j->jsb_rule) : "ok");
	if (j->jsb.s_start)
		printf("Log: starts at block %u, transaction %u; %u live block%s\n", be32toh(j->jsb.s_start),
		       be32toh(j->jsb.s_sequence), live, live == 1 ? "" : "s");
	else
		printf("Log: empty (next transaction %u); everything below is history\n", be32toh(j->jsb.s_sequence));
	if (h->have_range)
		printf("History: %u committed transaction%s (%u to %u), %llu cop%s of filesystem blocks\n", h->transactions,
		       h->transactions == 1 ? "" : "s", h->oldest, h->newest, (unsigned long long)h->copies,
		       h->copies == 1 ? "y" : "ies");
	else
		printf("History: no committed transaction, %llu cop%s of filesystem blocks\n", (unsigned long long)h->copies,
		       h->copies == 1 ? "y" : "ies");
	printf("%6s  %-4s  %10s  %s\n", "JBlk", "Log", "Trans", "What");
}

DBG_CMD(do_jls)
{
	struct jls o = { .block = ~0ULL, .json = dbg.json, .first = true };
	struct stalefs_journal *j;
	struct stalefs_jhistory h;
	const char *spec = NULL;
	u32 n, m;
	int c;
	static const char usage[] = "[-c] [-b block] [-i filespec]";

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "cb:i:")) != -1) {
		switch (c) {
		case 'c': o.copies_only = true; break;
		case 'b':
			if (!dbg_need_fs(argv[0]) || !dbg_parse_block(argv[0], optarg, &o.block))
				return;
			break;
		case 'i': spec = optarg; break;
		default:
			dbg_usage(argv[0], usage);
			return;
		}
	}
	if (optind != argc || (spec && o.block != ~0ULL)) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_fs(argv[0]))
		return;
	if (spec) {
		u32 ino, off;

		if (!dbg_name_to_ino(argv[0], spec, &ino))
			return;
		stalefs_ino_locate(&dbg.fs->geom, &dbg.fs->groups[stalefs_ino_group(&dbg.fs->geom, ino)].desc, ino,
				   &o.block, &off);
	}
	if (!dbg_jhistory_open(argv[0], &j, &h))
		return;
	jls_header(j, &h);
	for (n = 0; n < h.maxlen; n = m) {
		const struct stalefs_jblock *b = &h.b[n];

		/* A run of unused blocks is one line. */
		for (m = n + 1; b->type == STALEFS_JB_UNUSED && m < h.maxlen && h.b[m].type == STALEFS_JB_UNUSED; m++)
			;
		if (b->type == STALEFS_JB_UNUSED) {
			if (o.copies_only || o.block != ~0ULL)
				continue;
			if (o.json) {
				printf("%s{\"block\":%u,\"last\":%u,\"type\":\"unused\"}", o.first ? "" : ",", n, m - 1);
				o.first = false;
			} else if (m - 1 > n) {
				printf("%6u  %-4s  %10s  unused through block %u\n", n, "", "", m - 1);
			} else {
				printf("%6u  %-4s  %10s  unused\n", n, "", "");
			}
			continue;
		}
		if (!jls_selected(&o, b))
			continue;
		if (o.json)
			jls_json_block(&o, n, b);
		else
			jls_text_line(n, b);
	}
	if (o.json)
		printf("]}\n");
	dbg_jhistory_close(j, &h);
}

/* ---- jcat ---- */
DBG_CMD(do_jcat)
{
	struct stalefs_journal *j;
	struct stalefs_jhistory h;
	bool raw = false;
	u32 n;
	u8 *buf;
	int c;
	errcode_t err;
	static const char usage[] = "[-r] journal_block [out_file]";

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "r")) != -1) {
		if (c != 'r') {
			dbg_usage(argv[0], usage);
			return;
		}
		raw = true;
	}
	if (argc - optind < 1 || argc - optind > 2 || (raw && argc - optind == 2)) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_fs(argv[0]) || !dbg_parse_u32(argv[0], argv[optind], "journal block", &n) ||
	    !dbg_jhistory_open(argv[0], &j, &h))
		return;
	if (n >= h.maxlen) {
		dbg_msg(argv[0], "journal block %u is past the journal (%u blocks)", n, h.maxlen);
		dbg_jhistory_close(j, &h);
		return;
	}
	buf = malloc(j->block_size);
	err = buf ? stalefs_jhistory_read_copy(j, &h, n, buf) : STALEFS_ERR_NO_MEMORY;
	if (err) {
		dbg_err(argv[0], err, "reading journal block %u", n);
	} else if (raw || argc - optind == 2) {
		/* The bytes alone, as TSK's jcat writes them. */
		FILE *out = raw ? stdout : dbg_fopen_private(argv[optind + 1]);

		if (raw && isatty(STDOUT_FILENO)) {
			dbg_msg(argv[0], "will not write binary data to a terminal: give an output file, or redirect");
		} else if (!out) {
			dbg_err(argv[0], errno, "opening %s", argv[optind + 1]);
		} else {
			if (fwrite(buf, j->block_size, 1, out) != 1 || (out != stdout ? fclose(out) : fflush(out)) != 0)
				dbg_err(argv[0], errno, "writing journal block %u", n);
		}
	} else {
		const struct stalefs_jblock *b = &h.b[n];

		printf("Journal block %u (filesystem block %llu): ", n,
		       (unsigned long long)(le64_to_cpu(dbg.fs->sb.s_journal_block) + n));
		if (b->type == STALEFS_JB_COPY) {
			char what[160];

			dbg_copy_what(b, what, sizeof(what));
			printf("copy of block %llu (%s), transaction %u, %s, %s%s\n", (unsigned long long)b->fs_block, what,
			       b->sequence, b->live ? "live" : "old", b->committed ? "committed" : "uncommitted",
			       (b->flags & STALEFS_JBD2_FLAG_ESCAPE) ? "; its escaped magic put back" : "");
		} else if (b->type == STALEFS_JB_UNUSED || b->type == STALEFS_JB_SUPER) {
			printf("%s\n", stalefs_jblock_type_name(b->type));
		} else {
			printf("%s, transaction %u, %s\n", stalefs_jblock_type_name(b->type), b->sequence,
			       b->live ? "live" : "old");
		}
		dbg_hexdump(buf, j->block_size, 0);
	}
	free(buf);
	dbg_jhistory_close(j, &h);
}

/* ---- jinode ---- */
static void show_copy_text(u32 ino, const struct stalefs_jinode_copy *c, const struct dbg_map_state *ms)
{
	const struct stalefs_inode *in = &c->inode;
	char t[64], m[11];

	if (c->committed)
		time_of(c->commit_sec, t, sizeof(t));
	printf("Transaction %u (journal block %u, %s, %s%s):\n", c->sequence, c->log_block, c->live ? "live" : "old",
	       c->committed ? "committed " : "uncommitted", c->committed ? t : "");
	if (!in->i_mode) {
		printf("  free slot (mode 0)\n");
		return;
	}
	stalefs_mode_string(le16_to_cpu(in->i_mode), m);
	printf("  %s (0%o) links %u uid %u gid %u size %llu generation %u flags 0x%x\n", m, le16_to_cpu(in->i_mode),
	       le16_to_cpu(in->i_links_count), le32_to_cpu(in->i_uid), le32_to_cpu(in->i_gid),
	       (unsigned long long)le64_to_cpu(in->i_size), le32_to_cpu(in->i_generation), le32_to_cpu(in->i_flags));
	dbg_time_string((s64)le64_to_cpu(in->i_mtime), t, sizeof(t));
	printf("  mtime %s", t);
	dbg_time_string((s64)le64_to_cpu(in->i_ctime), t, sizeof(t));
	printf(", ctime %s", t);
	if (in->i_dtime) {
		dbg_time_string((s64)le64_to_cpu(in->i_dtime), t, sizeof(t));
		printf(", deleted %s", t);
	}
	printf("\n  verdict: %s\n", c->rule ? stalefs_rule_msg(c->rule) : "ok");
	(void)ino;
	dbg_map_print(ms, "  ");
}

DBG_CMD(do_jinode)
{
	struct stalefs_journal *j;
	struct stalefs_jhistory h;
	struct stalefs_jinode_copy *v;
	size_t n, i;
	u32 ino, off;
	u64 block;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<filespec>") || !dbg_need_fs(argv[0]) || !dbg_name_to_ino(argv[0], argv[1], &ino) ||
	    !dbg_jhistory_open(argv[0], &j, &h))
		return;
	err = stalefs_jhistory_inode(j, &h, ino, &v, &n);
	if (err) {
		dbg_err(argv[0], err, "looking for inode %u in the journal", ino);
		dbg_jhistory_close(j, &h);
		return;
	}
	stalefs_ino_locate(&dbg.fs->geom, &dbg.fs->groups[stalefs_ino_group(&dbg.fs->geom, ino)].desc, ino, &block, &off);
	if (dbg.json)
		printf("{\"ino\":%u,\"inode_block\":%llu,\"offset\":%u,\"copies\":[", ino, (unsigned long long)block, off);
	else
		printf("Inode %u: %zu cop%s in the journal (inode table block %llu, offset %u), newest first\n", ino, n,
		       n == 1 ? "y" : "ies", (unsigned long long)block, off);
	for (i = 0; i < n; i++) {
		struct dbg_map_state ms;

		dbg_map_load(j, &h, ino, &v[i], &ms);
		if (dbg.json)
			dbg_copy_json(i ? "," : "", &v[i], &ms);
		else
			show_copy_text(ino, &v[i], &ms);
		dbg_map_free(&ms);
	}
	if (dbg.json)
		printf("]}\n");
	free(v);
	dbg_jhistory_close(j, &h);
}
