/*
 * The journaled write path (txn.c: stalefs-fuse's writes, resize.stalefs's
 * steps) and the block sets under it: metadata stays off the device until a
 * commit, the log of a commit replays the pre-commit image into the
 * post-commit one (with STALEFS_TXN_ATOMIC the superblock too), the device
 * only ever holds a committed state, an abort leaves it as it was, blocks
 * freed by a running transaction are not reused before it commits (unless
 * it allocated them itself), RECOVER is set while it runs and cleared when
 * it stops, a transaction too large for the log is still written (and
 * counted) or, atomic, refused with nothing written, and new data blocks
 * are written before the commit that maps them.  (Held blocks past the old
 * end, a grow's, are tests/resize's: t-grow and the kill runs.)
 */
#include <fcntl.h>
#include <unistd.h>
#include "unit.h"

#define TXN_IMG (32ULL << 20)

/* Loop tests run at 1 KiB and 4 KiB blocks. */
#define LOOP_BS (_i ? 4096u : 1024u)

/* The image's bytes. */
static u8 *image(const struct scratch *s)
{
	u8 *img = malloc(TXN_IMG);

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(pread(s->fd, img, TXN_IMG, 0), (ssize_t)TXN_IMG);
	return img;
}

/* Another scratch file holding these bytes, opened as a filesystem (read-write, journal allowed). */
static stalefs_fs *open_copy(struct scratch *copy, const u8 *img, int flags)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	stalefs_fs *fs;

	memset(copy, 0, sizeof(*copy));
	snprintf(copy->path, sizeof(copy->path), "%s/stalefs-txn-XXXXXX", dir);
	copy->fd = mkstemp(copy->path);
	ck_assert_int_ge(copy->fd, 0);
	unlink(copy->path);
	ck_assert_int_eq(pwrite(copy->fd, img, TXN_IMG, 0), (ssize_t)TXN_IMG);
	snprintf(copy->path, sizeof(copy->path), "/proc/self/fd/%d", copy->fd);
	ck_ok(stalefs_open(copy->path, flags, 0, 0, &fs));
	copy->fs = fs;
	return fs;
}

