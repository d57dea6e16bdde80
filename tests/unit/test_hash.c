/*
 * Content hashes: MD5 (RFC 1321's test suite) and SHA-256 (FIPS 180-4's examples),
 * the padding edges (55, 56 and 64 bytes), input fed in any split giving the same
 * digest, and stalefs_file_hash over a file with a hole and an UNWRITTEN extent.
 */
#include "unit.h"

static void hex_of(int kind, const void *data, size_t len, char *out)
{
	struct stalefs_hash h;
	u8 d[STALEFS_HASH_MAX_SIZE];

	stalefs_hash_init(&h, kind);
	stalefs_hash_update(&h, data, len);
	stalefs_hash_final(&h, d);
	stalefs_hash_hex(d, stalefs_hash_size(kind), out);
}

static void repeat(char c, size_t n, char *out)
{
	memset(out, c, n);
	out[n] = '\0';
}

START_TEST(md5_vectors)
{
	static const struct { const char *in, *md5; } v[] = {
		{ "", "d41d8cd98f00b204e9800998ecf8427e" },
		{ "a", "0cc175b9c0f1b6a831c399e269772661" },
		{ "abc", "900150983cd24fb0d6963f7d28e17f72" },
		{ "message digest", "f96b697d7cb7938d525a2f31aaf161d0" },
		{ "abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f" },
		{ "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
		  "57edf4a22be3c955ac49da2e2107b67a" },
	};
	char out[65], buf[80];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		hex_of(STALEFS_HASH_MD5, v[i].in, strlen(v[i].in), out);
		ck_assert_str_eq(out, v[i].md5);
	}
	repeat('x', 55, buf);
	hex_of(STALEFS_HASH_MD5, buf, 55, out);
	ck_assert_str_eq(out, "04364420e25c512fd958a70738aa8f72");
	repeat('x', 56, buf);
	hex_of(STALEFS_HASH_MD5, buf, 56, out);
	ck_assert_str_eq(out, "668a72d5ba17f08e62dabcafad6db14b");
	repeat('x', 64, buf);
	hex_of(STALEFS_HASH_MD5, buf, 64, out);
	ck_assert_str_eq(out, "c1bb4f81d892b2d57947682aeb252456");
}
END_TEST

START_TEST(sha256_vectors)
{
	char out[65], buf[80], *million = malloc(1000000);

	hex_of(STALEFS_HASH_SHA256, "", 0, out);
	ck_assert_str_eq(out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	hex_of(STALEFS_HASH_SHA256, "abc", 3, out);
	ck_assert_str_eq(out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	hex_of(STALEFS_HASH_SHA256, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, out);
	ck_assert_str_eq(out, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	hex_of(STALEFS_HASH_SHA256, million, 1000000, out);
	ck_assert_str_eq(out, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);
	repeat('x', 55, buf);
	hex_of(STALEFS_HASH_SHA256, buf, 55, out);
	ck_assert_str_eq(out, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
	repeat('x', 56, buf);
	hex_of(STALEFS_HASH_SHA256, buf, 56, out);
	ck_assert_str_eq(out, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
	repeat('x', 64, buf);
	hex_of(STALEFS_HASH_SHA256, buf, 64, out);
	ck_assert_str_eq(out, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
}
END_TEST

/* The same bytes in pieces of every size from 1 to 200 give the one-shot digest. */
START_TEST(any_split)
{
	static const int kinds[2] = { STALEFS_HASH_MD5, STALEFS_HASH_SHA256 };
	u8 data[3000], d[STALEFS_HASH_MAX_SIZE];
	char one[65], pieces[65];
	u64 rng = 7;
	int k;

	unit_fill(&rng, data, sizeof(data));
	for (k = 0; k < 2; k++) {
		size_t step;

		hex_of(kinds[k], data, sizeof(data), one);
		for (step = 1; step <= 200; step++) {
			struct stalefs_hash h;
			size_t off;

			stalefs_hash_init(&h, kinds[k]);
			for (off = 0; off < sizeof(data); off += step)
				stalefs_hash_update(&h, data + off, sizeof(data) - off < step ? sizeof(data) - off : step);
			stalefs_hash_final(&h, d);
			stalefs_hash_hex(d, stalefs_hash_size(kinds[k]), pieces);
			hot_assert(strcmp(one, pieces) == 0, "%s in pieces of %zu: %s, one shot %s",
				   stalefs_hash_name(kinds[k]), step, pieces, one);
		}
	}
}
END_TEST

START_TEST(names)
{
	ck_assert_int_eq(stalefs_hash_kind("md5"), STALEFS_HASH_MD5);
	ck_assert_int_eq(stalefs_hash_kind("sha256"), STALEFS_HASH_SHA256);
	ck_assert_int_eq(stalefs_hash_kind("sha1"), -1);
	ck_assert_int_eq(stalefs_hash_kind("MD5"), -1);
	ck_assert_uint_eq(stalefs_hash_size(STALEFS_HASH_MD5), 16);
	ck_assert_uint_eq(stalefs_hash_size(STALEFS_HASH_SHA256), 32);
}
END_TEST

/* A file's digest is the digest of what reading it returns: data, a hole, unwritten blocks. */
START_TEST(file_hash)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs(&s, 16 << 20, 4096);
	u8 *data = calloc(1, 5 * 4096), d[STALEFS_HASH_MAX_SIZE];
	char want[65], got[65];
	u64 rng = 11;
	u32 ino;

	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	unit_fill(&rng, data, 4096);
	unit_fill(&rng, data + 4 * 4096, 1000);
	ck_ok(stalefs_file_write(fs, ino, 0, data, 4096));		/* block 0: data */
	ck_ok(stalefs_fallocate(fs, ino, 2, 2, false));			/* 2-3: unwritten; 1: a hole */
	ck_ok(stalefs_file_write(fs, ino, 4 * 4096, data + 4 * 4096, 1000));
	hex_of(STALEFS_HASH_SHA256, data, 4 * 4096 + 1000, want);
	ck_ok(stalefs_file_hash(fs, ino, STALEFS_HASH_SHA256, d));
	stalefs_hash_hex(d, 32, got);
	ck_assert_str_eq(got, want);
	ck_err(stalefs_file_hash(fs, STALEFS_ROOT_INO, STALEFS_HASH_MD5, d), STALEFS_ERR_NOT_REGULAR);
	free(data);
	scratch_done(&s);
}
END_TEST

Suite *hash_suite(void)
{
	Suite *su = suite_create("hash");
	TCase *tc = tcase_create("hash");

	tcase_add_test(tc, md5_vectors);
	tcase_add_test(tc, sha256_vectors);
	tcase_add_test(tc, any_split);
	tcase_add_test(tc, names);
	tcase_add_test(tc, file_hash);
	suite_add_tcase(su, tc);
	return su;
}
