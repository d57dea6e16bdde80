// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: fsck.stalefs -fn over a mutated image.  The input is the
 * start of an image (seeds are corpus images cut after their last non-zero
 * block); the rest of a 1 MiB device reads as zeros.  The checker runs in
 * process; its exits come back here through fsck_exit_jmp.  Read-only by
 * construction (-n), so any crash, hang, leak or sanitizer report is a bug.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fsck.h"

#define DEVICE_BYTES (1u << 20)

static void quiet_com_err(const char *who, long code, const char *fmt, va_list args)
{
	(void)who;
	(void)code;
	(void)fmt;
	(void)args;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* The checker talks a lot; the sanitizers report on stderr, which stays. */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	set_com_err_hook(quiet_com_err);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	char *args[] = { "fsck.stalefs", "-fn", path, NULL };
	jmp_buf jb;
	int fd = memfd_create("stalefs-fuzz", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size > DEVICE_BYTES)
		size = DEVICE_BYTES;
	if (write(fd, data, size) != (ssize_t)size || ftruncate(fd, DEVICE_BYTES) != 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fsck_exit_jmp = &jb;
	if (setjmp(jb) == 0)
		fsck_main(3, args);
	fsck_exit_jmp = NULL;
	close(fd);
	return 0;
}
