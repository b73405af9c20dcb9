// SPDX-License-Identifier: GPL-2.0
/*
 * The wait-for graph and its verdict on hand-made task tables: where the
 * blocked time leads, why, through cycles and over folded names; run-queue
 * waits followed to the tasks that held the CPU, a cgroup's limit, idle
 * threads, ties; the waker slots' arithmetic; the DOT text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "analysis/graph.h"
#include "analysis/report.h"
#include "outputs/sink.h"
#include "unit_helpers.h"

#define MS	1000000ULL

struct w {
	unsigned int kind;
	__u32 tid;
	__u64 wakeups, wait_ms;
};

/*
 * A task of @on/@runq/@off ms whose waits were ended by @w (kind 0 ends),
 * @si ms of its on-CPU time network softirqs run in its context.
 */
static void add_si(struct task_table *t, __u32 tid, const char *comm,
		   __u64 on, __u64 si, __u64 runq, __u64 off, const struct w *w)
{
	struct tdbpf_wait ws[TDBPF_NR_WAITS];
	struct tdbpf_task s;
	int i;

	task_blank(&s, ws, tid, comm);
	s.sched.on_cpu_ns = on * MS;
	s.sched.runq_wait_ns = runq * MS;
	s.sched.off_cpu_ns = off * MS;
	s.sched.softirq_ns = si * MS;
	for (i = 0; w && w[i].kind; i++) {
		ws[i].kind = w[i].kind;
		ws[i].tid = w[i].tid;
		ws[i].wakeups = w[i].wakeups;
		ws[i].wait_ns = w[i].wait_ms * MS;
	}
	assert_int_equal(tasks_add(t, &s, ws, 0), 0);
}

/* The longest of @tid's waits ended by a @kind @waker, in ms */
static void set_longest(struct task_table *t, __u32 tid, unsigned int kind,
			__u32 waker, __u64 ms)
{
	struct task_row *r = tasks_find(t, tid);
	struct tdbpf_wait *w;
	int n, i;

	assert_non_null(r);
	w = tasks_waits(t, r, &n);
	for (i = 0; i < n; i++)
		if (w[i].kind == kind && w[i].tid == waker)
			w[i].longest_us = (__u32)(ms * 1000);
}

static void add(struct task_table *t, __u32 tid, const char *comm, __u64 on,
		__u64 runq, __u64 off, const struct w *w)
{
	add_si(t, tid, comm, on, 0, runq, off, w);
}

/* An empty table whose rows carry waker slots and no counters. */
static void waits_table(struct task_table *t)
{
	tasks_init(t);
	tasks_set_layout(t, 0, true);
}

static int node(const struct graph *g, const char *name)
{
	int i;

	for (i = 0; i < g->nr_nodes; i++)
		if (!strcmp(g->nodes[i].name, name))
			return i;
	fail_msg("no node %s", name);
	return -1;
}

static void reason(const struct graph *g, int n, char *buf, size_t len)
{
	graph_reason(g, n, NULL, buf, len);
}

#define T(tid, ms) { TDBPF_WAKER_TASK, tid, 10, ms }
#define K(kind, ms) { kind, 0, 10, ms }
/* @tid held the CPU for @ms of the task's run-queue wait */
#define H(tid, ms) { TDBPF_HOLDER_TASK, tid, 10, ms }

/* The graph of @t, over names with @per_name: it must build. */
static void build(struct graph *g, const struct task_table *t, bool per_name)
{
	assert_int_equal(graph_build(g, t, per_name, NULL), 0);
}

/*
 * @g's first candidate is @name, its reason @why (NULL: not looked at):
 * its node.
 */
static int first_is(const struct graph *g, const char *name, const char *why)
{
	char buf[192];
	int n = node(g, name);

	assert_true(g->nr_rank >= 1);
	assert_int_equal(g->rank[0], n);
	if (why) {
		reason(g, n, buf, sizeof(buf));
		assert_string_equal(buf, why);
	}
	return n;
}

static void done(struct graph *g, struct task_table *t)
{
	graph_free(g);
	tasks_free(t);
}

/* A task of a table: add()'s arguments, its waits ended by kind 0. */
struct task_def {
	__u32 tid;
	const char *comm;
	__u64 on, runq, off;
	struct w w[6];
};

/* Add the tasks of @d, up to the first without a name. */
static void add_all(struct task_table *t, const struct task_def *d)
{
	for (; d->comm; d++)
		add(t, d->tid, d->comm, d->on, d->runq, d->off, d->w);
}

/*
 * Most tests are one table of tasks, its graph over tids or names, and
 * checks of that graph: one runner builds and frees, a case only checks.
 */
struct graph_case {
	const struct task_def *tasks;
	bool per_name;
	void (*check)(struct graph *g, struct task_table *t);
};

static void run_case(void **state)
{
	const struct graph_case *c = *state;
	struct task_table t;
	struct graph g;

	waits_table(&t);
	add_all(&t, c->tasks);
	build(&g, &t, c->per_name);
	c->check(&g, &t);
	done(&g, &t);
}