/* Journaled, with a cache of 8 blocks: held blocks cannot hide in a large cache. */
static stalefs_fs *mkfs_txn_flags(struct scratch *s, u32 bs, unsigned flags)
{
	stalefs_fs *fs = scratch_mkfs(s, TXN_IMG, bs);

	ck_assert(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	ck_ok(stalefs_txn_start(fs, flags));
	stalefs_io_set_cache_limit(fs->io, 8);
	return fs;
}

static stalefs_fs *mkfs_txn(struct scratch *s, u32 bs)
{
	return mkfs_txn_flags(s, bs, 0);
}

/* Drop the in-memory state unwritten (a crash, or a stale one), open as fsck does and replay. */
static stalefs_fs *crash_and_recover(struct scratch *s, struct stalefs_journal_recovery *r)
{
	stalefs_free(s->fs);
	s->fs = NULL;
	ck_ok(stalefs_open(s->path, STALEFS_OPEN_RW | STALEFS_OPEN_JOURNAL, 0, 0, &s->fs));
	ck_ok(stalefs_journal_recover(s->fs, r));
	ck_assert(!(le32_to_cpu(s->fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER));
	return s->fs;
}

START_TEST(block_sets)
{
	struct stalefs_block_set s;
	u64 next, end;

	memset(&s, 0, sizeof(s));
	stalefs_block_set_add(&s, 10, 5);	/* 10-14 */
	stalefs_block_set_add(&s, 20, 5);	/* 20-24 */
	stalefs_block_set_add(&s, 15, 2);	/* joins the first: 10-16 */
	ck_assert_uint_eq(s.count, 2);
	ck_assert_uint_eq(s.total, 12);
	ck_assert(stalefs_block_set_find(&s, 16, &next, &end));
	ck_assert_uint_eq(end, 17);
	ck_assert(!stalefs_block_set_find(&s, 17, &next, &end));
	ck_assert_uint_eq(next, 20);
	stalefs_block_set_add(&s, 17, 3);	/* bridges both: 10-24 */
	ck_assert_uint_eq(s.count, 1);
	ck_assert_uint_eq(s.total, 15);
	stalefs_block_set_remove(&s, 12, 2, NULL, NULL);	/* a hole in the middle */
	ck_assert_uint_eq(s.count, 2);
	ck_assert_uint_eq(s.total, 13);
	ck_assert(!stalefs_block_set_find(&s, 13, &next, &end));
	ck_assert_uint_eq(next, 14);
	stalefs_block_set_remove(&s, 0, 11, NULL, NULL);	/* the head */
	stalefs_block_set_remove(&s, 24, 100, NULL, NULL);	/* the tail */
	ck_assert(!stalefs_block_set_find(&s, 10, &next, &end));
	ck_assert_uint_eq(next, 11);
	ck_assert(stalefs_block_set_find(&s, 23, &next, &end));
	ck_assert_uint_eq(end, 24);
	ck_assert_uint_eq(s.total, 1 + 10);
	stalefs_block_set_add(&s, 0, 100);
	ck_assert_uint_eq(s.count, 1);
	ck_assert_uint_eq(s.total, 100);
	ck_assert(!stalefs_block_set_find(&s, 100, &next, &end));
	ck_assert_uint_eq(next, ~0ULL);
	stalefs_block_set_clear(&s);
	ck_assert_uint_eq(s.total, 0);
}
END_TEST

/* A seeded sequence of adds and removes against a bitmap model. */
START_TEST(block_sets_random)
{
	struct stalefs_block_set s;
	u8 model[2048];
	u64 st = 77, total, i, next, end;
	int round;

	memset(&s, 0, sizeof(s));
	memset(model, 0, sizeof(model));
	for (round = 0; round < 4000; round++) {
		u64 a = unit_rand(&st) % 2000, n = 1 + unit_rand(&st) % 40;
		bool add = unit_rand(&st) % 3 != 0;

		if (add)
			stalefs_block_set_add(&s, a, n);
		else
			stalefs_block_set_remove(&s, a, n, NULL, NULL);
		for (i = a; i < a + n; i++)
			model[i] = add;
	}
	for (i = 0, total = 0; i < sizeof(model); i++) {
		bool in = stalefs_block_set_find(&s, i, &next, &end);

		hot_assert(in == model[i], "block %llu: set says %d, model %d", (unsigned long long)i, in, model[i]);
		total += model[i];
	}
	ck_assert_uint_eq(s.total, total);
	for (i = 1; i < s.count; i++)
		hot_assert(s.runs[i - 1].start + s.runs[i - 1].len < s.runs[i].start, "runs %llu and %llu touch",
			   (unsigned long long)i - 1, (unsigned long long)i);
	stalefs_block_set_clear(&s);
}
END_TEST

START_TEST(needs_a_clean_journal)
{
	struct scratch s;
	stalefs_fs *fs;
	struct stalefs_journal *j;
	struct stalefs_jtrans *t;
	u8 blk[1024];

	/* No journal: nothing to commit to. */
	fs = scratch_mkfs(&s, TXN_IMG, 1024);
	ck_ok(stalefs_journal_remove(fs));
	fs = scratch_reopen(&s);
	ck_err(stalefs_txn_start(fs, 0), STALEFS_ERR_NO_JOURNAL);
	scratch_done(&s);
	/* A log with a transaction in it: replay first. */
	fs = scratch_mkfs(&s, TXN_IMG, 1024);
	ck_ok(stalefs_journal_open(fs, 0, &j));
	ck_ok(stalefs_jtrans_begin(j, &t));
	memset(blk, 0x5a, sizeof(blk));
	ck_ok(stalefs_jtrans_add_block(t, fs->geom.blocks_count - 20, blk));
	ck_ok(stalefs_jtrans_commit(t, 0));
	stalefs_journal_close(j);
	ck_ok(stalefs_close(fs));
	ck_ok(stalefs_open(s.path, STALEFS_OPEN_RW | STALEFS_OPEN_JOURNAL, 0, 0, &s.fs));
	ck_err(stalefs_txn_start(s.fs, STALEFS_TXN_ATOMIC), STALEFS_ERR_NEEDS_RECOVERY);
	scratch_done(&s);
	/* Read-only: no. */
	fs = scratch_mkfs(&s, TXN_IMG, 1024);
	ck_ok(stalefs_close(fs));
	ck_ok(stalefs_open(s.path, 0, 0, 0, &s.fs));
	ck_err(stalefs_txn_start(s.fs, 0), STALEFS_ERR_RO_FILSYS);
	scratch_done(&s);
}
END_TEST

/* The superblock on the device, as it is now. */
static u32 disk_incompat(const struct scratch *s)
{
	struct stalefs_super_block sb;

	ck_assert_int_eq(pread(s->fd, &sb, sizeof(sb), STALEFS_SUPER_OFFSET), (ssize_t)sizeof(sb));
	return le32_to_cpu(sb.s_feature_incompat);
}

START_TEST(recover_flag_follows)
{
	struct scratch s;
	stalefs_fs *fs = mkfs_txn(&s, 1024);
	u32 ino;

	ck_assert(disk_incompat(&s) & STALEFS_FEATURE_INCOMPAT_RECOVER);
	/* A quarter of the log, as jbd2 bounds a transaction (what resize.stalefs plans by). */
	ck_assert_uint_eq(stalefs_txn_room(fs), (le32_to_cpu(fs->sb.s_journal_blocks) - 1) / 4);
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "a", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_flush(fs));
	ck_assert(disk_incompat(&s) & STALEFS_FEATURE_INCOMPAT_RECOVER);
	ck_ok(stalefs_txn_stop(fs));
	ck_assert(!(disk_incompat(&s) & STALEFS_FEATURE_INCOMPAT_RECOVER));
	ck_assert_ptr_null(fs->txn);
	/* Stopped: writes go the ordinary way again, and the file is there. */
	fs = scratch_reopen(&s);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, "a", false, &ino));
	scratch_done(&s);
}
END_TEST

