// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attributes (FORMAT.md 14): ea_list, ea_get, ea_set, ea_rm as in
 * e2fsprogs' debugfs (debugfs/xattrs.c there), and the "Extended attributes:"
 * section of stat.  Values are printed as e2fsprogs prints them: as a string
 * when printable enough, else as hex bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "debugfs.h"

#define PRINT_HEX	0x1	/* hex bytes whatever the value holds */
#define PRINT_QUOTES	0x2	/* a string value in double quotes (stat and ea_list) */

static void print_hex(FILE *f, const u8 *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x ", p[i]);
}

/* As e2fsprogs' print_c_string: M- for the high bit, ^ for control characters. */
static void print_c_string(FILE *f, const u8 *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned ch = p[i];

		if (ch > 128) {
			fputs("M-", f);
			ch -= 128;
		}
		if (ch < 32 || ch == 0x7f) {
			fputc('^', f);
			ch ^= 0x40;
		}
		fputc((int)ch, f);
	}
}

static void print_value(FILE *f, const u8 *p, size_t len, int flags)
{
	size_t printable = 0;

	/* "printable enough": more than 7/8 of the bytes, as e2fsprogs decides */
	for (size_t i = 0; i < len; i++)
		if (isprint(p[i]))
			printable++;
	if (printable <= len * 7 / 8)
		flags |= PRINT_HEX;
	if (flags & PRINT_HEX) {
		print_hex(f, p, len);
		return;
	}
	if (flags & PRINT_QUOTES)
		fputc('"', f);
	print_c_string(f, p, len);
	if (flags & PRINT_QUOTES)
		fputc('"', f);
}

/* "  name (size) = value": values of 40 bytes and more show only their size, as in e2fsprogs. */
static int list_one(const char *name, const void *value, size_t size, void *priv)
{
	(void)priv;
	printf("  %s (%zu)", name, size);
	if (size != 0 && size < 40) {
		printf(" = ");
		print_value(stdout, value, size, PRINT_QUOTES);
	}
	printf("\n");
	return 0;
}

static int count_one(const char *name, const void *value, size_t size, void *priv)
{
	(void)name; (void)value; (void)size;
	(*(unsigned *)priv)++;
	return 0;
}

/* Why the attributes cannot be read: the verifier's rule for the region that breaks one. */
static void xattr_problem(u32 ino, const struct stalefs_inode *in, char *out, size_t len)
{
	const struct stalefs_geom *g = &dbg.fs->geom;
	u32 alen = stalefs_xattr_ibody_len(g), gen = le32_to_cpu(in->i_generation);
	u64 blk = le64_to_cpu(in->i_xattr_block);
	u8 *buf = malloc(dbg.fs->block_size);
	int rule = 0;

	out[0] = '\0';
	if (!buf)
		return;
	if (alen && stalefs_read_inode_area(dbg.fs, ino, buf) == 0 && !stalefs_xattr_ibody_empty(buf)) {
		rule = stalefs_verify_xattr_ibody(buf, alen);
		if (!rule)
			rule = stalefs_verify_xattr_ibody_csum(dbg.fs->seed, ino, gen, buf, alen);
		if (rule) {
			snprintf(out, len, "in-inode area: %s", stalefs_rule_msg(rule));
			goto out;
		}
	}
	if (blk && !stalefs_block_valid(dbg.fs, blk)) {
		snprintf(out, len, "xattr block %llu is outside the filesystem", (unsigned long long)blk);
	} else if (blk && stalefs_read_block(dbg.fs, blk, buf) == 0) {
		rule = stalefs_verify_xattr_block(buf, dbg.fs->block_size, blk, ino, gen);
		if (!rule)
			rule = stalefs_verify_xattr_block_csum(dbg.fs->seed, buf, dbg.fs->block_size);
		if (rule)
			snprintf(out, len, "xattr block %llu: %s", (unsigned long long)blk, stalefs_rule_msg(rule));
	}
out:
	free(buf);
}

/* "cmd: <error message> while <doing what> (<the rule broken>)" for an attribute error. */
static void report(const char *cmd, errcode_t err, u32 ino, const char *verb, const char *name,
		   const char *prep)
{
	struct stalefs_inode in;
	char why[160] = "";

	if ((err == STALEFS_ERR_XATTR_CORRUPT || err == STALEFS_ERR_XATTR_CSUM) &&
	    stalefs_read_inode_raw(dbg.fs, ino, &in, &(int){ 0 }) == 0)
		xattr_problem(ino, &in, why, sizeof(why));
	dbg_err(cmd, err, "%s %s %s inode %u%s%s%s", verb, name, prep, ino, why[0] ? " (" : "", why,
		why[0] ? ")" : "");
}

void dbg_stat_xattrs(u32 ino, const struct stalefs_inode *in)
{
	unsigned n = 0;
	errcode_t err;
	char why[160];

	if (!stalefs_xattr_present(dbg.fs, ino, in))
		return;
	err = stalefs_xattr_iterate(dbg.fs, ino, count_one, &n);
	if (err) {
		xattr_problem(ino, in, why, sizeof(why));
		printf("Extended attributes: ** %s%s%s **\n", error_message(err), why[0] ? ": " : "", why);
		return;
	}
	if (!n)
		return;
	printf("Extended attributes:\n");
	stalefs_xattr_iterate(dbg.fs, ino, list_one, NULL);
}

/* JSON for stat: "xattrs":[{"name":..,"size":..},...] or "xattrs_error":"..." */
static int json_one(const char *name, const void *value, size_t size, void *priv)
{
	bool *first = priv;

	(void)value;
	printf("%s{\"name\":", *first ? "" : ",");
	json_str(stdout, name);
	printf(",\"size\":%zu}", size);
	*first = false;
	return 0;
}

