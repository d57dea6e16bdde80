/* Scratch images for the unit tests: a sparse temporary file formatted by stalefs_mkfs. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "unit.h"

stalefs_fs *scratch_mkfs_with(struct scratch *s, u64 bytes, u32 bs,
			      void (*tweak)(struct stalefs_mkfs_params *p))
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int fd;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s/stalefs-unit-XXXXXX", dir);
	fd = mkstemp(s->path);
	ck_assert_msg(fd >= 0, "cannot make a scratch file in %s", dir);
	ck_assert_int_eq(ftruncate(fd, (off_t)bytes), 0);
	/* A failed assertion ends the test with _exit(): nothing would remove the file then.
	 * So it goes now, and the library reaches it through this descriptor. */
	unlink(s->path);
	s->fd = fd;
	snprintf(s->path, sizeof(s->path), "/proc/self/fd/%d", fd);
	stalefs_mkfs_defaults(&s->p, bytes, bs);
	if (tweak)
		tweak(&s->p);
	ck_ok(stalefs_mkfs(s->path, &s->p, &s->fs));
	return s->fs;
}

stalefs_fs *scratch_mkfs(struct scratch *s, u64 bytes, u32 bs)
{
	return scratch_mkfs_with(s, bytes, bs, NULL);
}

stalefs_fs *scratch_reopen(struct scratch *s)
{
	ck_ok(stalefs_close(s->fs));
	s->fs = NULL;
	ck_ok(stalefs_open(s->path, STALEFS_OPEN_RW, 0, 0, &s->fs));
	return s->fs;
}

void scratch_done(struct scratch *s)
{
	if (s->fs)
		ck_ok(stalefs_close(s->fs));
	s->fs = NULL;
	if (s->path[0])
		close(s->fd);
	s->path[0] = '\0';
}

void unit_journal_block(stalefs_fs *fs, u64 target, u64 seed, void *blk)
{
	struct stalefs_journal *j;
	struct stalefs_jtrans *t;

	ck_assert(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	ck_ok(stalefs_journal_open(fs, 0, &j));
	ck_ok(stalefs_jtrans_begin(j, &t));
	unit_fill(&seed, blk, fs->block_size);
	ck_ok(stalefs_jtrans_add_block(t, target, blk));
	ck_ok(stalefs_jtrans_commit(t, 0));
	stalefs_journal_close(j);
}

u64 unit_rand(u64 *state)
{
	u64 x = *state ? *state : 0x9E3779B97F4A7C15ULL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

void unit_fill(u64 *state, void *buf, size_t len)
{
	u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(unit_rand(state) >> 24);
}
