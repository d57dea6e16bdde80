// SPDX-License-Identifier: GPL-2.0
/*
 * Deleted files back from the journal's older copies of their inodes.
 *
 * The kernel frees a deleted file's extents before it marks the inode
 * deleted, so the inode on disk no longer says where the data was; a copy of
 * its inode table block journaled while the file lived still does
 * (stalefs_jhistory_inode), and so do copies of its index nodes
 * (stalefs_jhistory_extent_map).  The data itself is not journaled: it is on
 * disk until its blocks are allocated again, which the block bitmaps tell.
 *
 *   jrecover [-s transaction] [-f] filespec out_file
 *       read-only: the content the copy maps, written to out_file; blocks in
 *       use now (reused: someone else's data) are left as zeros unless -f
 *   undel -j [-s transaction] <ino> [name]   (lsdel.c; needs -w)
 *       the inode itself back as the copy had it, if none of its blocks was reused
 *
 * Without -s the newest copy of the inode in use (links, no deletion time,
 * good checksum) is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include "debugfs.h"

void dbg_map_load(struct stalefs_journal *j, const struct stalefs_jhistory *h, u32 ino,
		  const struct stalefs_jinode_copy *c, struct dbg_map_state *ms)
{
	u32 i;
	size_t k;

	memset(ms, 0, sizeof(*ms));
	ms->err = stalefs_jhistory_extent_map(j, h, ino, c, &ms->map, &ms->nodes);
	if (ms->err)
		return;
	ms->known = dbg.fs->bitmaps_loaded;
	for (i = 0; i < ms->map.count; i++) {
		const struct stalefs_ext *e = &ms->map.ext[i];
		u32 b;

		ms->blocks += e->len;
		for (b = 0; ms->known && b < e->len; b++)
			ms->in_use += stalefs_test_block(dbg.fs, e->pblk + b);
	}
	for (k = 0; k < ms->nodes.n; k++)
		ms->in_use += ms->known && stalefs_test_block(dbg.fs, ms->nodes.v[k].block);
}

void dbg_map_free(struct dbg_map_state *ms)
{
	stalefs_extent_list_free(&ms->map);
	free(ms->nodes.v);
	memset(ms, 0, sizeof(*ms));
}

/* "free now", "in use now (reused)", or how many of a run are. */
static void run_state(u64 pblk, u32 len, char *out, size_t n)
{
	u32 used = 0, b;

	if (!dbg.fs->bitmaps_loaded) {
		snprintf(out, n, "state unknown (no bitmaps)");
		return;
	}
	for (b = 0; b < len; b++)
		used += stalefs_test_block(dbg.fs, pblk + b);
	if (!used)
		snprintf(out, n, "free now");
	else if (used == len)
		snprintf(out, n, "in use now (reused)");
	else
		snprintf(out, n, "%u of %u in use now (reused)", used, len);
}

void dbg_map_print(const struct dbg_map_state *ms, const char *indent)
{
	char st[64];
	size_t k;
	u32 i;

	if (ms->err) {
		printf("%sextent map: %s", indent, error_message(ms->err));
		if (ms->nodes.bad)
			printf(" (index node %llu: no journaled copy and the disk no longer holds it)",
			       (unsigned long long)ms->nodes.bad);
		printf("\n");
		return;
	}
	if (!ms->map.count) {
		printf("%sextents: none\n", indent);
		return;
	}
	for (k = 0; k < ms->nodes.n; k++) {
		run_state(ms->nodes.v[k].block, 1, st, sizeof(st));
		printf("%sindex node %llu (from the %s): %s\n", indent, (unsigned long long)ms->nodes.v[k].block,
		       ms->nodes.v[k].from == STALEFS_JMAP_FROM_JOURNAL ? "journal" : "disk", st);
	}
	for (i = 0; i < ms->map.count; i++) {
		const struct stalefs_ext *e = &ms->map.ext[i];

		run_state(e->pblk, e->len, st, sizeof(st));
		printf("%slblk %u-%u -> blocks %llu-%llu%s%s: %s\n", indent, e->lblk, e->lblk + e->len - 1,
		       (unsigned long long)e->pblk, (unsigned long long)(e->pblk + e->len - 1), e->flags ? " " : "",
		       dbg_ext_flags(e->flags), st);
	}
	if (ms->known)
		printf("%s%llu block%s mapped, %llu in use now%s\n", indent, (unsigned long long)ms->blocks,
		       ms->blocks == 1 ? "" : "s", (unsigned long long)ms->in_use,
		       ms->in_use ? " (reused: what they hold is not this file's)" : ": all recoverable");
}

