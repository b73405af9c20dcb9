/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Report sinks: one interface that every output implements. A sink takes
 * a report (rows, plan and model, window, lost counters: see report.h)
 * and writes it; it never reaches into the tracer, so reports made from
 * a live run, from a /metrics scrape or read back from a -j recording
 * (`tdbpf report FILE`) go through the same sinks.
 *
 * A new output is one new file: a `const struct sink_ops sink_NAME` with
 * its write(), listed in sinks[] (sink.c). Sinks with their own
 * transport (an HTTP response, a curses screen) give it a FILE (e.g.
 * open_memstream) or keep their state in @priv.
 */
#ifndef TDBPF_SINK_H
#define TDBPF_SINK_H

#include <stdbool.h>
#include <stdio.h>
#include "analysis/report.h"
#include "analysis/graph.h"
#include "sums/snapshot.h"

struct graph;

struct sink;

struct sink_ops {
	const char *name;	/* "table", "csv", "json" */
	/* Write @rep. Output errors are seen through ferror() after it. */
	void (*write)(struct sink *s, const struct report *rep);
};

struct sink {
	const struct sink_ops *ops;
	FILE *f;
	const char *name;	/* -o FILE, NULL for stdout: for errors */
	const char *what;	/* for errors: NULL "the report", "the graph" */
	const char *sep;	/* csv: the -x separator */
	/*
	 * A series of interval reports (-I) followed by the whole run's:
	 * JSON writes one object per line, the table marks the last one.
	 */
	bool intervals;
	unsigned int table_cols;	/* table: -F's enum table_col, 0 default */
	void *priv;		/* a sink's own state */
};

extern const struct sink_ops sink_table, sink_csv, sink_json, sink_dot;
/* Every sink by name, NULL-terminated. */
extern const struct sink_ops *const sinks[];
const struct sink_ops *sink_find(const char *name);

/* How a task table becomes a report (from the command line). */
struct report_conf {
	const struct event_plan *plan;
	int level;		/* 0: the plan's */
	enum sort_key sort;
	int top;		/* 0: every row */
	bool per_name;		/* fold rows by thread name */
	bool wakeups;		/* the wait-for graph and its verdict */
	/* names of tasks not traced: /proc live, a recording's in replay */
	struct graph_lookups look;
	__u64 start_ns;		/* the run's start, for a window's end */
};

/*
 * Write @rep to @s and flush. 0; -EPIPE when the reader went away (a
 * closed pipe: quiet, as perf); any other failure (a full disk, EIO) is
 * one line on stderr naming @s->name, a file cut back to where the
 * report began, and -errno: never silent.
 */
int sink_write(struct sink *s, const struct report *rep);

/*
 * The whole way from a snapshot to a sink: the wait-for graph and its
 * verdict (over tasks, or names with --per-name) when wakeups are
 * traced, fold (--per-name), sort and cut, set the window
 * (@duration_ns), interval number (-1: the whole run) and lost
 * counters, write. 0, -EPIPE, or -errno already said on stderr
 * (-ENOMEM, a write error).
 */
int sink_emit(struct sink *s, const struct report_conf *rc,
	      const struct snapshot *snap, __u64 duration_ns, int interval);

/*
 * What a report is made of, from a snapshot (sink_emit()) or from a
 * recording (tdbpf report, which has no snapshot): the sums as they
 * came, and the window they cover.
 */
struct report_parts {
	const struct task_table *tasks;
	const struct span_table *spans;
	const struct flow_table *flows;
	const struct cgroup_table *cgroups;
	const struct lost_stats *lost;
	const char *host;
	__u64 wall_ns;
	__u64 duration_ns;	/* the window */
	__u64 elapsed_ns;	/* the window's end, from the run's start */
	int interval;		/* -1: the whole run */
	/* rows before --top at the least (a recording's), unless per_name */
	int nr_total;
	/* tdbpf graph of one recording: its graph for Graphviz too, or NULL */
	FILE *dot;
};

/*
 * sink_emit()'s way from @p to @s, which tdbpf report takes too, so
 * that a replay prints the bytes a live run did. 0, -EPIPE, -errno of
 * a write already said on stderr, or -ENOMEM when the report could not
 * be built (not said: the caller knows what it was building), -EIO
 * when @p's DOT file could not be written.
 */
int sink_emit_parts(struct sink *s, const struct report_conf *rc,
		    const struct report_parts *p);

/*
 * The writers behind the sinks, for callers that hold a report already
 * (report_table.c, report_csv.c, report_json.c, graph_dot.c).
 */
void report_write_table(FILE *f, const struct report *rep);

/*
 * The table's columns that may be left out (-F/--columns), a bit each.
 * TID, COMM, ON-CPU ms, OFF-CPU ms and BOTTLENECK are always there.
 */
enum table_col {
	TCOL_CPU = 1,		/* CPU% */
	TCOL_RUNQ = 2,		/* RUNQ ms */
	TCOL_SW = 4,		/* SW vol/inv */
	TCOL_MIGR = 8,		/* MIGR */
	TCOL_TMA = 16,		/* the level-1 TopDown columns */
	TCOL_IPC = 32,
	TCOL_EVENTS = 64,	/* the software model's and -e's events */
	TCOL_WAITS = 128,	/* WAITS ON */
	TCOL_CONTAINER = 256,
	TCOL_ALL = 511,
};
/* What the default table fits, columns left out (and wrapped) for it. */
#define TABLE_WIDTH	120
/*
 * The table with the columns @cols (enum table_col; 0: the default,
 * every column that has something to show, less those that must give
 * way for TABLE_WIDTH, in the order SW, MIGR, CPU%, IPC, WAITS ON, RUNQ,
 * and a verdict longer than the rest wrapped at words).
 */
void report_write_table_cols(FILE *f, const struct report *rep,
			     unsigned int cols);
/* perf stat -x conventions: one line per task and counter/metric. */
void report_write_csv(FILE *f, const struct report *rep, const char *sep,
		      bool series);
/* @line: one JSON object on one line (interval mode); else pretty. */
void report_write_json(FILE *f, const struct report *rep, bool line);
/* Graphviz DOT: nodes coloured by role, the bottleneck marked. */
int graph_write_dot(FILE *f, const struct graph *g);

#endif /* TDBPF_SINK_H */
