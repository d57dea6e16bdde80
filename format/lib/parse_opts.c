// SPDX-License-Identifier: GPL-2.0
/*
 * Option values mkfs.stalefs and tunefs.stalefs both take (-U, -e, -G, -J):
 * one parser each, so that the two tools accept exactly the same spellings.
 * Each returns 0, or -1 with nothing stored; the tool words the usage error.
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include "libstalefs.h"

static void fill_random(u8 *p, size_t n)
{
	if (getrandom(p, n, 0) != (ssize_t)n) {
		/* No entropy source: a time-derived value is still unique enough for a label. */
		u64 t = (u64)time(NULL) ^ ((u64)clock() << 20);
		size_t i;

		for (i = 0; i < n; i++)
			p[i] = (u8)(t >> (8 * (i % 8))) ^ (u8)(i * 37);
	}
}

void stalefs_uuid_random(u8 out[16])
{
	fill_random(out, 16);
	out[6] = (u8)((out[6] & 0x0f) | 0x40);	/* version 4 */
	out[8] = (u8)((out[8] & 0x3f) | 0x80);	/* RFC 4122 variant */
}

/*
 * Version 1 (time-based), as uuid_generate_time does when it has no MAC
 * address to use: a random node id with the multicast bit set, so it can never
 * collide with a real interface's, and a random clock sequence.
 */
void stalefs_uuid_time(u8 out[16])
{
	struct timespec ts;
	u64 t;
	u8 rnd[8];

	clock_gettime(CLOCK_REALTIME, &ts);
	/* 100 ns intervals since 1582-10-15, the Gregorian reform (RFC 4122 4.1.4). */
	t = (u64)ts.tv_sec * 10000000ULL + (u64)ts.tv_nsec / 100 + 0x01B21DD213814000ULL;
	fill_random(rnd, sizeof(rnd));
	out[0] = (u8)(t >> 24); out[1] = (u8)(t >> 16); out[2] = (u8)(t >> 8); out[3] = (u8)t;
	out[4] = (u8)(t >> 40); out[5] = (u8)(t >> 32);
	out[6] = (u8)(((t >> 56) & 0x0f) | 0x10);	/* version 1 */
	out[7] = (u8)(t >> 48);
	out[8] = (u8)((rnd[0] & 0x3f) | 0x80);	/* clock sequence, RFC 4122 variant */
	out[9] = rnd[1];
	memcpy(out + 10, rnd + 2, 6);
	out[10] |= 0x01;			/* multicast bit: not a real MAC address */
}

int stalefs_parse_uuid(const char *s, u8 out[16])
{
	u8 v[16];
	int i = 0;

	if (strcasecmp(s, "random") == 0) {
		stalefs_uuid_random(out);
		return 0;
	}
	if (strcasecmp(s, "time") == 0) {
		stalefs_uuid_time(out);
		return 0;
	}
	if (strcasecmp(s, "clear") == 0 || strcasecmp(s, "null") == 0) {
		memset(out, 0, 16);
		return 0;
	}
	while (*s && i < 16) {
		unsigned int byte;

		if (*s == '-') {
			s++;
			continue;
		}
		/* Two hex digits exactly: sscanf alone would take "eg" as 0x0e. */
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    sscanf(s, "%2x", &byte) != 1)
			return -1;
		v[i++] = (u8)byte;
		s += 2;
	}
	if (i != 16 || *s)
		return -1;
	memcpy(out, v, 16);
	return 0;
}

void stalefs_uuid_unparse(const u8 u[16], char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

int stalefs_parse_errors(const char *s, u16 *out)
{
	if (strcmp(s, "continue") == 0)
		*out = STALEFS_ERRORS_CONTINUE;
	else if (strcmp(s, "remount-ro") == 0)
		*out = STALEFS_ERRORS_RO;
	else if (strcmp(s, "panic") == 0)
		*out = STALEFS_ERRORS_PANIC;
	else
		return -1;
	return 0;
}

const char *stalefs_errors_name(u16 errors)
{
	switch (errors) {
	case STALEFS_ERRORS_CONTINUE: return "Continue";
	case STALEFS_ERRORS_RO: return "Remount read-only";
	case STALEFS_ERRORS_PANIC: return "Panic";
	default: return "Unknown";
	}
}

int stalefs_parse_gid(const char *s, u32 *out)
{
	struct group *gr;
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!errno && end != s && !*end && s[0] != '-' && v < STALEFS_STALE_GID_NONE) {
		*out = (u32)v;
		return 0;
	}
	gr = getgrnam(s);
	if (gr && (u32)gr->gr_gid != STALEFS_STALE_GID_NONE) {
		*out = (u32)gr->gr_gid;
		return 0;
	}
	return -1;
}

int stalefs_parse_journal_opts(const char *list, u32 block_size, u32 *blocks, char *why, size_t whylen)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int rc = 0;
	bool sized = false;

	if (!copy) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long mib, b;
		char *end;

		if (strncmp(tok, "size=", 5) != 0) {
			snprintf(why, whylen, "unknown journal option: %s (known: size=MiB)", tok);
			rc = -1;
			break;
		}
		errno = 0;
		mib = strtoull(tok + 5, &end, 10);
		if (errno || end == tok + 5 || *end || tok[5] == '-' || mib > (1ULL << 32)) {
			snprintf(why, whylen, "invalid journal size: '%s' (a number of MiB)", tok + 5);
			rc = -1;
			break;
		}
		b = (mib << 20) / block_size;
		if (b < STALEFS_JOURNAL_MIN_BLOCKS) {
			snprintf(why, whylen, "journal size %llu MiB is %llu blocks of %u bytes; a journal needs at "
				 "least %u blocks (%u MiB)", mib, b, block_size, STALEFS_JOURNAL_MIN_BLOCKS,
				 (u32)(((u64)STALEFS_JOURNAL_MIN_BLOCKS * block_size) >> 20));
			rc = -1;
			break;
		}
		if (b > 0xFFFFFFFFULL) {
			snprintf(why, whylen, "journal size too large: %s MiB", tok + 5);
			rc = -1;
			break;
		}
		*blocks = (u32)b;
		sized = true;
	}
	if (!rc && !sized) {
		snprintf(why, whylen, "-J needs size=MiB");
		rc = -1;
	}
	free(copy);
	return rc;
}
