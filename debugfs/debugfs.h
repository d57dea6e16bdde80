/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs.stalefs: state shared by the command files.
 *
 * Commands have the libss signature (argc, argv, sci_idx, info) so that the
 * mk_cmds table drives both the interactive listener and dbg_execute(), the
 * libss-free dispatcher the fuzzer uses.  A command that fails calls
 * dbg_fail() (directly or through dbg_err), which is what the exit status
 * counts.
 */
#ifndef DEBUGFS_STALEFS_H
#define DEBUGFS_STALEFS_H

#include <stdarg.h>
#include <stdio.h>
#include "libstalefs.h"

#define DBG_PROG "debugfs.stalefs"
#define DBG_RO_CACHE_BYTES (256u << 10)	/* metadata cache when opened read-only */

struct dbg_state {
	stalefs_fs *fs;
	u32 root, cwd;
	bool json;		/* --json: commands that can, print JSON */
	bool no_csum;		/* -n: accept bad checksums, and edits keep old checksums */
	int open_flags;		/* flags given on the command line, reused by `open` */
	unsigned failures;	/* commands that failed */
	/* Checksums that -n edits of the superblock / descriptors left behind: the
	 * library recomputes them when it flushes, so they are put back after. */
	bool sb_csum_pending;
	u32 sb_csum;
	u8 *desc_csum_pending;	/* per group, when non-NULL */
	u32 *desc_csum;
};

extern struct dbg_state dbg;

#define DBG_CMD(name) void name(int argc, const char *const *argv, int sci_idx, void *info)

