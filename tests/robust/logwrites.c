// SPDX-License-Identifier: GPL-2.0
/* Reading (and, for tests, writing) a dm-log-writes log: see logwrites.h for the layout. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "logwrites.h"

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int read_at(const struct lw_log *log, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(log->fd, buf, len, (off_t)off);

	if (n == (ssize_t)len)
		return 0;
	if (n < 0)
		fprintf(stderr, "%s: read at %llu: %s\n", log->path, (unsigned long long)off, strerror(errno));
	else
		fprintf(stderr, "%s: short read at %llu (log truncated?)\n", log->path, (unsigned long long)off);
	return -1;
}

int lw_open(struct lw_log *log, const char *path)
{
	unsigned char super[28];
	struct stat st;

	memset(log, 0, sizeof(*log));
	log->path = path;
	log->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (log->fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(log->fd, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		goto fail;
	}
	log->size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(log->fd, BLKGETSIZE64, &log->size) < 0) {
		fprintf(stderr, "%s: size: %s\n", path, strerror(errno));
		goto fail;
	}
	if (read_at(log, super, sizeof(super), 0))
		goto fail;
	if (le64(super) != LW_MAGIC) {
		fprintf(stderr, "%s: not a dm-log-writes log (bad magic)\n", path);
		goto fail;
	}
	if (le64(super + 8) != LW_VERSION) {
		fprintf(stderr, "%s: log version %llu, only %llu is known\n", path,
			(unsigned long long)le64(super + 8), LW_VERSION);
		goto fail;
	}
	log->nr_entries = le64(super + 16);
	log->sectorsize = le32(super + 24);
	if (log->sectorsize < 512 || log->sectorsize > 65536 || (log->sectorsize & (log->sectorsize - 1))) {
		fprintf(stderr, "%s: bad sector size %u\n", path, log->sectorsize);
		goto fail;
	}
	/* Entries start right after the super's sector. */
	log->next_off = log->sectorsize;
	return 0;
fail:
	close(log->fd);
	log->fd = -1;
	return -1;
}

int lw_next(struct lw_log *log, struct lw_entry *e)
{
	unsigned char hdr[65536];
	uint64_t data_len;

	if (log->next_index >= log->nr_entries)
		return 0;
	if (read_at(log, hdr, log->sectorsize, log->next_off))
		return -1;
	memset(e, 0, sizeof(*e));
	e->index = log->next_index;
	e->sector = le64(hdr);
	e->nr_sectors = le64(hdr + 8);
	uint64_t flags = le64(hdr + 16);
	data_len = le64(hdr + 24);
	if (flags & ~(uint64_t)LW_KNOWN_FLAGS) {
		fprintf(stderr, "%s: entry %llu: unknown flags 0x%llx\n", log->path,
			(unsigned long long)e->index, (unsigned long long)flags);
		return -1;
	}
	e->flags = (uint32_t)flags;
	if (e->flags & LW_MARK) {
		if (data_len >= sizeof(e->mark) || data_len > log->sectorsize - 32) {
			fprintf(stderr, "%s: entry %llu: mark of %llu bytes\n", log->path,
				(unsigned long long)e->index, (unsigned long long)data_len);
			return -1;
		}
		memcpy(e->mark, hdr + 32, data_len);
		e->nr_sectors = 0;
	} else if (data_len) {
		/* Inline data (the DAX path of old kernels): never produced for a block device. */
		fprintf(stderr, "%s: entry %llu: inline data is not supported\n", log->path,
			(unsigned long long)e->index);
		return -1;
	}
	e->data_off = log->next_off + log->sectorsize;
	/* A discard carries its range but no data in the log. */
	uint64_t data_sectors = (e->flags & LW_DISCARD) ? 0 : e->nr_sectors;
	if (data_sectors > (log->size - e->data_off) / log->sectorsize) {
		fprintf(stderr, "%s: entry %llu: %llu sectors of data run past the log's end\n", log->path,
			(unsigned long long)e->index, (unsigned long long)data_sectors);
		return -1;
	}
	log->next_off = e->data_off + data_sectors * log->sectorsize;
	log->next_index++;
	return 1;
}

void lw_rewind(struct lw_log *log)
{
	log->next_off = log->sectorsize;
	log->next_index = 0;
}

int lw_has_data(const struct lw_entry *e)
{
	return !(e->flags & (LW_MARK | LW_DISCARD)) && e->nr_sectors;
}

