// SPDX-License-Identifier: GPL-2.0
/*
 * An LD_PRELOAD shim for tests/fsck/f_dir_read_error: a bad spot on a disk image.
 * pread/pread64 on the file STALEFS_EIO_FILE (the same inode, whatever the path) fail
 * with EIO when they touch the bytes [STALEFS_EIO_OFFSET, +STALEFS_EIO_LENGTH).
 * Writes pass through (a disk remaps a bad sector when it is written).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int bad(int fd, size_t len, off_t off)
{
	static int ready;
	static struct stat target;
	static unsigned long long start, length;
	struct stat st;
	const char *s;

	if (!ready) {
		ready = 1;
		s = getenv("STALEFS_EIO_FILE");
		if (!s || stat(s, &target) != 0)
			ready = -1;
		s = getenv("STALEFS_EIO_OFFSET");
		start = s ? strtoull(s, NULL, 0) : 0;
		s = getenv("STALEFS_EIO_LENGTH");
		length = s ? strtoull(s, NULL, 0) : 0;
	}
	if (ready < 0 || !length || len == 0 || fstat(fd, &st) != 0)
		return 0;
	if (st.st_dev != target.st_dev || st.st_ino != target.st_ino)
		return 0;
	return (unsigned long long)off < start + length && (unsigned long long)off + len > start;
}

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

/* A read of the bad spot fails; any other goes to the libc function called name. */
static ssize_t faulty_read(const char *name, pread_fn *real, int fd, void *buf, size_t len, off_t off)
{
	if (bad(fd, len, off)) {
		errno = EIO;
		return -1;
	}
	if (!*real)
		*real = (pread_fn)dlsym(RTLD_NEXT, name);
	return (*real)(fd, buf, len, off);
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	static pread_fn real;

	return faulty_read("pread", &real, fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	static pread_fn real;

	return faulty_read("pread64", &real, fd, buf, len, off);
}
