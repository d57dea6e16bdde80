// SPDX-License-Identifier: GPL-2.0
/*
 * Checking a workload's promises after a power cut (promises.h says what).
 * Paths, file ids and NO_HIDE_STALE inodes are looked up by hash and
 * binary search: a multi-process stress run registers thousands of files
 * and the record check asks about every 16 bytes read.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "promises.h"
#include "workload-io.h"
#include "fill-pattern.h"
#include "data-record.h"

enum what { NONE, CONTENT, GONE, CONTENT_OR_GONE };

struct path {
	char *path;
	char *copy;		/* CONTENT, CONTENT_OR_GONE: the saved content */
	char *xcopy;		/* the saved attribute list, or NULL */
	char *target;		/* a symlink's promised target, or NULL */
	enum what what;
};

struct file_id {
	uint64_t ino;
	uint32_t id;
};

struct promises {
	struct path *paths;
	size_t npaths, cap;
	size_t *hash;		/* open addressing: index + 1, 0 empty */
	size_t hash_size;
	uint64_t *stale;	/* sorted */
	size_t nstale, stale_cap;
	struct file_id *ids;	/* sorted by (ino, id) */
	size_t nids, ids_cap;
	bool skip_stale;	/* promises_skip_stale() */
	/* the last verify's tallies */
	int failures;
	long scanned_files, stale_pattern_files, stale_pattern_records;
	unsigned long long scanned_bytes, checked_records;
	FILE *out;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "promises: out of memory\n");
		exit(2);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "promises: out of memory\n");
		exit(2);
	}
	return d;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static void rehash(struct promises *p)
{
	size_t n = p->hash_size ? p->hash_size * 2 : 1024;

	free(p->hash);
	p->hash = calloc(n, sizeof(*p->hash));
	if (!p->hash) {
		fprintf(stderr, "promises: out of memory\n");
		exit(2);
	}
	p->hash_size = n;
	for (size_t i = 0; i < p->npaths; i++) {
		size_t h = hash_str(p->paths[i].path) & (n - 1);
		while (p->hash[h])
			h = (h + 1) & (n - 1);
		p->hash[h] = i + 1;
	}
}

static struct path *path_slot(struct promises *p, const char *path)
{
	size_t h;

	if (2 * (p->npaths + 1) > p->hash_size)
		rehash(p);
	h = hash_str(path) & (p->hash_size - 1);
	while (p->hash[h]) {
		struct path *q = &p->paths[p->hash[h] - 1];
		if (!strcmp(q->path, path))
			return q;
		h = (h + 1) & (p->hash_size - 1);
	}
	if (p->npaths == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		p->paths = xrealloc(p->paths, p->cap * sizeof(*p->paths));
	}
	memset(&p->paths[p->npaths], 0, sizeof(p->paths[0]));
	p->paths[p->npaths].path = xstrdup(path);
	p->hash[h] = ++p->npaths;
	return &p->paths[p->npaths - 1];
}

static void set_str(char **field, const char *value)
{
	free(*field);
	*field = value ? xstrdup(value) : NULL;
}

/* One event line, as read: its number and where it stood in the file. */
struct line {
	long n;
	size_t order;
	char *text;
};

