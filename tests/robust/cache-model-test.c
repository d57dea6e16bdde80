// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the volatile-cache power-cut model (cache-model.c) and of
 * the cache-cut tool built on it, on small synthetic dm-log-writes logs
 * written with logwrites.c: the prefix before the last flush is always on
 * the disk, FUA writes are kept, dropped writes leave the old bytes,
 * overlapping writes land in log order, and a seed gives the same disk
 * every time.
 *
 *   cache-model-test CACHE_CUT      (the path of the cache-cut binary)
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cache-model.h"

#define SECTOR 512
#define DISK_SECTORS 64
#define OLD 0xee		/* every byte of the disk before the log */

static const char *cache_cut;	/* argv[1] */
static char dir[] = "/tmp/cache-model-test.XXXXXX";
static char log_path[300], base_path[300], img_path[300], out_path[300], err_path[300];

/* The synthetic log under construction; an entry's data is its tag byte. */
static struct lw_writer w;

static void log_begin(void)
{
	ck_assert_int_eq(lw_create(&w, log_path, SECTOR), 0);
}

/* Append an entry; data entries are filled with tag. Returns its index. */
static uint64_t put(uint32_t flags, uint64_t sector, uint64_t nr, unsigned char tag)
{
	static unsigned char buf[8 * SECTOR];
	uint64_t index = w.nr_entries;

	ck_assert(nr * SECTOR <= sizeof(buf));
	memset(buf, tag, sizeof(buf));
	ck_assert_int_eq(lw_append(&w, flags, sector, nr, buf, NULL), 0);
	return index;
}

static uint64_t write_(uint64_t sector, unsigned char tag) { return put(0, sector, 1, tag); }
static uint64_t fua(uint64_t sector, unsigned char tag) { return put(LW_FUA, sector, 1, tag); }
static uint64_t flush(void) { return put(LW_FLUSH, 0, 0, 0); }

static uint64_t mark(const char *name)
{
	uint64_t index = w.nr_entries;

	ck_assert_int_eq(lw_append(&w, LW_MARK, 0, 0, NULL, name), 0);
	return index;
}

static void log_end(struct lw_log *log)
{
	ck_assert_int_eq(lw_finish(&w), 0);
	ck_assert_int_eq(lw_open(log, log_path), 0);
}

/* A fresh base image: the disk before the log, every byte OLD. */
static void fresh_base(void)
{
	unsigned char buf[DISK_SECTORS * SECTOR];
	int fd = open(base_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	memset(buf, OLD, sizeof(buf));
	ck_assert_int_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
}

/*
 * Run cache-cut with the given arguments (after the tool's path); its exit
 * status, stdout in out_path, stderr in err_path (refusals are expected).
 */
static int run_tool(const char *const *args)
{
	char *argv[16];
	int n = 0, status;

	argv[n++] = (char *)cache_cut;
	while (*args)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int efd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || efd < 0 || dup2(fd, 1) < 0 || dup2(efd, 2) < 0)
			_exit(127);
		execv(cache_cut, argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) != 127, "cannot run %s", cache_cut);
	return WEXITSTATUS(status);
}

/* cache-cut must succeed; on failure the assertion shows what it said. */
static void must_run(int rc)
{
	char msg[512] = "";
	FILE *f = fopen(err_path, "r");

	if (f) {
		size_t n = fread(msg, 1, sizeof(msg) - 1, f);
		msg[n] = '\0';
		fclose(f);
	}
	ck_assert_msg(rc == 0, "cache-cut exited %d: %s", rc, msg);
}

static int make_cut(uint64_t from, uint64_t cut, uint64_t seed, const char *mode)
{
	char f[32], c[32], s[32];

	snprintf(f, sizeof(f), "%llu", (unsigned long long)from);
	snprintf(c, sizeof(c), "%llu", (unsigned long long)cut);
	snprintf(s, sizeof(s), "%llu", (unsigned long long)seed);
	const char *args[] = { "make", log_path, base_path, f, img_path, c, s, mode, NULL };
	return run_tool(args);
}

/* The byte every byte of sector s of path holds (the test asserts it is uniform). */
static unsigned char sector_of(const char *path, uint64_t s)
{
	unsigned char buf[SECTOR];
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, buf, SECTOR, (off_t)(s * SECTOR)), SECTOR);
	close(fd);
	for (int i = 1; i < SECTOR; i++)
		ck_assert_msg(buf[i] == buf[0], "sector %llu of %s is not uniform", (unsigned long long)s, path);
	return buf[0];
}

