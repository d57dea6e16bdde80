// SPDX-License-Identifier: GPL-2.0
/*
 * mkfs_readback: reads an image that mkfs.stalefs made back through
 * libstalefs, for the mkfs tests.
 *
 *   mkfs_readback super IMAGE             the superblock and layout as key=value lines
 *   mkfs_readback manifest DIR            stat of every entry of DIR (taken before mkfs -d,
 *                                         since reading the tree changes its atimes)
 *   mkfs_readback compare IMAGE DIR MANIFEST
 *                                         every file of DIR against the image: type, mode,
 *                                         owner, times to the nanosecond, size, contents,
 *                                         holes, symlink targets, device numbers, hard links
 *                                         and link counts; then the image's own accounting
 *   mkfs_readback check IMAGE             the image's accounting alone
 *
 * With a journal, "super" also prints where it is (and where the plan for a
 * fresh filesystem of this geometry would put it), and the accounting check
 * requires the journal's blocks in use and owned by no file, and an empty,
 * well-formed journal: a verified journal superblock and a zeroed log.
 *   mkfs_readback crc-selftest            the library's CRC32 against zlib's (every image
 *                                         depends on it; the fast path must agree bit for bit)
 *
 * Exit 0 when everything matches, 1 with one line per mismatch, 2 on usage
 * or I/O errors.  The accounting check is a small fsck: every block is in
 * use in the bitmap exactly when it is group metadata or owned by one file,
 * no block is owned twice, inodes are in use exactly when reachable, and the
 * free counts in the descriptors and the superblock match the bitmaps.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <zlib.h>
#include "libstalefs.h"

static const char *prog = "mkfs_readback";
static int mismatches;

static void mismatch(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(const char *path, const char *fmt, ...)
{
	va_list ap;

	printf("MISMATCH %s: ", path);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	mismatches++;
}

static stalefs_fs *open_image(const char *image)
{
	stalefs_fs *fs;
	errcode_t err = stalefs_open(image, 0, 0, 0, &fs);

	if (err) {
		com_err(prog, err, "while opening %s", image);
		exit(2);
	}
	return fs;
}

/* ---- super ---- */

