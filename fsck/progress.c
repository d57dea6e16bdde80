// SPDX-License-Identifier: GPL-2.0
/*
 * -C fd: progress.  With fd > 0 one line per update, "pass done total device",
 * as e2fsck writes for fsck(8) front ends; with -C 0 on a terminal, a bar on
 * stdout redrawn at most ten times a second.
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "fsck.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The passes take roughly these shares of the work. */
static const double pass_start[] = { 0, 0, 0.70, 0.90, 0.92, 0.96, 1.0 };

void progress_update(struct fsck_ctx *ctx, int pass, u64 done, u64 total)
{
	static double last;
	double t;

	if (ctx->progress_fd < 0 || total == 0 || pass < 1 || pass > 5)
		return;
	if (ctx->progress_fd > 0) {
		dprintf(ctx->progress_fd, "%d %llu %llu %s\n", pass, (unsigned long long)done,
			(unsigned long long)total, ctx->device);
		return;
	}
	if (!ctx->progress_bar)
		return;
	t = now();
	if (t - last < 0.1 && done < total)
		return;
	last = t;
	{
		double frac = pass_start[pass] + (pass_start[pass + 1] - pass_start[pass]) * done / total;
		int width = 40, fill = (int)(frac * width), i;

		printf("\r%s: |", ctx->name);
		for (i = 0; i < width; i++)
			putchar(i < fill ? '=' : ' ');
		printf("| %5.1f%%  ", frac * 100);
		fflush(stdout);
	}
}

void progress_done(struct fsck_ctx *ctx)
{
	if (ctx->progress_fd == 0 && ctx->progress_bar) {
		printf("\r%*s\r", 70, "");
		fflush(stdout);
	}
}
