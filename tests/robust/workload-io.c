// SPDX-License-Identifier: GPL-2.0
/* Marks, copies and attribute lists the workloads and the checker share (workload-io.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>
#include <linux/dm-ioctl.h>
#include "workload-io.h"

void workload_vdie(const char *who, const char *fmt, va_list ap)
{
	int e = errno;

	fprintf(stderr, "%s: ", who);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(e));
	exit(1);
}

int dmlog_mark(int dm_control, const char *dm_name, const char *name)
{
	union {
		struct dm_ioctl io;
		unsigned char raw[sizeof(struct dm_ioctl) + sizeof(struct dm_target_msg) + 128];
	} u;
	struct dm_target_msg *msg = (struct dm_target_msg *)(u.raw + sizeof(struct dm_ioctl));

	memset(&u, 0, sizeof(u));
	u.io.version[0] = DM_VERSION_MAJOR;
	u.io.data_size = sizeof(u);
	u.io.data_start = sizeof(struct dm_ioctl);
	snprintf(u.io.name, sizeof(u.io.name), "%s", dm_name);
	snprintf(msg->message, 128, "mark %s", name);
	return ioctl(dm_control, DM_TARGET_MSG, &u) < 0 ? -1 : 0;
}

int copy_file_out(int dirfd, const char *path, const char *copy, void *buf, size_t bufsize)
{
	int in = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	int out = in < 0 ? -1 : open(copy, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n = 0;
	int rc = -1, e;

	if (in < 0 || out < 0)
		goto done;
	while ((n = read(in, buf, bufsize)) > 0)
		if (write(out, buf, (size_t)n) != n)
			goto done;
	if (n == 0)
		rc = 0;
done:
	e = errno;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && !rc) {
		e = errno;
		rc = -1;
	}
	errno = e;
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *user_xattrs_text(int fd)
{
	char names[8192], *sorted[256], *text;
	size_t n = 0, len = 0;
	ssize_t nl = flistxattr(fd, names, sizeof(names));

	if (nl < 0)
		return NULL;
	for (ssize_t i = 0; i < nl && n < 256; i += (ssize_t)strlen(names + i) + 1)
		if (!strncmp(names + i, "user.", 5))
			sorted[n++] = names + i;
	if (n)
		qsort(sorted, n, sizeof(sorted[0]), name_cmp);
	text = calloc(1, 1);
	for (size_t i = 0; text && i < n; i++) {
		unsigned char val[4096];
		ssize_t vl = fgetxattr(fd, sorted[i], val, sizeof(val));
		char *grown;

		if (vl < 0) {
			free(text);
			return NULL;
		}
		grown = realloc(text, len + strlen(sorted[i]) + 2 * (size_t)vl + 3);
		if (!grown) {
			free(text);
			return NULL;
		}
		text = grown;
		len += (size_t)sprintf(text + len, "%s ", sorted[i]);
		for (ssize_t b = 0; b < vl; b++)
			len += (size_t)sprintf(text + len, "%02x", val[b]);
		text[len++] = '\n';
		text[len] = 0;
	}
	return text;
}
