// SPDX-License-Identifier: GPL-2.0
/* Feature names (as -O and debugfs spell them) and size parsing shared by the tools. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <strings.h>
#include "libstalefs.h"

static const struct {
	int kind;
	u32 bit;
	const char *name;
} features[] = {
	{ 0, STALEFS_FEATURE_COMPAT_LAZY_ITABLE, "lazy_itable" },
	{ 0, STALEFS_FEATURE_COMPAT_HAS_JOURNAL, "has_journal" },
	{ 1, STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE, "nohide_stale" },
	{ 1, STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER, "sparse_super" },
	{ 1, STALEFS_FEATURE_RO_COMPAT_XATTR, "xattr" },
	{ 2, STALEFS_FEATURE_INCOMPAT_EXTENTS, "extents" },
	{ 2, STALEFS_FEATURE_INCOMPAT_FILETYPE, "filetype" },
	{ 2, STALEFS_FEATURE_INCOMPAT_RECOVER, "needs_recovery" },
	{ 2, STALEFS_FEATURE_INCOMPAT_META_BG, "meta_bg" },
};

const char *stalefs_feature_name(int kind, u32 bit)
{
	size_t i;

	for (i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (features[i].kind == kind && features[i].bit == bit)
			return features[i].name;
	return NULL;
}

errcode_t stalefs_feature_parse(const char *name, int *kind, u32 *bit)
{
	size_t i;

	for (i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		if (strcasecmp(features[i].name, name) == 0) {
			*kind = features[i].kind;
			*bit = features[i].bit;
			return 0;
		}
	/* FEATURE_C5, FEATURE_R3, FEATURE_I7: raw bits, as e2fsprogs accepts them. */
	if (strncasecmp(name, "FEATURE_", 8) == 0 && name[8] && isdigit((unsigned char)name[9])) {
		char *end;
		long b = strtol(name + 9, &end, 10);
		const char *k = "CRI";
		const char *pos = strchr(k, toupper((unsigned char)name[8]));

		if (pos && *end == '\0' && b >= 0 && b < 32) {
			*kind = (int)(pos - k);
			*bit = 1u << b;
			return 0;
		}
	}
	return STALEFS_ERR_BAD_ARGUMENT;
}

int stalefs_parse_size(const char *s, u64 *bytes)
{
	char *end;
	unsigned long long v;
	u64 mult = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': mult = 1ULL << 10; end++; break;
	case 'M': mult = 1ULL << 20; end++; break;
	case 'G': mult = 1ULL << 30; end++; break;
	case 'T': mult = 1ULL << 40; end++; break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if ((*end == 'B' || *end == 'b') && mult > 1)
		end++;
	if (*end != '\0')
		return -1;
	if (v > ~0ULL / mult)
		return -1;
	*bytes = v * mult;
	return 0;
}
