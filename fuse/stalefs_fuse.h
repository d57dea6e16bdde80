/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stalefs-fuse: a FUSE server for stalefs images on libstalefs and libfuse3's
 * low-level API.  One process serves one image; libstalefs is not
 * thread-safe, so every request takes the one filesystem lock (sfuse.lock)
 * while it calls into the library, and replies after dropping it.
 */
#ifndef STALEFS_FUSE_H
#define STALEFS_FUSE_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "libstalefs.h"

#ifndef STALEFS_VERSION
#define STALEFS_VERSION "0.1"
#endif

extern const char *program_name;

/* What the command line asked for (options.c). */
struct sfuse_opts {
	char *image;			/* IMAGE|DEVICE[?offset=N[&size=M]] as given */
	char *mountpoint;
	bool ro;			/* -o ro */
	bool norecovery;		/* -o norecovery: a dirty journal is not replayed (ro only) */
	bool writeback;			/* -o writeback: the kernel's writeback cache (ENOSPC shows late) */
	bool sandbox;			/* seccomp + Landlock after mounting (-o nosandbox turns it off) */
	bool have_uid, have_gid;	/* -o uid=N / gid=N: run as this user after opening and mounting */
	uid_t uid;
	gid_t gid;
	unsigned commit_secs;		/* -o commit=N: commit a running transaction after N seconds */
	bool helper;			/* started as mount.fuse.stalefs */
	bool fake;			/* helper -f: do everything but mount */
};

/* An inode the kernel knows of: its lookup count and open handles (inodes.c). */
struct sfuse_node {
	u32 ino;
	u64 nlookup;
	u32 nopen;
	struct sfuse_node *next;
};

struct sfuse {
	pthread_mutex_t lock;		/* every call into libstalefs */
	stalefs_fs *fs;
	struct sfuse_opts opts;
	bool journaled;			/* the journaled write path is running */
	bool xattr_ok;			/* RO_COMPAT_XATTR: attributes and ACLs */
	bool acl;			/* the kernel enforces POSIX ACLs we keep (FUSE_CAP_POSIX_ACL) */
	bool splice;			/* read replies spliced from the image (FUSE_CAP_SPLICE_WRITE) */
	u64 dirty_since;		/* monotonic seconds of the oldest uncommitted change (0: none) */
	struct sfuse_node **nodes;	/* hash by inode number */
	u32 nbuckets;
	pthread_t committer;
	pthread_cond_t commit_cond;
	bool stopping;
	bool committer_running;
	u64 errors_reported;
	bool use_syslog;		/* detached: messages go to syslog */
	bool aborted;			/* a commit failed: read-only from now on */
	bool closed;			/* the image is closed (destroy ran) */
	bool close_failed;		/* ... and closing it failed (exit status 1) */
};

extern struct sfuse S;

/* fuse ino <-> stalefs ino: the kernel calls the root 1 (FUSE_ROOT_ID), stalefs 2. */
static inline u32 sfuse_ino(fuse_ino_t fino)
{
	return fino == FUSE_ROOT_ID ? STALEFS_ROOT_INO : (u32)fino;
}

static inline fuse_ino_t sfuse_fino(u32 ino)
{
	return ino == STALEFS_ROOT_INO ? FUSE_ROOT_ID : ino;
}

/* errors.c: a libstalefs error as the errno a file system call reports. */
int sfuse_errno(errcode_t err);
/* Log a damage or I/O error once per inode and kind, on standard error (syslog when detached). */
void sfuse_report(u32 ino, errcode_t err, const char *what);
/* A line to standard error (foreground) or syslog (detached), prefixed with the program. */
void sfuse_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* options.c */
int sfuse_parse_args(int argc, char **argv, struct fuse_args *args, struct sfuse_opts *o);
void sfuse_usage(FILE *f);

/* open.c: open the image as the options say (replaying, finishing orphans, starting the
 * journaled write path); close it cleanly. */
errcode_t sfuse_open_image(struct sfuse *s);
errcode_t sfuse_close_image(struct sfuse *s);

