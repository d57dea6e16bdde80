// SPDX-License-Identifier: GPL-2.0
/*
 * EWF (Expert Witness / EnCase .E01) images, read through libewf: the io
 * layer's other source of bytes besides a file descriptor.  An examiner's
 * image is evidence, so it is only ever read: the io layer refuses to open
 * one for writing, and overlay mode (fsck -n replaying a journal) keeps its
 * writes in memory as it does for any read-only device.
 *
 * The first segment (.E01) is recognised by its signature; libewf's glob
 * finds the others (.E02, ...) beside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <libewf.h>
#include "libstalefs.h"
#include "lib_internal.h"

struct stalefs_ewf {
	libewf_handle_t *handle;
	u64 size;
	char md5[33], sha1[41];
};

/* "EVF\t\r\n\xff\0": EWF version 1 (E01, also what ewfacquire writes); "EVF2" for Ex01. */
bool stalefs_ewf_signature(int fd)
{
	static const u8 evf1[8] = { 'E', 'V', 'F', 0x09, 0x0d, 0x0a, 0xff, 0x00 };
	static const u8 evf2[8] = { 'E', 'V', 'F', '2', 0x0d, 0x0a, 0x81, 0x00 };
	u8 sig[8];

	return pread(fd, sig, sizeof(sig), 0) == (ssize_t)sizeof(sig) &&
	       (!memcmp(sig, evf1, sizeof(sig)) || !memcmp(sig, evf2, sizeof(sig)));
}

static void hash_value(libewf_handle_t *h, const char *id, char *out, size_t len)
{
	libewf_error_t *e = NULL;

	out[0] = '\0';
	if (libewf_handle_get_utf8_hash_value(h, (const uint8_t *)id, strlen(id), (uint8_t *)out, len, &e) != 1)
		out[0] = '\0';
	libewf_error_free(&e);
}

errcode_t stalefs_ewf_open(const char *path, struct stalefs_ewf **ret)
{
	struct stalefs_ewf *ewf = stalefs_xcalloc(1, sizeof(*ewf));
	libewf_error_t *e = NULL;
	char **names = NULL;
	int count = 0;
	size64_t size = 0;
	errcode_t err = STALEFS_ERR_EWF_OPEN;

	if (libewf_glob(path, strlen(path), LIBEWF_FORMAT_UNKNOWN, &names, &count, &e) != 1 || count < 1)
		goto out;
	if (libewf_handle_initialize(&ewf->handle, &e) != 1)
		goto out;
	if (libewf_handle_open(ewf->handle, names, count, LIBEWF_OPEN_READ, &e) != 1)
		goto out;
	/* A set with a segment missing or cut short opens, and reads zeros where it is:
	 * evidence with holes the examiner must hear about, not silently read. */
	if (libewf_handle_segment_files_corrupted(ewf->handle, &e) != 0)
		goto out;
	if (libewf_handle_set_read_zero_chunk_on_error(ewf->handle, 0, &e) != 1)
		goto out;
	if (libewf_handle_get_media_size(ewf->handle, &size, &e) != 1)
		goto out;
	ewf->size = size;
	hash_value(ewf->handle, "MD5", ewf->md5, sizeof(ewf->md5));
	hash_value(ewf->handle, "SHA1", ewf->sha1, sizeof(ewf->sha1));
	err = 0;
out:
	libewf_error_free(&e);
	if (names)
		libewf_glob_free(names, count, NULL);
	if (err) {
		stalefs_ewf_close(ewf);
		return err;
	}
	*ret = ewf;
	return 0;
}

errcode_t stalefs_ewf_pread(struct stalefs_ewf *ewf, u64 off, size_t len, void *buf, size_t *got)
{
	libewf_error_t *e = NULL;
	ssize_t n;

	*got = 0;
	if (off >= ewf->size)
		return 0;
	if (len > ewf->size - off)
		len = (size_t)(ewf->size - off);
	n = libewf_handle_read_random(ewf->handle, buf, len, (off64_t)off, &e);
	libewf_error_free(&e);
	if (n < 0)
		return STALEFS_ERR_EWF_READ;
	*got = (size_t)n;
	return 0;
}

u64 stalefs_ewf_size(const struct stalefs_ewf *ewf)
{
	return ewf->size;
}

void stalefs_ewf_hashes(const struct stalefs_ewf *ewf, char md5[33], char sha1[41])
{
	memcpy(md5, ewf->md5, sizeof(ewf->md5));
	memcpy(sha1, ewf->sha1, sizeof(ewf->sha1));
}

void stalefs_ewf_close(struct stalefs_ewf *ewf)
{
	if (!ewf)
		return;
	if (ewf->handle) {
		libewf_handle_close(ewf->handle, NULL);
		libewf_handle_free(&ewf->handle, NULL);
	}
	free(ewf);
}
