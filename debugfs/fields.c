// SPDX-License-Identifier: GPL-2.0
/* The field tables of sif / ssv / set_bg / seb, and parsing values into them. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include "debugfs.h"
#include "fields.h"

#define I(f) offsetof(struct stalefs_inode, f), sizeof(((struct stalefs_inode *)0)->f)
#define S(f) offsetof(struct stalefs_super_block, f), sizeof(((struct stalefs_super_block *)0)->f)
#define D(f) offsetof(struct stalefs_group_desc, f), sizeof(((struct stalefs_group_desc *)0)->f)
#define IB offsetof(struct stalefs_inode, i_block)
#define EB offsetof(struct stalefs_extent_block, eb_hdr)	/* the node header inside a tree block */

const struct field inode_fields[] = {
	{ "mode", I(i_mode), F_UINT, 0, 0 },
	{ "links_count", I(i_links_count), F_UINT, 0, 0 },
	{ "flags", I(i_flags), F_UINT, 0, 0 },
	{ "uid", I(i_uid), F_UINT, 0, 0 },
	{ "gid", I(i_gid), F_UINT, 0, 0 },
	{ "size", I(i_size), F_UINT, 0, 0 },
	{ "blocks", I(i_blocks), F_UINT, 0, 0 },
	{ "atime", I(i_atime), F_TIME, 0, 0 },
	{ "ctime", I(i_ctime), F_TIME, 0, 0 },
	{ "mtime", I(i_mtime), F_TIME, 0, 0 },
	{ "crtime", I(i_crtime), F_TIME, 0, 0 },
	{ "atime_nsec", I(i_atime_nsec), F_UINT, 0, 0 },
	{ "ctime_nsec", I(i_ctime_nsec), F_UINT, 0, 0 },
	{ "mtime_nsec", I(i_mtime_nsec), F_UINT, 0, 0 },
	{ "crtime_nsec", I(i_crtime_nsec), F_UINT, 0, 0 },
	{ "dtime", I(i_dtime), F_TIME, 0, 0 },
	{ "generation", I(i_generation), F_UINT, 0, 0 },
	{ "rdev", I(i_rdev), F_UINT, 0, 0 },
	{ "ino", I(i_ino), F_UINT, 0, 0 },
	{ "checksum", I(i_checksum), F_CSUM, 0, 0 },
	{ "xattr_block", I(i_xattr_block), F_UINT, 0, 0 },
	{ "block[]", IB, 1, F_UINT, 1, STALEFS_IBLOCK_SIZE },
	{ "reserved[]", offsetof(struct stalefs_inode, i_reserved), 1, F_UINT, 1, 24 },
	/* the extent root in i_block: its header and its entries (leaf or index view) */
	{ "eh.magic", IB + 0, 2, F_UINT, 0, 0 },
	{ "eh.entries", IB + 2, 2, F_UINT, 0, 0 },
	{ "eh.max", IB + 4, 2, F_UINT, 0, 0 },
	{ "eh.depth", IB + 6, 2, F_UINT, 0, 0 },
	{ "extent[].lblk", IB + 8, 4, F_UINT, 16, STALEFS_ROOT_EXTENTS },
	{ "extent[].len", IB + 12, 2, F_UINT, 16, STALEFS_ROOT_EXTENTS },
	{ "extent[].flags", IB + 14, 2, F_UINT, 16, STALEFS_ROOT_EXTENTS },
	{ "extent[].pblk", IB + 16, 8, F_UINT, 16, STALEFS_ROOT_EXTENTS },
	{ "index[].lblk", IB + 8, 4, F_UINT, 16, STALEFS_ROOT_EXTENTS },
	{ "index[].reserved", IB + 12, 4, F_UINT, 16, STALEFS_ROOT_EXTENTS },
	{ "index[].pblk", IB + 16, 8, F_UINT, 16, STALEFS_ROOT_EXTENTS },
	{ NULL, 0, 0, 0, 0, 0 }
};

