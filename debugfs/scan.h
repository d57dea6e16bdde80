/* SPDX-License-Identifier: GPL-2.0 */
/* Whole-filesystem walks (scan.c). */
#ifndef DEBUGFS_SCAN_H
#define DEBUGFS_SCAN_H

#include <errno.h>
#include "libstalefs.h"

/* Called for every initialised inode slot; nonzero stops the scan and is returned. */
typedef int (*dbg_inode_fn)(u32 ino, const struct stalefs_inode *inode, int rule, bool in_use, void *priv);
int dbg_inode_scan(dbg_inode_fn fn, void *priv);

/* Called for every entry below top (but "." and ".."), depth first, with its full path and directory-entry file type.
 * Damaged directories are reported on stderr as cmd; returns how many problems
 * were met, or <0 when a callback failed. */
typedef int (*dbg_tree_fn)(u32 ino, u8 file_type, const char *path, void *priv);
int dbg_tree_walk(const char *cmd, u32 top, const char *top_path, dbg_tree_fn fn, void *priv);

/* The entries of one directory (with empty: unused slots too, and removed entries marked
 * deleted), block by block:
 * damaged blocks are reported on stderr as cmd and the walk goes on with what
 * can be parsed.  Returns the number of problems reported, or <0 when the
 * callback failed (a callback returning >0 stops the walk early). */
int dbg_dir_iterate(const char *cmd, u32 dir, bool empty, stalefs_dir_iter_fn fn, void *priv);

/* The first path naming each of inos[0..n) (sorted, distinct), by one walk of the tree from the
 * root; NULL where no name reaches it.  Returns the problems met, <0 on failure. */
int dbg_paths_of(const char *cmd, const u32 *inos, size_t n, char ***paths);
/* ino's path from dbg_paths_of, or "<no name>". */
const char *dbg_path_in(const u32 *inos, char *const *paths, size_t n, u32 ino);
void dbg_paths_free(char **paths, size_t n);

#endif
