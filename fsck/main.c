// SPDX-License-Identifier: GPL-2.0
/*
 * fsck.stalefs: check and repair a stalefs filesystem, and audit stale-data
 * confinement.  Options and exit status follow e2fsck (fsck(8)):
 * 0 clean, 1 errors corrected, 4 errors left, 8 operational error, 16 usage,
 * 32 cancelled, 128 library error.
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fsck.h"

volatile sig_atomic_t fsck_cancel_requested;
static struct fsck_ctx *the_ctx;
void *fsck_exit_jmp;

_Noreturn void fsck_exit(int status)
{
	fflush(stdout);
	if (fsck_exit_jmp) {
		/* Embedded: release what the run holds, then return to the caller. */
		if (the_ctx) {
			if (the_ctx->fs)
				stalefs_free(the_ctx->fs);
			the_ctx->fs = NULL;
			maps_free(the_ctx);
		}
		longjmp(*(jmp_buf *)fsck_exit_jmp, 0x100 | status);
	}
	exit(status);
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-panyfV] [-C fd] [-b superblock] [-B blocksize]\n"
		"\t\t[-N name] [-E extended-options] device\n\n"
		"Emergency help:\n"
		" -p                   Automatic repair (no questions)\n"
		" -n                   Make no changes to the filesystem\n"
		" -y                   Assume \"yes\" to all questions\n"
		" -f                   Force checking even if filesystem is marked clean\n"
		" -b superblock        Use alternative superblock\n"
		" -B blocksize         Force blocksize when looking for superblock\n"
		" -C fd                Progress to file descriptor fd (0: a bar on the terminal)\n"
		" -N name              Name the filesystem so in messages\n"
		" -E hide_stale        Repair stale escapes by hiding the blocks (UNWRITTEN)\n", prog);
	fsck_exit(FSCK_USAGE);
}

static void on_signal(int sig)
{
	(void)sig;
	fsck_cancel_requested = 1;
}

/* Called at safe points: nothing half-written survives (the cache is dropped). */
void fsck_check_cancel(struct fsck_ctx *ctx)
{
	if (!fsck_cancel_requested)
		return;
	progress_done(ctx);
	printf("\n%s: fsck cancelled; nothing was written.\n", ctx->name);
	fflush(stdout);
	if (ctx->fs)
		stalefs_free(ctx->fs);
	ctx->fs = NULL;
	fsck_exit(FSCK_CANCELED);
}

void fsck_fatal(struct fsck_ctx *ctx, errcode_t err, const char *what)
{
	com_err(ctx->program, err, "%s", what);
	if (ctx->fs)
		stalefs_free(ctx->fs);
	ctx->fs = NULL;
	fsck_exit(FSCK_ERROR);
}

/* A repair the library refused: report it and leave the problem uncorrected. */
void fsck_library_error(struct fsck_ctx *ctx, errcode_t err, const char *what)
{
	com_err(ctx->program, err, "%s", what);
	ctx->uncorrected = true;
	ctx->library_error = true;
}

static void parse_extended(struct fsck_ctx *ctx, char *opts)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "hide_stale") == 0) {
			ctx->options |= OPT_HIDE_STALE;
		} else {
			fprintf(stderr, "%s: unknown extended option: %s\n\n"
				"Extended options are separated by commas; the known ones are:\n"
				"\thide_stale\n\n", ctx->program, tok);
			fsck_exit(FSCK_USAGE);
		}
	}
}

static unsigned long long parse_number(struct fsck_ctx *ctx, const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-') {
		fprintf(stderr, "%s: invalid %s: %s\n", ctx->program, what, s);
		fsck_exit(FSCK_USAGE);
	}
	return v;
}

static void parse_args(struct fsck_ctx *ctx, int argc, char **argv)
{
	int c, modes = 0;

	while ((c = getopt(argc, argv, "panyfVdb:B:C:N:E:")) != -1) {
		switch (c) {
		case 'p':
		case 'a':
			ctx->options |= OPT_PREEN;
			modes++;
			break;
		case 'n':
			ctx->options |= OPT_READONLY;
			modes++;
			break;
		case 'y':
			ctx->options |= OPT_YES;
			modes++;
			break;
		case 'f':
			ctx->options |= OPT_FORCE;
			break;
		case 'd':
			ctx->options |= OPT_DEBUG;
			break;
		case 'V':
			printf("fsck.stalefs %s\n", STALEFS_VERSION);
			fsck_exit(FSCK_OK);
		case 'b':
			ctx->sb_block = parse_number(ctx, optarg, "superblock");
			break;
		case 'B':
			ctx->block_size = (u32)parse_number(ctx, optarg, "block size");
			if (ctx->block_size != 1024 && ctx->block_size != 2048 && ctx->block_size != 4096) {
				fprintf(stderr, "%s: invalid block size: %s\n", ctx->program, optarg);
				fsck_exit(FSCK_USAGE);
			}
			break;
		case 'C':
			ctx->progress_fd = (int)parse_number(ctx, optarg, "progress file descriptor");
			break;
		case 'N':
			ctx->name = optarg;
			break;
		case 'E':
			parse_extended(ctx, optarg);
			break;
		default:
			usage(ctx->program);
		}
	}
	if (modes > 1) {
		fprintf(stderr, "%s: only one of the options -p/-a, -n or -y may be specified.\n", ctx->program);
		fsck_exit(FSCK_USAGE);
	}
	if (optind != argc - 1)
		usage(ctx->program);
	ctx->device = argv[optind];
	if (!ctx->name)
		ctx->name = ctx->device;
	if (ctx->progress_fd == 0)
		ctx->progress_bar = isatty(1);
	if (!(ctx->options & (OPT_PREEN | OPT_READONLY | OPT_YES)) && !isatty(0)) {
		fprintf(stderr, "%s: need terminal for interactive repairs\n", ctx->program);
		fsck_exit(FSCK_ERROR);
	}
}

