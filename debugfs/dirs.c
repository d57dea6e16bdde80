// SPDX-License-Identifier: GPL-2.0
/* Directories: ls, cd, pwd, dirsearch. */
#include <getopt.h>
#include <stdlib.h>
#include "debugfs.h"
#include "scan.h"

struct ls_ctx {
	bool long_fmt, deleted, json, first;
	u32 dir;
};

static int ls_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct ls_ctx *c = priv;
	struct stalefs_inode inode;
	int rule = 0;
	bool have = false;

	if (!de->ino && !c->deleted)
		return 0;
	if (de->ino && stalefs_ino_valid(fs, de->ino) && !stalefs_read_inode_raw(fs, de->ino, &inode, &rule))
		have = true;
	if (c->json) {
		printf("%s{\"ino\":%u,\"name\":", c->first ? "" : ",", de->ino);
		json_strn(stdout, de->name, de->name_len);
		printf(",\"file_type\":%u,\"rec_len\":%u,\"lblk\":%u,\"offset\":%u", de->file_type, de->rec_len,
		       de->lblk, de->offset);
		if (de->deleted)
			printf(",\"deleted\":true");
		if (have)
			printf(",\"mode\":%u,\"uid\":%u,\"gid\":%u,\"size\":%llu,\"mtime\":%lld,\"links_count\":%u,"
			       "\"flags\":%u", le16_to_cpu(inode.i_mode), le32_to_cpu(inode.i_uid),
			       le32_to_cpu(inode.i_gid), (unsigned long long)le64_to_cpu(inode.i_size),
			       (long long)le64_to_cpu(inode.i_mtime), le16_to_cpu(inode.i_links_count),
			       le32_to_cpu(inode.i_flags));
		printf("}");
		c->first = false;
		return 0;
	}
	if (c->long_fmt) {
		char t[64] = "", m[11] = "----------";

		if (have) {
			dbg_time_string((s64)le64_to_cpu(inode.i_mtime), t, sizeof(t));
			stalefs_mode_string(le16_to_cpu(inode.i_mode), m);
		}
		printf("%8u %s %5u %5u %12llu %s %s%.*s%s%s\n", de->ino, m, have ? le32_to_cpu(inode.i_uid) : 0,
		       have ? le32_to_cpu(inode.i_gid) : 0,
		       have ? (unsigned long long)le64_to_cpu(inode.i_size) : 0ULL, t, de->ino && !de->deleted ? "" : "<deleted> ",
		       de->name_len, de->name,
		       have && (le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL) ? "  [STALE]" : "",
		       have && rule ? "  (inode damaged)" : "");
	} else {
		/* Removed entries in angle brackets, as e2fsprogs' ls -d shows them. */
		printf(de->deleted ? " <%u>  (%u) %.*s   " : " %u  (%u) %.*s   ", de->ino, de->rec_len, de->name_len,
		       de->name);
	}
	return 0;
}

DBG_CMD(do_list_dir)
{
	struct ls_ctx c = { .json = dbg.json, .first = true };
	const char *name = ".";
	int ch, problems;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((ch = getopt(argc, (char *const *)argv, "ldp")) != -1) {
		switch (ch) {
		case 'l': c.long_fmt = true; break;
		case 'd': c.deleted = true; break;
		case 'p': break;
		default: dbg_usage(argv[0], "[-l] [-d] [file]"); return;
		}
	}
	if (argc - optind > 1) {
		dbg_usage(argv[0], "[-l] [-d] [file]");
		return;
	}
	if (!dbg_need_fs(argv[0]))
		return;
	if (optind < argc)
		name = argv[optind];
	if (!dbg_name_to_ino_follow(argv[0], name, true, &c.dir))
		return;
	if (c.json)
		printf("{\"dir\":%u,\"entries\":[", c.dir);
	problems = dbg_dir_iterate(argv[0], c.dir, c.deleted, ls_cb, &c);
	if (c.json)
		printf("]}\n");
	else if (!c.long_fmt)
		printf("\n");
	if (problems)
		dbg_fail();	/* each damaged block was named on stderr */
}

DBG_CMD(do_change_working_dir)
{
	struct stalefs_inode inode;
	u32 ino;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<file>") || !dbg_need_fs(argv[0]) ||
	    !dbg_name_to_ino_follow(argv[0], argv[1], true, &ino))
		return;
	err = stalefs_read_inode(dbg.fs, ino, &inode);
	if (err) {
		dbg_err(argv[0], err, "reading inode %u", ino);
		return;
	}
	if ((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFDIR) {
		dbg_err(argv[0], STALEFS_ERR_NOT_DIR, "changing to %s", argv[1]);
		return;
	}
	dbg.cwd = ino;
}

DBG_CMD(do_print_working_directory)
{
	char path[4096];

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 0, 0, "") || !dbg_need_fs(argv[0]))
		return;
	dbg_ino_path(dbg.cwd, path, sizeof(path));
	printf("[pwd]   INODE: %6u  PATH: %s\n", dbg.cwd, path);
	printf("[root]  INODE: %6u  PATH: /\n", dbg.root);
}

struct search_ctx {
	const char *name;
	size_t len;
	bool found;
};

static int search_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct search_ctx *c = priv;

	(void)fs;
	if (!de->ino || de->name_len != c->len || memcmp(de->name, c->name, c->len))
		return 0;
	printf("Entry found at logical block %u, phys %llu, offset %u\n", de->lblk, (unsigned long long)de->pblk,
	       de->offset);
	c->found = true;
	return 1;
}

DBG_CMD(do_dirsearch)
{
	struct search_ctx c;
	u32 dir;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 2, 2, "dir filename") || !dbg_need_fs(argv[0]) ||
	    !dbg_name_to_ino_follow(argv[0], argv[1], true, &dir))
		return;
	c.name = argv[2];
	c.len = strlen(argv[2]);
	c.found = false;
	if (dbg_dir_iterate(argv[0], dir, false, search_cb, &c) && !c.found)
		dbg_fail();
	else if (!c.found)
		dbg_msg(argv[0], "%s not found in %s", argv[2], argv[1]);
}
