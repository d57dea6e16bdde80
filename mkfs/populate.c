// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs -d: copy a directory tree into the new filesystem.  Regular files,
 * directories, symlinks, fifos, sockets and device nodes; modes, owners and
 * nanosecond times; sparse files stay sparse; hard links stay hard links;
 * extended attributes of the namespaces stalefs holds (FORMAT.md 14), others
 * skipped with a warning.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include "mkfs.h"

/*
 * Open without touching the source's atimes where we may (our own files, or
 * CAP_FOWNER): reading a directory in the counting pass would otherwise move
 * its atime before the copying pass records it.
 */
static int open_noatime(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, name, flags | O_NOATIME);

	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, flags);
	return fd;
}

/* ---- counting first ---- */

static errcode_t estimate_dir(int dirfd, char *path, size_t plen, size_t pcap, u32 bs,
			      struct populate_estimate *est)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	u64 dir_bytes = 24 + 12 + 12;	/* header, ".", ".." */
	errcode_t err = 0;

	if (!d) {
		close(dirfd);
		return errno;
	}
	while (!err && (errno = 0, de = readdir(d))) {
		struct stat st;
		size_t nlen = strlen(de->d_name);

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path + plen, pcap - plen, "/%s", de->d_name);
		if (nlen > STALEFS_NAME_LEN) {
			snprintf(est->bad_path, sizeof(est->bad_path), "%s", path);
			est->bad_reason = "file name longer than 255 bytes";
			err = STALEFS_ERR_NAME_TOO_LONG;
			break;
		}
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			snprintf(est->bad_path, sizeof(est->bad_path), "%s", path);
			err = errno;
			break;
		}
		dir_bytes += STALEFS_DIR_REC_LEN(nlen);
		est->inodes++;
		/* Attributes may need a block of their own (FORMAT.md 14): count one, generously. */
		if (llistxattr(path, NULL, 0) > 0)
			est->blocks++;
		if (S_ISREG(st.st_mode)) {
			u64 data = ((u64)st.st_blocks * 512 + bs - 1) / bs;
			u64 whole = ((u64)st.st_size + bs - 1) / bs;

			data = data < whole ? data : whole;
			est->blocks += data + data / 200;	/* tree nodes, generously */
		} else if (S_ISLNK(st.st_mode)) {
			if ((u64)st.st_size >= bs) {
				snprintf(est->bad_path, sizeof(est->bad_path), "%s", path);
				est->bad_reason = "symbolic link target longer than the block size";
				err = STALEFS_ERR_NAME_TOO_LONG;
				break;
			}
			est->blocks += st.st_size > STALEFS_INLINE_SYMLINK_MAX;
		} else if (S_ISDIR(st.st_mode)) {
			int sub = open_noatime(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub < 0) {
				snprintf(est->bad_path, sizeof(est->bad_path), "%s", path);
				err = errno;
				break;
			}
			err = estimate_dir(sub, path, plen + 1 + nlen < pcap ? plen + 1 + nlen : pcap - 1, pcap,
					   bs, est);
		}
	}
	if (!err && errno)
		err = errno;
	est->blocks += (dir_bytes + (bs - 24) - 1) / (bs - 24);
	path[plen] = '\0';
	closedir(d);
	return err;
}

errcode_t populate_estimate(const char *dir, u32 block_size, struct populate_estimate *est)
{
	char path[4096];
	int fd;

	memset(est, 0, sizeof(*est));
	snprintf(path, sizeof(path), "%s", dir);
	fd = open_noatime(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(est->bad_path, sizeof(est->bad_path), "%s", dir);
		return errno;
	}
	return estimate_dir(fd, path, strlen(path), sizeof(path), block_size, est);
}

/* ---- hard links: source (dev, ino) to our inode ---- */

struct link_map {
	struct { dev_t dev; ino_t ino; u32 ours; } *slot;
	size_t cap, used;
};

static u32 *link_find(struct link_map *m, dev_t dev, ino_t ino, bool insert)
{
	size_t i;

	if (insert && (m->used + 1) * 2 > m->cap) {
		struct link_map n = { NULL, m->cap ? m->cap * 2 : 1024, 0 };

		n.slot = calloc(n.cap, sizeof(*n.slot));
		if (!n.slot)
			return NULL;
		for (i = 0; i < m->cap; i++)
			if (m->slot[i].ours)
				*link_find(&n, m->slot[i].dev, m->slot[i].ino, true) = m->slot[i].ours;
		free(m->slot);
		*m = n;
	}
	if (!m->cap)
		return NULL;
	for (i = ((size_t)ino * 0x9E3779B97F4A7C15ULL + dev) % m->cap;; i = (i + 1) % m->cap) {
		if (m->slot[i].ours == 0) {
			if (!insert)
				return NULL;
			m->slot[i].dev = dev;
			m->slot[i].ino = ino;
			m->used++;
			return &m->slot[i].ours;
		}
		if (m->slot[i].dev == dev && m->slot[i].ino == ino)
			return &m->slot[i].ours;
	}
}

