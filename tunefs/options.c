// SPDX-License-Identifier: GPL-2.0
/*
 * tunefs.stalefs's command line, tune2fs-style.  Every value is checked here,
 * before the device is opened, so that a bad option never gets as far as a
 * write.  The values mkfs also takes (-U, -e, -G, -J) go through the
 * library's parsers, so both tools accept the same spellings.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tunefs.h"

static int usage(void)
{
	fprintf(stderr,
		"Usage: %s [-l] [-L volume-label] [-U UUID|random|time|clear]\n"
		"\t[-e continue|remount-ro|panic] [-c max-mount-count] [-C mount-count]\n"
		"\t[-i interval[d|w|m|s]] [-T last-check-time|now] [-G gid|none]\n"
		"\t[-O [^]has_journal,[^]xattr] [-J size=journal-MiB] [-V] device\n", program_name);
	return TUNEFS_ERROR;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", program_name);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return usage();
}

static int parse_u32(const char *s, u32 *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > 0xFFFFFFFFULL)
		return -1;
	*out = (u32)v;
	return 0;
}

/* -c: as tune2fs, 0 or -1 turn the mount-count check off; at most STALEFS_MAX_MNT_COUNT_LIMIT (16000). */
static int parse_max_mnt(const char *s, u32 *out)
{
	if (strcmp(s, "-1") == 0) {
		*out = 0;
		return 0;
	}
	if (parse_u32(s, out) || *out > STALEFS_MAX_MNT_COUNT_LIMIT)
		return usage_error("bad mounts count - %s (0 to 16000, or -1 for none)", s);
	return 0;
}

/* -i: a number of days, or with d, w, m (30 days) or s (seconds); 0 turns it off. */
static int parse_interval(const char *s, u32 *out)
{
	char *end;
	unsigned long long v, unit = 86400;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return usage_error("bad interval - %s", s);
	switch (*end) {
	case '\0': case 'd': case 'D': break;
	case 'w': case 'W': unit = 7 * 86400ULL; break;
	case 'm': case 'M': unit = 30 * 86400ULL; break;
	case 's': case 'S': unit = 1; break;
	default: return usage_error("bad interval - %s (a number, with d, w, m or s)", s);
	}
	if (*end && end[1])
		return usage_error("bad interval - %s (a number, with d, w, m or s)", s);
	if (v > 0xFFFFFFFFULL / unit)
		return usage_error("interval too large - %s (s_checkinterval holds at most 49710 days)", s);
	*out = (u32)(v * unit);
	return 0;
}

/* -T: now, or YYYYMMDD[HH[MM[SS]]] in UTC (tune2fs takes local time; a filesystem moves between zones). */
static int parse_time(const char *s, s64 *out)
{
	struct tm tm;
	const char *end;
	size_t len = strlen(s);

	if (strcmp(s, "now") == 0) {
		*out = (s64)time(NULL);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	if (len != 8 && len != 10 && len != 12 && len != 14)
		return usage_error("bad time - %s (now, or YYYYMMDD[HH[MM[SS]]] in UTC)", s);
	end = strptime(s, len == 8 ? "%Y%m%d" : len == 10 ? "%Y%m%d%H" : len == 12 ? "%Y%m%d%H%M" : "%Y%m%d%H%M%S",
		       &tm);
	if (!end || *end)
		return usage_error("bad time - %s (now, or YYYYMMDD[HH[MM[SS]]] in UTC)", s);
	*out = (s64)timegm(&tm);
	return 0;
}

/* -O: only has_journal and xattr can change here; the rest are mkfs's choice or kept by other means. */
static int parse_features(const char *list, struct tune_opts *o)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int rc = 0;

	if (!copy)
		return usage_error("%s", "out of memory");
	for (tok = strtok_r(copy, ", ", &save); tok && !rc; tok = strtok_r(NULL, ", ", &save)) {
		bool clear = tok[0] == '^';
		int kind;
		u32 bit;

		if (stalefs_feature_parse(tok + clear, &kind, &bit)) {
			rc = usage_error("invalid filesystem option set: %s", tok);
		} else if (kind == 0 && bit == STALEFS_FEATURE_COMPAT_HAS_JOURNAL) {
			if (clear)
				o->remove_journal = true;
			else
				o->add_journal = true;
		} else if (kind == 1 && bit == STALEFS_FEATURE_RO_COMPAT_XATTR) {
			if (clear)
				o->remove_xattr = true;
			else
				o->add_xattr = true;
		} else if (kind == 1 && bit == STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE) {
			rc = usage_error("%s goes with the permitted group: use -G GID to record one, -G none to "
					 "forget it", tok);
		} else {
			rc = usage_error("the %s feature cannot be changed by tunefs.stalefs (only has_journal and xattr can)",
					 tok + clear);
		}
	}
	free(copy);
	return rc;
}

