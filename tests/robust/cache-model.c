// SPDX-License-Identifier: GPL-2.0
/* The volatile-write-cache model of a power cut: see cache-model.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cache-model.h"

int cm_parse_mode(const char *s, unsigned *keep_pct)
{
	char *end;

	if (!strcmp(s, "all")) {
		*keep_pct = 100;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*keep_pct = 0;
		return 0;
	}
	if (!strcmp(s, "random")) {
		*keep_pct = 50;
		return 0;
	}
	if (strncmp(s, "random:", 7) || s[7] < '0' || s[7] > '9')
		return -1;
	errno = 0;
	unsigned long v = strtoul(s + 7, &end, 10);
	if (errno || *end || v > 100)
		return -1;
	*keep_pct = (unsigned)v;
	return 0;
}

int cm_parse_cut_mode(const char *s, unsigned *keep_pct, int *discards)
{
	char mode[32];
	size_t n = strlen(s);

	*discards = n > 8 && !strcmp(s + n - 8, "+discard");
	if (!*discards)
		return cm_parse_mode(s, keep_pct);
	if (n - 8 >= sizeof(mode))
		return -1;
	memcpy(mode, s, n - 8);
	mode[n - 8] = '\0';
	return cm_parse_mode(mode, keep_pct);
}

/* splitmix64's finaliser: a cheap hash whose every input bit moves every output bit. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

int cm_keeps(const struct cm_cut *c, uint64_t index)
{
	if (c->keep_pct >= 100)
		return 1;
	if (!c->keep_pct)
		return 0;
	return mix(mix(mix(c->seed) ^ c->cut) ^ index) % 100 < c->keep_pct;
}

enum cm_fate cm_fate(const struct cm_cut *c, uint64_t window, const struct lw_entry *e)
{
	if (e->index >= c->cut)
		return CM_LATER;
	if (!lw_has_data(e) && !(c->discards && (e->flags & LW_DISCARD) && e->nr_sectors))
		return CM_NOTHING;
	if (e->index < window || (e->flags & LW_FUA))
		return CM_DURABLE;
	/*
	 * A flush entry's own data (PREFLUSH without FUA) is written after
	 * the flush and may sit in the cache like any plain write.  (Linux
	 * 6.1's dm core splits such a bio into an empty flush and the data,
	 * so the target never logs one; kept for other kernels.)
	 */
	return cm_keeps(c, e->index) ? CM_KEPT : CM_DROPPED;
}

struct range {
	uint64_t sector, nr;
};

static int overlaps(const struct range *a, const struct lw_entry *e)
{
	return a->sector < e->sector + e->nr_sectors && e->sector < a->sector + a->nr;
}

int cm_plan(struct lw_log *log, const struct cm_cut *c, struct cm_plan *p)
{
	struct lw_entry e;
	int r;

	memset(p, 0, sizeof(*p));
	if (c->cut > log->nr_entries) {
		fprintf(stderr, "%s: the log has %llu entries, the cut is at %llu\n", log->path,
			(unsigned long long)log->nr_entries, (unsigned long long)c->cut);
		return -1;
	}
	/* Pass 1: the window starts at the last flush below the cut. */
	lw_rewind(log);
	while ((r = lw_next(log, &e)) == 1 && e.index < c->cut)
		if (e.flags & LW_FLUSH)
			p->window = e.index;
	if (r < 0)
		return -1;

	/* Pass 2: the window's entries (their count bounds the arrays). */
	uint64_t room = c->cut - p->window;
	struct range *fua = calloc(room, sizeof(*fua));
	p->cached = calloc(room, sizeof(*p->cached));
	p->kept = calloc(room, 1);
	uint64_t nr_fua = 0;
	if (!fua || !p->cached || !p->kept) {
		fprintf(stderr, "cache-model: out of memory for a window of %llu entries\n",
			(unsigned long long)room);
		goto fail;
	}
	lw_rewind(log);
	while ((r = lw_next(log, &e)) == 1 && e.index < c->cut) {
		if (e.index < p->window)
			continue;
		enum cm_fate f = cm_fate(c, p->window, &e);
		if (f == CM_DURABLE) {
			fua[nr_fua++] = (struct range){ e.sector, e.nr_sectors };
			p->durable_fua++;
		} else if (f == CM_KEPT || f == CM_DROPPED) {
			p->cached[p->nr_cached] = e.index;
			p->kept[p->nr_cached++] = f == CM_KEPT;
			if (f == CM_KEPT) {
				p->nr_kept++;
				for (uint64_t i = 0; i < nr_fua; i++)
					if (overlaps(&fua[i], &e)) {
						p->ambiguous++;
						break;
					}
			}
		}
	}
	if (r < 0)
		goto fail;
	free(fua);
	return 0;
fail:
	free(fua);
	cm_plan_free(p);
	return -1;
}

