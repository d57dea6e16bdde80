/* SPDX-License-Identifier: GPL-2.0 */
/* tunefs.stalefs internals: the parsed command line, and the steps main.c runs. */
#ifndef TUNEFS_H
#define TUNEFS_H

#include "libstalefs.h"

#ifndef STALEFS_VERSION
#define STALEFS_VERSION "0.1"
#endif

#define TUNEFS_OK 0
#define TUNEFS_ERROR 1

extern const char *program_name;

/* What was asked; each set_* says whether its value is to be written. */
struct tune_opts {
	const char *device;
	bool list;			/* -l */
	bool set_label;			/* -L */
	const char *label;
	bool set_uuid;			/* -U */
	u8 uuid[16];
	bool set_errors;		/* -e */
	u16 errors;
	bool set_max_mnt;		/* -c */
	u32 max_mnt;
	bool set_mnt_count;		/* -C */
	u32 mnt_count;
	bool set_interval;		/* -i */
	u32 interval;
	bool set_lastcheck;		/* -T */
	s64 lastcheck;
	bool set_stale_gid;		/* -G: a gid, or STALEFS_STALE_GID_NONE to forget */
	u32 stale_gid;
	bool add_journal;		/* -O has_journal or -J */
	const char *journal_opts;	/* -J's list, NULL for the default size */
	bool remove_journal;		/* -O ^has_journal */
	bool add_xattr;			/* -O xattr */
	bool remove_xattr;		/* -O ^xattr: refused while an inode holds attributes */
};

/* 0 to go on; TUNEFS_ERROR after printing the usage error; -1 when all was done (-V). */
int tune_parse_options(int argc, char **argv, struct tune_opts *o);
/* Anything to write (as opposed to -l alone)? */
bool tune_wants_change(const struct tune_opts *o);

/* The new journal's size and place (journal.c), checked before anything is written. */
errcode_t tune_journal_plan(stalefs_fs *fs, const struct tune_opts *o, u32 *blocks, u64 *start);

/* The messages for -e, -c, -C, -i, -T that were applied (main.c). */
void tune_report_plain(const struct tune_opts *o);

/* online.c: may this change be made while mounted, and make it through the kernel. */
bool tune_online_possible(const struct tune_opts *o);
int tune_online(const struct tune_opts *o);

#endif
