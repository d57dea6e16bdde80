// SPDX-License-Identifier: GPL-2.0
/*
 * stalefs-fuse: serve a stalefs image through FUSE, on any kernel with FUSE
 * and without the kernel module (stalefs-fuse(8)).  The image is opened and
 * checked before anything is mounted, so every error is reported on the
 * terminal; then the mount is made, privileges are dropped, the server goes
 * to the background (without -f), the sandbox closes, and libfuse's
 * multithreaded loop serves requests until the filesystem is unmounted.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>
#include "stalefs_fuse.h"

const char *program_name = "stalefs-fuse";
struct sfuse S = { .lock = PTHREAD_MUTEX_INITIALIZER };

void sfuse_init(void *userdata, struct fuse_conn_info *conn)
{
	struct sfuse *s = userdata;
	bool rw = !sfuse_writable(s);

	/* Large requests: the kernel's most (libfuse's buffer takes 1 MiB of data). */
	conn->max_write = 1u << 20;
	conn->max_readahead = 1u << 20;
	conn->time_gran = 1;
	if (rw && s->opts.writeback && (conn->capable & FUSE_CAP_WRITEBACK_CACHE))
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
	if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO;
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	/* Read replies spliced from the image (data.c), when the kernel takes them. */
	if ((conn->capable & FUSE_CAP_SPLICE_WRITE) && (conn->capable & FUSE_CAP_SPLICE_MOVE)) {
		conn->want |= FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE;
		s->splice = true;
	}
	/* ACLs: the kernel enforces what we keep; we apply the umask (or the default ACL). */
	if (s->xattr_ok && (conn->capable & FUSE_CAP_POSIX_ACL) && (conn->capable & FUSE_CAP_DONT_MASK)) {
		conn->want |= FUSE_CAP_POSIX_ACL | FUSE_CAP_DONT_MASK;
		s->acl = true;
	}
	/* The kernel re-checks nothing: we reply what the image says, nothing changes it behind us. */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
}

void sfuse_destroy(void *userdata)
{
	struct sfuse *s = userdata;
	errcode_t err;

	sfuse_committer_stop(s);
	pthread_mutex_lock(&s->lock);
	err = sfuse_close_image(s);
	pthread_mutex_unlock(&s->lock);
	if (err) {
		sfuse_log(LOG_ERR, "%s: %s while unmounting", s->opts.image, error_message(err));
		s->close_failed = true;
	}
}

static const struct fuse_lowlevel_ops ops = {
	.init = sfuse_init,
	.destroy = sfuse_destroy,
	.lookup = sfuse_lookup,
	.forget = sfuse_forget,
	.forget_multi = sfuse_forget_multi,
	.getattr = sfuse_getattr,
	.setattr = sfuse_setattr,
	.readlink = sfuse_readlink,
	.mknod = sfuse_mknod,
	.mkdir = sfuse_mkdir,
	.unlink = sfuse_unlink,
	.rmdir = sfuse_rmdir,
	.symlink = sfuse_symlink,
	.rename = sfuse_rename,
	.link = sfuse_link,
	.open = sfuse_open,
	.read = sfuse_read,
	.write = sfuse_write,
	.release = sfuse_release,
	.fsync = sfuse_fsync,
	.opendir = sfuse_opendir,
	.readdir = sfuse_readdir,
	.readdirplus = sfuse_readdirplus,
	.releasedir = sfuse_releasedir,
	.fsyncdir = sfuse_fsyncdir,
	.statfs = sfuse_statfs,
	.setxattr = sfuse_setxattr,
	.getxattr = sfuse_getxattr,
	.listxattr = sfuse_listxattr,
	.removexattr = sfuse_removexattr,
	.create = sfuse_create,
	.fallocate = sfuse_fallocate,
	.lseek = sfuse_lseek,
	.ioctl = sfuse_ioctl,
};

/* The source /proc/mounts shows (fsname): the image's full path, its region kept. */
static char *fsname_of(const char *image)
{
	struct stalefs_io_name n;
	char real[PATH_MAX], *out = NULL;
	const char *q;

	if (stalefs_io_parse_name(image, &n) || !realpath(n.path, real)) {
		stalefs_io_name_free(&n);
		return strdup(image);
	}
	q = n.region ? strrchr(image, '?') : "";
	if (asprintf(&out, "%s%s", real, q) < 0)
		out = NULL;
	stalefs_io_name_free(&n);
	return out;
}

