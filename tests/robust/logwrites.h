/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a dm-log-writes log (Documentation/admin-guide/device-mapper/
 * log-writes.rst in the kernel).  The log device holds, all little-endian:
 *
 *   sector 0            super: magic, version, nr_entries, sectorsize
 *   then, per entry     one sector: sector, nr_sectors, flags, data_len,
 *                       followed in that same sector by a mark's name;
 *                       then nr_sectors sectors of written data (none for
 *                       flushes, marks and discards)
 *
 * "sector" in the log means the logged device's logical sector
 * (sectorsize bytes), both for addresses and for lengths.
 */
#ifndef ROBUST_LOGWRITES_H
#define ROBUST_LOGWRITES_H

#include <stdint.h>
#include <stdio.h>

#define LW_MAGIC 0x6a736677736872ULL
#define LW_VERSION 1ULL

#define LW_FLUSH (1u << 0)
#define LW_FUA (1u << 1)
#define LW_DISCARD (1u << 2)
#define LW_MARK (1u << 3)
#define LW_METADATA (1u << 4)
#define LW_KNOWN_FLAGS (LW_FLUSH | LW_FUA | LW_DISCARD | LW_MARK | LW_METADATA)

struct lw_entry {
	uint64_t index;		/* 0-based position in the log */
	uint64_t sector;	/* where the write lands, in sectorsize units */
	uint64_t nr_sectors;
	uint32_t flags;
	uint64_t data_off;	/* byte offset of the data in the log */
	char mark[128];		/* the mark's name, "" when not a mark */
};

struct lw_log {
	int fd;
	const char *path;
	uint64_t size;		/* bytes */
	uint64_t nr_entries;
	uint32_t sectorsize;
	uint64_t next_off;	/* byte offset of the next entry's header */
	uint64_t next_index;
};

/* Open and check the super; on failure print why to stderr and return -1. */
int lw_open(struct lw_log *log, const char *path);
/* Read the next entry: 1 when read, 0 at the end, -1 (message printed) on a bad entry. */
int lw_next(struct lw_log *log, struct lw_entry *e);
/* Back to entry 0, so a second pass can follow the first. */
void lw_rewind(struct lw_log *log);
/* Does the entry put data on the disk (not a mark, discard or empty flush)? */
int lw_has_data(const struct lw_entry *e);
/*
 * Copy entry e's data from the log onto img (img_size bytes, named
 * img_path in messages): 0, or -1 with a message (past the image's end,
 * read or write error).
 */
int lw_apply(const struct lw_log *log, const struct lw_entry *e, int img, uint64_t img_size,
	     const char *img_path);
/* "W", "F", "WU", "M"...: W data written, F flush, U FUA, D discard, M mark. */
const char *lw_flag_string(const struct lw_entry *e, char buf[8]);
void lw_close(struct lw_log *log);
/* A decimal command-line number (the log tools' entry indexes, cuts, seeds): 0, or -1. */
int lw_parse_u64(const char *s, uint64_t *out);
/* Bytes in an image file or block device; exits with a message on failure. */
uint64_t lw_image_size(int fd, const char *path);

/*
 * Writing a log, for tests that need one with a known shape (the kernel
 * target writes the real ones): create, append entries in order, finish
 * (writes the super with the entry count).  Each returns 0, or -1 with a
 * message on stderr.
 */
struct lw_writer {
	int fd;
	const char *path;
	uint32_t sectorsize;
	uint64_t nr_entries;
	uint64_t next_off;
};

int lw_create(struct lw_writer *w, const char *path, uint32_t sectorsize);
/*
 * One entry: flags (LW_*), where it lands and how long, in sectorsize
 * units; data (nr_sectors sectors) unless a mark, discard or flush without
 * data; mark the name of a mark (LW_MARK), else NULL.
 */
int lw_append(struct lw_writer *w, uint32_t flags, uint64_t sector, uint64_t nr_sectors,
	      const void *data, const char *mark);
int lw_finish(struct lw_writer *w);

#endif
