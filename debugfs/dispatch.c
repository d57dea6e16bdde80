// SPDX-License-Identifier: GPL-2.0
/*
 * Running one command line against the mk_cmds table without libss' listener:
 * the fuzzer links this instead of libss, and the words are split the way
 * ss_execute_line splits them (whitespace, double quotes group).
 */
#include <unistd.h>
#include <ss/ss.h>
#include "debugfs.h"

extern ss_request_table debug_cmds;

#define MAX_WORDS 64

static int split(char *line, const char *argv[MAX_WORDS + 1])
{
	int argc = 0;
	char *r = line, *w = line;

	while (*r) {
		bool quoted = false;

		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r)
			break;
		if (argc == MAX_WORDS)
			return -1;
		argv[argc++] = w;
		while (*r && (quoted || (*r != ' ' && *r != '\t' && *r != '\n' && *r != '\r'))) {
			if (*r == '"') {
				quoted = !quoted;
				r++;
				continue;
			}
			*w++ = *r++;
		}
		if (*r)
			r++;
		*w++ = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

bool dbg_execute(char *line)
{
	const char *argv[MAX_WORDS + 1];
	const ss_request_entry *e;
	int argc = split(line, argv);

	if (argc < 0) {
		dbg_msg(DBG_PROG, "too many words in command line");
		return false;
	}
	if (argc == 0 || argv[0][0] == '#')
		return true;
	opterr = 0;
	for (e = debug_cmds.requests; e->command_names; e++) {
		const char *const *n;

		for (n = e->command_names; *n; n++)
			if (strcmp(*n, argv[0]) == 0) {
				e->function(argc, argv, 0, NULL);
				return true;
			}
	}
	dbg_msg(DBG_PROG, "Command not found %s", argv[0]);
	return false;
}
