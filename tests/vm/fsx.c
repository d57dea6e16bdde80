// SPDX-License-Identifier: GPL-2.0
/*
 * fsx: a random file exerciser in the spirit of fstests' fsx, written for
 * stalefs.  It applies seeded random operations to one file -- buffered,
 * direct and mmap reads and writes, truncates, fallocate (plain and
 * KEEP_SIZE), punch hole, zero range, fsync, close/reopen -- and checks
 * every read and the whole file at intervals against an in-memory model.
 *
 *   fsx [-N ops] [-S seed] [-l maxlen] [-D] [-M] [-O modelfile] [-v] FILE
 *
 * -D adds O_DIRECT operations, -M mmap ones.  -O writes the model's final
 * contents to modelfile, so a test can compare the file after a remount.  On a mismatch it prints the
 * last operations and the first differing offset and exits 1.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/falloc.h>

#define HIST 64
#define DIO_ALIGN 4096

static const char *path, *model_out;
static int fd = -1, dfd = -1;
static unsigned char *model, *buf;
static size_t maxlen = 1 << 20, fsize;
static unsigned long long seed = 1;
static unsigned long nops = 1000, opno;
static int use_direct, use_mmap, verbose;
static char hist[HIST][96];

static unsigned long long rnd(void)
{
	/* xorshift64*: reproducible across libcs */
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * 2685821657736338717ULL;
}

static void logop(const char *fmt, ...)
{
	va_list ap;
	char *h = hist[opno % HIST];

	va_start(ap, fmt);
	vsnprintf(h, sizeof(hist[0]), fmt, ap);
	va_end(ap);
	if (verbose)
		printf("%lu: %s\n", opno, h);
}

