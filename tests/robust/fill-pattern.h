/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fill pattern of the power-cut tests: before mkfs the device is
 * covered with 16-byte records "\xa5PWRCUT\x5a" + the 4 KiB block number
 * (little-endian 64 bits).  A file that reads such a record shows data it
 * was never given, and the number says which disk block it came from.
 * No workload writes the magic.
 */
#ifndef ROBUST_FILL_PATTERN_H
#define ROBUST_FILL_PATTERN_H

#include <stdint.h>
#include <string.h>

#define FILL_MAGIC "\xa5PWRCUT\x5a"
#define FILL_RECORD 16
#define FILL_BLOCK 4096

static inline void fill_block(unsigned char *buf, uint64_t block)
{
	for (int off = 0; off < FILL_BLOCK; off += FILL_RECORD) {
		memcpy(buf + off, FILL_MAGIC, 8);
		for (int i = 0; i < 8; i++)
			buf[off + 8 + i] = (unsigned char)(block >> (8 * i));
	}
}

/*
 * Offset of the first record in buf[0..len) (len a multiple of 16 or
 * the file's tail), or -1; *block gets the disk block it names.
 */
static inline long fill_find(const unsigned char *buf, size_t len, uint64_t *block)
{
	for (size_t off = 0; off + FILL_RECORD <= len; off += FILL_RECORD) {
		if (memcmp(buf + off, FILL_MAGIC, 8))
			continue;
		*block = 0;
		for (int i = 7; i >= 0; i--)
			*block = *block << 8 | buf[off + 8 + i];
		return (long)off;
	}
	return -1;
}

#endif
