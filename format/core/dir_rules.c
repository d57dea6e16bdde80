// SPDX-License-Identifier: GPL-2.0
/*
 * How directory blocks are edited (FORMAT.md section 8), the same in the
 * module (kernel/dir.c) and the library (format/lib/dir.c): a fresh block,
 * the first block of a new directory, where a new entry goes, how it takes
 * the slack after an entry, and how a removed entry's space joins the one
 * before it.  Entries never move, so a (block, offset) position stays valid
 * while others come and go; padding is zeroed so that directories with the
 * same entries checksum alike.  Callers handle the block's buffer, its
 * checksum and its journaling.
 */
#ifndef __KERNEL__
#include <string.h>
#endif
#include "stalefs_core.h"

#define DIR_HDR ((u32)sizeof(struct stalefs_dir_block))

static struct stalefs_dir_entry *de_at(void *block, u32 off)
{
	return (struct stalefs_dir_entry *)((u8 *)block + off);
}

void stalefs_dirent_put(struct stalefs_dir_entry *de, u32 ino, u32 rec_len, const char *name,
			u32 len, u8 file_type)
{
	de->inode = cpu_to_le32(ino);
	de->rec_len = cpu_to_le16((u16)rec_len);
	de->name_len = (u8)len;
	de->file_type = file_type;
	memcpy(de->name, name, len);
	memset(de->name + len, 0, STALEFS_DIR_REC_LEN(len) - 8 - len);
}

bool stalefs_dirent_is_dots(const struct stalefs_dir_entry *de)
{
	return (de->name_len == 1 && de->name[0] == '.') ||
	       (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.');
}

void stalefs_dirblock_init(void *block, u32 block_size, u64 blocknr, u32 owner, u32 lblk)
{
	struct stalefs_dir_block *db = block;

	memset(block, 0, block_size);
	db->db_magic = cpu_to_le32(STALEFS_DIRBLK_MAGIC);
	db->db_blocknr = cpu_to_le64(blocknr);
	db->db_owner = cpu_to_le32(owner);
	db->db_lblk = cpu_to_le32(lblk);
	de_at(block, DIR_HDR)->rec_len = cpu_to_le16((u16)(block_size - DIR_HDR));
}

void stalefs_dirblock_init_dots(void *block, u32 block_size, u64 blocknr, u32 dir, u32 parent)
{
	u32 dot = STALEFS_DIR_REC_LEN(1);

	stalefs_dirblock_init(block, block_size, blocknr, dir, 0);
	stalefs_dirent_put(de_at(block, DIR_HDR), dir, dot, ".", 1, STALEFS_FT_DIR);
	stalefs_dirent_put(de_at(block, DIR_HDR + dot), parent, block_size - DIR_HDR - dot, "..", 2,
			   STALEFS_FT_DIR);
}

u32 stalefs_dirblock_find_room(const void *block, u32 block_size, u32 name_len)
{
	u32 need = STALEFS_DIR_REC_LEN(name_len), off = DIR_HDR;

	while (off < block_size) {
		const struct stalefs_dir_entry *de = de_at((void *)block, off);
		u32 rec = le16_to_cpu(de->rec_len);
		u32 used = de->inode ? STALEFS_DIR_REC_LEN(de->name_len) : 0;

		/* Checked by the verifier; still, never loop on a bad chain. */
		if (rec < sizeof(*de) || rec > block_size - off)
			return 0;
		if (rec >= used && rec - used >= need)
			return off;
		off += rec;
	}
	return 0;
}

u32 stalefs_dirblock_place(void *block, u32 off, u32 ino, const char *name, u32 len, u8 file_type)
{
	struct stalefs_dir_entry *de = de_at(block, off);
	u32 rec = le16_to_cpu(de->rec_len);
	u32 used = de->inode ? STALEFS_DIR_REC_LEN(de->name_len) : 0;

	if (used) {
		/* Split: the new entry takes the slack after this one. */
		de->rec_len = cpu_to_le16((u16)used);
		off += used;
		rec -= used;
	}
	stalefs_dirent_put(de_at(block, off), ino, rec, name, len, file_type);
	return off;
}

void stalefs_dirblock_remove(void *block, u32 off, u32 prev_off)
{
	struct stalefs_dir_entry *de = de_at(block, off);

	if (prev_off) {
		struct stalefs_dir_entry *prev = de_at(block, prev_off);

		prev->rec_len = cpu_to_le16((u16)(le16_to_cpu(prev->rec_len) + le16_to_cpu(de->rec_len)));
	} else {
		de->inode = 0;	/* the block's first entry stays, unused */
	}
}