void dbg_copy_json(const char *sep, const struct stalefs_jinode_copy *c, const struct dbg_map_state *ms)
{
	const struct stalefs_inode *in = &c->inode;
	u32 i;

	printf("%s{\"journal_block\":%u,\"sequence\":%u,\"live\":%s,\"committed\":%s", sep, c->log_block, c->sequence,
	       c->live ? "true" : "false", c->committed ? "true" : "false");
	if (c->committed)
		printf(",\"commit_time\":%llu", (unsigned long long)c->commit_sec);
	printf(",\"verdict\":");
	json_str(stdout, c->rule ? stalefs_rule_msg(c->rule) : "ok");
	printf(",\"mode\":%u,\"links_count\":%u,\"uid\":%u,\"gid\":%u,\"size\":%llu,\"flags\":%u,\"generation\":%u,"
	       "\"atime\":%lld,\"mtime\":%lld,\"ctime\":%lld,\"crtime\":%lld,\"dtime\":%llu",
	       le16_to_cpu(in->i_mode), le16_to_cpu(in->i_links_count), le32_to_cpu(in->i_uid), le32_to_cpu(in->i_gid),
	       (unsigned long long)le64_to_cpu(in->i_size), le32_to_cpu(in->i_flags), le32_to_cpu(in->i_generation),
	       (long long)le64_to_cpu(in->i_atime), (long long)le64_to_cpu(in->i_mtime), (long long)le64_to_cpu(in->i_ctime),
	       (long long)le64_to_cpu(in->i_crtime), (unsigned long long)le64_to_cpu(in->i_dtime));
	if (ms->err) {
		printf(",\"map_error\":");
		json_str(stdout, error_message(ms->err));
		printf("}");
		return;
	}
	printf(",\"extents\":[");
	for (i = 0; i < ms->map.count; i++)
		printf("%s{\"lblk\":%u,\"len\":%u,\"pblk\":%llu,\"flags\":%u}", i ? "," : "", ms->map.ext[i].lblk,
		       ms->map.ext[i].len, (unsigned long long)ms->map.ext[i].pblk, ms->map.ext[i].flags);
	printf("],\"index_nodes\":%zu,\"blocks\":%llu", ms->nodes.n, (unsigned long long)ms->blocks);
	if (ms->known)
		printf(",\"blocks_in_use_now\":%llu", (unsigned long long)ms->in_use);
	printf("}");
}

/* The copy to recover from: transaction seq when asked, else the newest of the file alive. */
static bool pick_copy(const char *cmd, u32 ino, const struct stalefs_jinode_copy *v, size_t n, bool have_seq,
		      u32 seq, size_t *pick)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct stalefs_inode *in = &v[i].inode;

		if (have_seq ? v[i].sequence == seq
			     : in->i_mode && in->i_links_count && !in->i_dtime && !v[i].rule) {
			*pick = i;
			return true;
		}
	}
	if (have_seq)
		dbg_msg(cmd, "no copy of inode %u in transaction %u (jinode lists them)", ino, seq);
	else if (n)
		dbg_msg(cmd, "none of the %zu journaled cop%s of inode %u shows it in use with a good checksum "
			"(jinode lists them; -s picks one)", n, n == 1 ? "y" : "ies", ino);
	else
		dbg_msg(cmd, "the journal holds no copy of inode %u", ino);
	return false;
}

/* The inode's copies and the one to use: false (reported) when there is none. */
static bool load_copy(const char *cmd, u32 ino, bool have_seq, u32 seq, struct stalefs_journal **j,
		      struct stalefs_jhistory *h, struct stalefs_jinode_copy **v, size_t *pick)
{
	size_t n;
	errcode_t err;

	if (!dbg_jhistory_open(cmd, j, h))
		return false;
	err = stalefs_jhistory_inode(*j, h, ino, v, &n);
	if (err) {
		dbg_err(cmd, err, "looking for inode %u in the journal", ino);
	} else if (pick_copy(cmd, ino, *v, n, have_seq, seq, pick)) {
		char t[64] = "";

		if ((*v)[*pick].committed)
			dbg_time_string((s64)(*v)[*pick].commit_sec, t, sizeof(t));
		printf("Inode %u as transaction %u left it (journal block %u, %s, %s%s): %s, %llu bytes\n", ino,
		       (*v)[*pick].sequence, (*v)[*pick].log_block, (*v)[*pick].live ? "live" : "old",
		       (*v)[*pick].committed ? "committed " : "uncommitted", t,
		       dbg_mode_type(le16_to_cpu((*v)[*pick].inode.i_mode)),
		       (unsigned long long)le64_to_cpu((*v)[*pick].inode.i_size));
		return true;
	}
	free(*v);
	*v = NULL;
	dbg_jhistory_close(*j, h);
	return false;
}

