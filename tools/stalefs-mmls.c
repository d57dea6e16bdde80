// SPDX-License-Identifier: GPL-2.0
/*
 * stalefs-mmls: the partition table of a whole-disk image or device (MBR or
 * GPT, a raw image or an EWF .E01), in the manner of TSK's mmls, with each
 * partition probed for stalefs and the name every stalefs tool opens it by
 * (IMAGE?part=N).  Never writes.
 *
 * Exit status: 0 listed; 1 no partition table (said, and whether the image is
 * a stalefs filesystem on its own); 8 the image cannot be opened or read;
 * 16 usage.
 */
#include <getopt.h>
#include <stdlib.h>
#include "libstalefs.h"

static const char *prog = "stalefs-mmls";

static void usage(void)
{
	fprintf(stderr, "Usage: %s [-j] [-V] image\n", prog);
	exit(16);
}

static void size_string(u64 bytes, char *out, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(out, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(out, len, "%.1f %s", v, unit[u]);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* Unallocated sectors between the table's pieces: [from, to]. */
static void gap_row(const struct stalefs_ptable *t, u64 from, u64 to)
{
	char sz[32];

	size_string((to - from + 1) * t->sector_size, sz, sizeof(sz));
	printf("%5s  %-12llu %-12llu %-12llu %-11s %s\n", "-", (unsigned long long)from, (unsigned long long)to,
	       (unsigned long long)(to - from + 1), sz, "unallocated");
}

static void text(const char *image, const struct stalefs_ptable *t)
{
	u64 sectors = t->disk_bytes / t->sector_size, next = 0;
	char sz[32], guid[37];
	size_t i;

	size_string(t->disk_bytes, sz, sizeof(sz));
	printf("%s: %s, %llu sectors of %u bytes (%s)\n", image,
	       t->kind == STALEFS_PT_GPT ? "GPT (GUID partition table)" : "MBR (DOS partition table)",
	       (unsigned long long)sectors, t->sector_size, sz);
	if (t->kind == STALEFS_PT_GPT) {
		stalefs_guid_unparse(t->disk_guid, guid);
		printf("Disk GUID: %s\n", guid);
	}
	if (t->note[0])
		printf("Note: %s\n", t->note);
	printf("%5s  %-12s %-12s %-12s %-11s %s\n", "Part", "Start", "End", "Sectors", "Size", "Type, contents");
	for (i = 0; i < t->n; i++) {
		const struct stalefs_partition *p = &t->v[i];
		u64 end = p->sectors ? p->first_sector + p->sectors - 1 : p->first_sector;

		/* An extended partition holds the logical ones: its gaps are not the disk's. */
		if (p->first_sector > next && !p->logical)
			gap_row(t, next, p->first_sector - 1);
		size_string(p->size, sz, sizeof(sz));
		printf("%5u  %-12llu %-12llu %-12llu %-11s %s", p->number, (unsigned long long)p->first_sector,
		       (unsigned long long)end, (unsigned long long)p->sectors, sz, stalefs_partition_type_name(t, p));
		if (t->kind == STALEFS_PT_MBR)
			printf(" (0x%02x)", p->mbr_type);
		if (p->name[0])
			printf(" \"%s\"", p->name);
		if (p->bootable)
			printf(", bootable");
		if (p->problem)
			printf(", %s", p->problem);
		else if (p->stalefs)
			printf(": stalefs \"%s\", open as %s?part=%u", p->label, image, p->number);
		printf("\n");
		if (!p->logical && end + 1 > next)
			next = end + 1;
	}
	if (next < sectors)
		gap_row(t, next, sectors - 1);
}

static void json(const char *image, const struct stalefs_ptable *t)
{
	char guid[37];
	size_t i;

	printf("{\"image\":");
	json_string(image);
	printf(",\"table\":\"%s\",\"sector_size\":%u,\"sectors\":%llu,\"bytes\":%llu", t->kind == STALEFS_PT_GPT ? "gpt" : "mbr",
	       t->sector_size, (unsigned long long)(t->disk_bytes / t->sector_size), (unsigned long long)t->disk_bytes);
	if (t->kind == STALEFS_PT_GPT) {
		stalefs_guid_unparse(t->disk_guid, guid);
		printf(",\"disk_guid\":\"%s\",\"backup_header_used\":%s", guid, t->used_backup ? "true" : "false");
	}
	printf(",\"note\":");
	json_string(t->note);
	printf(",\"partitions\":[");
	for (i = 0; i < t->n; i++) {
		const struct stalefs_partition *p = &t->v[i];

		printf("%s{\"number\":%u,\"start_sector\":%llu,\"sectors\":%llu,\"offset\":%llu,\"size\":%llu,\"type\":", i ? "," : "",
		       p->number, (unsigned long long)p->first_sector, (unsigned long long)p->sectors,
		       (unsigned long long)p->start, (unsigned long long)p->size);
		json_string(stalefs_partition_type_name(t, p));
		if (t->kind == STALEFS_PT_GPT) {
			stalefs_guid_unparse(p->type_guid, guid);
			printf(",\"type_guid\":\"%s\"", guid);
			stalefs_guid_unparse(p->part_guid, guid);
			printf(",\"guid\":\"%s\",\"name\":", guid);
			json_string(p->name);
		} else {
			printf(",\"mbr_type\":%u,\"bootable\":%s,\"extended\":%s,\"logical\":%s", p->mbr_type,
			       p->bootable ? "true" : "false", p->extended ? "true" : "false", p->logical ? "true" : "false");
		}
		if (p->problem) {
			printf(",\"problem\":");
			json_string(p->problem);
		}
		printf(",\"stalefs\":%s", p->stalefs ? "true" : "false");
		if (p->stalefs) {
			printf(",\"label\":");
			json_string(p->label);
			char *as = malloc(strlen(image) + 32);

			printf(",\"filesystem_bytes\":%llu,\"open_as\":", (unsigned long long)p->stalefs_bytes);
			if (as) {
				sprintf(as, "%s?part=%u", image, p->number);
				json_string(as);
				free(as);
			} else {
				printf("null");
			}
		}
		printf("}");
	}
	printf("]}\n");
}

int main(int argc, char **argv)
{
	struct stalefs_ptable t;
	struct stalefs_io *io;
	bool as_json = false;
	errcode_t err;
	int c;

	add_error_table(&et_slfs_error_table);
	while ((c = getopt(argc, argv, "jV")) != -1) {
		switch (c) {
		case 'j': as_json = true; break;
		case 'V':
			printf("%s 1.0 (stalefs format revision 1)\n", prog);
			return 0;
		default: usage();
		}
	}
	if (argc - optind != 1)
		usage();
	err = stalefs_io_open(argv[optind], false, false, &io);
	if (err) {
		com_err(prog, err, "while opening %s", argv[optind]);
		return 8;
	}
	err = stalefs_ptable_read(io, &t);
	if (err == STALEFS_ERR_NO_PARTITION_TABLE) {
		struct stalefs_partition whole = { .size = ~0ULL };

		stalefs_partition_probe(io, &whole);
		fprintf(stderr, "%s: %s: no partition table (MBR or GPT)%s\n", prog, argv[optind],
			whole.stalefs ? "; the image is a stalefs filesystem on its own (open it as it is)" : "");
		stalefs_io_close(io);
		return 1;
	}
	if (err) {
		com_err(prog, err, "while reading the partition table of %s", argv[optind]);
		stalefs_io_close(io);
		return 8;
	}
	if (as_json)
		json(argv[optind], &t);
	else
		text(argv[optind], &t);
	stalefs_ptable_free(&t);
	stalefs_io_close(io);
	return 0;
}
