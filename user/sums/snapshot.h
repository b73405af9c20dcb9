/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one collect yields: every task's sums so far, and what was lost.
 * It is the unit that flows from the tracer (or, for replay, from a
 * recording) to the report: tracer_collect() fills one, the run driver
 * subtracts a base or the previous one (interval deltas), and
 * sink_emit() turns it into a report.
 *
 * The wakeup graph's edges are in the task rows (each task's waker
 * slots, struct tdbpf_wait): diffed with them, and turned into the
 * graph and its verdict in sink_emit(), before the sinks.
 */
#ifndef TDBPF_SNAPSHOT_H
#define TDBPF_SNAPSHOT_H

#include <stddef.h>
#include <linux/types.h>
#include "sums/cgroups.h"
#include "sums/flows.h"
#include "sums/spans.h"
#include "sums/tasks.h"

/* The BPF side's loss counters (enum tdbpf_stat), summed over CPUs. */
struct lost_stats {
	__u64 map_full;		/* a task could not be given sums */
	__u64 read_errors;	/* failed counter reads at a switch */
	__u64 unseen_switch_ins; /* slices charged whose switch-in was unseen */
	__u64 wakers;		/* waits charged to a task's last waker slot */
	__u64 wakeups_missed;	/* waking program runs the kernel skipped */
	__u64 sock_unresolved;	/* socket wakes whose peer was not told */
	__u64 sock_evicted;	/* flows pushed out of the socket registry */
	/*
	 * --span: span sums that found no room (their time stayed their
	 * thread's), exits that matched no open span, enters deeper than
	 * the stack (charged to the deepest kept)
	 */
	__u64 spans_lost;
	__u64 span_exits_unmatched;
	__u64 spans_too_deep;
	/*
	 * sampled: the waits were seen in windows, which are this share
	 * of the time, inverted (10); 0: every wakeup was seen.
	 * @sampled_ns: the windows' time so far.
	 */
	__u64 wake_scale;
	__u64 sampled_ns;
	/*
	 * sampled: the wakeups the windows saw (the sample's size), whose
	 * proportions split each task's exact blocked time (wait_share.h)
	 */
	__u64 sampled_wakeups;
};

/*
 * The loss counters a report names under "lost", in its order: what the
 * JSON writer writes and a replay reads back, from one list.
 */
struct lost_key {
	const char *name;
	size_t off;		/* of its __u64 in struct lost_stats */
};
extern const struct lost_key lost_keys[];
extern const size_t nr_lost_keys;

static inline __u64 *lost_field(struct lost_stats *l, size_t i)
{
	return (__u64 *)((char *)l + lost_keys[i].off);
}

static inline __u64 lost_value(const struct lost_stats *l, size_t i)
{
	return *(const __u64 *)((const char *)l + lost_keys[i].off);
}

struct snapshot {
	struct task_table tasks;	/* one row per task, raw sums */
	/*
	 * Cumulative since the tracer opened: snapshot_diff() keeps the
	 * newer snapshot's, so every report says how much was lost in the
	 * whole run so far.
	 */
	struct lost_stats lost;
	__u64 at_ns;			/* CLOCK_MONOTONIC when read */
	/*
	 * State when read, never subtracted: the host's name (what
	 * `tdbpf graph` calls it), the wall clock (the window's end, for
	 * telling reports of other windows apart) and, with wakeups, the
	 * traced processes' sockets (flow halves, sums/flows.h).
	 */
	char host[65];
	__u64 wall_ns;			/* CLOCK_REALTIME when read; 0: none */
	struct flow_table flows;
	/* the rows' processes' cgroups and containers (sums/cgroups.h) */
	struct cgroup_table cgroups;
	/* --span: sums by (thread, span), subtracted like the tasks' */
	struct span_table spans;
};

/* Empty, rows holding @nr_ev counters (the plan's, not TDBPF_MAX_EVENTS). */
void snapshot_init(struct snapshot *s, int nr_ev);
void snapshot_reset(struct snapshot *s);
void snapshot_free(struct snapshot *s);
/* @dst = @src (rows by tid, the lost counters, the time). */
int snapshot_copy(struct snapshot *dst, const struct snapshot *src);
/*
 * @out = @cur minus @base, task by task (tasks_diff(): rows with nothing
 * new are left out); the lost counters and time are @cur's.
 */
int snapshot_diff(const struct snapshot *cur, const struct snapshot *base,
		  struct snapshot *out);
/* snapshot_diff() into @cur itself (tasks_sub()), when it is not kept */
int snapshot_sub(struct snapshot *cur, const struct snapshot *base);

#endif /* TDBPF_SNAPSHOT_H */
