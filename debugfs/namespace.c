// SPDX-License-Identifier: GPL-2.0
/*
 * Changing the namespace and file contents: write, mkdir, rm, rmdir,
 * link/unlink (directory entries only, link counts untouched, as in
 * e2fsprogs), symlink, fallocate, punch.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <unistd.h>
#include <sys/stat.h>
#include "debugfs.h"

static bool parent_of(const char *cmd, const char *path, u32 *dir, const char **name)
{
	errcode_t err = stalefs_namei_parent(dbg.fs, dbg.cwd, path, dir, name);

	if (err) {
		dbg_err(cmd, err, "looking up the directory of %s", path);
		return false;
	}
	if (!**name) {
		dbg_msg(cmd, "no file name in %s", path);
		return false;
	}
	return true;
}

DBG_CMD(do_write)
{
	struct stat st;
	const char *name;
	u32 dir, ino;
	int fd;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 2, 2, "<native file> <new file>") || !dbg_need_rw(argv[0]) ||
	    !dbg_need_bitmaps(argv[0]))
		return;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		dbg_err(argv[0], errno, "opening %s", argv[1]);
		if (fd >= 0)
			close(fd);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		dbg_msg(argv[0], "%s is not a regular file", argv[1]);
		close(fd);
		return;
	}
	if (!parent_of(argv[0], argv[2], &dir, &name)) {
		close(fd);
		return;
	}
	err = stalefs_create(dbg.fs, dir, name, (u16)(STALEFS_S_IFREG | (st.st_mode & 07777)), st.st_uid,
			     st.st_gid, &ino);
	if (err) {
		close(fd);
		dbg_err(argv[0], err, "creating %s", argv[2]);
		return;
	}
	err = stalefs_file_write_from_fd(dbg.fs, ino, fd, (u64)st.st_size);
	close(fd);
	if (err) {
		dbg_err(argv[0], err, "writing %s into %s", argv[1], argv[2]);
		/* No half-created file: the new name and inode go again. */
		if (stalefs_unlink(dbg.fs, dir, name, NULL) == 0)
			stalefs_drop_link(dbg.fs, ino);
		return;
	}
	printf("Allocated inode: %u\n", ino);
}

DBG_CMD(do_mkdir)
{
	const char *name;
	u32 dir, ino;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<filename>") || !dbg_need_rw(argv[0]) || !dbg_need_bitmaps(argv[0]) ||
	    !parent_of(argv[0], argv[1], &dir, &name))
		return;
	err = stalefs_mkdir(dbg.fs, dir, name, 0755, 0, 0, &ino);
	if (err)
		dbg_err(argv[0], err, "creating directory %s", argv[1]);
}

static bool read_mode(const char *cmd, u32 ino, u16 *mode)
{
	struct stalefs_inode inode;
	errcode_t err = stalefs_read_inode(dbg.fs, ino, &inode);

	if (err) {
		dbg_err(cmd, err, "reading inode %u", ino);
		return false;
	}
	*mode = le16_to_cpu(inode.i_mode);
	return true;
}

DBG_CMD(do_rm)
{
	const char *name;
	u32 dir, ino;
	u16 mode;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<filename>") || !dbg_need_rw(argv[0]) || !dbg_need_bitmaps(argv[0]) ||
	    !parent_of(argv[0], argv[1], &dir, &name))
		return;
	err = stalefs_lookup(dbg.fs, dir, name, strlen(name), &ino);
	if (err) {
		dbg_err(argv[0], err, "looking up %s", argv[1]);
		return;
	}
	if (!read_mode(argv[0], ino, &mode))
		return;
	if ((mode & STALEFS_S_IFMT) == STALEFS_S_IFDIR) {
		dbg_msg(argv[0], "file is a directory (use rmdir)");
		return;
	}
	err = stalefs_unlink(dbg.fs, dir, name, &ino);
	if (!err)
		err = stalefs_drop_link(dbg.fs, ino);
	if (err)
		dbg_err(argv[0], err, "removing %s", argv[1]);
}

DBG_CMD(do_rmdir)
{
	struct stalefs_inode parent;
	const char *name;
	u32 dir, ino;
	u16 mode;
	bool empty;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<filename>") || !dbg_need_rw(argv[0]) || !dbg_need_bitmaps(argv[0]) ||
	    !parent_of(argv[0], argv[1], &dir, &name))
		return;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		dbg_msg(argv[0], "cannot remove %s", name);
		return;
	}
	err = stalefs_lookup(dbg.fs, dir, name, strlen(name), &ino);
	if (err) {
		dbg_err(argv[0], err, "looking up %s", argv[1]);
		return;
	}
	if (!read_mode(argv[0], ino, &mode))
		return;
	if ((mode & STALEFS_S_IFMT) != STALEFS_S_IFDIR) {
		dbg_msg(argv[0], "file is not a directory");
		return;
	}
	err = stalefs_dir_is_empty(dbg.fs, ino, &empty);
	if (err) {
		dbg_err(argv[0], err, "reading directory %s", argv[1]);
		return;
	}
	if (!empty) {
		dbg_msg(argv[0], "directory not empty");
		return;
	}
	err = stalefs_unlink(dbg.fs, dir, name, &ino);
	if (!err)
		err = stalefs_delete_inode(dbg.fs, ino);
	/* Its ".." no longer counts against the parent. */
	if (!err)
		err = stalefs_read_inode(dbg.fs, dir, &parent);
	if (!err) {
		u16 links = le16_to_cpu(parent.i_links_count);

		if (links > 2)
			parent.i_links_count = cpu_to_le16(links - 1);
		stalefs_inode_set_times_now(&parent, false, true, true);
		err = stalefs_write_inode(dbg.fs, dir, &parent);
	}
	if (err)
		dbg_err(argv[0], err, "removing directory %s", argv[1]);
}

