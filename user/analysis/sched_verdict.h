/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduling verdict: how a task (or a folded name, or a node of the
 * wait-for graph) spent its life in the window, from its scheduling sums
 * alone. The report's BOTTLENECK column and the graph's roles both ask
 * it, so a task is never starved in one and running in the other.
 */
#ifndef TDBPF_SCHED_VERDICT_H
#define TDBPF_SCHED_VERDICT_H

#include <linux/types.h>

/*
 * <sched.h> (under <pthread.h>) defines a SCHED_IDLE macro: include this
 * header before it.
 */
enum sched_verdict {
	SCHED_NONE,		/* ran enough to judge its pipeline */
	SCHED_STARVED,		/* mostly waiting in the run queue */
	SCHED_BLOCKED,		/* mostly off CPU (sleeping, blocked on I/O) */
	SCHED_IDLE,		/* did not run in the window */
};

/*
 * Judge on-CPU time, run-queue wait and off-CPU time (ns), the task's
 * whole life in the window (see sched_verdict.c for the rules).
 */
enum sched_verdict sched_judge(__u64 on_cpu_ns, __u64 runq_ns,
			       __u64 off_cpu_ns);
/* "CPU-starved", "blocked", "idle", or "-" for SCHED_NONE. */
const char *sched_verdict_str(enum sched_verdict v);

#endif /* TDBPF_SCHED_VERDICT_H */
