// SPDX-License-Identifier: GPL-2.0
/* Helpers every command uses: failure reporting, argument parsing, naming files. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "debugfs.h"

struct dbg_state dbg;

void dbg_fail(void)
{
	dbg.failures++;
}

void dbg_err(const char *cmd, errcode_t err, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	fprintf(stderr, "%s: %s while ", cmd, error_message(err));
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	dbg_fail();
}

void dbg_msg(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	dbg_fail();
}

void dbg_usage(const char *cmd, const char *usage)
{
	dbg_msg(cmd, "Usage: %s %s", cmd, usage);
}

bool dbg_need_fs(const char *cmd)
{
	if (dbg.fs)
		return true;
	dbg_msg(cmd, "Filesystem not open");
	return false;
}

bool dbg_need_rw(const char *cmd)
{
	if (!dbg_need_fs(cmd))
		return false;
	if (dbg.fs->flags & STALEFS_OPEN_RW)
		return true;
	dbg_msg(cmd, "Filesystem opened read/only");
	return false;
}

bool dbg_need_bitmaps(const char *cmd)
{
	if (!dbg_need_fs(cmd))
		return false;
	if (dbg.fs->bitmaps_loaded)
		return true;
	dbg_msg(cmd, "Filesystem opened without bitmaps (catastrophic mode)");
	return false;
}

bool dbg_args(int argc, const char *const *argv, int min, int max, const char *usage)
{
	if (argc - 1 < min || (max >= 0 && argc - 1 > max)) {
		dbg_usage(argv[0], usage);
		return false;
	}
	return true;
}

bool dbg_parse_u64(const char *cmd, const char *s, const char *what, u64 *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	if (!s || !*s || *s == '-') {
		dbg_msg(cmd, "Bad %s - %s", what, s ? s : "(none)");
		return false;
	}
	x = strtoull(s, &end, 0);
	if (errno || *end) {
		dbg_msg(cmd, "Bad %s - %s", what, s);
		return false;
	}
	*v = x;
	return true;
}

bool dbg_parse_u32(const char *cmd, const char *s, const char *what, u32 *v)
{
	u64 x;

	if (!dbg_parse_u64(cmd, s, what, &x))
		return false;
	if (x > 0xFFFFFFFFull) {
		dbg_msg(cmd, "Bad %s - %s", what, s);
		return false;
	}
	*v = (u32)x;
	return true;
}

bool dbg_parse_block(const char *cmd, const char *s, u64 *block)
{
	if (!dbg_parse_u64(cmd, s, "block number", block))
		return false;
	if (*block >= dbg.fs->geom.blocks_count) {
		dbg_msg(cmd, "Illegal block number %s (the filesystem has %llu blocks)", s,
			(unsigned long long)dbg.fs->geom.blocks_count);
		return false;
	}
	return true;
}

bool dbg_parse_file_block(const char *cmd, const char *file, const char *s, u64 *block)
{
	errcode_t err;
	u32 ino, lblk;
	u16 flags;

	if (!file)
		return dbg_parse_block(cmd, s, block);
	if (!dbg_name_to_ino(cmd, file, &ino) || !dbg_parse_u32(cmd, s, "logical block", &lblk))
		return false;
	err = stalefs_bmap(dbg.fs, ino, lblk, block, &flags);
	if (err) {
		dbg_err(cmd, err, "mapping logical block %u of %s", lblk, file);
		return false;
	}
	if (!*block) {
		dbg_msg(cmd, "logical block %u of %s is a hole", lblk, file);
		return false;
	}
	return true;
}

bool dbg_name_to_ino_follow(const char *cmd, const char *name, bool follow, u32 *ino)
{
	size_t len = strlen(name);
	errcode_t err;

	if (len > 2 && name[0] == '<' && name[len - 1] == '>') {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(name + 1, &end, 0);
		if (errno || end != name + len - 1 || v == 0 || v > dbg.fs->geom.inodes_count) {
			dbg_msg(cmd, "Bad inode - %s", name);
			return false;
		}
		*ino = (u32)v;
		return true;
	}
	err = stalefs_namei(dbg.fs, dbg.cwd, name, follow, ino);
	if (err) {
		dbg_err(cmd, err, "looking up %s", name);
		return false;
	}
	return true;
}

bool dbg_name_to_ino(const char *cmd, const char *name, u32 *ino)
{
	return dbg_name_to_ino_follow(cmd, name, false, ino);
}

bool dbg_read_inode(const char *cmd, u32 ino, struct stalefs_inode *inode, int *rule)
{
	errcode_t err = stalefs_read_inode_raw(dbg.fs, ino, inode, rule);

	if (err) {
		dbg_err(cmd, err, "reading inode %u", ino);
		return false;
	}
	return true;
}

void dbg_warn_uninit(const char *cmd, u32 ino)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	const struct stalefs_group_desc *d = &dbg.fs->groups[stalefs_ino_group(g, ino)].desc;
	u32 unused = le32_to_cpu(d->bg_itable_unused);

	if (unused <= g->inodes_per_group && (ino - 1) % g->inodes_per_group < g->inodes_per_group - unused)
		return;
	fprintf(stderr, "%s: warning: inode %u is in the uninitialised part of its inode table "
		"(bg_itable_unused); readers treat it as empty\n", cmd, ino);
}

const char *dbg_mode_type(u16 mode)
{
	switch (mode & STALEFS_S_IFMT) {
	case STALEFS_S_IFREG: return "regular";
	case STALEFS_S_IFDIR: return "directory";
	case STALEFS_S_IFLNK: return "symlink";
	case STALEFS_S_IFCHR: return "character special";
	case STALEFS_S_IFBLK: return "block special";
	case STALEFS_S_IFIFO: return "FIFO";
	case STALEFS_S_IFSOCK: return "socket";
	case 0: return "none";
	}
	return "bad type";
}

const char *dbg_ext_flags(u16 flags)
{
	static char buf[64];

	buf[0] = '\0';
	if (flags & STALEFS_EXT_UNWRITTEN)
		strcat(buf, "UNWRITTEN");
	if (flags & STALEFS_EXT_STALE)
		strcat(buf, buf[0] ? "|STALE" : "STALE");
	if (flags & ~STALEFS_EXT_FLAGS_ALL)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s0x%x", buf[0] ? "|" : "",
			 flags & ~STALEFS_EXT_FLAGS_ALL);
	return buf;
}

void dbg_time_string(s64 t, char *out, size_t len)
{
	stalefs_time_string(t, out, len);
}

struct find_name {
	u32 ino;
	char name[STALEFS_NAME_LEN + 1];
	bool found;
};

static int find_name_cb(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct find_name *f = priv;

	(void)fs;
	if (de->ino != f->ino || (de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	memcpy(f->name, de->name, de->name_len);
	f->name[de->name_len] = '\0';
	f->found = true;
	return 1;
}

void dbg_ino_path(u32 ino, char *out, size_t len)
{
	char tmp[4096];
	u32 cur = ino;
	int depth;

	out[0] = '\0';
	if (ino == STALEFS_ROOT_INO) {
		snprintf(out, len, "/");
		return;
	}
	tmp[0] = '\0';
	for (depth = 0; depth < 64 && cur != STALEFS_ROOT_INO; depth++) {
		struct find_name f = { .ino = cur };
		u32 parent;
		char next[4096];

		if (stalefs_lookup(dbg.fs, cur, "..", 2, &parent) ||
		    stalefs_dir_iterate(dbg.fs, parent, 0, find_name_cb, &f) || !f.found) {
			/* Not a directory (or a broken one): name unknown here. */
			snprintf(out, len, "<%u>%s", cur, tmp);
			return;
		}
		snprintf(next, sizeof(next), "/%s%s", f.name, tmp);
		memcpy(tmp, next, sizeof(tmp));
		cur = parent;
	}
	snprintf(out, len, "%s", tmp[0] ? tmp : "/");
}

bool dbg_confined(u32 gid, u16 mode)
{
	u32 sg = le32_to_cpu(dbg.fs->sb.s_stale_gid);

	return sg != STALEFS_STALE_GID_NONE && gid == sg && !(mode & STALEFS_S_IRWXO);
}

void json_strn(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void json_str(FILE *f, const char *s)
{
	json_strn(f, s, strlen(s));
}