static int line_cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int id_cmp(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int apply(struct promises *p, const char *file, const struct line *l)
{
	char what[32], a[512], b[512];
	long n;
	int k = sscanf(l->text, "%ld %31s %511s %511s", &n, what, a, b) - 1;
	struct path *q;

	if (k < 2)
		goto bad;
	if (!strcmp(what, "stale-ino")) {
		if (p->nstale == p->stale_cap) {
			p->stale_cap = p->stale_cap ? p->stale_cap * 2 : 64;
			p->stale = xrealloc(p->stale, p->stale_cap * sizeof(*p->stale));
		}
		p->stale[p->nstale++] = strtoull(a, NULL, 10);
	} else if (!strcmp(what, "file-id") && k == 3) {
		if (p->nids == p->ids_cap) {
			p->ids_cap = p->ids_cap ? p->ids_cap * 2 : 1024;
			p->ids = xrealloc(p->ids, p->ids_cap * sizeof(*p->ids));
		}
		p->ids[p->nids].id = (uint32_t)strtoul(a, NULL, 10);
		p->ids[p->nids++].ino = strtoull(b, NULL, 10);
	} else if (!strcmp(what, "sync") && k == 3) {
		q = path_slot(p, a);
		q->what = CONTENT;
		set_str(&q->copy, b);
	} else if (!strcmp(what, "xattrs") && k == 3) {
		set_str(&path_slot(p, a)->xcopy, b);
	} else if (!strcmp(what, "symlink") && k == 3) {
		set_str(&path_slot(p, a)->target, b);
	} else if (!strcmp(what, "touch") && k >= 2) {
		q = path_slot(p, a);
		q->what = NONE;
		set_str(&q->xcopy, NULL);
		set_str(&q->target, NULL);
	} else if (!strcmp(what, "unlinking") && k >= 2) {
		q = path_slot(p, a);
		q->what = q->what == CONTENT ? CONTENT_OR_GONE : NONE;
		set_str(&q->xcopy, NULL);
		set_str(&q->target, NULL);
	} else if (!strcmp(what, "gone") && k >= 2) {
		q = path_slot(p, a);
		q->what = GONE;
		set_str(&q->xcopy, NULL);
		set_str(&q->target, NULL);
	} else {
		goto bad;
	}
	return 0;
bad:
	fprintf(stderr, "%s: bad event line: %s", file, l->text);
	return -1;
}

struct promises *promises_load(const char *events, long upto)
{
	FILE *f = fopen(events, "r");
	struct promises *p;
	struct line *lines = NULL;
	size_t nlines = 0, cap = 0, i;
	char *buf = NULL;
	size_t bufcap = 0;
	int bad = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", events, strerror(errno));
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		fclose(f);
		return NULL;
	}
	while (getline(&buf, &bufcap, f) > 0) {
		long n;

		if (sscanf(buf, "%ld", &n) != 1) {
			fprintf(stderr, "%s: bad event line: %s", events, buf);
			bad = 1;
			break;
		}
		if (n > upto)
			continue;
		if (nlines == cap) {
			cap = cap ? cap * 2 : 1024;
			lines = xrealloc(lines, cap * sizeof(*lines));
		}
		lines[nlines].n = n;
		lines[nlines].order = nlines;
		lines[nlines++].text = xstrdup(buf);
	}
	free(buf);
	fclose(f);
	if (nlines)
		qsort(lines, nlines, sizeof(*lines), line_cmp);
	for (i = 0; i < nlines && !bad; i++)
		bad = apply(p, events, &lines[i]) != 0;
	for (i = 0; i < nlines; i++)
		free(lines[i].text);
	free(lines);
	if (bad) {
		promises_free(p);
		return NULL;
	}
	/* (qsort and bsearch want a real array even for none) */
	if (p->nstale)
		qsort(p->stale, p->nstale, sizeof(*p->stale), u64_cmp);
	if (p->nids)
		qsort(p->ids, p->nids, sizeof(*p->ids), id_cmp);
	return p;
}

void promises_free(struct promises *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->npaths; i++) {
		free(p->paths[i].path);
		free(p->paths[i].copy);
		free(p->paths[i].xcopy);
		free(p->paths[i].target);
	}
	free(p->paths);
	free(p->hash);
	free(p->stale);
	free(p->ids);
	free(p);
}

void promises_skip_stale(struct promises *p)
{
	p->skip_stale = true;
}

static int is_stale_ino(const struct promises *p, uint64_t ino);

/* An open file whose contents promises_skip_stale() leaves alone. */
static bool skipped(const struct promises *p, int fd)
{
	struct stat st;

	return p->skip_stale && fstat(fd, &st) == 0 && is_stale_ino(p, (uint64_t)st.st_ino);
}

#define FAIL(p, ...) do { fprintf((p)->out, "FAIL: " __VA_ARGS__); (p)->failures++; } while (0)

