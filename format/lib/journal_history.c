// SPDX-License-Identifier: GPL-2.0
/*
 * The journal as history (jls, jcat, jinode, undel -j): every block of the
 * journal and what it holds, the live log and everything older that the
 * ring has not overwritten yet.
 *
 * Recovery follows the log from s_start; history cannot, since what came
 * before s_start (checkpointed transactions, an emptied log) is only found
 * by looking at every block.  So the journal is read from end to end once:
 * each block with the jbd2 magic says what it is (descriptor, commit,
 * revoke) and which transaction it belongs to, and each descriptor's tags
 * claim the blocks after it as copies of filesystem blocks.  When the ring
 * has gone round, a position can be claimed by two descriptors: the newer
 * transaction wrote it last, and a block that carries the magic now is no
 * copy at all.  A second pass reads each copy to check its tag's checksum
 * and to say what the copy is.  The live log (what recovery would replay)
 * is the part the ordinary walk from s_start visits.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

#define CHUNK 256	/* journal blocks read at once */

struct claim {
	u32 target;	/* the log block claimed */
	u32 sequence, flags, csum;
	u64 fs_block;
};

struct commit_rec {
	u32 sequence;
	bool csum_ok;
	u64 sec;
	u32 nsec;
};

struct revoke_rec {
	u64 fs_block;
	u32 sequence;
};

struct scan {
	struct stalefs_journal *j;
	struct stalefs_jhistory *h;
	struct claim *claims;
	size_t nclaims, cap_claims;
	struct commit_rec *commits;
	size_t ncommits, cap_commits;
	struct revoke_rec *revokes;
	size_t nrevokes, cap_revokes;
};

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 64;
	return stalefs_xrealloc(v, *cap * size);
}

/* A descriptor's tags (v3, FORMAT.md 12): each claims the next log block after the last. */
static void descriptor_tags(struct scan *s, u32 at, const u8 *buf, u32 sequence)
{
	struct stalefs_journal *j = s->j;
	const struct stalefs_jbd2_tag3 *tag;
	u32 off = 0, target = at, n = 0;

	while (n < j->maxlen - j->first && (tag = stalefs_jtag_next(j, buf, &off))) {
		target = stalefs_journal_next(j, target);
		s->claims = grow(s->claims, &s->cap_claims, s->nclaims, sizeof(*s->claims));
		s->claims[s->nclaims++] = (struct claim){
			.target = target, .sequence = sequence, .flags = be32toh(tag->t_flags) & 0xFFFF,
			.csum = be32toh(tag->t_checksum),
			.fs_block = (u64)be32toh(tag->t_blocknr) | (u64)be32toh(tag->t_blocknr_high) << 32 };
		n++;
	}
	s->h->b[at].count = n;
}

static void revoke_records(struct scan *s, u32 at, const u8 *buf, u32 sequence)
{
	const struct stalefs_jbd2_revoke_header *rh = (const void *)buf;
	u32 count = be32toh(rh->r_count), off, n = 0;

	if (count > s->j->block_size - 4 || count < sizeof(*rh))
		return;		/* its record count runs past the block: none is trusted */
	for (off = sizeof(*rh); off + 8 <= count; off += 8) {
		__be64 v;

		memcpy(&v, buf + off, sizeof(v));
		s->revokes = grow(s->revokes, &s->cap_revokes, s->nrevokes, sizeof(*s->revokes));
		s->revokes[s->nrevokes++] = (struct revoke_rec){ be64toh(v), sequence };
		n++;
	}
	s->h->b[at].count = n;
}

/* One block of the first pass: what its header says. */
static void look_at(struct scan *s, u32 at, const u8 *buf)
{
	struct stalefs_journal *j = s->j;
	const struct stalefs_jbd2_header *hd = (const void *)buf;
	struct stalefs_jblock *b = &s->h->b[at];
	u32 type = be32toh(hd->h_blocktype), seq = be32toh(hd->h_sequence);

	if (be32toh(hd->h_magic) != STALEFS_JBD2_MAGIC)
		return;
	b->sequence = seq;
	switch (type) {
	case STALEFS_JBD2_DESCRIPTOR_BLOCK:
		b->type = STALEFS_JB_DESCRIPTOR;
		b->csum_ok = be32toh(*(const __be32 *)(buf + j->block_size - 4)) == stalefs_journal_block_tail_csum(j, buf);
		descriptor_tags(s, at, buf, seq);
		break;
	case STALEFS_JBD2_COMMIT_BLOCK: {
		const struct stalefs_jbd2_commit *c = (const void *)buf;

		b->type = STALEFS_JB_COMMIT;
		b->csum_ok = be32toh(c->h_chksum[0]) == stalefs_journal_commit_csum(j, buf);
		b->commit_sec = be64toh(c->h_commit_sec);
		b->commit_nsec = be32toh(c->h_commit_nsec);
		s->commits = grow(s->commits, &s->cap_commits, s->ncommits, sizeof(*s->commits));
		s->commits[s->ncommits++] = (struct commit_rec){ seq, b->csum_ok, b->commit_sec, b->commit_nsec };
		break;
	}
	case STALEFS_JBD2_REVOKE_BLOCK:
		b->type = STALEFS_JB_REVOKE;
		b->csum_ok = be32toh(*(const __be32 *)(buf + j->block_size - 4)) == stalefs_journal_block_tail_csum(j, buf);
		revoke_records(s, at, buf, seq);
		break;
	default:
		b->type = STALEFS_JB_OTHER;
	}
}

