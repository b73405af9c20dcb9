/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sampled waits as shares of exact totals. The default graph sees only
 * the wakeups of its windows (a tenth of the time); the scheduler sums
 * every task's blocked time, run-queue time and voluntary switches
 * exactly. So a task's estimated waits are its blocked time split
 * among its wakers in the proportions the windows saw (its holds: its
 * run-queue time among the holders seen; its wakeups: its voluntary
 * switches among the wakers seen), never more than the whole.
 *
 * Per task and waker the estimate only grows: each collect splits what
 * is new since the last split by what the windows saw new since then,
 * and adds it (a scrape's, with no window since, waits for one). New blocked time that no window's wakeup ended stays
 * unsplit (unseen). So an interval's estimate is the difference of two
 * and never more than its own time, and a Prometheus counter made of
 * them never goes down but where the blocked time itself does: a task
 * off the CPU has its blocked time taken to now, and the part it then
 * spent runnable goes back to the run queue at its switch-in; the
 * estimates shown shrink with it, so that they never pass it.
 */
#ifndef TDBPF_WAIT_SHARE_H
#define TDBPF_WAIT_SHARE_H

#include "sums/tasks.h"

struct wait_share {
	/*
	 * Estimates so far; sched: what was split (off_cpu_ns the ended
	 * waits', nvcsw, runq_wait_ns), open_wait_ns the blocked time at
	 * the last split
	 */
	struct task_table est;
	__u64 wakeups_seen;	/* in windows, all tasks, at the last apply */
	__u64 window_ns;	/* window time at the last split */
};

void wait_share_init(struct wait_share *s);
void wait_share_free(struct wait_share *s);
/*
 * Replace the waits seen of every row of @t (cumulative sums of one
 * tracer) with the estimates; the counts of holds, which no exact sum
 * bounds, times @scale (the windows' share of the time, inverted).
 * @window_ns is the sampler's window time so far. With @defer (a
 * scrape's collect, which no report interval ends), while it stays
 * where it was at the last split nothing new is split (no sample to
 * split by) and the estimates so far are shown; a report's collect
 * splits at every apply.
 * 0 or -ENOMEM (rows from the failing one on are left as seen).
 */
int wait_share_apply(struct wait_share *s, struct task_table *t,
		     __u64 scale, __u64 window_ns, bool defer);

#endif /* TDBPF_WAIT_SHARE_H */