/*
 * Until the commit the device holds the state before the operations (plus file data, which
 * nothing maps yet); after it, the state after them.  Each image is checked by opening a
 * copy of it, as a crash would leave it.
 */
START_TEST(held_until_commit)
{
	struct scratch s, c;
	stalefs_fs *fs = mkfs_txn(&s, LOOP_BS), *cfs;
	static const char msg[] = "committed with its name";
	char got[64];
	u8 *img;
	u32 ino, dir;
	size_t n;

	u32 made[150], i;

	ck_ok(stalefs_mkdir(fs, STALEFS_ROOT_INO, "d", 0755, 0, 0, &dir));
	ck_ok(stalefs_create(fs, dir, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_file_write(fs, ino, 0, msg, sizeof(msg)));
	/* More inode table blocks than the cache holds. */
	for (i = 0; i < 150; i++) {
		char name[16];

		snprintf(name, sizeof(name), "g%u", i);
		ck_ok(stalefs_create(fs, dir, name, STALEFS_S_IFREG | 0644, 0, 0, &made[i]));
	}
	ck_assert_uint_gt(stalefs_io_dirty_count(fs->io), 8);
	img = image(&s);
	cfs = open_copy(&c, img, 0);
	ck_err(stalefs_namei(cfs, STALEFS_ROOT_INO, "d", false, &dir), STALEFS_ERR_NOT_FOUND);
	ck_assert(!stalefs_test_inode(cfs, ino));
	for (i = 0; i < 150; i++) {
		struct stalefs_inode raw;
		int rule;

		ck_ok(stalefs_read_inode_raw(cfs, made[i], &raw, &rule));
		ck_assert_msg(raw.i_mode == 0, "inode %u is on the device before the commit", made[i]);
	}
	scratch_done(&c);
	free(img);

	ck_ok(stalefs_txn_commit(fs));
	ck_assert_uint_eq(stalefs_io_dirty_count(fs->io), 0);
	img = image(&s);
	/* The log is empty: nothing to replay, and everything is in place. */
	cfs = open_copy(&c, img, STALEFS_OPEN_RW | STALEFS_OPEN_JOURNAL);
	{
		struct stalefs_journal *j;

		ck_ok(stalefs_journal_open(cfs, 0, &j));
		ck_assert_uint_eq(be32toh(j->jsb.s_start), 0);
		stalefs_journal_close(j);
	}
	ck_ok(stalefs_namei(cfs, STALEFS_ROOT_INO, "d/f", false, &ino));
	ck_ok(stalefs_file_read(cfs, ino, 0, got, sizeof(got), &n));
	ck_assert_uint_eq(n, sizeof(msg));
	ck_assert_str_eq(got, msg);
	scratch_done(&c);
	free(img);
	scratch_done(&s);
}
END_TEST

/* Journal blocks are the log's; the rest is compared block by block, the superblock's block aside. */
static void expect_same_outside_journal(stalefs_fs *a, const u8 *ia, const u8 *ib)
{
	u64 jstart = le64_to_cpu(a->sb.s_journal_block), jend = jstart + le32_to_cpu(a->sb.s_journal_blocks);
	u32 bs = a->block_size;
	u64 b;

	for (b = a->geom.sb_block + 1; b < a->geom.blocks_count; b++) {
		if (b >= jstart && b < jend)
			continue;
		hot_assert(memcmp(ia + b * bs, ib + b * bs, bs) == 0, "block %llu differs after the replay",
			   (unsigned long long)b);
	}
}

/*
 * A crash after the commit block and before the checkpoint: the device holds the old
 * metadata and the log.  Replaying the log must give exactly the metadata the checkpoint
 * wrote.  The crash image is made from the image before the commit with the journal's blocks
 * as the commit left them and the journal superblock as it was while the log was full.
 */
START_TEST(log_replays_the_commit)
{
	struct scratch s, c;
	bool atomic = _i >= 2;
	stalefs_fs *fs = mkfs_txn_flags(&s, _i % 2 ? 4096 : 1024, atomic ? STALEFS_TXN_ATOMIC : 0), *cfs;
	struct stalefs_journal_recovery r;
	struct stalefs_jbd2_super jsb;
	u8 *before, *after, buf[256];
	u64 jstart = le64_to_cpu(fs->sb.s_journal_block);
	u32 bs = fs->block_size, jlen = le32_to_cpu(fs->sb.s_journal_blocks), ino, i;
	u32 seq;
	u64 st = 9;

	/* Something committed first, so the commit under test is not the first in the log. */
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "first", STALEFS_S_IFREG | 0600, 1, 1, &ino));
	ck_ok(stalefs_txn_commit(fs));
	for (i = 0; i < 40; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%u", i);
		ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, name, STALEFS_S_IFREG | 0644, i, i, &ino));
		unit_fill(&st, buf, sizeof(buf));
		ck_ok(stalefs_file_write(fs, ino, (u64)i * 5000, buf, sizeof(buf)));
		ck_ok(stalefs_xattr_set(fs, ino, "user.k", buf, 40, 0));
	}
	ck_ok(stalefs_unlink(fs, STALEFS_ROOT_INO, "first", &ino));
	ck_ok(stalefs_drop_link(fs, ino));
	/* Atomic: what the superblock says beyond its summaries is logged too. */
	if (atomic) {
		memcpy(fs->sb.s_volume_name, "logged", 7);
		stalefs_mark_super_dirty(fs);
	}
	ck_ok(stalefs_journal_read_super(fs, &jsb));
	seq = be32toh(jsb.s_sequence);
	before = image(&s);
	ck_ok(stalefs_txn_commit(fs));
	after = image(&s);

	/* The crash image: before, with the journal as the commit wrote it, the log still full. */
	memcpy(before + (jstart + 1) * bs, after + (jstart + 1) * bs, (size_t)(jlen - 1) * bs);
	memcpy(&jsb, before + jstart * bs, sizeof(jsb));
	ck_assert_uint_eq(be32toh(jsb.s_start), 0);
	jsb.s_start = htobe32(1);
	jsb.s_sequence = htobe32(seq);
	stalefs_jsb_set_csum(&jsb);
	memcpy(before + jstart * bs, &jsb, sizeof(jsb));
	{
		struct stalefs_super_block sb;

		memcpy(&sb, before + STALEFS_SUPER_OFFSET, sizeof(sb));
		ck_assert(le32_to_cpu(sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER);
	}
	cfs = open_copy(&c, before, STALEFS_OPEN_RW | STALEFS_OPEN_JOURNAL);
	ck_assert_str_ne((const char *)cfs->sb.s_volume_name, "logged");
	ck_ok(stalefs_journal_recover(cfs, &r));
	ck_assert_uint_eq(r.transactions, 1);
	ck_assert_uint_gt(r.blocks_replayed, 40);
	ck_assert(r.super_replayed == atomic);
	if (atomic)
		ck_assert_str_eq((const char *)cfs->sb.s_volume_name, "logged");
	ck_ok(stalefs_close(cfs));
	c.fs = NULL;
	{
		u8 *replayed = image(&c);

		expect_same_outside_journal(fs, replayed, after);
		free(replayed);
	}
	scratch_done(&c);
	free(before);
	free(after);
	scratch_done(&s);
}
END_TEST

