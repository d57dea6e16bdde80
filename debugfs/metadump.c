// SPDX-License-Identifier: GPL-2.0
/*
 * metadump: a metadata-only copy of the filesystem that a user can share
 * without sharing file contents (models: e2image -Q, xfs_metadump).
 *
 * The dump is a gzip (zlib) stream:
 *   header  "SLFSMDMP" | le32 version (1) | le32 block_size | le64 blocks_count
 *           | le32 flags (1: names kept) | le32 reserved
 *   records le64 block | le32 count (1) | count * block_size bytes
 *   end     le64 0xFFFFFFFFFFFFFFFF | le32 0
 * It holds the superblock and descriptor copies, the bitmaps, the initialised
 * part of every inode table, every extent tree node and every directory and
 * block-mapped symlink block, and the journal's superblock (with
 * --keep-names also the blocks of its active log, whose journaled copies of
 * directory blocks hold names).  File data is left out (it restores as zeros).
 * Every in-use inode's xattr block is in it too (the in-inode areas come with
 * the inode tables).
 * Unless --keep-names, directory entry names and symlink targets are replaced
 * by generated names of the same length (unique within their directory),
 * extended attribute names likewise (unique within their inode) and their
 * values by zeros (the POSIX ACLs, ids and permissions only, are kept), and
 * the checksums of the blocks and inodes changed that way are recomputed --
 * but only where they were valid, so a damaged structure stays damaged.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>
#include "debugfs.h"
#include "scan.h"

#define MD_MAGIC "SLFSMDMP"
#define MD_VERSION 1
#define MD_FLAG_NAMES_KEPT 0x1
#define MD_END (~0ULL)

struct md_header {
	char magic[8];
	__le32 version;
	__le32 block_size;
	__le64 blocks_count;
	__le32 flags;
	__le32 reserved;
};

struct md_ctx {
	gzFile gz;
	u8 *done;		/* blocks already written */
	u8 *buf;
	bool keep_names;
	errcode_t err;
	u64 written;
	u32 dir_ino;		/* the directory whose blocks are being written */
	u32 counters[STALEFS_NAME_LEN + 1];	/* generated names per length, in that directory */
};

static bool test_and_set(struct md_ctx *c, u64 block)
{
	u8 bit = (u8)(1u << (block % 8));
	bool was = c->done[block / 8] & bit;

	c->done[block / 8] |= bit;
	return was;
}

static void put_record(struct md_ctx *c, u64 block, const u8 *data)
{
	u8 rec[12];
	u32 i;

	if (c->err)
		return;
	for (i = 0; i < 8; i++)
		rec[i] = (u8)(block >> (8 * i));
	rec[8] = 1;
	rec[9] = rec[10] = rec[11] = 0;
	if (gzwrite(c->gz, rec, sizeof(rec)) != (int)sizeof(rec) ||
	    gzwrite(c->gz, data, dbg.fs->block_size) != (int)dbg.fs->block_size)
		c->err = STALEFS_ERR_SHORT_WRITE;
	c->written++;
}

/* Copy a block as it is (unless already dumped). */
static void dump_block(struct md_ctx *c, u64 block)
{
	if (c->err || block >= dbg.fs->geom.blocks_count || test_and_set(c, block))
		return;
	if (stalefs_io_read(dbg.fs->io, block, 1, c->buf))
		return;	/* unreadable: it restores as zeros, which is what it is to us */
	put_record(c, block, c->buf);
}

static void dump_range(struct md_ctx *c, u64 first, u64 count)
{
	u64 i;

	for (i = 0; i < count && !c->err; i++)
		dump_block(c, first + i);
}

static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* The n-th generated name of length len, in base 62; false once they run out. */
static bool gen_name(u32 n, u8 len, char *out)
{
	int i;

	for (i = len - 1; i >= 0; i--) {
		out[i] = name_chars[n % 62];
		n /= 62;
	}
	return n == 0;
}

static bool keep_name(const char *name, u8 len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.') ||
	       (len == 10 && memcmp(name, "lost+found", 10) == 0);
}

