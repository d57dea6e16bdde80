// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: open a mutated image read-only and run a fixed script of
 * read-only debugfs commands over it through dbg_execute() (the mk_cmds table
 * without libss' listener).  Any crash, sanitizer report or leak is a bug;
 * failing commands are expected and fine.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "debugfs.h"

/* Every read-only command that touches the image (rdump is left out: it writes a tree). */
static const char *const script[] = {
	"stats", "stats -h", "params",
	"ls -l /", "ls -d /", "ls -l /lost+found",
	"stat <2>", "stat <11>", "stat <12>", "stat <13>", "stat <14>", "stat <15>",
	"ex <12>", "ex <13>", "ex <14>", "ex <15>", "ex <2>",
	"blocks <12>", "blocks <13>", "bmap <12> 0", "bmap <13> 5", "imap <12>", "idump <13>",
	"bd 0", "bd 1", "bd 2", "bd 3", "bd 4", "bd 5", "bd 40", "bd 60", "bd -f <12> 0",
	"icheck 1 2 30 50 70 100", "ncheck 2 11 12 13 14 15 16",
	"testb 10 20", "testi <12> 10", "ffb 3", "ffi",
	"dirsearch / a", "cd /lost+found", "pwd", "cd /",
	"lsstale", "lsdel",
	"cat <12>", "cat <14>", "dump <13> /dev/null", "dump -p <15> /dev/null",
	"metadump /dev/null",
	"sif <12> mode 0",	/* refused: read-only */
};

/* The commands print a lot: run with -close_fd_mask=3 (libFuzzer and the
 * sanitizers keep a private copy of stderr for their own reports). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	add_error_table(&et_slfs_error_table);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char path[64];
	int fd = memfd_create("stalefs-fuzz", 0);
	size_t i;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&dbg, 0, sizeof(dbg));
	if (dbg_open_fs(path, 0, 0, 0) == 0) {
		for (i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
			char line[128];

			snprintf(line, sizeof(line), "%s", script[i]);
			dbg_execute(line);
		}
		dbg_close_fs(false);
	}
	fflush(stdout);
	close(fd);
	return 0;
}
