/* SPDX-License-Identifier: GPL-2.0 */
/* Whole-filesystem walks (scan.c). */
#ifndef DEBUGFS_SCAN_H
#define DEBUGFS_SCAN_H

#include <errno.h>
#include "libstalefs.h"

/* Called for every initialised inode slot; nonzero stops the scan and is returned. */
typedef int (*dbg_inode_fn)(u32 ino, const struct stalefs_inode *inode, int rule, bool in_use, void *priv);
int dbg_inode_scan(dbg_inode_fn fn, void *priv);

/* Called for every entry below top (but "." and ".."), depth first, with its full path. */
typedef int (*dbg_tree_fn)(u32 ino, const char *path, const struct stalefs_dirent_info *de, void *priv);
int dbg_tree_walk(u32 top, const char *top_path, dbg_tree_fn fn, void *priv);

#endif