const struct field super_fields[] = {
	{ "magic", S(s_magic), F_UINT, 0, 0 },
	{ "checksum", S(s_checksum), F_CSUM, 0, 0 },
	{ "rev_level", S(s_rev_level), F_UINT, 0, 0 },
	{ "log_block_size", S(s_log_block_size), F_UINT, 0, 0 },
	{ "blocks_count", S(s_blocks_count), F_UINT, 0, 0 },
	{ "free_blocks_count", S(s_free_blocks_count), F_UINT, 0, 0 },
	{ "r_blocks_count", S(s_r_blocks_count), F_UINT, 0, 0 },
	{ "inodes_count", S(s_inodes_count), F_UINT, 0, 0 },
	{ "free_inodes_count", S(s_free_inodes_count), F_UINT, 0, 0 },
	{ "blocks_per_group", S(s_blocks_per_group), F_UINT, 0, 0 },
	{ "inodes_per_group", S(s_inodes_per_group), F_UINT, 0, 0 },
	{ "groups_count", S(s_groups_count), F_UINT, 0, 0 },
	{ "inode_size", S(s_inode_size), F_UINT, 0, 0 },
	{ "desc_size", S(s_desc_size), F_UINT, 0, 0 },
	{ "feature_compat", S(s_feature_compat), F_FEATURE0, 0, 0 },
	{ "feature_ro_compat", S(s_feature_ro_compat), F_FEATURE1, 0, 0 },
	{ "feature_incompat", S(s_feature_incompat), F_FEATURE2, 0, 0 },
	{ "first_ino", S(s_first_ino), F_UINT, 0, 0 },
	{ "lpf_ino", S(s_lpf_ino), F_UINT, 0, 0 },
	{ "stale_gid", S(s_stale_gid), F_UINT, 0, 0 },
	{ "csum_seed", S(s_csum_seed), F_UINT, 0, 0 },
	{ "state", S(s_state), F_UINT, 0, 0 },
	{ "errors", S(s_errors), F_UINT, 0, 0 },
	{ "uuid", S(s_uuid), F_UUID, 0, 0 },
	{ "volume_name", S(s_volume_name), F_STRING, 0, 0 },
	{ "last_mounted", S(s_last_mounted), F_STRING, 0, 0 },
	{ "mkfs_time", S(s_mkfs_time), F_TIME, 0, 0 },
	{ "mtime", S(s_mtime), F_TIME, 0, 0 },
	{ "wtime", S(s_wtime), F_TIME, 0, 0 },
	{ "lastcheck", S(s_lastcheck), F_TIME, 0, 0 },
	{ "mnt_count", S(s_mnt_count), F_UINT, 0, 0 },
	{ "error_count", S(s_error_count), F_UINT, 0, 0 },
	{ "first_error_time", S(s_first_error_time), F_TIME, 0, 0 },
	{ "first_error_block", S(s_first_error_block), F_UINT, 0, 0 },
	{ "first_error_ino", S(s_first_error_ino), F_UINT, 0, 0 },
	{ "last_error_ino", S(s_last_error_ino), F_UINT, 0, 0 },
	{ "last_error_time", S(s_last_error_time), F_TIME, 0, 0 },
	{ "last_error_block", S(s_last_error_block), F_UINT, 0, 0 },
	{ "first_error_func", S(s_first_error_func), F_STRING, 0, 0 },
	{ "last_error_func", S(s_last_error_func), F_STRING, 0, 0 },
	{ "block_group_nr", S(s_block_group_nr), F_UINT, 0, 0 },
	{ "gdt_blocks", S(s_gdt_blocks), F_UINT, 0, 0 },
	{ "max_mnt_count", S(s_max_mnt_count), F_UINT, 0, 0 },
	{ "checkinterval", S(s_checkinterval), F_UINT, 0, 0 },
	{ "journal_block", S(s_journal_block), F_UINT, 0, 0 },
	{ "journal_blocks", S(s_journal_blocks), F_UINT, 0, 0 },
	{ "journal_pad", S(s_journal_pad), F_UINT, 0, 0 },
	{ "first_meta_bg", S(s_first_meta_bg), F_UINT, 0, 0 },
	{ "reserved[]", offsetof(struct stalefs_super_block, s_reserved), 1, F_UINT, 1, 636 },
	{ NULL, 0, 0, 0, 0, 0 }
};