/* Newest transaction first (tid arithmetic); for one transaction, the later claim (a later lap). */
static int cmp_claim(const void *x, const void *y)
{
	const struct claim *a = x, *b = y;

	if (a->target != b->target)
		return a->target < b->target ? -1 : 1;
	if (a->sequence != b->sequence)
		return stalefs_tid_gt(a->sequence, b->sequence) ? -1 : 1;
	return 0;
}

static int cmp_ref(const void *x, const void *y)
{
	const struct stalefs_jcopy_ref *a = x, *b = y;

	if (a->fs_block != b->fs_block)
		return a->fs_block < b->fs_block ? -1 : 1;
	return a->n < b->n ? -1 : a->n > b->n;
}

size_t stalefs_jhistory_copies_of(const struct stalefs_jhistory *h, u64 fs_block, size_t *first)
{
	size_t lo = 0, hi = h->copies, end;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->by_block[mid].fs_block < fs_block)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < h->copies && h->by_block[end].fs_block == fs_block; end++)
		;
	*first = lo;
	return end - lo;
}

static int cmp_commit(const void *x, const void *y)
{
	const struct commit_rec *a = x, *b = y;

	if (a->sequence != b->sequence)
		return a->sequence < b->sequence ? -1 : 1;
	return (int)b->csum_ok - (int)a->csum_ok;	/* a good commit block first */
}

static int cmp_revoke(const void *x, const void *y)
{
	const struct revoke_rec *a = x, *b = y;

	if (a->fs_block != b->fs_block)
		return a->fs_block < b->fs_block ? -1 : 1;
	return 0;
}

static const struct commit_rec *find_commit(const struct scan *s, u32 seq)
{
	size_t lo = 0, hi = s->ncommits;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->commits[mid].sequence < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ncommits && s->commits[lo].sequence == seq ? &s->commits[lo] : NULL;
}

/* A revoke record of the copy's transaction or a later one names its block (jbd2's rule). */
static bool is_revoked(const struct scan *s, u64 fs_block, u32 seq)
{
	size_t lo = 0, hi = s->nrevokes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->revokes[mid].fs_block < fs_block)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->nrevokes && s->revokes[lo].fs_block == fs_block; lo++)
		if (!stalefs_tid_gt(seq, s->revokes[lo].sequence))
			return true;
	return false;
}

/* The live log: the blocks of each transaction the walk from s_start completes with a good
 * commit block (what recovery replays), held back until that commit is seen. */
struct live_walk {
	struct stalefs_jhistory *h;
	u32 *pending;
	size_t n, cap;
};

static int mark_live(const struct stalefs_jwalk_entry *e, void *priv)
{
	struct live_walk *w = priv;
	size_t i;

	if (e->what == STALEFS_JW_END || e->what == STALEFS_JW_REVOKE_RECORD || e->log_block >= w->h->maxlen)
		return 0;
	if (e->what == STALEFS_JW_COMMIT) {
		if (!e->csum_ok)
			return 1;	/* the log ends before this transaction */
		for (i = 0; i < w->n; i++)
			w->h->b[w->pending[i]].live = true;
		w->h->b[e->log_block].live = true;
		w->n = 0;
		return 0;
	}
	w->pending = grow(w->pending, &w->cap, w->n, sizeof(*w->pending));
	w->pending[w->n++] = e->log_block;
	return 0;
}