static void die(const char *fmt, ...)
{
	va_list ap;
	unsigned long i, first = opno >= HIST ? opno - HIST + 1 : 0;

	fprintf(stderr, "fsx: FAILED at op %lu: ", opno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nlast operations:\n");
	for (i = first; i <= opno; i++)
		fprintf(stderr, "  %lu: %s\n", i, hist[i % HIST]);
	exit(1);
}

static void open_file(void)
{
	fd = open(path, O_RDWR);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	if (use_direct) {
		dfd = open(path, O_RDWR | O_DIRECT);
		if (dfd < 0)
			die("open O_DIRECT: %s", strerror(errno));
	}
}

static void close_file(void)
{
	close(fd);
	if (dfd >= 0)
		close(dfd);
	fd = dfd = -1;
}

static void compare(const unsigned char *got, size_t off, size_t len, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (got[i] != model[off + i])
			die("%s: byte at %zu is 0x%02x, expected 0x%02x (file size %zu)", what,
			    off + i, got[i], model[off + i], fsize);
}

static void check_size(void)
{
	struct stat st;

	if (fstat(fd, &st))
		die("fstat: %s", strerror(errno));
	if ((size_t)st.st_size != fsize)
		die("size is %lld, expected %zu", (long long)st.st_size, fsize);
}

static void set_size(size_t n)
{
	if (n > fsize)
		memset(model + fsize, 0, n - fsize);
	fsize = n;
}

static void fill(unsigned char *p, size_t len)
{
	unsigned char v = (unsigned char)(opno * 7 + 1);
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(v + i * 13 + (i >> 9));
}

static void range(size_t *off, size_t *len, size_t align)
{
	size_t o = rnd() % maxlen, l = 1 + rnd() % (maxlen / 8);

	if (align) {
		o &= ~(align - 1);
		l = (l + align - 1) & ~(align - 1);
	}
	if (o + l > maxlen)
		l = maxlen - o;
	if (!l)
		l = align ? align : 1;
	if (o + l > maxlen)
		o = maxlen - l;
	*off = o;
	*len = l;
}

static void op_write(int direct)
{
	size_t off, len;
	ssize_t n;

	range(&off, &len, direct ? DIO_ALIGN : 0);
	logop("%swrite %zu +%zu", direct ? "d" : "", off, len);
	fill(buf, len);
	n = pwrite(direct ? dfd : fd, buf, len, off);
	if (n != (ssize_t)len)
		die("pwrite: %zd: %s", n, strerror(errno));
	memcpy(model + off, buf, len);
	if (off + len > fsize) {
		size_t old = fsize;

		fsize = off + len;
		if (off > old)
			memset(model + old, 0, off - old);
	}
}

static void op_read(int direct)
{
	size_t off, len, want;
	ssize_t n;

	range(&off, &len, direct ? DIO_ALIGN : 0);
	logop("%sread %zu +%zu", direct ? "d" : "", off, len);
	want = off >= fsize ? 0 : (off + len > fsize ? fsize - off : len);
	n = pread(direct ? dfd : fd, buf, len, off);
	if (n < 0)
		die("pread: %s", strerror(errno));
	if ((size_t)n != want)
		die("pread returned %zd, expected %zu", n, want);
	compare(buf, off, want, direct ? "direct read" : "read");
}

static void op_mapwrite(void)
{
	size_t off, len, pg = sysconf(_SC_PAGESIZE), moff;
	unsigned char *p;

	range(&off, &len, 0);
	logop("mapwrite %zu +%zu", off, len);
	if (off + len > fsize) {
		if (ftruncate(fd, off + len))
			die("ftruncate: %s", strerror(errno));
		set_size(off + len);
	}
	moff = off & ~(pg - 1);
	p = mmap(NULL, off + len - moff, PROT_READ | PROT_WRITE, MAP_SHARED, fd, moff);
	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	fill(buf, len);
	memcpy(p + (off - moff), buf, len);
	if (msync(p, off + len - moff, MS_SYNC))
		die("msync: %s", strerror(errno));
	munmap(p, off + len - moff);
	memcpy(model + off, buf, len);
}

static void op_mapread(void)
{
	size_t off, len, pg = sysconf(_SC_PAGESIZE), moff;
	unsigned char *p;

	if (!fsize)
		return;
	range(&off, &len, 0);
	if (off >= fsize)
		off = rnd() % fsize;
	if (off + len > fsize)
		len = fsize - off;
	logop("mapread %zu +%zu", off, len);
	moff = off & ~(pg - 1);
	p = mmap(NULL, off + len - moff, PROT_READ, MAP_SHARED, fd, moff);
	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	compare(p + (off - moff), off, len, "mmap read");
	munmap(p, off + len - moff);
}

static void op_truncate(void)
{
	size_t n = rnd() % maxlen;

	logop("truncate %zu (was %zu)", n, fsize);
	if (ftruncate(fd, n))
		die("ftruncate: %s", strerror(errno));
	if (n < fsize)
		memset(model + n, 0, fsize - n);
	set_size(n);
}

static void op_falloc(int mode, const char *name)
{
	size_t off, len, end;

	range(&off, &len, 0);
	end = off + len;
	logop("%s %zu +%zu", name, off, len);
	if (fallocate(fd, mode, off, len)) {
		if (errno == EOPNOTSUPP)
			die("%s not supported", name);
		die("fallocate %s: %s", name, strerror(errno));
	}
	if (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
		size_t zend = end < fsize ? end : fsize;

		if (off < zend)
			memset(model + off, 0, zend - off);
	}
	if (!(mode & FALLOC_FL_KEEP_SIZE) && end > fsize)
		set_size(end);
}

static void check_all(const char *why)
{
	ssize_t n;

	logop("check (%s)", why);
	check_size();
	n = pread(fd, buf, maxlen, 0);
	if (n != (ssize_t)fsize)
		die("whole-file read returned %zd, expected %zu", n, fsize);
	compare(buf, 0, fsize, "whole-file read");
}

static void usage(void)
{
	fprintf(stderr, "usage: fsx [-N ops] [-S seed] [-l maxlen] [-D] [-M] [-O modelfile] [-v] FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "N:S:l:DMO:v")) != -1) {
		switch (c) {
		case 'N': nops = strtoul(optarg, NULL, 0); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'l': maxlen = strtoul(optarg, NULL, 0); break;
		case 'D': use_direct = 1; break;
		case 'M': use_mmap = 1; break;
		case 'O': model_out = optarg; break;
		case 'v': verbose = 1; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || maxlen < 2 * DIO_ALIGN)
		usage();
	path = argv[optind];
	maxlen &= ~(size_t)(DIO_ALIGN - 1);
	if (!seed)
		seed = 1;
	printf("fsx: %s, %lu ops, seed %llu, maxlen %zu%s%s\n", path, nops, seed, maxlen,
	       use_direct ? ", direct" : "", use_mmap ? ", mmap" : "");
	model = calloc(1, maxlen);
	if (!model || posix_memalign((void **)&buf, DIO_ALIGN, maxlen))
		die("out of memory");
	c = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (c < 0)
		die("create %s: %s", path, strerror(errno));
	close(c);
	open_file();

	for (opno = 0; opno < nops; opno++) {
		unsigned r = rnd() % 100;

		if (r < 20)
			op_write(0);
		else if (r < 35)
			op_read(0);
		else if (r < 42)
			use_direct ? op_write(1) : op_write(0);
		else if (r < 48)
			use_direct ? op_read(1) : op_read(0);
		else if (r < 54)
			use_mmap ? op_mapwrite() : op_write(0);
		else if (r < 60)
			use_mmap ? op_mapread() : op_read(0);
		else if (r < 67)
			op_truncate();
		else if (r < 72)
			op_falloc(0, "falloc");
		else if (r < 77)
			op_falloc(FALLOC_FL_KEEP_SIZE, "falloc_keep");
		else if (r < 84)
			op_falloc(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, "punch");
		else if (r < 89)
			op_falloc(FALLOC_FL_ZERO_RANGE, "zero");
		else if (r < 93)
			op_falloc(FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, "zero_keep");
		else if (r < 96) {
			logop("fsync");
			if (fsync(fd))
				die("fsync: %s", strerror(errno));
		} else if (r < 98) {
			logop("reopen");
			close_file();
			open_file();
		} else {
			check_all("periodic");
		}
	}
	check_all("final");
	close_file();
	if (model_out) {
		FILE *f = fopen(model_out, "w");

		if (!f || fwrite(model, 1, fsize, f) != fsize || fclose(f))
			die("writing %s: %s", model_out, strerror(errno));
	}
	printf("fsx: %lu operations passed\n", nops);
	return 0;
}
