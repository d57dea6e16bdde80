/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Named fields of on-disk structures, for sif / ssv / set_bg / seb: each names
 * a little-endian integer (or string, uuid, byte) at an offset.  Arrays are
 * written "name[N]" (or "extent[N].lblk") and stored once as "name[]" with a
 * stride and a count.
 */
#ifndef DEBUGFS_FIELDS_H
#define DEBUGFS_FIELDS_H

#include "libstalefs.h"

enum field_kind {
	F_UINT,		/* unsigned little-endian integer of size 1, 2, 4 or 8 */
	F_TIME,		/* signed seconds; accepts "now" */
	F_STRING,	/* NUL-padded characters */
	F_UUID,		/* 16 bytes, written as 8-4-4-4-12 hex */
	F_FEATURE0,	/* feature mask: numbers or names (compat, ro_compat, incompat) */
	F_FEATURE1,
	F_FEATURE2,
	F_CSUM,		/* the structure's checksum: a number, or "calc" */
};

struct field {
	const char *name;	/* "mode", "extent[].lblk" */
	u32 offset;		/* of element 0 */
	u32 size;
	enum field_kind kind;
	u32 stride, count;	/* arrays: count elements stride bytes apart; 0 otherwise */
};

/* Look a field up by name ("i_mode" and "mode" both work: prefix is stripped). */
const struct field *field_find(const struct field *table, const char *prefix, const char *name,
			       u32 *offset, char *err, size_t errlen);
/* Parse value and store it into buf at offset; returns false with a message in err. */
bool field_set(const struct field *f, u8 *buf, u32 offset, const char *value, char *err, size_t errlen);
void field_list(const struct field *table, const char *what);
/* A little-endian unsigned field of size bytes (1..8) at p. */
u64 field_get_le(const u8 *p, u32 size);

extern const struct field inode_fields[], super_fields[], desc_fields[], extblock_fields[];

#endif
