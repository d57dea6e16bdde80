/*
 * walk-fs: exercise a mounted (possibly damaged) filesystem in one process,
 * so a VM scenario pays for one exec per image instead of dozens.
 *
 *   walk-fs MOUNTPOINT
 *
 * 1. Walks the tree: lstat, readdir, readlink, reads regular files (hopping
 *    with SEEK_DATA/SEEK_HOLE, capped so a damaged i_size of 2^63 cannot
 *    make it read for hours), FIEMAP, lists and reads every entry's xattrs.
 * 2. Changes it: writes, fallocates, punches and truncates existing files,
 *    sets and removes xattrs (in the inode and in a block),
 *    creates, renames, links and removes files, directories and symlinks in
 *    existing directories, removes some existing files, and builds a
 *    fragmented new file (so allocation walks the damaged bitmaps and grows
 *    an extent tree), then syncfs.
 * 3. Walks the tree again.
 *
 * Failing calls are expected on a damaged image; each is printed with its
 * errno.  An errno that damage cannot explain (ENOMEM, EFAULT, ERANGE...)
 * points at a kernel bug: it is listed and makes the exit status 1.  Exit 2
 * is a usage error.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define MAX_DEPTH 24		/* a damaged directory graph may be deep or cyclic */
#define MAX_ENTRIES 20000	/* per walk: a damaged directory may list garbage */
#define READ_CAP (4 << 20)	/* bytes read per file */
#define MAX_SEGMENTS 64		/* data segments visited per file */
#define MAX_PICKS 8		/* existing files and directories changed */

struct picks {
	char *files[MAX_PICKS];
	char *dirs[MAX_PICKS];
	int nfiles, ndirs;
};

static struct {
	long dirs, files, links, others, bytes, ok, failed;
	long by_errno[256];
	int unexplained;
	long entries;
} st;

static char buf[1 << 16];

/* Errnos a damaged image, a full disk or a read-only remount explain. */
static int explained(int e)
{
	switch (e) {
	case EIO: case EUCLEAN: case EBADMSG: case ENOENT: case ENOTDIR:
	case EISDIR: case ENOTEMPTY: case EEXIST: case ENOSPC: case EROFS:
	case EPERM: case EACCES: case EFBIG: case EINVAL: case ELOOP:
	case EMLINK: case ESTALE: case EOVERFLOW: case ENXIO: case EOPNOTSUPP:
	case ENAMETOOLONG: case EXDEV: case EBUSY: case ENODATA:
		return 1;
	default:
		return 0;
	}
}

/* Record the outcome of one call; return its result unchanged. */
static long check(long rc, const char *op, const char *path)
{
	if (rc >= 0) {
		st.ok++;
		return rc;
	}
	int e = errno;
	st.failed++;
	st.by_errno[e & 255]++;
	if (!explained(e)) {
		st.unexplained++;
		printf("walk: UNEXPLAINED %s %s: %s\n", op, path, strerror(e));
	} else if (st.failed <= 12) {
		printf("walk: %s %s: %s\n", op, path, strerror(e));
	}
	errno = e;
	return rc;
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	if (!p) {
		perror("walk: malloc");
		exit(2);
	}
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static void fiemap(int fd, const char *path)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[32];
	} req;
	memset(&req, 0, sizeof(req));
	req.fm.fm_length = FIEMAP_MAX_OFFSET;
	req.fm.fm_extent_count = 32;
	check(ioctl(fd, FS_IOC_FIEMAP, &req), "fiemap", path);
}