void dbg_stat_xattrs_json(u32 ino, const struct stalefs_inode *in)
{
	bool first = true;
	errcode_t err = 0;

	printf(",\"xattr_block\":%llu,\"xattrs\":[", (unsigned long long)le64_to_cpu(in->i_xattr_block));
	if (stalefs_xattr_present(dbg.fs, ino, in))
		err = stalefs_xattr_iterate(dbg.fs, ino, json_one, &first);
	printf("]");
	if (err) {
		printf(",\"xattrs_error\":");
		json_str(stdout, error_message(err));
	}
}

DBG_CMD(do_list_xattr)
{
	u32 ino;
	unsigned n = 0;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 1, 1, "<file>") || !dbg_need_fs(argv[0]) ||
	    !dbg_name_to_ino(argv[0], argv[1], &ino))
		return;
	err = stalefs_xattr_iterate(dbg.fs, ino, count_one, &n);
	if (err) {
		report(argv[0], err, ino, "reading", "the extended attributes", "of");
		return;
	}
	if (!n)
		return;
	printf("Extended attributes:\n");
	stalefs_xattr_iterate(dbg.fs, ino, list_one, NULL);
}

DBG_CMD(do_get_xattr)
{
	static const char usage[] = "[-f outfile] [-x] <file> <attr_name>";
	const char *outfile = NULL;
	int c, flags = 0;
	size_t size = 0;
	u8 *buf;
	u32 ino;
	errcode_t err;

	(void)sci_idx; (void)info;
	optind = 0;
	opterr = 0;
	while ((c = getopt(argc, (char *const *)argv, "f:x")) != -1) {
		if (c == 'f') {
			outfile = optarg;
		} else if (c == 'x') {
			flags |= PRINT_HEX;
		} else {
			dbg_usage(argv[0], usage);
			return;
		}
	}
	if (argc - optind != 2) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_fs(argv[0]) || !dbg_name_to_ino(argv[0], argv[optind], &ino))
		return;
	err = stalefs_xattr_get(dbg.fs, ino, argv[optind + 1], NULL, 0, &size);
	if (err) {
		report(argv[0], err, ino, "reading", argv[optind + 1], "of");
		return;
	}
	buf = malloc(size ? size : 1);
	if (!buf) {
		dbg_err(argv[0], STALEFS_ERR_NO_MEMORY, "reading %s", argv[optind + 1]);
		return;
	}
	err = stalefs_xattr_get(dbg.fs, ino, argv[optind + 1], buf, size, &size);
	if (err) {
		report(argv[0], err, ino, "reading", argv[optind + 1], "of");
	} else if (outfile) {
		FILE *f = fopen(outfile, "w");

		if (!f || (size && fwrite(buf, size, 1, f) != 1) || fclose(f) != 0) {
			dbg_err(argv[0], errno, "writing %s", outfile);
		}
	} else {
		print_value(stdout, buf, size, flags);
		printf("\n");
	}
	free(buf);
}

/* The whole of a native file, for ea_set -f. */
static u8 *slurp(const char *cmd, const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	u8 *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f) {
		dbg_err(cmd, errno, "opening %s", path);
		return NULL;
	}
	for (;;) {
		if (*len == cap) {
			u8 *nb;

			/* Beyond what any region can hold: stop reading, the set says no space. */
			if (cap > 0x20000) {
				break;
			}
			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				dbg_err(cmd, STALEFS_ERR_NO_MEMORY, "reading %s", path);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + *len, 1, cap - *len, f);
		if (n == 0)
			break;
		*len += n;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		dbg_err(cmd, errno ? errno : EIO, "reading %s", path);
		return NULL;
	}
	fclose(f);
	return buf ? buf : calloc(1, 1);
}

DBG_CMD(do_set_xattr)
{
	static const char usage[] = "[-f infile] <file> <attr_name> [attr_value]";
	const char *infile = NULL;
	const void *value;
	u8 *data = NULL;
	size_t len;
	int c, want;
	u32 ino;
	errcode_t err;

	(void)sci_idx; (void)info;
	optind = 0;
	opterr = 0;
	while ((c = getopt(argc, (char *const *)argv, "f:")) != -1) {
		if (c != 'f') {
			dbg_usage(argv[0], usage);
			return;
		}
		infile = optarg;
	}
	want = infile ? 2 : 3;
	if (argc - optind != want) {
		dbg_usage(argv[0], usage);
		return;
	}
	if (!dbg_need_rw(argv[0]) || !dbg_need_bitmaps(argv[0]) ||
	    !dbg_name_to_ino(argv[0], argv[optind], &ino))
		return;
	if (infile) {
		data = slurp(argv[0], infile, &len);
		if (!data)
			return;
		value = data;
	} else {
		value = argv[optind + 2];
		len = strlen(argv[optind + 2]);
	}
	err = stalefs_xattr_set(dbg.fs, ino, argv[optind + 1], value, len, 0);
	if (err)
		report(argv[0], err, ino, "setting", argv[optind + 1], "on");
	free(data);
}

DBG_CMD(do_rm_xattr)
{
	u32 ino;
	errcode_t err;

	(void)sci_idx; (void)info;
	if (!dbg_args(argc, argv, 2, -1, "<file> <attr_name>...") || !dbg_need_rw(argv[0]) ||
	    !dbg_need_bitmaps(argv[0]) || !dbg_name_to_ino(argv[0], argv[1], &ino))
		return;
	for (int i = 2; i < argc; i++) {
		err = stalefs_xattr_delete(dbg.fs, ino, argv[i]);
		if (err)
			report(argv[0], err, ino, "removing", argv[i], "from");
	}
}
