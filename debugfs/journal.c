// SPDX-License-Identifier: GPL-2.0
/*
 * Writing and replaying the journal, for building test images (as e2fsprogs'
 * debugfs has them; all need -w):
 *
 *   journal_open  / jo                 open the journal; a transaction begins
 *   journal_write / jw [-b blocks] [-r blocks] [-c] [-x what] [-t sec] [file]
 *                                      add blocks (their current contents, or the
 *                                      next blocks of `file`) and revokes to it;
 *                                      -c commits it (the next jw begins another)
 *   journal_close / jc [-u] [-x what] [-t sec]
 *                                      commit what is pending (-u: write it without
 *                                      its commit block, as a crash mid-commit leaves
 *                                      it) and close the journal
 *   journal_run   / jr [-f]            replay the journal now (as fsck does); -f: if
 *                                      that fails, discard what the log holds anyway
 *
 * -x spoils a checksum of the commit it applies to (commit-csum,
 * descriptor-csum, revoke-csum, block-csum: the first such block), -t sets
 * its commit time: recovery judges some damage by commit times.  Blocks are
 * lists of numbers and ranges: 100,102-105.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include "debugfs.h"

static struct {
	struct stalefs_journal *j;
	struct stalefs_jtrans *t;	/* the pending transaction, NULL until something is added */
	u32 nblocks, nrevokes;		/* in it */
} jnl;

/* "100,102-105" into blocks of the filesystem. */
static bool parse_block_list(const char *cmd, const char *s, u64 **list, u32 *n)
{
	char *copy = strdup(s), *tok, *save = NULL;
	bool ok = copy != NULL;

	for (tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		u64 a, b, x;

		if (dash)
			*dash = '\0';
		ok = dbg_parse_block(cmd, tok, &a) && (!dash || dbg_parse_block(cmd, dash + 1, &b));
		if (!ok)
			break;
		if (!dash)
			b = a;
		if (b < a || b - a > 1000000) {
			dbg_msg(cmd, "Bad block range %s-%s", tok, dash + 1);
			ok = false;
			break;
		}
		for (x = a; x <= b; x++) {
			u64 *grown = realloc(*list, (*n + 1) * sizeof(**list));

			if (!grown) {
				ok = false;
				break;
			}
			*list = grown;
			(*list)[(*n)++] = x;
		}
	}
	free(copy);
	return ok;
}

static bool parse_spoil(const char *cmd, const char *s, int *flags)
{
	char *copy = strdup(s), *tok, *save = NULL;
	bool ok = copy != NULL;

	for (tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "commit-csum") == 0)
			*flags |= STALEFS_JTRANS_BAD_COMMIT_CSUM;
		else if (strcmp(tok, "descriptor-csum") == 0)
			*flags |= STALEFS_JTRANS_BAD_DESC_CSUM;
		else if (strcmp(tok, "revoke-csum") == 0)
			*flags |= STALEFS_JTRANS_BAD_REVOKE_CSUM;
		else if (strcmp(tok, "block-csum") == 0)
			*flags |= STALEFS_JTRANS_BAD_BLOCK_CSUM;
		else {
			dbg_msg(cmd, "unknown -x %s (commit-csum, descriptor-csum, revoke-csum, block-csum)", tok);
			ok = false;
		}
	}
	free(copy);
	return ok;
}

static bool need_journal(const char *cmd)
{
	if (jnl.j)
		return true;
	dbg_msg(cmd, "the journal is not open (journal_open)");
	return false;
}

static bool ensure_transaction(const char *cmd)
{
	errcode_t err;

	if (jnl.t)
		return true;
	err = stalefs_jtrans_begin(jnl.j, &jnl.t);
	if (err) {
		dbg_err(cmd, err, "beginning a transaction");
		return false;
	}
	jnl.nblocks = jnl.nrevokes = 0;
	return true;
}