/* Blocks a running transaction freed are not handed out again before it commits. */
START_TEST(freed_blocks_wait_for_commit)
{
	struct scratch s;
	stalefs_fs *fs = mkfs_txn(&s, 1024);
	struct stalefs_extent_list l;
	struct stalefs_inode inode;
	u8 *data = malloc(64 * 1024);
	u64 old_start, old_len, free_before;
	u32 a, b, i;

	ck_assert_ptr_nonnull(data);
	memset(data, 0x11, 64 * 1024);
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "a", STALEFS_S_IFREG | 0644, 0, 0, &a));
	ck_ok(stalefs_file_write(fs, a, 0, data, 64 * 1024));
	ck_ok(stalefs_txn_commit(fs));
	ck_ok(stalefs_read_inode(fs, a, &inode));
	ck_ok(stalefs_extent_read(fs, a, &inode, &l));
	ck_assert_uint_eq(l.count, 1);
	old_start = l.ext[0].pblk;
	old_len = l.ext[0].len;
	stalefs_extent_list_free(&l);

	/* Freed, and the allocator's goal pointed right at them: still not reused. */
	free_before = le64_to_cpu(fs->sb.s_free_blocks_count);
	ck_ok(stalefs_truncate(fs, a, 0));
	ck_assert_uint_eq(le64_to_cpu(fs->sb.s_free_blocks_count), free_before + old_len);
	ck_assert_uint_eq(stalefs_txn_busy_blocks(fs), old_len);
	fs->block_alloc_goal = old_start;
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "b", STALEFS_S_IFREG | 0644, 0, 0, &b));
	ck_ok(stalefs_file_write(fs, b, 0, data, 64 * 1024));
	ck_ok(stalefs_read_inode(fs, b, &inode));
	ck_ok(stalefs_extent_read(fs, b, &inode, &l));
	for (i = 0; i < l.count; i++)
		ck_assert_msg(l.ext[i].pblk + l.ext[i].len <= old_start || l.ext[i].pblk >= old_start + old_len,
			      "b got blocks %llu-%llu that a freed before the commit",
			      (unsigned long long)l.ext[i].pblk, (unsigned long long)(l.ext[i].pblk + l.ext[i].len - 1));
	stalefs_extent_list_free(&l);
	/* Committed: they are free for anyone. */
	ck_ok(stalefs_txn_commit(fs));
	ck_assert_uint_eq(stalefs_txn_busy_blocks(fs), 0);
	{
		u64 got;

		ck_ok(stalefs_alloc_block(fs, old_start, &got));
		ck_assert_uint_eq(got, old_start);
	}
	/* Allocated and freed by the same transaction: free again at once. */
	ck_ok(stalefs_file_write(fs, a, 0, data, 8192));
	ck_ok(stalefs_truncate(fs, a, 0));
	ck_assert_uint_eq(stalefs_txn_busy_blocks(fs), 0);
	free(data);
	scratch_done(&s);
}
END_TEST