/* The copies: each claimed block whose newest claim holds (no magic there now). */
static errcode_t resolve_copies(struct scan *s)
{
	struct stalefs_journal *j = s->j;
	struct stalefs_jhistory *h = s->h;
	u8 *buf = stalefs_xmalloc(j->block_size);
	errcode_t err = 0;
	size_t i;

	if (s->nclaims)
		qsort(s->claims, s->nclaims, sizeof(*s->claims), cmp_claim);
	for (i = 0; i < s->nclaims && !err; i++) {
		const struct claim *c = &s->claims[i];
		struct stalefs_jblock *b = &h->b[c->target];

		if (i > 0 && s->claims[i - 1].target == c->target)
			continue;	/* an older claim on a block a newer transaction wrote */
		if (b->type != STALEFS_JB_UNUSED)
			continue;	/* a journal block of its own now: the copy was written over */
		err = stalefs_journal_read_block(j, c->target, buf);
		if (err)
			break;
		b->type = STALEFS_JB_COPY;
		b->sequence = c->sequence;
		b->flags = c->flags;
		b->fs_block = c->fs_block;
		b->csum_ok = stalefs_journal_tag_csum(j, c->sequence, buf) == c->csum;
		if (c->flags & STALEFS_JBD2_FLAG_ESCAPE)
			*(__be32 *)buf = htobe32(STALEFS_JBD2_MAGIC);
		b->kind = stalefs_block_classify(j->fs, c->fs_block, buf, &b->group, &b->owner);
		h->copies++;
	}
	free(buf);
	return err;
}

errcode_t stalefs_jhistory_build(struct stalefs_journal *j, struct stalefs_jhistory *h)
{
	struct scan s = { .j = j, .h = h };
	u8 *buf = stalefs_xmalloc((size_t)CHUNK * j->block_size);
	errcode_t err = 0;
	u32 n, i, k;


	memset(h, 0, sizeof(*h));
	h->maxlen = j->maxlen;
	h->b = stalefs_xcalloc(j->maxlen, sizeof(*h->b));
	h->b[0].type = STALEFS_JB_SUPER;
	for (n = j->first; n < j->maxlen && !err; n += CHUNK) {
		u32 count = j->maxlen - n < CHUNK ? j->maxlen - n : CHUNK;

		err = stalefs_io_read_uncached(j->fs->io, j->fs_start + n, count, buf);
		for (i = 0; i < count && !err; i++)
			look_at(&s, n + i, buf + (size_t)i * j->block_size);
	}
	free(buf);
	if (!err)
		err = resolve_copies(&s);
	if (err) {
		stalefs_jhistory_free(h);
		goto out;
	}
	if (s.ncommits)
		qsort(s.commits, s.ncommits, sizeof(*s.commits), cmp_commit);
	if (s.nrevokes)
		qsort(s.revokes, s.nrevokes, sizeof(*s.revokes), cmp_revoke);
	/* What each transaction came to: committed (a good commit block), and when. */
	for (k = 0; k < h->maxlen; k++) {
		struct stalefs_jblock *b = &h->b[k];
		const struct commit_rec *c;

		if (b->type != STALEFS_JB_DESCRIPTOR && b->type != STALEFS_JB_REVOKE && b->type != STALEFS_JB_COPY &&
		    b->type != STALEFS_JB_COMMIT)
			continue;
		c = find_commit(&s, b->sequence);
		b->committed = c && c->csum_ok;
		if (c && b->type != STALEFS_JB_COMMIT) {
			b->commit_sec = c->sec;
			b->commit_nsec = c->nsec;
		}
		if (b->type == STALEFS_JB_COPY)
			b->revoked = is_revoked(&s, b->fs_block, b->sequence);
	}
	for (k = 0; k < s.ncommits; k++)
		if (!k || s.commits[k].sequence != s.commits[k - 1].sequence) {
			h->transactions++;
			if (!h->have_range || stalefs_tid_gt(h->oldest, s.commits[k].sequence))
				h->oldest = s.commits[k].sequence;
			if (!h->have_range || stalefs_tid_gt(s.commits[k].sequence, h->newest))
				h->newest = s.commits[k].sequence;
			h->have_range = true;
		}
	/* Every copy by the block it is a copy of: one inode's or one node's copies at once. */
	h->by_block = stalefs_xmalloc((h->copies ? h->copies : 1) * sizeof(*h->by_block));
	for (k = 0, n = 0; k < h->maxlen; k++)
		if (h->b[k].type == STALEFS_JB_COPY)
			h->by_block[n++] = (struct stalefs_jcopy_ref){ h->b[k].fs_block, k };
	if (n)
		qsort(h->by_block, n, sizeof(*h->by_block), cmp_ref);
	/* The live log, as recovery would follow it. */
	if (j->jsb.s_start) {
		struct live_walk w = { .h = h };

		stalefs_journal_walk(j, 0, mark_live, &w);
		free(w.pending);
	}
out:
	free(s.claims);
	free(s.commits);
	free(s.revokes);
	return err;
}

