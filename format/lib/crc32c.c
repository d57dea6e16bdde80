// SPDX-License-Identifier: GPL-2.0
/*
 * CRC32C (Castagnoli, polynomial 0x1EDC6F41, bit-reflected) with the kernel's
 * crc32c() semantics: the caller's crc goes in and comes out as it is, with
 * no inversion before or after.  jbd2 seeds and chains its journal checksums
 * this way (FORMAT.md 12), so the tools must too.
 *
 * Portable path: slicing by eight (eight 256-entry tables, built on first
 * use).  On x86-64 CPUs with SSE4.2 the crc32 instruction does the same
 * arithmetic eight bytes at a time; it inverts nothing either.
 */
#include "libstalefs.h"

#define CRC32C_POLY_REFLECTED 0x82F63B78u

static u32 table[8][256];
static bool table_ready;

static void build_tables(void)
{
	u32 i, k;

	for (i = 0; i < 256; i++) {
		u32 c = i;

		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ ((c & 1) ? CRC32C_POLY_REFLECTED : 0);
		table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
	table_ready = true;
}

static u32 crc32c_sliced(u32 crc, const u8 *p, size_t len)
{
	if (!table_ready)
		build_tables();
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (len >= 8) {
		u32 lo, hi;

		/* Little-endian loads: the reflected CRC consumes bytes in memory order. */
		lo = (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
		hi = (u32)p[4] | (u32)p[5] << 8 | (u32)p[6] << 16 | (u32)p[7] << 24;
		lo ^= crc;
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
		      table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2")))
static u32 crc32c_sse42(u32 crc, const u8 *p, size_t len)
{
	u64 c = crc;

	while (len && ((uintptr_t)p & 7)) {
		c = __builtin_ia32_crc32qi((u32)c, *p++);
		len--;
	}
	while (len >= 8) {
		u64 v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((u32)c, *p++);
	return (u32)c;
}

static bool have_sse42(void)
{
	static int have = -1;

	if (have < 0)
		have = __builtin_cpu_supports("sse4.2");
	return have;
}

u32 stalefs_crc32c(u32 crc, const void *p, size_t len)
{
	if (have_sse42())
		return crc32c_sse42(crc, p, len);
	return crc32c_sliced(crc, p, len);
}
#else
u32 stalefs_crc32c(u32 crc, const void *p, size_t len)
{
	return crc32c_sliced(crc, p, len);
}
#endif

/* The portable path on its own, so the tests can hold both against the same vectors. */
u32 stalefs_crc32c_portable(u32 crc, const void *p, size_t len)
{
	return crc32c_sliced(crc, p, len);
}
