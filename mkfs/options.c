// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs.stalefs's command line: mke2fs-style options into a struct
 * mkfs_options.  It never exits: a usage error is printed and returned,
 * so the libFuzzer target (tests/fuzz/mkfs/) can drive it directly.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "libstalefs.h"
#include "mkfs.h"

static int usage(void)
{
	fprintf(stderr,
		"Usage: %s [-b block-size] [-N number-of-inodes] [-i bytes-per-inode] [-I inode-size]\n"
		"\t[-m reserved-blocks-percentage] [-g blocks-per-group] [-L volume-label]\n"
		"\t[-U UUID] [-G stale-gid] [-O feature[,...]] [-E extended-option[,...]]\n"
		"\t[-J size=journal-MiB]\n"
		"\t[-e errors-behavior] [-d root-directory] [-n] [-F] [-q] [-K] [-V]\n"
		"\tdevice [fs-size]\n", program_name);
	return MKFS_PARSE_USAGE;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", program_name);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return usage();
}

static int parse_u32(const char *s, const char *what, u32 *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > 0xFFFFFFFFULL || s[0] == '-')
		return usage_error(what, s);
	*out = (u32)v;
	return 0;
}

/* One -O token ("name" or "^name"): 0, or a usage error. */
static int parse_feature(const char *tok, struct stalefs_mkfs_params *p)
{
	bool clear = tok[0] == '^';
	int kind;
	u32 bit, *mask;

	if (stalefs_feature_parse(tok + clear, &kind, &bit))
		return usage_error("invalid filesystem option set: %s", tok);
	mask = kind == 0 ? &p->feature_compat : kind == 1 ? &p->feature_ro_compat : &p->feature_incompat;
	if (kind == 2 && bit == STALEFS_FEATURE_INCOMPAT_RECOVER) {
		/* Only the kernel sets it, while a journal holds transactions; a new
		 * filesystem has none, so clearing it is a no-op. */
		if (clear)
			return 0;
		return usage_error("%s cannot be set: the kernel sets it while the journal has "
				   "transactions to replay", tok);
	}
	if (kind == 2 && bit == STALEFS_FEATURE_INCOMPAT_META_BG) {
		/* A grow sets it when the descriptor table fills (FORMAT.md 4); a new one is a table. */
		if (clear)
			return 0;
		return usage_error("%s cannot be set: resize.stalefs sets it when a grow fills the descriptor "
				   "table", tok);
	}
	if (kind == 2 && clear)
		return usage_error("the %s feature is required and cannot be cleared", tok + 1);
	if (kind == 1 && bit == STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE && !clear &&
	    p->stale_gid == STALEFS_STALE_GID_NONE)
		return usage_error("%s needs a permitted group: use -G GID", tok);
	if (kind == 1 && bit == STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE && clear &&
	    p->stale_gid != STALEFS_STALE_GID_NONE)
		return usage_error("%s conflicts with -G, which records a permitted group and sets nohide_stale", tok);
	if ((kind == 0 && (bit & ~STALEFS_FEATURE_COMPAT_SUPP)) ||
	    (kind == 1 && (bit & ~STALEFS_FEATURE_RO_COMPAT_SUPP)) ||
	    (kind == 2 && (bit & ~STALEFS_FEATURE_INCOMPAT_SUPP)))
		return usage_error("unsupported filesystem feature: %s", tok);
	if (clear)
		*mask &= ~bit;
	else
		*mask |= bit;
	return 0;
}

static int parse_features(const char *list, struct stalefs_mkfs_params *p)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int rc = 0;

	if (!copy)
		return usage_error("%s", "out of memory");
	for (tok = strtok_r(copy, ", ", &save); tok && !rc; tok = strtok_r(NULL, ", ", &save))
		rc = parse_feature(tok, p);
	free(copy);
	return rc;
}

static int parse_errors(const char *s, u16 *out)
{
	if (stalefs_parse_errors(s, out))
		return usage_error("invalid errors behavior: %s (continue, remount-ro or panic)", s);
	return 0;
}