const struct field desc_fields[] = {
	{ "block_bitmap", D(bg_block_bitmap), F_UINT, 0, 0 },
	{ "inode_bitmap", D(bg_inode_bitmap), F_UINT, 0, 0 },
	{ "inode_table", D(bg_inode_table), F_UINT, 0, 0 },
	{ "free_blocks_count", D(bg_free_blocks_count), F_UINT, 0, 0 },
	{ "free_inodes_count", D(bg_free_inodes_count), F_UINT, 0, 0 },
	{ "used_dirs_count", D(bg_used_dirs_count), F_UINT, 0, 0 },
	{ "itable_unused", D(bg_itable_unused), F_UINT, 0, 0 },
	{ "flags", D(bg_flags), F_UINT, 0, 0 },
	{ "reserved0", D(bg_reserved0), F_UINT, 0, 0 },
	{ "block_bitmap_csum", D(bg_block_bitmap_csum), F_UINT, 0, 0 },
	{ "inode_bitmap_csum", D(bg_inode_bitmap_csum), F_UINT, 0, 0 },
	{ "checksum", D(bg_checksum), F_CSUM, 0, 0 },
	{ "orphan_count", D(bg_orphan_count), F_UINT, 0, 0 },
	{ "stale_count", D(bg_stale_count), F_UINT, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0 }
};

/* Entries of a tree block: count 0 means "as many as the block holds" (checked by the caller). */
const struct field extblock_fields[] = {
	{ "magic", 0, 4, F_UINT, 0, 0 },
	{ "checksum", 4, 4, F_CSUM, 0, 0 },
	{ "blocknr", 8, 8, F_UINT, 0, 0 },
	{ "owner", 16, 4, F_UINT, 0, 0 },
	{ "owner_gen", 20, 4, F_UINT, 0, 0 },
	{ "reserved", 24, 8, F_UINT, 0, 0 },
	{ "eh.magic", EB + 0, 2, F_UINT, 0, 0 },
	{ "eh.entries", EB + 2, 2, F_UINT, 0, 0 },
	{ "eh.max", EB + 4, 2, F_UINT, 0, 0 },
	{ "eh.depth", EB + 6, 2, F_UINT, 0, 0 },
	{ "extent[].lblk", EB + 8, 4, F_UINT, 16, 0 },
	{ "extent[].len", EB + 12, 2, F_UINT, 16, 0 },
	{ "extent[].flags", EB + 14, 2, F_UINT, 16, 0 },
	{ "extent[].pblk", EB + 16, 8, F_UINT, 16, 0 },
	{ "index[].lblk", EB + 8, 4, F_UINT, 16, 0 },
	{ "index[].reserved", EB + 12, 4, F_UINT, 16, 0 },
	{ "index[].pblk", EB + 16, 8, F_UINT, 16, 0 },
	{ NULL, 0, 0, 0, 0, 0 }
};

const struct field *field_find(const struct field *table, const char *prefix, const char *name,
			       u32 *offset, char *err, size_t errlen)
{
	char key[80];
	const char *br;
	unsigned long idx = 0;
	bool indexed = false;
	const struct field *f;

	if (prefix && strncmp(name, prefix, strlen(prefix)) == 0)
		name += strlen(prefix);
	br = strchr(name, '[');
	if (br) {
		char *end;
		size_t head = (size_t)(br - name);

		errno = 0;
		idx = strtoul(br + 1, &end, 0);
		if (errno || end == br + 1 || *end != ']' || head + 2 + strlen(end + 1) >= sizeof(key)) {
			snprintf(err, errlen, "bad array index in field name %s", name);
			return NULL;
		}
		snprintf(key, sizeof(key), "%.*s[]%s", (int)head, name, end + 1);
		indexed = true;
	} else {
		snprintf(key, sizeof(key), "%s", name);
	}
	for (f = table; f->name; f++) {
		if (strcasecmp(f->name, key) != 0)
			continue;
		if (indexed != (f->stride != 0))
			break;
		if (indexed && f->count && idx >= f->count) {
			snprintf(err, errlen, "index %lu out of range for %s (0..%u)", idx, f->name, f->count - 1);
			return NULL;
		}
		*offset = f->offset + (u32)idx * f->stride;
		return f;
	}
	snprintf(err, errlen, "invalid field specifier: %s", name);
	return NULL;
}

static void put_le(u8 *p, u32 size, u64 v)
{
	u32 i;

	for (i = 0; i < size; i++)
		p[i] = (u8)(v >> (8 * i));
}

u64 field_get_le(const u8 *p, u32 size)
{
	u64 v = 0;
	u32 i;

	for (i = 0; i < size; i++)
		v |= (u64)p[i] << (8 * i);
	return v;
}

static bool parse_uint(const char *s, u32 size, u64 *v)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	return size == 8 || *v < (1ULL << (8 * size));
}