/* New data blocks: on the device before the commit, mapped written once committed. */
START_TEST(data_before_mapping)
{
	struct scratch s, c;
	stalefs_fs *fs = mkfs_txn(&s, 4096), *cfs;
	u8 data[8192], *img;
	u64 pblk;
	u16 flags;
	u32 ino;

	memset(data, 0x77, sizeof(data));
	ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, "f", STALEFS_S_IFREG | 0644, 0, 0, &ino));
	ck_ok(stalefs_txn_commit(fs));
	ck_ok(stalefs_file_write(fs, ino, 4096, data, sizeof(data)));
	ck_ok(stalefs_bmap(fs, ino, 1, &pblk, &flags));
	ck_assert_uint_ne(pblk, 0);
	ck_assert_uint_eq(flags, 0);
	/* The data is there already; the map on the device does not name it yet. */
	img = image(&s);
	ck_assert_mem_eq(img + pblk * 4096, data, sizeof(data));
	cfs = open_copy(&c, img, 0);
	{
		u64 p;
		u16 f;

		ck_ok(stalefs_bmap(cfs, ino, 1, &p, &f));
		ck_assert_uint_eq(p, 0);
	}
	scratch_done(&c);
	free(img);
	ck_ok(stalefs_txn_commit(fs));
	img = image(&s);
	cfs = open_copy(&c, img, 0);
	{
		u64 p;
		u16 f;

		ck_ok(stalefs_bmap(cfs, ino, 2, &p, &f));
		ck_assert_uint_eq(p, pblk + 1);
		ck_assert_uint_eq(f, 0);
	}
	scratch_done(&c);
	free(img);
	scratch_done(&s);
}
END_TEST