/* Compare mnt/path with its saved copy, byte for byte. */
static void check_content(struct promises *p, int mnt, const struct path *q)
{
	static unsigned char want[1 << 16], got[1 << 16];
	int fd = openat(mnt, q->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int cfd = open(q->copy, O_RDONLY | O_CLOEXEC);
	uint64_t off = 0;

	if (cfd < 0) {
		fprintf(stderr, "%s: %s\n", q->copy, strerror(errno));
		exit(2);
	}
	if (fd < 0) {
		FAIL(p, "%s was fsynced but cannot be opened: %s\n", q->path, strerror(errno));
		close(cfd);
		return;
	}
	if (skipped(p, fd)) {
		close(fd);
		close(cfd);
		return;
	}
	for (;;) {
		ssize_t w = read(cfd, want, sizeof(want));
		ssize_t g = read(fd, got, sizeof(got));
		if (w < 0 || g < 0) {
			FAIL(p, "%s: read error at %" PRIu64 ": %s\n", q->path, off, strerror(errno));
			break;
		}
		if (w != g || memcmp(want, got, (size_t)w)) {
			size_t j = 0, m = (size_t)(w < g ? w : g);
			while (j < m && want[j] == got[j])
				j++;
			FAIL(p, "%s differs from its content at fsync, first at byte %" PRIu64
			     " (expected %s, read %s)\n", q->path, off + j,
			     j < (size_t)w ? "more data" : "end of file",
			     j < (size_t)g ? "other data" : "end of file");
			break;
		}
		if (!w)
			break;
		off += (uint64_t)w;
	}
	close(fd);
	close(cfd);
}

/* The user.* attributes of a path, as user_xattrs_text() gives them (malloc'd), or NULL with *err. */
static char *xattr_text(int mnt, const char *path, int *err)
{
	int fd = openat(mnt, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	char *text;

	*err = 0;
	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	text = user_xattrs_text(fd);
	if (!text)
		*err = errno;
	close(fd);
	return text;
}

static void check_xattrs(struct promises *p, int mnt, const struct path *q)
{
	FILE *f = fopen(q->xcopy, "r");
	char want[65536];
	size_t wl;
	int err;
	char *got;

	if (!f) {
		fprintf(stderr, "%s: %s\n", q->xcopy, strerror(errno));
		exit(2);
	}
	wl = fread(want, 1, sizeof(want) - 1, f);
	want[wl] = 0;
	fclose(f);
	got = xattr_text(mnt, q->path, &err);
	if (!got)
		FAIL(p, "%s: its attributes were made durable but cannot be read: %s\n", q->path,
		     strerror(err));
	else if (strcmp(got, want))
		FAIL(p, "%s: its attributes differ from those made durable (expected \"%.200s\", read \"%.200s\")\n",
		     q->path, want, got);
	free(got);
}

static void check_symlink(struct promises *p, int mnt, const struct path *q)
{
	char got[4096];
	ssize_t n = readlinkat(mnt, q->path, got, sizeof(got) - 1);

	if (n < 0) {
		FAIL(p, "%s: a symlink made durable cannot be read: %s\n", q->path, strerror(errno));
		return;
	}
	got[n] = 0;
	if (strcmp(got, q->target))
		FAIL(p, "%s: the symlink made durable reads \"%s\", not \"%s\"\n", q->path, got, q->target);
}

static int is_stale_ino(const struct promises *p, uint64_t ino)
{
	return p->nstale && bsearch(&ino, p->stale, p->nstale, sizeof(*p->stale), u64_cmp) != NULL;
}

static int id_of_ino(const struct promises *p, uint32_t id, uint64_t ino)
{
	struct file_id key = { ino, id };

	return p->nids && bsearch(&key, p->ids, p->nids, sizeof(*p->ids), id_cmp) != NULL;
}

/*
 * The record check (file ids registered): 1 when every whole record of
 * buf, read at file offset off, is one the file may hold; else the first
 * bad one is reported as a failure and 0 returned.
 */
static int records_ok(struct promises *p, const char *fpath, const struct stat *st,
		      const unsigned char *buf, size_t n, uint64_t off)
{
	static const unsigned char zero[DATA_RECORD];

	for (size_t i = 0; i + DATA_RECORD <= n; i += DATA_RECORD) {
		const unsigned char *r = buf + i;
		uint64_t at, block, where = off + i;
		uint32_t id;

		p->checked_records++;
		if (!memcmp(r, zero, DATA_RECORD))
			continue;
		if (data_parse(r, &id, &at)) {
			if (at == where / DATA_RECORD && id_of_ino(p, id, (uint64_t)st->st_ino))
				continue;
			FAIL(p, "%s (inode %" PRIu64 ") reads at byte %" PRIu64 " data written as %s"
			     " (file id %" PRIu32 ", byte %" PRIu64 "): not this file's data at this place\n",
			     fpath, (uint64_t)st->st_ino, where,
			     id_of_ino(p, id, (uint64_t)st->st_ino) ? "its own" : "another file's", id,
			     at * DATA_RECORD);
			return 0;
		}
		if (fill_find(r, DATA_RECORD, &block) == 0) {
			if (is_stale_ino(p, st->st_ino)) {
				p->stale_pattern_records++;
				continue;
			}
			FAIL(p, "%s (inode %" PRIu64 ") reads disk block %" PRIu64
			     "'s old contents at byte %" PRIu64 ": stale data exposed\n",
			     fpath, (uint64_t)st->st_ino, block, where);
			return 0;
		}
		FAIL(p, "%s (inode %" PRIu64 ") reads bytes at %" PRIu64
		     " that no write of the workload made (neither zeros, nor its data, nor the fill pattern)\n",
		     fpath, (uint64_t)st->st_ino, where);
		return 0;
	}
	return 1;
}

/* Scan one regular file for data it was never given. */
static void scan_one(struct promises *p, int dirfd, const char *name, const char *fpath,
		     const struct stat *st)
{
	static unsigned char buf[1 << 20];
	uint64_t off = 0, block;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		FAIL(p, "%s: cannot open: %s\n", fpath, strerror(errno));
		return;
	}
	if (skipped(p, fd)) {
		close(fd);
		return;
	}
	p->scanned_files++;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			FAIL(p, "%s: read error at %" PRIu64 ": %s\n", fpath, off, strerror(errno));
			break;
		}
		if (!n)
			break;
		p->scanned_bytes += (unsigned long long)n;
		if (p->nids) {
			if (!records_ok(p, fpath, st, buf, (size_t)n, off))
				break;
			off += (uint64_t)n;
			continue;
		}
		long at = fill_find(buf, (size_t)n, &block);
		if (at >= 0) {
			if (is_stale_ino(p, st->st_ino))
				p->stale_pattern_files++;
			else
				FAIL(p, "%s (inode %" PRIu64 ") reads disk block %" PRIu64
				     "'s old contents at byte %" PRIu64 ": stale data exposed\n",
				     fpath, (uint64_t)st->st_ino, block, off + (uint64_t)at);
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
static void walk(struct promises *p, int dirfd, const char *path, dev_t dev)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;

	if (!d) {
		FAIL(p, "%s: cannot read the directory: %s\n", path, strerror(errno));
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
			FAIL(p, "%s: cannot stat: %s\n", sub, strerror(errno));
			continue;
		}
		if (st.st_dev != dev)
			continue;
		if (S_ISREG(st.st_mode)) {
			scan_one(p, dirfd, de->d_name, sub, &st);
		} else if (S_ISDIR(st.st_mode)) {
			int fd = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				FAIL(p, "%s: cannot open the directory: %s\n", sub, strerror(errno));
				continue;
			}
			walk(p, fd, sub, dev);
		}
	}
	if (errno)
		FAIL(p, "%s: reading the directory: %s\n", path, strerror(errno));
	closedir(d);
}

