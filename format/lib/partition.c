// SPDX-License-Identifier: GPL-2.0
/*
 * Partition tables of whole-disk images, as evidence arrives: MBR (with the
 * chain of extended boot records for logical partitions) and GPT (primary
 * header, or the backup at the disk's end when the primary fails its
 * checksums), numbered as Linux numbers them (sda1..4 primary, 5.. logical;
 * GPT entry i is partition i + 1), and each partition probed for a stalefs
 * superblock.  IMAGE?part=N (io.c) and stalefs-mmls stand on it.
 *
 * Sectors are 512 bytes unless a GPT header is found at 4096 (a 4Kn disk).
 * Only what the tables say is trusted as far as it stays inside the disk: an
 * entry that does not is listed with its problem, never opened.
 */
#include <stdlib.h>
#include <zlib.h>
#include "libstalefs.h"
#include "lib_internal.h"

#define MBR_SIG_OFF	510
#define MBR_TABLE_OFF	446
#define GPT_SIG		"EFI PART"
#define MAX_PARTS	256	/* GPT tables hold 128 entries; extended chains are cut here */

static u32 get_le32(const u8 *p) { return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24; }
static u64 get_le64(const u8 *p) { return (u64)get_le32(p) | (u64)get_le32(p + 4) << 32; }

static struct stalefs_partition *add(struct stalefs_ptable *t)
{
	struct stalefs_partition *p;

	t->v = stalefs_xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	p = &t->v[t->n++];
	memset(p, 0, sizeof(*p));
	return p;
}

static void set_extent(struct stalefs_ptable *t, struct stalefs_partition *p, u64 first, u64 count)
{
	p->first_sector = first;
	p->sectors = count;
	p->start = first * t->sector_size;
	p->size = count * t->sector_size;
	if (!count)
		p->problem = "empty";
	else if (first + count < first || p->start + p->size > t->disk_bytes)
		p->problem = "extends past the end of the disk";
}

/* ---- MBR ---- */

static bool is_extended(u8 type)
{
	return type == 0x05 || type == 0x0f || type == 0x85;
}

/* The logical partitions: each EBR's first entry is one (relative to that EBR), its second
 * the next EBR (relative to the extended partition's start). */
static errcode_t read_logicals(struct stalefs_io *io, struct stalefs_ptable *t, u64 ext_first, u64 ext_count)
{
	u8 ebr[512];
	u64 at = ext_first;
	u32 number = 5, hops;

	for (hops = 0; hops < MAX_PARTS && at; hops++) {
		const u8 *e1 = ebr + MBR_TABLE_OFF, *e2 = e1 + 16;
		errcode_t err;

		if (at < ext_first || at >= ext_first + ext_count || (at + 1) * 512 > t->disk_bytes)
			break;	/* a link out of the extended partition: the chain ends */
		err = stalefs_io_pread(io, at * 512, sizeof(ebr), ebr);
		if (err)
			return err;
		if (ebr[MBR_SIG_OFF] != 0x55 || ebr[MBR_SIG_OFF + 1] != 0xAA)
			break;
		if (e1[4] && get_le32(e1 + 12)) {
			struct stalefs_partition *p = add(t);

			p->number = number++;
			p->mbr_type = e1[4];
			p->logical = true;
			set_extent(t, p, at + get_le32(e1 + 8), get_le32(e1 + 12));
		}
		at = e2[4] && get_le32(e2 + 12) ? ext_first + get_le32(e2 + 8) : 0;
	}
	return 0;
}

static errcode_t read_mbr(struct stalefs_io *io, struct stalefs_ptable *t, const u8 *mbr)
{
	u32 i;
	errcode_t err;

	t->kind = STALEFS_PT_MBR;
	t->sector_size = 512;
	for (i = 0; i < 4; i++) {
		const u8 *e = mbr + MBR_TABLE_OFF + 16 * i;
		struct stalefs_partition *p;

		if (!e[4])
			continue;	/* an unused slot */
		p = add(t);
		p->number = i + 1;
		p->mbr_type = e[4];
		p->bootable = e[0] == 0x80;
		p->extended = is_extended(e[4]);
		set_extent(t, p, get_le32(e + 8), get_le32(e + 12));
	}
	for (i = 0; i < t->n; i++) {
		if (!t->v[i].extended || t->v[i].problem)
			continue;
		err = read_logicals(io, t, t->v[i].first_sector, t->v[i].sectors);
		if (err)
			return err;
		break;	/* one extended partition, as Linux reads them */
	}
	return 0;
}

