// SPDX-License-Identifier: GPL-2.0
/*
 * The journal superblock (journal block 0; FORMAT.md 12, Appendix A.11):
 * its verifier, checksum, a fresh one for mkfs, and reading and writing it.
 * The rules are the ones the kernel's jbd2 applies when it loads a journal
 * (journal_get_superblock(), jbd2_journal_load()), tightened to what stalefs
 * writes: a version 2 superblock with 64BIT and CSUM_V3, s_first 1, the
 * filesystem's block size, length and UUID.
 */
#include <stdlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

static const char *const jsb_rule_msgs[STALEFS_JSB_RULE_MAX] = {
	[STALEFS_JSB_OK] = "no problem",
	[STALEFS_JSB_MAGIC] = "journal superblock magic number is wrong",
	[STALEFS_JSB_BLOCKTYPE] = "journal superblock is not a version 2 superblock (block type 4)",
	[STALEFS_JSB_BLOCKSIZE] = "journal block size is not the filesystem's block size",
	[STALEFS_JSB_MAXLEN] = "journal length (s_maxlen) is not the superblock's s_journal_blocks",
	[STALEFS_JSB_FIRST] = "first log block (s_first) is not 1",
	[STALEFS_JSB_START] = "log start (s_start) is outside the log",
	[STALEFS_JSB_FEATURES_UNKNOWN] = "journal has unsupported features (only revoke, 64bit and csum_v3 are known)",
	[STALEFS_JSB_FEATURES_MISSING] = "journal lacks the 64bit and csum_v3 features stalefs requires",
	[STALEFS_JSB_CSUM_TYPE] = "journal checksum type is not CRC32C (4)",
	[STALEFS_JSB_CSUM] = "journal superblock checksum does not match",
	[STALEFS_JSB_UUID] = "journal UUID is not the filesystem's UUID",
};

const char *stalefs_jsb_rule_msg(int rule)
{
	if (rule < 0 || rule >= STALEFS_JSB_RULE_MAX || !jsb_rule_msgs[rule])
		return "unknown journal superblock rule";
	return jsb_rule_msgs[rule];
}

errcode_t stalefs_jsb_rule_error(int rule)
{
	switch (rule) {
	case STALEFS_JSB_OK: return 0;
	case STALEFS_JSB_CSUM: return STALEFS_ERR_JSB_CSUM;
	case STALEFS_JSB_FEATURES_UNKNOWN:
	case STALEFS_JSB_FEATURES_MISSING:
	case STALEFS_JSB_CSUM_TYPE: return STALEFS_ERR_JOURNAL_UNSUPP;
	}
	return STALEFS_ERR_JSB_CORRUPT;
}

/* jbd2_superblock_csum(): the 1024 bytes with s_checksum zero, seeded with ~0 (not the UUID). */
u32 stalefs_jsb_csum(const struct stalefs_jbd2_super *jsb)
{
	struct stalefs_jbd2_super copy = *jsb;

	copy.s_checksum = 0;
	return stalefs_crc32c(0xFFFFFFFFu, &copy, sizeof(copy));
}

void stalefs_jsb_set_csum(struct stalefs_jbd2_super *jsb)
{
	jsb->s_checksum = htobe32(stalefs_jsb_csum(jsb));
}

int stalefs_jsb_verify(const struct stalefs_jbd2_super *jsb, const struct stalefs_super_block *sb)
{
	u32 incompat = be32toh(jsb->s_feature_incompat);
	u32 maxlen = be32toh(jsb->s_maxlen), start = be32toh(jsb->s_start);
	const u32 required = STALEFS_JBD2_INCOMPAT_64BIT | STALEFS_JBD2_INCOMPAT_CSUM_V3;

	if (be32toh(jsb->s_header.h_magic) != STALEFS_JBD2_MAGIC)
		return STALEFS_JSB_MAGIC;
	if (be32toh(jsb->s_header.h_blocktype) != STALEFS_JBD2_SUPERBLOCK_V2)
		return STALEFS_JSB_BLOCKTYPE;
	if (be32toh(jsb->s_blocksize) != 1024u << le32_to_cpu(sb->s_log_block_size))
		return STALEFS_JSB_BLOCKSIZE;
	if (maxlen != le32_to_cpu(sb->s_journal_blocks))
		return STALEFS_JSB_MAXLEN;
	if (be32toh(jsb->s_first) != 1)
		return STALEFS_JSB_FIRST;
	/* jbd2 would read past the journal (jread: -EFSCORRUPTED) or the superblock itself. */
	if (start != 0 && (start < 1 || start >= maxlen))
		return STALEFS_JSB_START;
	/* Checksum v1 (a compat bit) and anything in ro_compat are unknown to stalefs too. */
	if (jsb->s_feature_compat || jsb->s_feature_ro_compat || (incompat & ~STALEFS_JBD2_INCOMPAT_SUPP))
		return STALEFS_JSB_FEATURES_UNKNOWN;
	if ((incompat & required) != required)
		return STALEFS_JSB_FEATURES_MISSING;
	if (jsb->s_checksum_type != STALEFS_JBD2_CRC32C_CHKSUM)
		return STALEFS_JSB_CSUM_TYPE;
	if (be32toh(jsb->s_checksum) != stalefs_jsb_csum(jsb))
		return STALEFS_JSB_CSUM;
	/* The UUID seeds every log checksum: another filesystem's journal must not replay here. */
	if (memcmp(jsb->s_uuid, sb->s_uuid, sizeof(jsb->s_uuid)) != 0)
		return STALEFS_JSB_UUID;
	return 0;
}

