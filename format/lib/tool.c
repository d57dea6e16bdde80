// SPDX-License-Identifier: GPL-2.0
/*
 * What every tool does before it parses its options: it names itself as it
 * was invoked (messages say "mkfs.ext4"-style names even through a link),
 * line-buffers stdout (progress interleaves with stderr in the right
 * order), and loads the com_err table.
 */
#include <stdio.h>
#include <string.h>
#include "libstalefs.h"

const char *stalefs_tool_start(int argc, char **argv, const char *name)
{
	if (argc > 0 && argv[0] && argv[0][0]) {
		const char *slash = strrchr(argv[0], '/');

		name = slash ? slash + 1 : argv[0];
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	initialize_slfs_error_table();
	return name;
}
