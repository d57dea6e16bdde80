// SPDX-License-Identifier: GPL-2.0
/*
 * Adding a journal (removing one is the library's stalefs_journal_remove).  Sizing and placement are mkfs's (the
 * library's table and its placement rule on a filesystem in use), so a journal
 * added later looks like one mkfs would have made.
 */
#include <stdio.h>
#include "tunefs.h"

errcode_t tune_journal_plan(stalefs_fs *fs, const struct tune_opts *o, u32 *blocks, u64 *start)
{
	u32 max = stalefs_journal_max_blocks(&fs->geom);
	errcode_t err;

	/* -J's own mistakes first: they are what the user has to fix whatever the filesystem. */
	if (o->journal_opts) {
		char why[256];

		if (stalefs_parse_journal_opts(o->journal_opts, fs->block_size, blocks, why, sizeof(why))) {
			fprintf(stderr, "%s: %s\n", program_name, why);
			return STALEFS_ERR_BAD_ARGUMENT;
		}
		if (*blocks > max) {
			fprintf(stderr, "%s: a journal of %u blocks does not fit in one group's data blocks of %s "
				"(at most %u blocks there)\n", program_name, *blocks, o->device, max);
			return STALEFS_ERR_JOURNAL_NO_ROOM;
		}
	}
	if (le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL)
		return STALEFS_ERR_JOURNAL_EXISTS;
	if (!o->journal_opts) {
		/* mkfs' table: no journal by default on a filesystem too small to spare one. */
		*blocks = stalefs_journal_default_blocks(&fs->geom);
		if (!*blocks) {
			fprintf(stderr, "%s: %s is too small for a journal by default; give a size with "
				"-J size=MiB (at least %u blocks, at most %u here)\n", program_name, o->device,
				STALEFS_JOURNAL_MIN_BLOCKS, max);
			return STALEFS_ERR_JOURNAL_TOO_SMALL;
		}
	}
	err = stalefs_journal_place(fs, *blocks, start);
	if (err == STALEFS_ERR_JOURNAL_NO_ROOM)
		fprintf(stderr, "%s: no group of %s has %u free blocks in one run for the journal; "
			"choose a smaller journal with -J size=MiB\n", program_name, o->device, *blocks);
	return err;
}
