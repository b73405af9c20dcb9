// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf runs as root; the code it launches and the files it writes must
 * not. The command of "-- COMMAND" gets the invoking user's identity, output
 * files are opened with that user's rights and never through a symlink,
 * and once the BPF programs are attached tdbpf gives up the capabilities
 * it no longer needs.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include "support/nofollow.h"
#include "support/privs.h"
#include "support/error.h"

/* @s as a uid or gid: whole decimal, no sign, below (uid_t)-1. */
static int parse_id(const char *s, unsigned long *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end || *out >= 0xffffffffUL)
		return -1;
	return 0;
}

/*
 * SUDO_UID/SUDO_GID when we are root through sudo: 0 and the ids; 1 when
 * not (no sudo, or sudo from root); -1 when they are set but do not both
 * parse. Fail closed: a value we cannot read must not mean "stay root".
 */
static int sudo_ids(uid_t *uid, gid_t *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long lu, lg;

	if (getuid() != 0 || (!u && !g))
		return 1;
	if (parse_id(u, &lu) || parse_id(g, &lg))
		return -1;
	if (lu == 0)
		return 1;	/* sudo run by root: root it is */
	*uid = (uid_t)lu;
	*gid = (gid_t)lg;
	return 0;
}

int privs_check_sudo(char *err, size_t len)
{
	static const char fix[] =
		"tdbpf will not guess who to run as; unset SUDO_UID and SUDO_GID, or set both to the invoking user's (id -u, id -g)";
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	const char *name = "SUDO_UID", *val = u;
	unsigned long v;
	uid_t uid;
	gid_t gid;

	if (sudo_ids(&uid, &gid) >= 0)
		return 0;
	if (!parse_id(u, &v)) {
		name = "SUDO_GID";
		val = g;
	}
	if (!val)
		error_set(err, len, "%s is unset while %s is set; %s", name,
			 name[5] == 'U' ? "SUDO_GID" : "SUDO_UID", fix);
	else
		error_set(err, len, "%s '%s' is not an id; %s", name, val, fix);
	return -1;
}

int privs_drop_to_invoking_user(char *err, size_t len)
{
	struct passwd *pw;
	uid_t uid;
	gid_t gid;

	switch (sudo_ids(&uid, &gid)) {
	case 1:
		return 0;	/* not under sudo: run as we are */
	case -1:
		return privs_check_sudo(err, len);
	}
	pw = getpwuid(uid);
	if (pw ? initgroups(pw->pw_name, gid) : setgroups(0, NULL)) {
		error_set(err, len, "cannot set the groups of uid %u: %s; check SUDO_UID and SUDO_GID",
			 (unsigned)uid, strerror(errno));
		return -1;
	}
	if (setgid(gid) || setuid(uid)) {
		error_set(err, len, "cannot switch to uid %u gid %u: %s; check SUDO_UID and SUDO_GID",
			 (unsigned)uid, (unsigned)gid, strerror(errno));
		return -1;
	}
	/* a failed drop must never go unnoticed */
	if (setuid(0) == 0) {
		error_set(err, len, "could regain root after dropping to uid %u; not running the command as root by mistake",
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

/* true when a process of /proc runs with effective uid @u */
static bool uid_running(uid_t u)
{
	char path[300];
	struct dirent *e;
	struct stat st;
	bool found = false;
	DIR *d = opendir("/proc");

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s", e->d_name);
		found = !stat(path, &st) && st.st_uid == u;
	}
	closedir(d);
	return found;
}

/*
 * The kernel lets a process signal another when either of its real and
 * effective uids is the other's real or saved uid. So tdbpf's uids are
 * one of its own, which names no user and runs no other process (from
 * systemd's range for dynamic users, 61184-65519), and no process of
 * nobody or of the sudo user can stop it (kill -STOP). All three: with
 * another effective uid (nobody's) no task of tdbpf's own may ptrace it
 * either, and LeakSanitizer's end-of-run walk in the ASan build is one.
 * 0 when no such uid is free.
 */
static uid_t private_uid(void)
{
	const unsigned int first = 61184, span = 65519 - 61184 + 1;
	unsigned int i;

	for (i = 0; i < span; i++) {
		uid_t u = first + ((unsigned int)getpid() + i) % span;

		if (!getpwuid(u) && !uid_running(u))
			return u;
	}
	return 0;
}

/*
 * uid 0 with CAP_BPF and CAP_PERFMON alone could still read /etc/shadow
 * and write any root-owned file (as their owner). Once
 * the BPF objects, perf fds, --listen socket and output files are open,
 * nothing a run still does needs uid 0: map and iterator reads need only
 * the fds and CAP_BPF, /proc's comm and stat files are world-readable,
 * the outputs are written through fds opened before, and a command run
 * as root is stopped with CAP_KILL. So become a uid of tdbpf's own
 * (private_uid()), with nobody's group (the sudo user's under sudo),
 * keeping the capabilities across (PR_SET_KEEPCAPS): it owns no file,
 * so every file is checked against its "other" bits. The uid change
 * makes tdbpf non-dumpable: no ptrace by anyone. A failure is said, not
 * fatal: the capabilities are cut either way.
 */
static void leave_root(void)
{
	struct passwd *pw;
	uid_t uid = 65534, own;
	gid_t gid = 65534;

	if (getuid() != 0 && geteuid() != 0)
		return;		/* file capabilities: not root anyway */
	if (sudo_ids(&uid, &gid) != 0) {
		pw = getpwnam("nobody");
		uid = pw ? pw->pw_uid : 65534;
		gid = pw ? pw->pw_gid : 65534;
	}
	own = private_uid();
	if (!own) {
		fprintf(stderr, "tdbpf: warning: no free uid in 61184-65519 to run as; uid %u's other processes may signal tdbpf\n",
			(unsigned)uid);
		own = uid;
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(gid, gid, gid) || setresuid(own, own, own)) {
		fprintf(stderr, "tdbpf: warning: cannot leave uid 0 for uid %u: %s; tracing on as root with CAP_BPF and CAP_PERFMON only\n",
			(unsigned)uid, strerror(errno));
		return;
	}
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
}

/*
 * Keep the @n capabilities of @keep that we have, permitted and
 * effective; drop every other one.
 */
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
		 * The bounding set too (needs CAP_SETPCAP, so first): an
		 * exec would otherwise get every capability back.
		 */
		for (c = 0; c < (cap_value_t)cap_max_bits(); c++) {
			for (i = 0; i < n; i++)
				if (keep[i] == c)
					break;
			if (i == n)
				cap_drop_bound(c);
		}
		/* uid 0 goes too, while CAP_SETUID is still there */
		leave_root();
		cap_set_proc(nc);
		/* and no later change may make us dumpable again */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	}
	cap_free(nc);
	cap_free(cur);
}

