// SPDX-License-Identifier: GPL-2.0
/* Userspace CRC32 (IEEE 802.3, as the kernel's crc32_le) through zlib. */
#include <zlib.h>
#include "stalefs_compat.h"

u32 stalefs_crc32_le(u32 crc, const void *p, size_t len)
{
	/* zlib inverts on entry and exit; the kernel's crc32_le does neither. */
	return ~(u32)crc32(~crc & 0xffffffffUL, (const Bytef *)p, (uInt)len);
}
