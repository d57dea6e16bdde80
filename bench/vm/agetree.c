/*
 * agetree: the workload of the aging benchmark (bench/vm/agingbench.sh),
 * after Conway et al., "File Systems Fated for Senescence? Nonsense, Says
 * Science!" (FAST '17): rounds of creates, deletes and rewrites over a tree,
 * the same sequence on every filesystem.
 *
 *   agetree age DIR SEED ROUND PCT
 *       One round over the regular files under DIR, listed and sorted by
 *       name (so the choice does not depend on any filesystem's readdir
 *       order): delete PCT% of them, rewrite PCT% others (half of those
 *       truncated and written anew at 0.5-1.5 times their size, half
 *       appended to by up to half their size), and create as many new files
 *       as were deleted, each as big as a file picked from the tree before
 *       the round, in a directory picked from the tree's; the operations
 *       run in a shuffled order, so new data lands in the holes deletes
 *       leave, as it does under a `git pull`.
 *   agetree fill DIR BYTES SEED
 *       Files of 1-16 MiB (uniform, the last one cut to fit) in DIR,
 *       BYTES in all: the other data of a nearly full filesystem.
 *
 * Everything (choices, sizes, contents) comes from SEED and ROUND, so the
 * same calls leave the same tree on every filesystem.  One JSON line says
 * what was done; no sync here (the script times the round with its sync).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATTERN (1 << 20)	/* the random bytes every file's contents are cut from */
#define CHUNK (256 << 10)	/* the most one write() passes */

static const char *prog = "agetree";
static uint64_t rng;
static unsigned char *pattern;

struct entry {
	char *path;	/* relative to DIR */
	long long size;
};

static struct entry *files;
static size_t nfiles, cap_files;
static char **dirs;
static size_t ndirs, cap_dirs;
static size_t root_len;

static uint64_t next(void)	/* splitmix64 */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unit(void)	/* uniform in [0, 1) */
{
	return (next() >> 11) * 0x1.0p-53;
}

static size_t below(size_t n)
{
	return next() % n;
}

static void fail(const char *what, const char *path)
{
	fprintf(stderr, "%s: %s: %s while %s\n", prog, path, strerror(errno), what);
	exit(1);
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	return p;
}

static char *dup_or_die(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	return d;
}

static int list(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_D) {
		dirs = grow(dirs, &cap_dirs, ndirs, sizeof(*dirs));
		dirs[ndirs++] = dup_or_die(path + root_len);
	} else if (type == FTW_F && S_ISREG(st->st_mode)) {
		files = grow(files, &cap_files, nfiles, sizeof(*files));
		files[nfiles].path = dup_or_die(path + root_len);
		files[nfiles++].size = st->st_size;
	} else if (type == FTW_DNR || type == FTW_NS) {
		fail("listing the tree", path);
	}
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* write_bytes FD PATH N: N bytes cut from the pattern at a random place. */
static void write_bytes(int fd, const char *path, long long n)
{
	size_t off = below(PATTERN);

	while (n > 0) {
		size_t len = PATTERN - off;
		ssize_t w;

		if (len > CHUNK)
			len = CHUNK;
		if ((long long)len > n)
			len = n;
		w = write(fd, pattern + off, len);
		if (w < 0)
			fail("writing", path);
		n -= w;
		off = (off + w) % PATTERN;
	}
}

static void write_file(const char *path, int flags, long long n)
{
	int fd = open(path, O_WRONLY | flags, 0644);

	if (fd < 0)
		fail("opening for writing", path);
	write_bytes(fd, path, n);
	if (close(fd))
		fail("closing", path);
}

static long long parse(const char *s, const char *what, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > max) {
		fprintf(stderr, "%s: %s must be a number from 0 to %lld, not '%s'\n", prog, what, max, s);
		exit(2);
	}
	return v;
}

static void seed_with(long long seed, long long round)
{
	rng = (uint64_t)seed * 0x100000001b3ULL ^ (uint64_t)round * 0x9e3779b97f4a7c15ULL;
	pattern = malloc(PATTERN);
	if (!pattern) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	for (size_t i = 0; i < PATTERN; i += 8) {
		uint64_t w = next();

		memcpy(pattern + i, &w, 8);
	}
}

enum op { DELETE, REWRITE, APPEND, CREATE };

struct step {
	enum op op;
	size_t i;	/* the file's index in files[]; for CREATE, the new file's number */
};

