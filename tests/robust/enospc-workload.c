/*
 * enospc-workload: one round of the full-disk test (robust-enospc.sh).
 *
 *   enospc-workload MNT FREE MANIFEST    a round
 *   enospc-workload MNT verify MANIFEST  only check the last round
 *   enospc-workload MNT inodes           use up the inodes
 *
 * A round first checks what the previous round left (MANIFEST, written by
 * it: every name it made and the bytes it wrote, read back now, after an
 * unmount and fsck) and removes it.  Then it fills the filesystem until
 * FREE blocks are left, and runs a fixed workload that needs more: file
 * data, a directory, names enough to add directory blocks, a block-backed
 * symlink, fallocate, extents enough to add an extent tree block, a punch
 * that splits an extent, writes into unwritten extents.  Sweeping FREE from
 * 0 up puts the full disk at every step, for data and for metadata.
 *
 * Every call must succeed or fail with ENOSPC (a write may be short); a
 * failed create, mkdir or symlink must leave no name behind; what a call
 * reported written must read back.  "inodes" creates files, directories and
 * symlinks until the inodes run out, with the same rules.  Exit 1 on any
 * violation, 2 on a usage error.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static int violations;
static int enospc_seen;	/* ENOSPC failures: the first few are named */
static const char *mnt;
static FILE *manifest;

static void bad(const char *fmt, const char *path, int e)
{
	printf("enospc: VIOLATION: ");
	printf(fmt, path);
	printf(e ? ": %s\n" : "\n", strerror(e));
	violations++;
}

/* A call that failed: only ENOSPC is allowed.  Returns 1 if it failed. */
static int failed(long rc, const char *op, const char *path)
{
	if (rc >= 0)
		return 0;
	int e = errno;
	if (e != ENOSPC) {
		printf("enospc: VIOLATION: %s %s: %s (only ENOSPC is allowed)\n", op, path,
		       strerror(e));
		violations++;
	} else if (++enospc_seen <= 4) {
		printf("enospc: %s %s: ENOSPC\n", op, path);
	}
	errno = e;
	return 1;
}

/* A failed creation must leave no name. */
static void no_name(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) == 0)
		bad("%s exists after its creation failed", path, 0);
	else if (errno != ENOENT)
		bad("lstat %s after a failed creation", path, errno);
}

static unsigned char pattern(off_t at, int id)
{
	return (unsigned char)(at / 512 * 7 + id * 31 + 1);
}

/* Write LEN bytes of file ID's pattern at AT; record what was written. */
static void put(int fd, const char *path, int id, off_t at, size_t len)
{
	unsigned char buf[4096];
	size_t done = 0;
	while (done < len) {
		size_t n = len - done < sizeof(buf) ? len - done : sizeof(buf);
		for (size_t i = 0; i < n; i++)
			buf[i] = pattern(at + (off_t)(done + i), id);
		ssize_t w = pwrite(fd, buf, n, at + (off_t)done);
		if (failed(w, "write", path))
			break;
		done += (size_t)w;
		if ((size_t)w < n)
			break;	/* a short write: the rest would fail */
	}
	if (done)
		fprintf(manifest, "data %s %d %lld %zu\n", path, id, (long long)at, done);
}

static int make_file(const char *path, int id, off_t at, size_t len)
{
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0644);
	if (failed(fd, "create", path)) {
		no_name(path);
		return -1;
	}
	fprintf(manifest, "name %s\n", path);
	put(fd, path, id, at, len);
	return fd;
}

static long free_blocks(void)
{
	struct statvfs v;
	if (statvfs(mnt, &v) < 0) {
		perror("enospc: statvfs");
		exit(2);
	}
	return (long)v.f_bavail;	/* what an ordinary allocation may take */
}

/* Fallocate a filler until at most FREE blocks are left. */
static void fill(long want)
{
	struct statvfs v;
	statvfs(mnt, &v);
	int fd = open(".filler", O_CREAT | O_RDWR, 0600);
	if (fd < 0) {
		perror("enospc: .filler");
		exit(2);
	}
	off_t end = 0;
	for (int tries = 0; tries < 64; tries++) {
		long have = free_blocks();
		if (have <= want)
			break;
		off_t len = (off_t)(have - want) * (off_t)v.f_frsize;
		if (fallocate(fd, 0, end, len) < 0) {
			if (errno != ENOSPC) {
				perror("enospc: fallocate filler");
				exit(2);
			}
			len = (off_t)v.f_frsize;	/* tree blocks took some: one at a time */
			if (fallocate(fd, 0, end, len) < 0)
				break;
		}
		end += len;
	}
	close(fd);
	printf("enospc: %ld blocks free (asked for %ld)\n", free_blocks(), want);
}

