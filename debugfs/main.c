// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.stalefs: inspect, recover and edit a stalefs image.
 *
 * Read-only unless -w.  Commands come from -R, from a script (-f, "-" for
 * stdin, each line echoed as "debugfs: line"), or interactively through
 * libss.  The exit status is the number of commands that failed (opening
 * the image counts as one), capped at 255.
 */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include <ss/ss.h>
#include "debugfs.h"

#define DBG_VERSION "1.0"

extern ss_request_table debug_cmds;

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s [-w] [-c] [-n] [-j|--json] [-b blocksize] [-s superblock]\n"
		"\t[-R request] [-f cmd_file] [-V] [device]\n"
		"       %s --restore-metadump DUMP IMAGE\n", DBG_PROG, DBG_PROG);
	exit(255);
}

static int exit_status(void)
{
	return dbg.failures > 255 ? 255 : (int)dbg.failures;
}

/* One line through libss; an unknown command counts as a failure. */
static void run_line(int sci, char *line)
{
	int ret = ss_execute_line(sci, line);

	if (ret == SS_ET_COMMAND_NOT_FOUND) {
		char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		fprintf(stderr, "%s: Command not found %.*s\n", DBG_PROG, (int)strcspn(p, " \t\n"), p);
		dbg_fail();
	} else if (ret) {
		ss_perror(sci, ret, line);
		dbg_fail();
	}
}

static void run_script(int sci, const char *file)
{
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f) {
		perror(file);
		dbg_fail();
		return;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *p = line;

		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		printf("debugfs: %s\n", p);
		fflush(stdout);
		run_line(sci, p);
		fflush(stdout);
	}
	free(line);
	if (f != stdin)
		fclose(f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "restore-metadump", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *request = NULL, *script = NULL;
	int c, sci, ret, flags = 0;
	bool restore = false;
	u64 sb_block = 0;
	u32 block_size = 0;
	errcode_t err;
	char *end;

	add_error_table(&et_slfs_error_table);
	while ((c = getopt_long(argc, argv, "wcnjR:f:b:s:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'w': flags |= STALEFS_OPEN_RW; break;
		case 'c': flags |= STALEFS_OPEN_NO_BITMAPS; break;
		case 'n': flags |= STALEFS_OPEN_IGNORE_CSUM; dbg.no_csum = true; break;
		case 'j': dbg.json = true; break;
		case 'R': request = optarg; break;
		case 'f': script = optarg; break;
		case 'b':
			block_size = (u32)strtoul(optarg, &end, 0);
			if (*end || (block_size != 1024 && block_size != 2048 && block_size != 4096)) {
				fprintf(stderr, "%s: Bad block size - %s\n", DBG_PROG, optarg);
				exit(255);
			}
			break;
		case 's':
			sb_block = strtoull(optarg, &end, 0);
			if (*end || !*optarg) {
				fprintf(stderr, "%s: Bad superblock number - %s\n", DBG_PROG, optarg);
				exit(255);
			}
			break;
		case 'V':
			printf("%s %s (stalefs format revision 1)\n", DBG_PROG, DBG_VERSION);
			exit(0);
		case 'M': restore = true; break;
		default: usage();
		}
	}
	/* Commands parse their own options with getopt and report errors in one line themselves. */
	opterr = 0;
	if (restore) {
		if (argc - optind != 2)
			usage();
		err = dbg_metadump_restore(argv[optind], argv[optind + 1]);
		if (err) {
			com_err(DBG_PROG, err, "while restoring metadump %s to %s", argv[optind], argv[optind + 1]);
			return 1;
		}
		return 0;
	}
	if (argc - optind > 1)
		usage();
	if (block_size && !sb_block) {
		fprintf(stderr, "%s: -b needs -s (the block size of a backup superblock)\n", DBG_PROG);
		exit(255);
	}
	if ((flags & STALEFS_OPEN_RW) && (flags & STALEFS_OPEN_NO_BITMAPS)) {
		fprintf(stderr, "%s: catastrophic mode (-c) is read-only; -w is not allowed with it\n", DBG_PROG);
		exit(255);
	}
	dbg.open_flags = flags;
	if (optind < argc) {
		err = dbg_open_fs(argv[optind], flags, sb_block, block_size);
		if (err) {
			com_err(DBG_PROG, err, "while opening filesystem %s", argv[optind]);
			dbg_fail();
		}
	}
	sci = ss_create_invocation("debugfs", DBG_VERSION, NULL, &debug_cmds, &ret);
	if (ret) {
		ss_perror(sci, ret, "creating invocation");
		exit(255);
	}
	ss_get_readline(sci);
	ss_add_request_table(sci, &ss_std_requests, 1, &ret);
	if (ret) {
		ss_perror(sci, ret, "adding standard requests");
		exit(255);
	}
	if (request) {
		char *line = strdup(request);

		run_line(sci, line);
		free(line);
	} else if (script) {
		run_script(sci, script);
	} else {
		ss_listen(sci);
	}
	ss_delete_invocation(sci);
	if (dbg.fs) {
		err = dbg_close_fs(true);
		if (err) {
			com_err(DBG_PROG, err, "while closing filesystem");
			dbg_fail();
		}
	}
	return exit_status();
}