/* One -E token, split at '=' (val is NULL without one). */
static int parse_extended_one(const char *tok, const char *val, struct stalefs_mkfs_params *p)
{
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
			return usage_error("invalid root_owner: '%s' (want UID:GID)", val);
		}
		return 0;
	}
	if (strcmp(tok, "lazy_itable_init") == 0) {
		if (val && strcmp(val, "0") && strcmp(val, "1"))
			return usage_error("invalid lazy_itable_init value: '%s' (0 or 1)", val);
		p->zero_itables = val && strcmp(val, "0") == 0;
		return 0;
	}
	if (strcmp(tok, "errors") == 0 && val)
		return parse_errors(val, &p->errors);
	if ((strcmp(tok, "discard") == 0 || strcmp(tok, "nodiscard") == 0) && !val) {
		p->no_discard = tok[0] == 'n';
		return 0;
	}
	return usage_error("unknown extended option: %s\n\tknown: root_owner[=uid:gid], "
			   "lazy_itable_init=0|1, errors=behavior, discard, nodiscard", tok);
}

static int parse_extended(const char *list, struct stalefs_mkfs_params *p)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int rc = 0;

	if (!copy)
		return usage_error("%s", "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');

		if (val)
			*val++ = '\0';
		rc = parse_extended_one(tok, val, p);
	}
	free(copy);
	return rc;
}

static int parse_gid(const char *s, u32 *out)
{
	if (stalefs_parse_gid(s, out))
		return usage_error("invalid group for -G: '%s' (a gid or a group name)", s);
	return 0;
}

/* The option letters' values before they are combined into o->params. */
struct raw_options {
	u32 block_size, inodes, bpi, bpg, rpct, stale_gid, inode_size;
	bool keep;
	const char *label, *uuid, *features, *extended, *errors, *journal, *inode_size_arg;
};

/*
 * -J size=N: the journal's size in MiB, as mke2fs takes it.  Turned into
 * blocks once the block size is known; at least jbd2's 1024 blocks.  Whether
 * it fits in one group is the layout's question (an operational error).
 */
static int parse_journal(const char *list, u32 block_size, u32 *blocks)
{
	char why[256];

	if (stalefs_parse_journal_opts(list, block_size, blocks, why, sizeof(why)))
		return usage_error("%s", why);
	return 0;
}

static int parse_letter(int c, const char *arg, struct raw_options *r, struct mkfs_options *o)
{
	int rc = 0;

	switch (c) {
	case 'b':
		rc = parse_u32(arg, "invalid block size: %s", &r->block_size);
		if (!rc && r->block_size != 1024 && r->block_size != 2048 && r->block_size != 4096)
			rc = usage_error("invalid block size: %s (1024, 2048 or 4096)", arg);
		break;
	case 'N': rc = parse_u32(arg, "invalid inode count: %s", &r->inodes); break;
	case 'i':
		rc = parse_u32(arg, "invalid inode ratio: %s", &r->bpi);
		if (!rc && (r->bpi < 1024 || r->bpi > 67108864))
			rc = usage_error("invalid inode ratio: %s (1024 to 67108864)", arg);
		break;
	case 'I':
		rc = parse_u32(arg, "invalid inode size: %s", &r->inode_size);
		r->inode_size_arg = arg;
		if (!rc && !stalefs_inode_size_valid(r->inode_size, STALEFS_INODE_SIZE_MAX))
			rc = usage_error("invalid inode size: %s (256, 512 or 1024)", arg);
		break;
	case 'm':
		rc = parse_u32(arg, "invalid reserved blocks percent: %s", &r->rpct);
		if (!rc && r->rpct > 50)
			rc = usage_error("invalid reserved blocks percent: %s (at most 50)", arg);
		break;
	case 'g':
		rc = parse_u32(arg, "invalid blocks per group: %s", &r->bpg);
		if (!rc && (r->bpg < STALEFS_MIN_BLOCKS_PER_GROUP || (r->bpg & (r->bpg - 1))))
			rc = usage_error("invalid blocks per group: %s (a power of two, at least 256)", arg);
		break;
	case 'L':
		if (strlen(arg) > STALEFS_LABEL_MAX)
			rc = usage_error("volume label too long: '%s' (at most 31 bytes)", arg);
		r->label = arg;
		break;
	case 'U': r->uuid = arg; break;
	case 'G': rc = parse_gid(arg, &r->stale_gid); break;
	case 'O': r->features = arg; break;
	case 'E': r->extended = arg; break;
	case 'J': r->journal = arg; break;
	case 'e': r->errors = arg; break;
	case 'd': o->populate_dir = arg; break;
	case 'n': o->dry_run = true; break;
	case 'K': r->keep = true; break;	/* mke2fs' -K: keep the blocks, do not discard */
	case 'F': o->force++; break;
	case 'q': o->quiet = true; break;
	case 'V':
		printf("%s %s\n", program_name, STALEFS_VERSION);
		return MKFS_PARSE_DONE;
	default:
		return usage();
	}
	return rc;
}

