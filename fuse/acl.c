// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX ACLs in the encoding the kernel hands a FUSE server and stalefs
 * stores (system.posix_acl_access / _default): a little-endian version (2),
 * then entries of tag, permissions and id.  With FUSE_CAP_POSIX_ACL the
 * kernel enforces ACLs, and the server keeps them and the mode in step:
 * what POSIX.1e draft 17 (acl(5)) says of chmod, of an ACL set on a file, and
 * of a new file created under a directory's default ACL.
 */
#include <errno.h>
#include "stalefs_fuse.h"

#define ACL_VERSION 2
#define TAG_USER_OBJ 0x01
#define TAG_USER 0x02
#define TAG_GROUP_OBJ 0x04
#define TAG_GROUP 0x08
#define TAG_MASK 0x10
#define TAG_OTHER 0x20

struct acl_entry {
	__le16 tag;
	__le16 perm;
	__le32 id;
};

static size_t entries(size_t size)
{
	return size < 4 || (size - 4) % sizeof(struct acl_entry) ? 0 : (size - 4) / sizeof(struct acl_entry);
}

static struct acl_entry *entry(const void *value, size_t i)
{
	return (struct acl_entry *)((u8 *)value + 4 + i * sizeof(struct acl_entry));
}

int sfuse_acl_valid(const void *value, size_t size)
{
	size_t n = entries(size), i;
	unsigned seen = 0, last_tag = 0;
	u32 last_id = 0;
	__le32 version;

	if (!n)
		return EINVAL;
	memcpy(&version, value, 4);
	if (le32_to_cpu(version) != ACL_VERSION)
		return EINVAL;
	for (i = 0; i < n; i++) {
		const struct acl_entry *e = entry(value, i);
		unsigned tag = le16_to_cpu(e->tag);
		u32 id = le32_to_cpu(e->id);

		if (le16_to_cpu(e->perm) & ~7u)
			return EINVAL;
		/* In tag order; named users and groups by id, each once; the rest exactly once. */
		if (tag < last_tag)
			return EINVAL;
		switch (tag) {
		case TAG_USER:
		case TAG_GROUP:
			if (tag == last_tag && id <= last_id)
				return EINVAL;
			last_id = id;
			break;
		case TAG_USER_OBJ:
		case TAG_GROUP_OBJ:
		case TAG_MASK:
		case TAG_OTHER:
			if (seen & tag)
				return EINVAL;
			break;
		default:
			return EINVAL;
		}
		seen |= tag;
		last_tag = tag;
	}
	if ((seen & (TAG_USER_OBJ | TAG_GROUP_OBJ | TAG_OTHER)) != (TAG_USER_OBJ | TAG_GROUP_OBJ | TAG_OTHER))
		return EINVAL;
	if ((seen & (TAG_USER | TAG_GROUP)) && !(seen & TAG_MASK))
		return EINVAL;
	return 0;
}

u16 sfuse_acl_mode(const void *value, size_t size, u16 mode, bool *equiv)
{
	size_t n = entries(size), i;
	unsigned owner = 0, group = 0, mask = 8, other = 0;

	*equiv = true;
	for (i = 0; i < n; i++) {
		const struct acl_entry *e = entry(value, i);
		unsigned perm = le16_to_cpu(e->perm) & 7;

		switch (le16_to_cpu(e->tag)) {
		case TAG_USER_OBJ: owner = perm; break;
		case TAG_GROUP_OBJ: group = perm; break;
		case TAG_MASK: mask = perm; *equiv = false; break;
		case TAG_OTHER: other = perm; break;
		default: *equiv = false; break;
		}
	}
	/* With a mask, the mode's group bits are the mask (acl(5)). */
	return (u16)((mode & ~0777) | (owner << 6) | ((mask < 8 ? mask : group) << 3) | other);
}

void sfuse_acl_chmod(void *value, size_t size, u16 mode)
{
	size_t n = entries(size), i;
	struct acl_entry *group = NULL, *mask = NULL;

	for (i = 0; i < n; i++) {
		struct acl_entry *e = entry(value, i);

		switch (le16_to_cpu(e->tag)) {
		case TAG_USER_OBJ: e->perm = cpu_to_le16((mode >> 6) & 7); break;
		case TAG_GROUP_OBJ: group = e; break;
		case TAG_MASK: mask = e; break;
		case TAG_OTHER: e->perm = cpu_to_le16(mode & 7); break;
		}
	}
	/* The group bits of the mode are the mask when there is one, the owning group's otherwise. */
	if (mask)
		mask->perm = cpu_to_le16((mode >> 3) & 7);
	else if (group)
		group->perm = cpu_to_le16((mode >> 3) & 7);
}

void sfuse_acl_create(const void *def, size_t size, void *acl, u16 *mode_p, bool *equiv)
{
	size_t n = entries(size), i;
	struct acl_entry *group = NULL, *mask = NULL;
	unsigned mode = *mode_p & 0777;

	memcpy(acl, def, size);
	*equiv = true;
	/* Each of the owner, other and group-class entries keeps only what the requested mode
	 * allows, and the mode only what the entry allows. */
	for (i = 0; i < n; i++) {
		struct acl_entry *e = entry(acl, i);
		unsigned perm = le16_to_cpu(e->perm) & 7;

		switch (le16_to_cpu(e->tag)) {
		case TAG_USER_OBJ:
			perm &= (mode >> 6) & 7;
			mode = (mode & ~0700u) | (perm << 6);
			e->perm = cpu_to_le16(perm);
			break;
		case TAG_OTHER:
			perm &= mode & 7;
			mode = (mode & ~07u) | perm;
			e->perm = cpu_to_le16(perm);
			break;
		case TAG_GROUP_OBJ:
			group = e;
			break;
		case TAG_MASK:
			mask = e;
			*equiv = false;
			break;
		default:
			*equiv = false;
			break;
		}
	}
	{
		struct acl_entry *g = mask ? mask : group;

		if (g) {
			unsigned perm = le16_to_cpu(g->perm) & ((mode >> 3) & 7);

			g->perm = cpu_to_le16(perm);
			mode = (mode & ~070u) | (perm << 3);
		}
	}
	*mode_p = (u16)((*mode_p & ~0777u) | mode);
}