static int add_mount_opts(struct fuse_args *args, const struct sfuse_opts *o)
{
	char *fsname = fsname_of(o->image), *opt = NULL;
	int rc;

	if (!fsname)
		return -1;
	/* The kernel checks permissions (and ACLs) from the attributes we give it. */
	rc = fuse_opt_add_arg(args, "-odefault_permissions,subtype=stalefs");
	if (!rc) {
		rc = fuse_opt_add_opt_escaped(&opt, fsname);
		if (!rc) {
			char *arg = NULL;

			rc = asprintf(&arg, "-ofsname=%s", opt) < 0 ? -1 : fuse_opt_add_arg(args, arg);
			free(arg);
		}
	}
	free(opt);
	free(fsname);
	return rc;
}

static void open_failed(const struct sfuse_opts *o, errcode_t err)
{
	com_err(program_name, err, "while opening %s%s", o->image, o->ro ? "" : " read-write");
	if (err == STALEFS_ERR_MOUNTED)
		fprintf(stderr, "%s: %s is mounted (or open exclusively by another program)\n", program_name, o->image);
	else if (!stalefs_io_error(err) && err != STALEFS_ERR_BAD_MAGIC && !o->ro)
		fprintf(stderr, "%s: run fsck.stalefs %s, or mount it read-only (-o ro)\n", program_name, o->image);
}

int main(int argc, char **argv)
{
	struct fuse_args args;
	struct fuse_cmdline_opts copts;
	struct fuse_session *se;
	struct fuse_loop_config *cfg;
	errcode_t err;
	int rc;

	initialize_slfs_error_table();
	rc = sfuse_parse_args(argc, argv, &args, &S.opts);
	if (rc < 0) {
		sfuse_usage(stderr);
		return 1;
	}
	if (fuse_parse_cmdline(&args, &copts) != 0)
		return 1;
	if (copts.show_help) {
		sfuse_usage(stdout);
		fuse_cmdline_help();
		fuse_lowlevel_help();
		return 0;
	}
	if (copts.show_version) {
		printf("%s %s (libfuse %s)\n", program_name, STALEFS_VERSION, fuse_pkgversion());
		return 0;
	}
	if (!copts.mountpoint) {
		fprintf(stderr, "%s: no mount point given\n", program_name);
		sfuse_usage(stderr);
		return 1;
	}
	S.opts.mountpoint = copts.mountpoint;
	err = sfuse_open_image(&S);
	if (err) {
		open_failed(&S.opts, err);
		return 1;
	}
	if (S.opts.fake) {
		sfuse_close_image(&S);
		return 0;
	}
	if (add_mount_opts(&args, &S.opts))
		return 1;
	rc = 1;
	se = fuse_session_new(&args, &ops, sizeof(ops), &S);
	if (!se)
		goto out_close;
	if (fuse_set_signal_handlers(se))
		goto out_session;
	if (fuse_session_mount(se, copts.mountpoint))
		goto out_handlers;
	if (sfuse_drop_privileges(&S.opts))
		goto out_unmount;
	if (!copts.foreground) {
		openlog(program_name, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		S.use_syslog = true;
	}
	fuse_daemonize(copts.foreground);
	if (S.opts.sandbox && sfuse_sandbox(copts.debug))
		goto out_unmount;
	sfuse_committer_start(&S);
	if (copts.singlethread) {
		rc = fuse_session_loop(se);
	} else {
		cfg = fuse_loop_cfg_create();
		fuse_loop_cfg_set_clone_fd(cfg, copts.clone_fd);
		/* UINT_MAX: not given (libfuse's default) */
		if (copts.max_idle_threads != UINT_MAX)
			fuse_loop_cfg_set_idle_threads(cfg, copts.max_idle_threads);
		fuse_loop_cfg_set_max_threads(cfg, copts.max_threads);
		rc = fuse_session_loop_mt(se, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	rc = rc ? 1 : 0;
out_unmount:
	fuse_session_unmount(se);
out_handlers:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
out_close:
	/* Not mounted, or the loop ended without a destroy (a signal): close as unmount would. */
	sfuse_committer_stop(&S);
	pthread_mutex_lock(&S.lock);
	err = sfuse_close_image(&S);
	pthread_mutex_unlock(&S.lock);
	if (err) {
		com_err(program_name, err, "while closing %s", S.opts.image);
		rc = 1;
	}
	if (S.close_failed)
		rc = 1;
	free(copts.mountpoint);
	fuse_opt_free_args(&args);
	return rc;
}