void stalefs_jhistory_free(struct stalefs_jhistory *h)
{
	free(h->b);
	free(h->by_block);
	h->by_block = NULL;
	h->b = NULL;
	h->maxlen = 0;
}

errcode_t stalefs_jhistory_read_copy(struct stalefs_journal *j, const struct stalefs_jhistory *h, u32 n, void *buf)
{
	errcode_t err;

	if (n >= h->maxlen)
		return STALEFS_ERR_BAD_BLOCK_NUM;
	err = stalefs_journal_read_block(j, n, buf);
	if (!err && h->b[n].type == STALEFS_JB_COPY && (h->b[n].flags & STALEFS_JBD2_FLAG_ESCAPE))
		*(__be32 *)buf = htobe32(STALEFS_JBD2_MAGIC);
	return err;
}

const char *stalefs_jblock_type_name(int type)
{
	switch (type) {
	case STALEFS_JB_SUPER: return "journal superblock";
	case STALEFS_JB_DESCRIPTOR: return "descriptor block";
	case STALEFS_JB_COMMIT: return "commit block";
	case STALEFS_JB_REVOKE: return "revoke block";
	case STALEFS_JB_COPY: return "copy";
	case STALEFS_JB_OTHER: return "unknown journal block";
	}
	return "unused";
}

/* ---- one inode's copies ---- */

static int cmp_copy(const void *x, const void *y)
{
	const struct stalefs_jinode_copy *a = x, *b = y;

	if (a->sequence != b->sequence)
		return stalefs_tid_gt(a->sequence, b->sequence) ? -1 : 1;
	return a->log_block < b->log_block ? 1 : -1;
}

errcode_t stalefs_jhistory_inode(struct stalefs_journal *j, const struct stalefs_jhistory *h, u32 ino,
				 struct stalefs_jinode_copy **ret, size_t *count)
{
	stalefs_fs *fs = j->fs;
	const struct stalefs_geom *g = &fs->geom;
	struct stalefs_jinode_copy *v = NULL;
	size_t n = 0, cap = 0, first, ncopies, i;
	u64 block;
	u32 off;
	u8 *buf;
	errcode_t err = 0;

	*ret = NULL;
	*count = 0;
	if (!stalefs_ino_valid(fs, ino))
		return STALEFS_ERR_BAD_INODE_NUM;
	stalefs_ino_locate(g, &fs->groups[stalefs_ino_group(g, ino)].desc, ino, &block, &off);
	buf = stalefs_xmalloc(j->block_size);
	ncopies = stalefs_jhistory_copies_of(h, block, &first);
	for (i = first; i < first + ncopies && !err; i++) {
		u32 k = h->by_block[i].n;
		const struct stalefs_jblock *b = &h->b[k];
		struct stalefs_jinode_copy *c;

		err = stalefs_jhistory_read_copy(j, h, k, buf);
		if (err)
			break;
		v = grow(v, &cap, n, sizeof(*v));
		c = &v[n++];
		memset(c, 0, sizeof(*c));
		c->log_block = k;
		c->sequence = b->sequence;
		c->live = b->live;
		c->committed = b->committed;
		c->commit_sec = b->commit_sec;
		c->commit_nsec = b->commit_nsec;
		c->block_csum_ok = b->csum_ok;
		memcpy(&c->inode, buf + off, sizeof(c->inode));
		if (c->inode.i_mode || c->inode.i_checksum) {
			c->rule = stalefs_verify_inode_csum(fs->seed, ino, &c->inode);
			if (!c->rule && c->inode.i_mode)
				c->rule = stalefs_verify_inode(g, ino, &c->inode);
		}
	}
	free(buf);
	if (err) {
		free(v);
		return err;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_copy);
	*ret = v;
	*count = n;
	return 0;
}

/* ---- an old copy's extent map ---- */

struct map_ctx {
	struct stalefs_journal *j;
	const struct stalefs_jhistory *h;
	u32 ino, gen, sequence;
	struct stalefs_extent_list *map;
	struct stalefs_jmap_nodes *nodes;
	u8 *buf;
};

/* The node block as the copy's transaction knew it: the newest journaled copy no newer than
 * it that is this inode's node, else the disk when it still is.  Where it came from: *from. */