static void print_summary(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	u32 inodes = fs->geom.inodes_count, used = inodes - ctx->free_inodes_counted;
	u64 blocks = fs->geom.blocks_count, bused = blocks - ctx->free_blocks_counted;
	u64 frag10 = used ? (ctx->fs_fragmented * 1000 + used / 2) / used : 0;

	printf("%s: %u/%u files (%llu.%llu%% non-contiguous), %llu/%llu blocks\n", ctx->name, used, inodes,
	       (unsigned long long)(frag10 / 10), (unsigned long long)(frag10 % 10),
	       (unsigned long long)bused, (unsigned long long)blocks);
	stale_summary(ctx);
}

/*
 * A check scheduled by the superblock (FORMAT.md 2, as e2fsck's): too many
 * mounts, or too long, since the last one.  Returns whether it is due, with
 * the sentence that says why in msg.
 */
static bool scheduled_check_due(const struct fsck_ctx *ctx, char *msg, size_t len)
{
	const struct stalefs_super_block *sb = &ctx->fs->sb;
	u32 max = le32_to_cpu(sb->s_max_mnt_count), count = le32_to_cpu(sb->s_mnt_count);
	u32 interval = le32_to_cpu(sb->s_checkinterval);
	s64 last = (s64)le64_to_cpu(sb->s_lastcheck), now = (s64)time(NULL);

	if (max && count >= max) {
		snprintf(msg, len, "%s has been mounted %u times without being checked, check forced.",
			 ctx->name, count);
		return true;
	}
	if (interval && now >= last + (s64)interval) {
		snprintf(msg, len, "%s has gone %lld days without being checked, check forced.", ctx->name,
			 (long long)((now - last) / 86400));
		return true;
	}
	return false;
}

static int finish(struct fsck_ctx *ctx)
{
	stalefs_fs *fs = ctx->fs;
	int status = FSCK_OK;
	errcode_t err;

	progress_done(ctx);
	if (!(ctx->options & OPT_READONLY)) {
		u16 state = le16_to_cpu(fs->sb.s_state);

		if (ctx->changed)
			fs->write_backups = true;
		if (ctx->uncorrected)
			state = (u16)((state | STALEFS_STATE_ERRORS) & ~STALEFS_STATE_CLEAN);
		else
			state = (u16)((state | STALEFS_STATE_CLEAN) & ~STALEFS_STATE_ERRORS);
		fs->sb.s_state = cpu_to_le16(state);
		fs->sb.s_lastcheck = cpu_to_le64((u64)time(NULL));
		fs->sb.s_mnt_count = 0;
		stalefs_mark_super_dirty(fs);
	}
	if (ctx->changed && !(ctx->options & OPT_PREEN))
		printf("\n%s: ***** FILE SYSTEM WAS MODIFIED *****\n", ctx->name);
	if (ctx->uncorrected && !(ctx->options & OPT_PREEN))
		printf("\n%s: ********** WARNING: Filesystem still has errors **********\n\n", ctx->name);
	print_summary(ctx);
	fflush(stdout);
	if (ctx->options & OPT_READONLY) {
		stalefs_free(fs);
	} else {
		err = stalefs_close(fs);
		if (err) {
			com_err(ctx->program, err, "while writing the repaired filesystem");
			status |= FSCK_ERROR;
		}
	}
	ctx->fs = NULL;
	if (ctx->changed && !(ctx->options & OPT_READONLY))
		status |= FSCK_NONDESTRUCT;
	if (ctx->uncorrected)
		status |= FSCK_UNCORRECTED;
	if (ctx->library_error)
		status |= FSCK_LIBRARY;
	return status;
}

