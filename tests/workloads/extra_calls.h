/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system calls syscounts -x makes besides getppid() and getpgid(),
 * named as their syscalls:sys_enter_* tracepoints are: with getppid and
 * getpgid, TDBPF_MAX_EVENTS (72) events for tdbpf -e, each counted
 * exactly (tests/integration/test_counts.c).
 *
 * None is made by glibc or the thread library in the workload's threads
 * (no futex, mmap, clock_nanosleep, prctl, gettid, rseq, exit...), and
 * each is called with a first argument of -1 and zeros after it: a bad
 * file descriptor, id, pointer or size, so it fails at once and changes
 * nothing. Every call here exists on x86-64 and arm64 alike.
 */
#ifndef TDBPF_EXTRA_CALLS_H
#define TDBPF_EXTRA_CALLS_H

#include <sys/syscall.h>

struct extra_call {
	const char *tp;		/* after syscalls:sys_enter_ */
	long nr;
};

static const struct extra_call extra_calls[] = {
	/* a bad file descriptor */
	{ "write", SYS_write },
	{ "lseek", SYS_lseek },
	{ "ioctl", SYS_ioctl },
	{ "pread64", SYS_pread64 },
	{ "pwrite64", SYS_pwrite64 },
	{ "readv", SYS_readv },
	{ "writev", SYS_writev },
	{ "fsync", SYS_fsync },
	{ "fdatasync", SYS_fdatasync },
	{ "ftruncate", SYS_ftruncate },
	{ "fchmod", SYS_fchmod },
	{ "fchown", SYS_fchown },
	{ "flock", SYS_flock },
	{ "fcntl", SYS_fcntl },
	{ "dup", SYS_dup },
	{ "dup3", SYS_dup3 },
	{ "getdents64", SYS_getdents64 },
	{ "fstatfs", SYS_fstatfs },
	{ "fchdir", SYS_fchdir },
	{ "fallocate", SYS_fallocate },
	{ "readahead", SYS_readahead },
	{ "sync_file_range", SYS_sync_file_range },
	{ "splice", SYS_splice },
	{ "tee", SYS_tee },
	{ "vmsplice", SYS_vmsplice },
	{ "inotify_add_watch", SYS_inotify_add_watch },
	{ "inotify_rm_watch", SYS_inotify_rm_watch },
	{ "fgetxattr", SYS_fgetxattr },
	{ "flistxattr", SYS_flistxattr },
	{ "fremovexattr", SYS_fremovexattr },
	{ "fsetxattr", SYS_fsetxattr },
	{ "timerfd_gettime", SYS_timerfd_gettime },
	{ "timerfd_settime", SYS_timerfd_settime },
	{ "epoll_ctl", SYS_epoll_ctl },
	{ "epoll_pwait", SYS_epoll_pwait },
	{ "utimensat", SYS_utimensat },
	/* a bad directory and a NULL path */
	{ "faccessat", SYS_faccessat },
	{ "mkdirat", SYS_mkdirat },
	{ "unlinkat", SYS_unlinkat },
	{ "fchmodat", SYS_fchmodat },
	{ "fchownat", SYS_fchownat },
	{ "newfstatat", SYS_newfstatat },
	{ "readlinkat", SYS_readlinkat },
	{ "linkat", SYS_linkat },
	{ "renameat2", SYS_renameat2 },
	{ "mknodat", SYS_mknodat },
	/* ids: no argument, or a bad pid */
	{ "getpid", SYS_getpid },
	{ "getuid", SYS_getuid },
	{ "geteuid", SYS_geteuid },
	{ "getgid", SYS_getgid },
	{ "getegid", SYS_getegid },
	{ "getsid", SYS_getsid },
	{ "getgroups", SYS_getgroups },
	{ "getresuid", SYS_getresuid },
	{ "getresgid", SYS_getresgid },
	{ "sched_getscheduler", SYS_sched_getscheduler },
	{ "sched_getparam", SYS_sched_getparam },
	{ "sched_get_priority_max", SYS_sched_get_priority_max },
	{ "sched_get_priority_min", SYS_sched_get_priority_min },
	{ "sched_rr_get_interval", SYS_sched_rr_get_interval },
	{ "getpriority", SYS_getpriority },
	/* a bad pointer or size */
	{ "newuname", SYS_uname },
	{ "sysinfo", SYS_sysinfo },
	{ "getcwd", SYS_getcwd },
	{ "capget", SYS_capget },
	{ "rt_sigpending", SYS_rt_sigpending },
	/* a bad socket */
	{ "socket", SYS_socket },
	{ "bind", SYS_bind },
	{ "listen", SYS_listen },
	{ "shutdown", SYS_shutdown },
};

#define NR_EXTRA_CALLS (sizeof(extra_calls) / sizeof(extra_calls[0]))

/* How many times a thread that made @getppid getppid() calls makes call @j. */
static inline long extra_count(long getppid, unsigned int j)
{
	return (getppid + (long)j) % 3;
}

#endif /* TDBPF_EXTRA_CALLS_H */
