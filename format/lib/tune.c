// SPDX-License-Identifier: GPL-2.0
/*
 * Superblock changes made offline after mkfs (tunefs.stalefs): a new UUID and
 * taking the journal away.  Each checks everything it depends on before it
 * changes anything, so a refusal leaves the filesystem as it was.
 */
#include <string.h>
#include "lib_internal.h"
#include "libstalefs.h"

/* The journal superblock, if there is a journal: read, judged, and its log empty. */
static errcode_t journal_quiet(stalefs_fs *fs, struct stalefs_jbd2_super *jsb)
{
	errcode_t err;
	int rule;

	if (le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER)
		return STALEFS_ERR_NEEDS_RECOVERY;
	err = stalefs_journal_read_super(fs, jsb);
	if (err)
		return err;
	rule = stalefs_jsb_verify(jsb, &fs->sb);
	if (rule)
		return stalefs_jsb_rule_error(rule);
	/* jbd2 replays a log that is not empty at every load, RECOVER or not (FORMAT.md 12). */
	if (jsb->s_start)
		return STALEFS_ERR_JOURNAL_NOT_EMPTY;
	return 0;
}

/*
 * Every checksum is seeded with s_csum_seed, which is stored (FORMAT.md 2, 7):
 * it stays what mkfs made it, so no checksum changes with the UUID (ext4's
 * metadata_csum_seed, always on).  The journal is different: jbd2 seeds its
 * checksums with the journal superblock's own s_uuid, which must equal the
 * filesystem's.  With an empty log nothing is seeded by it yet, so it changes
 * too; a log still holding transactions would no longer verify, and is refused.
 */
errcode_t stalefs_set_uuid(stalefs_fs *fs, const u8 uuid[16])
{
	struct stalefs_jbd2_super jsb;
	bool journal = le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL;
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (journal) {
		err = journal_quiet(fs, &jsb);
		if (err)
			return err;
		memcpy(jsb.s_uuid, uuid, sizeof(jsb.s_uuid));
		err = stalefs_journal_write_super(fs, &jsb);
		if (err)
			return err;
	}
	memcpy(fs->sb.s_uuid, uuid, sizeof(fs->sb.s_uuid));
	stalefs_mark_super_dirty(fs);
	fs->write_backups = true;
	return 0;
}

errcode_t stalefs_set_label(stalefs_fs *fs, const char *label)
{
	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (strlen(label) > STALEFS_LABEL_MAX)
		return STALEFS_ERR_BAD_ARGUMENT;
	memset(fs->sb.s_volume_name, 0, sizeof(fs->sb.s_volume_name));
	memcpy(fs->sb.s_volume_name, label, strlen(label));
	stalefs_mark_super_dirty(fs);
	fs->write_backups = true;
	return 0;
}

errcode_t stalefs_journal_remove(stalefs_fs *fs)
{
	struct stalefs_jbd2_super jsb;
	u64 start = le64_to_cpu(fs->sb.s_journal_block);
	u32 blocks = le32_to_cpu(fs->sb.s_journal_blocks);
	errcode_t err;

	if (!stalefs_fs_rw(fs))
		return STALEFS_ERR_RO_FILSYS;
	if (!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		return STALEFS_ERR_NO_JOURNAL;
	if (!fs->bitmaps_loaded)
		return STALEFS_ERR_NO_BITMAPS;
	/* A journal with transactions to replay holds changes not yet in place: dropping it loses them. */
	err = journal_quiet(fs, &jsb);
	if (err)
		return err;
	err = stalefs_free_blocks(fs, start, blocks);
	if (err)
		return err;
	fs->sb.s_feature_compat = cpu_to_le32(le32_to_cpu(fs->sb.s_feature_compat) &
					      ~STALEFS_FEATURE_COMPAT_HAS_JOURNAL);
	fs->sb.s_journal_block = 0;
	fs->sb.s_journal_blocks = 0;
	fs->sb.s_journal_pad = 0;
	stalefs_mark_super_dirty(fs);
	fs->write_backups = true;
	return 0;
}
