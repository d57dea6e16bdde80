// SPDX-License-Identifier: GPL-2.0
/*
 * Bodyfile lines, The Sleuth Kit's 3.x format that mactime, plaso and log2timeline read:
 *
 *   MD5|name|inode|mode_as_string|UID|GID|size|atime|mtime|ctime|crtime
 *
 * written as TSK's fls -m writes them for ext4, so a timeline of a stalefs image and
 * one of an ext4 image line up: the mode string is the directory entry's type letter,
 * '/', then the inode's ("r/rrw-r--r--"); a removed name ends in " (deleted)", or
 * " (deleted-realloc)" when its inode is in use again; a symlink's name is followed by
 * " -> target".
 */
#include "libstalefs.h"

void stalefs_mode_string(u16 mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";
	char t;
	int i;

	switch (mode & STALEFS_S_IFMT) {
	case STALEFS_S_IFREG: t = '-'; break;
	case STALEFS_S_IFDIR: t = 'd'; break;
	case STALEFS_S_IFLNK: t = 'l'; break;
	case STALEFS_S_IFCHR: t = 'c'; break;
	case STALEFS_S_IFBLK: t = 'b'; break;
	case STALEFS_S_IFIFO: t = 'p'; break;
	case STALEFS_S_IFSOCK: t = 's'; break;
	default: t = '?';
	}
	out[0] = t;
	for (i = 0; i < 9; i++)
		out[1 + i] = (mode & (1u << (8 - i))) ? rwx[i] : '-';
	if (mode & 04000)
		out[3] = (mode & 0100) ? 's' : 'S';
	if (mode & 02000)
		out[6] = (mode & 010) ? 's' : 'S';
	if (mode & 01000)
		out[9] = (mode & 01) ? 't' : 'T';
	out[10] = '\0';
}

/* TSK's letters: a directory entry's type (TSK_FS_NAME_TYPE), and an inode's (TSK_FS_META_TYPE). */
static char name_letter(u8 ft)
{
	static const char letters[STALEFS_FT_MAX] = { '-', 'r', 'd', 'c', 'b', 'p', 's', 'l' };

	return ft < STALEFS_FT_MAX ? letters[ft] : '-';
}

static char meta_letter(u16 mode)
{
	switch (mode & STALEFS_S_IFMT) {
	case STALEFS_S_IFREG: return 'r';
	case STALEFS_S_IFDIR: return 'd';
	case STALEFS_S_IFLNK: return 'l';
	case STALEFS_S_IFCHR: return 'c';
	case STALEFS_S_IFBLK: return 'b';
	case STALEFS_S_IFIFO: return 'p';
	case STALEFS_S_IFSOCK: return 's';
	}
	return '-';
}

/* A name field: readable by mactime whatever the bytes (see libstalefs.h). */
static void put_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			fputc('^', f);
		else if (c == '|' || c == '%')
			fprintf(f, "%%%02X", c);
		else
			fputc(c, f);
	}
}

void stalefs_body_print(FILE *f, const char *prefix, const struct stalefs_body_entry *e)
{
	const struct stalefs_inode *in = e->inode;
	char mode[11];

	fputs(e->hash ? e->hash : "0", f);
	fputc('|', f);
	if (prefix)
		put_name(f, prefix);
	put_name(f, e->path);
	if (e->link && in) {
		fputs(" -> ", f);
		put_name(f, e->link);
	}
	if (e->name_deleted)
		fputs(in && e->meta_in_use ? " (deleted-realloc)" : " (deleted)", f);
	fprintf(f, "|%u|%c/", e->ino, e->virtual_dir ? 'V' : name_letter(e->name_type));
	if (e->virtual_dir) {
		fputs("V---------|0|0|0|0|0|0|0\n", f);
		return;
	}
	if (!in) {
		fputs("----------|0|0|0|0|0|0|0\n", f);
		return;
	}
	stalefs_mode_string(le16_to_cpu(in->i_mode), mode);
	mode[0] = meta_letter(le16_to_cpu(in->i_mode));
	fprintf(f, "%s|%u|%u|%llu|%lld|%lld|%lld|%lld\n", mode, le32_to_cpu(in->i_uid), le32_to_cpu(in->i_gid),
		(unsigned long long)le64_to_cpu(in->i_size), (long long)le64_to_cpu(in->i_atime),
		(long long)le64_to_cpu(in->i_mtime), (long long)le64_to_cpu(in->i_ctime),
		(long long)le64_to_cpu(in->i_crtime));
}