static errcode_t node_block(struct map_ctx *m, u64 block, int depth, int *from, u32 *log_block)
{
	stalefs_fs *fs = m->j->fs;
	u32 max = stalefs_extblock_max_entries(fs->block_size), k, best = 0;
	size_t first, n = stalefs_jhistory_copies_of(m->h, block, &first), i;
	bool have = false;
	errcode_t err;

	for (i = first; i < first + n; i++) {
		const struct stalefs_jblock *b = &m->h->b[k = m->h->by_block[i].n];

		if (b->csum_ok &&
		    !stalefs_tid_gt(b->sequence, m->sequence) &&
		    (!have || stalefs_tid_gt(b->sequence, m->h->b[best].sequence))) {
			best = k;
			have = true;
		}
	}
	if (have) {
		err = stalefs_jhistory_read_copy(m->j, m->h, best, m->buf);
		if (!err && !stalefs_verify_extblock_header(m->buf, block, m->ino, m->gen) &&
		    !stalefs_verify_extblock_csum(fs->seed, m->buf, fs->block_size) &&
		    !stalefs_verify_extent_node(&fs->geom, &((const struct stalefs_extent_block *)m->buf)->eb_hdr, max, depth)) {
			*from = STALEFS_JMAP_FROM_JOURNAL;
			*log_block = best;
			return 0;
		}
	}
	err = stalefs_read_block(fs, block, m->buf);
	if (err)
		return err;
	if (stalefs_verify_extblock_header(m->buf, block, m->ino, m->gen) ||
	    stalefs_verify_extblock_csum(fs->seed, m->buf, fs->block_size) ||
	    stalefs_verify_extent_node(&fs->geom, &((const struct stalefs_extent_block *)m->buf)->eb_hdr, max, depth))
		return STALEFS_ERR_EXTENT_CORRUPT;
	*from = STALEFS_JMAP_FROM_DISK;
	return 0;
}

static errcode_t map_node(struct map_ctx *m, const struct stalefs_extent_header *eh)
{
	u32 entries = le16_to_cpu(eh->eh_entries), depth = le16_to_cpu(eh->eh_depth), i;
	errcode_t err = 0;

	if (depth == 0) {
		for (i = 0; i < entries && !err; i++) {
			const struct stalefs_extent *ex = &stalefs_eh_extents(eh)[i];

			err = stalefs_extent_list_append(m->map, le32_to_cpu(ex->ee_lblk), le16_to_cpu(ex->ee_len),
							 le64_to_cpu(ex->ee_pblk), le16_to_cpu(ex->ee_flags));
		}
		return err;
	}
	for (i = 0; i < entries && !err; i++) {
		u64 child = le64_to_cpu(stalefs_eh_index(eh)[i].ei_pblk);
		struct stalefs_jmap_node *nd;
		u8 *copy;
		int from = 0;
		u32 log_block = 0;

		err = node_block(m, child, (int)depth - 1, &from, &log_block);
		if (err) {
			m->nodes->bad = child;
			return err;
		}
		m->nodes->v = stalefs_xrealloc(m->nodes->v, (m->nodes->n + 1) * sizeof(*m->nodes->v));
		nd = &m->nodes->v[m->nodes->n++];
		nd->block = child;
		nd->from = from;
		nd->log_block = log_block;
		/* The child's entries before the buffer is used for its own children. */
		copy = stalefs_xmalloc(m->j->block_size);
		memcpy(copy, m->buf, m->j->block_size);
		err = map_node(m, &((const struct stalefs_extent_block *)copy)->eb_hdr);
		free(copy);
	}
	return err;
}

errcode_t stalefs_jhistory_extent_map(struct stalefs_journal *j, const struct stalefs_jhistory *h, u32 ino,
				      const struct stalefs_jinode_copy *c, struct stalefs_extent_list *map,
				      struct stalefs_jmap_nodes *nodes)
{
	const struct stalefs_extent_header *root = (const void *)c->inode.i_block;
	struct map_ctx m = { .j = j, .h = h, .ino = ino, .gen = le32_to_cpu(c->inode.i_generation),
			     .sequence = c->sequence, .map = map, .nodes = nodes };
	errcode_t err;

	memset(map, 0, sizeof(*map));
	memset(nodes, 0, sizeof(*nodes));
	if (!stalefs_inode_has_extents(&c->inode))
		return 0;
	if (stalefs_verify_extent_node(&j->fs->geom, root, STALEFS_ROOT_EXTENTS, -1))
		return STALEFS_ERR_EXTENT_CORRUPT;
	m.buf = stalefs_xmalloc(j->block_size);
	err = map_node(&m, root);
	free(m.buf);
	if (err) {
		stalefs_extent_list_free(map);
		return err;
	}
	stalefs_extent_list_normalise(map);
	return 0;
}
