/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Self-describing file data for the power-cut tests: cache-workload fills
 * every write with 16-byte records
 *
 *   bytes 0-3   "\xd1DA\x7e"   (never the fill pattern's "\xa5PWRCUT\x5a")
 *   bytes 4-7   the file's id (little-endian), registered with its inode
 *   bytes 8-9   the write's tag, so two writes at one offset differ
 *   bytes 10-15 the record's own offset in the file / 16 (48 bits)
 *
 * so powercut-check can tell, for any file at any cut, that a record was
 * written to *this* file at *this* offset: data of another (perhaps
 * deleted) file, or a block landed at the wrong place, shows up as a
 * record with a foreign id or offset.
 */
#ifndef ROBUST_DATA_RECORD_H
#define ROBUST_DATA_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define DATA_MAGIC "\xd1" "DA\x7e"
#define DATA_RECORD 16

/* Fill buf (len a multiple of 16) with the records of file id at file offset off. */
static inline void data_fill(unsigned char *buf, size_t len, uint32_t id, uint16_t tag, uint64_t off)
{
	for (size_t i = 0; i + DATA_RECORD <= len; i += DATA_RECORD) {
		unsigned char *r = buf + i;
		uint64_t at = (off + i) / DATA_RECORD;

		memcpy(r, DATA_MAGIC, 4);
		for (int b = 0; b < 4; b++)
			r[4 + b] = (unsigned char)(id >> (8 * b));
		r[8] = (unsigned char)tag;
		r[9] = (unsigned char)(tag >> 8);
		for (int b = 0; b < 6; b++)
			r[10 + b] = (unsigned char)(at >> (8 * b));
	}
}

/* Is r (16 bytes) a data record?  Then *id and *at (offset / 16) get its fields. */
static inline int data_parse(const unsigned char *r, uint32_t *id, uint64_t *at)
{
	if (memcmp(r, DATA_MAGIC, 4))
		return 0;
	*id = 0;
	for (int b = 3; b >= 0; b--)
		*id = *id << 8 | r[4 + b];
	*at = 0;
	for (int b = 5; b >= 0; b--)
		*at = *at << 8 | r[10 + b];
	return 1;
}

#endif
