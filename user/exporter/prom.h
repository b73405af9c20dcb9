/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /metrics exposition: per-task sums folded into a bounded set of
 * Prometheus series whose counters never go backwards, and the text
 * (Prometheus 0.0.4 and OpenMetrics 1.0) that a scrape returns.
 *
 * Data flows one way: a collected task table -> prom_update() (deltas
 * since the previous scrape, per series) -> prom_write() (exposition).
 */
#ifndef TDBPF_PROM_H
#define TDBPF_PROM_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "model/model.h"
#include "exporter/listen_opts.h"
#include "sums/cgroups.h"
#include "sums/flows.h"
#include "sums/spans.h"
#include "sums/tasks.h"
#include "support/hash.h"

#define PROM_MAX_PROGS		8

/* What the exposition says about tdbpf itself, filled by the caller. */
struct prom_health {
	__u64 lost_map_full;
	__u64 lost_read_errors;
	__u64 unseen_switch_ins;
	__u64 tasks_live;		/* rows held: alive */
	__u64 tasks_exited;		/* rows held: exited, kept for the report */
	__u64 collect_ns;		/* this scrape's collect (flush, read) */
	double start_time;		/* Unix time the run started */
	int nr_progs;			/* 0 when kernel.bpf_stats_enabled is 0 */
	/* with wakeups: the traced processes' sockets at this scrape */
	const struct flow_table *flows;
	const struct cgroup_table *cgroups;	/* the tasks' containers */
	/* --span: every (thread, span)'s sums at this scrape (else empty) */
	const struct span_table *spans;
	struct {
		const char *name;
		__u64 run_ns;
		__u64 run_cnt;
	} progs[PROM_MAX_PROGS];
};

/*
 * The thread label's bytes at most: a whole name (a JVM's) is cut there,
 * so that a series' labels stay bounded as its count is (by folding).
 */
#define PROM_THREAD_LEN	64

/* One label set and what its tasks have done since the run started. */
struct prom_series {
	char comm[TDBPF_COMM_LEN + 1];	/* the process's name */
	char thread[PROM_THREAD_LEN];	/* folded unless tid labels */
	__u32 pid, tid;			/* 0 unless those labels are on */
	char container[CGROUP_ID_LEN];	/* "" outside a container */
	char pod[CGROUP_POD_LEN];	/* "" outside a pod */
	char *labels;			/* escaped: comm="..",thread=".." */
	int idle;			/* updates without a live task */
	bool live;			/* a live task maps here now */
	bool changed;			/* delta[] holds something */
	__u64 threads;			/* live tasks at the last update */
	__u64 exited;			/* tasks seen exiting */
	/* the tasks' sums, by sched_add() (window_gap_ns is not served) */
	struct tdbpf_sched sched;
	struct tdbpf_count *raw;	/* plan->nr: cumulative raw sums */
	struct tdbpf_count *delta;	/* plan->nr: since the last update */
	double *scaled;			/* plan->nr: sum of scaled deltas */
	double *tma;			/* model nodes: fraction x slots */
	double slots;			/* the weight of tma[] */
};

/*
 * One wait series: blocked time of a task series (its labels) ended by
 * one waker, a task series (waker_comm, waker_thread) or a kind of
 * waker that is no task (waker_comm "", waker_thread "timer", ...).
 */
struct prom_wait {
	char *labels;			/* escaped, wakee's and waker's */
	__u64 wait_ns, wakeups;
	bool holds;			/* run-queue time: the CPU's holder */
};

/*
 * One span series (--span): a span's sums in the tasks of one task
 * series, labelled by that series' labels and span="NAME".
 */
struct prom_span {
	char *labels;			/* escaped: comm="..",...,span=".." */
	__u64 entries, on_cpu_ns, runq_wait_ns, blocked_ns;
	__u64 woke, woke_ns;		/* the waits it ended (the graph) */
};

/*
 * Series found by the text of their labels, in the order they came: the
 * waits' and the spans' (prom_lset.c). Each entry is a struct whose
 * first member is its char *labels.
 */
