// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs.stalefs: make a stalefs filesystem on a file or block device.
 * Options follow mke2fs (options.c); exit status 0 success, 8 operational
 * error, 16 usage.
 */
#include <stdio.h>
#include <string.h>
#include "libstalefs.h"
#include "mkfs.h"

#define EXIT_OK 0
#define EXIT_USAGE 16

const char *program_name = "mkfs.stalefs";

int main(int argc, char **argv)
{
	struct mkfs_options o;
	int rc;

	if (argc > 0 && argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		program_name = slash ? slash + 1 : argv[0];
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	initialize_slfs_error_table();
	rc = mkfs_parse_options(argc, argv, &o);
	if (rc == MKFS_PARSE_DONE)
		return EXIT_OK;
	if (rc)
		return EXIT_USAGE;
	return mkfs_run(&o);
}
