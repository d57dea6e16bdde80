// SPDX-License-Identifier: GPL-2.0
/*
 * powercut-check: the two userspace halves of the power-cut test.
 *
 *   powercut-check fill TARGET [SIZE]
 *       cover TARGET (a device, or a file made SIZE bytes long) with the
 *       fill pattern (fill-pattern.h)
 *   powercut-check verify MNT EVENTS UPTO
 *       after a replay to some cut point and fsck, with the image mounted
 *       at MNT: apply the workload's EVENTS numbered <= UPTO (the last mark
 *       the cut includes), then
 *         - every file whose fsync returned holds exactly what it held
 *           then (the workload saved a copy), and each path whose unlink
 *           was made durable is gone;
 *         - no regular file anywhere (lost+found included) reads the fill
 *           pattern, except the inodes the workload allocated with
 *           NO_HIDE_STALE;
 *         - when EVENTS registers file ids (cache-workload does), every
 *           16-byte record of every regular file is zeros, or a data
 *           record (data-record.h) of an id registered for that inode at
 *           that very offset, or (NO_HIDE_STALE inodes) the fill pattern:
 *           anything else is data the file was never given (another
 *           file's, or misplaced).
 *
 * EVENTS lines (paths relative to MNT, in the order they happened):
 *   N sync PATH COPY     fsync of PATH returned; COPY holds its content
 *   N touch PATH         PATH is about to change: no promise until next sync
 *   N gone PATH          unlink of PATH and fsync of its directory returned
 *   N stale-ino INO      inode INO holds NO_HIDE_STALE blocks (never freed)
 *   N file-id ID INO     the workload created inode INO as file ID (an
 *                        inode number may be reused: it keeps every ID)
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "fill-pattern.h"
#include "data-record.h"

#define MAX_PATHS 512
#define MAX_STALE 64
#define MAX_IDS 8192

enum promise { NONE, CONTENT, GONE };

static struct {
	char path[256];
	char copy[512];
	enum promise what;
} paths[MAX_PATHS];
static int npaths;
static uint64_t stale_inos[MAX_STALE];
static int nstale;
static struct {
	uint32_t id;
	uint64_t ino;
} ids[MAX_IDS];
static int nids;
static unsigned long long checked_records;
static int failures;
static long scanned_files, stale_pattern_files, stale_pattern_records;
static unsigned long long scanned_bytes;

static void usage(void)
{
	fprintf(stderr, "Usage: powercut-check fill TARGET [SIZE]\n"
			"       powercut-check verify MNT EVENTS UPTO\n");
	exit(2);
}

static int fill(const char *target, const char *size_arg)
{
	static unsigned char buf[1 << 20];
	uint64_t size;
	int fd = open(target, O_WRONLY | O_CLOEXEC | (size_arg ? O_CREAT | O_TRUNC : 0), 0644);

	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", target, strerror(errno));
		return 1;
	}
	if (size_arg) {
		char *end;
		errno = 0;
		size = strtoull(size_arg, &end, 10);
		if (errno || *end || !size || size % FILL_BLOCK) {
			fprintf(stderr, "powercut-check: SIZE must be a multiple of %d bytes\n", FILL_BLOCK);
			return 2;
		}
	} else if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		fprintf(stderr, "%s: not a block device and no SIZE given\n", target);
		return 2;
	}
	for (uint64_t off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf);
		for (size_t b = 0; b < n; b += FILL_BLOCK)
			fill_block(buf + b, (off + b) / FILL_BLOCK);
		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n) {
			fprintf(stderr, "%s: write at %" PRIu64 ": %s\n", target, off, strerror(errno));
			return 1;
		}
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fprintf(stderr, "%s: %s\n", target, strerror(errno));
		return 1;
	}
	return 0;
}

static int path_slot(const char *path)
{
	for (int i = 0; i < npaths; i++)
		if (!strcmp(paths[i].path, path))
			return i;
	if (npaths == MAX_PATHS || strlen(path) >= sizeof(paths[0].path)) {
		fprintf(stderr, "powercut-check: too many paths or path too long: %s\n", path);
		exit(2);
	}
	snprintf(paths[npaths].path, sizeof(paths[0].path), "%s", path);
	return npaths++;
}

static void read_events(const char *file, long upto)
{
	char line[1024], what[32], a[512], b[512];
	FILE *f = fopen(file, "r");
	long n;
	int lineno = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		int k = sscanf(line, "%ld %31s %511s %511s", &n, what, a, b);
		if (k < 3) {
			fprintf(stderr, "%s:%d: bad event line\n", file, lineno);
			exit(2);
		}
		if (n > upto)
			continue;
		if (!strcmp(what, "stale-ino")) {
			if (nstale == MAX_STALE) {
				fprintf(stderr, "%s:%d: too many stale inodes\n", file, lineno);
				exit(2);
			}
			stale_inos[nstale++] = strtoull(a, NULL, 10);
		} else if (!strcmp(what, "file-id") && k == 4) {
			if (nids == MAX_IDS) {
				fprintf(stderr, "%s:%d: too many file ids\n", file, lineno);
				exit(2);
			}
			ids[nids].id = (uint32_t)strtoul(a, NULL, 10);
			ids[nids++].ino = strtoull(b, NULL, 10);
		} else if (!strcmp(what, "sync") && k == 4) {
			int i = path_slot(a);
			paths[i].what = CONTENT;
			snprintf(paths[i].copy, sizeof(paths[i].copy), "%s", b);
		} else if (!strcmp(what, "touch")) {
			paths[path_slot(a)].what = NONE;
		} else if (!strcmp(what, "gone")) {
			paths[path_slot(a)].what = GONE;
		} else {
			fprintf(stderr, "%s:%d: unknown event '%s'\n", file, lineno, what);
			exit(2);
		}
	}
	fclose(f);
}

/* Compare MNT/path with its saved copy, byte for byte. */
static void check_content(int mnt, int i)
{
	static unsigned char want[1 << 16], got[1 << 16];
	int fd = openat(mnt, paths[i].path, O_RDONLY | O_CLOEXEC);
	int cfd = open(paths[i].copy, O_RDONLY | O_CLOEXEC);
	uint64_t off = 0;

	if (cfd < 0) {
		fprintf(stderr, "%s: %s\n", paths[i].copy, strerror(errno));
		exit(2);
	}
	if (fd < 0) {
		printf("FAIL: %s was fsynced but cannot be opened: %s\n", paths[i].path, strerror(errno));
		failures++;
		close(cfd);
		return;
	}
	for (;;) {
		ssize_t w = read(cfd, want, sizeof(want));
		ssize_t g = read(fd, got, sizeof(got));
		if (w < 0 || g < 0) {
			printf("FAIL: %s: read error at %" PRIu64 ": %s\n", paths[i].path, off, strerror(errno));
			failures++;
			break;
		}
		if (w != g || memcmp(want, got, (size_t)w)) {
			size_t j = 0;
			size_t m = (size_t)(w < g ? w : g);
			while (j < m && want[j] == got[j])
				j++;
			printf("FAIL: %s differs from its content at fsync, first at byte %" PRIu64
			       " (expected %s, read %s)\n", paths[i].path, off + j,
			       j < (size_t)w ? "more data" : "end of file",
			       j < (size_t)g ? "other data" : "end of file");
			failures++;
			break;
		}
		if (!w)
			break;
		off += (uint64_t)w;
	}
	close(fd);
	close(cfd);
}