static int parse_letter(int c, const char *arg, struct tune_opts *o)
{
	switch (c) {
	case 'l': o->list = true; return 0;
	case 'L':
		if (strlen(arg) > STALEFS_LABEL_MAX)
			return usage_error("volume label too long: '%s' (at most 31 bytes)", arg);
		o->set_label = true;
		o->label = arg;
		return 0;
	case 'U':
		if (stalefs_parse_uuid(arg, o->uuid))
			return usage_error("invalid UUID: '%s' (8-4-4-4-12 hex digits, random, time or clear)", arg);
		o->set_uuid = true;
		return 0;
	case 'e':
		if (stalefs_parse_errors(arg, &o->errors))
			return usage_error("invalid errors behavior: %s (continue, remount-ro or panic)", arg);
		o->set_errors = true;
		return 0;
	case 'c': o->set_max_mnt = true; return parse_max_mnt(arg, &o->max_mnt);
	case 'C':
		o->set_mnt_count = true;
		if (parse_u32(arg, &o->mnt_count))
			return usage_error("bad mounts count - %s", arg);
		return 0;
	case 'i': o->set_interval = true; return parse_interval(arg, &o->interval);
	case 'T': o->set_lastcheck = true; return parse_time(arg, &o->lastcheck);
	case 'G':
		o->set_stale_gid = true;
		if (strcmp(arg, "none") == 0) {
			o->stale_gid = STALEFS_STALE_GID_NONE;
			return 0;
		}
		if (stalefs_parse_gid(arg, &o->stale_gid))
			return usage_error("invalid group for -G: '%s' (a gid, a group name, or none)", arg);
		return 0;
	case 'O': return parse_features(arg, o);
	case 'J': o->add_journal = true; o->journal_opts = arg; return 0;
	case 'V':
		printf("%s %s\n", program_name, STALEFS_VERSION);
		return -1;
	default:
		return usage();
	}
}

int tune_parse_options(int argc, char **argv, struct tune_opts *o)
{
	int c, rc;

	memset(o, 0, sizeof(*o));
	optind = 0;
	while ((c = getopt(argc, argv, "lL:U:e:c:C:i:T:G:O:J:V")) != -1) {
		rc = parse_letter(c, optarg, o);
		if (rc)
			return rc;
	}
	if (optind >= argc)
		return usage_error("%s", "no device specified");
	o->device = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument: %s", argv[optind]);
	if (o->add_journal && o->remove_journal)
		return usage_error("%s", "has_journal both added and removed (-O ^has_journal with -J or -O has_journal)");
	if (o->add_xattr && o->remove_xattr)
		return usage_error("%s", "xattr both added and removed (-O xattr,^xattr)");
	if (!o->list && !tune_wants_change(o))
		return usage_error("%s", "nothing to do: give -l or a change");
	return 0;
}

bool tune_wants_change(const struct tune_opts *o)
{
	return o->set_label || o->set_uuid || o->set_errors || o->set_max_mnt || o->set_mnt_count ||
	       o->set_interval || o->set_lastcheck || o->set_stale_gid || o->add_journal || o->remove_journal ||
	       o->add_xattr || o->remove_xattr;
}