/* ---- GPT ---- */

/* A UTF-16LE name to UTF-8 (what the table holds is arbitrary: unpaired surrogates as '?'). */
static void gpt_name(const u8 *src, char *out, size_t outlen)
{
	size_t o = 0;
	u32 i;

	for (i = 0; i < 36; i++) {
		u32 c = (u32)src[2 * i] | (u32)src[2 * i + 1] << 8;

		if (!c)
			break;
		if (c >= 0xD800 && c <= 0xDBFF && i + 1 < 36) {
			u32 lo = (u32)src[2 * i + 2] | (u32)src[2 * i + 3] << 8;

			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
				i++;
			} else {
				c = '?';
			}
		} else if (c >= 0xD800 && c <= 0xDFFF) {
			c = '?';
		}
		if (c < 0x80 && o + 1 < outlen) {
			out[o++] = (char)c;
		} else if (c < 0x800 && o + 2 < outlen) {
			out[o++] = (char)(0xC0 | c >> 6);
			out[o++] = (char)(0x80 | (c & 0x3F));
		} else if (c < 0x10000 && o + 3 < outlen) {
			out[o++] = (char)(0xE0 | c >> 12);
			out[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
			out[o++] = (char)(0x80 | (c & 0x3F));
		} else if (o + 4 < outlen) {
			out[o++] = (char)(0xF0 | c >> 18);
			out[o++] = (char)(0x80 | ((c >> 12) & 0x3F));
			out[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
			out[o++] = (char)(0x80 | (c & 0x3F));
		}
	}
	out[o] = '\0';
}

static u32 crc_of(const void *p, size_t len)
{
	return (u32)crc32(0, p, (uInt)len);	/* GPT's CRC32 is zlib's (IEEE, inverted) */
}

/* The header at lba (sector size ss) and its entry array, both checksums right: 0, else why. */
static const char *gpt_load(struct stalefs_io *io, u64 disk_bytes, u32 ss, u64 lba, u8 *hdr, u8 **entries)
{
	u32 hsize, n, esize, crc;
	u64 elba, bytes;
	u8 *e;

	*entries = NULL;
	if ((lba + 1) * ss > disk_bytes || stalefs_io_pread(io, lba * ss, 512, hdr))
		return "cannot be read";
	if (memcmp(hdr, GPT_SIG, 8))
		return "no GPT signature";
	hsize = get_le32(hdr + 12);
	if (hsize < 92 || hsize > 512)
		return "bad header size";
	crc = get_le32(hdr + 16);
	memset(hdr + 16, 0, 4);
	if (crc_of(hdr, hsize) != crc)
		return "header checksum does not match";
	hdr[16] = (u8)crc;	/* back as it was */
	hdr[17] = (u8)(crc >> 8);
	hdr[18] = (u8)(crc >> 16);
	hdr[19] = (u8)(crc >> 24);
	elba = get_le64(hdr + 72);
	n = get_le32(hdr + 80);
	esize = get_le32(hdr + 84);
	if (esize < 128 || esize > 4096 || esize % 8 || n > 1024)
		return "bad entry count or size";
	bytes = (u64)n * esize;
	if (elba * ss + bytes > disk_bytes || elba * ss + bytes < elba * ss)
		return "entries past the end of the disk";
	e = stalefs_xmalloc(bytes ? (size_t)bytes : 1);
	if (stalefs_io_pread(io, elba * ss, (u32)bytes, e)) {
		free(e);
		return "entries cannot be read";
	}
	if (crc_of(e, (size_t)bytes) != get_le32(hdr + 88)) {
		free(e);
		return "entry array checksum does not match";
	}
	*entries = e;
	return NULL;
}

static bool zero16(const u8 *p)
{
	static const u8 z[16];

	return !memcmp(p, z, 16);
}

static void read_gpt_entries(struct stalefs_ptable *t, const u8 *hdr, const u8 *entries)
{
	u32 n = get_le32(hdr + 80), esize = get_le32(hdr + 84), i;

	memcpy(t->disk_guid, hdr + 56, 16);
	t->first_usable = get_le64(hdr + 40);
	t->last_usable = get_le64(hdr + 48);
	for (i = 0; i < n && t->n < MAX_PARTS; i++) {
		const u8 *e = entries + (size_t)i * esize;
		struct stalefs_partition *p;
		u64 first = get_le64(e + 32), last = get_le64(e + 40);

		if (zero16(e))
			continue;	/* an unused entry */
		p = add(t);
		p->number = i + 1;
		memcpy(p->type_guid, e, 16);
		memcpy(p->part_guid, e + 16, 16);
		p->attributes = get_le64(e + 48);
		gpt_name(e + 56, p->name, sizeof(p->name));
		set_extent(t, p, first, last >= first ? last - first + 1 : 0);
	}
}

/* Primary first; a primary that fails is replaced by the backup at the disk's last sector. */
static bool read_gpt(struct stalefs_io *io, struct stalefs_ptable *t)
{
	static const u32 sizes[2] = { 512, 4096 };
	u8 hdr[512], *entries;
	u32 k;

	for (k = 0; k < 2; k++) {
		u32 ss = sizes[k];
		const char *why = gpt_load(io, t->disk_bytes, ss, 1, hdr, &entries);

		if (why && !strcmp(why, "no GPT signature") && k == 0)
			continue;	/* perhaps a 4Kn disk */
		if (why && t->disk_bytes / ss > 1) {
			const char *primary = why;

			why = gpt_load(io, t->disk_bytes, ss, t->disk_bytes / ss - 1, hdr, &entries);
			if (!why) {
				snprintf(t->note, sizeof(t->note), "primary GPT header: %s; the backup is used",
					 primary);
				t->used_backup = true;
			} else if (strcmp(primary, "no GPT signature")) {
				snprintf(t->note, sizeof(t->note), "GPT: primary header %s, backup %s", primary, why);
			}
		}
		if (why)
			continue;
		t->kind = STALEFS_PT_GPT;
		t->sector_size = ss;
		read_gpt_entries(t, hdr, entries);
		free(entries);
		return true;
	}
	return false;
}

/* ---- the table ---- */

static int cmp_start(const void *x, const void *y)
{
	const struct stalefs_partition *a = x, *b = y;

	if (a->first_sector != b->first_sector)
		return a->first_sector < b->first_sector ? -1 : 1;
	return a->number < b->number ? -1 : a->number > b->number;
}

void stalefs_partition_probe(struct stalefs_io *io, struct stalefs_partition *p)
{
	struct stalefs_super_block sb;

	if (p->problem || p->extended || p->size < STALEFS_SUPER_OFFSET + sizeof(sb))
		return;
	if (stalefs_io_pread(io, p->start + STALEFS_SUPER_OFFSET, sizeof(sb), &sb))
		return;
	if (le32_to_cpu(sb.s_magic) != STALEFS_SUPER_MAGIC)
		return;
	p->stalefs = true;
	p->stalefs_bytes = le64_to_cpu(sb.s_blocks_count) << (10 + le32_to_cpu(sb.s_log_block_size) % 32);
	memcpy(p->label, sb.s_volume_name, sizeof(sb.s_volume_name));
	p->label[sizeof(p->label) - 1] = '\0';
}

errcode_t stalefs_ptable_read(struct stalefs_io *io, struct stalefs_ptable *t)
{
	u8 mbr[512];
	errcode_t err;
	size_t i;

	memset(t, 0, sizeof(*t));
	t->sector_size = 512;
	err = stalefs_io_size(io, &t->disk_bytes);
	if (err)
		return err;
	if (t->disk_bytes < 512)
		return STALEFS_ERR_NO_PARTITION_TABLE;
	err = stalefs_io_pread(io, 0, sizeof(mbr), mbr);
	if (err)
		return err;
	/* A GPT disk carries a protective MBR (type 0xEE); a GPT with none is read all the same. */
	if (!read_gpt(io, t)) {
		if (mbr[MBR_SIG_OFF] != 0x55 || mbr[MBR_SIG_OFF + 1] != 0xAA)
			return STALEFS_ERR_NO_PARTITION_TABLE;
		err = read_mbr(io, t, mbr);
		if (err) {
			stalefs_ptable_free(t);
			return err;
		}
		/* A protective MBR whose GPT cannot be read: say so, list nothing from it. */
		for (i = 0; i < t->n; i++)
			if (t->v[i].mbr_type == 0xEE && !t->note[0])
				snprintf(t->note, sizeof(t->note), "a protective MBR, but no readable GPT");
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_start);
	for (i = 0; i < t->n; i++)
		stalefs_partition_probe(io, &t->v[i]);
	return 0;
}

void stalefs_ptable_free(struct stalefs_ptable *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

const struct stalefs_partition *stalefs_ptable_find(const struct stalefs_ptable *t, u32 number)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].number == number)
			return &t->v[i];
	return NULL;
}

