// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attribute entry lists (FORMAT.md 14), shared by the kernel and
 * libstalefs: name prefixes, the walk every reader uses, and the edits every
 * writer makes, so that the module, mkfs, debugfs and fsck agree on one layout.
 */
#ifndef __KERNEL__
#include <string.h>
#endif
#include "stalefs_core.h"

static const struct {
	u8 index;
	bool whole;		/* the prefix is the whole name: the suffix is empty */
	const char *prefix;
} prefixes[] = {
	{ STALEFS_XATTR_INDEX_USER, false, "user." },
	{ STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS, true, "system.posix_acl_access" },
	{ STALEFS_XATTR_INDEX_POSIX_ACL_DEFAULT, true, "system.posix_acl_default" },
	{ STALEFS_XATTR_INDEX_TRUSTED, false, "trusted." },
	{ STALEFS_XATTR_INDEX_SECURITY, false, "security." },
};
#define XATTR_NPREFIXES (sizeof(prefixes) / sizeof(prefixes[0]))

static bool index_is_acl(u8 index)
{
	return index == STALEFS_XATTR_INDEX_POSIX_ACL_ACCESS ||
	       index == STALEFS_XATTR_INDEX_POSIX_ACL_DEFAULT;
}

const char *stalefs_xattr_prefix(u8 index)
{
	size_t i;

	for (i = 0; i < XATTR_NPREFIXES; i++)
		if (prefixes[i].index == index)
			return prefixes[i].prefix;
	return NULL;
}

bool stalefs_xattr_split(const char *full, u8 *index, const char **suffix)
{
	size_t i, n;

	for (i = 0; i < XATTR_NPREFIXES; i++) {
		n = strlen(prefixes[i].prefix);
		if (strncmp(full, prefixes[i].prefix, n) != 0)
			continue;
		if (prefixes[i].whole && full[n] != '\0')
			continue;
		*index = prefixes[i].index;
		*suffix = full + n;
		return true;
	}
	return false;
}

bool stalefs_xattr_entry_at(const u8 *region, u32 len, u32 off, struct stalefs_xattr_ref *ref)
{
	const struct stalefs_xattr_entry *e;
	u32 elen;

	if (off + sizeof(*e) > len)
		return false;
	e = (const void *)(region + off);
	if (e->xe_name_index == 0)
		return false;
	elen = stalefs_xattr_entry_len(e->xe_name_len, le16_to_cpu(e->xe_value_size));
	if (elen > len - off)
		return false;
	ref->off = off;
	ref->index = e->xe_name_index;
	ref->name_len = e->xe_name_len;
	ref->value_size = le16_to_cpu(e->xe_value_size);
	ref->name = (const char *)(e + 1);
	ref->value = (const u8 *)(e + 1) + e->xe_name_len;
	return true;
}