/* test_@name: the graph of @name_tasks checked by check_@name() */
#define GRAPH_TEST(name, per_name)                                      \
	{ "test_" #name, run_case, NULL, NULL,                           \
	  &(struct graph_case){ name##_tasks, per_name, check_##name } }

/* A table of tasks whose verdict is one stage and why. */
struct verdict_case {
	struct task_def t[4];	/* ended by one without a name */
	const char *first, *why;
	int role;	/* the first's, -1: not looked at */
};

/*
 * source -> parse -> enrich -> sink, enrich on CPU 95% of the time: every
 * blocked stage's waits lead to enrich, directly or through parse.
 */
static const struct task_def running_bottleneck_tasks[] = {
	{ 1, "source", 50, 0, 950, { T(2, 900), K(TDBPF_WAKER_TIMER, 50) } },
	{ 2, "parse", 50, 0, 950, { T(3, 950) } },
	{ 3, "enrich", 950, 10, 40, { T(2, 40) } },
	{ 4, "sink", 60, 0, 940, { T(3, 940) } },
	{ 0 }
};

static void check_running_bottleneck(struct graph *g, struct task_table *t)
{
	char why[192];
	int e;

	(void)t;
	e = node(g, "enrich");
	assert_int_equal(g->nodes[e].role, ROLE_RUNNING);
	assert_int_equal(g->nodes[node(g, "parse")].role, ROLE_PASS);
	assert_true(g->nr_rank >= 1);
	assert_int_equal(g->rank[0], e);
	/*
	 * source's own 50 ms of timer waits lead to no task: not counted;
	 * enrich's 40 ms on parse do: parse keeps them (its own waits are
	 * on enrich). Of source's 900 ms, parse keeps 50/1000, enrich 950/990
	 * of the rest, 40/990 comes back: parse 123 ms, enrich 2707 ms
	 */
	assert_true(fabs(g->blocked_ns - 2830.0 * MS) < 1e-3);
	assert_true(fabs(g->nodes[e].led_ns - 2707.02 * MS) < 0.01 * MS);
	assert_int_equal(g->nodes[e].nr_sources, 3);
	reason(g, e, why, sizeof(why));
	assert_non_null(strstr(why, "runs (on-CPU 95%)"));
	graph_reason(g, e, "Backend.Memory.DRAM", why, sizeof(why));
	assert_non_null(strstr(why, "Backend.Memory.DRAM"));
}

/*
 * The loopback TCP chain gen -> relay -> sink, sink doing ten
 * times the work: relay runs 1100 ms of 2500 (300 of them the loopback
 * stack delivering to sink, in its context) and waits 800 ms on sink,
 * gen waits 1800 ms on relay. Relay's own waits on sink count though it
 * is not mostly blocked; what gen's waits bring it splits over relay's
 * time less its waits on gen, its softirqs left out: sink. (The flow
 * before: relay kept 44% of gen's 1800 ms, its waits on sink were no
 * source, sink got 32% of them: relay.)
 */
static void test_running_chain(void **state)
{
	struct task_table t;
	struct graph g;
	int s, r;

	(void)state;
	waits_table(&t);
	add(&t, 1, "gen", 350, 150, 2000, (struct w[]){ T(2, 1800), K(TDBPF_WAKER_TIMER, 200), {0} });
	add_si(&t, 2, "relay", 1100, 300, 160, 1240, (struct w[]){ T(3, 800), T(1, 440), {0} });
	add(&t, 3, "sink", 1700, 100, 700, (struct w[]){ T(2, 700), {0} });
	build(&g, &t, false);
	s = node(&g, "sink");
	r = node(&g, "relay");
	assert_int_equal(g.nodes[r].role, ROLE_RUNNING);
	assert_int_equal(g.rank[0], s);
	/*
	 * gen's 1800: relay's time less its waits on gen is 800 of its own
	 * work and 800 on sink: it keeps 900, sink 900 (its waits are on
	 * relay). relay's 800 go to sink, its 440 to gen, which keeps them.
	 * sink's 700: relay keeps 800/1240 (451.6), gen the rest (248.4)
	 */
	assert_true(fabs(g.nodes[s].led_ns - 1700.0 * MS) < 1e-3);
	assert_true(fabs(g.nodes[r].led_ns - 1351.61 * MS) < 0.01 * MS);
	assert_true(fabs(g.nodes[node(&g, "gen")].led_ns - 688.39 * MS) <
		    0.01 * MS);
	assert_int_equal(g.nr_tied, 1);
	done(&g, &t);
}

/* The middle stage waits on a timer for most of its blocked time. */
static const struct task_def io_bottleneck_tasks[] = {
	{ 1, "source", 50, 0, 950, { T(2, 950) } },
	{ 2, "enrich", 100, 0, 900, { K(TDBPF_WAKER_TIMER, 800), T(1, 50), T(3, 50) } },
	{ 3, "sink", 50, 0, 950, { T(2, 950) } },
	{ 0 }
};

static void check_io_bottleneck(struct graph *g, struct task_table *t)
{
	char why[192];
	int e;

	(void)t;
	e = first_is(g, "enrich", NULL);
	assert_int_equal(g->nodes[e].role, ROLE_EXTERNAL);
	assert_int_equal(g->nodes[e].ext_kind, TDBPF_WAKER_TIMER);
	/*
	 * the others' 1900 ms, and its own 100 ms on them (they wait on it):
	 * its own 800 ms on timers lead nowhere, a task's own blocked time
	 * never counts for itself, and are not in the graph's total. Its
	 * 100 ms stay with source and sink: they wait on nobody else
	 */
	assert_true(fabs(g->nodes[e].led_ns - 1800.0 * MS) < 1e-3);
	assert_true(fabs(g->blocked_ns - 2000.0 * MS) < 1e-3);
	/* source and sink: its own waits stay with them */
	assert_int_equal(g->nodes[e].nr_sources, 2);
	reason(g, e, why, sizeof(why));
	assert_string_equal(why, "waits on timers (sleeps, timerfd, timeouts) (89% of its blocked time)");
}

/*
 * A stage starved of the CPU (it waits for one longer than it runs), and
 * one whose cgroup's CPU limit holds it: throttled, not starved.
 */
static const struct verdict_case verdicts[] = {
	{ { { 1, "source", 50, 0, 950, { T(2, 950) } },
	    { 2, "score", 300, 600, 100, { T(1, 100) } },
	    { 3, "sink", 50, 0, 950, { T(2, 950) } } },
	  "score", "CPU-starved (runq 60%, on-CPU 30%)", ROLE_STARVED },
	{ { { 1, "src", 50, 0, 950, { T(2, 950) } },
	    { 2, "b", 200, 700, 100,
	      { T(1, 100), { TDBPF_HOLDER_LIMIT, 0, 9, 600 }, H(1, 100) } },
	    { 3, "sink", 50, 0, 950, { T(2, 950) } } },
	  "b", "throttled by its cgroup's CPU limit (86% of its run-queue wait)",
	  -1 },
};

static void test_verdicts(void **state)
{
	struct task_table t;
	struct graph g;
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(verdicts) / sizeof(verdicts[0]); i++) {
		const struct verdict_case *v = &verdicts[i];

		waits_table(&t);
		add_all(&t, v->t);
		build(&g, &t, false);
		n = first_is(&g, v->first, v->why);
		if (v->role >= 0)
			assert_int_equal(g.nodes[n].role, v->role);
		done(&g, &t);
	}
}

/*
 * A stage starved whenever it runs (the pool it waits on hogs the CPUs)
 * but blocked most of its time on that pool: it passes its waits on.
 */
static const struct task_def starved_but_blocked_tasks[] = {
	{ 1, "join", 110, 270, 620, { T(2, 620) } },
	{ 2, "parse", 350, 560, 90, { T(3, 90) } },
	{ 3, "source", 10, 0, 990, { T(2, 990) } },
	{ 4, "filter", 10, 0, 990, { T(1, 990) } },
	{ 0 }
};

static void check_starved_but_blocked(struct graph *g, struct task_table *t)
{
	int j, p;

	(void)t;
	j = node(g, "join");
	p = node(g, "parse");
	assert_int_equal(g->nodes[j].sched, SCHED_STARVED);
	assert_int_equal(g->nodes[j].role, ROLE_PASS);
	assert_int_equal(g->nodes[p].role, ROLE_STARVED);
	assert_int_equal(g->rank[0], p);
	/*
	 * its run-queue wait on no task seen is left out: join keeps 110/730
	 * of filter's 990 ms, 149 ms; parse 350/440 of what reaches it
	 */
	assert_true(fabs(g->nodes[j].led_ns - 149.18 * MS) < 0.01 * MS);
	assert_true(fabs(graph_share(g, p) - 0.800) < 1e-3);
}

/*
 * A loaded machine: every stage waits for a CPU. score, light, is starved
 * half its time and blocked the other half on enrich, the heavy stage:
 * it keeps half of what reaches it and sends the rest to enrich, which
 * the verdict names.
 */
static const struct task_def starved_half_blocked_tasks[] = {
	{ 1, "source", 10, 90, 900, { T(2, 900) } },
	{ 2, "parse", 10, 90, 900, { T(3, 900) } },
	{ 3, "enrich", 600, 300, 100, { T(2, 100) } },
	{ 4, "score", 20, 490, 490, { T(3, 490) } },
	{ 5, "format", 10, 90, 900, { T(4, 900) } },
	{ 6, "sink", 10, 90, 900, { T(5, 900) } },
	{ 0 }
};

static void check_starved_half_blocked(struct graph *g, struct task_table *t)
{
	int e, s;

	(void)t;
	e = node(g, "enrich");
	s = node(g, "score");
	assert_int_equal(g->nodes[s].role, ROLE_STARVED);
	assert_int_equal(g->rank[0], e);
	/*
	 * run-queue waits no task was seen holding left out, score keeps
	 * 20/510 of what format sends it: format's 900 ms and 900/910 of
	 * sink's 900 ms: 70.2 ms
	 */
	assert_true(fabs(g->nodes[s].led_ns - 70.2 * MS) < 0.01 * MS);
	assert_true(graph_share(g, e) > 0.87);
}

/*
 * A producer and a consumer wake each other (a cycle), and the consumer
 * also waits on a running stage: all their blocked time ends there, the
 * cycle only delays it. The flow must not stop in the cycle.
 */
static const struct task_def cycle_with_exit_tasks[] = {
	{ 1, "prod", 100, 0, 900, { T(2, 900) } },
	{ 2, "cons", 100, 0, 900, { T(1, 100), T(3, 800) } },
	{ 3, "work", 990, 0, 10, { { 0 } } },
	{ 0 }
};

static void check_cycle_with_exit(struct graph *g, struct task_table *t)
{
	int x;

	(void)t;
	x = first_is(g, "work", NULL);
	/*
	 * work's own 10 ms is unseen. prod's 900 ms: cons keeps 100/900
	 * (its time less its waits on prod), work the rest; cons's 100 ms
	 * on prod stay with prod (waiting on nobody else)
	 */
	assert_true(fabs(g->nodes[x].led_ns - 1600.0 * MS) < 1e-3);
	assert_false(g->nodes[node(g, "prod")].cycle);
	assert_int_equal(g->nr_rank, 3);
	assert_int_equal(g->rank[0], x);
}

/*
 * Three tasks that only ever wait on each other in a ring, and do next to
 * no work: flagged, split, finite. (Of two, each keeps what the other's
 * waits bring it: while one waits on the other, that one is not waiting
 * on it.)
 */
static const struct task_def closed_cycle_tasks[] = {
	{ 1, "ping", 1, 0, 999, { T(2, 999) } },
	{ 2, "pong", 1, 0, 999, { T(3, 999) } },
	{ 3, "pang", 1, 0, 999, { T(1, 999) } },
	{ 0 }
};

static void check_closed_cycle(struct graph *g, struct task_table *t)
{
	char why[192];
	int a, b;

	(void)t;
	a = node(g, "ping");
	b = node(g, "pong");
	assert_true(g->nodes[a].cycle && g->nodes[b].cycle);
	assert_true(fabs(graph_share(g, a) - 1.0 / 3) < 1e-3);
	assert_true(fabs(graph_share(g, b) - 1.0 / 3) < 1e-3);
	assert_int_equal(g->nr_rank, 3);
	reason(g, a, why, sizeof(why));
	assert_non_null(strstr(why, "wait cycle"));
}

/*
 * --per-name: a pool of workers (work-1..3) that runs, fed by one
 * source and drained by one sink; the edges to each worker merge.
 */
static const struct task_def per_name_tasks[] = {
	{ 1, "source", 50, 0, 950, { T(11, 300), T(12, 300), T(13, 350) } },
	{ 11, "work-1", 900, 50, 50, { T(1, 50) } },
	{ 12, "work-2", 900, 50, 50, { T(1, 50) } },
	{ 13, "work-3", 900, 50, 50, { T(1, 50) } },
	{ 20, "sink", 50, 0, 950, { T(11, 500), T(13, 450) } },
	{ 0 }
};

static void check_per_name(struct graph *g, struct task_table *t)
{
	struct task_row *r;
	int w, i, n = 0;
	__u64 sum = 0;

	assert_int_equal(g->nr_nodes, 3);
	w = node(g, "work-*");
	assert_int_equal(g->nodes[w].nr_tasks, 3);
	assert_int_equal(g->nodes[w].tid, 0);
	assert_int_equal(g->rank[0], w);
	/*
	 * what led to the three workers in the graph over tasks: all but
	 * what the source keeps. A worker's 50 ms on the source reach it
	 * while it waits on the other two (its life less its waits on that
	 * worker: 50 of 700, or 650 for work-3), which keep the rest; of
	 * sink's 500 and 450 ms, work-1 and work-3 pass 50/950 on to the
	 * source, which keeps 50/700 and 50/650 of that
	 */
	assert_true(fabs(g->nodes[w].led_ns -
			 (2050.0 - 2 * 50.0 * 50 / 700 - 50.0 * 50 / 650 -
			  500.0 * 50 / 950 * 50 / 700 -
			  450.0 * 50 / 950 * 50 / 650) * MS) < 1e-3);
	/* one edge work-* -> source of 950 ms, 30 wakeups */
	for (i = 0; i < g->nr_edges; i++) {
		const struct graph_edge *e = &g->edges[i];

		if (e->waker == w && e->wakee == node(g, "source")) {
			n++;
			assert_int_equal(e->wait_ns, 950 * MS);
			assert_int_equal(e->wakeups, 30);
		}
	}
	assert_int_equal(n, 1);
	/* a folded report row finds its node; so does a task's row */
	r = tasks_get(t, 12);
	assert_int_equal(graph_node_of(g, r), w);
	for (i = 0; i < g->nodes[w].nr_in; i++)
		sum += g->edges[g->nodes[w].first_in + i].wait_ns;
	assert_int_equal(sum, 150 * MS);
}

/*
 * The verdict line of the report over @t folded by name, with @g (over
 * names) as its graph, starts with @want.
 */
static void verdict_starts(struct graph *g, const struct task_table *t,
			   const char *want)
{
	struct task_table folded;
	struct report rep;
	char line[1024];

	tasks_init(&folded);
	assert_int_equal(tasks_fold(t, &folded, 0), 0);
	assert_int_equal(report_build(&rep, &folded, NULL, 0, 1000 * MS,
				      SORT_CPU, 0), 0);
	report_set_graph(&rep, g, &folded);
	report_verdict_line(&rep, line, sizeof(line));
	if (strncmp(line, want, strlen(want)))
		fail_msg("verdict line: %s", line);
	report_free(&rep);
	tasks_free(&folded);
}

/*
 * Data skew, the classic Flink bottleneck: three subtasks of one
 * operator, the second given the hot key. Folded, the node is the
 * operator "Map (*\/3)#0" of 3 tasks, and the verdict line names the hot
 * subtask with its tid; a lone numbered name stays whole.
 */
static const struct task_def per_name_hot_instance_tasks[] = {
	{ 1, "Source (1/1)#0", 50, 0, 950, { T(11, 100), T(12, 750), T(13, 100) } },
	{ 11, "Map (1/3)#0", 600, 0, 400, { T(1, 40) } },
	{ 12, "Map (2/3)#0", 950, 30, 20, { T(1, 20) } },
	{ 13, "Map (3/3)#0", 600, 0, 400, { T(1, 40) } },
	{ 0 }
};

static void check_per_name_hot_instance(struct graph *g, struct task_table *t)
{
	int m;

	assert_int_equal(g->nr_nodes, 2);
	m = node(g, "Map (*/3)#0");
	assert_int_equal(g->nodes[m].nr_tasks, 3);
	assert_int_equal(g->nodes[m].hot_tid, 12);
	assert_string_equal(g->nodes[m].hot_name, "Map (2/3)#0");
	/* the source, alone under its name, keeps it */
	assert_int_equal(g->nodes[node(g, "Source (1/1)#0")].nr_tasks, 1);
	assert_int_equal(g->rank[0], m);

	verdict_starts(g, t, "bottleneck: Map (*/3)#0 (3 tasks; hot: Map (2/3)#0, tid 12)");
}

/* Blocked time no seen wakeup ended is an edge of its own, never dropped. */
static const struct task_def unseen_tasks[] = {
	{ 1, "a", 100, 0, 900, { T(2, 500), K(TDBPF_WAKER_HARDIRQ, 100) } },
	{ 2, "b", 900, 0, 100, { { 0 } } },
	{ 0 }
};

static void check_unseen(struct graph *g, struct task_table *t)
{
	const struct graph_node *n;
	__u64 sum = 0;
	int i, found = 0;

	(void)t;
	n = &g->nodes[node(g, "a")];
	assert_int_equal(n->nr_in, 3);
	for (i = 0; i < n->nr_in; i++) {
		const struct graph_edge *e = &g->edges[n->first_in + i];

		sum += e->wait_ns;
		if (e->kind == WAKER_UNSEEN) {
			found++;
			assert_int_equal(e->wait_ns, 300 * MS);
			assert_string_equal(graph_waker_name(g, e), "unseen");
		}
	}
	assert_int_equal(found, 1);
	assert_int_equal(sum, 900 * MS);
	/* largest first */
	assert_int_equal(g->edges[n->first_in].waker, node(g, "b"));
}

/*
 * The five stages: enrich and agg hold both CPUs, parse is starved
 * (runq 40%, on-CPU 20%) and src and sink wait on it. Speeding enrich up
 * helps most: the starvation is followed to the tasks taking the CPU,
 * and parse's reason names who.
 */
static const struct task_def starved_by_task_tasks[] = {
	{ 1, "src", 50, 20, 930, { T(2, 930) } },
	{ 2, "parse", 200, 400, 400, { T(1, 100), T(3, 300), H(3, 248), H(4, 152) } },
	{ 3, "enrich", 600, 270, 130, { T(2, 130), H(4, 200), H(2, 70) } },
	{ 4, "agg", 500, 250, 250, { T(3, 250), H(3, 200), H(2, 50) } },
	{ 5, "sink", 20, 30, 950, { T(4, 950) } },
	{ 0 }
};

static void check_starved_by_task(struct graph *g, struct task_table *t)
{
	char why[192];
	int p, e, a;

	(void)t;
	p = node(g, "parse");
	e = node(g, "enrich");
	a = node(g, "agg");
	assert_int_equal(g->nodes[p].role, ROLE_STARVED);
	assert_int_equal(g->rank[0], e);
	assert_true(graph_share(g, e) > graph_share(g, a));
	assert_true(graph_share(g, a) > graph_share(g, p));
	/* holds are run-queue time: blocked time stays what the waits say */
	assert_true(g->nodes[p].waits_ns == 400.0 * MS);
	assert_true(g->nodes[p].holds_ns == 400.0 * MS);
	reason(g, p, why, sizeof(why));
	assert_string_equal(why, "CPU-starved by enrich (62% of its run-queue wait)");
	/* the shares add up: no blocked time lost on the way */
	assert_true(fabs(graph_share(g, e) + graph_share(g, a) +
			 graph_share(g, p) + graph_share(g, node(g, "src")) +
			 graph_share(g, node(g, "sink")) - 1) < 1e-9);
}

static const char *fake_name(const void *ctx, __u32 tid, char *buf,
			     size_t len)
{
	(void)ctx;
	if (tid != 999)
		return NULL;
	snprintf(buf, len, "noisy");
	return buf;
}

/*
 * A stage pinned beside a CPU hog of another process: its starvation
 * leads out of the graph, so it stays the bottleneck, and says who.
 */
static const struct task_def starved_by_outsider_tasks[] = {
	{ 1, "src", 50, 0, 950, { T(2, 950) } },
	{ 2, "b", 300, 600, 100,
	  { T(1, 100), { TDBPF_HOLDER_OTHER, 999, 40, 540 },
	    { TDBPF_HOLDER_UNSEEN, 0, 2, 60 } } },
	{ 3, "sink", 50, 0, 950, { T(2, 950) } },
	{ 0 }
};

static void check_starved_by_outsider(struct graph *g, struct task_table *t)
{
	char why[192];
	int b;

	(void)t;
	b = first_is(g, "b", NULL);
	/*
	 * src keeps b's 100 ms on it; of sink's 950, b keeps 300/400 (the
	 * CPU others held left out), src the rest
	 */
	assert_true(fabs(g->nodes[b].led_ns - 1662.5 * MS) < 1e-3);
	reason(g, b, why, sizeof(why));
	assert_string_equal(why, "CPU-starved by tid 999 (outside the targets) (90% of its run-queue wait)");
	g->look = &(struct graph_lookups){ .tid_name = fake_name };
	reason(g, b, why, sizeof(why));
	assert_string_equal(why, "CPU-starved by noisy (outside the targets) (90% of its run-queue wait)");
}

/*
 * A JVM's housekeeping threads sleep on timers and nobody waits on them:
 * idle, never candidates, however long they sleep. The stage the others
 * wait on is the one named.
 */
static const struct task_def idle_threads_tasks[] = {
	{ 1, "Source", 50, 0, 950, { T(2, 950) } },
	{ 2, "Map -> Filter", 800, 100, 100, { T(1, 100) } },
	{ 3, "Sink", 50, 0, 950, { T(2, 950) } },
	{ 10, "VM Periodic Tas", 1, 0, 999, { K(TDBPF_WAKER_TIMER, 999) } },
	{ 11, "G1 Service", 1, 0, 999, { K(TDBPF_WAKER_TIMER, 999) } },
	{ 12, "Monitor Deflati", 1, 0, 999, { K(TDBPF_WAKER_TIMER, 990), T(10, 9) } },
	{ 0 }
};

static void check_idle_threads(struct graph *g, struct task_table *t)
{
	int i;

	(void)t;
	first_is(g, "Map -> Filter", NULL);
	for (i = 0; i < g->nr_rank; i++) {
		assert_string_not_equal(g->nodes[g->rank[i]].name, "G1 Service");
		assert_string_not_equal(g->nodes[g->rank[i]].name, "Monitor Deflati");
	}
	/*
	 * VM Periodic: only the 9 ms Monitor Deflation waited on it, in a
	 * part of the graph (the two of them) that does 2 ms of the 903 ms
	 * of work: weighed as such
	 */
	assert_true(fabs(g->nodes[node(g, "VM Periodic Tas")].led_ns -
			 9.0 * MS * 2 / 903) < 1e-3);
	assert_true(g->nodes[node(g, "G1 Service")].led_ns == 0);
}

/*
 * gst-launch paced by its sink's clock: the source waits on queue0:src
 * per frame; GLib's gmain sleeps the whole run until the main thread
 * wakes it once at the end, and a thread wakes itself (a signal). Neither
 * of those waits leads anywhere: queue0:src is the only candidate. The
 * same 1.4 s ended by 100 wakeups would be a delay, and count; so does
 * one whose count is not known (0: a graph joined from Prometheus). It
 * counts as the work of its part weighs: gmain and the main thread do
 * 21 ms of the 281 ms, the source and its queue 250 ms, so the queue is
 * named first all the same.
 */
static void test_one_off_waits(void **state)
{
	struct task_table t;
	struct graph g;
	char why[192];
	static const __u64 count[] = { 1, 100, 0 };
	int q, m, i;

	(void)state;

	for (i = 0; i < 3; i++) {
		waits_table(&t);
		add(&t, 1, "gst-launch-1.0", 20, 0, 1480,
		    (struct w[]){ K(TDBPF_WAKER_TIMER, 1480), {0} });
		add(&t, 2, "gmain", 1, 0, 1499,
		    (struct w[]){ { TDBPF_WAKER_TASK, 1, count[i], 1400 },
				  K(TDBPF_WAKER_TIMER, 99), {0} });
		add(&t, 3, "videotestsrc0:s", 100, 0, 1400,
		    (struct w[]){ T(4, 1300), K(TDBPF_WAKER_TIMER, 100), {0} });
		add(&t, 4, "queue0:src", 150, 0, 1350,
		    (struct w[]){ K(TDBPF_WAKER_TIMER, 1300), T(3, 50), {0} });
		add(&t, 5, "selfish", 10, 0, 1490,
		    (struct w[]){ { TDBPF_WAKER_TASK, 5, 1, 1490 }, {0} });
		build(&g, &t, false);
		q = node(&g, "queue0:src");
		m = node(&g, "gst-launch-1.0");
		assert_true(g.nodes[node(&g, "selfish")].led_ns == 0);
		reason(&g, node(&g, "selfish"), why, sizeof(why));
		assert_string_equal(why, "waits on itself, or once at its start or end (100% of its blocked time)");
		assert_true(g.nodes[q].led_ns >= 1300.0 * MS * 250 / 281);
		assert_int_equal(g.rank[0], q);
		if (!i) {
			/* the main thread: nobody's waits bring it anything */
			assert_true(g.nodes[m].led_ns == 0);
			/* and queue0's 50 ms on videotestsrc0 stay there */
			assert_int_equal(g.nr_rank, 2);
			assert_int_equal(g.rank[0], q);
		} else {
			assert_true(fabs(g.nodes[m].led_ns -
					 1400.0 * MS * 21 / 281) < 1e-3);
		}
		graph_free(&g);
		tasks_free(&t);
	}
}

/*
 * A source is a task that waits on the node for 1% of its time: one
 * GStreamer thread runs a whole pipeline (1170 ms) and waits 1 ms on the
 * main thread at its start, which is all its blocked time, while the main
 * thread waits 6 ms on it beside its one wait on itself. Neither delays
 * the other: no sources, whoever ranks first (report_set_graph() then
 * names the busiest). A sink blocked 400 ms of its 1000 on the streaming
 * thread is one.
 */
static void test_sources_by_time(void **state)
{
	struct task_table t;
	struct graph g;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		waits_table(&t);
		add(&t, 1, "gst-launch-1.0", 10, 3, 1171,
		    (struct w[]){ { TDBPF_WAKER_TASK, 1, 2, 1165 }, T(2, 6),
				  {0} });
		add(&t, 2, "videotestsrc0:s", 1170, 1, 1,
		    (struct w[]){ T(1, 1), {0} });
		if (i)
			add(&t, 3, "sink", 600, 0, 400,
			    (struct w[]){ { TDBPF_WAKER_TASK, 2, 100, 400 },
					  {0} });
		build(&g, &t, false);
		assert_int_equal(g.nodes[node(&g, "gst-launch-1.0")].nr_sources,
				 0);
		assert_int_equal(g.nodes[node(&g, "videotestsrc0:s")].nr_sources,
				 i);
		graph_free(&g);
		tasks_free(&t);
	}
}

