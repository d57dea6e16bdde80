// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: fsck.stalefs -fn over a mutated image (with
 * STALEFS_FUZZ_REPAIR=1 in the environment: -fy, then -fn on the result,
 * which must be clean whenever the first run corrected everything).  The input is the
 * start of an image (seeds are corpus images cut after their last non-zero
 * block); the rest of a 2 MiB device reads as zeros.  The checker runs in
 * process; its exits come back here through fsck_exit_jmp.  Read-only by
 * construction (-n), so any crash, hang, leak or sanitizer report is a bug.
 * The device is 2 MiB so that an image can hold a journal (1024 blocks at
 * 1 KiB, jbd2's least) and the replay, the overlay and orphans are fuzzed too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdbool.h>
#include "fsck.h"

#define DEVICE_BYTES (2u << 20)

static void quiet_com_err(const char *who, long code, const char *fmt, va_list args)
{
	(void)who;
	(void)code;
	(void)fmt;
	(void)args;
}

static bool repair_mode;

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
	repair_mode = getenv("STALEFS_FUZZ_REPAIR") != NULL;
	return 0;
}

/* One in-process run; its exit status (fsck_exit longjmps here with 0x100 | status). */
static int run_fsck(const char *mode, char *path)
{
	char *args[] = { "fsck.stalefs", (char *)mode, path, NULL };
	jmp_buf jb;
	int ret;

	fsck_exit_jmp = &jb;
	ret = setjmp(jb);
	if (ret == 0)
		ret = fsck_main(3, args);
	else
		ret &= 0xFF;
	fsck_exit_jmp = NULL;
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("stalefs-fuzz", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size > DEVICE_BYTES)
		size = DEVICE_BYTES;
	if (write(fd, data, size) != (ssize_t)size || ftruncate(fd, DEVICE_BYTES) != 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!repair_mode) {
		run_fsck("-fn", path);
	} else {
		int first = run_fsck("-fy", path);

		/* Everything corrected: a second look must find nothing. */
		if ((first == 0 || first == 1) && run_fsck("-fn", path) != 0) {
			fprintf(stderr, "fuzz-fsck: -fy exited %d but -fn then found problems\n", first);
			abort();
		}
	}
	close(fd);
	return 0;
}
