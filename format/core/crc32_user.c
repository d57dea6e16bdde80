// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace CRC32 (IEEE 802.3, as the kernel's crc32_le).  zlib computes it
 * everywhere; on x86-64 CPUs with carry-less multiply, runs of 64 bytes and
 * more are folded with PCLMULQDQ instead, about four times faster -- every
 * metadata block the tools write or verify is checksummed, so this is most of
 * mkfs -d's CPU time.  The folding follows Gopal et al., "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ Instruction" (Intel,
 * 2009), bit-reflected form: four 128-bit lanes folded by 512 bits, then into
 * one lane, then Barrett-reduced to 32 bits.
 */
#include <zlib.h>
#include "stalefs_compat.h"

static u32 crc32_zlib(u32 crc, const void *p, size_t len)
{
	/* zlib inverts on entry and exit; the kernel's crc32_le does neither. */
	return ~(u32)crc32(~crc & 0xffffffffUL, (const Bytef *)p, (uInt)len);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* x^n mod P(x), bit-reflected, for the fold distances used below (and P and its Barrett constant). */
#define K_512_HI 0x1c6e41596ULL		/* fold by 4 x 128 bits */
#define K_512_LO 0x154442bd4ULL
#define K_128_HI 0x0ccaa009eULL		/* fold by 128 bits */
#define K_128_LO 0x1751997d0ULL
#define K_64	 0x163cd6124ULL		/* 64 -> 32 bits */
#define P_PRIME  0x1db710641ULL		/* P(x), reflected */
#define MU_PRIME 0x1f7011641ULL		/* floor(x^64 / P(x)), reflected */

/* len >= 64 and a multiple of 16; raw crc in and out (no inversion). */
__attribute__((target("pclmul,sse4.1")))
static u32 crc32_clmul(u32 crc, const u8 *p, size_t len)
{
	const __m128i k512 = _mm_set_epi64x((long long)K_512_HI, (long long)K_512_LO);
	const __m128i k128 = _mm_set_epi64x((long long)K_128_HI, (long long)K_128_LO);
	const __m128i k64 = _mm_set_epi64x(0, (long long)K_64);
	const __m128i barrett = _mm_set_epi64x((long long)MU_PRIME, (long long)P_PRIME);
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i x1, x2, x3, x4, t1, t2, t3, t4;

	x1 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)crc));
	x2 = _mm_loadu_si128((const __m128i *)(p + 16));
	x3 = _mm_loadu_si128((const __m128i *)(p + 32));
	x4 = _mm_loadu_si128((const __m128i *)(p + 48));
	for (p += 64, len -= 64; len >= 64; p += 64, len -= 64) {
		t1 = _mm_clmulepi64_si128(x1, k512, 0x11);
		t2 = _mm_clmulepi64_si128(x2, k512, 0x11);
		t3 = _mm_clmulepi64_si128(x3, k512, 0x11);
		t4 = _mm_clmulepi64_si128(x4, k512, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k512, 0x00), t1),
				   _mm_loadu_si128((const __m128i *)p));
		x2 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x2, k512, 0x00), t2),
				   _mm_loadu_si128((const __m128i *)(p + 16)));
		x3 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x3, k512, 0x00), t3),
				   _mm_loadu_si128((const __m128i *)(p + 32)));
		x4 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x4, k512, 0x00), t4),
				   _mm_loadu_si128((const __m128i *)(p + 48)));
	}
	/* Four lanes into one, then the remaining 16-byte pieces. */
	t1 = _mm_clmulepi64_si128(x1, k128, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k128, 0x00), t1), x2);
	t1 = _mm_clmulepi64_si128(x1, k128, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k128, 0x00), t1), x3);
	t1 = _mm_clmulepi64_si128(x1, k128, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k128, 0x00), t1), x4);
	for (; len >= 16; p += 16, len -= 16) {
		t1 = _mm_clmulepi64_si128(x1, k128, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k128, 0x00), t1),
				   _mm_loadu_si128((const __m128i *)p));
	}
	/* 128 -> 64 bits (appending 32 zero bits), 64 -> 32, then Barrett reduction. */
	x2 = _mm_clmulepi64_si128(k128, x1, 0x01);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
	x2 = _mm_srli_si128(x1, 4);
	x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, low32), k64, 0x00), x2);
	x2 = x1;
	x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), barrett, 0x10);
	x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), barrett, 0x00);
	x1 = _mm_xor_si128(x1, x2);
	return (u32)_mm_extract_epi32(x1, 1);
}

static bool have_clmul(void)
{
	static int have = -1;

	if (have < 0)
		have = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
	return have;
}

u32 stalefs_crc32_le(u32 crc, const void *p, size_t len)
{
	if (len >= 64 && have_clmul()) {
		size_t n = len & ~(size_t)15;

		crc = crc32_clmul(crc, p, n);
		p = (const u8 *)p + n;
		len -= n;
	}
	return len ? crc32_zlib(crc, p, len) : crc;
}
#else
u32 stalefs_crc32_le(u32 crc, const void *p, size_t len)
{
	return crc32_zlib(crc, p, len);
}
#endif