/* Write the pending transaction (committed unless flags say NO_COMMIT); it is gone after. */
static void finish_transaction(const char *cmd, int flags, bool time_set, u64 sec)
{
	u32 seq = jnl.j->next_sequence, at = jnl.j->head;
	errcode_t err;

	if (!jnl.t)
		return;
	if (time_set)
		stalefs_jtrans_set_time(jnl.t, sec, 0);
	err = stalefs_jtrans_commit(jnl.t, flags);
	jnl.t = NULL;
	if (err) {
		dbg_err(cmd, err, "writing transaction %u", seq);
		return;
	}
	printf("Transaction %u: %u block%s, %u revoke%s at log block %u, %s\n", seq, jnl.nblocks,
	       jnl.nblocks == 1 ? "" : "s", jnl.nrevokes, jnl.nrevokes == 1 ? "" : "s", at,
	       (flags & STALEFS_JTRANS_NO_COMMIT) ? "left without a commit block" : "committed");
}

DBG_CMD(do_journal_open)
{
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 0, "") || !dbg_need_rw(argv[0]) || !dbg_need_bitmaps(argv[0]))
		return;
	if (jnl.j) {
		dbg_msg(argv[0], "the journal is already open");
		return;
	}
	if (!(le32_to_cpu(dbg.fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL)) {
		dbg_msg(argv[0], "the filesystem has no journal");
		return;
	}
	err = stalefs_journal_open(dbg.fs, 0, &jnl.j);
	if (err) {
		dbg_err(argv[0], err, "opening the journal");
		return;
	}
	if (!jnl.j->head_known) {
		struct stalefs_journal_recovery scan;

		err = stalefs_journal_find_head(jnl.j, &scan);
		if (err) {
			/* A corrupt log: nothing can be added after it (logdump shows it, jr fails on it). */
			dbg_err(argv[0], err, "looking for the end of the log: %s", scan.detail);
			stalefs_journal_close(jnl.j);
			jnl.j = NULL;
			return;
		}
	}
	printf("Journal open: next transaction %u at log block %u%s\n", jnl.j->next_sequence, jnl.j->head,
	       jnl.j->jsb.s_start ? " (after the transactions already there)" : "");
}

DBG_CMD(do_journal_write)
{
	u64 *blocks = NULL, *revokes = NULL, sec = 0;
	u32 nb = 0, nr = 0, i;
	int c, flags = 0;
	bool commit = false, time_set = false;
	FILE *src = NULL;
	u8 *buf = NULL;
	errcode_t err = 0;
	static const char usage[] = "[-b block[,block...]] [-r block[,block...]] [-c] [-x what] [-t sec] [file]";

	(void)sci_idx; (void)info;
	if (!dbg_need_rw(argv[0]))
		return;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "b:r:cx:t:")) != -1) {
		bool ok = true;

		switch (c) {
		case 'b': ok = parse_block_list(argv[0], optarg, &blocks, &nb); break;
		case 'r': ok = parse_block_list(argv[0], optarg, &revokes, &nr); break;
		case 'c': commit = true; break;
		case 'x': ok = parse_spoil(argv[0], optarg, &flags); break;
		case 't': ok = dbg_parse_u64(argv[0], optarg, "commit time", &sec); time_set = true; break;
		default:
			dbg_usage(argv[0], usage);
			ok = false;
		}
		if (!ok)
			goto out;
	}
	if (argc - optind > 1 || (argc - optind == 1 && !nb)) {
		dbg_usage(argv[0], usage);
		goto out;
	}
	if (!need_journal(argv[0]) || !ensure_transaction(argv[0]))
		goto out;
	if (optind < argc) {
		src = fopen(argv[optind], "r");
		if (!src) {
			dbg_err(argv[0], errno, "opening %s", argv[optind]);
			goto out;
		}
	}
	buf = malloc(dbg.fs->block_size);
	for (i = 0; i < nb && buf; i++) {
		if (src) {
			if (fread(buf, dbg.fs->block_size, 1, src) != 1) {
				dbg_msg(argv[0], "%s holds fewer than %u blocks", argv[optind], nb);
				goto out;
			}
		} else {
			err = stalefs_read_block(dbg.fs, blocks[i], buf);
			if (err) {
				dbg_err(argv[0], err, "reading block %llu", (unsigned long long)blocks[i]);
				goto out;
			}
		}
		err = stalefs_jtrans_add_block(jnl.t, blocks[i], buf);
		if (err) {
			dbg_err(argv[0], err, "adding block %llu", (unsigned long long)blocks[i]);
			goto out;
		}
		jnl.nblocks++;
	}
	for (i = 0; i < nr; i++) {
		err = stalefs_jtrans_revoke(jnl.t, revokes[i]);
		if (err) {
			dbg_err(argv[0], err, "revoking block %llu", (unsigned long long)revokes[i]);
			goto out;
		}
		jnl.nrevokes++;
	}
	if (commit)
		finish_transaction(argv[0], flags, time_set, sec);
	else if (flags || time_set)
		dbg_msg(argv[0], "-x and -t apply to a commit: add -c, or give them to journal_close");
