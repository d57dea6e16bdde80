// SPDX-License-Identifier: GPL-2.0
/*
 * stress-replay: every cut of a recorded dm-log-writes log, each mounted,
 * checked against the workload's promises and fsck'd, in one process (an
 * exec costs 0.1-0.3 s in the TCG guest, and a run checks hundreds of cuts).
 *
 *   stress-replay [OPTIONS] LOG BASE EVENTS
 *
 * LOG is the log; BASE the disk before the log's first entry (a filled
 * image, powercut-check fill, or the disk the log was recorded on), which
 * is brought forward as the cuts advance: it is changed.  EVENTS holds the
 * promises (promises.h); marks "eN" in the log say when each was made.
 *
 * The cuts (entries [0, E) happened), all after the mark --after names:
 *   --prefix   right after every flush or FUA entry and right after every
 *              mark that made a promise: the disk holds every write logged
 *              before the cut (what a replay of the log as a prefix gives);
 *   --cache    at every flush entry, with the volatile-cache model
 *              (cache-model.h): each write since the previous flush kept or
 *              lost on its own; the modes cycle through random, random:20,
 *              random:80 and none;
 *   always     the whole log, after the workload's clean umount: fsck must
 *              be clean before any mount.
 * At each cut the disk is a device-mapper snapshot of BASE (the log
 * brought forward to the cut's window, on a loop device) with the cut's
 * writes since the window put on it, so that nothing is copied and the
 * mount's writes go to a scratch COW file; it is mounted (the journal
 * recovered), the promises checked (every
 * fsync'd file intact, durable unlinks done, no file showing the fill
 * pattern or data not its own), unmounted, and `FSCK -fn DEVICE` must exit
 * 0; the kernel must log nothing at level err or worse and no splat.
 *
 * Options: --type FS (stalefs), --fsck PROG (fsck.stalefs), --mount-opts
 * OPTS, --after MARK (e1), --limit N (at most N cuts after flushes and N
 * after marks, evenly spread; 0 all), --cache-limit N (the same for the
 * volatile-cache cuts), --first N (only the N earliest cuts, and the whole log),
 * --seed S, --work DIR (scratch, default .), --mnt DIR,
 * --results DIR (cuts.txt, failures.txt, saved images), --save-max N
 * (failing cuts whose disk is kept: 4), --skip-stale (promises_skip_stale),
 * --min-points N, --label NAME, --cow DEV (the snapshots' COW device; else a
 * loop device over WORK/cow.img).  BASE may be a block device.  Exit status 0 when every cut passed and
 * there were at least --min-points of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/loop.h>
#include "blockdev.h"
#include "cache-model.h"
#include "promises.h"

enum cut_kind { CUT_FLUSH, CUT_MARK, CUT_CACHE, CUT_FINAL, CUT_KINDS };
static const char *const kind_names[CUT_KINDS] = { "flush", "fsync-mark", "cache", "final" };

struct cut {
	uint64_t e;
	enum cut_kind kind;
	char mode[16];
	uint64_t seed;
	long upto;		/* the last mark the cut includes */
};

static struct {
	const char *type, *fsck, *mount_opts, *after, *work, *mnt, *results, *label, *cow;
	bool prefix, cache, skip_stale;
	uint64_t limit, cache_limit, first, seed, save_max, min_points;
} opt = { "stalefs", "fsck.stalefs", "", "e1", ".", "/mnt/stress", ".", "run", NULL, false, false, false,
	  0, 0, 0, 1, 4, 1 };

static const char *log_path, *base_path, *events_path;
static char cut_dev[64], origin_dev[64], cow_dev[64];
#define SNAPSHOT "stress-replay-cut"
static int kmsg = -1;
static regex_t splat;
static FILE *cuts_txt, *failures_txt;

/* Where the time goes, for choosing how many cuts a run can afford. */
enum phase { PH_BUILD, PH_MOUNT, PH_VERIFY, PH_UMOUNT, PH_FSCK, PH_COUNT };
static const char *const phase_names[PH_COUNT] = { "build", "mount", "verify", "umount", "fsck" };
static double phase_secs[PH_COUNT];
static struct timespec phase_t0;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void phase_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &phase_t0);
}

static void phase_end(enum phase ph)
{
	phase_secs[ph] += now() - ((double)phase_t0.tv_sec + (double)phase_t0.tv_nsec / 1e9);
	phase_start();
}

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fatal(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stress-replay: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "a");
	if (!f)
		fatal("%s: %s", path, strerror(errno));
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

