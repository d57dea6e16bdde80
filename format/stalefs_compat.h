/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel types and helpers that the shared
 * format code (format/core/) uses, so that code compiles unchanged in both.
 */
#ifndef STALEFS_COMPAT_H
#define STALEFS_COMPAT_H

#ifdef __KERNEL__
#error "stalefs_compat.h is for userspace only"
#endif

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <endian.h>
#include <linux/types.h>	/* __u8..__u64, __le16..__le64 as the kernel spells them */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef int32_t s32;

#define cpu_to_le16(x) ((__le16)htole16(x))
#define cpu_to_le32(x) ((__le32)htole32(x))
#define cpu_to_le64(x) ((__le64)htole64(x))
#define le16_to_cpu(x) ((u16)le16toh(x))
#define le32_to_cpu(x) ((u32)le32toh(x))
#define le64_to_cpu(x) ((u64)le64toh(x))

static inline void le16_add_cpu(__le16 *v, u16 d) { *v = cpu_to_le16(le16_to_cpu(*v) + d); }
static inline void le32_add_cpu(__le32 *v, u32 d) { *v = cpu_to_le32(le32_to_cpu(*v) + d); }
static inline void le64_add_cpu(__le64 *v, u64 d) { *v = cpu_to_le64(le64_to_cpu(*v) + d); }

/* Kernel crc32_le semantics: no pre- or post-inversion. */
u32 stalefs_crc32_le(u32 crc, const void *p, size_t len);

#endif /* STALEFS_COMPAT_H */
