// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf runs as root; the code it launches and the files it writes must
 * not. The command of "-- COMMAND" gets the invoking user's identity, output
 * files are never opened through a symlink, and once the BPF programs are
 * attached tdbpf gives up the capabilities it no longer needs.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include "support/privs.h"

/* SUDO_UID/SUDO_GID when we are root through sudo, else -1. */
static int sudo_ids(uid_t *uid, gid_t *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	char *end;
	long lu, lg;

	if (getuid() != 0 || !u || !g)
		return -1;
	errno = 0;
	lu = strtol(u, &end, 10);
	if (errno || *end || lu <= 0)
		return -1;
	lg = strtol(g, &end, 10);
	if (errno || *end || lg < 0)
		return -1;
	*uid = (uid_t)lu;
	*gid = (gid_t)lg;
	return 0;
}

int privs_drop_to_invoking_user(char *err, size_t len)
{
	struct passwd *pw;
	uid_t uid;
	gid_t gid;

	if (sudo_ids(&uid, &gid))
		return 0;	/* not under sudo: run as we are */
	pw = getpwuid(uid);
	if (pw ? initgroups(pw->pw_name, gid) : setgroups(0, NULL)) {
		snprintf(err, len, "cannot set the groups of uid %u: %s; check SUDO_UID and SUDO_GID",
			 (unsigned)uid, strerror(errno));
		return -1;
	}
	if (setgid(gid) || setuid(uid)) {
		snprintf(err, len, "cannot switch to uid %u gid %u: %s; check SUDO_UID and SUDO_GID",
			 (unsigned)uid, (unsigned)gid, strerror(errno));
		return -1;
	}
	/* a failed drop must never go unnoticed */
	if (setuid(0) == 0) {
		snprintf(err, len, "could regain root after dropping to uid %u; not running the command as root by mistake",
			 (unsigned)uid);
		return -1;
	}
	if (pw) {
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
	}
	return 0;
}

/* Keep the @n capabilities of @keep that we have; drop every other one. */
static void keep_only(const cap_value_t *keep, unsigned int n)
{
	cap_t cur = cap_get_proc(), nc = cap_init();
	cap_flag_value_t have;
	cap_value_t c;
	unsigned int i;

	if (cur && nc) {
		for (i = 0; i < n; i++) {
			/* a kernel or libcap that does not know it: skip */
			if (cap_get_flag(cur, keep[i], CAP_PERMITTED, &have) ||
			    have != CAP_SET)
				continue;
			cap_set_flag(nc, CAP_PERMITTED, 1, &keep[i], CAP_SET);
			cap_set_flag(nc, CAP_EFFECTIVE, 1, &keep[i], CAP_SET);
		}
		/*
		 * The bounding set too (needs CAP_SETPCAP, so first): we stay
		 * uid 0, and an exec would otherwise get every capability
		 * back.
		 */
		for (c = 0; c < (cap_value_t)cap_max_bits(); c++) {
			for (i = 0; i < n; i++)
				if (keep[i] == c)
					break;
			if (i == n)
				cap_drop_bound(c);
		}
		cap_set_proc(nc);
	}
	cap_free(nc);
	cap_free(cur);
}

static bool keep_kill = true, keep_ptrace;

void privs_keep_kill(bool keep)
{
	keep_kill = keep;
}

void privs_keep_ptrace(bool keep)
{
	keep_ptrace = keep;
}

void privs_drop_after_setup(void)
{
	/*
	 * Map reads and the flush program need CAP_BPF (bpf_capable() on
	 * kernels that check at the syscall), stopping a command that runs as
	 * the sudo user needs CAP_KILL. Everything else goes, in one go: the
	 * bounding set can only be cut while CAP_SETPCAP is still there.
	 */
	cap_value_t keep[4] = { CAP_BPF, CAP_PERFMON };
	unsigned int n = 2;

	if (keep_kill)
		keep[n++] = CAP_KILL;
	/*
	 * The sockets of the traced processes (flows_proc.c): the kernel
	 * lets /proc/PID/fd be read only by a task whose capabilities
	 * cover the target's, which a root process's do not after this
	 * drop. Read-only use; held only with wakeups traced.
	 */
	if (keep_ptrace)
		keep[n++] = CAP_SYS_PTRACE;
	keep_only(keep, n);
}

int privs_create_output(const char *path)
{
	const int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	bool created = true;
	uid_t uid;
	gid_t gid;
	int fd;

	/*
	 * O_NOFOLLOW: a symlink planted at @path (say in /tmp) is refused,
	 * not followed to a file root can write. O_NONBLOCK: a FIFO planted
	 * there fails with ENXIO instead of hanging until a reader comes.
	 */
	fd = open(path, flags | O_CREAT | O_EXCL, 0644);
	if (fd < 0 && errno == EEXIST) {
		created = false;
		fd = open(path, flags | O_TRUNC);
	}
	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		return -EIO;
	}
	/*
	 * The sudo user gets the file we created; failing that it stays
	 * root's. A file that was there keeps its owner: chowning it would
	 * hand the user whatever root file the path names.
	 */
	if (created && sudo_ids(&uid, &gid) == 0 && fchown(fd, uid, gid) < 0)
		errno = 0;
	return fd;
}
