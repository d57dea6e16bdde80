// SPDX-License-Identifier: GPL-2.0
/*
 * replay-log: list or replay a dm-log-writes log, so a workload recorded
 * once can be "power-cut" after any of its writes.
 *
 *   replay-log list LOG
 *       one line per entry: INDEX FLAGS SECTOR NR_SECTORS [MARK]
 *       (FLAGS: W data, F flush, U FUA, D discard, M mark)
 *   replay-log replay LOG IMAGE FROM TO
 *       apply entries FROM <= index < TO to IMAGE (a file or device that
 *       already holds the state after entry FROM - 1), so stepping through
 *       cut points costs one pass over the log in all.
 *
 * A discard is not applied: what a discarded block reads back is up to the
 * device, and keeping the old contents is the harshest answer (a file
 * system must never rely on a discard to hide old data).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "logwrites.h"

static void usage(void)
{
	fprintf(stderr, "Usage: replay-log list LOG\n"
			"       replay-log replay LOG IMAGE FROM TO\n");
	exit(2);
}

static int list(const char *path)
{
	struct lw_log log;
	struct lw_entry e;
	char fl[8];
	int r;

	if (lw_open(&log, path))
		return 1;
	while ((r = lw_next(&log, &e)) == 1)
		printf("%" PRIu64 " %s %" PRIu64 " %" PRIu64 "%s%s\n", e.index, lw_flag_string(&e, fl),
		       e.sector, e.nr_sectors, e.mark[0] ? " " : "", e.mark);
	lw_close(&log);
	return r < 0;
}

static int replay(const char *path, const char *img_path, uint64_t from, uint64_t to)
{
	struct lw_log log;
	struct lw_entry e;
	int img, r, rc = 1;

	if (from > to) {
		fprintf(stderr, "replay-log: FROM (%" PRIu64 ") is past TO (%" PRIu64 ")\n", from, to);
		return 2;
	}
	if (lw_open(&log, path))
		return 1;
	if (to > log.nr_entries) {
		fprintf(stderr, "replay-log: the log has %" PRIu64 " entries, TO is %" PRIu64 "\n",
			log.nr_entries, to);
		goto out;
	}
	img = open(img_path, O_WRONLY | O_CLOEXEC);
	if (img < 0) {
		fprintf(stderr, "%s: %s\n", img_path, strerror(errno));
		goto out;
	}
	uint64_t img_size = lw_image_size(img, img_path);
	while ((r = lw_next(&log, &e)) == 1 && e.index < to) {
		if (e.index < from || !lw_has_data(&e))
			continue;
		if (lw_apply(&log, &e, img, img_size, img_path))
			break;
	}
	if (r >= 0 && (r == 0 || e.index >= to))
		rc = 0;
	if (close(img) < 0) {
		fprintf(stderr, "%s: %s\n", img_path, strerror(errno));
		rc = 1;
	}
out:
	lw_close(&log);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t from, to;

	if (argc == 3 && !strcmp(argv[1], "list"))
		return list(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "replay")) {
		if (lw_parse_u64(argv[4], &from) || lw_parse_u64(argv[5], &to)) {
			fprintf(stderr, "replay-log: FROM and TO are entry numbers\n");
			return 2;
		}
		return replay(argv[2], argv[3], from, to);
	}
	usage();
}