static void plan(struct lw_log *log, uint64_t cut, uint64_t seed, unsigned pct, struct cm_plan *p)
{
	struct cm_cut c = { cut, seed, pct, 0 };

	ck_assert_int_eq(cm_plan(log, &c, p), 0);
}

/*
 * The shape most tests use:
 *   0 W s0 'a'   1 W s1 'b'   2 F   3 U s2 'c'   4 M e1
 *   5 W s3 'd'   6 W s4 'e'   7 FU (flush+FUA, s5 'f')   8 W s6 'g'
 *   9 U s7 'h'  10 W s8 'i'  11 W s9 'j'  12 M e2
 */
static void standard_log(struct lw_log *log)
{
	log_begin();
	write_(0, 'a');
	write_(1, 'b');
	flush();
	fua(2, 'c');
	mark("e1");
	write_(3, 'd');
	write_(4, 'e');
	put(LW_FLUSH | LW_FUA, 5, 1, 'f');
	write_(6, 'g');
	fua(7, 'h');
	write_(8, 'i');
	write_(9, 'j');
	mark("e2");
	log_end(log);
}

START_TEST(window_is_the_last_flush_below_the_cut)
{
	struct lw_log log;
	struct cm_plan p;

	standard_log(&log);
	plan(&log, 2, 1, 50, &p);	/* no flush below entry 2 */
	ck_assert_uint_eq(p.window, 0);
	ck_assert_uint_eq(p.nr_cached, 2);
	cm_plan_free(&p);
	plan(&log, 7, 1, 50, &p);	/* the flush+FUA at 7 is not below the cut */
	ck_assert_uint_eq(p.window, 2);
	ck_assert_uint_eq(p.nr_cached, 2);	/* 5 and 6 */
	ck_assert_uint_eq(p.durable_fua, 1);	/* 3 */
	cm_plan_free(&p);
	plan(&log, 8, 1, 50, &p);
	ck_assert_uint_eq(p.window, 7);
	ck_assert_uint_eq(p.nr_cached, 0);
	ck_assert_uint_eq(p.durable_fua, 1);	/* the flush+FUA's own data */
	cm_plan_free(&p);
	plan(&log, 13, 1, 50, &p);
	ck_assert_uint_eq(p.window, 7);
	ck_assert_uint_eq(p.nr_cached, 3);	/* 8, 10, 11 */
	ck_assert_uint_eq(p.cached[0], 8);
	ck_assert_uint_eq(p.cached[1], 10);
	ck_assert_uint_eq(p.cached[2], 11);
	ck_assert_uint_eq(p.durable_fua, 2);	/* 7's data and 9 */
	cm_plan_free(&p);
	lw_close(&log);
}
END_TEST

START_TEST(prefix_before_the_flush_is_always_on_disk)
{
	struct lw_log log;

	standard_log(&log);
	lw_close(&log);
	/* Whatever the seed and mode, entries before the window land. */
	const char *modes[] = { "none", "random", "random:10", "all" };
	for (unsigned m = 0; m < 4; m++)
		for (uint64_t seed = 1; seed <= 8; seed++) {
			fresh_base();
			must_run(make_cut(0, 13, seed, modes[m]));
			for (uint64_t s = 0; s < 6; s++)	/* a b c d e f: before 7, or FUA */
				ck_assert_int_eq(sector_of(img_path, s), "abcdef"[s]);
			ck_assert_int_eq(sector_of(img_path, 7), 'h');	/* FUA in the window */
		}
}
END_TEST