/*
 * A JVM's driver thread sleeps the job's length on a timer; its compiler
 * thread waits on it for compile tasks, many short waits, and a service
 * thread's one wait, 2.4 s of its 2.5, ended by it at the exit. The
 * source waits on the hot map stage. What reaches the driver while it
 * sleeps that once leaves the graph: it keeps its own work's share of
 * the compiler's waits (60 of 2500 ms), the service thread's one wait
 * is no source, and the map stage is named. Without the longest wait
 * known, a count of 3 has the driver keep all that reaches it.
 */
static void test_longest_wait(void **state)
{
	struct task_table t;
	struct graph g;
	int d, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		waits_table(&t);
		add(&t, 1, "java", 60, 0, 2440,
		    (struct w[]){ { TDBPF_WAKER_TIMER, 0, 3, 2440 }, {0} });
		add(&t, 2, "C2 CompilerThre", 100, 0, 2400,
		    (struct w[]){ { TDBPF_WAKER_TASK, 1, 200, 2400 }, {0} });
		add(&t, 3, "Service Thread", 1, 0, 2499,
		    (struct w[]){ { TDBPF_WAKER_TASK, 1, 3, 2499 }, {0} });
		add(&t, 4, "Source", 300, 0, 1500, (struct w[]){ T(5, 1500), {0} });
		add(&t, 5, "Map", 2000, 0, 300, (struct w[]){ T(4, 300), {0} });
		set_longest(&t, 2, TDBPF_WAKER_TASK, 1, 300);
		if (!k) {
			set_longest(&t, 1, TDBPF_WAKER_TIMER, 0, 2400);
			set_longest(&t, 3, TDBPF_WAKER_TASK, 1, 2400);
		}
		build(&g, &t, false);
		d = node(&g, "java");
		if (!k) {
			first_is(&g, "Map", NULL);
			/*
			 * the compiler's 2400 and the service thread's 99
			 * after its one wait; the driver keeps its work and
			 * its 40 ms of other sleeps of its 2500, weighed by
			 * its part's 161 ms of the 2461 of work
			 */
			assert_true(fabs(g.nodes[d].led_ns -
					 2499.0 * MS * 100 / 2500 * 161 /
						 2461) < 1e-3);
		} else {
			/* the sleep kept: all that reaches it stays */
			assert_true(fabs(g.nodes[d].led_ns -
					 4899.0 * MS * 161 / 2461) < 1e-3);
		}
		graph_free(&g);
		tasks_free(&t);
	}
}