/* commit.c: the commit policy.  Call with the lock held after a change. */
void sfuse_changed(struct sfuse *s);
/* Commit now (fsync, a full transaction, ENOSPC with busy blocks).  Lock held. */
errcode_t sfuse_commit(struct sfuse *s);
/* fsync and fsyncdir: commit everything, reply with how it went. */
void sfuse_reply_commit(fuse_req_t req);
/* Is the filesystem writable now (not read-only, no failed commit)?  0 or the errno. */
int sfuse_writable(const struct sfuse *s);
void sfuse_committer_start(struct sfuse *s);
void sfuse_committer_stop(struct sfuse *s);

/* inodes.c */
struct sfuse_node *sfuse_node_get(struct sfuse *s, u32 ino, bool create);
/* The inode lost its kernel references or its last name: free it if nothing holds it. */
void sfuse_node_maybe_release(struct sfuse *s, u32 ino);
void sfuse_stat_from_inode(const struct sfuse *s, u32 ino, const struct stalefs_inode *inode, struct stat *st);
/* Reply with an entry (lookup, create, ...): reads the inode, counts the lookup.  Lock held;
 * returns the errno to reply with instead (0: e is filled). */
int sfuse_fill_entry(struct sfuse *s, u32 ino, struct fuse_entry_param *e);
void sfuse_set_times_now(struct stalefs_inode *inode, bool atime, bool mtime, bool ctime);

/* acl.c: POSIX ACLs in the kernel's posix_acl_xattr encoding (as stalefs stores them). */
#define SFUSE_ACL_ACCESS "system.posix_acl_access"
#define SFUSE_ACL_DEFAULT "system.posix_acl_default"
/* A valid ACL?  0 or EINVAL. */
int sfuse_acl_valid(const void *value, size_t size);
/* The mode an access ACL implies (rwx of owner, mask or group, other); *equiv: the ACL says no
 * more than the mode (it need not be kept). */
u16 sfuse_acl_mode(const void *value, size_t size, u16 mode, bool *equiv);
/* chmod: the ACL's owner, mask (or group) and other entries follow the new mode. */
void sfuse_acl_chmod(void *value, size_t size, u16 mode);
/* A new inode of mode *mode under a default ACL: its access ACL into acl (the same size as the
 * default), the mode narrowed by it; *equiv: the access ACL need not be kept. */
void sfuse_acl_create(const void *def, size_t size, void *acl, u16 *mode, bool *equiv);

/* The operations, one file per theme. */
void sfuse_init(void *userdata, struct fuse_conn_info *conn);
void sfuse_destroy(void *userdata);
void sfuse_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void sfuse_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void sfuse_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets);
void sfuse_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void sfuse_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set, struct fuse_file_info *fi);
void sfuse_readlink(fuse_req_t req, fuse_ino_t ino);
void sfuse_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void sfuse_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void sfuse_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name);
void sfuse_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void sfuse_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void sfuse_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void sfuse_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		  const char *newname, unsigned int flags);
void sfuse_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi);
void sfuse_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void sfuse_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void sfuse_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void sfuse_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void sfuse_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void sfuse_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void sfuse_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void sfuse_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		 struct fuse_file_info *fi);
void sfuse_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void sfuse_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void sfuse_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
		     struct fuse_file_info *fi);
void sfuse_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence, struct fuse_file_info *fi);
void sfuse_statfs(fuse_req_t req, fuse_ino_t ino);
void sfuse_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg, struct fuse_file_info *fi,
		 unsigned flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz);
void sfuse_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value, size_t size,
		    int flags);
void sfuse_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void sfuse_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void sfuse_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);
/* xattrs.c: a new inode's ACLs from its directory's default ACL (or the umask); lock held. */
errcode_t sfuse_inherit_acl(struct sfuse *s, u32 dir, u32 ino, u16 *mode, mode_t umask);
/* xattrs.c: chmod keeps an access ACL in step; lock held. */
errcode_t sfuse_acl_follow_mode(struct sfuse *s, u32 ino, u16 mode);

/* sandbox.c: after the image is open and the mount made. */
int sfuse_drop_privileges(const struct sfuse_opts *o);
/* Landlock (no path may be opened) and seccomp (an allow-list of system calls); says what it
 * could set up.  0, or -1 when a filter that should have loaded did not. */
int sfuse_sandbox(bool verbose);

#endif