static bool parse_seq_opts(int argc, const char *const *argv, const char *opts, const char *usage, bool *force,
			   bool *have_seq, u32 *seq)
{
	int c;

	optind = 0;
	while ((c = getopt(argc, (char *const *)argv, opts)) != -1) {
		switch (c) {
		case 'f': *force = true; break;
		case 's':
			if (!dbg_parse_u32(argv[0], optarg, "transaction", seq))
				return false;
			*have_seq = true;
			break;
		default:
			dbg_usage(argv[0], usage);
			return false;
		}
	}
	return true;
}

/* The bytes a copy maps, written to fd: reused blocks left as zeros unless force. */
static errcode_t write_content(const struct stalefs_jinode_copy *c, const struct dbg_map_state *ms, int fd,
			       bool force, u64 *reused, u64 *copied)
{
	u32 bs = dbg.fs->block_size, i;
	u64 size = le64_to_cpu(c->inode.i_size);
	u8 *buf = malloc(bs);
	errcode_t err = 0;

	if (!buf)
		return STALEFS_ERR_NO_MEMORY;
	if (le32_to_cpu(c->inode.i_flags) & STALEFS_INODE_INLINE_FL) {
		/* A symlink whose target is in the inode. */
		size = size < STALEFS_IBLOCK_SIZE ? size : STALEFS_IBLOCK_SIZE;
		if (pwrite(fd, c->inode.i_block, (size_t)size, 0) != (ssize_t)size)
			err = errno;
	}
	for (i = 0; i < ms->map.count && !err; i++) {
		const struct stalefs_ext *e = &ms->map.ext[i];
		u32 b;

		for (b = 0; b < e->len && !err; b++) {
			u64 off = (u64)(e->lblk + b) * bs;
			size_t n = off >= size ? 0 : size - off < bs ? (size_t)(size - off) : bs;
			bool used = dbg.fs->bitmaps_loaded && stalefs_test_block(dbg.fs, e->pblk + b);

			if (!n)
				break;
			if (used)
				(*reused)++;
			if ((used && !force) || (e->flags & STALEFS_EXT_UNWRITTEN))
				continue;	/* a hole: zeros */
			err = stalefs_io_read(dbg.fs->io, e->pblk + b, 1, buf);
			if (!err && pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
				err = errno;
			(*copied)++;
		}
	}
	if (!err && ftruncate(fd, (off_t)(le32_to_cpu(c->inode.i_flags) & STALEFS_INODE_INLINE_FL ? size
					   : le64_to_cpu(c->inode.i_size))) < 0)
		err = errno;
	free(buf);
	return err;
}

DBG_CMD(do_jrecover)
{
	static const char usage[] = "[-s transaction] [-f] <filespec> out_file";
	struct stalefs_journal *j;
	struct stalefs_jhistory h;
	struct stalefs_jinode_copy *v;
	struct dbg_map_state ms;
	bool force = false, have_seq = false;
	u64 reused = 0, copied = 0;
	u32 seq = 0, ino;
	size_t pick;
	int fd;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!parse_seq_opts(argc, argv, "s:f", usage, &force, &have_seq, &seq))
		return;
	if (argc - optind != 2) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_fs(argv[0]) || !dbg_name_to_ino(argv[0], argv[optind], &ino) ||
	    !load_copy(argv[0], ino, have_seq, seq, &j, &h, &v, &pick))
		return;
	dbg_map_load(j, &h, ino, &v[pick], &ms);
	dbg_map_print(&ms, "  ");
	if (ms.err) {
		dbg_err(argv[0], ms.err, "reading the extent map of inode %u in transaction %u", ino, v[pick].sequence);
		goto out;
	}
	fd = open(argv[optind + 1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		dbg_err(argv[0], errno, "creating %s", argv[optind + 1]);
		goto out;
	}
	err = write_content(&v[pick], &ms, fd, force, &reused, &copied);
	if (close(fd) < 0 && !err)
		err = errno;
	if (err) {
		dbg_err(argv[0], err, "writing %s", argv[optind + 1]);
		goto out;
	}
	printf("Wrote %llu bytes to %s: %llu block%s copied", (unsigned long long)le64_to_cpu(v[pick].inode.i_size),
	       argv[optind + 1], (unsigned long long)copied, copied == 1 ? "" : "s");
	if (reused)
		printf(", %llu reused block%s %s", (unsigned long long)reused, reused == 1 ? "" : "s",
		       force ? "copied anyway (-f): not this file's data" : "left as zeros");
	printf("\n");
	if (reused && !force)
		dbg_msg(argv[0], "%llu block%s of inode %u %s in use now (reused): left as zeros in %s",
			(unsigned long long)reused, reused == 1 ? "" : "s", ino, reused == 1 ? "is" : "are", argv[optind + 1]);
out:
	dbg_map_free(&ms);
	free(v);
	dbg_jhistory_close(j, &h);
}