struct prom_lset {
	void **v;
	int nr;
	struct hash_index index;	/* labels -> v slot + 1 */
};

/* Process @tgid's name into @buf (@len bytes; "" if unknown). */
typedef void (*prom_name_fn)(__u32 tgid, char *buf, size_t len);

struct prom_state {
	const struct event_plan *plan;
	unsigned int labels;		/* enum listen_labels bits */
	int max_series;			/* label sets, `other` not counted */
	/*
	 * The name of process @tgid when no row of the table says it (its
	 * main thread untraced): a reader of the host's, from sources/
	 * (NULL: unnamed). The /metrics output reads no /proc itself.
	 */
	prom_name_fn process_name;

	struct prom_series **series;	/* NULL where a series ended */
	int nr_series;			/* slots used, ended ones included */
	int nr_live_series;		/* not ended, `other` not counted */
	struct prom_series *other;	/* tasks beyond max_series */
	__u64 overflow_tasks;		/* tasks in `other` at the last update */
	struct hash_index index;	/* labels -> series slot + 1 */

	struct task_table last;		/* per tid: the sums already counted */
	struct task_table next;
	struct pcomm_map *pcomm;	/* tgid -> process name */

	/*
	 * With wakeups: wait and hold series, at most max_series of them
	 * (the rest summed in wait_other and hold_other), and per tid the
	 * waker slots counted.
	 */
	struct prom_lset waits;		/* of struct prom_wait */
	struct prom_wait *wait_other, *hold_other;
	struct task_table wait_last, wait_next;
	/*
	 * The scrape's sockets, set before prom_update(): a wait on a
	 * remote endpoint is labelled with it as the wakee's socket sees
	 * it, its port folded as tdbpf_socket_flows folds it.
	 */
	const struct flow_table *flows;
	/*
	 * The scrape's processes' cgroups, set before prom_update(): a task
	 * in a container or pod has its id among its labels.
	 */
	const struct cgroup_table *cgroups;

	/*
	 * --span: the scrape's span sums, set before prom_update() (NULL or
	 * empty without --span: no span series), their rows by tid for the
	 * update, and a series per task series and span name, at most
	 * max_series (the rest summed in span_other), counted per (tid,
	 * span) as the tasks' sums are.
	 */
	const struct span_table *span_cur;
	const struct span_row **span_by_tid;
	struct prom_lset spans;		/* of struct prom_span */
	struct prom_span *span_other;
	struct span_table span_last;

	int slots_slot;			/* plan slot weighting TMA nodes, -1 */
	int slots_per_unit;		/* 1 (a slots event) or per cycle */
	int clk_slot;
};

/* @labels, @max_series as the options say; 0 or -ENOMEM. */
int prom_init(struct prom_state *st, const struct event_plan *plan,
	      unsigned int labels, int max_series);
void prom_free(struct prom_state *st);

/*
 * Count what @cur (per-tid cumulative sums, as a collect returns them:
 * live tasks and exited ones) adds since the previous update. A tid's
 * increase goes to the series of its current labels, so every series only
 * grows: an exited task's last slice, a renamed thread, a tid the source
 * no longer holds all leave the counted sums in place. Rows folded by
 * archive_fold() are skipped: their tasks were counted before.
 */
int prom_update(struct prom_state *st, const struct task_table *cur);

/*
 * The exposition of every series and of @h. @openmetrics: OpenMetrics
 * 1.0 text (family names without _total, UNIT lines, "# EOF"); else the
 * Prometheus text format 0.0.4. Returns 0 or -EIO.
 */
int prom_write(const struct prom_state *st, const struct prom_health *h,
	       bool openmetrics, FILE *f);

/*
 * @s as a label value (escaped, valid UTF-8) at @dst, which needs 3
 * bytes per byte of @s plus one; returns the end.
 */
char *prom_esc_label(char *dst, const char *s);

/* Content-Type of prom_write()'s output. */
const char *prom_content_type(bool openmetrics);
/* Does an Accept header ask for OpenMetrics? */
bool prom_wants_openmetrics(const char *accept);

#endif /* TDBPF_PROM_H */
