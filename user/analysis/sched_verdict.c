// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduling verdict (sched_verdict.h): one judge for a task's row in
 * a report and for a node of the wait-for graph, from the same three sums.
 */
#include "analysis/sched_verdict.h"

/*
 * Scheduling comes before the pipeline: a task's counters say how it used
 * the CPU, not whether it had one. Shares are of the task's own life in
 * the window, life = on-CPU + run-queue wait + off-CPU (a task created or
 * exited inside the window is judged on the time it existed, so the
 * window is not the denominator). In this order:
 *
 *  IDLE     on-CPU == 0 and run-queue == 0: never ran nor asked to run.
 *  STARVED  run-queue > on-CPU and run-queue >= 25% of life: whenever it
 *           has work, it waits longer for a CPU than it computes, and the
 *           waiting is a real part of its life (a mostly sleeping task
 *           whose few wakeups waited is not starved).
 *  BLOCKED  off-CPU >= 50% of life: it mostly sleeps (waiting on a queue,
 *           a lock, I/O); its counters describe the minority of its time.
 *  NONE     otherwise: it mostly runs; judge its pipeline.
 *
 * STARVED and BLOCKED need at least SCHED_MIN_LIFE_NS of observed life: a
 * task seen for a few microseconds (one wakeup, one short slice) gives no
 * share worth a verdict. Sleeps that began before attach are not seen.
 *
 * Boundaries are inclusive and exact (integer arithmetic, 128-bit so sums
 * over thousands of folded tasks cannot overflow).
 */
#define SCHED_MIN_LIFE_NS 1000000ULL

enum sched_verdict sched_judge(__u64 on_cpu_ns, __u64 runq_ns,
			       __u64 off_cpu_ns)
{
	unsigned __int128 on = on_cpu_ns, rq = runq_ns, off = off_cpu_ns;
	unsigned __int128 life = on + rq + off;

	if (!on && !rq)
		return SCHED_IDLE;
	if (life < SCHED_MIN_LIFE_NS)
		return SCHED_NONE;
	if (rq > on && rq * 4 >= life)
		return SCHED_STARVED;
	if (off * 2 >= life)
		return SCHED_BLOCKED;
	return SCHED_NONE;
}

const char *sched_verdict_str(enum sched_verdict v)
{
	switch (v) {
	case SCHED_STARVED:
		return "CPU-starved";
	case SCHED_BLOCKED:
		return "blocked";
	case SCHED_IDLE:
		return "idle";
	case SCHED_NONE:
	default:
		return "-";
	}
}