/* "name,name" sets exactly; "+name" / "-name" items add or remove from the current mask. */
static bool parse_features(int kind, const char *s, u32 cur, u32 *out, char *err, size_t errlen)
{
	char buf[256], *tok, *save;
	u64 v;
	u32 mask = cur;
	bool relative = strchr("+-", s[0]) != NULL, first = true;

	if (parse_uint(s, 4, &v)) {
		*out = (u32)v;
		return true;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		int k;
		u32 bit;
		char op = 0;

		if (*tok == '+' || *tok == '-' || *tok == '^')
			op = *tok++;
		if (stalefs_feature_parse(tok, &k, &bit) || k != kind) {
			snprintf(err, errlen, "unknown %s feature: %s", kind == 0 ? "compat" : kind == 1 ? "ro_compat" : "incompat", tok);
			return false;
		}
		if (!relative && first)
			mask = 0;
		first = false;
		if (op == '-' || op == '^')
			mask &= ~bit;
		else
			mask |= bit;
	}
	*out = mask;
	return true;
}

static bool parse_uuid(const char *s, u8 out[16])
{
	int i = 0;

	while (*s && i < 16) {
		unsigned int b;

		if (*s == '-') {
			s++;
			continue;
		}
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) || sscanf(s, "%2x", &b) != 1)
			return false;
		out[i++] = (u8)b;
		s += 2;
	}
	return i == 16 && *s == '\0';
}

/* 8, 12 or 14 digits: YYYYMMDD[HHMM[SS]], UTC. */
static bool parse_date(const char *s, u64 *v)
{
	size_t n = strlen(s), i;
	struct tm tm;
	char buf[16];
	time_t t;

	if (n != 8 && n != 12 && n != 14)
		return false;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	memcpy(buf, s, n);
	memcpy(buf + n, "000000", 14 - n);
	buf[14] = '\0';
	memset(&tm, 0, sizeof(tm));
	if (!strptime(buf, "%Y%m%d%H%M%S", &tm))
		return false;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return false;
	*v = (u64)(s64)t;
	return true;
}

bool field_set(const struct field *f, u8 *buf, u32 offset, const char *value, char *err, size_t errlen)
{
	u64 v;
	u32 mask;

	switch (f->kind) {
	case F_UINT:
	case F_CSUM:
		if (!parse_uint(value, f->size, &v))
			goto bad;
		put_le(buf + offset, f->size, v);
		return true;
	case F_TIME:
		if (strcmp(value, "now") == 0) {
			v = (u64)time(NULL);
		} else if (parse_date(value, &v)) {
			/* YYYYMMDD[HHMM[SS]] in UTC, as e2fsprogs' debugfs takes dates */
		} else {
			if (*value == '@')
				value++;
			char *end;
			long long t;

			errno = 0;
			t = strtoll(value, &end, 0);
			if (errno || !*value || *end)
				goto bad;
			v = (u64)t;
		}
		put_le(buf + offset, f->size, v);
		return true;
	case F_STRING:
		if (strlen(value) > f->size) {
			snprintf(err, errlen, "string too long for %s (at most %u bytes)", f->name, f->size);
			return false;
		}
		memset(buf + offset, 0, f->size);
		memcpy(buf + offset, value, strlen(value));
		return true;
	case F_UUID:
		if (!parse_uuid(value, buf + offset))
			goto bad;
		return true;
	case F_FEATURE0:
	case F_FEATURE1:
	case F_FEATURE2:
		if (!parse_features((int)(f->kind - F_FEATURE0), value, (u32)field_get_le(buf + offset, 4), &mask, err, errlen))
			return false;
		put_le(buf + offset, 4, mask);
		return true;
	}
bad:
	snprintf(err, errlen, "invalid value for %s: %s", f->name, value);
	return false;
}

void field_list(const struct field *table, const char *what)
{
	const struct field *f;

	printf("%s fields supported:\n", what);
	for (f = table; f->name; f++) {
		const char *type;
		char range[32] = "";

		switch (f->kind) {
		case F_TIME: type = "time (\"now\", seconds, @seconds, YYYYMMDD[HHMM[SS]])"; break;
		case F_STRING: type = "string"; break;
		case F_UUID: type = "uuid"; break;
		case F_FEATURE0: case F_FEATURE1: case F_FEATURE2: type = "feature mask or names"; break;
		case F_CSUM: type = "checksum (number, or \"calc\")"; break;
		default: type = "unsigned integer"; break;
		}
		if (f->stride)
			snprintf(range, sizeof(range), f->count ? "[0..%u]" : "[0..n]", f->count ? f->count - 1 : 0);
		printf("\t%-24s %-8s %u-byte %s\n", f->name, range, f->size, type);
	}
}
