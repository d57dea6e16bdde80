// SPDX-License-Identifier: GPL-2.0
/*
 * cache-cut: the disk after a power cut with a volatile write cache, from a
 * dm-log-writes log (the model is in cache-model.h).
 *
 *   cache-cut plan LOG CUT SEED MODE
 *       print what a cut at entry CUT keeps and drops (no image touched)
 *   cache-cut make LOG BASE FROM IMAGE CUT SEED MODE
 *       BASE holds the disk after entries [0, FROM) (a filled image for
 *       FROM = 0).  Bring BASE forward to the cut's window start W (apply
 *       [FROM, W); FROM must not be past W), copy it to IMAGE, then put on
 *       IMAGE what the cut keeps of [W, CUT).  Cuts taken in increasing
 *       order thus cost one pass over the log for BASE in all, and BASE
 *       never holds anything a later cut could lose.
 *
 * MODE: all | none | random | random:PERCENT (the chance that a write in
 * the cache survives).  Both print one line:
 *   cut CUT seed SEED MODE: window W: N cached, K kept, D dropped, F FUA
 *   [, A order-ambiguous]; kept RANGES; dropped RANGES
 * where RANGES lists log entry indices (a-b for runs).  The same LOG,
 * CUT, SEED and MODE always give the same disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "cache-model.h"

static void usage(void)
{
	fprintf(stderr, "Usage: cache-cut plan LOG CUT SEED MODE\n"
			"       cache-cut make LOG BASE FROM IMAGE CUT SEED MODE\n"
			"MODE: all | none | random | random:PERCENT\n");
	exit(2);
}

/* The indices of the cached writes whose kept flag is want, as runs a-b. */
static void print_runs(const struct cm_plan *p, int want)
{
	const char *sep = "";
	uint64_t i = 0;

	while (i < p->nr_cached) {
		if (p->kept[i] != want) {
			i++;
			continue;
		}
		uint64_t j = i;
		while (j + 1 < p->nr_cached && p->kept[j + 1] == want && p->cached[j + 1] == p->cached[j] + 1)
			j++;
		if (j == i)
			printf("%s%" PRIu64, sep, p->cached[i]);
		else
			printf("%s%" PRIu64 "-%" PRIu64, sep, p->cached[i], p->cached[j]);
		sep = ",";
		i = j + 1;
	}
	if (!*sep)
		printf("-");
}

static void print_plan(const struct cm_cut *c, const char *mode, const struct cm_plan *p)
{
	printf("cut %" PRIu64 " seed %" PRIu64 " %s: window %" PRIu64 ": %" PRIu64 " cached, %" PRIu64
	       " kept, %" PRIu64 " dropped, %" PRIu64 " FUA", c->cut, c->seed, mode, p->window, p->nr_cached,
	       p->nr_kept, p->nr_cached - p->nr_kept, p->durable_fua);
	if (p->ambiguous)
		printf(", %" PRIu64 " order-ambiguous", p->ambiguous);
	printf("; kept ");
	print_runs(p, 1);
	printf("; dropped ");
	print_runs(p, 0);
	printf("\n");
}

static int make(struct lw_log *log, const struct cm_cut *c, const char *mode, const char *base_path,
		uint64_t from, const char *img_path)
{
	struct cm_plan p;
	int rc;

	if (cm_plan(log, c, &p))
		return 1;
	rc = cm_make_cut(log, c, &p, base_path, from, img_path) ? 1 : 0;
	if (!rc)
		print_plan(c, mode, &p);
	cm_plan_free(&p);
	return rc;
}

int main(int argc, char **argv)
{
	struct lw_log log;
	struct cm_cut c;
	uint64_t from = 0;
	int rc;

	int is_plan = argc == 6 && !strcmp(argv[1], "plan");
	int is_make = argc == 9 && !strcmp(argv[1], "make");
	if (!is_plan && !is_make)
		usage();
	char **a = argv + (is_plan ? 3 : 6);	/* CUT SEED MODE */
	if (lw_parse_u64(a[0], &c.cut) || lw_parse_u64(a[1], &c.seed) || (is_make && lw_parse_u64(argv[4], &from))) {
		fprintf(stderr, "cache-cut: CUT, SEED and FROM are numbers\n");
		return 2;
	}
	if (cm_parse_cut_mode(a[2], &c.keep_pct, &c.discards)) {
		fprintf(stderr, "cache-cut: bad mode '%s' (all, none, random, random:PERCENT; +discard)\n", a[2]);
		return 2;
	}
	if (lw_open(&log, argv[2]))
		return 1;
	if (is_plan) {
		struct cm_plan p;
		rc = cm_plan(&log, &c, &p) ? 1 : 0;
		if (!rc)
			print_plan(&c, a[2], &p);
		cm_plan_free(&p);
	} else {
		rc = make(&log, &c, a[2], argv[3], from, argv[5]);
	}
	lw_close(&log);
	return rc;
}