static int cmd_super(const char *image)
{
	stalefs_fs *fs = open_image(image);
	const struct stalefs_super_block *sb = &fs->sb;
	const struct stalefs_geom *g = &fs->geom;
	struct stalefs_inode root;
	const u8 *u = sb->s_uuid;
	u32 i, itable_unused_zero = 0, backups = 0;
	errcode_t err;

	printf("block_size=%u\n", g->block_size);
	printf("blocks_count=%" PRIu64 "\n", (uint64_t)g->blocks_count);
	printf("inodes_count=%u\n", g->inodes_count);
	printf("blocks_per_group=%u\n", g->blocks_per_group);
	printf("inodes_per_group=%u\n", g->inodes_per_group);
	printf("inode_size=%u\n", le16_to_cpu(sb->s_inode_size));
	printf("groups_count=%u\n", g->groups_count);
	printf("r_blocks_count=%" PRIu64 "\n", (uint64_t)le64_to_cpu(sb->s_r_blocks_count));
	printf("free_blocks_count=%" PRIu64 "\n", (uint64_t)le64_to_cpu(sb->s_free_blocks_count));
	printf("free_inodes_count=%u\n", le32_to_cpu(sb->s_free_inodes_count));
	printf("label=%.32s\n", sb->s_volume_name);
	printf("uuid=%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n", u[0], u[1], u[2],
	       u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	printf("stale_gid=%u\n", le32_to_cpu(sb->s_stale_gid));
	printf("feature_compat=0x%x\n", le32_to_cpu(sb->s_feature_compat));
	printf("feature_ro_compat=0x%x\n", le32_to_cpu(sb->s_feature_ro_compat));
	printf("feature_incompat=0x%x\n", le32_to_cpu(sb->s_feature_incompat));
	printf("nohide_stale=%d\n", !!(le32_to_cpu(sb->s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_NOHIDE_STALE));
	printf("sparse_super=%d\n", !!(le32_to_cpu(sb->s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_SPARSE_SUPER));
	printf("xattr=%d\n", !!(le32_to_cpu(sb->s_feature_ro_compat) & STALEFS_FEATURE_RO_COMPAT_XATTR));
	printf("errors=%u\n", le16_to_cpu(sb->s_errors));
	printf("state=%u\n", le16_to_cpu(sb->s_state));
	printf("lpf_ino=%u\n", le32_to_cpu(sb->s_lpf_ino));
	printf("has_journal=%d\n", !!(le32_to_cpu(sb->s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL));
	printf("journal_block=%" PRIu64 "\n", (uint64_t)le64_to_cpu(sb->s_journal_block));
	printf("journal_blocks=%u\n", le32_to_cpu(sb->s_journal_blocks));
	if (le32_to_cpu(sb->s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) {
		u64 bb, ib, it, planned = 0;

		printf("journal_group=%u\n", stalefs_block_group(g, le64_to_cpu(sb->s_journal_block)));
		stalefs_group_default_layout(g, stalefs_block_group(g, le64_to_cpu(sb->s_journal_block)), &bb, &ib, &it);
		printf("journal_after_itable=%d\n", le64_to_cpu(sb->s_journal_block) == it + g->inode_table_blocks);
		if (!stalefs_journal_plan(g, le32_to_cpu(sb->s_journal_blocks), &planned))
			printf("journal_planned=%" PRIu64 "\n", (uint64_t)planned);
		printf("journal_default_blocks=%u\n", stalefs_journal_default_blocks(g));
	}
	for (i = 1; i < g->groups_count; i++)
		backups += stalefs_group_has_super(g, i);
	printf("super_backups=%u\n", backups);
	/* lazy_itable_init=0 writes every table: no group but 0 has unused slots left. */
	for (i = 1; i < g->groups_count; i++)
		itable_unused_zero += le32_to_cpu(fs->groups[i].desc.bg_itable_unused) == 0;
	printf("groups_with_itable_initialised=%u\n", itable_unused_zero);
	err = stalefs_read_inode(fs, STALEFS_ROOT_INO, &root);
	if (err) {
		com_err(prog, err, "while reading the root inode");
		return 2;
	}
	printf("root_uid=%u\nroot_gid=%u\nroot_mode=0%o\n", le32_to_cpu(root.i_uid), le32_to_cpu(root.i_gid),
	       le16_to_cpu(root.i_mode));
	stalefs_free(fs);
	return 0;
}

/* ---- manifest: what the tree looked like before mkfs read it ---- */

struct entry {
	char *path;		/* relative to the tree, "" for the root */
	struct stat st;
	u32 names;		/* names in the tree for this (dev, ino) */
	u32 image_ino;		/* what the image used for it, once seen */
	bool seen;
};

static struct entry *entries;
static size_t nentries, capentries;

static void manifest_line(const char *rel, const struct stat *st)
{
	/* One line per entry; the path goes last so it may hold any byte but newline. */
	printf("%o %u %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %" PRId64 ".%09ld %" PRId64 ".%09ld %" PRId64
	       ".%09ld %u %u %s\n", st->st_mode, st->st_uid, st->st_gid, (uint64_t)st->st_size,
	       (uint64_t)st->st_dev, (uint64_t)st->st_ino, (unsigned)st->st_nlink, (int64_t)st->st_atim.tv_sec,
	       st->st_atim.tv_nsec, (int64_t)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, (int64_t)st->st_ctim.tv_sec,
	       st->st_ctim.tv_nsec, major(st->st_rdev), minor(st->st_rdev), rel);
}

/* Directories are read with O_NOATIME: the manifest must not move the atimes it records. */
static int manifest_dir(int dirfd, const char *rel)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;

	if (!d)
		return -1;
	while ((errno = 0, de = readdir(d))) {
		char path[8192];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -1;
		manifest_line(path, &st);
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC);

			if (sub < 0 || manifest_dir(sub, path) < 0)
				return -1;
		}
	}
	closedir(d);
	return errno ? -1 : 0;
}

static int cmd_manifest(const char *dir)
{
	struct stat st;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOATIME | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: cannot open %s: %s\n", prog, dir, strerror(errno));
		return 2;
	}
	manifest_line("", &st);
	if (manifest_dir(fd, "") < 0) {
		fprintf(stderr, "%s: cannot walk %s: %s\n", prog, dir, strerror(errno));
		return 2;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

static void load_manifest(const char *file)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	size_t i, j;

	if (!f) {
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, file, strerror(errno));
		exit(2);
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		struct entry e;
		unsigned mode, uid, gid, nlink, ma, mi;
		uint64_t size, dev, ino;
		int64_t as, ms, cs;
		long an, mn, cn;
		int off = 0;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		memset(&e, 0, sizeof(e));
		if (sscanf(line, "%o %u %u %" SCNu64 " %" SCNu64 " %" SCNu64 " %u %" SCNd64 ".%ld %" SCNd64 ".%ld %"
			   SCNd64 ".%ld %u %u %n", &mode, &uid, &gid, &size, &dev, &ino, &nlink, &as, &an, &ms, &mn,
			   &cs, &cn, &ma, &mi, &off) != 15 || !off) {
			fprintf(stderr, "%s: bad manifest line: %s\n", prog, line);
			exit(2);
		}
		e.st.st_mode = mode;
		e.st.st_uid = uid;
		e.st.st_gid = gid;
		e.st.st_size = (off_t)size;
		e.st.st_dev = (dev_t)dev;
		e.st.st_ino = (ino_t)ino;
		e.st.st_nlink = nlink;
		e.st.st_atim.tv_sec = as;
		e.st.st_atim.tv_nsec = an;
		e.st.st_mtim.tv_sec = ms;
		e.st.st_mtim.tv_nsec = mn;
		e.st.st_ctim.tv_sec = cs;
		e.st.st_ctim.tv_nsec = cn;
		e.st.st_rdev = makedev(ma, mi);
		e.path = strdup(line + off);
		if (nentries == capentries) {
			capentries = capentries ? capentries * 2 : 256;
			entries = realloc(entries, capentries * sizeof(*entries));
		}
		entries[nentries++] = e;
	}
	free(line);
	fclose(f);
	qsort(entries, nentries, sizeof(*entries), cmp_entry);
	/* Names per source inode, for the link counts the image must have. */
	for (i = 0; i < nentries; i++)
		for (j = 0; j < nentries; j++)
			if (!S_ISDIR(entries[i].st.st_mode) && entries[i].st.st_nlink > 1 &&
			    entries[j].st.st_dev == entries[i].st.st_dev && entries[j].st.st_ino == entries[i].st.st_ino)
				entries[i].names++;
}

static struct entry *find_entry(const char *path)
{
	struct entry key = { .path = (char *)path };

	return bsearch(&key, entries, nentries, sizeof(*entries), cmp_entry);
}

/* ---- the image's block ownership, for the accounting check ---- */

static u8 *owned;		/* one bit per block */
static u8 *reachable;		/* one bit per inode */

/* Superblock copy, descriptor table, bitmaps and inode table of the block's group. */
static bool is_group_meta(stalefs_fs *fs, u64 b)
{
	const struct stalefs_geom *g = &fs->geom;
	const struct stalefs_group_desc *d;
	u32 grp;
	u64 bb, ib, it;

	if (b < g->sb_block)
		return true;	/* the boot block before the filesystem, 1 KiB blocks */
	grp = stalefs_block_group(g, b);
	if (b < stalefs_group_first_block(g, grp) + stalefs_group_super_blocks(g, grp))
		return true;
	d = &fs->groups[grp].desc;
	bb = le64_to_cpu(d->bg_block_bitmap);
	ib = le64_to_cpu(d->bg_inode_bitmap);
	it = le64_to_cpu(d->bg_inode_table);
	return (b >= bb && b < bb + g->block_bitmap_blocks) || (b >= ib && b < ib + g->inode_bitmap_blocks) ||
	       (b >= it && b < it + g->inode_table_blocks);
}

static bool in_journal(stalefs_fs *fs, u64 b)
{
	u64 start = le64_to_cpu(fs->sb.s_journal_block);

	return (le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL) && b >= start &&
	       b - start < le32_to_cpu(fs->sb.s_journal_blocks);
}

/* A new filesystem's journal: verified, empty, not needing recovery, its log zeroed. */
static void check_journal(stalefs_fs *fs)
{
	struct stalefs_jbd2_super jsb;
	u64 start = le64_to_cpu(fs->sb.s_journal_block), n;
	u32 len = le32_to_cpu(fs->sb.s_journal_blocks), i;
	u8 *buf;
	errcode_t err;
	int rule;

	if (le32_to_cpu(fs->sb.s_feature_incompat) & STALEFS_FEATURE_INCOMPAT_RECOVER)
		mismatch("(journal)", "the superblock says it needs recovery");
	if (!(le32_to_cpu(fs->sb.s_feature_compat) & STALEFS_FEATURE_COMPAT_HAS_JOURNAL))
		return;
	err = stalefs_journal_read_super(fs, &jsb);
	if (err) {
		mismatch("(journal)", "cannot read its superblock: %s", error_message(err));
		return;
	}
	rule = stalefs_jsb_verify(&jsb, &fs->sb);
	if (rule)
		mismatch("(journal)", "superblock: %s", stalefs_jsb_rule_msg(rule));
	if (jsb.s_start)
		mismatch("(journal)", "the log is not empty (s_start %u)", be32toh(jsb.s_start));
	buf = malloc(fs->block_size);
	/* Every block would take long on a big journal: the first few, some spread out, the last. */
	for (i = 0, n = 1; n < len; i++, n = i < 16 ? n + 1 : n + 997) {
		u32 k;

		if (stalefs_io_read(fs->io, start + n, 1, buf)) {
			mismatch("(journal)", "cannot read log block %" PRIu64, (uint64_t)n);
			break;
		}
		for (k = 0; k < fs->block_size && !buf[k]; k++)
			;
		if (k < fs->block_size) {
			mismatch("(journal)", "log block %" PRIu64 " is not zeroed", (uint64_t)n);
			break;
		}
	}
	free(buf);
}

static bool test_set(u8 *map, u64 bit)
{
	bool was = map[bit / 8] & (1u << (bit % 8));

	map[bit / 8] |= (u8)(1u << (bit % 8));
	return was;
}

static void own_blocks(stalefs_fs *fs, const char *path, u64 start, u64 count)
{
	u64 b;

	for (b = start; b < start + count; b++) {
		if (b >= fs->geom.blocks_count || is_group_meta(fs, b) || in_journal(fs, b)) {
			mismatch(path, "block %" PRIu64 " is outside the filesystem, group metadata or the journal",
				 (uint64_t)b);
			return;
		}
		if (test_set(owned, b))
			mismatch(path, "block %" PRIu64 " is owned twice", (uint64_t)b);
	}
}

struct walk_nodes {
	const char *path;
	u64 nodes;
};

static int count_node(stalefs_fs *fs, const struct stalefs_extent_walk *w, void *priv)
{
	struct walk_nodes *n = priv;

	if (w->rule)
		mismatch(n->path, "extent tree node %" PRIu64 ": %s", (uint64_t)w->node_block, stalefs_rule_msg(w->rule));
	if (w->is_index) {
		own_blocks(fs, n->path, w->e.pblk, 1);
		n->nodes++;
	}
	return 0;
}

/* Marks what the inode owns; returns its data extents in l. */
static void inode_blocks(stalefs_fs *fs, const char *path, u32 ino, const struct stalefs_inode *inode,
			 struct stalefs_extent_list *l)
{
	struct walk_nodes n = { path, 0 };
	u64 data = 0;
	errcode_t err;
	u32 i;

	memset(l, 0, sizeof(*l));
	if (!stalefs_inode_has_extents(inode))
		return;
	err = stalefs_extent_read(fs, ino, inode, l);
	if (err) {
		mismatch(path, "cannot read the extent tree: %s", error_message(err));
		return;
	}
	for (i = 0; i < l->count; i++) {
		own_blocks(fs, path, l->ext[i].pblk, l->ext[i].len);
		data += l->ext[i].len;
	}
	err = stalefs_extent_walk(fs, ino, inode, count_node, &n);
	if (err)
		mismatch(path, "cannot walk the extent tree: %s", error_message(err));
	if (le64_to_cpu(inode->i_blocks) != data + n.nodes)
		mismatch(path, "i_blocks %" PRIu64 ", but %" PRIu64 " data and %" PRIu64 " tree blocks",
			 (uint64_t)le64_to_cpu(inode->i_blocks), (uint64_t)data, (uint64_t)n.nodes);
}

/* ---- compare ---- */

struct cmp_ctx {
	stalefs_fs *fs;
	const char *tree;
	bool with_tree;
	u64 files;
};

static void walk_image_dir(struct cmp_ctx *c, u32 dir, const char *rel, u32 *subdirs);

static void compare_times(const char *path, const struct stalefs_inode *in, const struct stat *st)
{
	if ((int64_t)le64_to_cpu(in->i_atime) != st->st_atim.tv_sec || le32_to_cpu(in->i_atime_nsec) != st->st_atim.tv_nsec)
		mismatch(path, "atime %" PRId64 ".%09u, source %" PRId64 ".%09ld", (int64_t)le64_to_cpu(in->i_atime),
			 le32_to_cpu(in->i_atime_nsec), (int64_t)st->st_atim.tv_sec, st->st_atim.tv_nsec);
	if ((int64_t)le64_to_cpu(in->i_mtime) != st->st_mtim.tv_sec || le32_to_cpu(in->i_mtime_nsec) != st->st_mtim.tv_nsec)
		mismatch(path, "mtime %" PRId64 ".%09u, source %" PRId64 ".%09ld", (int64_t)le64_to_cpu(in->i_mtime),
			 le32_to_cpu(in->i_mtime_nsec), (int64_t)st->st_mtim.tv_sec, st->st_mtim.tv_nsec);
	if ((int64_t)le64_to_cpu(in->i_ctime) != st->st_ctim.tv_sec || le32_to_cpu(in->i_ctime_nsec) != st->st_ctim.tv_nsec)
		mismatch(path, "ctime %" PRId64 ".%09u, source %" PRId64 ".%09ld", (int64_t)le64_to_cpu(in->i_ctime),
			 le32_to_cpu(in->i_ctime_nsec), (int64_t)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

/* Contents equal, and every mapped block lies where the source has data (holes stay holes). */
static void compare_regular(struct cmp_ctx *c, const char *path, u32 ino, const struct stalefs_extent_list *l)
{
	stalefs_fs *fs = c->fs;
	char src[8192];
	u32 bs = fs->block_size, i;
	u64 size, off = 0, src_data_blocks = 0, mapped = 0;
	size_t chunk = 1 << 20;
	u8 *a = malloc(chunk), *b = malloc(chunk);
	int fd;
	off_t d, h;

	snprintf(src, sizeof(src), "%s/%s", c->tree, path);
	fd = open(src, O_RDONLY | O_NOATIME | O_CLOEXEC);
	if (fd < 0)
		fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !a || !b) {
		fprintf(stderr, "%s: cannot read %s: %s\n", prog, src, strerror(errno));
		exit(2);
	}
	size = (u64)lseek(fd, 0, SEEK_END);
	while (off < size) {
		size_t want = size - off < chunk ? (size_t)(size - off) : chunk, got = 0;
		ssize_t n = pread(fd, b, want, (off_t)off);
		errcode_t err = stalefs_file_read(fs, ino, off, a, want, &got);

		if (n != (ssize_t)want || err || got != want) {
			mismatch(path, "short read at %" PRIu64 ": image %zu (%s), source %zd", (uint64_t)off, got,
				 err ? error_message(err) : "ok", n);
			break;
		}
		if (memcmp(a, b, want)) {
			size_t k = 0;

			while (a[k] == b[k])
				k++;
			mismatch(path, "contents differ at byte %" PRIu64, (uint64_t)(off + k));
			break;
		}
		off += want;
	}
	/* Holes: each mapped block must overlap a data region of the source. */
	for (i = 0; i < l->count; i++) {
		const struct stalefs_ext *e = &l->ext[i];
		u64 lb;

		if (e->flags)
			mismatch(path, "extent at %u has flags 0x%x (copied data is written, never unwritten or stale)",
				 e->lblk, e->flags);
		mapped += e->len;
		for (lb = e->lblk; lb < (u64)e->lblk + e->len; lb++) {
			d = lseek(fd, (off_t)(lb * bs), SEEK_DATA);
			if (d < 0 || (u64)d >= (lb + 1) * bs) {
				mismatch(path, "block %" PRIu64 " is mapped where the source has a hole", (uint64_t)lb);
				break;
			}
		}
	}
	/* What the source's data needs at our block size: the upper bound for what we may map. */
	for (d = lseek(fd, 0, SEEK_DATA); d >= 0 && (u64)d < size; d = lseek(fd, h, SEEK_DATA)) {
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0)
			break;
		src_data_blocks += ((u64)h + bs - 1) / bs - (u64)d / bs;
		if ((u64)h >= size)
			break;
	}
	if (mapped > src_data_blocks)
		mismatch(path, "maps %" PRIu64 " blocks, the source's data needs %" PRIu64, (uint64_t)mapped,
			 (uint64_t)src_data_blocks);
	close(fd);
	free(a);
	free(b);
}

static void compare_inode(struct cmp_ctx *c, const struct stalefs_dirent_info *de, const char *rel, u32 *subdirs)
{
	stalefs_fs *fs = c->fs;
	struct stalefs_inode in;
	struct stalefs_extent_list l;
	struct entry *e = NULL;
	bool first = !test_set(reachable, de->ino);
	errcode_t err;
	u16 mode;

	err = stalefs_read_inode(fs, de->ino, &in);
	if (err) {
		mismatch(rel, "cannot read inode %u: %s", de->ino, error_message(err));
		return;
	}
	mode = le16_to_cpu(in.i_mode);
	if (de->file_type != stalefs_mode_to_ft(mode))
		mismatch(rel, "directory entry type %u, inode mode 0%o", de->file_type, mode);
	if (S_ISDIR(mode))
		(*subdirs)++;
	if (first)
		inode_blocks(fs, rel, de->ino, &in, &l);
	else
		memset(&l, 0, sizeof(l));
	if (c->with_tree) {
		e = find_entry(rel);
		if (!e) {
			if (strcmp(rel, "lost+found") != 0)
				mismatch(rel, "in the image but not in the source tree");
			goto dir;
		}
		if (e->seen)
			mismatch(rel, "seen twice");
		e->seen = true;
		if (mode != (u16)e->st.st_mode)
			mismatch(rel, "mode 0%o, source 0%o", mode, (unsigned)e->st.st_mode);
		if (le32_to_cpu(in.i_uid) != e->st.st_uid || le32_to_cpu(in.i_gid) != e->st.st_gid)
			mismatch(rel, "owner %u:%u, source %u:%u", le32_to_cpu(in.i_uid), le32_to_cpu(in.i_gid),
				 e->st.st_uid, e->st.st_gid);
		compare_times(rel, &in, &e->st);
		if (!S_ISDIR(mode) && le64_to_cpu(in.i_size) != (u64)e->st.st_size)
			mismatch(rel, "size %" PRIu64 ", source %" PRIu64, (uint64_t)le64_to_cpu(in.i_size),
				 (uint64_t)e->st.st_size);
		/* Hard links: one image inode per source inode, as many links as names. */
		if (!S_ISDIR(mode) && e->st.st_nlink > 1) {
			size_t i;

			for (i = 0; i < nentries; i++) {
				struct entry *o = &entries[i];

				if (o->st.st_dev != e->st.st_dev || o->st.st_ino != e->st.st_ino || !o->image_ino)
					continue;
				if (o->image_ino != de->ino)
					mismatch(rel, "hard link to %s became inode %u, not %u", o->path, de->ino, o->image_ino);
			}
			e->image_ino = de->ino;
			if (le16_to_cpu(in.i_links_count) != e->names)
				mismatch(rel, "%u links, the tree has %u names for it", le16_to_cpu(in.i_links_count), e->names);
		} else if (!S_ISDIR(mode) && le16_to_cpu(in.i_links_count) != 1) {
			mismatch(rel, "%u links, the tree has one name for it", le16_to_cpu(in.i_links_count));
		}
		if (S_ISREG(mode) && first)
			compare_regular(c, rel, de->ino, &l);
		if (S_ISLNK(mode)) {
			char want[4097], got[4097];
			char src[8192];
			ssize_t n;

			snprintf(src, sizeof(src), "%s/%s", c->tree, rel);
			n = readlink(src, want, sizeof(want) - 1);
			if (n < 0) {
				fprintf(stderr, "%s: readlink %s: %s\n", prog, src, strerror(errno));
				exit(2);
			}
			want[n] = '\0';
			err = stalefs_read_symlink(fs, de->ino, got, sizeof(got));
			if (err)
				mismatch(rel, "cannot read the symlink: %s", error_message(err));
			else if (strcmp(got, want))
				mismatch(rel, "symlink to '%s', source '%s'", got, want);
			if ((size_t)n <= STALEFS_INLINE_SYMLINK_MAX) {
				if (!(le32_to_cpu(in.i_flags) & STALEFS_INODE_INLINE_FL))
					mismatch(rel, "a %zd-byte target is not stored inline", n);
			} else if (l.count != 1 || l.ext[0].len != 1) {
				mismatch(rel, "a %zd-byte target should take one block, takes %u extents", n, l.count);
			}
		}
		if (S_ISCHR(mode) || S_ISBLK(mode)) {
			u32 ma = major(e->st.st_rdev), mi = minor(e->st.st_rdev);
			u32 want = (mi & 0xff) | (ma << 8) | ((mi & ~0xffu) << 12);

			if (le32_to_cpu(in.i_rdev) != want)
				mismatch(rel, "rdev 0x%x, source %u:%u (0x%x)", le32_to_cpu(in.i_rdev), ma, mi, want);
		}
	}
dir:
	if (S_ISDIR(mode) && first) {
		u32 sub = 0;

		walk_image_dir(c, de->ino, rel, &sub);
		if (le16_to_cpu(in.i_links_count) != 2 + sub)
			mismatch(rel, "directory with %u subdirectories has %u links", sub, le16_to_cpu(in.i_links_count));
	}
	stalefs_extent_list_free(&l);
	c->files++;
}

struct dir_list {
	struct stalefs_dirent_info *de;
	size_t n, cap;
};

static int collect(stalefs_fs *fs, const struct stalefs_dirent_info *de, void *priv)
{
	struct dir_list *d = priv;

	(void)fs;
	if ((de->name_len == 1 && de->name[0] == '.') || (de->name_len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->de = realloc(d->de, d->cap * sizeof(*d->de));
	}
	d->de[d->n++] = *de;
	return 0;
}

static void walk_image_dir(struct cmp_ctx *c, u32 dir, const char *rel, u32 *subdirs)
{
	struct dir_list d = { NULL, 0, 0 };
	errcode_t err = stalefs_dir_iterate(c->fs, dir, 0, collect, &d);
	size_t i;

	if (err) {
		mismatch(rel[0] ? rel : "/", "cannot list the directory: %s", error_message(err));
		return;
	}
	for (i = 0; i < d.n; i++) {
		char path[8192];

		snprintf(path, sizeof(path), "%s%s%s", rel, rel[0] ? "/" : "", d.de[i].name);
		compare_inode(c, &d.de[i], path, subdirs);
	}
	free(d.de);
}

/* Bitmaps against what the walk found; descriptor and superblock counts against the bitmaps. */
static void check_accounting(stalefs_fs *fs)
{
	const struct stalefs_geom *g = &fs->geom;
	u64 free_total = 0, b;
	u32 grp, ino, free_inodes_total = 0;
	errcode_t err = stalefs_read_bitmaps(fs);

	if (err) {
		mismatch("(bitmaps)", "cannot read: %s", error_message(err));
		return;
	}
	for (grp = 0; grp < g->groups_count; grp++) {
		u64 first = stalefs_group_first_block(g, grp);
		u32 n = stalefs_group_nblocks(g, grp), free_here = 0, free_ino_here = 0, bad = 0;

		for (b = first; b < first + n; b++) {
			bool used = stalefs_test_block(fs, b);
			bool want = is_group_meta(fs, b) || in_journal(fs, b) || (owned[b / 8] & (1u << (b % 8)));

			free_here += !used;
			if (used != want && bad++ < 5)
				mismatch("(block bitmap)", "block %" PRIu64 " is %s but %s", (uint64_t)b,
					 used ? "marked in use" : "marked free",
					 want ? "used" : "neither metadata, the journal, nor owned by any file");
		}
		if (le32_to_cpu(fs->groups[grp].desc.bg_free_blocks_count) != free_here)
			mismatch("(group descriptor)", "group %u counts %u free blocks, its bitmap %u", grp,
				 le32_to_cpu(fs->groups[grp].desc.bg_free_blocks_count), free_here);
		free_total += free_here;
		bad = 0;
		for (ino = grp * g->inodes_per_group + 1; ino <= (grp + 1) * g->inodes_per_group; ino++) {
			bool used = stalefs_test_inode(fs, ino);
			bool want = ino < STALEFS_FIRST_INO || (reachable[ino / 8] & (1u << (ino % 8)));

			free_ino_here += !used;
			if (used != want && bad++ < 5)
				mismatch("(inode bitmap)", "inode %u is %s but %s", ino, used ? "in use" : "free",
					 want ? "reachable" : "unreachable");
		}
		if (le32_to_cpu(fs->groups[grp].desc.bg_free_inodes_count) != free_ino_here)
			mismatch("(group descriptor)", "group %u counts %u free inodes, its bitmap %u", grp,
				 le32_to_cpu(fs->groups[grp].desc.bg_free_inodes_count), free_ino_here);
		free_inodes_total += free_ino_here;
	}
	if (le64_to_cpu(fs->sb.s_free_blocks_count) != free_total)
		mismatch("(superblock)", "counts %" PRIu64 " free blocks, the bitmaps %" PRIu64,
			 (uint64_t)le64_to_cpu(fs->sb.s_free_blocks_count), (uint64_t)free_total);
	if (le32_to_cpu(fs->sb.s_free_inodes_count) != free_inodes_total)
		mismatch("(superblock)", "counts %u free inodes, the bitmaps %u", le32_to_cpu(fs->sb.s_free_inodes_count),
			 free_inodes_total);
}

static int cmd_compare(const char *image, const char *tree, const char *manifest)
{
	struct cmp_ctx c = { open_image(image), tree, tree != NULL, 0 };
	struct stalefs_dirent_info root = { .ino = STALEFS_ROOT_INO, .file_type = STALEFS_FT_DIR };
	u32 sub = 0;
	size_t i;

	owned = calloc(c.fs->geom.blocks_count / 8 + 1, 1);
	reachable = calloc(c.fs->geom.inodes_count / 8 + 1, 1);
	if (!owned || !reachable) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 2;
	}
	if (manifest)
		load_manifest(manifest);
	compare_inode(&c, &root, "", &sub);
	if (manifest)
		for (i = 0; i < nentries; i++)
			if (!entries[i].seen)
				mismatch(entries[i].path[0] ? entries[i].path : "/", "in the source tree but not in the image");
	check_accounting(c.fs);
	check_journal(c.fs);
	stalefs_free(c.fs);
	if (mismatches) {
		printf("%d mismatches\n", mismatches);
		return 1;
	}
	printf("ok: %" PRIu64 " inodes compared%s, accounting consistent\n", c.files, manifest ? " with the tree" : "");
	return 0;
}

static int cmd_crc_selftest(void)
{
	static u8 buf[70000];
	u32 x = 12345, i, bad = 0;

	for (i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (u8)(x >> 16);
	}
	/* The check value of CRC-32/ISO-HDLC: inverted in and out, as zlib does. */
	if (~stalefs_crc32_le(~0u, "123456789", 9) != 0xCBF43926u) {
		printf("MISMATCH crc32(\"123456789\") = %08x, not cbf43926\n", ~stalefs_crc32_le(~0u, "123456789", 9));
		return 1;
	}
	for (i = 0; i < 20000; i++) {
		size_t off, len;
		u32 seed, want, got;

		x = x * 1103515245u + 12345u;
		off = (x >> 8) % 64;
		x = x * 1103515245u + 12345u;
		len = i < 10000 ? (x >> 8) % 300 : (x >> 4) % (sizeof(buf) - 64);
		x = x * 1103515245u + 12345u;
		seed = x;
		want = ~(u32)crc32(~seed & 0xffffffffUL, buf + off, (uInt)len);
		got = stalefs_crc32_le(seed, buf + off, len);
		if (want != got && bad++ < 5)
			printf("MISMATCH crc32 of %zu bytes at offset %zu, seed %08x: %08x, zlib %08x\n", len, off, seed,
			       got, want);
	}
	if (bad)
		return 1;
	printf("ok: crc32 agrees with zlib on 20000 buffers\n");
	return 0;
}

int main(int argc, char **argv)
{
	initialize_slfs_error_table();
	if (argc == 3 && strcmp(argv[1], "super") == 0)
		return cmd_super(argv[2]);
	if (argc == 3 && strcmp(argv[1], "manifest") == 0)
		return cmd_manifest(argv[2]);
	if (argc == 5 && strcmp(argv[1], "compare") == 0)
		return cmd_compare(argv[2], argv[3], argv[4]);
	if (argc == 3 && strcmp(argv[1], "check") == 0)
		return cmd_compare(argv[2], NULL, NULL);
	if (argc == 2 && strcmp(argv[1], "crc-selftest") == 0)
		return cmd_crc_selftest();
	fprintf(stderr, "usage: %s super IMAGE | manifest DIR | compare IMAGE DIR MANIFEST | check IMAGE | crc-selftest\n", prog);
	return 2;
}
