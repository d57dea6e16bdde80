// SPDX-License-Identifier: GPL-2.0
/*
 * stalefs-falloc: fallocate a range of a file; with --no-hide-stale, ask
 * stalefs for STALE (not zeroed) blocks through its ioctl, and say plainly
 * why a refusal happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/falloc.h>
#include "stalefs_ioctl.h"
#include "stalefs_format.h"

static const char *prog = "stalefs-falloc";

static void usage(void)
{
	fprintf(stderr, "Usage: %s [-k] [--no-hide-stale] -o OFFSET -l LENGTH FILE\n"
			"  sizes take K, M, G or T suffixes (powers of 1024)\n", prog);
	exit(2);
}

static int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v, mult = 1;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	}
	if (*end || (v && mult > ~0ULL / v))
		return -1;
	*out = v * mult;
	return 0;
}

static bool caller_in_group(gid_t gid)
{
	gid_t groups[256];
	int n = getgroups(256, groups), i;

	if (getegid() == gid)
		return true;
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/* EPERM has three causes; tell the user which one applies. */
static void explain_eperm(int fd, const char *file)
{
	struct stalefs_stale_info info;
	struct stat st;

	if (fstat(fd, &st) == 0 && ioctl(fd, STALEFS_IOC_STALE_INFO, &info) == 0) {
		if (st.st_gid != info.stale_gid || (st.st_mode & S_IRWXO)) {
			fprintf(stderr, "%s: %s: file not confined: it must belong to the permitted group %u "
					"(it belongs to %u) and give others no permission at all (mode %04o)\n",
				prog, file, info.stale_gid, (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777));
			return;
		}
		if (!caller_in_group(info.stale_gid)) {
			fprintf(stderr, "%s: %s: not in the group: only members of group %u (or holders of "
					"CAP_SYS_RAWIO) may allocate stale blocks\n", prog, file, info.stale_gid);
			return;
		}
		if (st.st_uid != geteuid()) {
			fprintf(stderr, "%s: %s: not the owner: only the file's owner (uid %u, or a holder of "
					"CAP_SYS_RAWIO) may allocate stale blocks in it\n", prog, file,
				(unsigned)st.st_uid);
			return;
		}
	}
	fprintf(stderr, "%s: %s: stale allocation refused: %s\n", prog, file, strerror(EPERM));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "no-hide-stale", no_argument, NULL, 'S' },
		{ "keep-size", no_argument, NULL, 'k' },
		{ "offset", required_argument, NULL, 'o' },
		{ "length", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long offset = 0, length = 0;
	bool keep = false, stale = false, have_len = false;
	struct statfs sfs;
	const char *file;
	int c, fd;

	while ((c = getopt_long(argc, argv, "ko:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': keep = true; break;
		case 'S': stale = true; break;
		case 'o':
			if (parse_size(optarg, &offset)) {
				fprintf(stderr, "%s: invalid offset: '%s'\n", prog, optarg);
				usage();
			}
			break;
		case 'l':
			if (parse_size(optarg, &length) || length == 0) {
				fprintf(stderr, "%s: invalid length: '%s'\n", prog, optarg);
				usage();
			}
			have_len = true;
			break;
		default: usage();
		}
	}
	if (!have_len || optind + 1 != argc)
		usage();
	file = argv[optind];
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s for writing: %s\n", prog, file, strerror(errno));
		return 1;
	}
	if (!stale) {
		if (fallocate(fd, keep ? FALLOC_FL_KEEP_SIZE : 0, (off_t)offset, (off_t)length) < 0) {
			fprintf(stderr, "%s: fallocate %s: %s\n", prog, file, strerror(errno));
			return 1;
		}
		return 0;
	}
	if (fstatfs(fd, &sfs) == 0 && (unsigned long)sfs.f_type != STALEFS_SUPER_MAGIC) {
		fprintf(stderr, "%s: %s: not a stalefs file: --no-hide-stale works only on stalefs\n", prog, file);
		return 1;
	}
	struct stalefs_falloc_args args = {
		.offset = offset,
		.length = length,
		.mode = FALLOC_FL_NO_HIDE_STALE | (keep ? FALLOC_FL_KEEP_SIZE : 0),
	};
	if (ioctl(fd, STALEFS_IOC_FALLOCATE, &args) == 0)
		return 0;
	switch (errno) {
	case EOPNOTSUPP:
		fprintf(stderr, "%s: %s: not armed: the filesystem is not mounted with nohide_stale_gid=GID\n",
			prog, file);
		break;
	case EPERM:
		explain_eperm(fd, file);
		break;
	case EAGAIN:
		fprintf(stderr, "%s: %s: open elsewhere: another process has the file open or mapped, "
				"and could read what the new blocks hold; close it and try again\n", prog, file);
		break;
	case ENOTTY:
		fprintf(stderr, "%s: %s: not a stalefs file (the ioctl is unknown here)\n", prog, file);
		break;
	default:
		fprintf(stderr, "%s: %s: stale allocation failed: %s\n", prog, file, strerror(errno));
	}
	return 1;
}