/*
 * A whole host: a stream graph of two stages beside an idle pool whose
 * timer thread hands tokens to four workers every 2 ms. The workers
 * wait on the timer thread 9.6 s in all, the stream's source on its
 * sink 1.5 s: counted alike, the timer thread would be named. Each
 * part's waits weigh its share of the work, 2300 of 2306 ms and 6 of
 * it: the sink is named, and the timer thread keeps 9.6 s of the pool's
 * weight.
 */
static const struct task_def idle_part_tasks[] = {
	{ 1, "gen", 300, 0, 1500, { T(2, 1500) } },
	{ 2, "sink", 2000, 0, 300, { T(1, 300) } },
	{ 10, "scheduler-tick", 2, 0, 2498,
	  { { TDBPF_WAKER_TIMER, 0, 1200, 2498 } } },
#define WORKER(tid) \
	{ tid, "worker", 1, 0, 2400, { { TDBPF_WAKER_TASK, 10, 1200, 2400 } } }
	WORKER(11), WORKER(12), WORKER(13), WORKER(14),
#undef WORKER
	{ 0 }
};

static void check_idle_part(struct graph *g, struct task_table *t)
{
	(void)t;
	first_is(g, "sink", NULL);
	assert_true(fabs(g->nodes[node(g, "scheduler-tick")].led_ns -
			 9600.0 * MS * 6 / 2306) < 1e-3);
}

