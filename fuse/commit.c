// SPDX-License-Identifier: GPL-2.0
/*
 * When the running transaction commits (libstalefs.h, "the journaled write
 * path"): at fsync and fsyncdir; when it reaches a quarter of the log; when
 * blocks it freed (which it may not reuse before it commits) are a quarter
 * of what is free; and, from a thread of its own, once its oldest change is
 * commit= seconds old (5 by default, as the kernel module's commit=).  On an
 * image without a journal the same points write the block cache back.
 */
#include <errno.h>
#include <time.h>
#include <syslog.h>
#include "stalefs_fuse.h"

static u64 now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec;
}

int sfuse_writable(const struct sfuse *s)
{
	if (s->opts.ro || !(s->fs->flags & STALEFS_OPEN_RW) || stalefs_io_is_overlay(s->fs->io))
		return EROFS;
	return s->aborted ? EROFS : 0;
}

errcode_t sfuse_commit(struct sfuse *s)
{
	errcode_t err;

	if (sfuse_writable(s))
		return 0;
	err = stalefs_flush(s->fs);
	if (err) {
		/* The library stops writing after a failed commit; so do we (EROFS from now on). */
		s->aborted = true;
		sfuse_log(LOG_CRIT, "%s: %s while committing: the filesystem is read-only now; unmount it and "
			  "run fsck.stalefs", s->opts.image, error_message(err));
		return err;
	}
	s->dirty_since = 0;
	return 0;
}

void sfuse_reply_commit(fuse_req_t req)
{
	errcode_t err;

	pthread_mutex_lock(&S.lock);
	err = sfuse_commit(&S);
	pthread_mutex_unlock(&S.lock);
	fuse_reply_err(req, err ? sfuse_errno(err) : 0);
}

void sfuse_changed(struct sfuse *s)
{
	u64 busy = stalefs_txn_busy_blocks(s->fs), free_blocks = le64_to_cpu(s->fs->sb.s_free_blocks_count);

	if (!s->dirty_since)
		s->dirty_since = now_secs();
	if (stalefs_txn_should_commit(s->fs) || (busy && busy * 4 > free_blocks))
		sfuse_commit(s);
}

static void *committer(void *arg)
{
	struct sfuse *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&s->commit_cond, &s->lock, &until);
		if (!s->stopping && s->dirty_since && now_secs() - s->dirty_since >= s->opts.commit_secs)
			sfuse_commit(s);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

void sfuse_committer_start(struct sfuse *s)
{
	if (sfuse_writable(s))
		return;
	pthread_cond_init(&s->commit_cond, NULL);
	if (pthread_create(&s->committer, NULL, committer, s) == 0)
		s->committer_running = true;
	else
		sfuse_log(LOG_WARNING, "cannot start the commit thread: changes commit at fsync and unmount only");
}

void sfuse_committer_stop(struct sfuse *s)
{
	if (!s->committer_running)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_signal(&s->commit_cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->committer, NULL);
	s->committer_running = false;
}