/* ---- the plan ---- */

struct marks {
	uint64_t *index;	/* log index of mark i */
	long *number;		/* its N */
	size_t n, cap;
};

/* Which mark numbers made a promise (sync, gone, symlink, xattrs). */
static bool *promise_marks(long *max)
{
	FILE *f = fopen(events_path, "r");
	char line[1200], what[32];
	long n;
	bool *set;

	if (!f)
		fatal("%s: %s", events_path, strerror(errno));
	*max = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%ld", &n) == 1 && n > *max)
			*max = n;
	set = calloc((size_t)*max + 1, 1);
	if (!set)
		fatal("out of memory");
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%ld %31s", &n, what) == 2 && n > 0 &&
		    (!strcmp(what, "sync") || !strcmp(what, "gone") || !strcmp(what, "symlink") ||
		     !strcmp(what, "xattrs")))
			set[n] = true;
	fclose(f);
	return set;
}

static int cut_cmp(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;

	if (x->e != y->e)
		return x->e < y->e ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return strcmp(x->mode, y->mode);
}

static void add_cut(struct cut **v, size_t *n, size_t *cap, uint64_t e, enum cut_kind kind, const char *mode,
		    uint64_t seed)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*v = realloc(*v, *cap * sizeof(**v));
		if (!*v)
			fatal("out of memory");
	}
	(*v)[*n] = (struct cut){ .e = e, .kind = kind, .seed = seed };
	snprintf((*v)[*n].mode, sizeof((*v)[*n].mode), "%s", mode);
	(*n)++;
}

/* At most opt.limit of the candidates, at the centres of equal slices. */
static void add_spread(struct cut **v, size_t *n, size_t *cap, const uint64_t *at, size_t count,
		       enum cut_kind kind, uint64_t delta)
{
	static const char *const modes[] = { "random", "random:20", "random:80", "none" };
	uint64_t limit = kind == CUT_CACHE ? opt.cache_limit : opt.limit;
	size_t take = limit && count > limit ? limit : count;

	for (size_t i = 0; i < take; i++) {
		size_t k = take == count ? i : (size_t)((i + 0.5) * (double)count / (double)take);
		uint64_t e = at[k] + delta;
		add_cut(v, n, cap, e, kind, kind == CUT_CACHE ? modes[i % 4] : "all", opt.seed * 1000003 + e);
	}
}

static struct cut *plan(struct lw_log *log, size_t *ncuts)
{
	struct lw_entry e;
	uint64_t *flushes = NULL, *fmarks = NULL, *cflush = NULL, start = UINT64_MAX;
	size_t nf = 0, nm = 0, nc = 0, n = 0, cap = 0;
	struct marks mk = { 0 };
	long max_event;
	bool *promising = promise_marks(&max_event);
	struct cut *cuts = NULL;
	int r;