const char *stalefs_partition_type_name(const struct stalefs_ptable *t, const struct stalefs_partition *p)
{
	/* The usual GPT types, by their on-disk (mixed-endian) bytes. */
	static const struct { u8 guid[16]; const char *name; } gpt[] = {
		{ { 0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47, 0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4 },
		  "Linux filesystem" },
		{ { 0x28, 0x73, 0x2a, 0xc1, 0x1f, 0xf8, 0xd2, 0x11, 0xba, 0x4b, 0x00, 0xa0, 0xc9, 0x3e, 0xc9, 0x3b },
		  "EFI System" },
		{ { 0x6d, 0xfd, 0x57, 0x06, 0xab, 0xa4, 0xc4, 0x43, 0x84, 0xe5, 0x09, 0x33, 0xc8, 0x4b, 0x4f, 0x4f },
		  "Linux swap" },
		{ { 0x79, 0xd3, 0xd6, 0xe6, 0x07, 0xf5, 0xc2, 0x44, 0xa2, 0x3c, 0x23, 0x8f, 0x2a, 0x3d, 0xf9, 0x28 },
		  "Linux LVM" },
		{ { 0x0f, 0x88, 0x9d, 0xa1, 0xfc, 0x05, 0x3b, 0x4d, 0xa0, 0x06, 0x74, 0x3f, 0x0f, 0x84, 0x91, 0x1e },
		  "Linux RAID" },
		{ { 0xa2, 0xa0, 0xd0, 0xeb, 0xe5, 0xb9, 0x33, 0x44, 0x87, 0xc0, 0x68, 0xb6, 0xb7, 0x26, 0x99, 0xc7 },
		  "Microsoft basic data" },
		{ { 0x48, 0x61, 0x68, 0x21, 0x49, 0x64, 0x6f, 0x6e, 0x74, 0x4e, 0x65, 0x65, 0x64, 0x45, 0x46, 0x49 },
		  "BIOS boot" },
	};
	size_t i;

	if (t->kind == STALEFS_PT_GPT) {
		for (i = 0; i < sizeof(gpt) / sizeof(gpt[0]); i++)
			if (!memcmp(p->type_guid, gpt[i].guid, 16))
				return gpt[i].name;
		return "unknown GPT type";
	}
	switch (p->mbr_type) {
	case 0x05: case 0x0f: case 0x85: return "Extended";
	case 0x07: return "NTFS/exFAT/HPFS";
	case 0x0b: case 0x0c: return "FAT32";
	case 0x06: case 0x0e: return "FAT16";
	case 0x01: return "FAT12";
	case 0x82: return "Linux swap";
	case 0x83: return "Linux";
	case 0x8e: return "Linux LVM";
	case 0xfd: return "Linux raid autodetect";
	case 0xee: return "GPT protective";
	case 0xef: return "EFI System";
	}
	return "unknown MBR type";
}

void stalefs_guid_unparse(const u8 g[16], char out[37])
{
	/* The first three fields are little-endian on disk. */
	snprintf(out, 37, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X", g[3], g[2], g[1],
		 g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}
