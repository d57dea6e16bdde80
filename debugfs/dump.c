// SPDX-License-Identifier: GPL-2.0
/* Getting data out: cat, dump [-p], rdump (a tree with modes, owners and times). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "debugfs.h"
#include "scan.h"

#define CHUNK (1u << 20)

/* Copy a file's bytes (i_size of them) to fd; holes and UNWRITTEN read as zeros. */
static errcode_t copy_out(u32 ino, const struct stalefs_inode *inode, int fd)
{
	u64 size = le64_to_cpu(inode->i_size), off = 0;
	char *buf = malloc(CHUNK);
	errcode_t err = 0;

	if (!buf)
		return STALEFS_ERR_NO_MEMORY;
	while (off < size && !err) {
		size_t want = size - off < CHUNK ? (size_t)(size - off) : CHUNK, got = 0, done = 0;

		err = stalefs_file_read(dbg.fs, ino, off, buf, want, &got);
		if (!err && got == 0)
			err = STALEFS_ERR_SHORT_READ;
		while (!err && done < got) {
			ssize_t n = write(fd, buf + done, got - done);

			if (n < 0 && errno != EINTR)
				err = errno;
			else if (n > 0)
				done += (size_t)n;
		}
		off += got;
	}
	free(buf);
	return err;
}

static errcode_t read_in_use(u32 ino, struct stalefs_inode *inode)
{
	return stalefs_read_inode(dbg.fs, ino, inode);
}

DBG_CMD(do_cat)
{
	struct stalefs_inode inode;
	u32 ino;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<file>") || !dbg_need_fs(argv[0]) ||
	    !dbg_name_to_ino_follow(argv[0], argv[1], true, &ino))
		return;
	err = read_in_use(ino, &inode);
	if (!err && (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR)
		err = STALEFS_ERR_IS_DIR;
	fflush(stdout);
	if (!err)
		err = copy_out(ino, &inode, STDOUT_FILENO);
	if (err)
		dbg_err(argv[0], err, "reading %s", argv[1]);
}

/* Owner, mode and times of the inode onto a host file (by fd or, for symlinks, by path). */
static void set_attrs(const char *cmd, int fd, const char *path, const struct stalefs_inode *inode, bool link)
{
	struct timespec ts[2] = {
		{ (time_t)le64_to_cpu(inode->i_atime), le32_to_cpu(inode->i_atime_nsec) % 1000000000 },
		{ (time_t)le64_to_cpu(inode->i_mtime), le32_to_cpu(inode->i_mtime_nsec) % 1000000000 },
	};
	uid_t uid = le32_to_cpu(inode->i_uid);
	gid_t gid = le32_to_cpu(inode->i_gid);
	int r;

	/* Only root may give files away; anyone else keeps them (as tar does). */
	if (geteuid() == 0) {
		r = fd >= 0 ? fchown(fd, uid, gid) : lchown(path, uid, gid);
		if (r < 0)
			fprintf(stderr, "%s: %s while setting the owner of %s\n", cmd, strerror(errno), path);
	}
	if (!link) {
		r = fd >= 0 ? fchmod(fd, le16_to_cpu(inode->i_mode) & 07777)
			    : chmod(path, le16_to_cpu(inode->i_mode) & 07777);
		if (r < 0)
			fprintf(stderr, "%s: %s while setting the mode of %s\n", cmd, strerror(errno), path);
	}
	r = fd >= 0 ? futimens(fd, ts) : utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		fprintf(stderr, "%s: %s while setting the times of %s\n", cmd, strerror(errno), path);
}

static bool dump_file(const char *cmd, u32 ino, const struct stalefs_inode *inode, const char *out, bool preserve)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	errcode_t err;

	if (fd < 0) {
		dbg_err(cmd, errno, "creating %s", out);
		return false;
	}
	err = copy_out(ino, inode, fd);
	if (!err && preserve)
		set_attrs(cmd, fd, out, inode, false);
	if (close(fd) < 0 && !err)
		err = errno;
	if (err) {
		dbg_err(cmd, err, "dumping inode %u to %s", ino, out);
		return false;
	}
	return true;
}

DBG_CMD(do_dump)
{
	struct stalefs_inode inode;
	bool preserve = false;
	u32 ino;
	int c;
	errcode_t err;

	(void)sci_idx; (void)info;
	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, "p")) != -1) {
		if (c != 'p') {
			dbg_usage(argv[0], "[-p] <file> <output_file>");
			return;
		}
		preserve = true;
	}
	if (argc - optind != 2) {
		dbg_usage(argv[0], "[-p] <file> <output_file>");
		return;
	}
	if (!dbg_need_fs(argv[0]) || !dbg_name_to_ino_follow(argv[0], argv[optind], true, &ino))
		return;
	err = read_in_use(ino, &inode);
	if (!err && (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR)
		err = STALEFS_ERR_IS_DIR;
	if (err) {
		dbg_err(argv[0], err, "reading %s", argv[optind]);
		return;
	}
	dump_file(argv[0], ino, &inode, argv[optind + 1], preserve);
}

