// SPDX-License-Identifier: GPL-2.0
/*
 * The command line: stalefs-fuse [options] IMAGE MOUNTPOINT, or as the mount
 * helper util-linux runs for `mount -t fuse.stalefs IMAGE DIR`
 * (mount.fuse.stalefs IMAGE DIR [-sfnv] [-o options]).  Our -o options are
 * taken out here; the rest (allow_other, -f, -d, -s, ...) are libfuse's.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "stalefs_fuse.h"

void sfuse_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-o options] [-f] [-d] [-s] IMAGE|DEVICE MOUNTPOINT\n"
		"       mount -t fuse.stalefs [-o options] IMAGE|DEVICE MOUNTPOINT\n"
		"IMAGE may be IMAGE?offset=N[&size=M]: a filesystem N bytes into IMAGE.\n"
		"stalefs options (-o):\n"
		"    ro               read-only: the image is opened O_RDONLY and never written;\n"
		"                     a journal that needs recovery is replayed in memory\n"
		"    norecovery       (with ro) show the image as it is, the journal not replayed\n"
		"    commit=N         commit the journal at least every N seconds (default 5)\n"
		"    writeback        the kernel's writeback cache: faster small writes, but a full\n"
		"                     disk shows at fsync or close, not at write(2)\n"
		"    uid=N,gid=N      run as this user and group once the image is open and mounted\n"
		"    nosandbox        no seccomp filter or Landlock ruleset\n"
		"libfuse options: -f (foreground), -d (debug), -s (single-threaded), -o allow_other, ...\n"
		"(stalefs-fuse -h lists all of libfuse's)\n",
		program_name);
}

enum {
	KEY_RO,
	KEY_RW,
	KEY_NORECOVERY,
	KEY_NOWRITEBACK,
	KEY_WRITEBACK,
	KEY_NOSANDBOX,
	KEY_SANDBOX,
	KEY_UID,
	KEY_GID,
	KEY_COMMIT,
	KEY_HELP,
	KEY_VERSION,
};

static const struct fuse_opt opt_spec[] = {
	FUSE_OPT_KEY("ro", KEY_RO),
	FUSE_OPT_KEY("rw", KEY_RW),
	FUSE_OPT_KEY("norecovery", KEY_NORECOVERY),
	FUSE_OPT_KEY("noload", KEY_NORECOVERY),
	FUSE_OPT_KEY("nowriteback", KEY_NOWRITEBACK),
	FUSE_OPT_KEY("writeback", KEY_WRITEBACK),
	FUSE_OPT_KEY("nosandbox", KEY_NOSANDBOX),
	FUSE_OPT_KEY("sandbox", KEY_SANDBOX),
	FUSE_OPT_KEY("uid=", KEY_UID),
	FUSE_OPT_KEY("gid=", KEY_GID),
	FUSE_OPT_KEY("commit=", KEY_COMMIT),
	FUSE_OPT_KEY("-h", KEY_HELP),
	FUSE_OPT_KEY("--help", KEY_HELP),
	FUSE_OPT_KEY("-V", KEY_VERSION),
	FUSE_OPT_KEY("--version", KEY_VERSION),
	FUSE_OPT_END
};

struct parse_state {
	struct sfuse_opts *o;
	int nonopt;
	bool bad;
	bool help, version;
};

static bool parse_id(const char *s, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && *s && !*end && *out < 0xffffffffUL;
}

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct parse_state *p = data;
	unsigned long v;

	(void)outargs;
	switch (key) {
	case FUSE_OPT_KEY_NONOPT:
		/* IMAGE is ours; MOUNTPOINT stays for fuse_parse_cmdline. */
		if (p->nonopt++ == 0) {
			p->o->image = strdup(arg);
			return 0;
		}
		return 1;
	case KEY_RO:
		p->o->ro = true;
		return 1;	/* the kernel mounts read-only too */
	case KEY_RW:
		p->o->ro = false;
		return 1;
	case KEY_NORECOVERY:
		p->o->norecovery = true;
		return 0;
	case KEY_NOWRITEBACK:
		p->o->writeback = false;
		return 0;
	case KEY_WRITEBACK:
		p->o->writeback = true;
		return 0;
	case KEY_NOSANDBOX:
		p->o->sandbox = false;
		return 0;
	case KEY_SANDBOX:
		p->o->sandbox = true;
		return 0;
	case KEY_UID:
	case KEY_GID:
		if (!parse_id(strchr(arg, '=') + 1, &v)) {
			fprintf(stderr, "%s: bad -o %s: a numeric id is expected\n", program_name, arg);
			p->bad = true;
			return 0;
		}
		if (key == KEY_UID) {
			p->o->uid = (uid_t)v;
			p->o->have_uid = true;
		} else {
			p->o->gid = (gid_t)v;
			p->o->have_gid = true;
		}
		return 0;
	case KEY_COMMIT:
		if (!parse_id(strchr(arg, '=') + 1, &v) || v == 0 || v > 86400) {
			fprintf(stderr, "%s: bad -o %s: 1 to 86400 seconds\n", program_name, arg);
			p->bad = true;
			return 0;
		}
		p->o->commit_secs = (unsigned)v;
		return 0;
	case KEY_HELP:
		p->help = true;
		return 1;
	case KEY_VERSION:
		p->version = true;
		return 1;
	}
	return 1;
}

