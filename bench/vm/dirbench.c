/*
 * dirbench: the metadata part of the VM benchmark (bench/vm/fsbench.sh).
 * fio has no create/stat/unlink-many-files mode, so this does one phase per
 * call and prints one JSON line: {"op": ..., "files": N, "seconds": S}.
 *
 *   dirbench create ROOT NDIRS NFILES   mkdir ROOT/dNNN, create NFILES empty
 *                                       files spread evenly over them, syncfs
 *   dirbench stat   ROOT NDIRS NFILES   stat every file by its path
 *   dirbench ls     DIR                 readdir DIR and lstat each entry
 *                                       (what `ls -l` asks of the filesystem)
 *   dirbench unlink ROOT NDIRS NFILES   unlink every file, rmdir the dirs, syncfs
 *
 * create and unlink end with syncfs inside the timed part: without it a
 * journalling filesystem would only have dirtied memory, and the figure
 * would say nothing about the metadata writes each one makes.
 * Timing is CLOCK_MONOTONIC around the phase only (no process start-up).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "dirbench";

static void die(const char *what, const char *path)
{
	fprintf(stderr, "%s: %s %s: %s\n", prog, what, path, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: %s create|stat|unlink ROOT NDIRS NFILES\n"
			"       %s ls DIR\n", prog, prog);
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long parse_count(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > 10000000) {
		fprintf(stderr, "%s: %s must be a number from 1 to 10000000, not '%s'\n", prog, what, s);
		exit(2);
	}
	return v;
}

/* File i lives in directory i % ndirs, so every directory fills alike. */
static void file_path(char *buf, const char *root, long ndirs, long i)
{
	snprintf(buf, PATH_MAX, "%s/d%04ld/f%07ld", root, i % ndirs, i);
}

static void dir_path(char *buf, const char *root, long d)
{
	snprintf(buf, PATH_MAX, "%s/d%04ld", root, d);
}

static void sync_fs_of(const char *root)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		die("open", root);
	if (syncfs(fd))
		die("syncfs", root);
	close(fd);
}

static void report(const char *op, long files, double seconds)
{
	printf("{\"op\": \"%s\", \"files\": %ld, \"seconds\": %.6f}\n", op, files, seconds);
}

static void do_create(const char *root, long ndirs, long nfiles)
{
	char path[PATH_MAX];
	double t0 = now();

	for (long d = 0; d < ndirs; d++) {
		dir_path(path, root, d);
		if (mkdir(path, 0755))
			die("mkdir", path);
	}
	for (long i = 0; i < nfiles; i++) {
		int fd;

		file_path(path, root, ndirs, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			die("create", path);
		close(fd);
	}
	sync_fs_of(root);
	report("create", nfiles, now() - t0);
}

static void do_stat(const char *root, long ndirs, long nfiles)
{
	char path[PATH_MAX];
	struct stat st;
	double t0 = now();

	for (long i = 0; i < nfiles; i++) {
		file_path(path, root, ndirs, i);
		if (stat(path, &st))
			die("stat", path);
	}
	report("stat", nfiles, now() - t0);
}

static void do_ls(const char *dir)
{
	struct dirent *de;
	struct stat st;
	long n = 0;
	double t0 = now();
	DIR *d = opendir(dir);

	if (!d)
		die("opendir", dir);
	errno = 0;
	while ((de = readdir(d))) {
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			die("lstat an entry of", dir);
		n++;
		errno = 0;
	}
	if (errno)
		die("readdir", dir);
	closedir(d);
	report("ls", n, now() - t0);
}

static void do_unlink(const char *root, long ndirs, long nfiles)
{
	char path[PATH_MAX];
	double t0 = now();

	for (long i = 0; i < nfiles; i++) {
		file_path(path, root, ndirs, i);
		if (unlink(path))
			die("unlink", path);
	}
	for (long d = 0; d < ndirs; d++) {
		dir_path(path, root, d);
		if (rmdir(path))
			die("rmdir", path);
	}
	sync_fs_of(root);
	report("unlink", nfiles, now() - t0);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "ls")) {
		do_ls(argv[2]);
		return 0;
	}
	if (argc != 5)
		usage();
	long ndirs = parse_count(argv[3], "NDIRS");
	long nfiles = parse_count(argv[4], "NFILES");

	if (ndirs > 10000) {
		fprintf(stderr, "%s: at most 10000 directories (names are d0000-d9999)\n", prog);
		return 2;
	}
	if (!strcmp(argv[1], "create"))
		do_create(argv[2], ndirs, nfiles);
	else if (!strcmp(argv[1], "stat"))
		do_stat(argv[2], ndirs, nfiles);
	else if (!strcmp(argv[1], "unlink"))
		do_unlink(argv[2], ndirs, nfiles);
	else
		usage();
	return 0;
}