/* ---- rdump ---- */
static bool rdump_inode(const char *cmd, u32 ino, const char *name, const char *dest, int depth);

struct rdump_ctx {
	const char *cmd;
	const char *dest;
	int depth;
	bool ok;
};

static int rdump_entry(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct rdump_ctx *c = priv;
	char name[STALEFS_NAME_LEN + 1];

	(void)fs;
	if ((de->name_len == 1 && de->name[0] == '.') || (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	memcpy(name, de->name, de->name_len);
	name[de->name_len] = '\0';
	if (!rdump_inode(c->cmd, de->ino, name, c->dest, c->depth + 1))
		c->ok = false;
	return 0;
}

static bool rdump_inode(const char *cmd, u32 ino, const char *name, const char *dest, int depth)
{
	struct stalefs_inode inode;
	char *path;
	u16 mode;
	bool ok = true;
	errcode_t err;

	if (depth > 256) {
		dbg_msg(cmd, "directory tree too deep (a loop?) at %s/%s", dest, name);
		return false;
	}
	err = read_in_use(ino, &inode);
	if (err) {
		dbg_err(cmd, err, "reading inode %u (%s)", ino, name);
		return false;
	}
	if (asprintf(&path, "%s/%s", dest, name) < 0) {
		dbg_err(cmd, STALEFS_ERR_NO_MEMORY, "building a path");
		return false;
	}
	mode = le16_to_cpu(inode.i_mode);
	switch (mode & STALEFS_S_IFMT) {
	case STALEFS_S_IFREG:
		ok = dump_file(cmd, ino, &inode, path, true);
		break;
	case STALEFS_S_IFLNK: {
		char target[STALEFS_SYMLINK_MAX + 1];

		err = stalefs_read_symlink(dbg.fs, ino, target, sizeof(target));
		if (!err && symlink(target, path) < 0)
			err = errno;
		if (err) {
			dbg_err(cmd, err, "dumping symlink %s", path);
			ok = false;
		} else {
			set_attrs(cmd, -1, path, &inode, true);
		}
		break;
	}
	case STALEFS_S_IFDIR: {
		struct rdump_ctx c = { .cmd = cmd, .dest = path, .depth = depth, .ok = true };
		int fd;

		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			dbg_err(cmd, errno, "making directory %s", path);
			ok = false;
			break;
		}
		if (dbg_dir_iterate(cmd, ino, false, rdump_entry, &c)) {
			dbg_fail();	/* the damaged blocks were named; the rest was dumped */
			ok = false;
		}
		ok = ok && c.ok;
		/* Attributes last: the mode may forbid writing and the entries change mtime. */
		fd = open(path, O_RDONLY | O_DIRECTORY);
		if (fd >= 0) {
			set_attrs(cmd, fd, path, &inode, false);
			close(fd);
		}
		break;
	}
	case STALEFS_S_IFCHR:
	case STALEFS_S_IFBLK:
	case STALEFS_S_IFIFO:
	case STALEFS_S_IFSOCK: {
		u32 rdev = le32_to_cpu(inode.i_rdev);
		dev_t dev = makedev((rdev & 0xfff00) >> 8, (rdev & 0xff) | ((rdev >> 12) & 0xfff00));

		if (mknod(path, (mode_t)mode, dev) < 0) {
			fprintf(stderr, "%s: %s while making special file %s (skipped)\n", cmd, strerror(errno), path);
		} else {
			set_attrs(cmd, -1, path, &inode, false);
		}
		break;
	}
	default:
		dbg_msg(cmd, "inode %u (%s) has an invalid mode 0%o", ino, name, mode);
		ok = false;
	}
	free(path);
	return ok;
}

DBG_CMD(do_rdump)
{
	struct stat st;
	const char *dest;
	int i;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 2, -1, "<directory>... <native directory>") || !dbg_need_fs(argv[0]))
		return;
	dest = argv[argc - 1];
	if (stat(dest, &st) < 0 || !S_ISDIR(st.st_mode)) {
		dbg_msg(argv[0], "%s is not a directory", dest);
		return;
	}
	for (i = 1; i < argc - 1; i++) {
		u32 ino;
		const char *base = strrchr(argv[i], '/');
		char name[STALEFS_NAME_LEN + 2];

		if (!dbg_name_to_ino(argv[0], argv[i], &ino))
			continue;
		base = base ? base + 1 : argv[i];
		/* "/" (or a trailing slash) dumps as "root", as e2fsprogs' rdump does. */
		snprintf(name, sizeof(name), "%s", *base ? base : "root");
		rdump_inode(argv[0], ino, name, dest, 0);
	}
}