static void read_file(const char *path)
{
	int fd = (int)check(open(path, O_RDONLY | O_NOFOLLOW), "open", path);
	if (fd < 0)
		return;
	off_t pos = 0;
	long total = 0;
	for (int seg = 0; seg < MAX_SEGMENTS && total < READ_CAP; seg++) {
		off_t data = lseek(fd, pos, SEEK_DATA);
		if (data < 0) {
			if (errno != ENXIO)	/* ENXIO: no data past pos */
				check(-1, "seek_data", path);
			break;
		}
		off_t hole = check(lseek(fd, data, SEEK_HOLE), "seek_hole", path);
		if (hole < 0 || hole <= data)
			break;
		off_t end = hole - data > (1 << 20) ? data + (1 << 20) : hole;
		for (off_t at = data; at < end && total < READ_CAP;) {
			size_t want = end - at < (off_t)sizeof(buf) ? (size_t)(end - at) : sizeof(buf);
			ssize_t n = check(pread(fd, buf, want, at), "read", path);
			if (n <= 0)
				break;
			at += n;
			total += n;
		}
		pos = hole;
	}
	/* A plain read from the start too: it maps without SEEK_DATA's help. */
	check(pread(fd, buf, sizeof(buf), 0), "read", path);
	fiemap(fd, path);
	st.bytes += total;
	close(fd);
}

/* Every attribute of path: the list, then each value (buffers as large as any can be). */
static void read_xattrs(const char *path)
{
	static char names[65536], value[65536];
	ssize_t n = check(llistxattr(path, names, sizeof(names)), "listxattr", path);

	for (ssize_t at = 0; n > 0 && at < n; at += (ssize_t)strlen(names + at) + 1)
		check(lgetxattr(path, names + at, value, sizeof(value)), "getxattr", path);
}

static void walk(const char *path, int depth, struct picks *pk)
{
	DIR *d = opendir(path);
	if (!d) {
		check(-1, "opendir", path);
		return;
	}
	st.ok++;
	st.dirs++;
	if (pk && pk->ndirs < MAX_PICKS)
		pk->dirs[pk->ndirs++] = strdup(path);
	struct dirent *de;
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				check(-1, "readdir", path);
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++st.entries > MAX_ENTRIES)
			break;
		char *p = join(path, de->d_name);
		struct stat sb;
		if (check(lstat(p, &sb), "lstat", p) == 0) {
			read_xattrs(p);
			if (S_ISDIR(sb.st_mode)) {
				if (depth < MAX_DEPTH)
					walk(p, depth + 1, pk);
			} else if (S_ISREG(sb.st_mode)) {
				st.files++;
				read_file(p);
				if (pk && pk->nfiles < MAX_PICKS) {
					pk->files[pk->nfiles++] = p;
					p = NULL;
				}
			} else if (S_ISLNK(sb.st_mode)) {
				st.links++;
				char target[4096];
				check(readlink(p, target, sizeof(target)), "readlink", p);
			} else {
				st.others++;
			}
		}
		free(p);
	}
	closedir(d);
}

static void write_at(int fd, off_t at, size_t len, const char *path)
{
	memset(buf, 0x5a, sizeof(buf));
	while (len > 0) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);
		if (check(pwrite(fd, buf, n, at), "write", path) < 0)
			return;
		at += n;
		len -= n;
	}
}

/* Change an existing file: everything that rewrites its extent tree. */
static void change_file(const char *path)
{
	int fd = (int)check(open(path, O_RDWR | O_NOFOLLOW), "open-rw", path);
	if (fd < 0)
		return;
	struct stat sb;
	off_t size = 0;
	if (check(fstat(fd, &sb), "fstat", path) == 0)
		size = sb.st_size;
	off_t mid = size > (64 << 20) ? (32 << 20) : (size / 2) & ~4095L;
	write_at(fd, 0, 4096, path);
	write_at(fd, mid, 8192, path);
	check(fallocate(fd, 0, mid + 65536, 65536), "fallocate", path);
	check(fallocate(fd, FALLOC_FL_KEEP_SIZE, (size & ~4095L) + 4096, 65536),
	      "fallocate-keep", path);
	check(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 4096, 12288),
	      "punch", path);
	check(fallocate(fd, FALLOC_FL_ZERO_RANGE, mid, 4096), "zero-range", path);
	check(ftruncate(fd, mid + 4096), "truncate", path);
	/* Small enough for the inode, then one only a block holds. */
	memset(buf, 0x78, 600);
	check(fsetxattr(fd, "user.walk.small", buf, 16, 0), "setxattr", path);
	check(fsetxattr(fd, "user.walk.large", buf, 600, 0), "setxattr", path);
	check(fremovexattr(fd, "user.walk.small"), "removexattr", path);
	check(fsync(fd), "fsync", path);
	close(fd);
}