static int is_stale_ino(uint64_t ino)
{
	for (int i = 0; i < nstale; i++)
		if (stale_inos[i] == ino)
			return 1;
	return 0;
}

static int id_of_ino(uint32_t id, uint64_t ino)
{
	for (int i = 0; i < nids; i++)
		if (ids[i].id == id && ids[i].ino == ino)
			return 1;
	return 0;
}

/*
 * The record check (file ids registered): 1 when every whole record of
 * buf, read at file offset off, is one the file may hold; else the first
 * bad one is reported as a failure and 0 returned.
 */
static int records_ok(const char *fpath, const struct stat *st, const unsigned char *buf, size_t n,
		      uint64_t off)
{
	static const unsigned char zero[DATA_RECORD];

	for (size_t i = 0; i + DATA_RECORD <= n; i += DATA_RECORD) {
		const unsigned char *r = buf + i;
		uint64_t at, block, where = off + i;
		uint32_t id;

		checked_records++;
		if (!memcmp(r, zero, DATA_RECORD))
			continue;
		if (data_parse(r, &id, &at)) {
			if (at == where / DATA_RECORD && id_of_ino(id, (uint64_t)st->st_ino))
				continue;
			printf("FAIL: %s (inode %" PRIu64 ") reads at byte %" PRIu64 " data written as %s"
			       " (file id %" PRIu32 ", byte %" PRIu64 "): not this file's data at this place\n",
			       fpath, (uint64_t)st->st_ino, where,
			       id_of_ino(id, (uint64_t)st->st_ino) ? "its own" : "another file's", id,
			       at * DATA_RECORD);
			return 0;
		}
		if (fill_find(r, DATA_RECORD, &block) == 0) {
			if (is_stale_ino(st->st_ino)) {
				stale_pattern_records++;
				continue;
			}
			printf("FAIL: %s (inode %" PRIu64 ") reads disk block %" PRIu64
			       "'s old contents at byte %" PRIu64 ": stale data exposed\n",
			       fpath, (uint64_t)st->st_ino, block, where);
			return 0;
		}
		printf("FAIL: %s (inode %" PRIu64 ") reads bytes at %" PRIu64
		       " that no write of the workload made (neither zeros, nor its data, nor the fill pattern)\n",
		       fpath, (uint64_t)st->st_ino, where);
		return 0;
	}
	return 1;
}