/*
 * Two branches of a fan-in both run most of the time and the sink waits
 * on each about as long: a tie, both named; with one clearly ahead, none.
 */
static const struct task_def tie_tasks[] = {
	{ 1, "a", 900, 50, 50, { { 0 } } },
	{ 2, "b", 900, 50, 50, { { 0 } } },
	{ 3, "sink", 50, 0, 950, { T(1, 500), T(2, 450) } },
	{ 0 }
};

static void check_tie(struct graph *g, struct task_table *t)
{
	(void)t;
	assert_int_equal(g->nr_rank, 2);
	assert_int_equal(g->nr_tied, 2);
	assert_int_equal(g->rank[0], node(g, "a"));
}

static const struct task_def tie_apart_tasks[] = {
	{ 1, "a", 900, 50, 50, { { 0 } } },
	{ 2, "b", 900, 50, 50, { { 0 } } },
	{ 3, "sink", 50, 0, 950, { T(1, 650), T(2, 300) } },
	{ 0 }
};

static void check_tie_apart(struct graph *g, struct task_table *t)
{
	(void)t;
	assert_int_equal(g->nr_tied, 1);
}

/*
 * A fan-in read in turn, its second input slowed by a sleep per record,
 * on CPUs it shares (bench-graph's g08, rounded): the fast input waits
 * on the join 1310 ms and the join on the slow input only 322 ms, its
 * other time running or waiting for a CPU. More of the blocked time
 * reaches the join (it keeps 925 / (925 + 283 + 322) of the fast
 * input's), but in2 waits on no task at all and the join does 16% of
 * its life: in2 is the busier, and it is what a speed-up shows.
 */
