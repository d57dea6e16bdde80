/*
 * Partition tables and IMAGE?part=N: an MBR with an extended partition and its
 * chain of logical ones (numbered 5, 6 as Linux numbers them), a GPT built here
 * byte by byte with its checksums (names in UTF-16), the backup GPT used when
 * the primary fails, a protective MBR whose GPT cannot be read, entries past
 * the disk's end, a stalefs filesystem made and opened as disk?part=N (the
 * bytes around it unchanged), and every way a name can get part= wrong.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <zlib.h>
#include "unit.h"

#define DISK (64ULL << 20)
#define SECTORS (DISK / 512)

struct disk {
	char dir[64], path[128];
	int fd;
};

static void disk_make(struct disk *d)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	snprintf(d->dir, sizeof(d->dir), "%s/stalefs-part-XXXXXX", tmp);
	ck_assert_ptr_nonnull(mkdtemp(d->dir));
	snprintf(d->path, sizeof(d->path), "%s/disk.img", d->dir);
	d->fd = open(d->path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(d->fd, 0);
	ck_assert_int_eq(ftruncate(d->fd, (off_t)DISK), 0);
}

static void disk_done(struct disk *d)
{
	close(d->fd);
	unlink(d->path);
	rmdir(d->dir);
}

static void put32(u8 *p, u32 v) { p[0] = (u8)v; p[1] = (u8)(v >> 8); p[2] = (u8)(v >> 16); p[3] = (u8)(v >> 24); }
static void put64(u8 *p, u64 v) { put32(p, (u32)v); put32(p + 4, (u32)(v >> 32)); }

static void write_at(struct disk *d, u64 off, const void *buf, size_t len)
{
	ck_assert_int_eq(pwrite(d->fd, buf, len, (off_t)off), (ssize_t)len);
}

/* An MBR (or EBR) sector: entries as {type, first sector, sectors}. */
static void mbr_sector(struct disk *d, u64 at, const u32 (*e)[3], int n, int boot)
{
	u8 s[512] = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		u8 *p = s + 446 + 16 * i;

		p[0] = i == boot ? 0x80 : 0;
		p[4] = (u8)e[i][0];
		put32(p + 8, e[i][1]);
		put32(p + 12, e[i][2]);
	}
	s[510] = 0x55;
	s[511] = 0xAA;
	write_at(d, at * 512, s, sizeof(s));
}

static struct stalefs_ptable read_table(const char *name)
{
	struct stalefs_io *io;
	struct stalefs_ptable t;

	ck_ok(stalefs_io_open(name, false, false, &io));
	ck_ok(stalefs_ptable_read(io, &t));
	ck_ok(stalefs_io_close(io));
	return t;
}

START_TEST(mbr_with_logicals)
{
	struct disk d;
	struct stalefs_ptable t;
	/* primary 1 at 2048; extended at 8192 (16384 sectors) holding two logicals; primary 3 past the end */
	static const u32 mbr[3][3] = { { 0x83, 2048, 4096 }, { 0x05, 8192, 16384 }, { 0x83, 100000, 50000 } };
	static const u32 ebr1[2][3] = { { 0x83, 2048, 1024 }, { 0x05, 4096, 4096 } };
	static const u32 ebr2[1][3] = { { 0x07, 2048, 2048 } };

	disk_make(&d);
	mbr_sector(&d, 0, mbr, 3, 0);
	mbr_sector(&d, 8192, ebr1, 2, -1);
	mbr_sector(&d, 8192 + 4096, ebr2, 1, -1);
	t = read_table(d.path);
	ck_assert_int_eq(t.kind, STALEFS_PT_MBR);
	ck_assert_uint_eq(t.n, 5);
	/* By start: 1, 2 (extended), 5, 6, 3. */
	ck_assert_uint_eq(t.v[0].number, 1);
	ck_assert(t.v[0].bootable);
	ck_assert_uint_eq(t.v[0].start, 2048ULL * 512);
	ck_assert_uint_eq(t.v[1].number, 2);
	ck_assert(t.v[1].extended);
	ck_assert_uint_eq(t.v[2].number, 5);
	ck_assert(t.v[2].logical);
	ck_assert_uint_eq(t.v[2].first_sector, 8192 + 2048);
	ck_assert_uint_eq(t.v[2].sectors, 1024);
	ck_assert_uint_eq(t.v[3].number, 6);
	ck_assert_uint_eq(t.v[3].first_sector, 8192 + 4096 + 2048);
	ck_assert_uint_eq(t.v[3].mbr_type, 0x07);
	ck_assert_str_eq(stalefs_partition_type_name(&t, &t.v[3]), "NTFS/exFAT/HPFS");
	ck_assert_uint_eq(t.v[4].number, 3);
	ck_assert_str_eq(t.v[4].problem, "extends past the end of the disk");
	ck_assert_ptr_null(t.v[0].problem);
	ck_assert_ptr_eq(stalefs_ptable_find(&t, 6), &t.v[3]);
	ck_assert_ptr_null(stalefs_ptable_find(&t, 4));
	stalefs_ptable_free(&t);
	disk_done(&d);
}
END_TEST