	flushes = calloc(log->nr_entries + 1, sizeof(*flushes));
	fmarks = calloc(log->nr_entries + 1, sizeof(*fmarks));
	cflush = calloc(log->nr_entries + 1, sizeof(*cflush));
	mk.index = calloc(log->nr_entries + 1, sizeof(*mk.index));
	mk.number = calloc(log->nr_entries + 1, sizeof(*mk.number));
	if (!flushes || !fmarks || !cflush || !mk.index || !mk.number)
		fatal("out of memory");
	lw_rewind(log);
	while ((r = lw_next(log, &e)) == 1) {
		if (e.flags & LW_MARK) {
			if (!strcmp(e.mark, opt.after))
				start = e.index + 1;
			if (e.mark[0] == 'e') {
				long num = strtol(e.mark + 1, NULL, 10);
				if (mk.n && num <= mk.number[mk.n - 1])
					fatal("%s: mark %s comes after e%ld: the marks are not in the order "
					      "of their numbers", log_path, e.mark, mk.number[mk.n - 1]);
				mk.index[mk.n] = e.index;
				mk.number[mk.n++] = num;
				if (start != UINT64_MAX && e.index >= start && num <= max_event && promising[num])
					fmarks[nm++] = e.index;
			}
			continue;
		}
		if (start == UINT64_MAX || e.index < start)
			continue;
		if (e.flags & (LW_FLUSH | LW_FUA))
			flushes[nf++] = e.index;
		if (e.flags & LW_FLUSH)
			cflush[nc++] = e.index;
	}
	if (r < 0)
		fatal("%s: the log cannot be read", log_path);
	if (start == UINT64_MAX)
		fatal("%s: mark %s is not in the log", log_path, opt.after);
	if (opt.prefix) {
		add_spread(&cuts, &n, &cap, flushes, nf, CUT_FLUSH, 1);
		add_spread(&cuts, &n, &cap, fmarks, nm, CUT_MARK, 1);
	}
	if (opt.cache)
		add_spread(&cuts, &n, &cap, cflush, nc, CUT_CACHE, 0);
	add_cut(&cuts, &n, &cap, log->nr_entries, CUT_FINAL, "all", 0);
	qsort(cuts, n, sizeof(*cuts), cut_cmp);
	/* The same disk twice (a flush right before a mark) is checked once. */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && cuts[k - 1].e == cuts[i].e && !strcmp(cuts[k - 1].mode, cuts[i].mode) &&
		    cuts[i].kind != CUT_FINAL)
			continue;
		cuts[k++] = cuts[i];
	}
	n = k;
	/* --first: the earliest cuts alone (and the whole log). */
	if (opt.first) {
		k = 0;
		for (size_t i = 0; i < n; i++)
			if (cuts[i].kind == CUT_FINAL || k < opt.first)
				cuts[k++] = cuts[i];
		n = k;
	}
	/* Each cut's promises: those of the marks it includes. */
	for (size_t i = 0, m = 0; i < n; i++) {
		while (m < mk.n && mk.index[m] < cuts[i].e)
			m++;
		cuts[i].upto = m ? mk.number[m - 1] : 0;
	}
	printf("stress-replay %s: %" PRIu64 " log entries; after %s: %zu flush/FUA entries, %zu fsync marks, "
	       "%zu flushes; %zu cuts\n", opt.label, log->nr_entries, opt.after, nf, nm, nc, n);
	free(flushes);
	free(fmarks);
	free(cflush);
	free(mk.index);
	free(mk.number);
	free(promising);
	*ncuts = n;
	return cuts;
}

/* ---- one cut ---- */

/* The cut's disk: BASE brought to the window, a snapshot of it, the window's kept writes on that. */
static void build_cut(struct lw_log *log, const struct cm_cut *cc, const struct cm_plan *p, uint64_t *based,
		      uint64_t sectors)
{
	int fd;

	if (*based < p->window) {
		fd = open(base_path, O_RDWR | O_CLOEXEC);
		/* fsync: the snapshot reads a block device's blocks past its page cache */
		if (fd < 0 || cm_apply(log, cc, p, *based, p->window, fd, base_path) || fsync(fd) < 0 ||
		    close(fd) < 0)
			fatal("cannot bring %s to entry %" PRIu64, base_path, p->window);
		*based = p->window;
	}
	if (bd_snapshot_create(SNAPSHOT, origin_dev, cow_dev, sectors, cut_dev, sizeof(cut_dev)))
		fatal("cannot make the snapshot of cut %" PRIu64, cc->cut);
	fd = open(cut_dev, O_RDWR | O_CLOEXEC);
	if (fd < 0 || cm_apply(log, cc, p, p->window, cc->cut, fd, cut_dev) || fsync(fd) < 0 || close(fd) < 0)
		fatal("cannot put cut %" PRIu64 "'s writes on %s", cc->cut, cut_dev);
}