static bool keep_kill = true;

void privs_keep_kill(bool keep)
{
	keep_kill = keep;
}

void privs_drop_after_setup(void)
{
	/*
	 * Map reads and the flush program need CAP_BPF (bpf_capable() on
	 * kernels that check at the syscall), stopping a command that runs as
	 * the sudo user needs CAP_KILL. Everything else goes, in one go: the
	 * bounding set can only be cut while CAP_SETPCAP is still there.
	 * The overrides that read other users' /proc/PID/fd are the peer
	 * reader's (sources/peer_reader.c), a process of its own.
	 */
	cap_value_t keep[3] = { CAP_BPF, CAP_PERFMON };
	unsigned int n = 2;

	if (keep_kill)
		keep[n++] = CAP_KILL;
	keep_only(keep, n);
}

void privs_drop_to_proc_reader(void)
{
	/*
	 * /proc/PID/fd of another user's process (mode 0500) takes
	 * CAP_DAC_READ_SEARCH to open, and the kernel's ptrace check
	 * CAP_SYS_PTRACE: read-only use, and nothing else is held.
	 */
	static const cap_value_t keep[] = { CAP_SYS_PTRACE,
					    CAP_DAC_READ_SEARCH };

	keep_only(keep, 2);
}

/*
 * Open (or create) @path for writing, no symlink in any component.
 * O_NONBLOCK: a FIFO planted there fails with ENXIO instead of hanging
 * until a reader comes. Sets *@created; an fd or -errno.
 */
static int open_output(const char *path, bool *created)
{
	const int flags = O_WRONLY | O_CLOEXEC | O_NONBLOCK;
	int fd;

	*created = true;
	fd = open_no_links(path, flags | O_CREAT | O_EXCL, 0644);
	if (fd == -EEXIST) {
		*created = false;
		/* not emptied here: only once there is something to write */
		fd = open_no_links(path, flags, 0);
	}
	return fd;
}

/*
 * As the sudo user, in a child that is that user and nothing more (its
 * groups, no capability), so the kernel checks the user's rights on
 * every directory and file of @path: a user allowed only "sudo tdbpf"
 * gets no file where they could not make one. The fd, or -errno, comes
 * back over a socket pair. @groups are looked up before the fork.
 */
static int open_as(const char *path, uid_t uid, gid_t gid,
		   const gid_t *groups, int ngroups, bool *created)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int sv[2], fd = -EIO, st;
	pid_t pid;

	memset(cbuf, 0, sizeof(cbuf));
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		fd = -errno;
		goto out;
	}
	if (pid == 0) {
		if (setgroups((size_t)ngroups, groups) ||
		    setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
			_exit(EPERM);
		fd = open_output(path, created);
		if (fd < 0)
			_exit(-fd);
		byte = *created;
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
		_exit(sendmsg(sv[1], &m, 0) == 1 ? 0 : EIO);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fd = WIFEXITED(st) ? -WEXITSTATUS(st) : -EIO;
		goto out;
	}
	if (recvmsg(sv[0], &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1 ||
	    !(c = CMSG_FIRSTHDR(&m)) || c->cmsg_type != SCM_RIGHTS)
		goto out;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	*created = byte;
out:
	close(sv[0]);
	close(sv[1]);
	return fd;
}

bool privs_output_uid(uid_t *uid)
{
	gid_t gid;

	return sudo_ids(uid, &gid) == 0;
}

int privs_create_output(const char *path, bool *made)
{
	gid_t groups[256];
	int ngroups = 256, fd;
	bool created = false;
	struct passwd *pw;
	uid_t uid;
	gid_t gid;

	if (sudo_ids(&uid, &gid) == 0) {
		pw = getpwuid(uid);
		if (!pw || getgrouplist(pw->pw_name, gid, groups, &ngroups) < 0)
			ngroups = 0;	/* their primary group alone */
		fd = open_as(path, uid, gid, groups, ngroups, &created);
	} else {
		fd = open_output(path, &created);
	}
	if (fd < 0)
		return fd;
	if (fcntl(fd, F_SETFL, 0) < 0) {
		close(fd);
		return -EIO;
	}
	if (made)
		*made = created;
	return fd;
}