static void obfuscate_dirblock(struct md_ctx *c, u8 *blk)
{
	u32 bs = dbg.fs->block_size, off = sizeof(struct stalefs_dir_block);
	bool csum_ok = !stalefs_verify_dirblock_csum(dbg.fs->seed, blk, bs);

	if (le32_to_cpu(((struct stalefs_dir_block *)blk)->db_magic) != STALEFS_DIRBLK_MAGIC)
		return;
	while (off < bs) {
		struct stalefs_dir_entry *de = (void *)(blk + off);
		u32 rec_len;

		if (stalefs_verify_dirent_fit(blk, bs, off) == STALEFS_R_DIR_REC_LEN)
			break;	/* a broken chain: what follows is not trusted as names */
		rec_len = le16_to_cpu(de->rec_len);
		if (de->name_len && sizeof(*de) + de->name_len <= rec_len && !keep_name(de->name, de->name_len)) {
			char name[STALEFS_NAME_LEN];

			if (gen_name(c->counters[de->name_len]++, de->name_len, name))
				memcpy(de->name, name, de->name_len);
		}
		/* Bytes past a name (and in unused slots) may hold old names: clear them. */
		if (sizeof(*de) + de->name_len < rec_len)
			memset(blk + off + sizeof(*de) + de->name_len, 0, rec_len - sizeof(*de) - de->name_len);
		off += rec_len;
	}
	if (csum_ok)
		stalefs_dirblock_set_csum(dbg.fs->seed, blk, bs);
}

static void obfuscate_path(char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != '/' && p[i] != '.' && p[i] != '\0')
			p[i] = name_chars[(i * 7 + (unsigned char)p[i]) % 26];
}

/* An xattr region (FORMAT.md 14) that passes the rules: names generated from n = parity,
 * parity + 2, ... (the area takes the even ones, the block the odd ones, so the inode's names
 * stay unique), values zeroed; the ACLs are kept. */
static void obfuscate_xattr_region(u8 *r, u32 len, u32 parity)
{
	struct stalefs_xattr_ref ref;
	u32 off = 0, n = parity;

	if (stalefs_xattr_region_check(r, len, NULL))
		return;	/* damaged: not trusted as entries, left as it is */
	while (stalefs_xattr_entry_at(r, len, off, &ref)) {
		u8 *name = r + off + sizeof(struct stalefs_xattr_entry);

		if (ref.index != STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS &&
		    ref.index != STALEFS_XATTR_INDEX_POSIX_ACL_DEFAULT) {
			char gen[STALEFS_XATTR_NAME_MAX];

			if (gen_name(n, ref.name_len, gen))
				memcpy(name, gen, ref.name_len);
			n += 2;
			memset(name + ref.name_len, 0, ref.value_size);
		}
		off += stalefs_xattr_entry_len(ref.name_len, ref.value_size);
	}
}

/* The inode's xattr block: as it is, or obfuscated when it is this inode's and well formed. */
static void dump_xattr_block(struct md_ctx *c, u32 ino, const struct stalefs_inode *inode)
{
	u64 b = le64_to_cpu(inode->i_xattr_block);
	u32 bs = dbg.fs->block_size;
	const struct stalefs_xattr_block *xb;
	bool csum_ok;

	if (!b || c->err || !stalefs_block_valid(dbg.fs, b))
		return;
	if (c->keep_names) {
		dump_block(c, b);
		return;
	}
	if (test_and_set(c, b) || stalefs_io_read(dbg.fs->io, b, 1, c->buf))
		return;
	xb = (const void *)c->buf;
	if (le32_to_cpu(xb->xb_magic) != STALEFS_XATTR_MAGIC || le64_to_cpu(xb->xb_blocknr) != b ||
	    le32_to_cpu(xb->xb_owner) != ino) {
		/* not an xattr block of this inode (file data, perhaps): its bytes are not dumped */
		memset(c->buf, 0, bs);
	} else if (!stalefs_verify_xattr_block(c->buf, bs, b, ino, le32_to_cpu(inode->i_generation))) {
		csum_ok = !stalefs_verify_xattr_block_csum(dbg.fs->seed, c->buf, bs);
		obfuscate_xattr_region(stalefs_xattr_block_region(c->buf), stalefs_xattr_block_region_len(bs), 1);
		if (csum_ok)
			stalefs_xattr_block_set_csum(dbg.fs->seed, c->buf, bs);
	}	/* else damaged entries: kept as they are, so the damage survives the dump */
	put_record(c, b, c->buf);
}