START_TEST(fua_kept_cached_dropped_with_none)
{
	struct lw_log log;

	standard_log(&log);
	lw_close(&log);
	fresh_base();
	must_run(make_cut(0, 7, 3, "none"));
	ck_assert_int_eq(sector_of(img_path, 0), 'a');
	ck_assert_int_eq(sector_of(img_path, 1), 'b');
	ck_assert_int_eq(sector_of(img_path, 2), 'c');	/* FUA after the flush */
	ck_assert_int_eq(sector_of(img_path, 3), OLD);	/* cached, dropped */
	ck_assert_int_eq(sector_of(img_path, 4), OLD);
	ck_assert_int_eq(sector_of(img_path, 5), OLD);	/* the flush at 7 did not happen */
	for (uint64_t s = 6; s < DISK_SECTORS; s++)
		ck_assert_int_eq(sector_of(img_path, s), OLD);
	/* A later cut from the same base: the base moved to 7, the drops are gone. */
	must_run(make_cut(2, 13, 3, "none"));
	ck_assert_int_eq(sector_of(img_path, 3), 'd');
	ck_assert_int_eq(sector_of(img_path, 4), 'e');
	ck_assert_int_eq(sector_of(img_path, 5), 'f');
	ck_assert_int_eq(sector_of(img_path, 6), OLD);
	ck_assert_int_eq(sector_of(img_path, 7), 'h');
	ck_assert_int_eq(sector_of(img_path, 8), OLD);
	ck_assert_int_eq(sector_of(img_path, 9), OLD);
	ck_assert_int_eq(sector_of(base_path, 4), 'e');	/* BASE holds [0, 7) now */
	ck_assert_int_eq(sector_of(base_path, 5), OLD);
}
END_TEST

START_TEST(all_keeps_every_cached_write)
{
	struct lw_log log;

	standard_log(&log);
	lw_close(&log);
	fresh_base();
	must_run(make_cut(0, 13, 5, "all"));
	for (uint64_t s = 0; s < 10; s++)
		ck_assert_int_eq(sector_of(img_path, s), "abcdefghij"[s]);
	ck_assert_int_eq(sector_of(img_path, 10), OLD);
}
END_TEST

/* Random: exactly the plan's kept writes are on the image, the dropped ones are not. */
START_TEST(random_applies_exactly_the_plan)
{
	struct lw_log log;
	int saw_kept = 0, saw_dropped = 0;

	log_begin();
	write_(60, 'z');
	flush();
	for (int i = 0; i < 40; i++)
		write_((uint64_t)i, (unsigned char)('A' + i));
	log_end(&log);
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct cm_plan p;
		plan(&log, 42, seed, 50, &p);
		ck_assert_uint_eq(p.window, 1);
		ck_assert_uint_eq(p.nr_cached, 40);
		fresh_base();
		must_run(make_cut(0, 42, seed, "random"));
		ck_assert_int_eq(sector_of(img_path, 60), 'z');
		for (int i = 0; i < 40; i++) {
			unsigned char want = p.kept[i] ? (unsigned char)('A' + i) : OLD;
			ck_assert_msg(sector_of(img_path, (uint64_t)i) == want,
				      "seed %llu: sector %d should be %s", (unsigned long long)seed, i,
				      p.kept[i] ? "kept" : "dropped");
			saw_kept |= p.kept[i];
			saw_dropped |= !p.kept[i];
		}
		cm_plan_free(&p);
	}
	ck_assert(saw_kept && saw_dropped);
	lw_close(&log);
}
END_TEST

START_TEST(same_seed_same_disk)
{
	struct lw_log log;
	unsigned char first[40];
	int differs = 0;

	log_begin();
	flush();
	for (int i = 0; i < 40; i++)
		write_((uint64_t)i, (unsigned char)('A' + i));
	log_end(&log);
	lw_close(&log);
	for (int round = 0; round < 2; round++) {
		fresh_base();
		must_run(make_cut(0, 41, 1234, "random"));
		for (int i = 0; i < 40; i++) {
			unsigned char got = sector_of(img_path, (uint64_t)i);
			if (!round)
				first[i] = got;
			else
				ck_assert_msg(got == first[i], "sector %d differs between two runs of seed 1234", i);
		}
	}
	/* ... and another seed picks another subset. */
	fresh_base();
	must_run(make_cut(0, 41, 1235, "random"));
	for (int i = 0; i < 40; i++)
		differs |= sector_of(img_path, (uint64_t)i) != first[i];
	ck_assert(differs);
	/* The printed plan is the same too. */
	const char *args[] = { "plan", log_path, "41", "1234", "random", NULL };
	char a[4096] = "", b[4096] = "";
	for (int round = 0; round < 2; round++) {
		must_run(run_tool(args));
		FILE *f = fopen(out_path, "r");
		ck_assert_ptr_nonnull(f);
		ck_assert_ptr_nonnull(fgets(round ? b : a, sizeof(a), f));
		fclose(f);
	}
	ck_assert_str_eq(a, b);
	ck_assert_msg(strstr(a, "cut 41 seed 1234 random: window 0: 40 cached"), "plan line: %s", a);
}
END_TEST