/* A GPT with n entries at `first` (sector), 2048-sector partitions one after the other. */
static void gpt_write(struct disk *d, u64 hdr_lba, u64 alt_lba, u64 entries_lba, int n, bool with_mbr)
{
	u8 hdr[512] = { 0 }, ents[128 * 128] = { 0 };
	static const u8 linux_fs[16] = { 0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47,
					 0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4 };
	static const char *const names[] = { "évidence", "b" };
	int i;

	for (i = 0; i < n; i++) {
		u8 *e = ents + 128 * i;
		const char *nm = names[i % 2];
		int k = 0;

		memcpy(e, linux_fs, 16);
		memset(e + 16, i + 1, 16);
		put64(e + 32, 2048 + (u64)i * 4096);
		put64(e + 40, 2048 + (u64)i * 4096 + 2047);
		/* UTF-16LE: ASCII, and "é" as U+00E9 */
		for (; *nm; nm++, k++) {
			if ((u8)nm[0] == 0xC3) {
				e[56 + 2 * k] = (u8)(0xC0 | (nm[1] & 0x3F));
				nm++;
			} else {
				e[56 + 2 * k] = (u8)*nm;
			}
		}
	}
	memcpy(hdr, "EFI PART", 8);
	put32(hdr + 8, 0x00010000);
	put32(hdr + 12, 92);
	put64(hdr + 24, hdr_lba);
	put64(hdr + 32, alt_lba);
	put64(hdr + 40, 34);
	put64(hdr + 48, SECTORS - 34);
	memset(hdr + 56, 0xab, 16);
	put64(hdr + 72, entries_lba);
	put32(hdr + 80, 128);
	put32(hdr + 84, 128);
	put32(hdr + 88, (u32)crc32(0, ents, sizeof(ents)));
	put32(hdr + 16, (u32)crc32(0, hdr, 92));
	write_at(d, hdr_lba * 512, hdr, sizeof(hdr));
	write_at(d, entries_lba * 512, ents, sizeof(ents));
	if (with_mbr) {
		static const u32 prot[1][3] = { { 0xEE, 1, (u32)(SECTORS - 1) } };

		mbr_sector(d, 0, prot, 1, -1);
	}
}

START_TEST(gpt_and_backup)
{
	struct disk d;
	struct stalefs_ptable t;
	u8 junk[4] = { 1, 2, 3, 4 };
	char guid[37];

	disk_make(&d);
	gpt_write(&d, 1, SECTORS - 1, 2, 2, true);
	gpt_write(&d, SECTORS - 1, 1, SECTORS - 33, 2, false);
	t = read_table(d.path);
	ck_assert_int_eq(t.kind, STALEFS_PT_GPT);
	ck_assert(!t.used_backup);
	ck_assert_uint_eq(t.n, 2);
	ck_assert_uint_eq(t.v[0].number, 1);
	ck_assert_uint_eq(t.v[0].start, 2048ULL * 512);
	ck_assert_uint_eq(t.v[0].size, 2048ULL * 512);
	ck_assert_str_eq(t.v[0].name, "\xc3\xa9vidence");
	ck_assert_str_eq(t.v[1].name, "b");
	ck_assert_str_eq(stalefs_partition_type_name(&t, &t.v[0]), "Linux filesystem");
	stalefs_guid_unparse(t.v[0].type_guid, guid);
	ck_assert_str_eq(guid, "0FC63DAF-8483-4772-8E79-3D69D8477DE4");
	stalefs_ptable_free(&t);
	/* The primary header spoiled: the backup at the last sector is read, and said. */
	write_at(&d, 512 + 40, junk, sizeof(junk));
	t = read_table(d.path);
	ck_assert_int_eq(t.kind, STALEFS_PT_GPT);
	ck_assert(t.used_backup);
	ck_assert_ptr_nonnull(strstr(t.note, "primary GPT header: header checksum does not match; the backup is used"));
	ck_assert_uint_eq(t.n, 2);
	stalefs_ptable_free(&t);
	/* Both spoiled: the protective MBR alone, and a note. */
	write_at(&d, (SECTORS - 1) * 512 + 40, junk, sizeof(junk));
	t = read_table(d.path);
	ck_assert_int_eq(t.kind, STALEFS_PT_MBR);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_uint_eq(t.v[0].mbr_type, 0xEE);
	ck_assert_ptr_nonnull(strstr(t.note, "GPT: primary header header checksum does not match, backup header checksum"));
	stalefs_ptable_free(&t);
	disk_done(&d);
}
END_TEST

