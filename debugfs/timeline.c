// SPDX-License-Identifier: GPL-2.0
/*
 * timeline: the filesystem as a bodyfile for mactime, plaso or log2timeline, the
 * lines TSK's fls -m -r writes for ext4 (the library's stalefs_timeline).
 *
 *   -H md5|sha256   hash the content of regular files in use (first column)
 *   -m mount_point  before every path (fls -m's argument), default none
 *   -d / -u         deleted names and inodes only / names in use only
 *   -j              removed directories through the journal's copies of their blocks
 *
 * The bodyfile goes to standard output, or to output_file with a count on
 * standard output.  What cannot be read is named on standard error and the
 * walk goes on (the command then counts as failed).
 */
#include <errno.h>
#include <getopt.h>
#include "debugfs.h"

#define TIMELINE_USAGE "[-H md5|sha256] [-m mount_point] [-d|-u] [-j] [output_file]"

static void say_problem(void *priv, const char *what)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s\n", (const char *)priv, what);
}

DBG_CMD(do_timeline)
{
	struct stalefs_timeline_opts o = { .problem = say_problem, .priv = (void *)argv[0] };
	struct stalefs_timeline_stats st;
	FILE *out = stdout;
	errcode_t err;
	int c;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "H:m:duj")) != -1) {
		switch (c) {
		case 'H':
			o.hash = stalefs_hash_kind(optarg);
			if (o.hash < 0) {
				dbg_msg(argv[0], "unknown hash %s (md5 or sha256)", optarg);
				return;
			}
			break;
		case 'm': o.prefix = optarg; break;
		case 'd': o.deleted_only = true; break;
		case 'u': o.allocated_only = true; break;
		case 'j': o.journal = true; break;
		default:
			dbg_usage(argv[0], TIMELINE_USAGE);
			return;
		}
	}
	if (argc - optind > 1 || (o.deleted_only && o.allocated_only)) {
		dbg_usage(argv[0], TIMELINE_USAGE);
		return;
	}
	if (!dbg_need_fs(argv[0]))
		return;
	if (optind < argc) {
		out = fopen(argv[optind], "w");
		if (!out) {
			dbg_err(argv[0], errno, "opening %s for the timeline", argv[optind]);
			return;
		}
	}
	err = stalefs_timeline(dbg.fs, &o, out, &st);
	if (out != stdout && fclose(out) != 0 && !err)
		err = errno;
	if (err) {
		dbg_err(argv[0], err, "writing the timeline to %s", optind < argc ? argv[optind] : "standard output");
		return;
	}
	if (out != stdout)
		printf("%llu entries (%llu deleted, %llu orphan inodes) written to %s\n",
		       (unsigned long long)st.entries, (unsigned long long)st.deleted,
		       (unsigned long long)st.orphans, argv[optind]);
	if (st.problems)
		dbg_fail();	/* each was named on stderr */
}