void cm_plan_free(struct cm_plan *p)
{
	free(p->cached);
	free(p->kept);
	p->cached = NULL;
	p->kept = NULL;
}

/* Copy size bytes of from onto to: copy_file_range where the kernel can, else read/write. */
int cm_copy_image(int from, const char *from_path, int to, const char *to_path, uint64_t size)
{
	static char buf[1 << 20];
	uint64_t off = 0;

	while (off < size) {
		loff_t in = (loff_t)off, out = (loff_t)off;
		ssize_t n = copy_file_range(from, &in, to, &out, (size_t)(size - off), 0);
		if (n > 0) {
			off += (uint64_t)n;
			continue;
		}
		if (n == 0)
			break;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
			fprintf(stderr, "%s -> %s: %s\n", from_path, to_path, strerror(errno));
			return -1;
		}
		size_t len = size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf);
		if (pread(from, buf, len, (off_t)off) != (ssize_t)len) {
			fprintf(stderr, "%s: read at %" PRIu64 " failed\n", from_path, off);
			return -1;
		}
		if (pwrite(to, buf, len, (off_t)off) != (ssize_t)len) {
			fprintf(stderr, "%s: write at %" PRIu64 ": %s\n", to_path, off, strerror(errno));
			return -1;
		}
		off += len;
	}
	if (off != size) {
		fprintf(stderr, "%s: shorter than %" PRIu64 " bytes\n", from_path, size);
		return -1;
	}
	return 0;
}

int cm_apply(struct lw_log *log, const struct cm_cut *c, const struct cm_plan *p, uint64_t from,
	     uint64_t to, int img, const char *img_path)
{
	uint64_t img_size = lw_image_size(img, img_path);
	struct lw_entry e;
	int r;

	lw_rewind(log);
	while ((r = lw_next(log, &e)) == 1 && e.index < to) {
		if (e.index < from)
			continue;
		enum cm_fate f = cm_fate(c, p->window, &e);
		if ((f == CM_DURABLE || f == CM_KEPT) && lw_apply(log, &e, img, img_size, img_path))
			return -1;
	}
	return r < 0 ? -1 : 0;
}

int cm_make_cut(struct lw_log *log, const struct cm_cut *c, const struct cm_plan *p, const char *base_path,
		uint64_t from, const char *img_path)
{
	int base = -1, img = -1, rc = -1;

	if (from > p->window) {
		fprintf(stderr, "cache-cut: %s holds entries [0, %" PRIu64 "), past this cut's window start %" PRIu64
			" (make cuts in increasing order, or start from a filled image and 0)\n",
			base_path, from, p->window);
		return -1;
	}
	base = open(base_path, O_RDWR | O_CLOEXEC);
	if (base < 0) {
		fprintf(stderr, "%s: %s\n", base_path, strerror(errno));
		return -1;
	}
	/* Everything before the window is durable in this cut and in every later one. */
	if (cm_apply(log, c, p, from, p->window, base, base_path))
		goto out;
	img = open(img_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (img < 0) {
		fprintf(stderr, "%s: %s\n", img_path, strerror(errno));
		goto out;
	}
	if (cm_copy_image(base, base_path, img, img_path, lw_image_size(base, base_path)))
		goto out;
	if (cm_apply(log, c, p, p->window, c->cut, img, img_path))
		goto out;
	rc = 0;
out:
	if (base >= 0 && close(base) < 0) {
		fprintf(stderr, "%s: %s\n", base_path, strerror(errno));
		rc = -1;
	}
	if (img >= 0 && close(img) < 0) {
		fprintf(stderr, "%s: %s\n", img_path, strerror(errno));
		rc = -1;
	}
	return rc;
}