int mkfs_parse_options(int argc, char **argv, struct mkfs_options *o)
{
	struct raw_options r = { .rpct = 5, .stale_gid = STALEFS_STALE_GID_NONE };
	struct stalefs_mkfs_params *p = &o->params;
	u64 size_bytes = 0;
	int c, rc;

	memset(o, 0, sizeof(*o));
	optind = 0;	/* GNU getopt: start over, also on a second call */
	while ((c = getopt(argc, argv, "b:N:i:I:m:g:L:U:G:O:E:e:d:J:nFqKV")) != -1) {
		rc = parse_letter(c, optarg, &r, o);
		if (rc)
			return rc;
	}
	if (optind >= argc)
		return usage_error("%s", "no device specified");
	o->device = argv[optind++];
	if (optind < argc) {
		const char *s = argv[optind++];

		if (stalefs_parse_size(s, &size_bytes) || size_bytes == 0)
			return usage_error("invalid filesystem size: '%s' (bytes, or with K/M/G/T suffix)", s);
	}
	if (optind < argc)
		return usage_error("unexpected argument: %s", argv[optind]);
	if (r.inodes && r.bpi)
		return usage_error("%s", "-N and -i cannot be used together");

	stalefs_mkfs_defaults(p, 0, r.block_size ? r.block_size : 4096);
	p->inodes_count = r.inodes;
	p->bytes_per_inode = r.bpi ? r.bpi : 16384;
	p->inode_size = r.inode_size;
	if (r.inode_size > p->block_size)
		return usage_error("invalid inode size: %s (larger than the block size)", r.inode_size_arg);
	p->blocks_per_group = r.bpg;
	p->reserved_percent = r.rpct;
	p->stale_gid = r.stale_gid;
	p->no_discard = r.keep;	/* -E discard after -K turns it back on */
	if (r.label)
		strncpy(p->label, r.label, sizeof(p->label) - 1);
	if (r.uuid && stalefs_parse_uuid(r.uuid, p->uuid) < 0)
		return usage_error("invalid UUID: '%s'", r.uuid);
	if (r.errors && (rc = parse_errors(r.errors, &p->errors)))
		return rc;
	if (r.features && (rc = parse_features(r.features, p)))
		return rc;
	if (r.extended && (rc = parse_extended(r.extended, p)))
		return rc;
	if (r.journal) {
		/* -J asks for a journal; with -O ^has_journal it asks for two opposite things. */
		if (r.features && !(p->feature_compat & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
			return usage_error("%s", "-J conflicts with -O ^has_journal");
		rc = parse_journal(r.journal, p->block_size, &p->journal_blocks);
		if (rc)
			return rc;
		p->feature_compat |= STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
	}
	if (r.stale_gid != STALEFS_STALE_GID_NONE)
		p->feature_ro_compat |= STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE;
	o->size_bytes = size_bytes;
	o->block_size_given = r.block_size != 0;
	return 0;
}