/* Two writes to one sector in the cache: the later one wins when both are kept. */
START_TEST(overlapping_writes_keep_their_order)
{
	struct lw_log log;
	uint64_t both = 0, first_only = 0, second_only = 0;

	log_begin();
	flush();
	write_(10, 'x');	/* entry 1 */
	write_(10, 'y');	/* entry 2 */
	log_end(&log);
	lw_close(&log);
	/* Find seeds for each case from the model itself, then check the tool. */
	for (uint64_t seed = 1; seed < 1000 && (!both || !first_only || !second_only); seed++) {
		struct cm_cut c = { 3, seed, 50, 0 };
		int k1 = cm_keeps(&c, 1), k2 = cm_keeps(&c, 2);
		if (k1 && k2 && !both)
			both = seed;
		if (k1 && !k2 && !first_only)
			first_only = seed;
		if (!k1 && k2 && !second_only)
			second_only = seed;
	}
	ck_assert(both && first_only && second_only);
	fresh_base();
	must_run(make_cut(0, 3, both, "random"));
	ck_assert_int_eq(sector_of(img_path, 10), 'y');
	fresh_base();
	must_run(make_cut(0, 3, first_only, "random"));
	ck_assert_int_eq(sector_of(img_path, 10), 'x');
	fresh_base();
	must_run(make_cut(0, 3, second_only, "random"));
	ck_assert_int_eq(sector_of(img_path, 10), 'y');
	fresh_base();
	must_run(make_cut(0, 3, 1, "all"));
	ck_assert_int_eq(sector_of(img_path, 10), 'y');
}
END_TEST

START_TEST(discards_and_marks_write_nothing)
{
	struct lw_log log;

	log_begin();
	write_(3, 'q');
	flush();
	put(LW_DISCARD, 3, 1, 0);	/* no data in the log for a discard */
	mark("e1");
	flush();
	log_end(&log);
	lw_close(&log);
	fresh_base();
	must_run(make_cut(0, 5, 1, "all"));
	ck_assert_int_eq(sector_of(img_path, 3), 'q');	/* the discard kept the old contents */
}
END_TEST

/* "+discard": a discard kept in the cut zeroes its range; one dropped leaves the old bytes. */
START_TEST(discards_applied_when_asked)
{
	struct lw_log log;

	log_begin();
	write_(3, 'q');
	write_(4, 'r');
	flush();
	put(LW_DISCARD, 3, 2, 0);
	mark("e1");
	flush();
	log_end(&log);
	lw_close(&log);
	fresh_base();
	must_run(make_cut(0, 6, 1, "all+discard"));
	ck_assert_int_eq(sector_of(img_path, 3), 0);
	ck_assert_int_eq(sector_of(img_path, 4), 0);
	fresh_base();
	must_run(make_cut(0, 4, 1, "none+discard"));	/* cut before the flush: the discard was lost */
	ck_assert_int_eq(sector_of(img_path, 3), 'q');
	ck_assert_int_eq(sector_of(img_path, 4), 'r');
}
END_TEST

/* A flush whose own data has no FUA: the flush is a barrier, its data is cached. */
START_TEST(flush_data_without_fua_is_cached)
{
	struct lw_log log;
	struct cm_plan p;

	log_begin();
	write_(1, 'a');
	put(LW_FLUSH, 2, 1, 'b');
	log_end(&log);
	plan(&log, 2, 1, 0, &p);
	ck_assert_uint_eq(p.window, 1);
	ck_assert_uint_eq(p.nr_cached, 1);
	ck_assert_uint_eq(p.cached[0], 1);
	cm_plan_free(&p);
	lw_close(&log);
	fresh_base();
	must_run(make_cut(0, 2, 1, "none"));
	ck_assert_int_eq(sector_of(img_path, 1), 'a');	/* before the flush */
	ck_assert_int_eq(sector_of(img_path, 2), OLD);	/* its data is not durable */
}
END_TEST

START_TEST(ambiguous_overlap_with_fua_is_counted)
{
	struct lw_log log;
	struct cm_plan p;

	log_begin();
	flush();
	fua(4, 'u');
	write_(4, 'w');	/* may have completed before the FUA write was sent */
	write_(5, 'v');
	log_end(&log);
	plan(&log, 4, 1, 100, &p);
	ck_assert_uint_eq(p.ambiguous, 1);
	cm_plan_free(&p);
	plan(&log, 4, 1, 0, &p);
	ck_assert_uint_eq(p.ambiguous, 0);	/* dropped: nothing to be unsure about */
	cm_plan_free(&p);
	lw_close(&log);
}
END_TEST