/* mount(8)'s options that mean nothing to a FUSE mount (fstab's), as mount.fuse3 drops them. */
static bool helper_drops(const char *opt, size_t len)
{
	static const char *const drop[] = { "defaults", "auto", "noauto", "user", "nouser", "users", "_netdev",
					    "nofail", "owner", "group" };
	size_t i;

	for (i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (strlen(drop[i]) == len && strncmp(opt, drop[i], len) == 0)
			return true;
	return (len > 2 && strncmp(opt, "x-", 2) == 0) || (len >= 8 && strncmp(opt, "comment=", 8) == 0);
}

/*
 * As a mount helper: mount.fuse.stalefs SPEC DIR [-sfnv] [-o opts].  -f means fake there,
 * not foreground; -s sloppy, -n no mtab, -v verbose mean nothing to us.  The result is an
 * ordinary command line (the server goes to the background, as a mount helper must).
 */
static int helper_args(int argc, char **argv, struct fuse_args *args, struct sfuse_opts *o)
{
	char *opts = NULL;
	int i, nonopt = 0;

	fuse_opt_add_arg(args, argv[0]);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			char *list = argv[++i], *tok, *save = NULL;

			for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (!helper_drops(tok, strlen(tok)))
					fuse_opt_add_opt(&opts, tok);
		} else if (argv[i][0] == '-' && argv[i][1] && !argv[i][strspn(argv[i] + 1, "sfnvw") + 1]) {
			if (strchr(argv[i], 'f'))
				o->fake = true;
		} else if (nonopt++ < 2) {
			fuse_opt_add_arg(args, argv[i]);
		} else {
			fprintf(stderr, "%s: unexpected argument %s\n", program_name, argv[i]);
			free(opts);
			return -1;
		}
	}
	if (opts) {
		fuse_opt_add_arg(args, "-o");
		fuse_opt_add_arg(args, opts);
		free(opts);
	}
	return 0;
}

int sfuse_parse_args(int argc, char **argv, struct fuse_args *args, struct sfuse_opts *o)
{
	struct parse_state p = { o, 0, false, false, false };
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	struct fuse_args in = FUSE_ARGS_INIT(0, NULL);

	o->sandbox = true;
	o->commit_secs = 5;
	if (strcmp(base, "mount.fuse.stalefs") == 0) {
		o->helper = true;
		if (helper_args(argc, argv, &in, o))
			return -1;
	} else {
		int i;

		for (i = 0; i < argc; i++)
			fuse_opt_add_arg(&in, argv[i]);
	}
	*args = in;
	if (fuse_opt_parse(args, &p, opt_spec, opt_proc) == -1 || p.bad)
		return -1;
	if (p.help || p.version)
		return 1;
	if (!o->image || p.nonopt != 2) {
		fprintf(stderr, "%s: %s\n", program_name,
			!o->image ? "no image or device given" : "no mount point given");
		return -1;
	}
	if (o->norecovery && !o->ro) {
		fprintf(stderr, "%s: -o norecovery needs -o ro: a filesystem written without its journal "
			"replayed would be corrupted by the replay\n", program_name);
		return -1;
	}
	return 0;
}