struct leaf_ctx {
	struct md_ctx *c;
	u16 type;
};

static int leaf_cb(stalefs_fs *fs, const struct stalefs_xentry *e, void *priv)
{
	(void)fs;
	struct leaf_ctx *l = priv;
	struct md_ctx *c = l->c;
	u32 i;

	if (e->is_index || e->len > STALEFS_EXT_MAX_LEN || l->type == STALEFS_S_IFREG)
		return 0;
	for (i = 0; i < e->len && !c->err; i++) {
		u64 b = e->pblk + i;

		if (b >= dbg.fs->geom.blocks_count || test_and_set(c, b) || stalefs_io_read(dbg.fs->io, b, 1, c->buf))
			continue;
		if (!c->keep_names) {
			if (l->type == STALEFS_S_IFDIR)
				obfuscate_dirblock(c, c->buf);
			else
				obfuscate_path((char *)c->buf, strnlen((char *)c->buf, dbg.fs->block_size));
		}
		put_record(c, b, c->buf);
	}
	return 0;
}

static int node_cb(stalefs_fs *fs, const struct stalefs_xnode *n, void *priv)
{
	(void)fs;
	if (n->level && n->eh)	/* a tree block that was read */
		dump_block(((struct leaf_ctx *)priv)->c, n->block);
	return 0;
}

static int inode_cb(u32 ino, const struct stalefs_inode *inode, int rule, bool in_use, void *priv)
{
	struct md_ctx *c = priv;
	struct leaf_ctx l = { .c = c, .type = le16_to_cpu(inode->i_mode) & STALEFS_S_IFMT };

	(void)rule;
	if (in_use)
		dump_xattr_block(c, ino, inode);
	if (!in_use || !stalefs_inode_has_extents(inode))
		return c->err ? -1 : 0;
	c->dir_ino = ino;
	memset(c->counters, 0, sizeof(c->counters));
	stalefs_extent_scan(dbg.fs, ino, inode, &(struct stalefs_xscan_ops){ .entry = leaf_cb, .node = node_cb }, &l);
	return c->err ? -1 : 0;
}

/* Inline symlink targets and in-inode xattr areas live in the inode table: rewrite them in
 * the dumped copy. */
static void obfuscate_itable_block(u8 *blk, u32 first_ino)
{
	u32 i, per = dbg.fs->geom.inodes_per_block, alen = stalefs_xattr_ibody_len(&dbg.fs->geom);

	for (i = 0; i < per; i++) {
		struct stalefs_inode *in = (void *)(blk + (size_t)i * dbg.fs->geom.inode_size);
		u32 ino = first_ino + i;
		bool csum_ok;

		if (alen && !stalefs_xattr_ibody_empty(in + 1) && !stalefs_verify_xattr_ibody(in + 1, alen)) {
			u32 gen = le32_to_cpu(in->i_generation);

			csum_ok = !stalefs_verify_xattr_ibody_csum(dbg.fs->seed, ino, gen, in + 1, alen);
			obfuscate_xattr_region(stalefs_xattr_ibody_region(in + 1),
					       alen - (u32)sizeof(struct stalefs_xattr_ibody_header), 0);
			if (csum_ok)
				stalefs_xattr_ibody_set_csum(dbg.fs->seed, ino, gen, in + 1, alen);
		}

		if ((le16_to_cpu(in->i_mode) & STALEFS_S_IFMT) != STALEFS_S_IFLNK ||
		    !(le32_to_cpu(in->i_flags) & STALEFS_INODE_INLINE_FL))
			continue;
		csum_ok = !stalefs_verify_inode_csum(dbg.fs->seed, ino, in);
		obfuscate_path((char *)in->i_block, strnlen((char *)in->i_block, STALEFS_IBLOCK_SIZE));
		if (csum_ok)
			stalefs_inode_set_csum(dbg.fs->seed, ino, in);
	}
}

