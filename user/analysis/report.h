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
#include "analysis/sched_verdict.h"
#include "model/model.h"
#include "analysis/scale.h"
#include "model/tma.h"
#include "sums/snapshot.h"
#include "sums/tasks.h"

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

struct graph;

/* The graph verdict's candidates, best first, with why (graph_reason()). */
#define REPORT_MAX_VERDICTS	4
struct graph_verdict {
	int node;			/* in rep->graph */
	/*
	 * --span, no task waits on another: the node is the busiest task
	 * with spans, named for its operator, not for waits that lead to it
	 */
	bool alone;
	char reason[512];
};

/* A row is flagged when its groups ran for less than this share. */
#define REPORT_MIN_COVERAGE	0.05

struct report {
	const struct event_plan *plan;
	int level;
	__u64 duration_ns;	/* window this report covers */
	int interval;		/* -1 final report, else interval number */
	__u64 elapsed_ns;	/* the window's end, from the run's start */
	struct lost_stats lost;	/* cumulative, from the run's start */
	int nr;
	/*
	 * Sorted, --top applied. Rows only: a decoded task is ~1.4 KiB, and
	 * decoding 10,000 of them up front cost more than writing them.
	 */
	const struct task_row **rows;
	/* the table the rows point into (their waker slots) */
	const struct task_table *tasks;
	int nr_total;			/* tasks before --top */
	int nr_procs;			/* processes those tasks are of */
	/* the wait-for graph (wakeups traced), NULL without */
	const struct graph *graph;
	struct graph_verdict verdict[REPORT_MAX_VERDICTS];
	int nr_verdict;
	/* the snapshot's state (snapshot.h): "" / 0 / NULL when unknown */
	const char *host;
	__u64 wall_ns;
	const struct flow_table *flows;
	/* the rows' processes' cgroups (by pid), NULL when unknown */
	const struct cgroup_table *cgroups;
	/* --span: rows under their threads' (folded with them), or NULL */
	const struct span_table *spans;
};


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
/* Decode any row of the report's table (not only rep->rows[]). */
void report_decode_row(const struct report *rep, const struct task_row *row,
		       struct task_decoded *d);
/*
 * Attach graph @g (built over the same tasks as @t, the report's table)
 * and word its candidates' verdicts, with their TMA paths.
 */
void report_set_graph(struct report *rep, const struct graph *g,
		      const struct task_table *t);

/* Room for the bottleneck line: a tie names REPORT_MAX_VERDICTS. */
#define REPORT_VERDICT_LINE	(REPORT_MAX_VERDICTS * 640)

/*
 * The graph's verdict in one line, as the table and tdbpf top print it:
 * "bottleneck: enrich (tid 12): runs (...); 3 tasks' waits lead to it
 * (81% of their blocked time)", or, when the first candidates are tied
 * (graph.h: GRAPH_TIE), "bottleneck: a tie: enrich (tid 12) 41% and agg
 * (tid 13) 38% of the blocked time lead to each; enrich: ...; agg: ...".
 */
void report_verdict_line(const struct report *rep, char *buf, size_t len);
/*
 * --span: the span that holds the largest share of graph node @node's
 * time of the kind its verdict is about, and that *@share of it; NULL:
 * none. The kind: on-CPU time for a node that runs or is CPU-starved,
 * blocked time for one that waits (report_span_blocked()).
 */
const struct span_row *report_top_span(const struct report *rep, int node,
				       double *share);
bool report_span_blocked(const struct report *rep, int node);
/*
 * The span of @node's threads that ended the most waits (--span with the
 * graph), with its shares: of the waits its node's spans ended, and of
 * all the node ended (NAN when sampled; @rough: the same, sampled too,
 * where the estimates' cut makes it a bound); NULL when none did.
 */
struct waker_share {
	double of_spans, of_all, rough;
};
const struct span_row *report_waker_span(const struct report *rep, int node,
					 struct waker_share *w);

#endif /* TDBPF_REPORT_H */
