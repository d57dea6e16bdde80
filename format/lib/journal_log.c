// SPDX-License-Identifier: GPL-2.0
/*
 * An open journal and the pieces every reader and writer of its log shares:
 * reading a log block, and the three log checksums of FORMAT.md 12 (block
 * tail, commit block, journaled block), which follow jbd2's
 * jbd2_descriptor_block_csum_set(), jbd2_commit_block_csum_set() and
 * jbd2_block_tag_csum_set().
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

errcode_t stalefs_journal_open(stalefs_fs *fs, int flags, struct stalefs_journal **ret)
{
	struct stalefs_journal *j;
	errcode_t err;

	j = stalefs_xcalloc(1, sizeof(*j));
	j->fs = fs;
	err = stalefs_journal_read_super(fs, &j->jsb);
	if (err) {
		free(j);
		return err;
	}
	j->jsb_rule = stalefs_jsb_verify(&j->jsb, &fs->sb);
	if (j->jsb_rule && !(flags & STALEFS_JOURNAL_FORCE)) {
		err = stalefs_jsb_rule_error(j->jsb_rule);
		free(j);
		return err;
	}
	/* A verified journal superblock says the same; a forced open trusts the filesystem's. */
	j->fs_start = le64_to_cpu(fs->sb.s_journal_block);
	j->maxlen = le32_to_cpu(fs->sb.s_journal_blocks);
	j->first = 1;
	j->block_size = fs->block_size;
	j->seed = stalefs_crc32c(0xFFFFFFFFu, j->jsb.s_uuid, sizeof(j->jsb.s_uuid));
	/* Where a new transaction would go.  A log that cannot be scanned is still open for
	 * reading (logdump); writing to it fails in stalefs_jtrans_begin with the reason. */
	if (!j->jsb_rule) {
		struct stalefs_journal_recovery scan;

		(void)stalefs_journal_find_head(j, &scan);
	}
	*ret = j;
	return 0;
}

void stalefs_journal_close(struct stalefs_journal *j)
{
	free(j);
}

errcode_t stalefs_journal_read_block(struct stalefs_journal *j, u32 n, void *buf)
{
	if (n >= j->maxlen)
		return STALEFS_ERR_JOURNAL_CORRUPT;
	/* Past the cache: replaying a big log must not push the metadata it wrote out of it. */
	return stalefs_io_read_uncached(j->fs->io, j->fs_start + n, 1, buf);
}

/* Descriptor and revoke blocks: the whole block with its last four bytes as zero. */
u32 stalefs_journal_block_tail_csum(const struct stalefs_journal *j, const void *block)
{
	static const u8 zero[4];
	u32 bs = j->block_size;

	return stalefs_crc32c(stalefs_crc32c(j->seed, block, bs - 4), zero, 4);
}

/* Commit blocks: the whole block with h_chksum[0] (bytes 0x10-0x13) as zero. */
u32 stalefs_journal_commit_csum(const struct stalefs_journal *j, const void *block)
{
	static const u8 zero[4];
	const size_t off = offsetof(struct stalefs_jbd2_commit, h_chksum);
	const u8 *p = block;
	u32 crc;

	crc = stalefs_crc32c(j->seed, p, off);
	crc = stalefs_crc32c(crc, zero, 4);
	return stalefs_crc32c(crc, p + off + 4, j->block_size - off - 4);
}

/* A journaled block, as it sits in the log (escaped), seeded with its transaction's sequence. */
u32 stalefs_journal_tag_csum(const struct stalefs_journal *j, u32 sequence, const void *block)
{
	__be32 seq = htobe32(sequence);

	return stalefs_crc32c(stalefs_crc32c(j->seed, &seq, sizeof(seq)), block, j->block_size);
}

const struct stalefs_jbd2_tag3 *stalefs_jtag_next(const struct stalefs_journal *j, const u8 *block, u32 *off)
{
	const struct stalefs_jbd2_tag3 *tag;
	u32 flags;

	if (!*off)
		*off = sizeof(struct stalefs_jbd2_header);
	/* Up to the checksum tail; UINT32_MAX: the last tag was given. */
	if (*off == UINT32_MAX || *off + sizeof(*tag) > j->block_size - 4)
		return NULL;
	tag = (const void *)(block + *off);
	flags = be32toh(tag->t_flags);
	*off += sizeof(*tag);
	if (!(flags & STALEFS_JBD2_FLAG_SAME_UUID))
		*off += 16;
	if (flags & STALEFS_JBD2_FLAG_LAST_TAG)
		*off = UINT32_MAX;
	return tag;
}