void stalefs_jsb_init(struct stalefs_jbd2_super *jsb, const struct stalefs_super_block *sb, u32 sequence)
{
	memset(jsb, 0, sizeof(*jsb));
	jsb->s_header.h_magic = htobe32(STALEFS_JBD2_MAGIC);
	jsb->s_header.h_blocktype = htobe32(STALEFS_JBD2_SUPERBLOCK_V2);
	jsb->s_blocksize = htobe32(1024u << le32_to_cpu(sb->s_log_block_size));
	jsb->s_maxlen = htobe32(le32_to_cpu(sb->s_journal_blocks));
	jsb->s_first = htobe32(1);
	jsb->s_sequence = htobe32(sequence);
	jsb->s_feature_incompat = htobe32(STALEFS_JBD2_INCOMPAT_MKFS);
	memcpy(jsb->s_uuid, sb->s_uuid, sizeof(jsb->s_uuid));
	jsb->s_nr_users = htobe32(1);
	jsb->s_checksum_type = STALEFS_JBD2_CRC32C_CHKSUM;
	stalefs_jsb_set_csum(jsb);
}

static errcode_t journal_block0(stalefs_fs *fs, u64 *block)
{
	if (!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		return STALEFS_ERR_NO_JOURNAL;
	*block = le64_to_cpu(fs->sb.s_journal_block);
	if (!stalefs_journal_range_ok(&fs->geom, *block, le32_to_cpu(fs->sb.s_journal_blocks)))
		return STALEFS_ERR_SB_CORRUPT;
	return 0;
}

errcode_t stalefs_journal_read_super(stalefs_fs *fs, struct stalefs_jbd2_super *jsb)
{
	u8 *buf;
	u64 block;
	errcode_t err = journal_block0(fs, &block);

	if (err)
		return err;
	buf = stalefs_xmalloc(fs->block_size);
	err = stalefs_io_read(fs->io, block, 1, buf);
	if (!err)
		memcpy(jsb, buf, sizeof(*jsb));
	free(buf);
	return err;
}

/* jsb (checksummed) into block 0 of the journal at filesystem block `block`. */
static errcode_t put_jsb(stalefs_fs *fs, u64 block, struct stalefs_jbd2_super *jsb)
{
	u8 *buf;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	stalefs_jsb_set_csum(jsb);
	/* The block past the first 1024 bytes is jbd2's too (zero): keep whatever is there. */
	buf = stalefs_xmalloc(fs->block_size);
	err = stalefs_io_read(fs->io, block, 1, buf);
	if (!err) {
		memcpy(buf, jsb, sizeof(*jsb));
		/* The journal's own block: never held in a transaction (txn.c). */
		err = stalefs_io_write_data(fs->io, block, 1, buf);
	}
	free(buf);
	return err;
}

errcode_t stalefs_journal_write_super(stalefs_fs *fs, struct stalefs_jbd2_super *jsb)
{
	u64 block;
	errcode_t err = journal_block0(fs, &block);

	return err ? err : put_jsb(fs, block, jsb);
}

errcode_t stalefs_journal_put_super(struct stalefs_journal *j)
{
	return put_jsb(j->fs, j->fs_start, &j->jsb);
}

void stalefs_journal_clear_recover(stalefs_fs *fs)
{
	fs->sb.s_feature_incompat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_incompat) &
						~STALEFS_FEATURE_INCOMPAT_RECOVER);
	stalefs_mark_super_dirty(fs);
}