/* More metadata than the log holds in one transaction: written in place, counted, consistent. */
static void many_inodes(struct stalefs_mkfs_params *p)
{
	p->inodes_count = 8192;
	p->journal_blocks = 1024;	/* the smallest log: 4 * 1024 creates overflow it */
}

START_TEST(too_large_for_the_log)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, TXN_IMG, 1024, many_inodes);
	struct stalefs_txn_stats st;
	u32 i, ino, jblocks;
	char name[16];

	ck_ok(stalefs_txn_start(fs, 0));
	jblocks = le32_to_cpu(fs->sb.s_journal_blocks);
	/* Four inodes to a 1 KiB inode table block: every fourth create dirties a new one. */
	for (i = 0; i < 4 * jblocks + 8; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		ck_assert_msg(stalefs_create(fs, STALEFS_ROOT_INO, name, STALEFS_S_IFREG | 0644, 0, 0, &ino) == 0,
			      "create %u of %u (%u inodes)", i, 4 * jblocks + 8, fs->geom.inodes_count);
	}
	ck_assert(stalefs_txn_should_commit(fs));
	ck_ok(stalefs_txn_commit(fs));
	stalefs_txn_stats(fs, &st);
	ck_assert_uint_eq(st.overflows, 1);
	ck_assert_uint_eq(st.commits, 0);
	/* A normal one after it. */
	ck_ok(stalefs_unlink(fs, STALEFS_ROOT_INO, "f0", &ino));
	ck_ok(stalefs_drop_link(fs, ino));
	ck_ok(stalefs_txn_commit(fs));
	stalefs_txn_stats(fs, &st);
	ck_assert_uint_eq(st.commits, 1);
	fs = scratch_reopen(&s);
	ck_err(stalefs_namei(fs, STALEFS_ROOT_INO, "f0", false, &ino), STALEFS_ERR_NOT_FOUND);
	snprintf(name, sizeof(name), "f%u", 4 * jblocks + 7);
	ck_ok(stalefs_namei(fs, STALEFS_ROOT_INO, name, false, &ino));
	scratch_done(&s);
}
END_TEST


