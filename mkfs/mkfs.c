// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs.stalefs: make a stalefs filesystem on a file or block device.
 * Options follow mke2fs; exit status 0 success, 8 operational error, 16 usage.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "libstalefs.h"
#include "mkfs.h"

#define EXIT_OK 0
#define EXIT_ERROR 8
#define EXIT_USAGE 16

const char *program_name = "mkfs.stalefs";

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s [-b block-size] [-N number-of-inodes] [-i bytes-per-inode]\n"
		"\t[-m reserved-blocks-percentage] [-g blocks-per-group] [-L volume-label]\n"
		"\t[-U UUID] [-G stale-gid] [-O feature[,...]] [-E extended-option[,...]]\n"
		"\t[-e errors-behavior] [-d root-directory] [-n] [-F] [-q] [-V]\n"
		"\tdevice [fs-size]\n", program_name);
	exit(EXIT_USAGE);
}

static void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", program_name);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage();
}

static u32 parse_u32(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > 0xFFFFFFFFULL || s[0] == '-')
		usage_error(what, s);
	return (u32)v;
}

static int parse_uuid(const char *s, u8 out[16])
{
	int i = 0;

	if (strcasecmp(s, "random") == 0 || strcasecmp(s, "time") == 0)
		return 1;	/* keep the random one the defaults made */
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
		out[i++] = (u8)byte;
		s += 2;
	}
	return (i == 16 && !*s) ? 0 : -1;
}

static void parse_features(const char *list, struct stalefs_mkfs_params *p)
{
	char *copy = strdup(list), *tok, *save = NULL;

	for (tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		bool clear = tok[0] == '^';
		int kind;
		u32 bit, *mask;

		if (stalefs_feature_parse(tok + clear, &kind, &bit))
			usage_error("invalid filesystem option set: %s", tok);
		mask = kind == 0 ? &p->feature_compat : kind == 1 ? &p->feature_ro_compat : &p->feature_incompat;
		if (kind == 2 && clear)
			usage_error("the %s feature is required and cannot be cleared", tok + 1);
		if (kind == 1 && bit == STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE && !clear &&
		    p->stale_gid == STALEFS_STALE_GID_NONE)
			usage_error("%s needs a permitted group: use -G GID", tok);
		if (kind == 1 && bit == STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE && clear &&
		    p->stale_gid != STALEFS_STALE_GID_NONE)
			usage_error("%s conflicts with -G, which records a permitted group and sets nohide_stale", tok);
		if ((kind == 0 && (bit & ~STALEFS_FEATURE_COMPAT_SUPP)) ||
		    (kind == 1 && (bit & ~STALEFS_FEATURE_RO_COMPAT_SUPP)) ||
		    (kind == 2 && (bit & ~STALEFS_FEATURE_INCOMPAT_SUPP)))
			usage_error("unsupported filesystem feature: %s", tok);
		if (clear)
			*mask &= ~bit;
		else
			*mask |= bit;
	}
	free(copy);
}

static u16 parse_errors(const char *s)
{
	if (strcmp(s, "continue") == 0)
		return STALEFS_ERRORS_CONTINUE;
	if (strcmp(s, "remount-ro") == 0)
		return STALEFS_ERRORS_RO;
	if (strcmp(s, "panic") == 0)
		return STALEFS_ERRORS_PANIC;
	usage_error("invalid errors behavior: %s (continue, remount-ro or panic)", s);
	return 0;
}

static void parse_extended(const char *list, struct stalefs_mkfs_params *p)
{
	char *copy = strdup(list), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');

		if (val)
			*val++ = '\0';
		if (strcmp(tok, "root_owner") == 0) {
			unsigned int uid, gid;
			char tail;

			if (!val) {
				p->root_uid = (u32)getuid();
				p->root_gid = (u32)getgid();
			} else if (sscanf(val, "%u:%u%c", &uid, &gid, &tail) == 2) {
				p->root_uid = uid;
				p->root_gid = gid;
			} else {
				usage_error("invalid root_owner: '%s' (want UID:GID)", val);
			}
		} else if (strcmp(tok, "lazy_itable_init") == 0) {
			p->zero_itables = val && strcmp(val, "0") == 0;
			if (val && strcmp(val, "0") && strcmp(val, "1"))
				usage_error("invalid lazy_itable_init value: '%s' (0 or 1)", val);
		} else if (strcmp(tok, "errors") == 0 && val) {
			p->errors = parse_errors(val);
		} else {
			usage_error("unknown extended option: %s\n\tknown: root_owner[=uid:gid], "
				    "lazy_itable_init=0|1, errors=behavior", tok);
		}
	}
	free(copy);
}