static void make_file(const char *path, size_t len)
{
	int fd = (int)check(open(path, O_CREAT | O_EXCL | O_RDWR, 0644), "create", path);
	if (fd < 0)
		return;
	write_at(fd, 0, len, path);
	close(fd);	/* no fsync: the syncfs at the end writes it all back */
}

/* New names in an existing directory: add, rename, link, remove. */
static void change_dir(const char *dir)
{
	char *f = join(dir, "walk.f"), *d = join(dir, "walk.d"), *l = join(dir, "walk.l");
	char *g = join(d, "g"), *h = join(dir, "walk.h");
	make_file(f, 5000);
	check(mkdir(d, 0755), "mkdir", d);
	check(rename(f, g), "rename", f);
	check(link(g, h), "link", h);
	check(symlink("a-target-that-does-not-exist", l), "symlink", l);
	check(unlink(h), "unlink", h);
	check(unlink(g), "unlink", g);
	check(unlink(l), "unlink", l);
	check(rmdir(d), "rmdir", d);
	free(f), free(d), free(l), free(g), free(h);
}

/* A fresh subtree at the root: many names, a fragmented file, then half gone. */
static void new_tree(const char *root)
{
	char *top = join(root, "walk.new");
	check(mkdir(top, 0755), "mkdir", top);
	char name[64];
	for (int i = 0; i < 24; i++) {
		snprintf(name, sizeof(name), "file-with-a-longish-name-%03d", i);
		char *p = join(top, name);
		make_file(p, (size_t)(i % 5) * 3000);
		free(p);
	}
	char *frag = join(top, "frag");
	int fd = (int)check(open(frag, O_CREAT | O_RDWR, 0644), "create", frag);
	if (fd >= 0) {
		for (int i = 0; i < 200; i++)
			write_at(fd, (off_t)i * 8192, 1024, frag);
		check(fallocate(fd, 0, 4 << 20, 1 << 20), "fallocate", frag);
		check(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 65536), "punch", frag);
		check(fsync(fd), "fsync", frag);
		close(fd);
	}
	for (int i = 0; i < 24; i += 2) {
		snprintf(name, sizeof(name), "file-with-a-longish-name-%03d", i);
		char *p = join(top, name);
		check(unlink(p), "unlink", p);
		free(p);
	}
	free(frag);
	free(top);
}

/* The summary line; exit status 1 if a call failed with an errno nothing explains. */
static int report(void)
{
	printf("walk: %ld dirs, %ld files, %ld symlinks, %ld other, %ld bytes read; "
	       "%ld calls ok, %ld failed", st.dirs, st.files, st.links, st.others, st.bytes,
	       st.ok, st.failed);
	for (int e = 1; e < 256; e++)
		if (st.by_errno[e])
			printf(", %ld %s", st.by_errno[e], strerror(e));
	printf("\n");
	if (st.unexplained) {
		printf("walk: %d calls failed with an errno damage does not explain\n", st.unexplained);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: walk-fs MOUNTPOINT\n");
		return 2;
	}
	const char *root = argv[1];
	struct stat sb;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A failing device may make even the top unreachable: that is a failed
	 * call like any other, not a usage error. */
	if (check(stat(root, &sb), "stat", root) < 0)
		return report();
	if (!S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "walk-fs: %s: not a directory\n", root);
		return 2;
	}

	struct picks pk = { 0 };
	walk(root, 0, &pk);
	for (int i = 0; i < pk.nfiles; i++)
		change_file(pk.files[i]);
	for (int i = 0; i < pk.ndirs; i++)
		change_dir(pk.dirs[i]);
	/* Remove some existing files: every third one picked. */
	for (int i = 0; i < pk.nfiles; i += 3)
		check(unlink(pk.files[i]), "unlink", pk.files[i]);
	new_tree(root);
	int fd = open(root, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		check(syncfs(fd), "syncfs", root);
		close(fd);
	}
	st.entries = 0;
	walk(root, 0, NULL);
	return report();
}