static const struct task_def fan_in_busy_tasks[] = {
	{ 1, "in1", 440, 245, 1310, { T(3, 1310), H(3, 107) } },
	{ 2, "in2", 590, 520, 885,
	  { { TDBPF_WAKER_TIMER, 0, 10000, 880 }, H(1, 186), H(3, 58) } },
	{ 3, "join", 925, 740, 330, { T(2, 322), H(2, 283), H(1, 76) } },
	{ 0 }
};

static void check_fan_in_busy(struct graph *g, struct task_table *t)
{
	int in2 = node(g, "in2"), join = node(g, "join");

	(void)t;
	assert_true(g->nodes[join].led_ns > g->nodes[in2].led_ns);
	first_is(g, "in2", NULL);
	assert_true(fabs(g->nodes[in2].busy - 1) < 1e-9);
	assert_true(fabs(g->nodes[join].busy - (1 - 322.0 / 1995)) < 1e-9);
	assert_int_equal(g->nr_tied, 1);
}

/*
 * Two busy tasks that only take the CPU from each other (a cycle of
 * holds), a blocked one waiting on the first: the flow ends, finite,
 * shared between them, nothing lost.
 */
static const struct task_def hold_cycle_tasks[] = {
	{ 1, "a", 500, 500, 0, { H(2, 500) } },
	{ 2, "b", 500, 500, 0, { H(1, 500) } },
	{ 3, "src", 10, 0, 990, { T(1, 990) } },
	{ 0 }
};

static void check_hold_cycle(struct graph *g, struct task_table *t)
{
	int a, b;

	(void)t;
	a = node(g, "a");
	b = node(g, "b");
	/*
	 * a keeps 1/2, sends 1/2 to b, which keeps it: it waited on a, and
	 * its time less that is its own work
	 */
	assert_true(fabs(graph_share(g, a) - 0.5) < 1e-6);
	assert_true(fabs(graph_share(g, b) - 0.5) < 1e-6);
	assert_false(g->nodes[a].cycle);
}

/* Nothing blocked, nothing ranked; an empty table is a graph too. */
static void test_nothing_blocked(void **state)
{
	struct task_table t;
	struct graph g;

	(void)state;
	waits_table(&t);
	build(&g, &t, false);
	assert_int_equal(g.nr_rank, 0);
	graph_free(&g);
	add(&t, 1, "spin", 1000, 0, 0, NULL);
	build(&g, &t, false);
	assert_int_equal(g.nr_rank, 0);
	assert_int_equal(g.nr_edges, 0);
	done(&g, &t);
}

/*
 * Slots add and subtract by (kind, tid), in lists of the slots in use;
 * the last of each half (wakers, holders) takes the rest.
 */
static void test_waits_slots(void **state)
{
	struct tdbpf_wait a[TDBPF_NR_WAITS], b[TDBPF_NR_WAITS], d[TDBPF_NR_WAITS];
	struct tdbpf_wait one;
	int na = 0, i;
	__u64 n;

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	b[0] = (struct tdbpf_wait){ .kind = TDBPF_WAKER_TASK, .tid = 7, .wakeups = 2, .wait_ns = 20 };
	b[1] = (struct tdbpf_wait){ .kind = TDBPF_WAKER_TIMER, .tid = 0, .wakeups = 1, .wait_ns = 5 };
	/* BPF's fixed slots: the empty ones take no room */
	assert_int_equal(waits_need(a, na, b, TDBPF_NR_WAITS), 2);
	waits_add(a, &na, b, TDBPF_NR_WAITS);
	assert_int_equal(waits_need(a, na, b, TDBPF_NR_WAITS), 2);
	waits_add(a, &na, b, 2);
	assert_int_equal(na, 2);
	assert_int_equal(a[0].wakeups, 4);
	assert_int_equal(a[0].wait_ns, 40);
	assert_int_equal(a[1].kind, TDBPF_WAKER_TIMER);
	assert_int_equal(waits_total(a, na, &n), 50);
	assert_int_equal(n, 6);
	/* different slot order in the older one: matched by key */
	memset(d, 0, sizeof(d));
	waits_sub(d, a, na, (struct tdbpf_wait[2]){
				{ .kind = TDBPF_WAKER_TIMER, .tid = 0, .wakeups = 1, .wait_ns = 5 },
				{ .kind = TDBPF_WAKER_TASK, .tid = 7, .wakeups = 1, .wait_ns = 15 } }, 2);
	assert_int_equal(d[0].wakeups, 3);
	assert_int_equal(d[0].wait_ns, 25);
	assert_int_equal(d[1].wakeups, 1);
	assert_int_equal(d[1].wait_ns, 5);
	/* in place, as tasks_sub() does */
	waits_sub(a, a, na, d, 2);
	assert_int_equal(a[0].wakeups, 1);
	assert_int_equal(a[0].wait_ns, 15);
	assert_int_equal(a[1].wakeups, 1);
	/* more wakers than slots: the rest lands in the last, never lost */
	na = 0;
	for (i = 0; i < TDBPF_WAKER_SLOTS + 3; i++) {
		one = (struct tdbpf_wait){ .kind = TDBPF_WAKER_TASK, .tid = 100 + i, .wakeups = 1, .wait_ns = 10 };
		/* room asked for: at most one more, or none once full */
		n = (__u64)waits_need(a, na, &one, 1);
		waits_add(a, &na, &one, 1);
		assert_true(n >= (__u64)na && n <= (__u64)na + 1);
	}
	assert_int_equal(na, TDBPF_WAKER_SLOTS);
	assert_int_equal(a[TDBPF_WAKER_SLOTS - 1].kind, TDBPF_WAKER_SPILL);
	assert_int_equal(a[TDBPF_WAKER_SLOTS - 1].wakeups, 4);
	assert_int_equal(waits_total(a, na, &n), 10 * (TDBPF_WAKER_SLOTS + 3));
	/* holders of the CPU have the other half: wakers keep theirs */
	for (i = 0; i < TDBPF_WAKER_SLOTS + 2; i++) {
		one = (struct tdbpf_wait){ .kind = TDBPF_HOLDER_TASK,
					   .tid = 200 + i, .wakeups = 1,
					   .wait_ns = 5 };
		waits_add(a, &na, &one, 1);
	}
	assert_int_equal(na, TDBPF_NR_WAITS);
	assert_int_equal(a[TDBPF_WAKER_SLOTS].kind, TDBPF_HOLDER_TASK);
	assert_int_equal(a[TDBPF_NR_WAITS - 1].kind, TDBPF_HOLDER_UNSEEN);
	assert_int_equal(a[TDBPF_NR_WAITS - 1].wakeups, 3);
	assert_int_equal(a[TDBPF_WAKER_SLOTS - 1].wakeups, 4);
	/* a full list takes another of each into the spill slots */
	one = (struct tdbpf_wait){ .kind = TDBPF_WAKER_TIMER, .wakeups = 1 };
	waits_add(a, &na, &one, 1);
	assert_int_equal(na, TDBPF_NR_WAITS);
	assert_int_equal(a[TDBPF_WAKER_SLOTS - 1].wakeups, 5);
	assert_string_equal(waker_kind_name(TDBPF_WAKER_SPILL), "other-wakers");
	assert_null(waker_kind_name(TDBPF_WAKER_TASK));
}

