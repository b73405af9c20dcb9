/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `-- COMMAND`: fork it stopped before exec, so the tracer attaches
 * first; release it to exec as the invoking user (privs.c); stop it
 * when tdbpf stops first.
 */
#ifndef TDBPF_LAUNCH_H
#define TDBPF_LAUNCH_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct launch {
	pid_t pid;		/* 0 before launch_fork() */
	bool exited;		/* reaped */
	int status;		/* waitpid status once reaped */
	int go_fd, err_fd;	/* the start pipe, the exec-error pipe */
};

/*
 * Fork @argv[0] waiting for launch_release(). It execs with signal mask
 * @mask (NULL: tdbpf's own). 0, or -1 with @err.
 */
int launch_fork(struct launch *c, char *const *argv, const sigset_t *mask,
		char *err, size_t len);
/*
 * Let it drop privileges and exec. 0 once exec succeeded, or -1 with
 * @err (exec or the privilege drop failed; the child is reaped).
 */
int launch_release(struct launch *c, char *const *argv, char *err,
		   size_t len);
/* Tracing could not start: the child exits without exec; reap it. */
void launch_abort(struct launch *c);
/* Reap it if it has exited (WNOHANG); true once it has. */
bool launch_reap(struct launch *c);
/*
 * SIGTERM, then SIGKILL after 1 s; reap. Then the same for its descendants
 * that outlived it (reparented to tdbpf, the subreaper).
 */
void launch_stop(struct launch *c);

#endif /* TDBPF_LAUNCH_H */