int promises_verify(struct promises *p, const char *mnt_path, FILE *out)
{
	int verified = 0, gone = 0, attrs = 0, links = 0;
	struct stat root;
	int mnt = open(mnt_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (mnt < 0 || fstat(mnt, &root) < 0) {
		fprintf(stderr, "%s: %s\n", mnt_path, strerror(errno));
		if (mnt >= 0)
			close(mnt);
		return -1;
	}
	p->out = out;
	p->failures = 0;
	p->scanned_files = p->stale_pattern_files = p->stale_pattern_records = 0;
	p->scanned_bytes = p->checked_records = 0;
	for (size_t i = 0; i < p->npaths; i++) {
		const struct path *q = &p->paths[i];

		if (q->what == CONTENT_OR_GONE) {
			struct stat st;
			/* The unlink did not commit: the file must still be whole. */
			if (!fstatat(mnt, q->path, &st, AT_SYMLINK_NOFOLLOW)) {
				check_content(p, mnt, q);
				verified++;
			} else {
				gone++;
			}
		} else if (q->what == CONTENT) {
			check_content(p, mnt, q);
			verified++;
		} else if (q->what == GONE) {
			struct stat st;
			if (!fstatat(mnt, q->path, &st, AT_SYMLINK_NOFOLLOW))
				FAIL(p, "%s was unlinked (and its directory fsynced) but is back\n", q->path);
			gone++;
		}
		if (q->xcopy) {
			check_xattrs(p, mnt, q);
			attrs++;
		}
		if (q->target) {
			check_symlink(p, mnt, q);
			links++;
		}
	}
	walk(p, dup(mnt), mnt_path, root.st_dev);
	close(mnt);
	fprintf(out, "%s: %d fsynced files checked, %d unlinks checked, %ld files scanned (%llu bytes%s), "
		"%ld NO_HIDE_STALE %s the pattern, %d attribute sets and %d symlinks checked, %d failures\n",
		p->failures ? "FAIL" : "ok", verified, gone, p->scanned_files, p->scanned_bytes,
		p->nids ? ", every record" : "", p->nids ? p->stale_pattern_records : p->stale_pattern_files,
		p->nids ? "records show" : "files show", attrs, links, p->failures);
	return p->failures;
}
