// SPDX-License-Identifier: GPL-2.0
/*
 * What blkls, slack and dump_stale share: bytes of the image copied out to a
 * stream (a file, or standard output when it is not a terminal) or to files
 * of their own, and a map that says where each piece came from -- its offset
 * in the stream, its length, its byte offset in the filesystem and in the
 * image the examiner holds (a partition or region starts further in), and
 * what it is.  The map is text, tab separated, one piece a line, after a
 * header line that starts with '#'.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include "debugfs.h"

#define RUN_BLOCKS 256

FILE *dbg_fopen_private(const char *path)
{
	/* What comes out of unallocated space, slack or STALE extents is someone's data:
	 * readable by the examiner alone, whatever the umask. */
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

bool dbg_extract_open(struct dbg_extract *x, const char *cmd, const char *out_path, bool to_stdout,
		      const char *map_path, const char *map_header)
{
	struct stalefs_io_info info;

	memset(x, 0, sizeof(*x));
	x->cmd = cmd;
	stalefs_io_info(dbg.fs->io, &info);
	x->base = info.offset;
	x->buf = malloc((size_t)RUN_BLOCKS * dbg.fs->block_size);
	if (!x->buf) {
		dbg_err(cmd, STALEFS_ERR_NO_MEMORY, "allocating a buffer");
		return false;
	}
	if (out_path) {
		x->out = dbg_fopen_private(out_path);
		if (!x->out) {
			dbg_err(cmd, errno, "opening %s", out_path);
			goto fail;
		}
	} else if (to_stdout) {
		if (isatty(STDOUT_FILENO)) {
			dbg_msg(cmd, "will not write binary data to a terminal: give an output file, or redirect");
			goto fail;
		}
		fflush(stdout);
		x->out = stdout;
	}
	if (map_path) {
		x->map = fopen(map_path, "w");
		if (!x->map) {
			dbg_err(cmd, errno, "opening %s", map_path);
			goto fail;
		}
		fprintf(x->map, "# %s\n", map_header);
	}
	return true;
fail:
	if (x->out && x->out != stdout)
		fclose(x->out);
	free(x->buf);
	x->buf = NULL;
	x->out = NULL;
	return false;
}

bool dbg_extract_range(struct dbg_extract *x, FILE *to, u64 block, u32 skip, u64 len)
{
	u32 bs = dbg.fs->block_size;

	while (len > 0 && !x->failed) {
		u64 blocks = (skip + len + bs - 1) / bs;
		u32 n = blocks > RUN_BLOCKS ? RUN_BLOCKS : (u32)blocks;
		u64 bytes = (u64)n * bs - skip;
		errcode_t err = stalefs_io_read(dbg.fs->io, block, n, x->buf);

		if (bytes > len)
			bytes = len;
		if (err) {
			dbg_err(x->cmd, err, "reading blocks %llu-%llu", (unsigned long long)block,
				(unsigned long long)(block + n - 1));
			x->failed = true;
			break;
		}
		if (fwrite(x->buf + skip, 1, (size_t)bytes, to) != bytes) {
			dbg_err(x->cmd, errno ? errno : STALEFS_ERR_SHORT_WRITE, "writing the extracted data");
			x->failed = true;
			break;
		}
		if (to == x->out)
			x->stream_off += bytes;
		block += n;
		len -= bytes;
		skip = 0;
	}
	return !x->failed;
}

void dbg_extract_map(struct dbg_extract *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->map)
		return;
	va_start(ap, fmt);
	vfprintf(x->map, fmt, ap);
	va_end(ap);
}

bool dbg_extract_close(struct dbg_extract *x)
{
	bool ok = !x->failed;

	if (x->out && (x->out == stdout ? fflush(x->out) : fclose(x->out)) != 0 && ok) {
		dbg_err(x->cmd, errno, "writing the extracted data");
		ok = false;
	}
	if (x->map && fclose(x->map) != 0 && ok) {
		dbg_err(x->cmd, errno, "writing the map");
		ok = false;
	}
	free(x->buf);
	memset(x, 0, sizeof(*x));
	return ok;
}
