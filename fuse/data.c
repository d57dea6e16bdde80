// SPDX-License-Identifier: GPL-2.0
/*
 * File data: open, read, write, fsync, fallocate, SEEK_DATA/SEEK_HOLE,
 * statfs, and the stalefs ioctls.  Reads of a file holding STALE extents are
 * served only while it is confined (docs/nohide-stale.md): otherwise EPERM,
 * for everyone, as the kernel module does.  Stale allocation itself
 * (FALLOC_FL_NO_HIDE_STALE, STALEFS_IOC_FALLOCATE) is never offered here:
 * EOPNOTSUPP.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <linux/falloc.h>
#include "stalefs_fuse.h"
#include "stalefs_ioctl.h"

#ifndef FALLOC_FL_NO_HIDE_STALE
#define FALLOC_FL_NO_HIDE_STALE 0x04
#endif

/* A file holding STALE extents that escaped its confinement is read by nobody. */
static int stale_may_read(u32 ino, const struct stalefs_inode *inode)
{
	if (!(le32_to_cpu(inode->i_flags) & STALEFS_INODE_STALE_FL) || stalefs_stale_confined(S.fs, inode))
		return 0;
	sfuse_report(ino, STALEFS_ERR_STALE_UNCONFINED, "opening or reading it");
	return EPERM;
}

