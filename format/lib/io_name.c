// SPDX-License-Identifier: GPL-2.0
/*
 * Image names: PATH, or PATH?offset=N[&size=M] for a filesystem that starts
 * N bytes into PATH (a partition inside a whole-disk image or device) and,
 * with size=, ends M bytes later, or PATH?part=N for partition N of PATH's
 * partition table (found when it is opened).  Every tool opens through
 * stalefs_io_open, so every tool accepts the forms.
 *
 * The rule for a '?' in a name: a name that exists as it is (a file, a
 * device, a directory) is that path, whatever it contains.  Only a name
 * that does not exist is split, at its last '?', and only when the part
 * before it exists: then the part after it must be a region, or the name is
 * refused as a bad region (the user meant one).  Anything else is a plain
 * path that does not exist, and opening it fails with ENOENT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "libstalefs.h"
#include "lib_internal.h"

/* One key=value of the region: offset or size, each at most once, or part alone. */
static errcode_t parse_item(const char *item, size_t len, struct stalefs_io_name *n, bool *seen_off,
			    bool *seen_size)
{
	char buf[64];
	const char *eq = memchr(item, '=', len);
	size_t klen;
	u64 v;

	if (!eq || len >= sizeof(buf))
		return STALEFS_ERR_BAD_REGION;
	klen = (size_t)(eq - item);
	memcpy(buf, eq + 1, len - klen - 1);
	buf[len - klen - 1] = '\0';
	if (stalefs_parse_size(buf, &v))
		return STALEFS_ERR_BAD_REGION;
	if (klen == 6 && memcmp(item, "offset", 6) == 0 && !*seen_off) {
		n->offset = v;
		*seen_off = true;
		return 0;
	}
	if (klen == 4 && memcmp(item, "part", 4) == 0 && !n->part) {
		if (v == 0 || v > 0xFFFFFFFFull)
			return STALEFS_ERR_BAD_REGION;
		n->part = (u32)v;
		return 0;
	}
	if (klen == 4 && memcmp(item, "size", 4) == 0 && !*seen_size) {
		if (v == 0)
			return STALEFS_ERR_BAD_REGION;
		n->size = v;
		*seen_size = true;
		return 0;
	}
	return STALEFS_ERR_BAD_REGION;
}

static errcode_t parse_region(const char *spec, struct stalefs_io_name *n)
{
	bool seen_off = false, seen_size = false;
	const char *p = spec;
	errcode_t err;

	while (*p) {
		const char *amp = strchr(p, '&');
		size_t len = amp ? (size_t)(amp - p) : strlen(p);

		err = parse_item(p, len, n, &seen_off, &seen_size);
		if (err)
			return err;
		p += len;
		if (amp && !*++p)
			return STALEFS_ERR_BAD_REGION;	/* a trailing '&' */
	}
	/* The offset, or the partition, says where the filesystem is: one of them, not both. */
	if (seen_off == !!n->part || (n->part && seen_size))
		return STALEFS_ERR_BAD_REGION;
	if (seen_size && n->offset + n->size < n->offset)
		return STALEFS_ERR_BAD_REGION;
	return 0;
}

errcode_t stalefs_io_parse_name(const char *name, struct stalefs_io_name *n)
{
	const char *q = strrchr(name, '?');
	struct stat st;
	errcode_t err;

	memset(n, 0, sizeof(*n));
	if (q && stat(name, &st) < 0 && errno == ENOENT) {
		char *path = strndup(name, (size_t)(q - name));

		if (!path)
			return STALEFS_ERR_NO_MEMORY;
		if (*path && stat(path, &st) == 0) {
			err = parse_region(q + 1, n);
			if (err) {
				free(path);
				memset(n, 0, sizeof(*n));
				return err;
			}
			n->path = path;
			n->region = true;
			return 0;
		}
		free(path);
	}
	n->path = strdup(name);
	return n->path ? 0 : STALEFS_ERR_NO_MEMORY;
}

void stalefs_io_name_free(struct stalefs_io_name *n)
{
	free(n->path);
	memset(n, 0, sizeof(*n));
}

bool stalefs_io_error(errcode_t err)
{
	return (err > 0 && err < 4096) || err == STALEFS_ERR_MOUNTED || err == STALEFS_ERR_BAD_REGION ||
	       err == STALEFS_ERR_REGION_OUTSIDE || err == STALEFS_ERR_NO_PARTITION_TABLE ||
	       err == STALEFS_ERR_NO_PARTITION || err == STALEFS_ERR_BAD_PARTITION || err == STALEFS_ERR_EWF_OPEN ||
	       err == STALEFS_ERR_EWF_READ || err == STALEFS_ERR_EWF_READ_ONLY;
}