/* FSCK -fn DEVICE: its exit status; its output in WORK/fsck.out. */
static int run_fsck(const char *img)
{
	char out[4096];
	pid_t pid;
	int status;

	snprintf(out, sizeof(out), "%s/fsck.out", opt.work);
	pid = fork();
	if (pid < 0)
		fatal("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execlp(opt.fsck, opt.fsck, "-fn", img, (char *)NULL);
		fprintf(stderr, "stress-replay: cannot run %s: %s\n", opt.fsck, strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		fatal("wait for %s: %s", opt.fsck, strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		fatal("%s could not be run (see %s)", opt.fsck, out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What the kernel logged since the last call that a cut may not cause; appended to why. */
static void kernel_check(char *why, size_t len)
{
	char rec[8192];
	ssize_t n;

	while ((n = read(kmsg, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0) {
			if (errno == EAGAIN)
				break;
			if (errno == EPIPE || errno == EINTR)
				continue;	/* records overwritten before we read them */
			fatal("/dev/kmsg: %s", strerror(errno));
		}
		rec[n] = 0;
		int level = atoi(rec) & 7;
		char *text = strchr(rec, ';');
		text = text ? text + 1 : rec;
		text[strcspn(text, "\n")] = 0;
		if ((level <= 3 || !regexec(&splat, text, 0, NULL, 0)) && !*why)
			snprintf(why, len, "the kernel logged: %s", text);
	}
}

/* The first FAIL lines of a file, joined (the reason a cut failed). */
static void first_fails(const char *file, char *out, size_t len)
{
	FILE *f = fopen(file, "r");
	char line[1024];
	size_t used = 0;
	int k = 0;

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && k < 3) {
		if (strncmp(line, "FAIL", 4))
			continue;
		line[strcspn(line, "\n")] = 0;
		used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s", k ? " | " : "", line);
		k++;
	}
	fclose(f);
}

static void append_file(FILE *to, const char *file, int max_lines)
{
	FILE *f = fopen(file, "r");
	char line[1024];

	if (!f)
		return;
	while (max_lines-- > 0 && fgets(line, sizeof(line), f))
		fprintf(to, "    %s", line);
	fclose(f);
}

/* Mount, check the promises, umount, fsck: "" when all holds, else why not. */
static void check_cut(const struct cut *c, uint64_t n, char *why, size_t len)
{
	char vout[4096];
	int rc;

	why[0] = 0;
	snprintf(vout, sizeof(vout), "%s/verify.out", opt.work);
	phase_start();
	if (c->kind == CUT_FINAL) {
		rc = run_fsck(cut_dev);
		if (rc) {
			snprintf(why, len, "the image after a clean umount is not clean (fsck -fn exit %d)", rc);
			return;
		}
	}
	if (mount(cut_dev, opt.mnt, opt.type, 0, opt.mount_opts) < 0) {
		snprintf(why, len, "mount failed: %s", strerror(errno));
		kernel_check(why + strlen(why), len - strlen(why));
		return;
	}
	phase_end(PH_MOUNT);
	struct promises *p = promises_load(events_path, c->upto);
	if (!p)
		fatal("cannot load %s", events_path);
	if (opt.skip_stale)
		promises_skip_stale(p);
	FILE *out = fopen(vout, "w");
	if (!out)
		fatal("%s: %s", vout, strerror(errno));
	rc = promises_verify(p, opt.mnt, out);
	fclose(out);
	promises_free(p);
	phase_end(PH_VERIFY);
	if (umount(opt.mnt) < 0)
		fatal("umount of cut %" PRIu64 " failed: %s", c->e, strerror(errno));
	phase_end(PH_UMOUNT);
	if (rc) {
		first_fails(vout, why, len);
		if (!*why)
			snprintf(why, len, "the promise check failed (%d)", rc);
	} else {
		rc = run_fsck(cut_dev);
		if (rc)
			snprintf(why, len, "fsck -fn after mount and umount exit %d (needs repair)", rc);
		phase_end(PH_FSCK);
	}
	kernel_check(why, len);
	(void)n;
}

static const char *failure_kind(const char *why)
{
	if (strstr(why, "after a clean umount"))
		return "not clean after a clean umount";
	if (!strncmp(why, "mount failed", 12))
		return "mount fails";
	if (strstr(why, "needs repair"))
		return "fsck -fn needs repair after mount and umount";
	if (!strncmp(why, "the kernel logged", 17))
		return "the kernel logs an error";
	if (strstr(why, "stale data exposed"))
		return "a file reads the device's old bytes";
	if (strstr(why, "another file's"))
		return "a file reads another file's data";
	if (strstr(why, "differs from its content") || strstr(why, "cannot be opened"))
		return "an fsync'd file lost or changed data";
	if (strstr(why, "but is back"))
		return "a durable unlink or rename is undone";
	return "a promise does not hold";
}

int main(int argc, char **argv)
{
	struct lw_log log;
	struct cut *cuts;
	size_t ncuts, failed = 0, per_kind[CUT_KINDS] = { 0 }, saved = 0, nkinds_saved = 0;
	const char *kinds_saved[16];
	uint64_t based = 0;
	struct timespec t0, t1;
	int i;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define VAL(field) do { if (!v) fatal("%s needs a value", o); opt.field = v; i++; } while (0)
#define NUM(field) do { if (!v || lw_parse_u64(v, &opt.field)) fatal("%s needs a number", o); i++; } while (0)
		if (!strcmp(o, "--type")) VAL(type);
		else if (!strcmp(o, "--fsck")) VAL(fsck);
		else if (!strcmp(o, "--mount-opts")) VAL(mount_opts);
		else if (!strcmp(o, "--after")) VAL(after);
		else if (!strcmp(o, "--work")) VAL(work);
		else if (!strcmp(o, "--mnt")) VAL(mnt);
		else if (!strcmp(o, "--results")) VAL(results);
		else if (!strcmp(o, "--label")) VAL(label);
		else if (!strcmp(o, "--cow")) VAL(cow);
		else if (!strcmp(o, "--limit")) NUM(limit);
		else if (!strcmp(o, "--first")) NUM(first);
		else if (!strcmp(o, "--cache-limit")) NUM(cache_limit);
		else if (!strcmp(o, "--seed")) NUM(seed);
		else if (!strcmp(o, "--save-max")) NUM(save_max);
		else if (!strcmp(o, "--min-points")) NUM(min_points);
		else if (!strcmp(o, "--prefix")) opt.prefix = true;
		else if (!strcmp(o, "--cache")) opt.cache = true;
		else if (!strcmp(o, "--skip-stale")) opt.skip_stale = true;
		else fatal("unknown option %s", o);
	}
	if (argc - i != 3) {
		fprintf(stderr, "Usage: stress-replay [--prefix] [--cache] [--type FS] [--fsck PROG] "
				"[--mount-opts OPTS] [--after MARK] [--limit N] [--cache-limit N] [--first N] [--seed S] [--work DIR] [--mnt DIR] "
				"[--results DIR] [--save-max N] [--skip-stale] [--min-points N] [--label NAME] [--cow DEV] "
				"LOG BASE EVENTS\n");
		return 2;
	}
	log_path = argv[i];
	base_path = argv[i + 1];
	events_path = argv[i + 2];
	if (regcomp(&splat, "(^|[^[:alnum:]_])(BUG|WARNING|Oops|KASAN|UBSAN)([^[:alnum:]_]|$)|"
			    "general protection|kernel BUG|hung task|blocked for more than|Call Trace",
		    REG_EXTENDED | REG_NOSUB))
		fatal("bad splat expression");
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0)
		fatal("/dev/kmsg: %s", strerror(errno));
	cuts_txt = open_out(opt.results, "cuts.txt");
	failures_txt = open_out(opt.results, "failures.txt");
	if (lw_open(&log, log_path))
		return 2;
	cuts = plan(&log, &ncuts);
	/*
	 * The snapshots' origin is BASE and their COW --cow: block devices as
	 * they are (a RAM disk answers a bio at once; a loop device over a
	 * tmpfs file costs a worker's round trip, 2 ms a read under TCG), else
	 * loop devices over BASE (read-only) and a scratch file.
	 */
	int origin_fd = -1, cow_fd = -1, base_fd = open(base_path, O_RDONLY | O_CLOEXEC);
	char cow_path[4096] = "";
	uint64_t base_bytes;
	struct stat st;

	if (base_fd < 0 || fstat(base_fd, &st) < 0)
		fatal("%s: %s", base_path, strerror(errno));
	base_bytes = lw_image_size(base_fd, base_path);
	close(base_fd);
	if (S_ISBLK(st.st_mode)) {
		snprintf(origin_dev, sizeof(origin_dev), "%s", base_path);
	} else if (bd_loop_attach(base_path, true, false, origin_dev, sizeof(origin_dev), &origin_fd)) {
		fatal("cannot set up the loop device for %s", base_path);
	}
	if (opt.cow) {
		snprintf(cow_dev, sizeof(cow_dev), "%s", opt.cow);
	} else {
		snprintf(cow_path, sizeof(cow_path), "%s/cow.img", opt.work);
		cow_fd = open(cow_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (cow_fd < 0 || ftruncate(cow_fd, (off_t)base_bytes) < 0 || close(cow_fd) < 0)
			fatal("%s: %s", cow_path, strerror(errno));
		if (bd_loop_attach(cow_path, false, false, cow_dev, sizeof(cow_dev), &cow_fd))
			fatal("cannot set up the loop device for %s", cow_path);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t k = 0; k < ncuts; k++) {
		const struct cut *c = &cuts[k];
		struct cm_cut cc = { .cut = c->e, .seed = c->seed };
		struct cm_plan p;
		char why[2048];

		phase_start();
		if (cm_parse_mode(c->mode, &cc.keep_pct) || cm_plan(&log, &cc, &p))
			fatal("cannot plan cut %" PRIu64 " (%s)", c->e, c->mode);
		build_cut(&log, &cc, &p, &based, base_bytes / 512);
		phase_end(PH_BUILD);
		check_cut(c, log.nr_entries, why, sizeof(why));
		if (bd_dm_remove(SNAPSHOT))
			fatal("cannot remove the snapshot of cut %" PRIu64, c->e);
		per_kind[c->kind]++;
		fprintf(cuts_txt, "%s cut %" PRIu64 "/%" PRIu64 " %s %s seed %" PRIu64 " e<=%ld window %" PRIu64
			": %" PRIu64 " cached, %" PRIu64 " kept: %s\n", opt.label, c->e, log.nr_entries,
			kind_names[c->kind], c->mode, c->seed, c->upto, p.window, p.nr_cached, p.nr_kept,
			*why ? why : "ok");
		if (*why) {
			char vout[4096], fout[4096];

			failed++;
			fprintf(failures_txt, "FAILED: %s cut %" PRIu64 "/%" PRIu64 " %s %s seed %" PRIu64
				" e<=%ld [%s]: %s\n", opt.label, c->e, log.nr_entries, kind_names[c->kind], c->mode,
				c->seed, c->upto, failure_kind(why), why);
			snprintf(vout, sizeof(vout), "%s/verify.out", opt.work);
			snprintf(fout, sizeof(fout), "%s/fsck.out", opt.work);
			if (strstr(why, "fsck"))
				append_file(failures_txt, fout, 30);
			else if (strncmp(why, "mount", 5) && strncmp(why, "the kernel", 10))
				append_file(failures_txt, vout, 10);
			printf("FAILED: %s cut %" PRIu64 " %s %s: %s\n", opt.label, c->e, kind_names[c->kind],
			       c->mode, why);
			/* The first cut of each kind of failure keeps its disk. */
			const char *fk = failure_kind(why);
			bool seen = false;
			for (size_t j = 0; j < nkinds_saved; j++)
				seen |= kinds_saved[j] == fk;
			if (!seen && saved < opt.save_max && nkinds_saved < 16) {
				kinds_saved[nkinds_saved++] = fk;
				char img[4096];
				/* BASE is still at this cut's window start: the same disk again, before mount. */
				snprintf(img, sizeof(img), "%s/%s-cut%" PRIu64 "-seed%" PRIu64 "-%s.img", opt.results,
					 opt.label, c->e, c->seed, c->mode);
				for (char *s = strrchr(img, '/'); s && *s; s++)
					if (*s == ':')
						*s = '-';
				if (!cm_make_cut(&log, &cc, &p, base_path, based, img)) {
					fprintf(failures_txt, "  image: %s (the disk before mount)\n", img);
					saved++;
				}
			}
		}
		cm_plan_free(&p);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("stress-replay %s: %zu cuts (%zu after a flush/FUA, %zu after an fsync mark, %zu volatile-cache, "
	       "%zu whole log) in %.0f s, %zu failed\n", opt.label, ncuts, per_kind[CUT_FLUSH], per_kind[CUT_MARK],
	       per_kind[CUT_CACHE], per_kind[CUT_FINAL], secs, failed);
	if (origin_fd >= 0)
		bd_loop_detach(origin_fd, origin_dev);
	if (cow_fd >= 0) {
		bd_loop_detach(cow_fd, cow_dev);
		unlink(cow_path);
	}
	printf("stress-replay %s: log bytes %" PRIu64 "\n", opt.label, log.next_off);
	printf("stress-replay %s: seconds per cut:", opt.label);
	for (int ph = 0; ph < PH_COUNT; ph++)
		printf(" %s %.2f", phase_names[ph], ncuts ? phase_secs[ph] / (double)ncuts : 0.0);
	printf("\n");
	lw_close(&log);
	free(cuts);
	if (ncuts < opt.min_points) {
		printf("stress-replay %s: only %zu cuts, want at least %" PRIu64 "\n", opt.label, ncuts,
		       opt.min_points);
		return 1;
	}
	return failed ? 1 : 0;
}
