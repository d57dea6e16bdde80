// SPDX-License-Identifier: GPL-2.0
/*
 * Orphans (FORMAT.md 13): an inode flagged ORPHAN is one whose release (its
 * last link gone while open) or truncation was under way when the
 * filesystem stopped.  Finishing one is what the kernel's mount does after
 * recovery, and what fsck does before it checks: with no links the inode is
 * freed with its blocks; with links, a regular file loses its blocks at and
 * past ceil(i_size / block size) and every inode the flag.  Each step keeps
 * the group's bg_orphan_count equal to its ORPHAN inodes.
 */
#include <errno.h>
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

void stalefs_orphan_count_adjust(stalefs_fs *fs, u32 ino, int delta)
{
	u32 group = stalefs_ino_group(&fs->geom, ino);
	struct stalefs_group_desc *d = &fs->groups[group].desc;
	u32 count = le32_to_cpu(d->bg_orphan_count);

	/* A count already wrong stays at 0 rather than wrap: fsck recounts it. */
	if (delta < 0 && count == 0)
		return;
	d->bg_orphan_count = cpu_to_le32(count + (u32)delta);
	stalefs_mark_desc_dirty(fs, group);
}

/* A regular file's blocks at and past its size. */
static errcode_t cut_past_size(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode, u64 *freed)
{
	struct stalefs_extent_list l, old;
	u64 keep = (le64_to_cpu(inode->i_size) + fs->block_size - 1) / fs->block_size;
	u64 before = le64_to_cpu(inode->i_blocks);
	errcode_t err;

	if (keep >= STALEFS_MAX_FILE_BLOCKS)
		return 0;
	err = stalefs_extent_read(fs, ino, inode, &l);
	if (err)
		return err;
	memset(&old, 0, sizeof(old));
	err = stalefs_extent_list_remove(&l, (u32)keep, (u32)(STALEFS_MAX_FILE_BLOCKS - keep), &old);
	if (!err && old.count) {
		err = stalefs_free_extent_blocks(fs, &old);
		if (!err)
			err = stalefs_extent_write(fs, ino, inode, &l);
		if (!err && before > le64_to_cpu(inode->i_blocks))
			*freed = before - le64_to_cpu(inode->i_blocks);
	}
	stalefs_extent_list_free(&old);
	stalefs_extent_list_free(&l);
	return err;
}

errcode_t stalefs_orphan_finish(stalefs_fs *fs, u32 ino, struct stalefs_orphan_result *r)
{
	struct stalefs_inode inode;
	u16 type;
	errcode_t err;

	memset(r, 0, sizeof(*r));
	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (!fs->bitmaps_loaded)
		return STALEFS_ERR_NO_BITMAPS;
	err = stalefs_read_inode(fs, ino, &inode);
	if (err)
		return err;
	if (!(le32_to_cpu(inode.i_flags) & STALEFS_INODE_ORPHAN_FL))
		return EINVAL;
	r->mode = le16_to_cpu(inode.i_mode);
	r->size = le64_to_cpu(inode.i_size);
	r->links = le16_to_cpu(inode.i_links_count);
	type = r->mode & STALEFS_S_IFMT;
	if (r->links == 0) {
		/* stalefs_delete_inode drops the flag and the group's count with the inode. */
		r->blocks_freed = le64_to_cpu(inode.i_blocks);
		r->freed = true;
		return stalefs_delete_inode(fs, ino);
	}
	/* As the kernel: only a regular file's size is cut to; other types just lose the flag. */
	if (type == STALEFS_S_IFREG && stalefs_inode_has_extents(&inode)) {
		err = cut_past_size(fs, ino, &inode, &r->blocks_freed);
		if (err)
			return err;
	}
	inode.i_flags = cpu_to_le32(le32_to_cpu(inode.i_flags) & ~STALEFS_INODE_ORPHAN_FL);
	err = stalefs_write_inode(fs, ino, &inode);
	if (!err)
		stalefs_orphan_count_adjust(fs, ino, -1);
	return err;
}

errcode_t stalefs_orphan_list_add(stalefs_fs *fs, u32 ino, struct stalefs_inode *inode)
{
	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (le32_to_cpu(inode->i_flags) & STALEFS_INODE_ORPHAN_FL)
		return 0;
	inode->i_flags = cpu_to_le32(le32_to_cpu(inode->i_flags) | STALEFS_INODE_ORPHAN_FL);
	stalefs_orphan_count_adjust(fs, ino, 1);
	return stalefs_write_inode(fs, ino, inode);
}

struct finish_all {
	stalefs_orphan_fn fn;
	void *priv;
	u32 *inos;
	u32 n, cap;
};

static int collect_orphan(stalefs_fs *fs, u32 ino, const struct stalefs_inode *inode, int rule, bool in_use,
			  void *priv)
{
	struct finish_all *f = priv;

	(void)fs;
	if (!inode || rule || !in_use || !(le32_to_cpu(inode->i_flags) & STALEFS_INODE_ORPHAN_FL))
		return 0;
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 16;
		f->inos = stalefs_xrealloc(f->inos, f->cap * sizeof(*f->inos));
	}
	f->inos[f->n++] = ino;
	return 0;
}

errcode_t stalefs_orphans_finish_all(stalefs_fs *fs, stalefs_orphan_fn fn, void *priv)
{
	struct finish_all f = { fn, priv, NULL, 0, 0 };
	errcode_t first = 0;
	u32 g, i;

	/* The descriptors' counts say which groups to look in: a clean filesystem costs nothing. */
	for (g = 0; g < fs->geom.groups_count; g++)
		if (fs->groups[g].desc.bg_orphan_count)
			break;
	if (g == fs->geom.groups_count)
		return 0;
	stalefs_inode_scan(fs, collect_orphan, &f);
	for (i = 0; i < f.n; i++) {
		struct stalefs_orphan_result r;
		errcode_t err = stalefs_orphan_finish(fs, f.inos[i], &r);

		if (fn)
			fn(fs, f.inos[i], err, &r, priv);
		if (err && !first)
			first = err;
	}
	free(f.inos);
	return first;
}