static bool bytes_zero(const u8 *p, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* One entry's own rules, at off with at least a header's bytes left. */
static int check_entry(const u8 *region, u32 len, u32 off, u32 *elen)
{
	const struct stalefs_xattr_entry *e = (const void *)(region + off);
	u32 body = e->xe_name_len + le16_to_cpu(e->xe_value_size);

	if (!stalefs_xattr_prefix(e->xe_name_index))
		return STALEFS_R_XATTR_INDEX;
	if (index_is_acl(e->xe_name_index) ? e->xe_name_len != 0 : e->xe_name_len == 0)
		return STALEFS_R_XATTR_NAME;
	*elen = stalefs_xattr_entry_len(e->xe_name_len, le16_to_cpu(e->xe_value_size));
	if (*elen > len - off)
		return STALEFS_R_XATTR_OVERRUN;
	if (!bytes_zero(region + off + sizeof(*e) + body, *elen - (u32)sizeof(*e) - body))
		return STALEFS_R_XATTR_PADDING;
	return 0;
}

static bool same_name(const u8 *region, u32 a, u32 b)
{
	const struct stalefs_xattr_entry *ea = (const void *)(region + a);
	const struct stalefs_xattr_entry *eb = (const void *)(region + b);

	return ea->xe_name_index == eb->xe_name_index && ea->xe_name_len == eb->xe_name_len &&
	       memcmp(ea + 1, eb + 1, ea->xe_name_len) == 0;
}

int stalefs_xattr_region_check(const u8 *region, u32 len, u32 *used)
{
	u32 off = 0, elen, prev;
	int rule;

	while (off + sizeof(struct stalefs_xattr_entry) <= len && region[off] != 0) {
		rule = check_entry(region, len, off, &elen);
		if (rule)
			return rule;
		/* Regions hold a few dozen entries at most: a quadratic scan is cheap. */
		for (prev = 0; prev < off;) {
			const struct stalefs_xattr_entry *p = (const void *)(region + prev);

			if (same_name(region, prev, off))
				return STALEFS_R_XATTR_DUPLICATE;
			prev += stalefs_xattr_entry_len(p->xe_name_len, le16_to_cpu(p->xe_value_size));
		}
		off += elen;
	}
	if (!bytes_zero(region + off, len - off))
		return STALEFS_R_XATTR_TAIL;
	if (used)
		*used = off;
	return 0;
}

int stalefs_xattr_find(const u8 *region, u32 len, u8 index, const char *name, u32 name_len)
{
	struct stalefs_xattr_ref r;
	u32 off = 0;

	while (stalefs_xattr_entry_at(region, len, off, &r)) {
		if (r.index == index && r.name_len == name_len && memcmp(r.name, name, name_len) == 0)
			return (int)off;
		off += stalefs_xattr_entry_len(r.name_len, r.value_size);
	}
	return -1;
}

u32 stalefs_xattr_region_used(const u8 *region, u32 len)
{
	struct stalefs_xattr_ref r;
	u32 off = 0;

	while (stalefs_xattr_entry_at(region, len, off, &r))
		off += stalefs_xattr_entry_len(r.name_len, r.value_size);
	return off;
}

void stalefs_xattr_remove(u8 *region, u32 len, u32 off)
{
	struct stalefs_xattr_ref r;
	u32 used = stalefs_xattr_region_used(region, len), elen;

	if (!stalefs_xattr_entry_at(region, len, off, &r))
		return;
	elen = stalefs_xattr_entry_len(r.name_len, r.value_size);
	memmove(region + off, region + off + elen, used - off - elen);
	memset(region + used - elen, 0, elen);
}

int stalefs_xattr_append(u8 *region, u32 len, u8 index, const char *name, u32 name_len,
			 const void *value, u32 value_size)
{
	u32 used = stalefs_xattr_region_used(region, len);
	u32 elen = stalefs_xattr_entry_len(name_len, value_size);
	struct stalefs_xattr_entry *e;

	if (name_len > STALEFS_XATTR_NAME_MAX || value_size > 0xFFFF || elen > len - used)
		return -1;
	e = (void *)(region + used);
	memset(e, 0, elen);
	e->xe_name_index = index;
	e->xe_name_len = (u8)name_len;
	e->xe_value_size = cpu_to_le16((u16)value_size);
	memcpy(e + 1, name, name_len);
	if (value_size)
		memcpy((u8 *)(e + 1) + name_len, value, value_size);
	return 0;
}

void stalefs_xattr_block_init(void *block, u32 block_size, u64 blocknr, u32 owner, u32 owner_gen)
{
	struct stalefs_xattr_block *xb = block;

	memset(block, 0, block_size);
	xb->xb_magic = cpu_to_le32(STALEFS_XATTR_MAGIC);
	xb->xb_blocknr = cpu_to_le64(blocknr);
	xb->xb_owner = cpu_to_le32(owner);
	xb->xb_owner_gen = cpu_to_le32(owner_gen);
}

bool stalefs_xattr_ibody_empty(const void *area)
{
	return bytes_zero(area, sizeof(struct stalefs_xattr_ibody_header));
}

void stalefs_xattr_ibody_init(void *area, u32 area_len)
{
	memset(area, 0, area_len);
	((struct stalefs_xattr_ibody_header *)area)->xh_magic = cpu_to_le32(STALEFS_XATTR_MAGIC);
}

int stalefs_verify_xattr_block_owner(const void *block, u64 blocknr, u32 owner, u32 owner_gen)
{
	const struct stalefs_xattr_block *xb = block;

	if (le32_to_cpu(xb->xb_magic) != STALEFS_XATTR_MAGIC)
		return STALEFS_R_XATTR_MAGIC;
	if (le64_to_cpu(xb->xb_blocknr) != blocknr)
		return STALEFS_R_XATTR_BLOCKNR;
	if (le32_to_cpu(xb->xb_owner) != owner || le32_to_cpu(xb->xb_owner_gen) != owner_gen)
		return STALEFS_R_XATTR_OWNER;
	return 0;
}

int stalefs_verify_xattr_block(const void *block, u32 block_size, u64 blocknr, u32 owner,
			       u32 owner_gen)
{
	const struct stalefs_xattr_block *xb = block;
	int rule = stalefs_verify_xattr_block_owner(block, blocknr, owner, owner_gen);

	if (rule)
		return rule;
	if (xb->xb_reserved != 0)
		return STALEFS_R_XATTR_RESERVED;
	return stalefs_xattr_region_check((const u8 *)block + sizeof(*xb),
					  stalefs_xattr_block_region_len(block_size), NULL);
}

int stalefs_verify_xattr_block_csum(u32 seed, const void *block, u32 block_size)
{
	const struct stalefs_xattr_block *xb = block;

	return le32_to_cpu(xb->xb_checksum) == stalefs_xattr_block_csum(seed, block, block_size) ?
		       0 : STALEFS_R_XATTR_CSUM;
}

int stalefs_verify_xattr_ibody(const void *area, u32 area_len)
{
	const struct stalefs_xattr_ibody_header *h = area;

	if (le32_to_cpu(h->xh_magic) != STALEFS_XATTR_MAGIC)
		return STALEFS_R_XATTR_MAGIC;
	return stalefs_xattr_region_check((const u8 *)area + sizeof(*h),
					  area_len - (u32)sizeof(*h), NULL);
}

int stalefs_verify_xattr_ibody_csum(u32 seed, u32 ino, u32 generation, const void *area,
				    u32 area_len)
{
	const struct stalefs_xattr_ibody_header *h = area;

	return le32_to_cpu(h->xh_checksum) ==
			       stalefs_xattr_ibody_csum(seed, ino, generation, area, area_len) ?
		       0 : STALEFS_R_XATTR_CSUM;
}
