/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the recorded workloads (cache-workload, stress-workload) and the
 * promise checker share: a mark in the dm-log-writes log without an exec of
 * dmsetup, the copy of what a file reads, and a file's user attributes in
 * the one text form promises.h compares.  Each returns 0 (or the text), or
 * -1 (NULL) with errno set; the caller names what failed.
 */
#ifndef ROBUST_WORKLOAD_IO_H
#define ROBUST_WORKLOAD_IO_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* "WHO: <what>: <strerror(errno)>" on stderr, then exit 1: a workload's call failed. */
_Noreturn void workload_vdie(const char *who, const char *fmt, va_list ap);

/* The workloads' seeded generator (xorshift64): the same seed, the same run. */
static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* "dmsetup message DM_NAME 0 mark NAME" through /dev/mapper/control (dm_control, open). */
int dmlog_mark(int dm_control, const char *dm_name, const char *name);
/* What dirfd/path reads, into a new file copy (buf: bufsize bytes of scratch). */
int copy_file_out(int dirfd, const char *path, const char *copy, void *buf, size_t bufsize);
/*
 * The user.* attributes of the open file fd as "NAME HEXVALUE" lines sorted
 * by name (malloc'd; "" when there are none), or NULL with errno set.
 */
char *user_xattrs_text(int fd);

#endif
