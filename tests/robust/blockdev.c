// SPDX-License-Identifier: GPL-2.0
/* Loop devices and dm snapshots by ioctl (blockdev.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/dm-ioctl.h>
#include <linux/loop.h>
#include "blockdev.h"

int bd_loop_attach(const char *path, bool read_only, bool autoclear, char *dev, size_t len, int *fd)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC), ifd, lfd = -1, nr;
	struct loop_config cfg;

	if (ctl < 0) {
		fprintf(stderr, "/dev/loop-control: %s\n", strerror(errno));
		return -1;
	}
	ifd = open(path, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (ifd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		close(ctl);
		return -1;
	}
	/* Another task may take the free device first: try the next one. */
	for (int tries = 0; tries < 20; tries++) {
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			fprintf(stderr, "no free loop device: %s\n", strerror(errno));
			break;
		}
		snprintf(dev, len, "/dev/loop%d", nr);
		lfd = open(dev, (read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (lfd < 0) {
			fprintf(stderr, "%s: %s\n", dev, strerror(errno));
			break;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (unsigned)ifd;
		cfg.info.lo_flags = (read_only ? LO_FLAGS_READ_ONLY : 0) | (autoclear ? LO_FLAGS_AUTOCLEAR : 0);
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
			close(ifd);
			close(ctl);
			*fd = lfd;
			return 0;
		}
		if (errno != EBUSY) {
			fprintf(stderr, "attach %s to %s: %s\n", path, dev, strerror(errno));
			break;
		}
		close(lfd);
		lfd = -1;
		usleep(20000);
	}
	if (lfd >= 0)
		close(lfd);
	close(ifd);
	close(ctl);
	return -1;
}

int bd_loop_detach(int fd, const char *dev)
{
	if (ioctl(fd, LOOP_CLR_FD, 0) < 0) {
		fprintf(stderr, "detach %s: %s\n", dev, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* One device-mapper ioctl on name, with a table (target and params) for DM_TABLE_LOAD. */
static int dm_call(unsigned long cmd, const char *what, const char *name, uint64_t sectors, const char *target,
		   const char *params, dev_t *devno)
{
	union {
		struct dm_ioctl io;
		unsigned char raw[16384];
	} u;
	int ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC), rc;

	if (ctl < 0) {
		fprintf(stderr, "/dev/mapper/control: %s\n", strerror(errno));
		return -1;
	}
	memset(&u, 0, sizeof(u));
	u.io.version[0] = DM_VERSION_MAJOR;
	u.io.data_size = sizeof(u);
	u.io.data_start = sizeof(struct dm_ioctl);
	snprintf(u.io.name, sizeof(u.io.name), "%s", name);
	if (target) {
		struct dm_target_spec *t = (void *)(u.raw + sizeof(struct dm_ioctl));
		size_t plen = strlen(params) + 1;

		u.io.target_count = 1;
		t->sector_start = 0;
		t->length = sectors;
		snprintf(t->target_type, sizeof(t->target_type), "%s", target);
		memcpy(t + 1, params, plen);
		t->next = (uint32_t)((sizeof(*t) + plen + 7) & ~(size_t)7);
	}
	rc = ioctl(ctl, cmd, &u);
	if (rc < 0)
		fprintf(stderr, "device-mapper %s %s: %s\n", what, name, strerror(errno));
	else if (devno)
		*devno = (dev_t)u.io.dev;
	close(ctl);
	return rc < 0 ? -1 : 0;
}

int bd_snapshot_create(const char *name, const char *origin, const char *cow, uint64_t sectors,
		       char *dev, size_t len)
{
	char params[512];
	dev_t devno = 0;

	/* Transient ("N"), 4 KiB chunks: the exceptions live in memory, cow holds the blocks. */
	snprintf(params, sizeof(params), "%s %s N 8", origin, cow);
	if (dm_call(DM_DEV_CREATE, "create", name, 0, NULL, NULL, NULL))
		return -1;
	if (dm_call(DM_TABLE_LOAD, "load", name, sectors, "snapshot", params, NULL) ||
	    dm_call(DM_DEV_SUSPEND, "resume", name, 0, NULL, NULL, &devno)) {
		bd_dm_remove(name);
		return -1;
	}
	snprintf(dev, len, "/dev/dm-%u", minor(devno));
	return 0;
}

int bd_dm_remove(const char *name)
{
	return dm_call(DM_DEV_REMOVE, "remove", name, 0, NULL, NULL, NULL);
}