/* @g as DOT (caller frees). */
static char *dot_of(const struct graph *g)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	assert_int_equal(graph_write_dot(f, g), 0);
	return slurp(f);
}

/* Graphviz accepts @s, when it is installed (Debian: graphviz). */
static void dot_accepts(const char *s)
{
	char path[] = "/tmp/tdbpf-dot-XXXXXX", cmd[128];
	int fd;

	if (access("/usr/bin/dot", X_OK))
		return;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/dot -Tsvg %s >/dev/null", path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

/*
 * Arrows run the way data flows, from the task that waited to
 * what it waited on (source waits on enrich: source -> enrich), edges of
 * one kind into a task are one arrow, an idle task's unseen time is
 * left out, and a legend says what the lines are.
 */
static const struct task_def dot_tasks[] = {
	{ 1, "source", 50, 0, 950, { T(2, 950) } },
	{ 2, "en\"rich", 100, 300, 885,
	  { K(TDBPF_WAKER_TIMER, 880), T(1, 5),
	    { TDBPF_HOLDER_OTHER, 4001, 3, 100 },
	    { TDBPF_HOLDER_OTHER, 4002, 2, 150 } } },
	/* never woken: its life is unseen blocked time */
	{ 3, "idler", 0, 0, 1000, { { 0 } } },
	{ 0 }
};

static void check_dot(struct graph *g, struct task_table *t)
{
	char *s = dot_of(g);

	(void)t;
	has_all(s, STRS("digraph tdbpf {", "BOTTLENECK\\nen\\\"rich\\ntid 2",
			/* nodes by tid: source n0, enrich n1 */
			"n0 -> n1 [label=\"950.0 ms\\n10 wakeups\"",
			"n1 -> k7 [label=\"880.0 ms\\n10 wakeups\"",
			"k7 [label=\"timer\", shape=ellipse",
			/* the holders outside the targets: one cpu-other */
			"n1 -> k13 [label=\"250.0 ms on CPU\\n5 waits\", style=dotted",
			"subgraph cluster_legend", "dotted: run-queue time"));
	/* the idle task: no unseen arrow, so no unseen ellipse */
	has_none(s, STRS("n1 -> n0", "100.0 ms on CPU", "n2 -> ",
			 "label=\"unseen\""));
	dot_accepts(s);
	free(s);
}

/*
 * A relay waits on two peers on other hosts: briefly on the one that
 * feeds it (a read), for most of its life on the one it writes to. Two
 * edges, each named by its own address: the first slot's name on both
 * (what once merged them) made the feeder the relay's bottleneck.
 */
static void test_endpoints_apart(void **state)
{
	struct task_table t;
	struct graph g;
	char why[256];
	int relay, j, seen = 0;

	(void)state;
	waits_table(&t);
	add(&t, 2, "relay", 50, 0, 950, NULL);
	/* the feeder's slot first, as when tracing began during a read */
	set_wait(&t, tasks_get(&t, 2),
		 (struct tdbpf_wait){ .kind = TDBPF_WAKER_ENDPOINT,
				      .tid = 39250, .tgid = htonl(0x0a4d0001),
				      .wakeups = 8, .wait_ns = 10 * MS });
	set_wait(&t, tasks_get(&t, 2),
		 (struct tdbpf_wait){ .kind = TDBPF_WAKER_ENDPOINT,
				      .tid = 7002, .tgid = htonl(0x0a4d0003),
				      .wakeups = 591, .wait_ns = 930 * MS });
	build(&g, &t, false);
	relay = node(&g, "relay");
	for (j = 0; j < g.nodes[relay].nr_in; j++) {
		const struct graph_edge *e =
			&g.edges[g.nodes[relay].first_in + j];

		if (e->kind != TDBPF_WAKER_ENDPOINT)
			continue;
		seen++;
		if (e->wakeups == 591) {
			assert_string_equal(e->ext_name, "10.77.0.3:7002");
			assert_int_equal(e->wait_ns, 930 * MS);
		} else {
			assert_string_equal(e->ext_name, "10.77.0.1:39250");
			assert_int_equal(e->wakeups, 8);
		}
	}
	assert_int_equal(seen, 2);
	reason(&g, relay, why, sizeof(why));
	assert_string_equal(why, "waits on 10.77.0.3:7002, a peer on another host or namespace (98% of its blocked time)");
	done(&g, &t);
}

static const char *fake_peer(const void *ctx, __u32 pid, __u32 tid,
			     char *buf, size_t len)
{
	(void)ctx;
	if (pid != 70 || tid != 77)
		return NULL;
	snprintf(buf, len, "kafka");
	return buf;
}

/* Set row @tid's process to @pid and a slot to @w, a socket's peer. */
static void peer_slot(struct task_table *t, __u32 tid, __u32 pid,
		      struct tdbpf_wait w)
{
	struct task_row *r = tasks_get(t, tid);

	r->pid = pid;
	if (w.kind)
		set_wait(t, r, w);
}

/*
 * Three processes in one graph (-p A,B,C): two of them have a "relay",
 * so both nodes say their process; a socket's peer in a process not
 * traced is named with its pid, and a remote endpoint by its address.
 * --per-name folds the relays across processes into one node.
 */
static void test_processes(void **state)
{
	struct tdbpf_wait none = { 0 };
	struct task_table t;
	struct graph g;
	int i, kafka = -1, ep = -1, sink;
	char *dot;

	(void)state;
	waits_table(&t);
	add(&t, 1, "gen", 50, 0, 950, (struct w[]){ T(2, 900), {0} });
	add(&t, 2, "relay", 50, 0, 950, (struct w[]){ T(4, 950), {0} });
	add(&t, 3, "relay", 50, 0, 950, (struct w[]){ T(4, 950), {0} });
	add(&t, 4, "sink", 900, 0, 100, NULL);
	peer_slot(&t, 1, 10, none);
	peer_slot(&t, 2, 20, none);
	peer_slot(&t, 3, 30, none);
	peer_slot(&t, 4, 40,
		  (struct tdbpf_wait){ .kind = TDBPF_WAKER_PROCESS, .tid = 77,
				       .tgid = 70, .wakeups = 5,
				       .wait_ns = 60 * MS });
	peer_slot(&t, 4, 40,
		  (struct tdbpf_wait){ .kind = TDBPF_WAKER_ENDPOINT,
				       .tid = 9092, .tgid = htonl(0x0a010203),
				       .wakeups = 2, .wait_ns = 40 * MS });
	assert_int_equal(graph_build(&g, &t, false,
				     &(struct graph_lookups){
					     .peer = fake_peer }), 0);
	node(&g, "relay (20)");
	node(&g, "relay (30)");
	node(&g, "gen");
	sink = node(&g, "sink");
	assert_int_equal(g.nodes[sink].pid, 40);
	for (i = 0; i < g.nr_edges; i++) {
		if (g.edges[i].kind == TDBPF_WAKER_PROCESS)
			kafka = i;
		if (g.edges[i].kind == TDBPF_WAKER_ENDPOINT)
			ep = i;
	}
	assert_true(kafka >= 0 && ep >= 0);
	assert_string_equal(graph_waker_name(&g, &g.edges[kafka]),
			    "kafka (70)");
	assert_int_equal(g.edges[kafka].ext_pid, 70);
	assert_int_equal(g.edges[kafka].ext_tid, 77);
	assert_string_equal(graph_waker_name(&g, &g.edges[ep]),
			    "10.1.2.3:9092");
	/* DOT: a cluster per process, the peer in one of its own */
	dot = dot_of(&g);
	has_all(dot, STRS("subgraph cluster_p20 {",
			  /* no main thread in the graph: the cluster's pid */
			  "label=\"pid 20\"", "label=\"pid 70 (not traced)\"",
			  "kafka (70)", "10.1.2.3:9092"));
	free(dot);
	graph_free(&g);
	/* a peer whose name is gone: its pid */
	build(&g, &t, false);
	for (i = 0; i < g.nr_edges; i++)
		if (g.edges[i].kind == TDBPF_WAKER_PROCESS)
			assert_string_equal(graph_waker_name(&g, &g.edges[i]),
					    "pid 70");
	graph_free(&g);
	build(&g, &t, true);
	assert_int_equal(g.nodes[node(&g, "relay")].nr_tasks, 2);
	done(&g, &t);
}

/*
 * Data skew as it runs: the two cold subtasks idle, blocked on the
 * source, which waits on the hot one. Folded sums would make the
 * operator look blocked on its source (1,950 of its 3,000 ms); the
 * verdict over tasks, folded, names it. By hand: the source's 950 ms
 * stay with (2/3), which has no other wait; each cold subtask's 950
 * reach the source, which keeps its 50 of 1,000 (47.5) and passes the
 * rest to (2/3); (2/3)'s own 50 stay with the source, whose only wait
 * is on it. The operator: 950 + 2 x 902.5 = 2,755 of 2,900 ms.
 */
static const struct task_def per_name_idle_siblings_tasks[] = {
	{ 1, "Source (1/1)#0", 50, 0, 950, { T(12, 950) } },
	{ 11, "Map (1/3)#0", 50, 0, 950, { T(1, 950) } },
	{ 12, "Map (2/3)#0", 950, 0, 50, { T(1, 50) } },
	{ 13, "Map (3/3)#0", 50, 0, 950, { T(1, 950) } },
	{ 0 }
};

static void check_per_name_idle_siblings(struct graph *g, struct task_table *t)
{
	int m, s;

	m = node(g, "Map (*/3)#0");
	s = node(g, "Source (1/1)#0");
	assert_int_equal(g->rank[0], m);
	assert_int_equal(g->nodes[m].hot_tid, 12);
	assert_true(fabs(g->nodes[m].led_ns - 2755.0 * MS) < 1e-3);
	assert_true(fabs(g->nodes[s].led_ns - 145.0 * MS) < 1e-3);
	assert_true(fabs(graph_share(g, m) - 2755.0 / 2900) < 1e-9);

	/* the hot subtask's reason, not the folded sums' "waits on" */
	verdict_starts(g, t, "bottleneck: Map (*/3)#0 (3 tasks; hot: Map (2/3)#0, tid 12): runs (on-CPU 95%)");
}

/*
 * Two holders outside the targets (tids 90 and 91, no rows)
 * are one cpu-other in WAITS ON, as the DOT draws them: 300 + 250 ms of
 * the 950 ms of work's waits (55/95 = 58%), above parse's 400 ms alone.
 */
static const struct task_def waits_on_merges_outsiders_tasks[] = {
	{ 1, "work", 50, 550, 400, { T(2, 400), H(90, 300), H(91, 250) } },
	{ 2, "parse", 900, 0, 100, { T(1, 100) } },
	{ 0 }
};

static void check_waits_on_merges_outsiders(struct graph *g, struct task_table *t)
{
	char cell[64];

	(void)t;
	graph_waits_on(g, node(g, "work"), cell, sizeof(cell));
	assert_string_equal(cell, "cpu-other 58%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GRAPH_TEST(running_bottleneck, false),
		cmocka_unit_test(test_running_chain),
		GRAPH_TEST(io_bottleneck, false),
		cmocka_unit_test(test_verdicts),
		GRAPH_TEST(starved_but_blocked, false),
		GRAPH_TEST(starved_half_blocked, false),
		GRAPH_TEST(cycle_with_exit, false),
		GRAPH_TEST(closed_cycle, false),
		GRAPH_TEST(per_name, true),
		GRAPH_TEST(per_name_hot_instance, true),
		GRAPH_TEST(per_name_idle_siblings, true),
		GRAPH_TEST(unseen, false),
		GRAPH_TEST(starved_by_task, false),
		GRAPH_TEST(starved_by_outsider, false),
		GRAPH_TEST(idle_threads, false),
		cmocka_unit_test(test_one_off_waits),
		cmocka_unit_test(test_sources_by_time),
		cmocka_unit_test(test_longest_wait),
		GRAPH_TEST(idle_part, false),
		GRAPH_TEST(tie, false),
		GRAPH_TEST(tie_apart, false),
		GRAPH_TEST(fan_in_busy, false),
		GRAPH_TEST(hold_cycle, false),
		cmocka_unit_test(test_nothing_blocked),
		cmocka_unit_test(test_waits_slots),
		GRAPH_TEST(dot, false),
		GRAPH_TEST(waits_on_merges_outsiders, false),
		cmocka_unit_test(test_processes),
		cmocka_unit_test(test_endpoints_apart),
	};

	return cmocka_run_group_tests_name("graph", tests, NULL, NULL);
}