/* ---- failure reporting (each counts one failed command) ---- */
void dbg_fail(void);
/* "cmd: <message for err> while <fmt>" on stderr, and one failure. */
void dbg_err(const char *cmd, errcode_t err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "cmd: <fmt>" on stderr, and one failure. */
void dbg_msg(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dbg_usage(const char *cmd, const char *usage);

/* ---- preconditions: print the reason and count a failure when false ---- */
bool dbg_need_fs(const char *cmd);
bool dbg_need_rw(const char *cmd);
bool dbg_need_bitmaps(const char *cmd);
/* argc within [min, max] (max < 0: no limit), else usage. */
bool dbg_args(int argc, const char *const *argv, int min, int max, const char *usage);

/* ---- argument parsing ---- */
bool dbg_parse_u64(const char *cmd, const char *s, const char *what, u64 *v);
bool dbg_parse_u32(const char *cmd, const char *s, const char *what, u32 *v);
bool dbg_parse_block(const char *cmd, const char *s, u64 *block);	/* inside the fs */
/* With file: s is a logical block of it, mapped (a hole is an error); else as above. */
bool dbg_parse_file_block(const char *cmd, const char *file, const char *s, u64 *block);
/* A file named by path (from cwd) or <ino>. */
bool dbg_name_to_ino(const char *cmd, const char *name, u32 *ino);
bool dbg_name_to_ino_follow(const char *cmd, const char *name, bool follow, u32 *ino);
/* Read an inode for display: bad checksums and content are reported, not fatal. */
bool dbg_read_inode(const char *cmd, u32 ino, struct stalefs_inode *inode, int *rule);

/* Warn (no failure) when ino lies past bg_itable_unused: what is written there is not read. */
void dbg_warn_uninit(const char *cmd, u32 ino);

/* ---- opening ---- */
errcode_t dbg_open_fs(const char *name, int flags, u64 sb_block, u32 block_size);
errcode_t dbg_close_fs(bool write);
/* Flush and reapply the checksums -n edits left behind. */
errcode_t dbg_flush(void);

/* ---- small formatting helpers ---- */
const char *dbg_mode_type(u16 mode);	/* "regular", "directory", ... */
const char *dbg_ext_flags(u16 flags);	/* "", "UNWRITTEN", "STALE", "UNWRITTEN|STALE", ... */
void dbg_time_string(s64 t, char *out, size_t len);
/* The full path of an inode, by looking up ".." upwards (best effort). */
void dbg_ino_path(u32 ino, char *out, size_t len);
bool dbg_confined(u32 gid, u16 mode);

void dbg_hexdump(const u8 *p, u32 len, u64 base);

/* The group metadata a block belongs to ("superblock", "inode table", ...) or NULL. */
const char *dbg_block_role(u64 block, u32 *group);

/* Mark a block / inode in use, moving the free counts (no-op when already in use). */
void dbg_claim_block(u64 block);
void dbg_claim_inode(u32 ino, bool is_dir);

/* ---- JSON output ---- */
void json_str(FILE *f, const char *s);
void json_strn(FILE *f, const char *s, size_t n);

/* ---- dispatching without libss (scripts in the fuzzer) ---- */
/* Split a line into words (quotes as libss does) and run it; returns false for an
 * unknown command (which also counts a failure). */
bool dbg_execute(char *line);

/* ---- extended attributes (xattrs.c): stat's section, text and JSON ---- */
void dbg_stat_xattrs(u32 ino, const struct stalefs_inode *inode);
void dbg_stat_xattrs_json(u32 ino, const struct stalefs_inode *inode);

/* ---- the journal (journal.c): drop an open journal and its pending transaction (at close) ---- */
void dbg_journal_forget(void);

/* ---- the journal as history (jhistory.c) and recovery from it (jrecover.c) ---- */
/* The journal opened (even with a damaged superblock) and read whole; false: reported. */
bool dbg_jhistory_open(const char *cmd, struct stalefs_journal **j, struct stalefs_jhistory *h);
void dbg_jhistory_close(struct stalefs_journal *j, struct stalefs_jhistory *h);
/* What a journaled copy is, in words. */
void dbg_copy_what(const struct stalefs_jblock *b, char *out, size_t len);
/* An old copy's extent map, and how many of its blocks are in use now. */
struct dbg_map_state {
	errcode_t err;
	struct stalefs_extent_list map;
	struct stalefs_jmap_nodes nodes;
	u64 blocks, in_use;
	bool known;		/* bitmaps loaded: in_use means something */
};
void dbg_map_load(struct stalefs_journal *j, const struct stalefs_jhistory *h, u32 ino,
		  const struct stalefs_jinode_copy *c, struct dbg_map_state *ms);
void dbg_map_free(struct dbg_map_state *ms);
void dbg_map_print(const struct dbg_map_state *ms, const char *indent);
void dbg_copy_json(const char *sep, const struct stalefs_jinode_copy *c, const struct dbg_map_state *ms);
/* undel -j: the deleted inode back from a journaled copy (needs -w and bitmaps). */
void dbg_undel_journal(const char *cmd, u32 ino, const char *name, bool have_seq, u32 seq);

/* ---- extraction with a map (extract.c): blkls, slack, dump_stale ---- */
/* A new file for extracted data, mode 0600 whatever the umask (NULL: errno says why). */
FILE *dbg_fopen_private(const char *path);
struct dbg_extract {
	const char *cmd;
	FILE *out;		/* the stream (a file or standard output), or NULL */
	FILE *map;		/* NULL without -m */
	u64 stream_off;		/* bytes written to out so far */
	u64 base;		/* where the filesystem starts in the image (a partition, a region) */
	u8 *buf;
	bool failed;
};
/* The stream: out_path, else standard output when to_stdout (refused on a terminal); the map
 * at map_path with its '#' header line.  False: said, and counted as failed. */
bool dbg_extract_open(struct dbg_extract *x, const char *cmd, const char *out_path, bool to_stdout,
		      const char *map_path, const char *map_header);
/* len bytes from byte skip of block on, to `to` (x->out advances stream_off). */
bool dbg_extract_range(struct dbg_extract *x, FILE *to, u64 block, u32 skip, u64 len);
void dbg_extract_map(struct dbg_extract *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool dbg_extract_close(struct dbg_extract *x);

/* ---- metadump restore, shared with main's --restore-metadump ---- */
errcode_t dbg_metadump_restore(const char *dump, const char *image);

#endif
