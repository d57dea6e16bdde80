/* SPDX-License-Identifier: GPL-2.0 */
/* The in-memory index of large directories (dir_index.c). */
#ifndef STALEFS_DIR_INDEX_H
#define STALEFS_DIR_INDEX_H

#include "stalefs.h"

#define STALEFS_DX_NONE U32_MAX

struct stalefs_dx;

u32 stalefs_dx_hash(const char *name, u32 len);
/* The directory's index, built now if it has enough blocks; NULL: walk linearly. */
struct stalefs_dx *stalefs_dx_get(struct inode *dir, u32 nblocks);
int stalefs_dx_find(struct stalefs_dx *dx, struct inode *dir, const struct qstr *name,
		    struct stalefs_dir_pos *pos);
u32 stalefs_dx_room(struct stalefs_dx *dx, u32 need);
void stalefs_dx_update(struct inode *dir, struct buffer_head *bh, u32 lblk,
		       const char *name, u32 len, bool added);
void stalefs_dx_drop(struct inode *dir);

/* dir.c, for the index */
#define STALEFS_DIR_READAHEAD 16	/* blocks a cold directory walk reads ahead */
void stalefs_dir_readahead(struct inode *dir, u32 lblk, u32 n);
struct buffer_head *stalefs_dir_bread(struct inode *dir, u32 lblk, int *err);
int stalefs_dir_find_in(struct inode *dir, u32 lblk, const struct qstr *name,
			struct stalefs_dir_pos *pos);

#endif