/* ---- copying ---- */

struct populate {
	stalefs_fs *fs;
	struct link_map links;
	char *failed;
	size_t failed_len;
	bool xattrs;		/* the filesystem has the xattr feature */
	char path[4096];
};

/* Give our inode the source's owner, mode and times. */
static errcode_t copy_attrs(stalefs_fs *fs, u32 ino, const struct stat *st)
{
	struct stalefs_inode inode;
	errcode_t err = stalefs_read_inode(fs, ino, &inode);

	if (err)
		return err;
	inode.i_mode = cpu_to_le16((u16)((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) | (st->st_mode & 07777)));
	inode.i_uid = cpu_to_le32((u32)st->st_uid);
	inode.i_gid = cpu_to_le32((u32)st->st_gid);
	inode.i_atime = cpu_to_le64((u64)st->st_atim.tv_sec);
	inode.i_atime_nsec = cpu_to_le32((u32)st->st_atim.tv_nsec);
	inode.i_mtime = cpu_to_le64((u64)st->st_mtim.tv_sec);
	inode.i_mtime_nsec = cpu_to_le32((u32)st->st_mtim.tv_nsec);
	inode.i_ctime = cpu_to_le64((u64)st->st_ctim.tv_sec);
	inode.i_ctime_nsec = cpu_to_le32((u32)st->st_ctim.tv_nsec);
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		inode.i_rdev = cpu_to_le32(stalefs_encode_dev(major(st->st_rdev), minor(st->st_rdev)));
	return stalefs_write_inode(fs, ino, &inode);
}

/* A source call that can fail because the value or list grew between the size query and
 * the read: ask again (a few times). */
static ssize_t list_names(const char *path, char **out)
{
	ssize_t n;

	for (int tries = 0; tries < 4; tries++) {
		n = llistxattr(path, NULL, 0);
		if (n <= 0)
			return n;
		*out = malloc((size_t)n);
		if (!*out) {
			errno = ENOMEM;
			return -1;
		}
		n = llistxattr(path, *out, (size_t)n);
		if (n >= 0 || errno != ERANGE)
			return n;
		free(*out);
		*out = NULL;
	}
	return -1;
}

static ssize_t get_value(const char *path, const char *name, char **out)
{
	ssize_t n;

	for (int tries = 0; tries < 4; tries++) {
		n = lgetxattr(path, name, NULL, 0);
		if (n < 0)
			return n;
		*out = malloc(n ? (size_t)n : 1);
		if (!*out) {
			errno = ENOMEM;
			return -1;
		}
		n = lgetxattr(path, name, *out, (size_t)n);
		if (n >= 0 || errno != ERANGE)
			return n;
		free(*out);
		*out = NULL;
	}
	return -1;
}

/*
 * Copy the source's extended attributes (p->path) to our inode: every one of a
 * namespace stalefs holds; another namespace is a warning, not a failure; a source
 * without xattr support has none.  A failure names the file and the attribute.
 */
static errcode_t copy_xattrs(struct populate *p, u32 ino)
{
	char *names = NULL, *value, *name;
	ssize_t len, vlen;
	size_t plen = strlen(p->path);
	errcode_t err = 0;
	u8 index;
	const char *suffix;

	len = list_names(p->path, &names);
	if (len < 0) {
		err = (errno == ENOTSUP || errno == ENOSYS) ? 0 : (errcode_t)errno;
		goto out;
	}
	if (len > 0 && !p->xattrs) {
		fprintf(stderr, "%s: warning: %s: extended attributes not copied: the filesystem has no xattr feature\n",
			program_name, p->path);
		goto out;
	}
	for (name = names; name < names + len; name += strlen(name) + 1) {
		if (!stalefs_xattr_split(name, &index, &suffix)) {
			fprintf(stderr, "%s: warning: %s: extended attribute %s skipped: stalefs holds only user., trusted., "
				"security. and the POSIX ACLs\n", program_name, p->path, name);
			continue;
		}
		value = NULL;
		vlen = get_value(p->path, name, &value);
		if (vlen < 0) {
			free(value);
			if (errno == ENODATA)
				continue;	/* removed since it was listed */
			err = errno;
		} else {
			err = stalefs_xattr_set(p->fs, ino, name, value, (size_t)vlen, 0);
			free(value);
		}
		if (err) {
			snprintf(p->path + plen, sizeof(p->path) - plen, ", extended attribute %s", name);
			break;
		}
	}
out:
	free(names);
	if (err && !p->failed[0])
		snprintf(p->failed, p->failed_len, "%s", p->path);
	p->path[plen] = '\0';
	return err;
}

