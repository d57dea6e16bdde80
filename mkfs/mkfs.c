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

	program_name = stalefs_tool_start(argc, argv, program_name);
	rc = mkfs_parse_options(argc, argv, &o);
	if (rc == MKFS_PARSE_DONE)
		return EXIT_OK;
	if (rc)
		return EXIT_USAGE;
	return mkfs_run(&o);
}