static u32 parse_gid(const char *s)
{
	struct group *gr;
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!errno && end != s && !*end && v < STALEFS_STALE_GID_NONE)
		return (u32)v;
	gr = getgrnam(s);
	if (gr)
		return (u32)gr->gr_gid;
	usage_error("invalid group for -G: '%s' (a gid or a group name)", s);
	return 0;
}

int main(int argc, char **argv)
{
	struct mkfs_options o;
	struct stalefs_mkfs_params *p = &o.params;
	u32 block_size = 0, inodes = 0, bpi = 0, bpg = 0, rpct = 5, stale_gid = STALEFS_STALE_GID_NONE;
	const char *label = NULL, *uuid = NULL, *features = NULL, *extended = NULL, *errors = NULL;
	u64 size_bytes = 0;
	int c;

	memset(&o, 0, sizeof(o));
	if (argc > 0 && argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		program_name = slash ? slash + 1 : argv[0];
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	initialize_slfs_error_table();
	while ((c = getopt(argc, argv, "b:N:i:m:g:L:U:G:O:E:e:d:nFqV")) != -1) {
		switch (c) {
		case 'b':
			block_size = parse_u32(optarg, "invalid block size: %s");
			if (block_size != 1024 && block_size != 2048 && block_size != 4096)
				usage_error("invalid block size: %s (1024, 2048 or 4096)", optarg);
			break;
		case 'N': inodes = parse_u32(optarg, "invalid inode count: %s"); break;
		case 'i':
			bpi = parse_u32(optarg, "invalid inode ratio: %s");
			if (bpi < 1024 || bpi > 67108864)
				usage_error("invalid inode ratio: %s (1024 to 67108864)", optarg);
			break;
		case 'm':
			rpct = parse_u32(optarg, "invalid reserved blocks percent: %s");
			if (rpct > 50)
				usage_error("invalid reserved blocks percent: %s (at most 50)", optarg);
			break;
		case 'g':
			bpg = parse_u32(optarg, "invalid blocks per group: %s");
			if (bpg < STALEFS_MIN_BLOCKS_PER_GROUP || (bpg & (bpg - 1)))
				usage_error("invalid blocks per group: %s (a power of two, at least 256)", optarg);
			break;
		case 'L':
			if (strlen(optarg) > 31)
				usage_error("volume label too long: '%s' (at most 31 bytes)", optarg);
			label = optarg;
			break;
		case 'U': uuid = optarg; break;
		case 'G': stale_gid = parse_gid(optarg); break;
		case 'O': features = optarg; break;
		case 'E': extended = optarg; break;
		case 'e': errors = optarg; break;
		case 'd': o.populate_dir = optarg; break;
		case 'n': o.dry_run = true; break;
		case 'F': o.force++; break;
		case 'q': o.quiet = true; break;
		case 'V':
			printf("%s %s\n", program_name, STALEFS_VERSION);
			return EXIT_OK;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage_error("%s", "no device specified");
	o.device = argv[optind++];
	if (optind < argc) {
		const char *s = argv[optind++];

		if (stalefs_parse_size(s, &size_bytes) || size_bytes == 0)
			usage_error("invalid filesystem size: '%s' (bytes, or with K/M/G/T suffix)", s);
	}
	if (optind < argc)
		usage_error("unexpected argument: %s", argv[optind]);
	if (inodes && bpi)
		usage_error("%s", "-N and -i cannot be used together");

	stalefs_mkfs_defaults(p, 0, block_size ? block_size : 4096);
	p->inodes_count = inodes;
	p->bytes_per_inode = bpi ? bpi : 16384;
	p->blocks_per_group = bpg;
	p->reserved_percent = rpct;
	p->stale_gid = stale_gid;
	if (label)
		strncpy(p->label, label, sizeof(p->label) - 1);
	if (uuid && parse_uuid(uuid, p->uuid) < 0)
		usage_error("invalid UUID: '%s'", uuid);
	if (errors)
		p->errors = parse_errors(errors);
	if (features)
		parse_features(features, p);
	if (extended)
		parse_extended(extended, p);
	if (stale_gid != STALEFS_STALE_GID_NONE)
		p->feature_ro_compat |= STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE;
	o.size_bytes = size_bytes;
	o.block_size_given = block_size != 0;
	return mkfs_run(&o);
}