static void dump_group_meta(struct md_ctx *c, u32 grp)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	const struct stalefs_group_desc *d = &dbg.fs->groups[grp].desc;
	u16 flags = le16_to_cpu(d->bg_flags);
	u32 unused = le32_to_cpu(d->bg_itable_unused), used_slots, nblocks, i;
	u64 it = le64_to_cpu(d->bg_inode_table);

	if (stalefs_group_super_blocks(g, grp)) {
		/* The superblock copy and descriptor blocks at the group's start (not the boot area). */
		u64 first = stalefs_group_first_block(g, grp), sb = grp == 0 ? g->sb_block : first;

		dump_range(c, sb, first + stalefs_group_super_blocks(g, grp) - sb);
	}
	if (!(flags & STALEFS_BG_BLOCK_UNINIT))
		dump_range(c, le64_to_cpu(d->bg_block_bitmap), g->block_bitmap_blocks);
	if (!(flags & STALEFS_BG_INODE_UNINIT))
		dump_range(c, le64_to_cpu(d->bg_inode_bitmap), g->inode_bitmap_blocks);
	used_slots = unused < g->inodes_per_group ? g->inodes_per_group - unused : 0;
	nblocks = (used_slots + g->inodes_per_block - 1) / g->inodes_per_block;
	for (i = 0; i < nblocks && i < g->inode_table_blocks && !c->err; i++) {
		u64 b = it + i;

		if (b >= g->blocks_count || test_and_set(c, b) || stalefs_io_read(dbg.fs->io, b, 1, c->buf))
			continue;
		if (!c->keep_names)
			obfuscate_itable_block(c->buf, grp * g->inodes_per_group + i * g->inodes_per_block + 1);
		put_record(c, b, c->buf);
	}
}

struct md_journal {
	struct md_ctx *c;
	u64 start;
};

static int journal_cb(const struct stalefs_jwalk_entry *e, void *priv)
{
	struct md_journal *mj = priv;

	if (e->what != STALEFS_JW_END && e->what != STALEFS_JW_REVOKE_RECORD)
		dump_block(mj->c, mj->start + e->log_block);
	return mj->c->err != 0;
}

/* The journal superblock, and with names kept the log recovery would read. */
static void dump_journal(struct md_ctx *c)
{
	struct stalefs_journal *j;
	struct md_journal mj = { c, le64_to_cpu(dbg.fs->sb.s_journal_block) };

	if (!(le32_to_cpu(dbg.fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) ||
	    !stalefs_journal_range_ok(&dbg.fs->geom, mj.start, le32_to_cpu(dbg.fs->sb.s_journal_blocks)))
		return;
	dump_block(c, mj.start);
	if (!c->keep_names || stalefs_journal_open(dbg.fs, STALEFS_JOURNAL_FORCE, &j))
		return;
	stalefs_journal_walk(j, 0, journal_cb, &mj);
	stalefs_journal_close(j);
}

static errcode_t write_metadump(const char *file, bool keep_names, u64 *blocks)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	struct md_ctx c = { .keep_names = keep_names };
	struct md_header h;
	u8 end[12];
	u32 grp;
	errcode_t err;

	c.done = calloc(g->blocks_count / 8 + 1, 1);
	c.buf = malloc(g->block_size);
	c.gz = gzopen(file, "wb6");
	if (!c.done || !c.buf || !c.gz) {
		err = c.gz ? STALEFS_ERR_NO_MEMORY : (errno ? errno : STALEFS_ERR_NO_MEMORY);
		goto out;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, MD_MAGIC, 8);
	h.version = cpu_to_le32(MD_VERSION);
	h.block_size = cpu_to_le32(g->block_size);
	h.blocks_count = cpu_to_le64(g->blocks_count);
	h.flags = cpu_to_le32(keep_names ? MD_FLAG_NAMES_KEPT : 0);
	if (gzwrite(c.gz, &h, sizeof(h)) != (int)sizeof(h))
		c.err = STALEFS_ERR_SHORT_WRITE;
	/* The superblock's block: at 4 KiB it also holds the boot area, left out (zeros). */
	if (!c.err && !test_and_set(&c, g->sb_block) && !stalefs_io_read(dbg.fs->io, g->sb_block, 1, c.buf)) {
		if (g->sb_block == 0)
			memset(c.buf, 0, STALEFS_SUPER_OFFSET);
		put_record(&c, g->sb_block, c.buf);
	}
	for (grp = 0; grp < g->groups_count && !c.err; grp++)
		dump_group_meta(&c, grp);
	dump_journal(&c);
	if (!c.err)
		dbg_inode_scan(inode_cb, &c);
	memset(end, 0xff, 8);
	memset(end + 8, 0, 4);
	if (!c.err && gzwrite(c.gz, end, sizeof(end)) != (int)sizeof(end))
		c.err = STALEFS_ERR_SHORT_WRITE;
	err = c.err;
	*blocks = c.written;
out:
	if (c.gz && gzclose(c.gz) != Z_OK && !err)
		err = STALEFS_ERR_SHORT_WRITE;
	free(c.done);
	free(c.buf);
	return err;
}

