// SPDX-License-Identifier: GPL-2.0
/*
 * `-- COMMAND` (launch.h). The child waits on a pipe until the tracer
 * is attached, so its first instruction is traced; it reports a failed
 * privilege drop or exec through a second, close-on-exec pipe, which
 * reads empty once exec succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "sources/launch.h"
#include "support/limits.h"
#include "support/privs.h"

/* How often, and how many times, launch_stop() checks for the exit. */
#define STOP_POLL_US	20000
#define STOP_POLLS	50

int launch_fork(struct launch *c, char *const *argv, const sigset_t *mask,
		char *err, size_t len)
{
	int go[2], ep[2];
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		snprintf(err, len, "cannot create a pipe: %s; raise the open-files limit (ulimit -n)",
			 strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, len, "cannot fork the command: %s; check the process limit (ulimit -u)",
			 strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char ch;
		int e;

		close(go[1]);
		close(ep[0]);
		/* ignored signals stay ignored across exec: not the command's */
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
		snprintf(err, len, "cannot start the command: %s",
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
			snprintf(err, len, "%s", msg);
		} else {
			snprintf(err, len,
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

void launch_stop(struct launch *c)
{
	int i;

	if (c->pid <= 0 || c->exited)
		return;
	kill(c->pid, SIGTERM);
	for (i = 0; i < STOP_POLLS; i++) {
		if (launch_reap(c))
			return;
		usleep(STOP_POLL_US);
	}
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &c->status, 0);
	c->exited = true;
}
