// SPDX-License-Identifier: GPL-2.0
/* The end of each step of an offline resize: its commit, and what -p shows meanwhile. */
#include <stdio.h>
#include <string.h>
#include "resize.h"

errcode_t resize_commit(struct resize_ctx *c)
{
	/* With a journal, one transaction (format/lib/txn.c); without, an ordered flush. */
	c->wrote = true;
	return stalefs_flush(c->fs);
}

/* -p: a bar of 40 marks per pass, as resize2fs draws it, on a terminal or not. */
void resize_progress(const struct resize_ctx *c, const char *pass, u64 done, u64 total)
{
	static const char *shown;
	static unsigned marks;
	unsigned want;

	if (!c->o->progress || !total)
		return;
	if (pass != shown) {
		if (shown)
			printf("\n");
		printf("%-30s", pass);
		shown = pass;
		marks = 0;
	}
	want = (unsigned)(done * 40 / total);
	for (; marks < want; marks++)
		putchar('X');
	if (done >= total) {
		printf("\n");
		shown = NULL;
	}
	fflush(stdout);
}