bool fsck_journal_lazy(struct fsck_ctx *ctx)
{
	return (le32_to_cpu(ctx->fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) ||
	       ctx->journal_cleared;
}

int fsck_main(int argc, char **argv)
{
	struct fsck_ctx ctx;
	struct sigaction sa;
	stalefs_fs *fs;
	int status;
	char scheduled_msg[256];
	bool scheduled;

	memset(&ctx, 0, sizeof(ctx));
	optind = 0;	/* a full getopt reset: fsck_main may run more than once (fuzzing) */
	fsck_cancel_requested = 0;
	ctx.program = "fsck.stalefs";
	ctx.progress_fd = -1;
	the_ctx = &ctx;
	setvbuf(stdout, NULL, _IOLBF, 0);
	initialize_slfs_error_table();
	if (problem_table_verify()) {
		fprintf(stderr, "%s: the problem table is inconsistent (code 0x%06x)\n", ctx.program,
			problem_table_verify());
		return FSCK_LIBRARY;
	}
	parse_args(&ctx, argc, argv);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (!(ctx.options & OPT_READONLY) && stalefs_device_is_mounted(ctx.device)) {
		fprintf(stderr, "%s is mounted.\n%s: cannot check a mounted filesystem for repair "
			"(use -n to check it read-only); nothing was written.\n", ctx.device, ctx.program);
		the_ctx = NULL;
		return FSCK_ERROR;
	}
	fsck_open(&ctx);
	fs = ctx.fs;
	scheduled = scheduled_check_due(&ctx, scheduled_msg, sizeof(scheduled_msg));
	/* A clean filesystem is skipped unless -f (or damage found while opening, or a check is due). */
	if (!(ctx.options & OPT_FORCE) && !ctx.used_backup && fs->sb_rule == 0 && fs->bad_desc_count == 0 &&
	    !ctx.force_check && !orphans_pending(&ctx) && !scheduled &&
	    (le16_to_cpu(fs->sb.s_state) & (STALEFS_STATE_CLEAN | STALEFS_STATE_ERRORS)) == STALEFS_STATE_CLEAN &&
	    stale_quick_audit(&ctx)) {
		u32 used_inodes = fs->geom.inodes_count - le32_to_cpu(fs->sb.s_free_inodes_count);
		u64 used_blocks = fs->geom.blocks_count - le64_to_cpu(fs->sb.s_free_blocks_count);

		printf("%s: clean, %u/%u files, %llu/%llu blocks\n", ctx.name, used_inodes, fs->geom.inodes_count,
		       (unsigned long long)used_blocks, (unsigned long long)fs->geom.blocks_count);
		/* The audit ran; its line is worth a line of preen output only where the feature is in use. */
		if (ctx.stale_gid != STALEFS_STALE_GID_NONE || ctx.stale_files)
			stale_summary(&ctx);
		/* The journal's quiet fix (needs_recovery over an empty log) is kept. */
		if (fs->sb_dirty && !(ctx.options & OPT_READONLY)) {
			errcode_t err = stalefs_close(fs);

			the_ctx = NULL;
			if (err) {
				com_err(ctx.program, err, "while writing the superblock");
				return FSCK_ERROR;
			}
			return FSCK_OK;
		}
		stalefs_free(fs);
		the_ctx = NULL;
		return FSCK_OK;
	}
	if (!(ctx.options & OPT_FORCE) && !ctx.stale_forced) {
		if (le16_to_cpu(fs->sb.s_state) & STALEFS_STATE_ERRORS)
			printf("%s contains a file system with errors, check forced.\n", ctx.name);
		else if (!(le16_to_cpu(fs->sb.s_state) & STALEFS_STATE_CLEAN))
			printf("%s was not cleanly unmounted, check forced.\n", ctx.name);
		else if (ctx.force_check || orphans_pending(&ctx))
			printf("%s: the journal or orphans needed attention, check forced.\n", ctx.name);
		else if (scheduled && fs->sb_rule == 0 && fs->bad_desc_count == 0 && !ctx.used_backup)
			printf("%s\n", scheduled_msg);
		else if (!ctx.used_backup)
			printf("%s has a damaged superblock or group descriptors, check forced.\n", ctx.name);
	}
	maps_init(&ctx);
	check_super_and_groups(&ctx);
	journal_after_bitmaps(&ctx);
	finish_orphans(&ctx);
	fsck_check_cancel(&ctx);
	pass1(&ctx);
	pass1b(&ctx);
	maps_swap_into_fs(&ctx);
	run_rebuilds(&ctx);
	fsck_check_cancel(&ctx);
	pass2(&ctx);
	fsck_check_cancel(&ctx);
	pass3(&ctx);
	fsck_check_cancel(&ctx);
	pass4(&ctx);
	fsck_check_cancel(&ctx);
	pass5(&ctx);
	fsck_check_cancel(&ctx);
	journal_recreate(&ctx);
	status = finish(&ctx);
	maps_free(&ctx);
	the_ctx = NULL;
	return status;
}
