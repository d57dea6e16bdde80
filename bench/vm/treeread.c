/*
 * treeread: read a whole tree, every regular file once and in full, in the
 * order its directories list it (what `find DIR -type f | xargs cat` does),
 * for the many-files and aging benchmarks (bench/vm/treebench.sh,
 * bench/vm/agingbench.sh), and say what it read so a figure can be checked.
 *
 *   treeread [--sum] DIR
 *
 * Prints one JSON line: files, dirs (DIR included), symlinks, bytes (the
 * files' sizes added up, each one checked against what read() returned),
 * alloc (the sizes rounded up to 4 KiB plus 4 KiB per directory: the least a
 * filesystem of 4 KiB blocks needs for the tree) and seconds
 * (CLOCK_MONOTONIC around the walk, no process start-up).  With --sum, also
 * "sum": a checksum of every name, symlink target and file content that does
 * not depend on the order of the walk, so two trees read on different
 * filesystems compare equal exactly when they hold the same things.
 *
 * Files are opened with O_NOATIME (the bench runs as root): a read must not
 * turn into inode writes for some files (new ones, under relatime) and not
 * for others, which would make an aged tree and its fresh copy differ in
 * more than their layout.
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
#include <time.h>
#include <unistd.h>

#define BUF_SIZE (128 << 10)	/* what cat reads at a time */

static const char *prog = "treeread";
static int want_sum;
static size_t root_len;
static unsigned char *buf;
static long long files, dirs, symlinks, bytes, alloc;
static uint64_t total;

/* FNV-1a over BYTES, continuing from H. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

/* The contents, a word at a time: byte-wise FNV would make --sum CPU-bound under TCG. */
static uint64_t words(uint64_t h, const unsigned char *p, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ULL;
	}
	return fnv(h, p + i, n - i);
}

/* splitmix64's finaliser: one entry's hash, spread before it is added. */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The hash of an entry starts from its type and its name relative to DIR. */
static uint64_t name_hash(char type, const char *path)
{
	const char *rel = path + root_len;

	return fnv(fnv(0xcbf29ce484222325ULL, &type, 1), rel, strlen(rel));
}

static void fail(const char *what, const char *path)
{
	fprintf(stderr, "%s: %s: %s while %s\n", prog, path, strerror(errno), what);
	exit(1);
}

static void read_file(const char *path, const struct stat *st)
{
	uint64_t h = name_hash('f', path);
	long long got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOATIME);

	if (fd < 0)
		fail("opening a file", path);
	while ((n = read(fd, buf, BUF_SIZE)) > 0) {
		if (want_sum)
			h = words(h, buf, n);
		got += n;
	}
	if (n < 0)
		fail("reading a file", path);
	close(fd);
	if (got != st->st_size) {
		fprintf(stderr, "%s: %s: read %lld bytes of a file of %lld\n", prog, path, got,
			(long long)st->st_size);
		exit(1);
	}
	files++;
	bytes += got;
	alloc += (got + 4095) / 4096 * 4096;
	total += mix(h);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char target[PATH_MAX];
	ssize_t n;

	(void)ftw;
	switch (type) {
	case FTW_F:
		if (S_ISREG(st->st_mode))
			read_file(path, st);
		else
			total += mix(name_hash('o', path));	/* devices, fifos: their names */
		break;
	case FTW_D:
		dirs++;
		alloc += 4096;
		total += mix(name_hash('d', path));
		break;
	case FTW_SL:
		n = readlink(path, target, sizeof(target));
		if (n < 0)
			fail("reading a symlink", path);
		symlinks++;
		total += mix(fnv(name_hash('l', path), target, n));
		break;
	default:	/* FTW_DNR, FTW_NS: a directory or entry that cannot be read */
		errno = errno ? errno : EACCES;
		fail("walking the tree", path);
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *root;
	double t0, t1;

	if (argc == 3 && !strcmp(argv[1], "--sum"))
		want_sum = 1;
	else if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: %s [--sum] DIR\n", prog);
		return 2;
	}
	root = argv[argc - 1];
	root_len = strlen(root);
	buf = malloc(BUF_SIZE);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	t0 = now();
	if (nftw(root, visit, 64, FTW_PHYS) < 0)
		fail("walking the tree", root);
	t1 = now();
	printf("{\"files\": %lld, \"dirs\": %lld, \"symlinks\": %lld, \"bytes\": %lld, \"alloc\": %lld, "
	       "\"seconds\": %.6f", files, dirs, symlinks, bytes, alloc, t1 - t0);
	if (want_sum)
		printf(", \"sum\": \"%016llx\"", (unsigned long long)total);
	printf("}\n");
	free(buf);
	return 0;
}