/* kill_file: free the inode and its blocks as a deletion would, but leave every
 * name pointing at it (e2fsprogs' kill_file): a dangling entry for fsck to find. */
DBG_CMD(do_kill_file)
{
	u32 ino;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<file>") || !dbg_need_rw(argv[0]) || !dbg_need_bitmaps(argv[0]) ||
	    !dbg_name_to_ino(argv[0], argv[1], &ino))
		return;
	err = stalefs_delete_inode(dbg.fs, ino);
	if (err)
		dbg_err(argv[0], err, "killing inode %u", ino);
}

DBG_CMD(do_link)
{
	const char *name, *base;
	u32 src, dir, target;
	u16 mode;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 2, 2, "<source file> <dest_name>") || !dbg_need_rw(argv[0]) ||
	    !dbg_name_to_ino(argv[0], argv[1], &src) || !read_mode(argv[0], src, &mode))
		return;
	/* An existing directory as destination: link under the source's own name. */
	if (stalefs_namei(dbg.fs, dbg.cwd, argv[2], true, &target) == 0) {
		u16 tmode;

		if (!read_mode(argv[0], target, &tmode))
			return;
		if ((tmode & STALEFS_S_IFMT) != STALEFS_S_IFDIR) {
			dbg_err(argv[0], STALEFS_ERR_EXISTS, "linking %s", argv[2]);
			return;
		}
		base = strrchr(argv[1], '/');
		base = base ? base + 1 : argv[1];
		if (base[0] == '<') {
			dbg_msg(argv[0], "give the new name: %s is an inode number", argv[1]);
			return;
		}
		dir = target;
		name = base;
	} else if (!parent_of(argv[0], argv[2], &dir, &name)) {
		return;
	}
	err = stalefs_link(dbg.fs, dir, name, src, stalefs_ft_from_mode(mode));
	if (err)
		dbg_err(argv[0], err, "linking %s", argv[2]);
}

DBG_CMD(do_unlink)
{
	const char *name;
	u32 dir, ino;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<pathname>") || !dbg_need_rw(argv[0]) ||
	    !parent_of(argv[0], argv[1], &dir, &name))
		return;
	err = stalefs_unlink(dbg.fs, dir, name, &ino);
	if (err)
		dbg_err(argv[0], err, "unlinking %s", argv[1]);
}

DBG_CMD(do_symlink)
{
	const char *name;
	u32 dir, ino;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 2, 2, "<filename> <target>") || !dbg_need_rw(argv[0]) ||
	    !dbg_need_bitmaps(argv[0]) || !parent_of(argv[0], argv[1], &dir, &name))
		return;
	err = stalefs_symlink(dbg.fs, dir, name, argv[2], 0, 0, &ino);
	if (err)
		dbg_err(argv[0], err, "creating symlink %s", argv[1]);
}

/*
 * fallocate [--no-hide-stale] FILE START END: allocate logical blocks
 * START..END (inclusive) as UNWRITTEN, or STALE with --no-hide-stale -- the
 * offline twin of the kernel's ioctl, without its permission checks, so that
 * unconfined states can be built for fsck's tests.
 */
DBG_CMD(do_fallocate)
{
	static const char usage[] = "[--no-hide-stale] <file> <start_blk> <end_blk>";
	int i = 1;
	bool stale = false;
	u32 ino, start, end;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (argc > 1 && strcmp(argv[1], "--no-hide-stale") == 0) {
		stale = true;
		i++;
	}
	if (argc - i != 3) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]) || !dbg_need_bitmaps(argv[0]) || !dbg_name_to_ino(argv[0], argv[i], &ino) ||
	    !dbg_parse_u32(argv[0], argv[i + 1], "start block", &start) ||
	    !dbg_parse_u32(argv[0], argv[i + 2], "end block", &end))
		return;
	if (end < start) {
		dbg_msg(argv[0], "end block %u is before start block %u", end, start);
		return;
	}
	if (end == 0xFFFFFFFFu) {
		dbg_err(argv[0], STALEFS_ERR_FILE_TOO_BIG, "allocating blocks %u..%u", start, end);
		return;
	}
	err = stalefs_fallocate(dbg.fs, ino, start, end - start + 1, stale);
	if (err)
		dbg_err(argv[0], err, "allocating blocks %u..%u of %s", start, end, argv[i]);
}

DBG_CMD(do_punch)
{
	u32 ino, start, end = 0xFFFFFFFEu;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 2, 3, "<file> <start_blk> [end_blk]") || !dbg_need_rw(argv[0]) ||
	    !dbg_need_bitmaps(argv[0]) || !dbg_name_to_ino(argv[0], argv[1], &ino) ||
	    !dbg_parse_u32(argv[0], argv[2], "start block", &start) ||
	    (argc > 3 && !dbg_parse_u32(argv[0], argv[3], "end block", &end)))
		return;
	if (end < start) {
		dbg_msg(argv[0], "end block %u is before start block %u", end, start);
		return;
	}
	if (end > 0xFFFFFFFEu)
		end = 0xFFFFFFFEu;
	err = stalefs_punch(dbg.fs, ino, start, end - start + 1);
	if (err)
		dbg_err(argv[0], err, "punching blocks %u..%u of %s", start, end, argv[1]);
}
