// SPDX-License-Identifier: GPL-2.0
/*
 * Editing directory blocks field by field, for building broken directories:
 *   set_dirent [-n] DIR NAME FIELD VALUE   (inode, rec_len, name_len, file_type, name)
 *   set_dir_block [-n] BLOCK FIELD VALUE   (magic, checksum, blocknr, owner, lblk)
 * The block's checksum is recomputed unless -n (or the program's -n) is given,
 * or the field is the checksum itself ("calc" recomputes it).
 */
#include <stddef.h>
#include <stdlib.h>
#include "debugfs.h"
#include "fields.h"

#define DB(f) offsetof(struct stalefs_dir_block, f), sizeof(((struct stalefs_dir_block *)0)->f)

static const struct field dirblock_fields[] = {
	{ "magic", DB(db_magic), F_UINT, 0, 0 },
	{ "checksum", DB(db_checksum), F_CSUM, 0, 0 },
	{ "blocknr", DB(db_blocknr), F_UINT, 0, 0 },
	{ "owner", DB(db_owner), F_UINT, 0, 0 },
	{ "lblk", DB(db_lblk), F_UINT, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0 }
};

static const struct field dirent_fields[] = {
	{ "inode", 0, 4, F_UINT, 0, 0 },
	{ "rec_len", 4, 2, F_UINT, 0, 0 },
	{ "name_len", 6, 1, F_UINT, 0, 0 },
	{ "file_type", 7, 1, F_UINT, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0 }
};

/* Leading -n / --no-csum / -l; returns the index of the first positional argument, 0 on error. */
static int opts(int argc, const char *const *argv, bool *no_csum, bool *list)
{
	int i;

	*no_csum = dbg.no_csum;
	*list = false;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-n") == 0 || strcmp(argv[i], "--no-csum") == 0)
			*no_csum = true;
		else if (strcmp(argv[i], "-l") == 0)
			*list = true;
		else
			return 0;
	}
	return i;
}

static void write_dirblock(const char *cmd, u64 block, u8 *buf, bool recompute)
{
	errcode_t err;

	if (recompute)
		stalefs_dirblock_set_csum(dbg.fs->seed, buf, dbg.fs->block_size);
	err = stalefs_write_block(dbg.fs, block, buf);
	if (err)
		dbg_err(cmd, err, "writing block %llu", (unsigned long long)block);
}

DBG_CMD(do_set_dir_block)
{
	static const char usage[] = "[-n|--no-csum] <block> <field> <value>\n\t\"set_dir_block -l\" lists the fields";
	const struct field *f;
	char msg[160];
	bool no_csum, list, recompute;
	u64 block;
	u32 off;
	u8 *buf;
	int i = opts(argc, argv, &no_csum, &list);
	errcode_t err;

	(void)sci_idx; (void)info;
	if (i && list) {
		field_list(dirblock_fields, "Directory block");
		return;
	}
	if (!i || argc - i != 3) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]) || !dbg_parse_block(argv[0], argv[i], &block))
		return;
	f = field_find(dirblock_fields, "db_", argv[i + 1], &off, msg, sizeof(msg));
	if (!f) {
		dbg_msg(argv[0], "%s", msg);
		return;
	}
	buf = malloc(dbg.fs->block_size);
	if (!buf) {
		dbg_err(argv[0], STALEFS_ERR_NO_MEMORY, "allocating a block buffer");
		return;
	}
	err = stalefs_read_block(dbg.fs, block, buf);
	if (err) {
		dbg_err(argv[0], err, "reading block %llu", (unsigned long long)block);
	} else if (f->kind == F_CSUM && strcmp(argv[i + 2], "calc") == 0) {
		write_dirblock(argv[0], block, buf, true);
	} else if (!field_set(f, buf, off, argv[i + 2], msg, sizeof(msg))) {
		dbg_msg(argv[0], "%s", msg);
	} else {
		recompute = f->kind != F_CSUM && !no_csum;
		write_dirblock(argv[0], block, buf, recompute);
	}
	free(buf);
}

struct find_entry {
	const char *name;
	size_t len;
	bool found;
	u64 pblk;
	u32 offset;
};

static int find_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct find_entry *f = priv;

	(void)fs;
	if (de->name_len != f->len || memcmp(de->name, f->name, f->len))
		return 0;
	f->found = true;
	f->pblk = de->pblk;
	f->offset = de->offset;
	return 1;
}

DBG_CMD(do_set_dirent)
{
	static const char usage[] = "[-n|--no-csum] <dir> <name> <field> <value>\n"
				    "\tfields: inode, rec_len, name_len, file_type, name";
	struct find_entry fe = { 0 };
	bool no_csum, list;
	u32 dir;
	u8 *buf;
	int i = opts(argc, argv, &no_csum, &list);
	errcode_t err;

	(void)sci_idx; (void)info;
	if (i && list) {
		field_list(dirent_fields, "Directory entry");
		printf("\tname                              bytes of the name (at most rec_len - 8)\n");
		return;
	}
	if (!i || argc - i != 4) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]) || !dbg_name_to_ino_follow(argv[0], argv[i], true, &dir))
		return;
	fe.name = argv[i + 1];
	fe.len = strlen(fe.name);
	err = stalefs_dir_iterate(dbg.fs, dir, 0, find_cb, &fe);
	if (!err && !fe.found)
		err = STALEFS_ERR_NOT_FOUND;
	if (err) {
		dbg_err(argv[0], err, "looking for %s in %s", fe.name, argv[i]);
		return;
	}
	buf = malloc(dbg.fs->block_size);
	if (!buf) {
		dbg_err(argv[0], STALEFS_ERR_NO_MEMORY, "allocating a block buffer");
		return;
	}
	err = stalefs_read_block(dbg.fs, fe.pblk, buf);
	if (err) {
		dbg_err(argv[0], err, "reading block %llu", (unsigned long long)fe.pblk);
	} else if (strcmp(argv[i + 2], "name") == 0) {
		struct stalefs_dir_entry *de = (void *)(buf + fe.offset);
		size_t n = strlen(argv[i + 3]);

		if (n == 0 || n + sizeof(*de) > le16_to_cpu(de->rec_len)) {
			dbg_msg(argv[0], "name must be 1..%u bytes here", le16_to_cpu(de->rec_len) - 8u);
		} else {
			/* Only the bytes: name_len is a field of its own, so a mismatch can be built. */
			memcpy(buf + fe.offset + sizeof(*de), argv[i + 3], n);
			write_dirblock(argv[0], fe.pblk, buf, !no_csum);
		}
	} else {
		const struct field *f;
		char msg[160];
		u32 off;

		f = field_find(dirent_fields, NULL, argv[i + 2], &off, msg, sizeof(msg));
		if (!f || !field_set(f, buf, fe.offset + off, argv[i + 3], msg, sizeof(msg)))
			dbg_msg(argv[0], "%s", msg);
		else
			write_dirblock(argv[0], fe.pblk, buf, !no_csum);
	}
	free(buf);
}
