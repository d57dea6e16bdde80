// SPDX-License-Identifier: GPL-2.0
/*
 * Containing the server once the image is open and the mount made, so that
 * a bug an image could trigger in the parsing code reaches as little as
 * possible (stalefs-fuse(8), SECURITY, says what this does and does not
 * protect):
 *
 *  - -o uid=N,gid=N: the process becomes that user and group (supplementary
 *    groups dropped), keeping only the descriptors it holds;
 *  - Landlock (Linux 5.13+): no path can be opened, created, removed,
 *    renamed or executed any more, by this process or anything it starts;
 *  - seccomp: only the system calls serving requests take (reading and
 *    writing descriptors it has, memory, threads, time, futexes) are
 *    allowed; exec and ptrace kill the process, anything else fails with
 *    EPERM.  Threads may be created (libfuse's loop grows its pool); new
 *    processes may not.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include "stalefs_fuse.h"

int sfuse_drop_privileges(const struct sfuse_opts *o)
{
	uid_t uid = o->have_uid ? o->uid : getuid();
	gid_t gid = o->have_gid ? o->gid : getgid();

	if (!o->have_uid && !o->have_gid)
		return 0;
	/* uid= alone: that user's own group, as su would. */
	if (o->have_uid && !o->have_gid) {
		struct passwd *pw = getpwuid(uid);

		if (pw)
			gid = pw->pw_gid;
	}
	if ((geteuid() == 0 && setgroups(0, NULL) < 0) || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0) {
		sfuse_log(LOG_ERR, "cannot become uid %u gid %u: %s (only root may change user)", (unsigned)uid,
			  (unsigned)gid, strerror(errno));
		return -1;
	}
	/* Make sure there is no way back. */
	if (uid != 0 && setuid(0) == 0) {
		sfuse_log(LOG_ERR, "dropping privileges did not stick");
		return -1;
	}
	return 0;
}

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

/* 1: in place; 0: the kernel has no Landlock; -1: it has, and it failed. */
static int landlock(void)
{
	struct landlock_ruleset_attr attr;
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int fd;

	if (abi < 0)
		return errno == ENOSYS || errno == EOPNOTSUPP ? 0 : -1;
	memset(&attr, 0, sizeof(attr));
	/* Every file system right the running kernel knows, and no rule granting any back. */
	attr.handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
				 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
				 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
				 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
				 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
				 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
				 LANDLOCK_ACCESS_FS_MAKE_SYM;
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	fd = (int)syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(__NR_landlock_restrict_self, fd, 0) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 1;
}

/* What serving requests needs (glibc, libfuse's loop and splice, libstalefs' I/O). */
static const int allowed[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64),
	SCMP_SYS(pwrite64), SCMP_SYS(preadv), SCMP_SYS(pwritev), SCMP_SYS(preadv2), SCMP_SYS(pwritev2),
	SCMP_SYS(splice), SCMP_SYS(vmsplice), SCMP_SYS(tee), SCMP_SYS(pipe2), SCMP_SYS(close), SCMP_SYS(dup),
	SCMP_SYS(lseek), SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(statx), SCMP_SYS(fcntl),
	SCMP_SYS(fsync), SCMP_SYS(fdatasync), SCMP_SYS(fallocate), SCMP_SYS(poll), SCMP_SYS(ppoll),
	SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list), SCMP_SYS(rseq),
	SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect), SCMP_SYS(mremap), SCMP_SYS(madvise),
	SCMP_SYS(brk), SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn),
	SCMP_SYS(sigaltstack), SCMP_SYS(clock_gettime), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
	SCMP_SYS(gettimeofday), SCMP_SYS(getrandom), SCMP_SYS(gettid), SCMP_SYS(getpid), SCMP_SYS(getuid),
	SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(sched_yield),
	SCMP_SYS(sched_getaffinity), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(restart_syscall),
	SCMP_SYS(sendto), SCMP_SYS(prlimit64), SCMP_SYS(getrlimit),
};

static int seccomp(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	size_t i;
	int rc = 0;

	if (!ctx)
		return -1;
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]) && !rc; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
	/* Threads, not processes: clone only with CLONE_THREAD; clone3 (whose flags a filter
	 * cannot see) says ENOSYS, and glibc falls back to clone. */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	/* Signals to itself only (abort, a thread's cancellation). */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
	/* Unmounting at exit, when root. */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(umount2), 0);
	/* What an attack would want first ends the process. */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(execve), 0);
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(execveat), 0);
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(ptrace), 0);
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!rc)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc ? -1 : 1;
}

int sfuse_sandbox(bool verbose)
{
	int ll, sc;

	/* glibc loads libgcc_s the first time a thread is cancelled (libfuse's loop cancels its
	 * workers when it ends): after Landlock it could not, and would abort.  Loaded now, the
	 * later dlopen finds it in memory. */
	if (!dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_GLOBAL))
		sfuse_log(LOG_WARNING, "cannot load libgcc_s.so.1 before the sandbox: %s", dlerror());
	ll = landlock();
	if (ll < 0) {
		sfuse_log(LOG_ERR, "cannot set up a Landlock ruleset: %s", strerror(errno));
		return -1;
	}
	sc = seccomp();
	if (sc < 0) {
		sfuse_log(LOG_ERR, "cannot load the seccomp filter");
		return -1;
	}
	if (verbose)
		sfuse_log(LOG_INFO, "sandbox: %s, seccomp filter loaded",
			  ll ? "Landlock: no path may be opened" : "no Landlock in this kernel");
	return 0;
}