/* Scan one regular file for data it was never given. */
static void scan_one(const char *fpath, const struct stat *st)
{
	static unsigned char buf[1 << 20];
	uint64_t off = 0, block;

	int fd = open(fpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("FAIL: %s: cannot open: %s\n", fpath, strerror(errno));
		failures++;
		return;
	}
	scanned_files++;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			printf("FAIL: %s: read error at %" PRIu64 ": %s\n", fpath, off, strerror(errno));
			failures++;
			break;
		}
		if (!n)
			break;
		scanned_bytes += (unsigned long long)n;
		if (nids) {
			if (!records_ok(fpath, st, buf, (size_t)n, off)) {
				failures++;
				break;
			}
			off += (uint64_t)n;
			continue;
		}
		long at = fill_find(buf, (size_t)n, &block);
		if (at >= 0) {
			if (is_stale_ino(st->st_ino)) {
				stale_pattern_files++;
			} else {
				printf("FAIL: %s (inode %" PRIu64 ") reads disk block %" PRIu64
				       "'s old contents at byte %" PRIu64 ": stale data exposed\n",
				       fpath, (uint64_t)st->st_ino, block, off + (uint64_t)at);
				failures++;
			}
			break;
		}
		off += (uint64_t)n;
	}
	close(fd);
}

/*
 * Every regular file under path (dirfd open on it), not crossing into
 * other mounts.  An entry the file system cannot stat or read is a
 * failure, and the walk goes on with the rest (nftw would stop there).
 */
static void walk(int dirfd, const char *path, dev_t dev)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;

	if (!d) {
		printf("FAIL: %s: cannot read the directory: %s\n", path, strerror(errno));
		failures++;
		close(dirfd);
		return;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char sub[4096];
		struct stat st;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			printf("FAIL: %s: cannot stat: %s\n", sub, strerror(errno));
			failures++;
			continue;
		}
		if (st.st_dev != dev)
			continue;
		if (S_ISREG(st.st_mode)) {
			scan_one(sub, &st);
		} else if (S_ISDIR(st.st_mode)) {
			int fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				printf("FAIL: %s: cannot open the directory: %s\n", sub, strerror(errno));
				failures++;
				continue;
			}
			walk(fd, sub, dev);
		}
	}
	if (errno) {
		printf("FAIL: %s: reading the directory: %s\n", path, strerror(errno));
		failures++;
	}
	closedir(d);
}

static int verify(const char *mnt_path, const char *events, const char *upto_arg)
{
	char *end;
	long upto = strtol(upto_arg, &end, 10);
	int verified = 0, gone = 0;

	if (*end || upto < 0) {
		fprintf(stderr, "powercut-check: UPTO must be an event number\n");
		return 2;
	}
	read_events(events, upto);
	int mnt = open(mnt_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mnt < 0) {
		fprintf(stderr, "%s: %s\n", mnt_path, strerror(errno));
		return 2;
	}
	for (int i = 0; i < npaths; i++) {
		if (paths[i].what == CONTENT) {
			check_content(mnt, i);
			verified++;
		} else if (paths[i].what == GONE) {
			struct stat st;
			if (!fstatat(mnt, paths[i].path, &st, AT_SYMLINK_NOFOLLOW)) {
				printf("FAIL: %s was unlinked (and its directory fsynced) but is back\n",
				       paths[i].path);
				failures++;
			}
			gone++;
		}
	}
	close(mnt);
	struct stat root;
	int rootfd = open(mnt_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || fstat(rootfd, &root) < 0) {
		fprintf(stderr, "%s: %s\n", mnt_path, strerror(errno));
		return 2;
	}
	walk(rootfd, mnt_path, root.st_dev);
	printf("%s: %d fsynced files checked, %d unlinks checked, %ld files scanned (%llu bytes%s), "
	       "%ld NO_HIDE_STALE %s the pattern, %d failures\n",
	       failures ? "FAIL" : "ok", verified, gone, scanned_files, scanned_bytes,
	       nids ? ", every record" : "", nids ? stale_pattern_records : stale_pattern_files,
	       nids ? "records show" : "files show", failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "fill"))
		return fill(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 5 && !strcmp(argv[1], "verify"))
		return verify(argv[2], argv[3], argv[4]);
	usage();
}
