// SPDX-License-Identifier: GPL-2.0
/*
 * `-- COMMAND` (launch.h). The child waits on a pipe until the tracer
 * is attached, so its first instruction is traced; it reports a failed
 * privilege drop or exec through a second, close-on-exec pipe, which
 * reads empty once exec succeeded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "sources/launch.h"
#include "support/limits.h"
#include "support/privs.h"
#include "support/readfile.h"
#include "support/error.h"

/* How often, and how many times, launch_stop() checks for the exit. */
#define STOP_POLL_US	20000
#define STOP_POLLS	50

int launch_fork(struct launch *c, char *const *argv, const sigset_t *mask,
		char *err, size_t len)
{
	pid_t pid, self = getpid();
	int go[2], ep[2];

	memset(c, 0, sizeof(*c));
	c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		error_set(err, len, "cannot create a pipe: %s; raise the open-files limit (ulimit -n)",
			 strerror(errno));
		return -1;
	}
	/*
	 * The command's own children that outlive it come to us, not to
	 * init, so that the end of the run ends them too (end_orphans()).
	 */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	pid = fork();
	if (pid < 0) {
		error_set(err, len, "cannot fork the command: %s; check the process limit (ulimit -u)",
			 strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char ch;
		int e;

		close(go[1]);
		close(ep[0]);
		/* ignored stays ignored across exec: not the command's */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		if (mask)
			sigprocmask(SIG_SETMASK, mask, NULL);
		/* the command gets the user's limits, not those raised for us */
		limits_restore();
		if (read(go[0], &ch, 1) != 1)
			_exit(126);	/* the tracer gave up */
		if (privs_drop_to_invoking_user(err, len)) {
			e = -1;
			if (write(ep[1], &e, sizeof(e)) < 0)
				_exit(126);
			if (write(ep[1], err, strlen(err) + 1) < 0)
				_exit(126);
			_exit(126);
		}
		/*
		 * Killed with tdbpf, however it ends (kill -9 included).
		 * Set after the drop: a change of uid clears it; an exec of
		 * a set-uid program clears it too (docs/usage.md). Our
		 * parent may be gone already: then nobody would send it.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) ||
		    getppid() != self)
			_exit(126);
		execvp(argv[0], argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->err_fd = ep[0];
	return 0;
}

int launch_release(struct launch *c, char *const *argv, char *err,
		   size_t len)
{
	char msg[256];
	ssize_t n;
	int e;

	if (write(c->go_fd, "g", 1) != 1) {
		error_set(err, len, "cannot start the command: %s",
			 strerror(errno));
		return -1;
	}
	close(c->go_fd);
	c->go_fd = -1;
	n = read(c->err_fd, &e, sizeof(e));
	if (n == sizeof(e)) {
		if (e == -1) {
			n = read(c->err_fd, msg, sizeof(msg) - 1);
			msg[n > 0 ? n : 0] = 0;
			error_set(err, len, "%s", msg);
		} else {
			error_set(err, len,
				 "cannot run '%s': %s; check the command name and PATH",
				 argv[0], strerror(e));
		}
		waitpid(c->pid, NULL, 0);
		c->exited = true;
		return -1;
	}
	close(c->err_fd);
	c->err_fd = -1;
	return 0;
}

void launch_abort(struct launch *c)
{
	if (c->pid <= 0 || c->exited)
		return;
	close(c->go_fd);	/* the child exits without exec */
	c->go_fd = -1;
	waitpid(c->pid, NULL, 0);
	c->exited = true;
}

bool launch_reap(struct launch *c)
{
	if (c->pid > 0 && !c->exited &&
	    waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->exited = true;
	return c->exited;
}

/* Send @sig to every child of ours (/proc: ppid); how many there were. */
static int signal_children(int sig)
{
	char path[300], buf[512], *p;
	DIR *d = opendir("/proc");
	int me = (int)getpid(), ppid, n = 0;
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (read_head(path, buf, sizeof(buf)) <= 0)
			continue;
		/* "pid (comm) S ppid ...": comm may hold anything but ')' last */
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1 || ppid != me)
			continue;
		kill(atoi(e->d_name), sig);
		n++;
	}
	closedir(d);
	return n;
}

/*
 * The command's descendants that outlived it were handed to us (the
 * subreaper): they end with the run as the command does, SIGTERM first,
 * then SIGKILL; each round reaps them, and their own orphans come next.
 */
static void end_orphans(void)
{
	int i;

	for (i = 0; i < STOP_POLLS; i++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!signal_children(i < STOP_POLLS / 2 ? SIGTERM : SIGKILL))
			return;
		usleep(STOP_POLL_US);
	}
}

void launch_stop(struct launch *c)
{
	int i;

	if (c->pid <= 0)
		return;
	if (c->exited)
		goto out;
	kill(c->pid, SIGTERM);
	for (i = 0; i < STOP_POLLS; i++) {
		if (launch_reap(c))
			goto out;
		usleep(STOP_POLL_US);
	}
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &c->status, 0);
	c->exited = true;
out:
	end_orphans();
}
