/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a tracing run (run.c) and tdbpf top (top.c) share, set up in one
 * sequence: the event loop and the stop signals, the /metrics socket
 * (--listen, bound while privileged), the launched command (stopped
 * before exec), the tracer, the recording, the base every report
 * subtracts, the privileges dropped, the command released, and the
 * loop's common sources (the targets, the tracer's drain, -d, -I). One
 * exit path: session_close() undoes whatever session_open() got to.
 *
 * A driver then adds its own sources (run: the /metrics server; top: the
 * terminal), runs the loop, and writes its report from the session's
 * snapshots before session_close().
 */
#ifndef TDBPF_SESSION_H
#define TDBPF_SESSION_H

#include <linux/types.h>
#include "commands/options.h"
#include "model/model.h"
#include "outputs/record.h"
#include "sources/cgroup_members.h"
#include "sources/launch.h"
#include "sources/peer_reader.h"
#include "sources/targets.h"
#include "sources/thread_names.h"
#include "sums/snapshot.h"
#include "support/loop.h"

struct prom_server;
struct tracer;

struct session_conf {
	/*
	 * Every terminating signal (loop_add_stop_signals()), and SIGWINCH
	 * with @winch; NULL: stop
	 */
	loop_signal_fn on_signal;
	loop_timer_fn on_interval;	/* every -I, when given */
	void *arg;			/* theirs */
	bool winch;			/* top: the terminal's size changes */
	bool quiet_child;		/* top: the command's stdio on /dev/null */
	bool wakeups;			/* the graph (unless --no-wakeups) */
};

struct session {
	const struct options *o;
	const struct event_plan *plan;
	struct loop *loop;
	struct prom_server *prom;	/* --listen: bound, not yet serving */
	struct launch child;		/* -- COMMAND */
	bool released;			/* the command was let exec */
	struct tracer *tracer;
	struct peer_reader peers;	/* the sockets' /proc reads */
	struct record rec;		/* --record FILE */
	struct targets targets;
	struct thread_names names;	/* a JVM's threads' whole names */
	struct snapshot cur;		/* the last collect */
	struct snapshot prev;		/* at the previous interval */
	struct snapshot base;		/* charged before the start */
	__u64 start_ns;			/* the run starts: -d and -I count */
	bool targets_gone;		/* the tick found no target left */
	struct cgroup_members cg;	/* -G: its processes, read each tick */
};

/*
 * Set up @s for @o, tracing @plan. 0, or the exit status (1: this machine
 * or the run failed; 2: what the command line asks cannot be done) after
 * one error line. session_close() either way.
 */
int session_open(struct session *s, const struct options *o,
		 const struct event_plan *plan, const struct session_conf *c);
/* Everything session_open() set up, in reverse; @s may be half open. */
void session_close(struct session *s);

#endif /* TDBPF_SESSION_H */