static void workload(void)
{
	char name[256];
	/* File data. */
	int fd = make_file("w/a", 1, 0, 3000);
	if (fd >= 0) {
		if (!failed(fsync(fd), "fsync", "w/a")) {
			/* fallocate: unwritten, then written into (conversion). */
			if (!failed(fallocate(fd, 0, 16384, 8192), "fallocate", "w/a"))
				put(fd, "w/a", 1, 18432, 2048);
			/* A punch splitting an extent: a new extent entry. */
			failed(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 17408, 512),
			       "punch", "w/a");
		}
		close(fd);
	}
	/* A directory and names enough for more directory blocks. */
	if (failed(mkdir("w/d", 0755), "mkdir", "w/d")) {
		no_name("w/d");
	} else {
		fprintf(manifest, "name w/d\n");
		for (int i = 0; i < 40; i++) {
			snprintf(name, sizeof(name), "w/d/a-name-long-enough-to-fill-blocks-%02d", i);
			int f = make_file(name, 2, 0, 0);
			if (f < 0)
				break;
			close(f);
		}
	}
	/* A symlink whose target needs a block. */
	char target[400];
	memset(target, 't', sizeof(target) - 1);
	target[sizeof(target) - 1] = 0;
	if (failed(symlink(target, "w/l"), "symlink", "w/l"))
		no_name("w/l");
	else
		fprintf(manifest, "name w/l\n");
	/* Extents enough for an extent tree block, then sparse growth. */
	fd = make_file("w/frag", 3, 0, 512);
	if (fd >= 0) {
		for (int i = 1; i < 24; i++)
			put(fd, "w/frag", 3, (off_t)i * 8192, 1024);
		put(fd, "w/frag", 3, 1 << 20, 4096);
		failed(fsync(fd), "fsync", "w/frag");
		close(fd);
	}
	sync();
}

/* rm -rf PATH, without a process (each costs tenths of a second in the VM). */
static void remove_tree(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) < 0)
		return;
	if (S_ISDIR(sb.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *de;
		char sub[600];
		while (d && (de = readdir(d))) {
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
				remove_tree(sub);
			}
		}
		if (d)
			closedir(d);
		if (rmdir(path) < 0)
			bad("rmdir %s", path, errno);
	} else if (unlink(path) < 0) {
		bad("unlink %s", path, errno);
	}
}

/* Check what the last round recorded, then remove it. */
static void verify(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return;
		perror("enospc: manifest");
		exit(2);
	}
	char kind[8], name[300];
	int id;
	long long at;
	size_t len;
	long checked = 0;
	while (fscanf(f, "%7s %299s", kind, name) == 2) {
		struct stat sb;
		if (!strcmp(kind, "name")) {
			if (lstat(name, &sb) < 0)
				bad("%s was made but is gone after the remount", name, errno);
			checked++;
			continue;
		}
		if (fscanf(f, "%d %lld %zu", &id, &at, &len) != 3) {
			fprintf(stderr, "enospc: manifest %s is malformed\n", path);
			exit(2);
		}
		int fd = open(name, O_RDONLY);
		if (fd < 0) {
			bad("open %s", name, errno);
			continue;
		}
		unsigned char c;
		for (size_t i = 0; i < len; i++) {
			if (pread(fd, &c, 1, at + (off_t)i) != 1 || c != pattern(at + (off_t)i, id)) {
				printf("enospc: VIOLATION: %s: byte %lld reads %#x, %#x was written\n", name,
				       at + (long long)i, c, pattern(at + (off_t)i, id));
				violations++;
				break;
			}
		}
		checked++;
		close(fd);
	}
	fclose(f);
	printf("enospc: the last round's %ld names and writes are intact\n", checked);
	remove_tree("w");
	remove_tree(".filler");
}

static void use_up_inodes(void)
{
	char name[64];
	int made = 0, failed_in_row = 0;
	if (mkdir("i", 0755) < 0 && errno != EEXIST) {
		perror("enospc: mkdir i");
		exit(2);
	}
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "i/%d", i);
		long rc;
		const char *op;
		switch (i % 3) {
		case 0:
			op = "create";
			rc = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (rc >= 0)
				close((int)rc);
			break;
		case 1:
			op = "mkdir";
			rc = mkdir(name, 0755);
			break;
		default:
			op = "symlink";
			rc = symlink("target", name);
			break;
		}
		if (failed(rc, op, name)) {
			no_name(name);
			if (++failed_in_row == 3)
				break;	/* each kind has met the end */
			continue;
		}
		failed_in_row = 0;
		made++;
	}
	printf("enospc: %d inodes made before ENOSPC\n", made);
	if (failed_in_row < 3)
		bad("%s: the inodes never ran out", "use_up_inodes", 0);
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[2], "inodes") && argc != 4)) {
		fprintf(stderr, "usage: enospc-workload MNT FREE|verify MANIFEST | MNT inodes\n");
		return 2;
	}
	mnt = argv[1];
	if (chdir(mnt) < 0) {
		perror("enospc: chdir");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[2], "inodes")) {
		use_up_inodes();
		return violations ? 1 : 0;
	}
	char *end;
	long want = strtol(argv[2], &end, 10);
	int only_verify = !strcmp(argv[2], "verify");
	if (!only_verify && (*end || want < 0)) {
		fprintf(stderr, "enospc-workload: FREE must be a block count\n");
		return 2;
	}
	verify(argv[3]);
	if (!only_verify) {
		if (mkdir("w", 0755) < 0) {
			perror("enospc: mkdir w");
			return 2;
		}
		fill(want);
		manifest = fopen(argv[3], "w");
		if (!manifest) {
			perror("enospc: manifest");
			return 2;
		}
		setvbuf(manifest, NULL, _IOLBF, 0);
		workload();
		fclose(manifest);
		printf("enospc: round done: %d calls failed with ENOSPC\n", enospc_seen);
	}
	return violations ? 1 : 0;
}