DBG_CMD(do_metadump)
{
	bool keep = false;
	const char *file = NULL;
	u64 blocks = 0;
	int i;
	errcode_t err;

	(void)sci_idx; (void)info;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--keep-names") == 0 || strcmp(argv[i], "-k") == 0)
			keep = true;
		else if (!file && argv[i][0] != '-')
			file = argv[i];
		else {
			file = NULL;
			break;
		}
	}
	if (!file) {
		dbg_usage(argv[0], "[--keep-names] <dump file>");
		return;
	}
	if (!dbg_need_fs(argv[0]))
		return;
	err = write_metadump(file, keep, &blocks);
	if (err) {
		dbg_err(argv[0], err, "writing metadata dump %s", file);
		return;
	}
	printf("Wrote %llu metadata blocks to %s%s\n", (unsigned long long)blocks, file,
	       keep ? " (names kept)" : " (names obfuscated)");
}

/* ---- restore ---- */
static errcode_t read_exact(gzFile gz, void *buf, unsigned len)
{
	int n = gzread(gz, buf, len);

	return n == (int)len ? 0 : STALEFS_ERR_METADUMP;
}

errcode_t dbg_metadump_restore(const char *dump, const char *image)
{
	struct md_header h;
	gzFile gz = gzopen(dump, "rb");
	FILE *out = NULL;
	u8 rec[12], *buf = NULL;
	u32 bs;
	u64 blocks;
	errcode_t err;

	if (!gz)
		return errno ? errno : STALEFS_ERR_METADUMP;
	err = read_exact(gz, &h, sizeof(h));
	if (err || memcmp(h.magic, MD_MAGIC, 8) || le32_to_cpu(h.version) != MD_VERSION)
		goto bad;
	bs = le32_to_cpu(h.block_size);
	blocks = le64_to_cpu(h.blocks_count);
	if ((bs != 1024 && bs != 2048 && bs != 4096) || blocks == 0 || blocks >= STALEFS_MAX_BLOCKS)
		goto bad;
	buf = malloc(bs);
	out = fopen(image, "w");
	if (!buf || !out) {
		err = errno ? errno : STALEFS_ERR_NO_MEMORY;
		goto out;
	}
	/* A sparse file of the full size: what the dump leaves out reads as zeros. */
	if (ftruncate(fileno(out), (off_t)(blocks * bs)) < 0) {
		err = errno;
		goto out;
	}
	for (;;) {
		u64 block = 0;
		u32 count, i;

		if (read_exact(gz, rec, sizeof(rec)))
			goto bad;
		for (i = 0; i < 8; i++)
			block |= (u64)rec[i] << (8 * i);
		count = (u32)rec[8] | (u32)rec[9] << 8 | (u32)rec[10] << 16 | (u32)rec[11] << 24;
		if (block == MD_END && count == 0)
			break;
		if (count != 1 || block >= blocks)
			goto bad;
		if (read_exact(gz, buf, bs))
			goto bad;
		if (pwrite(fileno(out), buf, bs, (off_t)(block * bs)) != (ssize_t)bs) {
			err = errno ? errno : STALEFS_ERR_SHORT_WRITE;
			goto out;
		}
	}
	err = 0;
	if (fsync(fileno(out)) < 0)
		err = errno;
	goto out;
bad:
	err = STALEFS_ERR_METADUMP;
out:
	if (out && fclose(out) && !err)
		err = errno;
	free(buf);
	gzclose(gz);
	return err;
}