/* The image is still the bytes of before (which this frees): what failed reached nothing. */
static void expect_unchanged(const struct scratch *s, u8 *before, const char *what)
{
	u8 *after = image(s);

	ck_assert_msg(!memcmp(before, after, TXN_IMG), "%s reached the device", what);
	free(before);
	free(after);
}

/* Atomic (a resize step): too large for the log is refused, nothing reaches its place. */
START_TEST(atomic_too_large_fails)
{
	struct scratch s;
	stalefs_fs *fs = scratch_mkfs_with(&s, TXN_IMG, 1024, many_inodes);
	struct stalefs_journal_recovery r;
	u32 i, ino, jblocks;
	char name[16];
	u8 *before;

	ck_ok(stalefs_txn_start(fs, STALEFS_TXN_ATOMIC));
	before = image(&s);
	jblocks = le32_to_cpu(fs->sb.s_journal_blocks);
	for (i = 0; i < 4 * jblocks + 8; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		ck_ok(stalefs_create(fs, STALEFS_ROOT_INO, name, STALEFS_S_IFREG | 0644, 0, 0, &ino));
	}
	ck_err(stalefs_txn_commit(fs), STALEFS_ERR_JOURNAL_FULL);
	/* Broken: nothing more is written, not even by a stop. */
	ck_err(stalefs_txn_stop(fs), STALEFS_ERR_JOURNAL_ABORTED);
	stalefs_txn_abort(fs);
	ck_assert_ptr_null(fs->txn);
	expect_unchanged(&s, before, "a refused transaction");
	/* The state before it, with an empty log (RECOVER goes at the replay). */
	fs = crash_and_recover(&s, &r);
	ck_assert(r.was_empty);
	ck_err(stalefs_namei(fs, STALEFS_ROOT_INO, "f0", false, &ino), STALEFS_ERR_NOT_FOUND);
	scratch_done(&s);
}
END_TEST

/* An abort drops what the transaction changed, unwritten; reads see the device again. */
START_TEST(abort_leaves_the_device)
{
	struct scratch s;
	stalefs_fs *fs = mkfs_txn_flags(&s, 4096, STALEFS_TXN_ATOMIC);
	struct stalefs_journal_recovery r;
	u8 *before, buf[4096];
	u64 target = fs->geom.blocks_count - 10, blk;

	before = image(&s);	/* RECOVER is on disk from the start on */
	memset(buf, 0xab, sizeof(buf));
	ck_ok(stalefs_write_block(fs, target, buf));
	ck_ok(stalefs_alloc_block(fs, target - 300, &blk));
	memset(buf, 0, sizeof(buf));
	ck_ok(stalefs_read_block(fs, target, buf));
	ck_assert_uint_eq(buf[100], 0xab);	/* reads see the held block */
	stalefs_txn_abort(fs);
	ck_ok(stalefs_read_block(fs, target, buf));
	ck_assert_uint_ne(buf[100], 0xab);
	expect_unchanged(&s, before, "an aborted transaction");
	fs = crash_and_recover(&s, &r);
	ck_assert(r.was_empty);
	ck_assert(!stalefs_test_block(fs, blk));
	scratch_done(&s);
}
END_TEST

Suite *txn_suite(void)
{
	Suite *s = suite_create("txn");
	TCase *tc = tcase_create("txn");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, block_sets);
	tcase_add_test(tc, block_sets_random);
	tcase_add_test(tc, needs_a_clean_journal);
	tcase_add_test(tc, recover_flag_follows);
	tcase_add_loop_test(tc, held_until_commit, 0, 2);
	tcase_add_loop_test(tc, log_replays_the_commit, 0, 4);
	tcase_add_test(tc, freed_blocks_wait_for_commit);
	tcase_add_test(tc, data_before_mapping);
	tcase_add_test(tc, too_large_for_the_log);
	tcase_add_test(tc, atomic_too_large_fails);
	tcase_add_test(tc, abort_leaves_the_device);
	suite_add_tcase(s, tc);
	return s;
}
