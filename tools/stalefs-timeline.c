// SPDX-License-Identifier: GPL-2.0
/*
 * stalefs-timeline: the bodyfile of a stalefs image for mactime, plaso or
 * log2timeline, as TSK's fls -m -r writes one for ext4 -- every name (removed
 * ones marked deleted) and every inode no name refers to.  Opens the image
 * read-only and never writes it; a damaged image is read as far as it goes.
 *
 * Exit status: 0 written; 1 written, but some parts could not be read (each
 * named on stderr); 8 nothing written (the image cannot be opened, or the
 * output cannot be written); 16 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include "libstalefs.h"

static const char *prog = "stalefs-timeline";

static void usage(void)
{
	fprintf(stderr, "Usage: %s [-H md5|sha256] [-m mount_point] [-d|-u] [-j] [-o output] [-V] image\n", prog);
	exit(16);
}

static void say(void *priv, const char *what)
{
	fprintf(stderr, "%s: %s%s\n", prog, priv ? (const char *)priv : "", what);
}

int main(int argc, char **argv)
{
	struct stalefs_timeline_opts o = { .problem = say };
	struct stalefs_timeline_stats st;
	const char *output = NULL;
	FILE *out = stdout;
	stalefs_fs *fs;
	errcode_t err;
	int c;

	add_error_table(&et_slfs_error_table);
	while ((c = getopt(argc, argv, "H:m:dujo:V")) != -1) {
		switch (c) {
		case 'H':
			o.hash = stalefs_hash_kind(optarg);
			if (o.hash < 0) {
				fprintf(stderr, "%s: unknown hash %s (md5 or sha256)\n", prog, optarg);
				usage();
			}
			break;
		case 'm': o.prefix = optarg; break;
		case 'd': o.deleted_only = true; break;
		case 'u': o.allocated_only = true; break;
		case 'j': o.journal = true; break;
		case 'o': output = optarg; break;
		case 'V':
			printf("%s 1.0 (stalefs format revision 1)\n", prog);
			return 0;
		default: usage();
		}
	}
	if (argc - optind != 1 || (o.deleted_only && o.allocated_only))
		usage();
	err = stalefs_open_tolerant(argv[optind], 0, 0, 0, &fs, say, "warning: ");
	if (err) {
		com_err(prog, err, "while opening %s", argv[optind]);
		return 8;
	}
	/* Read-only, the cache only saves re-reads: small, as debugfs keeps it (the walk reads
	 * inode tables in order, so a large one buys nothing and costs its memory). */
	stalefs_io_set_cache_limit(fs->io, (256u << 10) / fs->block_size);
	if (output) {
		out = fopen(output, "w");
		if (!out) {
			com_err(prog, errno, "while opening %s for the timeline", output);
			stalefs_free(fs);
			return 8;
		}
	}
	err = stalefs_timeline(fs, &o, out, &st);
	if (out != stdout && fclose(out) != 0 && !err)
		err = errno;
	stalefs_free(fs);
	if (err) {
		com_err(prog, err, "while writing the timeline to %s", output ? output : "standard output");
		return 8;
	}
	return st.problems ? 1 : 0;
}
