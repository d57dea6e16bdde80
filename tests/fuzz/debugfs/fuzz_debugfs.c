// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: open a mutated image read-only and run a fixed script of
 * read-only debugfs commands over it through dbg_execute() (the mk_cmds table
 * without libss' listener).  Any crash, sanitizer report or leak is a bug;
 * failing commands are expected and fine.
 *
 * Built with -DFUZZ_RW it is the editing twin: the image (a private memfd
 * copy) is opened read-write and a script of editing commands runs over it,
 * then the image is flushed and closed -- the path the fsck corpus takes
 * when it damages images step by step.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "debugfs.h"

#define HOST_FILE "/tmp/stalefs-fuzz-host-file"

/* Every read-only command that touches the image (rdump is left out: it writes a tree). */
#ifndef FUZZ_RW
static const int open_flags = 0;
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
	"ea_list <12>", "ea_list <13>", "ea_get <12> user.a", "ea_get -x <13> trusted.t",
	"timeline /dev/null", "timeline -H md5 -j -d /dev/null",
	"jls", "jls -c", "jls -i <12>", "jcat 1", "jcat 3", "jinode <12>", "jinode <14>",
	"jrecover <12> /dev/null", "jrecover -f <13> /dev/null",
	"blkls -l", "blkls -m /dev/null /dev/null", "slack -u -m /dev/null /dev/null", "dump_stale -m /dev/null /dev/null",
	"report /dev/null",
	"sif <12> mode 0",	/* refused: read-only */
	"close", "open %s", "stats -h",	/* %s: the image again */
};
#else
static const int open_flags = STALEFS_OPEN_RW;
static const char *const script[] = {
	"stats -h", "ls -l /",
	"write " HOST_FILE " newfile", "mkdir newdir", "symlink newdir/sl /newfile",
	"symlink newdir/long xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"link /newfile newdir/hard", "unlink newdir/hard",
	"fallocate <12> 3 9", "fallocate --no-hide-stale <13> 100 120", "punch <13> 5 60", "punch <12> 0",
	"fallocate newfile 0 40", "punch newfile 10 20",
	"ea_set <12> user.a 1", "ea_set <13> trusted.t xyz", "ea_set -f " HOST_FILE " <14> user.big",
	"ea_set newfile security.s label", "ea_list <12>", "ea_rm <12> user.a", "ea_rm <13> trusted.t user.none",
	"sif <12> uid 5", "sif -n <13> extent[0].flags 3", "sif <14> eh.entries 9",
	"ssv free_blocks_count 3", "ssv -n state 0", "set_bg 0 itable_unused 1", "set_bg -n 0 flags 3",
	"seb 38 extent[0].len 0", "sde / a inode 5000", "sdb 20 lblk 7",
	"freeb 30 4", "setb 60 3", "freei <15>", "seti <20>",
	"rm /a", "rm newfile", "rmdir newdir", "rm newdir/sl", "rm newdir/long", "rmdir newdir",
	"lsdel", "undel <17> back", "undel <12>", "undel -j <14> jback", "clri <16>", "zap_block -o 8 -l 8 -p 255 21",
	"mkdir d2", "write " HOST_FILE " d2/f", "ls -l /d2", "lsstale", "icheck 40 41 42",
	"close", "open -w %s", "stats -h",	/* %s: the image again */
};
#endif

/* The commands print a lot: run with -close_fd_mask=3 (libFuzzer and the
 * sanitizers keep a private copy of stderr for their own reports). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	add_error_table(&et_slfs_error_table);
#ifdef FUZZ_RW
	{
		/* The host file "write" copies in: a few blocks of a pattern. */
		FILE *f = fopen(HOST_FILE, "w");
		int i;

		if (f) {
			for (i = 0; i < 3000; i++)
				fprintf(f, "line %d of the host file\n", i);
			fclose(f);
		}
	}
#endif
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
	if (dbg_open_fs(path, open_flags, 0, 0) == 0) {
		for (i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
			char line[256];

			if (strstr(script[i], "%s"))
				snprintf(line, sizeof(line), script[i], path);
			else
				snprintf(line, sizeof(line), "%s", script[i]);
			dbg_execute(line);
		}
		dbg_close_fs(true);
	}
	fflush(stdout);
	close(fd);
	return 0;
}