int lw_apply(const struct lw_log *log, const struct lw_entry *e, int img, uint64_t img_size,
	     const char *img_path)
{
	static char buf[1 << 20];
	uint64_t len = e->nr_sectors * log->sectorsize;
	uint64_t from = e->data_off, to = e->sector * log->sectorsize;

	if (e->sector > img_size / log->sectorsize || len > img_size - to) {
		fprintf(stderr, "%s: entry %llu writes sectors %llu+%llu, past the end of %s\n", log->path,
			(unsigned long long)e->index, (unsigned long long)e->sector,
			(unsigned long long)e->nr_sectors, img_path);
		return -1;
	}
	/* A discard applied (cache-model.h, "+discard"): its range reads zeros. */
	if (e->flags & LW_DISCARD)
		memset(buf, 0, sizeof(buf));
	while (len) {
		size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		if (!(e->flags & LW_DISCARD) && pread(log->fd, buf, n, (off_t)from) != (ssize_t)n) {
			fprintf(stderr, "%s: entry %llu: cannot read its data\n", log->path,
				(unsigned long long)e->index);
			return -1;
		}
		if (pwrite(img, buf, n, (off_t)to) != (ssize_t)n) {
			fprintf(stderr, "%s: write at %llu: %s\n", img_path, (unsigned long long)to,
				strerror(errno));
			return -1;
		}
		len -= n;
		from += n;
		to += n;
	}
	return 0;
}

const char *lw_flag_string(const struct lw_entry *e, char buf[8])
{
	char *p = buf;

	if (!(e->flags & (LW_MARK | LW_DISCARD)) && e->nr_sectors)
		*p++ = 'W';
	if (e->flags & LW_FLUSH)
		*p++ = 'F';
	if (e->flags & LW_FUA)
		*p++ = 'U';
	if (e->flags & LW_DISCARD)
		*p++ = 'D';
	if (e->flags & LW_MARK)
		*p++ = 'M';
	if (p == buf)
		*p++ = '-';
	*p = '\0';
	return buf;
}

void lw_close(struct lw_log *log)
{
	if (log->fd >= 0)
		close(log->fd);
	log->fd = -1;
}

/* ---- writing (tests) ---- */

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static int write_at(const struct lw_writer *w, const void *buf, size_t len, uint64_t off)
{
	if (pwrite(w->fd, buf, len, (off_t)off) == (ssize_t)len)
		return 0;
	fprintf(stderr, "%s: write at %llu: %s\n", w->path, (unsigned long long)off, strerror(errno));
	return -1;
}

int lw_create(struct lw_writer *w, const char *path, uint32_t sectorsize)
{
	memset(w, 0, sizeof(*w));
	w->path = path;
	w->sectorsize = sectorsize;
	w->next_off = sectorsize;
	if (sectorsize < 512 || sectorsize > 65536 || (sectorsize & (sectorsize - 1))) {
		fprintf(stderr, "%s: bad sector size %u\n", path, sectorsize);
		return -1;
	}
	w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int lw_append(struct lw_writer *w, uint32_t flags, uint64_t sector, uint64_t nr_sectors,
	      const void *data, const char *mark)
{
	unsigned char hdr[65536];
	size_t mark_len = mark ? strlen(mark) : 0;

	if (!!(flags & LW_MARK) != !!mark || mark_len > w->sectorsize - 32 || (flags & ~LW_KNOWN_FLAGS)) {
		fprintf(stderr, "%s: entry %llu: bad flags 0x%x or mark\n", w->path,
			(unsigned long long)w->nr_entries, flags);
		return -1;
	}
	memset(hdr, 0, w->sectorsize);
	put_le64(hdr, sector);
	put_le64(hdr + 8, nr_sectors);
	put_le64(hdr + 16, flags);
	put_le64(hdr + 24, mark_len);
	if (mark_len)
		memcpy(hdr + 32, mark, mark_len);
	if (write_at(w, hdr, w->sectorsize, w->next_off))
		return -1;
	w->next_off += w->sectorsize;
	/* As the kernel target: marks, discards and flushes without data carry none. */
	if (!(flags & (LW_MARK | LW_DISCARD)) && nr_sectors) {
		uint64_t len = nr_sectors * w->sectorsize;
		if (!data) {
			fprintf(stderr, "%s: entry %llu: no data\n", w->path, (unsigned long long)w->nr_entries);
			return -1;
		}
		if (write_at(w, data, (size_t)len, w->next_off))
			return -1;
		w->next_off += len;
	}
	w->nr_entries++;
	return 0;
}

int lw_finish(struct lw_writer *w)
{
	unsigned char super[512];
	int rc = 0;

	memset(super, 0, sizeof(super));
	put_le64(super, LW_MAGIC);
	put_le64(super + 8, LW_VERSION);
	put_le64(super + 16, w->nr_entries);
	for (int i = 0; i < 4; i++)
		super[24 + i] = (unsigned char)(w->sectorsize >> (8 * i));
	if (write_at(w, super, sizeof(super), 0))
		rc = -1;
	if (close(w->fd) < 0) {
		fprintf(stderr, "%s: %s\n", w->path, strerror(errno));
		rc = -1;
	}
	w->fd = -1;
	return rc;
}

int lw_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

uint64_t lw_image_size(int fd, const char *path)
{
	struct stat st;
	uint64_t size;

	if (fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &size) < 0) {
		fprintf(stderr, "%s: size: %s\n", path, strerror(errno));
		exit(1);
	}
	return size;
}
