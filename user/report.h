/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One report: the task table sorted and cut, each task decoded (scaled
 * counters, TMA tree, scheduling verdict) when a writer reaches it, and
 * the writers that print it as a table, CSV or JSON. Data flows one way:
 * tasks -> report_build() -> report_write_*() -> report_decode_task().
 */
#ifndef TDBPF_REPORT_H
#define TDBPF_REPORT_H

#include <stdio.h>
#include "model.h"
#include "snapshot.h"
#include "tasks.h"
#include "tma.h"

enum sched_verdict {
	SCHED_NONE,		/* ran enough to judge its pipeline */
	SCHED_STARVED,		/* mostly waiting in the run queue */
	SCHED_BLOCKED,		/* mostly off CPU (sleeping, blocked on I/O) */
	SCHED_IDLE,		/* did not run in the window */
};

enum sort_key {
	SORT_CPU,		/* on-CPU time, descending (default) */
	SORT_RUNQ,
	SORT_OFFCPU,
	SORT_TID,
	SORT_COMM,
	SORT_SWITCHES,
	SORT_NR,
	SORT_NONE,		/* keep the table's order (replay: as recorded) */
};

struct task_decoded {
	const struct task_row *row;
	double ev[TDBPF_MAX_EVENTS];	/* scaled count per plan slot */
	double coverage;		/* min running/enabled over groups */
	bool low_coverage;		/* coverage below REPORT_MIN_COVERAGE */
	double on_cpu_pct;		/* of the window */
	enum sched_verdict sched;
	bool has_tma;
	struct tma_result tma;
	char bottleneck[160];		/* the verdict, as JSON prints it */
	/*
	 * Where the table inserts its " <==" bottleneck marker (after a TMA
	 * path, before a low-coverage note), -1 when the verdict is not a
	 * TMA path.
	 */
	int mark_at;
};

/* A row is flagged when its groups ran for less than this share. */
#define REPORT_MIN_COVERAGE	0.05

struct report {
	const struct event_plan *plan;
	int level;
	__u64 duration_ns;	/* window this report covers */
	int interval;		/* -1 final report, else interval number */
	struct lost_stats lost;	/* cumulative, from the run's start */
	int nr;
	/*
	 * Sorted, --top applied. Rows only: a decoded task is ~1.4 KiB, and
	 * decoding 10,000 of them up front cost more than writing them.
	 */
	const struct task_row **rows;
	int nr_total;			/* tasks before --top */
};

/* Scale one counter slot: sum(value) * sum(enabled) / sum(running). */
double scale_count(const struct tdbpf_count *c);
/*
 * The enabled and running times of plan slot @slot of @row: its group
 * leader's, as members are scheduled with their leader.
 */
const struct tdbpf_count *slot_times(const struct event_plan *plan,
				     const struct task_row *row, int slot);
enum sched_verdict sched_judge(const struct task_row *r, __u64 window_ns);
const char *sched_verdict_str(enum sched_verdict v);

/*
 * Sort and cut @t into @rep (allocates rep->rows; free with report_free).
 * The rows point into @t, which must outlive @rep.
 */
int report_build(struct report *rep, const struct task_table *t,
		 const struct event_plan *plan, int level, __u64 duration_ns,
		 enum sort_key sort, int top);
/* Decode rep->rows[@i] into @d (writers reuse one @d for every task). */
void report_decode_task(const struct report *rep, int i,
			struct task_decoded *d);
/*
 * The plan slots of the instructions and cycles events IPC divides, -1
 * where not programmed: one place for every view that shows IPC.
 */
void report_ipc_slots(const struct event_plan *p, int *inst, int *clk);
void report_free(struct report *rep);

void report_write_table(FILE *f, const struct report *rep);
/* perf stat -x conventions: one line per task and counter/metric. */
void report_write_csv(FILE *f, const struct report *rep, const char *sep);
/* @line: one JSON object on one line (interval mode); else pretty. */
void report_write_json(FILE *f, const struct report *rep, bool line);

#endif /* TDBPF_REPORT_H */
