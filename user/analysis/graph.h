/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wait-for graph of the traced tasks and its bottleneck verdict.
 *
 * Nodes are tasks (or, with --per-name, folded names); an edge waker ->
 * wakee carries the wakeups and the blocked time the waker ended (from
 * each task's waker slots). Wakers that are no task of the graph
 * (interrupts, timers, another process, no seen wakeup) are edges from a
 * kind, not from a node. Pure: built from a task table, no I/O.
 */
#ifndef TDBPF_GRAPH_H
#define TDBPF_GRAPH_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "analysis/sched_verdict.h"
#include "sums/tasks.h"
#include "sums/waits.h"

/* What a node is for the verdict: where a blocked task's waits end. */
enum graph_role {
	ROLE_IDLE,	/* no blocked time and did not run */
	ROLE_RUNNING,	/* mostly runs: its waits are not what limits it */
	ROLE_STARVED,	/* waits longer for a CPU than it runs */
	ROLE_EXTERNAL,	/* blocked, its waits mostly ended by no task */
	ROLE_PASS,	/* blocked, its waits mostly ended by tasks: follow */
};

/*
 * A node's or an outside waker's label: its name, and "(pid)" after it
 * where another process has a task of that name ("relay (4242)").
 */
/* tdbpf graph's "host/process/thread" too, and a whole name's "(pid)" */
#define GRAPH_NAME_LEN	(TDBPF_NAME_MAX + 32)

/*
 * What the graph asks of whoever made its task table about tasks it
 * does not trace (a live run reads /proc, a replay its recording): the
 * graph itself does no I/O. Each answer goes into @buf and is returned;
 * NULL (or a NULL member) when unknown, and the graph says "pid N" or
 * "tid N" instead. @ctx is given back to each.
 */
struct graph_lookups {
	const void *ctx;
	/* task @tid of process @pid, a socket's peer (e.g. it exited) */
	const char *(*peer)(const void *ctx, __u32 pid, __u32 tid, char *buf,
			    size_t len);
	/* any task by tid: a holder of the CPU outside the targets */
	const char *(*tid_name)(const void *ctx, __u32 tid, char *buf,
				size_t len);
	/*
	 * the cgroup CPU limit of task @tid in words ("/sg, 20% of a CPU
	 * ..."), for a throttled one's reason
	 */
	const char *(*cpu_limit)(const void *ctx, __u32 tid, char *buf,
				 size_t len);
};

/*
 * An edge is a wait (kind TDBPF_WAKER_*: the waker ended the wakee's
 * blocked time) or a hold (TDBPF_KIND_HOLDS(kind): the holder ran on the
 * CPU the wakee waited for, or its cgroup's limit kept it off).
 */
struct graph_edge {
	int waker;		/* node index, -1 when no task of the graph */
	unsigned int kind;	/* TDBPF_WAKER_*, TDBPF_HOLDER_*, WAKER_UNSEEN */
	/*
	 * A waker outside the graph that a socket told: PROCESS, its tid
	 * and pid; ENDPOINT, ext_name alone ("a.b.c.d:port"); a holder of
	 * the CPU outside the graph (HOLDER_OTHER): its tid. 0 and ""
	 * otherwise. Edges are told apart by all three.
	 */
	__u32 ext_tid, ext_pid;
	/*
	 * a peer's "comm (pid)" or an endpoint: not GRAPH_NAME_LEN, which
	 * whole names widened, since there are up to TDBPF_NR_WAITS edges
	 * a task
	 */
	char ext_name[96];
	int wakee;		/* node index */
	__u64 wakeups;
	__u64 wait_ns;
	__u64 longest_ns;	/* the longest of its waits; 0: not known */
};

struct graph_node {
	__u32 tid;		/* 0 for a folded name of several tasks */
	__u32 pid;		/* its process; 0 when folded across several */
	char name[GRAPH_NAME_LEN];	/* with "(pid)" where names collide */
	/*
	 * Set by whoever names nodes after graph_build() (tdbpf graph): the
	 * node's cluster (1-based into graph.clusters; 0 none), and a reason
	 * that replaces graph_reason()'s (an endpoint no host's report has).
	 */
	int cluster;
	const char *note;
	int nr_tasks;
	/*
	 * per_name: the key its tasks share (fold_name()), and the hot one
	 * of them: the task most of the blocked time leading to the node
	 * led to in the graph over tasks (else the one of most on-CPU and
	 * run-queue time), the instance the verdict names when the node is
	 * an operator of several (data skew); hot_node: its node in
	 * graph.tasks, -1 none.
	 */
	char key[TDBPF_NAME_MAX];
	__u32 hot_tid;
	char hot_name[TDBPF_NAME_MAX];
	__u64 hot_ns;
	int hot_node;
	__u64 on_cpu_ns, runq_ns, blocked_ns;	/* blocked = off-CPU */
	/* of on_cpu_ns, network softirqs run in its context: for others */
	__u64 softirq_ns;
	enum sched_verdict sched;
	enum graph_role role;
	unsigned int ext_kind;	/* the kind ending most of its other waits */
	__u64 ext_ns;		/* its waits ended by no task of the graph */
	int first_in, nr_in;	/* edges into it (waits, holds), largest first */
	double waits_ns;	/* its waits' sum: what a wait's share is of */
	double holds_ns;	/* its holds' sum: what a hold's share is of */
	double led_ns;		/* blocked time of the graph that leads here */
	/*
	 * the share of its life it waited on no task of the graph (it ran,
	 * waited for a CPU, slept, read a disk), and its part's weight (its
	 * part's share of the on-CPU time): candidates rank by their product
	 * (graph_rank())
	 */
	double busy, weight;
	int nr_sources;		/* nodes sending it >= 1% of their time */
	bool cycle;		/* some led here only by going round a cycle */
};

struct graph {
	struct graph_node *nodes;
	int nr_nodes;
	struct graph_edge *edges;	/* by wakee, then wait time, largest first */
	int nr_edges;
	double blocked_ns;		/* blocked time that led to a task */
	int *rank;			/* candidates, best first */
	int nr_rank;
	int nr_tied;			/* the first ones too close to tell apart */
	int *index;			/* nodes by tid, or by name */
	/*
	 * the rows it was built of and each one's node: a writer's look-up
	 * of a row without a search (a search per row was a tenth of a
	 * report of 10,000 tasks)
	 */
	const char *rows;
	size_t row_size, nr_rows;
	int *rowmap;
	bool per_name;
	/*
	 * per_name: the graph over the tasks, whose verdict the folded one
	 * takes (a name's share: what led to its tasks); NULL otherwise
	 */
	struct graph *tasks;
	const char *const *clusters;	/* names of node.cluster - 1 */
	/* graph_build()'s, for the reasons' names: outlives the graph */
	const struct graph_lookups *look;
	int nr_clusters;
};

/* A candidate's share of the graph's blocked time needed to be listed. */
#define GRAPH_MIN_SHARE	0.01
/*
 * Candidates within this ratio of the first are tied with it: the two
 * measures (speed-ups of 2x) differ by less than run-to-run noise does
 * on a loaded machine (bench-graph).
 */
#define GRAPH_TIE	0.85
/*
 * Candidates whose busy shares are this close to the first's are told
 * apart by the blocked time that leads to them: a 2x speed-up of the
 * busier one could gain about this much before the other is as busy,
 * less than a speed-up shows clearly through run-to-run noise (the
 * bench calls a truth clear from 10%).
 */
#define GRAPH_BUSY_NEAR	0.05

/*
 * Build the graph of @t (rows by tid, with their waker slots) and judge
 * it: the tasks of every traced process in one graph. @per_name: nodes
 * are folded names (fold_name()), across processes. @look: names of
 * tasks not traced (NULL: none known), kept for graph_reason(); it
 * must outlive @g. 0 or -ENOMEM.
 */
int graph_build(struct graph *g, const struct task_table *t, bool per_name,
		const struct graph_lookups *look);
/* @look's answer, NULL when it has no such lookup or no answer */
const char *graph_tid_name(const struct graph *g, __u32 tid, char *buf,
			   size_t len);
const char *graph_cpu_limit(const struct graph *g, __u32 tid, char *buf,
			    size_t len);
void graph_free(struct graph *g);

/* The node of a report row (by tid, or by name for --per-name); -1 none. */
int graph_node_of(const struct graph *g, const struct task_row *r);
/* The waker's name of @e: a node's name or the kind's ("timer", ...). */
const char *graph_waker_name(const struct graph *g,
			     const struct graph_edge *e);
/* Share of the graph's blocked time that leads to node @n. */
double graph_share(const struct graph *g, int n);
/* A hold, not a wait: run-queue time, the CPU held by another. */
static inline bool graph_edge_holds(const struct graph_edge *e)
{
	return TDBPF_KIND_HOLDS(e->kind);
}

/*
 * Why node @n is where waits lead, in a few words: "runs (on-CPU 97%):
 * @path", "CPU-starved (runq 61%)", "waits on timers (...) (88% of its
 * blocked time)", "CPU-starved by enrich (62% of its run-queue wait)",
 * "throttled by its cgroup's CPU limit (80% of its run-queue wait)".
 * @path: its TMA path or NULL (no PMU breakdown).
 */
void graph_reason(const struct graph *g, int n, const char *path, char *buf,
		  size_t len);

/*
 * WAITS ON of node @n: what kept it off the CPU most, by its share of
 * its blocked and run-queue time: "enrich 62%" (a waker), "cpu:agg 30%"
 * (a task that held the CPU it waited for), "timer 90%"; "-" for none.
 */
void graph_waits_on(const struct graph *g, int n, char *buf, size_t len);

#endif /* TDBPF_GRAPH_H */
