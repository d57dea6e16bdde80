// SPDX-License-Identifier: GPL-2.0
/* Path names to inode numbers, following symlinks as the kernel would. */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

#define MAX_SYMLINK_DEPTH 8

static errcode_t walk(stalefs_fs *fs, u32 cwd, const char *path, bool follow, int depth, u32 *ret);

static errcode_t follow_link(stalefs_fs *fs, u32 dir, u32 ino, int depth, u32 *ret)
{
	struct stalefs_inode inode;
	char *target;
	errcode_t err;

	err = stalefs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	if ((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFLNK) {
		*ret = ino;
		return 0;
	}
	if (depth >= MAX_SYMLINK_DEPTH)
		return STALEFS_ERR_SYMLINK_LOOP;
	target = stalefs_xmalloc(fs->block_size + 1);
	err = stalefs_read_symlink(fs, ino, target, fs->block_size + 1);
	if (!err)
		err = walk(fs, dir, target, true, depth + 1, ret);
	free(target);
	return err;
}

static errcode_t walk(stalefs_fs *fs, u32 cwd, const char *path, bool follow, int depth, u32 *ret)
{
	u32 dir = path[0] == '/' ? STALEFS_ROOT_INO : cwd, ino = dir;
	const char *p = path;
	errcode_t err;

	while (*p) {
		const char *end;
		size_t len;
		bool last;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchr(p, '/');
		len = end ? (size_t)(end - p) : strlen(p);
		last = !end || end[strspn(end, "/")] == '\0';
		if (len > STALEFS_NAME_LEN)
			return STALEFS_ERR_NAME_TOO_LONG;
		err = stalefs_lookup(fs, dir, p, len, &ino);
		if (err)
			return err;
		if (!last || follow) {
			err = follow_link(fs, dir, ino, depth, &ino);
			if (err)
				return err;
		}
		dir = ino;
		p += len;
	}
	*ret = ino;
	return 0;
}

errcode_t stalefs_namei(stalefs_fs *fs, u32 cwd, const char *path, bool follow, u32 *ino)
{
	if (!path || !*path)
		return STALEFS_ERR_NOT_FOUND;
	return walk(fs, cwd, path, follow, 0, ino);
}

errcode_t stalefs_namei_parent(stalefs_fs *fs, u32 cwd, const char *path, u32 *dir, const char **name)
{
	const char *slash = strrchr(path, '/');
	char *parent;
	errcode_t err;

	if (!slash) {
		*dir = cwd;
		*name = path;
		return *path ? 0 : STALEFS_ERR_BAD_NAME;
	}
	if (slash[1] == '\0')
		return STALEFS_ERR_BAD_NAME;
	*name = slash + 1;
	if (slash == path) {
		*dir = STALEFS_ROOT_INO;
		return 0;
	}
	parent = strndup(path, (size_t)(slash - path));
	if (!parent)
		return STALEFS_ERR_NO_MEMORY;
	err = stalefs_namei(fs, cwd, parent, true, dir);
	free(parent);
	return err;
}
