/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loop devices and device-mapper snapshots by ioctl, for the VM test tools
 * that set up hundreds of them (an exec of losetup or dmsetup costs
 * 0.1-0.3 s in the TCG guest).  Each call returns 0, or -1 with a message
 * on stderr naming what failed.
 */
#ifndef ROBUST_BLOCKDEV_H
#define ROBUST_BLOCKDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A free loop device over path (read-only or not), detached when the last opener goes: its name
 * into dev; *fd stays open (close it once the device is in use, or to let it go). */
int bd_loop_attach(const char *path, bool read_only, bool autoclear, char *dev, size_t len, int *fd);
/* Detach a loop device whose fd is open (LOOP_CLR_FD). */
int bd_loop_detach(int fd, const char *dev);

/*
 * A transient dm snapshot NAME of origin over cow, sectors long: writes go
 * to cow, origin is never written.  Its node (/dev/dm-N) into dev.
 */
int bd_snapshot_create(const char *name, const char *origin, const char *cow, uint64_t sectors,
		       char *dev, size_t len);
int bd_dm_remove(const char *name);

#endif