START_TEST(keep_percent_is_roughly_honoured)
{
	unsigned counts[3] = { 0 };
	const unsigned pct[3] = { 10, 50, 90 };

	for (int k = 0; k < 3; k++) {
		struct cm_cut c = { 777, 42, pct[k], 0 };
		for (uint64_t i = 0; i < 2000; i++)
			counts[k] += (unsigned)cm_keeps(&c, i);
		ck_assert_msg(counts[k] > 20 * pct[k] - 120 && counts[k] < 20 * pct[k] + 120,
			      "random:%u kept %u of 2000", pct[k], counts[k]);
	}
}
END_TEST

START_TEST(modes_parse)
{
	unsigned pct = 7;

	ck_assert_int_eq(cm_parse_mode("all", &pct), 0);
	ck_assert_uint_eq(pct, 100);
	ck_assert_int_eq(cm_parse_mode("none", &pct), 0);
	ck_assert_uint_eq(pct, 0);
	ck_assert_int_eq(cm_parse_mode("random", &pct), 0);
	ck_assert_uint_eq(pct, 50);
	ck_assert_int_eq(cm_parse_mode("random:25", &pct), 0);
	ck_assert_uint_eq(pct, 25);
	ck_assert_int_eq(cm_parse_mode("random:101", &pct), -1);
	ck_assert_int_eq(cm_parse_mode("random:", &pct), -1);
	ck_assert_int_eq(cm_parse_mode("random:-1", &pct), -1);
	ck_assert_int_eq(cm_parse_mode("some", &pct), -1);
}
END_TEST

START_TEST(tool_refuses_bad_requests)
{
	struct lw_log log;

	standard_log(&log);
	lw_close(&log);
	fresh_base();
	must_run(make_cut(0, 13, 1, "all"));
	/* BASE is at entry 7 now: a cut whose window starts earlier cannot use it. */
	ck_assert_int_ne(make_cut(8, 13, 1, "all"), 0);
	ck_assert_int_ne(make_cut(7, 14, 1, "all"), 0);	/* past the log's end */
	ck_assert_int_ne(make_cut(7, 13, 1, "sometimes"), 0);
	const char *args[] = { "plan", log_path, "x", "1", "all", NULL };
	ck_assert_int_eq(run_tool(args), 2);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("cache-model");
	TCase *t = tcase_create("model");

	tcase_add_test(t, window_is_the_last_flush_below_the_cut);
	tcase_add_test(t, prefix_before_the_flush_is_always_on_disk);
	tcase_add_test(t, fua_kept_cached_dropped_with_none);
	tcase_add_test(t, all_keeps_every_cached_write);
	tcase_add_test(t, random_applies_exactly_the_plan);
	tcase_add_test(t, same_seed_same_disk);
	tcase_add_test(t, overlapping_writes_keep_their_order);
	tcase_add_test(t, discards_and_marks_write_nothing);
	tcase_add_test(t, discards_applied_when_asked);
	tcase_add_test(t, flush_data_without_fua_is_cached);
	tcase_add_test(t, ambiguous_overlap_with_fua_is_counted);
	tcase_add_test(t, keep_percent_is_roughly_honoured);
	tcase_add_test(t, modes_parse);
	tcase_add_test(t, tool_refuses_bad_requests);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "Usage: cache-model-test CACHE_CUT\n");
		return 2;
	}
	cache_cut = argv[1];
	if (access(cache_cut, X_OK)) {
		fprintf(stderr, "cache-model-test: %s: %s\n", cache_cut, strerror(errno));
		return 2;
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(log_path, sizeof(log_path), "%s/log", dir);
	snprintf(base_path, sizeof(base_path), "%s/base.img", dir);
	snprintf(img_path, sizeof(img_path), "%s/cut.img", dir);
	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	snprintf(err_path, sizeof(err_path), "%s/err", dir);
	/* No fork: the tests share the scratch files, one after another. */
	SRunner *sr = srunner_create(suite());
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	unlink(log_path);
	unlink(base_path);
	unlink(img_path);
	unlink(out_path);
	unlink(err_path);
	rmdir(dir);
	return failed ? 1 : 0;
}
