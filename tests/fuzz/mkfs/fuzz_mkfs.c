// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: mkfs.stalefs's command line (mkfs/options.c).  The
 * input is the argument list, one argument per line.  Whatever parses
 * is laid out as mkfs would (stalefs_mkfs_layout, pure computation, no
 * device) and the superblock it would write must pass the shared
 * verifier: mkfs must never make a filesystem the kernel or fsck refuses.
 * Any crash, leak, sanitizer report or abort() is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libstalefs.h"
#include "mkfs.h"

#define MAX_ARGS 64
#define DEFAULT_SIZE (64ULL << 20)	/* when no fs-size argument is given */

const char *program_name = "mkfs.stalefs";

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* -V prints the version on stdout; usage errors go to stderr (-close_fd_mask=2). */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	initialize_slfs_error_table();
	return 0;
}

static void check_layout(struct mkfs_options *o)
{
	struct stalefs_mkfs_params *p = &o->params;
	struct stalefs_super_block sb;
	struct stalefs_geom g;
	u64 bytes = o->size_bytes ? o->size_bytes : DEFAULT_SIZE;

	p->blocks_count = bytes / p->block_size;
	if (stalefs_mkfs_layout(p, &sb, &g))
		return;		/* refused (too small, too big): mkfs says so and writes nothing */
	int rule = stalefs_verify_super(&sb);
	if (rule) {
		fprintf(stderr, "mkfs layout breaks superblock rule %d\n", rule);
		abort();
	}
	/* Group 0 and the last group hold their own metadata. */
	if (stalefs_group_meta_blocks(&g, 0) >= stalefs_group_nblocks(&g, 0) ||
	    stalefs_group_meta_blocks(&g, g.groups_count - 1) > stalefs_group_nblocks(&g, g.groups_count - 1)) {
		fprintf(stderr, "mkfs layout: a group cannot hold its metadata\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
	struct mkfs_options o;
	int argc = 1;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "mkfs.stalefs";
	for (char *line = buf, *nl; line && argc <= MAX_ARGS; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (nl || *line)
			argv[argc++] = line;
	}
	argv[argc] = NULL;
	if (mkfs_parse_options(argc, argv, &o) == 0)
		check_layout(&o);
	free(buf);
	return 0;
}
