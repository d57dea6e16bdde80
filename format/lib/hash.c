// SPDX-License-Identifier: GPL-2.0
/*
 * Content hashes for the examiner's tools (the timeline's -H): MD5 (RFC 1321)
 * and SHA-256 (FIPS 180-4), streaming.  Written here from the specifications
 * so that libstalefs needs no crypto library; neither is used for anything
 * but naming file contents in a case file.
 */
#include <stdlib.h>
#include "libstalefs.h"

static inline u32 rol32(u32 x, unsigned n) { return (x << n) | (x >> (32 - n)); }
static inline u32 ror32(u32 x, unsigned n) { return (x >> n) | (x << (32 - n)); }

/* ---- MD5 ---- */

/* Per-round shift amounts, four per round. */
static const u8 md5_shift[4][4] = { { 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 } };

/* floor(abs(sin(i + 1)) * 2^32), the RFC's table T. */
static const u32 md5_k[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static void md5_block(u32 st[4], const u8 *p)
{
	u32 m[16], a = st[0], b = st[1], c = st[2], d = st[3];
	unsigned i;

	for (i = 0; i < 16; i++)
		m[i] = (u32)p[4 * i] | (u32)p[4 * i + 1] << 8 | (u32)p[4 * i + 2] << 16 | (u32)p[4 * i + 3] << 24;
	for (i = 0; i < 64; i++) {
		u32 f, t;
		unsigned g, round = i / 16;

		switch (round) {
		case 0: f = (b & c) | (~b & d); g = i; break;
		case 1: f = (d & b) | (~d & c); g = (5 * i + 1) % 16; break;
		case 2: f = b ^ c ^ d; g = (3 * i + 5) % 16; break;
		default: f = c ^ (b | ~d); g = (7 * i) % 16; break;
		}
		t = d;
		d = c;
		c = b;
		b = b + rol32(a + f + md5_k[i] + m[g], md5_shift[round][i % 4]);
		a = t;
	}
	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
}

/* ---- SHA-256 ---- */

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const u32 sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void sha256_block(u32 st[8], const u8 *p)
{
	u32 w[64], v[8];
	unsigned i;

	for (i = 0; i < 16; i++)
		w[i] = (u32)p[4 * i] << 24 | (u32)p[4 * i + 1] << 16 | (u32)p[4 * i + 2] << 8 | (u32)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		u32 s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		u32 s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, st, sizeof(v));
	for (i = 0; i < 64; i++) {
		u32 s1 = ror32(v[4], 6) ^ ror32(v[4], 11) ^ ror32(v[4], 25);
		u32 ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		u32 t1 = v[7] + s1 + ch + sha256_k[i] + w[i];
		u32 s0 = ror32(v[0], 2) ^ ror32(v[0], 13) ^ ror32(v[0], 22);
		u32 maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		memmove(v + 1, v, 7 * sizeof(u32));
		v[4] += t1;
		v[0] = t1 + s0 + maj;
	}
	for (i = 0; i < 8; i++)
		st[i] += v[i];
}

/* ---- the common streaming frame: 64-byte blocks, a bit length at the end ---- */

int stalefs_hash_kind(const char *name)
{
	if (strcmp(name, "md5") == 0)
		return STALEFS_HASH_MD5;
	if (strcmp(name, "sha256") == 0)
		return STALEFS_HASH_SHA256;
	return -1;
}

const char *stalefs_hash_name(int kind)
{
	return kind == STALEFS_HASH_MD5 ? "md5" : kind == STALEFS_HASH_SHA256 ? "sha256" : "none";
}

u32 stalefs_hash_size(int kind)
{
	return kind == STALEFS_HASH_MD5 ? 16 : kind == STALEFS_HASH_SHA256 ? 32 : 0;
}

void stalefs_hash_init(struct stalefs_hash *h, int kind)
{
	static const u32 md5_iv[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
	static const u32 sha256_iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memset(h, 0, sizeof(*h));
	h->kind = kind;
	if (kind == STALEFS_HASH_MD5)
		memcpy(h->state, md5_iv, sizeof(md5_iv));
	else
		memcpy(h->state, sha256_iv, sizeof(sha256_iv));
}

static void hash_block(struct stalefs_hash *h, const u8 *p)
{
	if (h->kind == STALEFS_HASH_MD5)
		md5_block(h->state, p);
	else
		sha256_block(h->state, p);
}

void stalefs_hash_update(struct stalefs_hash *h, const void *data, size_t len)
{
	const u8 *p = data;

	h->bytes += len;
	if (h->fill) {
		size_t n = 64 - h->fill < len ? 64 - h->fill : len;

		memcpy(h->buf + h->fill, p, n);
		h->fill += (u32)n;
		p += n;
		len -= n;
		if (h->fill < 64)
			return;
		hash_block(h, h->buf);
		h->fill = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		hash_block(h, p);
	memcpy(h->buf, p, len);
	h->fill = (u32)len;
}

/* Pad with 0x80, zeros and the bit length (MD5 little-endian, SHA-256 big-endian); out gets the digest. */
void stalefs_hash_final(struct stalefs_hash *h, u8 *out)
{
	u64 bits = h->bytes * 8;
	u8 pad[72] = { 0x80 };
	size_t padlen = (h->fill < 56 ? 56 : 120) - h->fill;
	unsigned i;

	for (i = 0; i < 8; i++)
		pad[padlen + i] = h->kind == STALEFS_HASH_MD5 ? (u8)(bits >> (8 * i)) : (u8)(bits >> (56 - 8 * i));
	stalefs_hash_update(h, pad, padlen + 8);
	if (h->kind == STALEFS_HASH_MD5) {
		for (i = 0; i < 16; i++)
			out[i] = (u8)(h->state[i / 4] >> (8 * (i % 4)));
	} else {
		for (i = 0; i < 32; i++)
			out[i] = (u8)(h->state[i / 4] >> (24 - 8 * (i % 4)));
	}
}

void stalefs_hash_hex(const u8 *digest, u32 size, char *out)
{
	static const char hex[] = "0123456789abcdef";
	u32 i;

	for (i = 0; i < size; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[2 * size] = '\0';
}

errcode_t stalefs_file_hash(stalefs_fs *fs, u32 ino, int kind, u8 *digest)
{
	const size_t chunk = 1u << 20;
	struct stalefs_inode inode;
	struct stalefs_hash h;
	u8 *buf;
	u64 size, off;
	errcode_t err = stalefs_read_inode(fs, ino, &inode);

	if (err)
		return err;
	if ((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFREG)
		return STALEFS_ERR_NOT_REGULAR;
	size = le64_to_cpu(inode.i_size);
	buf = malloc(chunk);
	if (!buf)
		return STALEFS_ERR_NO_MEMORY;
	stalefs_hash_init(&h, kind);
	for (off = 0; off < size && !err; ) {
		size_t got;

		err = stalefs_file_read(fs, ino, off, buf, size - off < chunk ? (size_t)(size - off) : chunk, &got);
		if (!err && !got)
			err = STALEFS_ERR_SHORT_READ;
		if (!err)
			stalefs_hash_update(&h, buf, got);
		off += got;
	}
	free(buf);
	if (!err)
		stalefs_hash_final(&h, digest);
	return err;
}