static errcode_t add_hard_link(stalefs_fs *fs, u32 dir, const char *name, u32 ino, const struct stat *st)
{
	struct stalefs_inode inode;
	errcode_t err = stalefs_link(fs, dir, name, ino, stalefs_ft_from_mode((u16)st->st_mode));

	if (!err)
		err = stalefs_read_inode(fs, ino, &inode);
	if (!err) {
		inode.i_links_count = cpu_to_le16(le16_to_cpu(inode.i_links_count) + 1);
		err = stalefs_write_inode(fs, ino, &inode);
	}
	return err;
}

static errcode_t copy_entry(struct populate *p, int dirfd, u32 dir, const char *name, size_t plen);

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static errcode_t copy_dir(struct populate *p, int dirfd, u32 dir, size_t plen)
{
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	errcode_t err = 0;
	/* Our own descriptor (opened O_NOATIME): scandirat would reopen the directory without it. */
	int fd = dup(dirfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		err = errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	while ((errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (n == cap) {
			char **more = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));

			if (!more) {
				err = STALEFS_ERR_NO_MEMORY;
				break;
			}
			names = more;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			err = STALEFS_ERR_NO_MEMORY;
			break;
		}
		n++;
	}
	if (!err && errno)
		err = errno;
	closedir(d);
	/* Sorted, so the same tree always makes the same image. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		if (!err)
			err = copy_entry(p, dirfd, dir, names[i], plen);
		free(names[i]);
	}
	free(names);
	return err;
}

static errcode_t copy_entry(struct populate *p, int dirfd, u32 dir, const char *name, size_t plen)
{
	stalefs_fs *fs = p->fs;
	struct stat st;
	u32 ino = 0, *known = NULL;
	errcode_t err;
	size_t nplen;

	snprintf(p->path + plen, sizeof(p->path) - plen, "/%s", name);
	nplen = strlen(p->path);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno;
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		known = link_find(&p->links, st.st_dev, st.st_ino, false);
		if (known && *known) {
			err = add_hard_link(fs, dir, name, *known, &st);
			goto out;
		}
	}
	if (S_ISDIR(st.st_mode)) {
		int sub;

		err = stalefs_mkdir(fs, dir, name, (u16)(st.st_mode & 07777), (u32)st.st_uid, (u32)st.st_gid, &ino);
		if (err)
			goto out;
		sub = open_noatime(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			err = errno;
			goto out;
		}
		err = copy_dir(p, sub, ino, nplen);
		close(sub);
	} else if (S_ISLNK(st.st_mode)) {
		char target[4097];
		ssize_t len = readlinkat(dirfd, name, target, sizeof(target) - 1);

		if (len < 0) {
			err = errno;
			goto out;
		}
		target[len] = '\0';
		err = stalefs_symlink(fs, dir, name, target, (u32)st.st_uid, (u32)st.st_gid, &ino);
	} else if (S_ISREG(st.st_mode)) {
		int fd;

		err = stalefs_create(fs, dir, name, (u16)st.st_mode, (u32)st.st_uid, (u32)st.st_gid, &ino);
		if (err)
			goto out;
		if (st.st_size > 0) {
			fd = open_noatime(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				err = errno;
				goto out;
			}
			err = stalefs_file_write_from_fd(fs, ino, fd, (u64)st.st_size);
			close(fd);
		}
	} else if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		err = stalefs_create(fs, dir, name, (u16)st.st_mode, (u32)st.st_uid, (u32)st.st_gid, &ino);
	} else {
		err = STALEFS_ERR_BAD_ARGUMENT;
	}
	if (!err)
		err = copy_attrs(fs, ino, &st);
	if (!err)
		err = copy_xattrs(p, ino);
	if (!err && !S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		known = link_find(&p->links, st.st_dev, st.st_ino, true);
		if (!known)
			err = STALEFS_ERR_NO_MEMORY;
		else
			*known = ino;
	}
out:
	if (err && !p->failed[0])
		snprintf(p->failed, p->failed_len, "%s", p->path);
	p->path[plen] = '\0';
	return err;
}

errcode_t populate_fs(stalefs_fs *fs, const char *dir, char *failed, size_t failed_len)
{
	struct populate p;
	struct stat st;
	errcode_t err;
	int fd;

	memset(&p, 0, sizeof(p));
	p.fs = fs;
	p.failed = failed;
	p.failed_len = failed_len;
	p.xattrs = le32_to_cpu(fs->sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_XATTR;
	snprintf(p.path, sizeof(p.path), "%s", dir);
	fd = open_noatime(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(failed, failed_len, "%s", dir);
		return errno;
	}
	/* Names from readdir are unique: skip the existence lookups that would make this quadratic. */
	fs->names_known_unique = true;
	err = copy_dir(&p, fd, STALEFS_ROOT_INO, strlen(p.path));
	fs->names_known_unique = false;
	close(fd);
	if (!err)
		err = copy_attrs(fs, STALEFS_ROOT_INO, &st);
	if (!err) {
		snprintf(p.path, sizeof(p.path), "%s", dir);
		err = copy_xattrs(&p, STALEFS_ROOT_INO);
	}
	free(p.links.slot);
	return err;
}