static void age(const char *root, long long seed, long long round, long long pct)
{
	char path[PATH_MAX];
	long long before = 0, written = 0, k, ops = 0;
	long long done[4] = { 0 };
	size_t *pick;
	struct step *todo;

	seed_with(seed, round);
	root_len = strlen(root);
	if (nftw(root, list, 64, FTW_PHYS) < 0)
		fail("listing the tree", root);
	qsort(files, nfiles, sizeof(*files), by_path);
	qsort(dirs, ndirs, sizeof(*dirs), by_name);
	k = (long long)nfiles * pct / 100;
	if (nfiles < 2 || k < 1) {
		fprintf(stderr, "%s: %s holds %zu files: too few for %lld%% of them to change\n", prog, root,
			nfiles, pct);
		exit(1);
	}
	for (size_t i = 0; i < nfiles; i++)
		before += files[i].size;

	/* The first k of a shuffle are deleted, the next k rewritten. */
	pick = malloc(nfiles * sizeof(*pick));
	todo = malloc(3 * k * sizeof(*todo));
	if (!pick || !todo) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	for (size_t i = 0; i < nfiles; i++)
		pick[i] = i;
	for (long long i = 0; i < 2 * k; i++) {
		size_t j = i + below(nfiles - i), t = pick[i];

		pick[i] = pick[j];
		pick[j] = t;
	}
	for (long long i = 0; i < k; i++) {
		todo[ops].op = DELETE;
		todo[ops++].i = pick[i];
		todo[ops].op = i % 2 ? APPEND : REWRITE;
		todo[ops++].i = pick[k + i];
		todo[ops].op = CREATE;
		todo[ops++].i = i;
	}
	for (long long i = ops - 1; i > 0; i--) {
		long long j = below(i + 1);
		struct step t = todo[i];

		todo[i] = todo[j];
		todo[j] = t;
	}

	long long after = before;
	for (long long i = 0; i < ops; i++) {
		struct entry *e = &files[todo[i].i];
		long long n;

		switch (todo[i].op) {
		case DELETE:
			snprintf(path, sizeof(path), "%s%s", root, e->path);
			if (unlink(path))
				fail("deleting", path);
			after -= e->size;
			break;
		case REWRITE:
			snprintf(path, sizeof(path), "%s%s", root, e->path);
			n = (long long)(e->size * (0.5 + unit()));
			write_file(path, O_TRUNC, n);
			after += n - e->size;
			written += n;
			break;
		case APPEND:
			snprintf(path, sizeof(path), "%s%s", root, e->path);
			n = 1 + below(e->size / 2 + 1);
			write_file(path, O_APPEND, n);
			after += n;
			written += n;
			break;
		case CREATE:
			n = files[below(nfiles)].size;
			snprintf(path, sizeof(path), "%s%s/aged-%03lld-%06zu", root, dirs[below(ndirs)], round,
				 todo[i].i);
			write_file(path, O_CREAT | O_EXCL, n);
			after += n;
			written += n;
			break;
		}
		done[todo[i].op]++;
	}
	printf("{\"round\": %lld, \"files\": %zu, \"bytes\": %lld, \"deleted\": %lld, \"rewritten\": %lld, "
	       "\"appended\": %lld, \"created\": %lld, \"written\": %lld}\n", round, nfiles, after,
	       done[DELETE], done[REWRITE], done[APPEND], done[CREATE], written);
}

static void fill(const char *dir, long long total, long long seed)
{
	char path[PATH_MAX];
	long long left = total, n;
	int i = 0;

	seed_with(seed, 0);
	while (left > 0) {
		n = (1 << 20) + below(15 << 20);	/* 1-16 MiB */
		if (n > left)
			n = left;
		snprintf(path, sizeof(path), "%s/fill-%05d", dir, i++);
		write_file(path, O_CREAT | O_EXCL, n);
		left -= n;
	}
	printf("{\"fill\": %d, \"bytes\": %lld}\n", i, total);
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "age")) {
		age(argv[2], parse(argv[3], "SEED", LLONG_MAX), parse(argv[4], "ROUND", 999),
		    parse(argv[5], "PCT", 50));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "fill")) {
		fill(argv[2], parse(argv[3], "BYTES", LLONG_MAX), parse(argv[4], "SEED", LLONG_MAX));
		return 0;
	}
	fprintf(stderr, "usage: %s age DIR SEED ROUND PCT\n"
			"       %s fill DIR BYTES SEED\n", prog, prog);
	return 2;
}