out:
	if (src)
		fclose(src);
	free(buf);
	free(blocks);
	free(revokes);
}

DBG_CMD(do_journal_close)
{
	int c, flags = 0;
	u64 sec = 0;
	bool time_set = false;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "ux:t:")) != -1) {
		bool ok = true;

		switch (c) {
		case 'u': flags |= STALEFS_JTRANS_NO_COMMIT; break;
		case 'x': ok = parse_spoil(argv[0], optarg, &flags); break;
		case 't': ok = dbg_parse_u64(argv[0], optarg, "commit time", &sec); time_set = true; break;
		default:
			dbg_usage(argv[0], "[-u] [-x what] [-t sec]");
			ok = false;
		}
		if (!ok)
			return;
	}
	if (optind != argc) {
		dbg_usage(argv[0], "[-u] [-x what] [-t sec]");
		return;
	}
	if (!need_journal(argv[0]))
		return;
	finish_transaction(argv[0], flags, time_set, sec);
	stalefs_journal_close(jnl.j);
	jnl.j = NULL;
}

void dbg_journal_forget(void)
{
	if (jnl.t) {
		fprintf(stderr, "%s: warning: the journal was not closed: a transaction of %u block%s and %u "
			"revoke%s was not written (journal_close writes it)\n", DBG_PROG, jnl.nblocks,
			jnl.nblocks == 1 ? "" : "s", jnl.nrevokes, jnl.nrevokes == 1 ? "" : "s");
		stalefs_jtrans_abort(jnl.t);
		jnl.t = NULL;
	}
	stalefs_journal_close(jnl.j);
	jnl.j = NULL;
}

DBG_CMD(do_journal_run)
{
	struct stalefs_journal_recovery r;
	errcode_t err;
	bool discard = false;

	(void)sci_idx; (void)info;
	if (argc == 2 && strcmp(argv[1], "-f") == 0)
		discard = true;
	else if (!dbg_args(argc, argv, 0, 0, "[-f]"))
		return;
	if (!dbg_need_rw(argv[0]))
		return;
	if (jnl.j) {
		dbg_msg(argv[0], "close the journal first (journal_close)");
		return;
	}
	err = stalefs_journal_recover(dbg.fs, &r);
	if (r.was_empty && !err) {
		printf("The journal is empty: nothing to replay.\n");
		return;
	}
	if (r.end_sequence != r.start_sequence || r.blocks_replayed)
		printf("Replayed transactions %u to %u: %llu block%s written, %llu revoke record%s, "
		       "%llu revoked block%s skipped\n", r.start_sequence, r.end_sequence - 1,
		       (unsigned long long)r.blocks_replayed, r.blocks_replayed == 1 ? "" : "s",
		       (unsigned long long)r.revoke_records, r.revoke_records == 1 ? "" : "s",
		       (unsigned long long)r.revoke_hits, r.revoke_hits == 1 ? "" : "s");
	else if (!err)
		printf("No complete transaction in the journal: nothing replayed.\n");
	if (r.jsb_errno)
		printf("The journal records an abort (errno %d).\n", -(int)r.jsb_errno);
	if (err)
		dbg_err(argv[0], err, "recovering the journal: %s", r.detail);
	else if (r.commit_csum_failed || r.stale_end)
		printf("%s\n", r.detail);
	if (err && discard && err != STALEFS_ERR_NO_JOURNAL) {
		/* As e2fsck does after a failed replay: what the log held is given up. */
		errcode_t e2 = stalefs_journal_discard(dbg.fs);

		if (e2)
			dbg_err(argv[0], e2, "discarding the journal");
		else
			printf("The journal was discarded: its log is zeroed and needs_recovery cleared; "
			       "check the filesystem (fsck.stalefs -f).\n");
	}
}