void sfuse_open(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	struct stalefs_inode inode;
	u32 ino = sfuse_ino(fino);
	errcode_t err;
	int rc = 0;

	pthread_mutex_lock(&S.lock);
	err = stalefs_read_inode(S.fs, ino, &inode);
	if (err) {
		sfuse_report(ino, err, "opening a file");
		rc = sfuse_errno(err);
	} else if ((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR) {
		rc = EISDIR;
	} else if ((fi->flags & O_ACCMODE) != O_RDONLY && sfuse_writable(&S)) {
		rc = EROFS;
	} else if ((fi->flags & O_ACCMODE) != O_WRONLY) {
		rc = stale_may_read(ino, &inode);
	}
	if (!rc) {
		struct sfuse_node *n = sfuse_node_get(&S, ino, true);

		if (n)
			n->nopen++;
		else
			rc = ENOMEM;
	}
	pthread_mutex_unlock(&S.lock);
	if (rc) {
		fuse_reply_err(req, rc);
		return;
	}
	/* Nothing but this server changes the image: the kernel's cached pages stay good. */
	fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

void sfuse_release(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	u32 ino = sfuse_ino(fino);
	struct sfuse_node *n;

	(void)fi;
	pthread_mutex_lock(&S.lock);
	n = sfuse_node_get(&S, ino, false);
	if (n && n->nopen && !--n->nopen && !n->nlookup)
		sfuse_node_maybe_release(&S, ino);
	pthread_mutex_unlock(&S.lock);
	fuse_reply_err(req, 0);
}

/*
 * Reads and the one lock.  A read of a writable filesystem is copied into our memory under the
 * lock (a block mapped now could be freed and given to another file by the next request) and
 * replied after dropping it: the reply's copy into the kernel then overlaps the next request's
 * work.  Splicing it instead (image descriptor -> pipe -> kernel, past our memory) would have to
 * hold the lock until the kernel has the data, and measured slower (bench/RESULTS.md, "fuse"):
 * every reply then made the next request's thread sleep on the lock and be woken.  When nothing
 * can write (read-only, or after a failed commit) no block is ever reused: the map is taken under
 * the lock and the data spliced after it.  libfuse copies any reply under two pages anyway.
 */
#define SFUSE_SPLICE_MIN (2u * 4096u)

/* What a hole reads as, for spliced replies (a request is at most 1 MiB: max_read). */
static char zeros[1u << 20];

/*
 * Map [off, off+size) of ino for a spliced reply (lock held): *ret, its runs as buffers of the
 * image's descriptor and of zeros.  False when it cannot be done
 * that way (the filesystem writable, no splice, overlay mode, a map too fragmented): copy.
 */
static bool splice_map(u32 ino, size_t size, u64 off, struct fuse_bufvec **ret)
{
	u32 max = (u32)(size / S.fs->block_size) + 2, n, i, k = 0;
	struct stalefs_file_run *runs;
	struct fuse_bufvec *bv;
	u64 base;
	int fd;

	if (!S.splice || size < SFUSE_SPLICE_MIN || !sfuse_writable(&S) || !stalefs_io_data_fd(S.fs->io, &fd, &base))
		return false;
	runs = malloc(max * sizeof(*runs));
	bv = calloc(1, sizeof(*bv) + (max + size / sizeof(zeros) + 1) * sizeof(bv->buf[0]));
	if (!runs || !bv || stalefs_file_map(S.fs, ino, off, size, runs, max, &n)) {
		free(runs);
		free(bv);
		return false;
	}
	for (i = 0; i < n; i++) {
		u64 left = runs[i].len;

		while (left) {
			struct fuse_buf *b = &bv->buf[k++];

			b->size = runs[i].zero && left > sizeof(zeros) ? sizeof(zeros) : left;
			if (runs[i].zero) {
				b->mem = zeros;
			} else {
				b->flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
				b->fd = fd;
				b->pos = (off_t)(base + runs[i].dev_off + (runs[i].len - left));
			}
			left -= b->size;
		}
	}
	bv->count = k;
	free(runs);
	*ret = bv;
	return true;
}

void sfuse_read(fuse_req_t req, fuse_ino_t fino, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct stalefs_inode inode;
	struct fuse_bufvec *bv = NULL;
	u32 ino = sfuse_ino(fino);
	char *buf = NULL;
	size_t got = 0;
	errcode_t err;
	int rc = 0;

	(void)fi;
	pthread_mutex_lock(&S.lock);
	err = stalefs_read_inode(S.fs, ino, &inode);
	if (!err)
		rc = stale_may_read(ino, &inode);
	if (!err && !rc && !((le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFREG &&
			     splice_map(ino, size, (u64)off, &bv))) {
		buf = malloc(size ? size : 1);
		if (buf)
			err = stalefs_file_read(S.fs, ino, (u64)off, buf, size, &got);
		else
			rc = ENOMEM;
	}
	if (err) {
		sfuse_report(ino, err, "reading a file");
		rc = sfuse_errno(err);
	}
	pthread_mutex_unlock(&S.lock);
	if (rc)
		fuse_reply_err(req, rc);
	else if (bv && bv->count)
		fuse_reply_data(req, bv, FUSE_BUF_SPLICE_MOVE);
	else
		fuse_reply_buf(req, buf, got);
	free(bv);
	free(buf);
}

void sfuse_write(fuse_req_t req, fuse_ino_t fino, const char *buf, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	u32 ino = sfuse_ino(fino);
	errcode_t err;
	int rc;

	(void)fi;
	pthread_mutex_lock(&S.lock);
	rc = sfuse_writable(&S);
	if (!rc) {
		err = stalefs_file_write(S.fs, ino, (u64)off, buf, size);
		if (err == STALEFS_ERR_NO_SPACE && stalefs_txn_busy_blocks(S.fs) && !sfuse_commit(&S))
			err = stalefs_file_write(S.fs, ino, (u64)off, buf, size);
		if (err) {
			sfuse_report(ino, err, "writing a file");
			rc = sfuse_errno(err);
		}
		sfuse_changed(&S);
	}
	pthread_mutex_unlock(&S.lock);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_write(req, size);
}

void sfuse_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	(void)ino;
	(void)datasync;
	(void)fi;
	/* The file's data went to the device as it was written; the commit flushes it first and
	 * then makes every metadata change durable, this file's among them. */
	sfuse_reply_commit(req);
}

/* i_size at least end (fallocate without KEEP_SIZE). */
static errcode_t grow_size(u32 ino, u64 end)
{
	struct stalefs_inode inode;
	errcode_t err = stalefs_read_inode(S.fs, ino, &inode);

	if (err || le64_to_cpu(inode.i_size) >= end)
		return err;
	inode.i_size = cpu_to_le64(end);
	sfuse_set_times_now(&inode, false, true, true);
	return stalefs_write_inode(S.fs, ino, &inode);
}

static errcode_t punch(u32 ino, u64 off, u64 len)
{
	u32 bs = S.fs->block_size;
	u64 first = (off + bs - 1) / bs, last = (off + len) / bs;
	errcode_t err = 0;

	/* Parts of blocks are zeroed; whole blocks go. */
	if (first > last)
		return stalefs_zero_range(S.fs, ino, off, len);
	if (off < first * bs)
		err = stalefs_zero_range(S.fs, ino, off, first * bs - off);
	if (!err && off + len > last * bs)
		err = stalefs_zero_range(S.fs, ino, last * bs, off + len - last * bs);
	if (!err && last > first)
		err = stalefs_punch(S.fs, ino, (u32)first, (u32)(last - first));
	return err;
}

static errcode_t do_fallocate(u32 ino, int mode, u64 off, u64 len)
{
	u32 bs = S.fs->block_size;
	u64 end = off + len;
	errcode_t err;

	if (mode & FALLOC_FL_PUNCH_HOLE)
		return punch(ino, off, len);
	if (mode & FALLOC_FL_ZERO_RANGE)
		err = stalefs_zero_range(S.fs, ino, off, len);
	else
		err = stalefs_fallocate(S.fs, ino, (u32)(off / bs), (u32)((end + bs - 1) / bs - off / bs), false);
	if (!err && !(mode & FALLOC_FL_KEEP_SIZE))
		err = grow_size(ino, end);
	return err;
}

void sfuse_fallocate(fuse_req_t req, fuse_ino_t fino, int mode, off_t offset, off_t length,
		     struct fuse_file_info *fi)
{
	struct stalefs_inode inode;
	u32 ino = sfuse_ino(fino);
	u64 off = (u64)offset, len = (u64)length;
	errcode_t err;
	int rc;

	(void)fi;
	/* Stale allocation is the kernel module's, armed per mount and confined: not served here. */
	if (mode & FALLOC_FL_NO_HIDE_STALE) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE) ||
	    ((mode & FALLOC_FL_PUNCH_HOLE) && (!(mode & FALLOC_FL_KEEP_SIZE) || (mode & FALLOC_FL_ZERO_RANGE)))) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	if (offset < 0 || length <= 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (off + len < off || (off + len + S.fs->block_size - 1) / S.fs->block_size > STALEFS_MAX_FILE_BLOCKS) {
		fuse_reply_err(req, EFBIG);
		return;
	}
	pthread_mutex_lock(&S.lock);
	rc = sfuse_writable(&S);
	if (rc)
		goto out;
	err = stalefs_read_inode(S.fs, ino, &inode);
	if (!err && (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFREG)
		err = STALEFS_ERR_NOT_REGULAR;
	if (!err) {
		err = do_fallocate(ino, mode, off, len);
		if (err == STALEFS_ERR_NO_SPACE && stalefs_txn_busy_blocks(S.fs) && !sfuse_commit(&S))
			err = do_fallocate(ino, mode, off, len);
		sfuse_changed(&S);
	}
	if (err) {
		sfuse_report(ino, err, "allocating file space");
		rc = err == STALEFS_ERR_NOT_REGULAR ? ENODEV : sfuse_errno(err);
	}
out:
	pthread_mutex_unlock(&S.lock);
	fuse_reply_err(req, rc);
}

void sfuse_lseek(fuse_req_t req, fuse_ino_t fino, off_t off, int whence, struct fuse_file_info *fi)
{
	u32 ino = sfuse_ino(fino);
	u64 result = 0;
	errcode_t err;

	(void)fi;
	if ((whence != SEEK_DATA && whence != SEEK_HOLE) || off < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	pthread_mutex_lock(&S.lock);
	err = stalefs_seek_data(S.fs, ino, (u64)off, whence == SEEK_HOLE, &result);
	if (err && err != ENXIO)
		sfuse_report(ino, err, "seeking data or holes");
	pthread_mutex_unlock(&S.lock);
	if (err)
		fuse_reply_err(req, sfuse_errno(err));
	else
		fuse_reply_lseek(req, (off_t)result);
}

void sfuse_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs st;
	const struct stalefs_super_block *sb;
	u64 free_blocks, reserved;

	(void)ino;
	memset(&st, 0, sizeof(st));
	pthread_mutex_lock(&S.lock);
	sb = &S.fs->sb;
	free_blocks = le64_to_cpu(sb->s_free_blocks_count);
	reserved = le64_to_cpu(sb->s_r_blocks_count);
	st.f_bsize = S.fs->block_size;
	st.f_frsize = S.fs->block_size;
	st.f_blocks = S.fs->geom.blocks_count;
	/* Blocks the running transaction freed are free once it commits: counted free already. */
	st.f_bfree = free_blocks;
	st.f_bavail = free_blocks > reserved ? free_blocks - reserved : 0;
	st.f_files = S.fs->geom.inodes_count;
	st.f_ffree = le32_to_cpu(sb->s_free_inodes_count);
	st.f_favail = st.f_ffree;
	st.f_namemax = STALEFS_NAME_LEN;
	pthread_mutex_unlock(&S.lock);
	fuse_reply_statfs(req, &st);
}

void sfuse_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg, struct fuse_file_info *fi,
		 unsigned flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	(void)ino;
	(void)arg;
	(void)fi;
	(void)flags;
	(void)in_buf;
	(void)in_bufsz;
	(void)out_bufsz;
	/* stalefs-falloc --no-hide-stale: refused, whatever the file (see the top of this file). */
	if (cmd == (unsigned int)STALEFS_IOC_FALLOCATE)
		fuse_reply_err(req, EOPNOTSUPP);
	else
		fuse_reply_err(req, ENOTTY);
}