/* undel -j: the inode back as the copy had it (lsdel.c parses the command). */
void dbg_undel_journal(const char *cmd, u32 ino, const char *name, bool have_seq, u32 seq)
{
	struct stalefs_journal *j;
	struct stalefs_jhistory h;
	struct stalefs_jinode_copy *v;
	struct stalefs_inode now, inode;
	struct dbg_map_state ms;
	size_t pick, k;
	int rule;
	bool is_dir, stale;
	u32 i;
	u64 blocks = 0;
	u8 *buf = NULL;
	errcode_t err;

	if (!dbg_read_inode(cmd, ino, &now, &rule))
		return;
	if (stalefs_test_inode(dbg.fs, ino)) {
		dbg_msg(cmd, "inode %u is in use now: its old version cannot come back in its place "
			"(jrecover copies its content out)", ino);
		return;
	}
	if (!load_copy(cmd, ino, have_seq, seq, &j, &h, &v, &pick))
		return;
	dbg_map_load(j, &h, ino, &v[pick], &ms);
	dbg_map_print(&ms, "  ");
	if (ms.err) {
		dbg_err(cmd, ms.err, "reading the extent map of inode %u in transaction %u", ino, v[pick].sequence);
		goto out;
	}
	if (ms.in_use) {
		dbg_msg(cmd, "%llu block%s of inode %u %s in use now (reused); cannot undelete (jrecover copies out "
			"what is left)", (unsigned long long)ms.in_use, ms.in_use == 1 ? "" : "s", ino,
			ms.in_use == 1 ? "is" : "are");
		goto out;
	}
	inode = v[pick].inode;
	stale = le32_to_cpu(inode.i_flags) & STALEFS_INODE_STALE_FL;
	if (stale && !(le32_to_cpu(dbg.fs->sb.s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE)) {
		dbg_msg(cmd, "inode %u holds STALE extents and no permitted group is recorded "
			"(stale_group GID first); cannot undelete", ino);
		goto out;
	}
	/* Index nodes read from the journal go back to their blocks (free, so nobody's). */
	buf = malloc(j->block_size);
	if (!buf) {
		dbg_err(cmd, STALEFS_ERR_NO_MEMORY, "undeleting inode %u", ino);
		goto out;
	}
	for (k = 0; k < ms.nodes.n; k++) {
		if (ms.nodes.v[k].from != STALEFS_JMAP_FROM_JOURNAL)
			continue;
		err = stalefs_jhistory_read_copy(j, &h, ms.nodes.v[k].log_block, buf);
		if (!err)
			err = stalefs_write_block(dbg.fs, ms.nodes.v[k].block, buf);
		if (err) {
			dbg_err(cmd, err, "writing index node %llu back", (unsigned long long)ms.nodes.v[k].block);
			goto out;
		}
	}
	is_dir = (le16_to_cpu(inode.i_mode) & STALEFS_S_IFMT) == STALEFS_S_IFDIR;
	for (i = 0; i < ms.map.count; i++) {
		u32 b;

		for (b = 0; b < ms.map.ext[i].len; b++)
			dbg_claim_block(ms.map.ext[i].pblk + b);
		blocks += ms.map.ext[i].len;
	}
	for (k = 0; k < ms.nodes.n; k++)
		dbg_claim_block(ms.nodes.v[k].block);
	dbg_claim_inode(ino, is_dir);
	if (stale)
		stalefs_adjust_stale_count(dbg.fs, ino, 1);
	if (inode.i_xattr_block)
		printf("  its extended attributes (xattr block %llu) are not brought back\n",
		       (unsigned long long)le64_to_cpu(inode.i_xattr_block));
	inode.i_xattr_block = 0;
	inode.i_blocks = cpu_to_le64(blocks + ms.nodes.n);
	inode.i_flags = cpu_to_le32(le32_to_cpu(inode.i_flags) & ~STALEFS_INODE_ORPHAN_FL);
	inode.i_links_count = cpu_to_le16(is_dir ? 2 : 1);
	inode.i_dtime = 0;
	stalefs_inode_set_times_now(&inode, false, false, true);
	err = stalefs_write_inode(dbg.fs, ino, &inode);
	if (!err)
		err = stalefs_write_inode_area(dbg.fs, ino, NULL);
	if (!err && name) {
		const char *base;
		u32 dir;

		err = stalefs_namei_parent(dbg.fs, dbg.cwd, name, &dir, &base);
		if (!err)
			err = stalefs_link(dbg.fs, dir, base, ino, stalefs_ft_from_mode(le16_to_cpu(inode.i_mode)));
	}
	if (err)
		dbg_err(cmd, err, "undeleting inode %u", ino);
	else
		printf("Inode %u undeleted from transaction %u%s%s\n", ino, v[pick].sequence, name ? " as " : "",
		       name ? name : "");
out:
	free(buf);
	dbg_map_free(&ms);
	free(v);
	dbg_jhistory_close(j, &h);
}