/* mkfs and open through disk?part=N; what lies around the partition is not touched. */
START_TEST(open_partition)
{
	struct disk d;
	struct stalefs_mkfs_params p;
	struct stalefs_ptable t;
	stalefs_fs *fs;
	struct stalefs_io_info info;
	char name[192];
	u8 *buf = malloc(DISK), *mark = malloc(DISK);
	u64 i;

	disk_make(&d);
	for (i = 0; i < DISK; i++)
		mark[i] = (u8)(i * 7 + 3);
	write_at(&d, 0, mark, DISK);
	gpt_write(&d, 1, SECTORS - 1, 2, 2, true);
	gpt_write(&d, SECTORS - 1, 1, SECTORS - 33, 2, false);
	ck_assert_int_eq(pread(d.fd, mark, DISK, 0), (ssize_t)DISK);
	snprintf(name, sizeof(name), "%s?part=2", d.path);
	stalefs_mkfs_defaults(&p, 2048 * 512, 1024);
	strcpy(p.label, "second");
	ck_ok(stalefs_mkfs(name, &p, &fs));
	ck_ok(stalefs_close(fs));
	ck_ok(stalefs_open(name, 0, 0, 0, &fs));
	ck_assert_str_eq(fs->sb.s_volume_name, "second");
	stalefs_io_info(fs->io, &info);
	ck_assert_uint_eq(info.offset, (2048 + 4096) * 512ULL);
	ck_assert_uint_eq(info.size, 2048 * 512ULL);
	ck_assert_uint_eq(info.part, 2);
	ck_assert(!info.ewf);
	ck_assert_uint_eq(info.media_bytes, DISK);
	stalefs_free(fs);
	ck_assert_int_eq(pread(d.fd, buf, DISK, 0), (ssize_t)DISK);
	for (i = 0; i < DISK; i++)
		if ((i < info.offset || i >= info.offset + info.size) && buf[i] != mark[i])
			break;
	ck_assert_msg(i == DISK, "byte %llu outside partition 2 changed", (unsigned long long)i);
	t = read_table(d.path);
	ck_assert(!t.v[0].stalefs);
	ck_assert(t.v[1].stalefs);
	ck_assert_str_eq(t.v[1].label, "second");
	ck_assert_uint_eq(t.v[1].stalefs_bytes, 2048 * 512ULL);
	stalefs_ptable_free(&t);
	free(buf);
	free(mark);
	disk_done(&d);
}
END_TEST

START_TEST(bad_part_names)
{
	static const u32 mbr[2][3] = { { 0x83, 2048, 4096 }, { 0x05, 8192, 16384 } };
	static const char *const bad[] = { "part=0", "part=", "part=1&offset=0", "offset=1M&part=1", "part=1&size=1M",
					   "part=1&part=2", "part=x" };
	struct disk d;
	struct stalefs_io *io;
	struct stalefs_io_name n;
	char name[192];
	size_t i;

	disk_make(&d);
	snprintf(name, sizeof(name), "%s?part=1", d.path);
	ck_err(stalefs_io_open(name, false, false, &io), STALEFS_ERR_NO_PARTITION_TABLE);
	mbr_sector(&d, 0, mbr, 2, -1);
	snprintf(name, sizeof(name), "%s?part=3", d.path);
	ck_err(stalefs_io_open(name, false, false, &io), STALEFS_ERR_NO_PARTITION);
	snprintf(name, sizeof(name), "%s?part=2", d.path);
	ck_err(stalefs_io_open(name, false, false, &io), STALEFS_ERR_BAD_PARTITION);	/* extended */
	snprintf(name, sizeof(name), "%s?part=1", d.path);
	ck_ok(stalefs_io_parse_name(name, &n));
	ck_assert_uint_eq(n.part, 1);
	ck_assert(n.region);
	stalefs_io_name_free(&n);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "%s?%s", d.path, bad[i]);
		ck_assert_msg(stalefs_io_parse_name(name, &n) == STALEFS_ERR_BAD_REGION, "\"%s\" accepted", bad[i]);
	}
	ck_assert(stalefs_io_error(STALEFS_ERR_NO_PARTITION));
	ck_assert(stalefs_io_error(STALEFS_ERR_EWF_READ_ONLY));
	disk_done(&d);
}
END_TEST

Suite *partition_suite(void)
{
	Suite *su = suite_create("partition");
	TCase *tc = tcase_create("partition");

	tcase_add_test(tc, mbr_with_logicals);
	tcase_add_test(tc, gpt_and_backup);
	tcase_add_test(tc, open_partition);
	tcase_add_test(tc, bad_part_names);
	suite_add_tcase(su, tc);
	return su;
}
