// SPDX-License-Identifier: GPL-2.0
/*
 * The wait-for graph and its verdict on hand-made task tables: where the
 * blocked time leads, why, through cycles and over folded names; the
 * waker slots' arithmetic; the DOT text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>
#include <arpa/inet.h>
#include "analysis/graph.h"
#include "outputs/sink.h"
#include "unit_helpers.h"

#define MS	1000000ULL

struct w {
	unsigned int kind;
	__u32 tid;
	__u64 wakeups, wait_ms;
};

/* A task of @on/@runq/@off ms whose waits were ended by @w (kind 0 ends). */
static void add(struct task_table *t, __u32 tid, const char *comm, __u64 on,
		__u64 runq, __u64 off, const struct w *w)
{
	struct tdbpf_wait ws[TDBPF_NR_WAITS];
	struct tdbpf_task s;
	int i;

	memset(&s, 0, sizeof(s));
	memset(ws, 0, sizeof(ws));
	s.tid = tid;
	s.tgid = 100;
	snprintf(s.comm, sizeof(s.comm), "%s", comm);
	s.sched.on_cpu_ns = on * MS;
	s.sched.runq_wait_ns = runq * MS;
	s.sched.off_cpu_ns = off * MS;
	for (i = 0; w && w[i].kind; i++) {
		ws[i].kind = w[i].kind;
		ws[i].tid = w[i].tid;
		ws[i].wakeups = w[i].wakeups;
		ws[i].wait_ns = w[i].wait_ms * MS;
	}
	assert_int_equal(tasks_add(t, &s, ws, 0), 0);
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

/*
 * source -> parse -> enrich -> sink, enrich on CPU 95% of the time: every
 * blocked stage's waits lead to enrich, directly or through parse.
 */
static void test_running_bottleneck(void **state)
{
	struct task_table t;
	struct graph g;
	char why[192];
	int e;

	(void)state;
	waits_table(&t);
	add(&t, 1, "source", 50, 0, 950, (struct w[]){ T(2, 900), K(TDBPF_WAKER_TIMER, 50), {0} });
	add(&t, 2, "parse", 50, 0, 950, (struct w[]){ T(3, 950), {0} });
	add(&t, 3, "enrich", 950, 10, 40, (struct w[]){ T(2, 40), {0} });
	add(&t, 4, "sink", 60, 0, 940, (struct w[]){ T(3, 940), {0} });
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	e = node(&g, "enrich");
	assert_int_equal(g.nodes[e].role, ROLE_RUNNING);
	assert_int_equal(g.nodes[node(&g, "parse")].role, ROLE_PASS);
	assert_true(g.nr_rank >= 1);
	assert_int_equal(g.rank[0], e);
	/* source's 50 ms of timer waits stop at source: the rest is enrich's */
	assert_true(graph_share(&g, e) > (2840.0 - 50) / 2840 - 1e-6);
	assert_true(graph_share(&g, e) < (2840.0 - 50) / 2840 + 1e-6);
	assert_int_equal(g.nodes[e].nr_sources, 3);
	reason(&g, e, why, sizeof(why));
	assert_non_null(strstr(why, "runs (on-CPU 95%)"));
	graph_reason(&g, e, "Backend.Memory.DRAM", why, sizeof(why));
	assert_non_null(strstr(why, "Backend.Memory.DRAM"));
	graph_free(&g);
	tasks_free(&t);
}

/* The middle stage waits on a timer for most of its blocked time. */
static void test_io_bottleneck(void **state)
{
	struct task_table t;
	struct graph g;
	char why[192];
	int e;

	(void)state;
	waits_table(&t);
	add(&t, 1, "source", 50, 0, 950, (struct w[]){ T(2, 950), {0} });
	add(&t, 2, "enrich", 100, 0, 900, (struct w[]){ K(TDBPF_WAKER_TIMER, 800), T(1, 50), T(3, 50), {0} });
	add(&t, 3, "sink", 50, 0, 950, (struct w[]){ T(2, 950), {0} });
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	e = node(&g, "enrich");
	assert_int_equal(g.nodes[e].role, ROLE_EXTERNAL);
	assert_int_equal(g.nodes[e].ext_kind, TDBPF_WAKER_TIMER);
	assert_int_equal(g.rank[0], e);
	/* everything: enrich's own waits too, its task waits end at itself */
	assert_true(graph_share(&g, e) > 1 - 1e-9);
	assert_int_equal(g.nodes[e].nr_sources, 3);
	reason(&g, e, why, sizeof(why));
	assert_string_equal(why, "waits on timers (sleeps, timerfd, timeouts) (89% of its blocked time)");
	graph_free(&g);
	tasks_free(&t);
}

static void test_starved_bottleneck(void **state)
{
	struct task_table t;
	struct graph g;
	char why[192];
	int e;

	(void)state;
	waits_table(&t);
	add(&t, 1, "source", 50, 0, 950, (struct w[]){ T(2, 950), {0} });
	add(&t, 2, "score", 300, 600, 100, (struct w[]){ T(1, 100), {0} });
	add(&t, 3, "sink", 50, 0, 950, (struct w[]){ T(2, 950), {0} });
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	e = node(&g, "score");
	assert_int_equal(g.nodes[e].role, ROLE_STARVED);
	assert_int_equal(g.rank[0], e);
	reason(&g, e, why, sizeof(why));
	assert_string_equal(why, "CPU-starved (runq 60%, on-CPU 30%)");
	graph_free(&g);
	tasks_free(&t);
}

/*
 * A stage starved whenever it runs (the pool it waits on hogs the CPUs)
 * but blocked most of its time on that pool: it passes its waits on.
 */
static void test_starved_but_blocked(void **state)
{
	struct task_table t;
	struct graph g;
	int j, p;

	(void)state;
	waits_table(&t);
	add(&t, 1, "join", 110, 270, 620, (struct w[]){ T(2, 620), {0} });
	add(&t, 2, "parse", 350, 560, 90, (struct w[]){ T(3, 90), {0} });
	add(&t, 3, "source", 10, 0, 990, (struct w[]){ T(2, 990), {0} });
	add(&t, 4, "filter", 10, 0, 990, (struct w[]){ T(1, 990), {0} });
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	j = node(&g, "join");
	p = node(&g, "parse");
	assert_int_equal(g.nodes[j].sched, SCHED_STARVED);
	assert_int_equal(g.nodes[j].role, ROLE_PASS);
	assert_int_equal(g.nodes[p].role, ROLE_STARVED);
	assert_int_equal(g.rank[0], p);
	assert_true(graph_share(&g, p) > 1 - 1e-9);
	graph_free(&g);
	tasks_free(&t);
}

/*
 * A loaded machine: every stage waits for a CPU. score, light, is starved
 * half its time and blocked the other half on enrich, the heavy stage:
 * it keeps half of what reaches it and sends the rest to enrich, which
 * the verdict names.
 */
static void test_starved_half_blocked(void **state)
{
	struct task_table t;
	struct graph g;
	int e, s;

	(void)state;
	waits_table(&t);
	add(&t, 1, "source", 10, 90, 900, (struct w[]){ T(2, 900), {0} });
	add(&t, 2, "parse", 10, 90, 900, (struct w[]){ T(3, 900), {0} });
	add(&t, 3, "enrich", 600, 300, 100, (struct w[]){ T(2, 100), {0} });
	add(&t, 4, "score", 20, 490, 490, (struct w[]){ T(3, 490), {0} });
	add(&t, 5, "format", 10, 90, 900, (struct w[]){ T(4, 900), {0} });
	add(&t, 6, "sink", 10, 90, 900, (struct w[]){ T(5, 900), {0} });
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	e = node(&g, "enrich");
	s = node(&g, "score");
	assert_int_equal(g.nodes[s].role, ROLE_STARVED);
	assert_int_equal(g.rank[0], e);
	/* score keeps 510/1000 of format's and sink's 1800 ms */
	assert_true(fabs(g.nodes[s].led_ns - 0.51 * 1800 * MS) < 1e-3 * MS);
	assert_true(graph_share(&g, e) + graph_share(&g, s) > 1 - 1e-6);
	graph_free(&g);
	tasks_free(&t);
}

/*
 * A producer and a consumer wake each other (a cycle), and the consumer
 * also waits on a running stage: all their blocked time ends there, the
 * cycle only delays it. The flow must not stop in the cycle.
 */
static void test_cycle_with_exit(void **state)
{
	struct task_table t;
	struct graph g;
	int x;

	(void)state;
	waits_table(&t);
	add(&t, 1, "prod", 100, 0, 900, (struct w[]){ T(2, 900), {0} });
	add(&t, 2, "cons", 100, 0, 900, (struct w[]){ T(1, 800), T(3, 100), {0} });
	add(&t, 3, "work", 990, 0, 10, NULL);
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	x = node(&g, "work");
	assert_int_equal(g.rank[0], x);
	/* work's own 10 ms is unseen, not a blocked node's (it runs) */
	assert_true(graph_share(&g, x) > 1 - 1e-5);
	assert_false(g.nodes[node(&g, "prod")].cycle);
	assert_int_equal(g.nr_rank, 1);
	graph_free(&g);
	tasks_free(&t);
}

/* Two tasks that only ever wait on each other: flagged, split, finite. */
static void test_closed_cycle(void **state)
{
	struct task_table t;
	struct graph g;
	char why[192];
	int a, b;

	(void)state;
	waits_table(&t);
	add(&t, 1, "ping", 100, 0, 900, (struct w[]){ T(2, 900), {0} });
	add(&t, 2, "pong", 100, 0, 900, (struct w[]){ T(1, 900), {0} });
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	a = node(&g, "ping");
	b = node(&g, "pong");
	assert_true(g.nodes[a].cycle && g.nodes[b].cycle);
	assert_true(graph_share(&g, a) + graph_share(&g, b) > 1 - 1e-9);
	assert_int_equal(g.nr_rank, 2);
	reason(&g, a, why, sizeof(why));
	assert_non_null(strstr(why, "wait cycle"));
	graph_free(&g);
	tasks_free(&t);
}

/*
 * --per-name: a pool of workers (work-1..3) that runs, fed by one
 * source and drained by one sink; the edges to each worker merge.
 */
static void test_per_name(void **state)
{
	struct task_table t;
	struct graph g;
	struct task_row *r;
	int w, i, n = 0;
	__u64 sum = 0;

	(void)state;
	waits_table(&t);
	add(&t, 1, "source", 50, 0, 950, (struct w[]){ T(11, 300), T(12, 300), T(13, 350), {0} });
	add(&t, 11, "work-1", 900, 50, 50, (struct w[]){ T(1, 50), {0} });
	add(&t, 12, "work-2", 900, 50, 50, (struct w[]){ T(1, 50), {0} });
	add(&t, 13, "work-3", 900, 50, 50, (struct w[]){ T(1, 50), {0} });
	add(&t, 20, "sink", 50, 0, 950, (struct w[]){ T(11, 500), T(13, 450), {0} });
	assert_int_equal(graph_build(&g, &t, true, NULL), 0);
	assert_int_equal(g.nr_nodes, 3);
	w = node(&g, "work-*");
	assert_int_equal(g.nodes[w].nr_tasks, 3);
	assert_int_equal(g.nodes[w].tid, 0);
	assert_int_equal(g.rank[0], w);
	assert_true(graph_share(&g, w) > 1 - 1e-9);
	/* one edge work-* -> source of 950 ms, 30 wakeups */
	for (i = 0; i < g.nr_edges; i++) {
		const struct graph_edge *e = &g.edges[i];

		if (e->waker == w && e->wakee == node(&g, "source")) {
			n++;
			assert_int_equal(e->wait_ns, 950 * MS);
			assert_int_equal(e->wakeups, 30);
		}
	}
	assert_int_equal(n, 1);
	/* a folded report row finds its node; so does a task's row */
	r = tasks_get(&t, 12);
	assert_int_equal(graph_node_of(&g, r), w);
	for (i = 0; i < g.nodes[w].nr_in; i++)
		sum += g.edges[g.nodes[w].first_in + i].wait_ns;
	assert_int_equal(sum, 150 * MS);
	graph_free(&g);
	tasks_free(&t);
}

/* Blocked time no seen wakeup ended is an edge of its own, never dropped. */
static void test_unseen(void **state)
{
	struct task_table t;
	struct graph g;
	const struct graph_node *n;
	__u64 sum = 0;
	int i, found = 0;

	(void)state;
	waits_table(&t);
	add(&t, 1, "a", 100, 0, 900, (struct w[]){ T(2, 500), K(TDBPF_WAKER_HARDIRQ, 100), {0} });
	add(&t, 2, "b", 900, 0, 100, NULL);
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	n = &g.nodes[node(&g, "a")];
	assert_int_equal(n->nr_in, 3);
	for (i = 0; i < n->nr_in; i++) {
		const struct graph_edge *e = &g.edges[n->first_in + i];

		sum += e->wait_ns;
		if (e->kind == WAKER_UNSEEN) {
			found++;
			assert_int_equal(e->wait_ns, 300 * MS);
			assert_string_equal(graph_waker_name(&g, e), "unseen");
		}
	}
	assert_int_equal(found, 1);
	assert_int_equal(sum, 900 * MS);
	/* largest first */
	assert_int_equal(g.edges[n->first_in].waker, node(&g, "b"));
	graph_free(&g);
	tasks_free(&t);
}

/* Nothing blocked, nothing ranked; an empty table is a graph too. */
static void test_nothing_blocked(void **state)
{
	struct task_table t;
	struct graph g;

	(void)state;
	waits_table(&t);
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	assert_int_equal(g.nr_rank, 0);
	graph_free(&g);
	add(&t, 1, "spin", 1000, 0, 0, NULL);
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	assert_int_equal(g.nr_rank, 0);
	assert_int_equal(g.nr_edges, 0);
	graph_free(&g);
	tasks_free(&t);
}

/* Slots add and subtract by (kind, tid); the last one takes the rest. */
static void test_waits_slots(void **state)
{
	struct tdbpf_wait a[TDBPF_NR_WAITS], b[TDBPF_NR_WAITS], d[TDBPF_NR_WAITS];
	__u64 n;
	int i;

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	b[0] = (struct tdbpf_wait){ .kind = TDBPF_WAKER_TASK, .tid = 7, .wakeups = 2, .wait_ns = 20 };
	b[1] = (struct tdbpf_wait){ .kind = TDBPF_WAKER_TIMER, .tid = 0, .wakeups = 1, .wait_ns = 5 };
	waits_add(a, b);
	waits_add(a, b);
	assert_int_equal(a[0].wakeups, 4);
	assert_int_equal(a[0].wait_ns, 40);
	assert_int_equal(a[1].kind, TDBPF_WAKER_TIMER);
	assert_int_equal(waits_total(a, &n), 50);
	assert_int_equal(n, 6);
	/* different slot order in the older one: matched by key */
	memset(d, 0, sizeof(d));
	waits_sub(d, a, (struct tdbpf_wait[TDBPF_NR_WAITS]){
				{ .kind = TDBPF_WAKER_TIMER, .tid = 0, .wakeups = 1, .wait_ns = 5 },
				{ .kind = TDBPF_WAKER_TASK, .tid = 7, .wakeups = 1, .wait_ns = 15 } });
	assert_int_equal(d[0].wakeups, 3);
	assert_int_equal(d[0].wait_ns, 25);
	assert_int_equal(d[1].wakeups, 1);
	assert_int_equal(d[1].wait_ns, 5);
	/* more wakers than slots: the rest lands in the last, never lost */
	memset(a, 0, sizeof(a));
	for (i = 0; i < TDBPF_NR_WAITS + 3; i++) {
		memset(b, 0, sizeof(b));
		b[0] = (struct tdbpf_wait){ .kind = TDBPF_WAKER_TASK, .tid = 100 + i, .wakeups = 1, .wait_ns = 10 };
		waits_add(a, b);
	}
	assert_int_equal(a[TDBPF_NR_WAITS - 1].kind, TDBPF_WAKER_SPILL);
	assert_int_equal(a[TDBPF_NR_WAITS - 1].wakeups, 4);
	assert_int_equal(waits_total(a, &n), 10 * (TDBPF_NR_WAITS + 3));
	assert_string_equal(waker_kind_name(TDBPF_WAKER_SPILL), "other-wakers");
	assert_null(waker_kind_name(TDBPF_WAKER_TASK));
}

static void test_dot(void **state)
{
	struct task_table t;
	struct graph g;
	FILE *f = tmpfile();
	char *s;

	(void)state;
	waits_table(&t);
	add(&t, 1, "source", 50, 0, 950, (struct w[]){ T(2, 950), {0} });
	add(&t, 2, "en\"rich", 100, 0, 900, (struct w[]){ K(TDBPF_WAKER_TIMER, 880), T(1, 5), {0} });
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	assert_int_equal(graph_write_dot(f, &g), 0);
	s = slurp(f);
	assert_non_null(strstr(s, "digraph tdbpf {"));
	assert_non_null(strstr(s, "BOTTLENECK\\nen\\\"rich\\ntid 2"));
	assert_non_null(strstr(s, "n1 -> n0 [label=\"950.0 ms\\n10 wakeups\""));
	assert_non_null(strstr(s, "k7 -> n1 [label=\"880.0 ms\\n10 wakeups\""));
	assert_non_null(strstr(s, "k7 [label=\"timer\", shape=ellipse"));
	/* under 1% of the wakee's blocked time: left out of the picture */
	assert_null(strstr(s, "n0 -> n1"));
	free(s);
	graph_free(&g);
	tasks_free(&t);
}

static const char *fake_peer(__u32 pid, __u32 tid, char *buf, size_t len)
{
	if (pid != 70 || tid != 77)
		return NULL;
	snprintf(buf, len, "kafka");
	return buf;
}

/* Set row @tid's process to @pid and its slot @i to a socket's peer. */
static void peer_slot(struct task_table *t, __u32 tid, __u32 pid, int i,
		      struct tdbpf_wait w)
{
	struct task_row *r = tasks_get(t, tid);

	r->pid = pid;
	if (w.kind)
		tasks_waits(t, r)[i] = w;
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

	(void)state;
	waits_table(&t);
	add(&t, 1, "gen", 50, 0, 950, (struct w[]){ T(2, 900), {0} });
	add(&t, 2, "relay", 50, 0, 950, (struct w[]){ T(4, 950), {0} });
	add(&t, 3, "relay", 50, 0, 950, (struct w[]){ T(4, 950), {0} });
	add(&t, 4, "sink", 900, 0, 100, NULL);
	peer_slot(&t, 1, 10, 0, none);
	peer_slot(&t, 2, 20, 0, none);
	peer_slot(&t, 3, 30, 0, none);
	peer_slot(&t, 4, 40, 0,
		  (struct tdbpf_wait){ .kind = TDBPF_WAKER_PROCESS, .tid = 77,
				       .tgid = 70, .wakeups = 5,
				       .wait_ns = 60 * MS });
	peer_slot(&t, 4, 40, 1,
		  (struct tdbpf_wait){ .kind = TDBPF_WAKER_ENDPOINT,
				       .tid = 9092, .tgid = htonl(0x0a010203),
				       .wakeups = 2, .wait_ns = 40 * MS });
	assert_int_equal(graph_build(&g, &t, false, fake_peer), 0);
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
	{
		/* DOT: a cluster per process, the peer in one of its own */
		FILE *f = tmpfile();
		char buf[8192];
		size_t n;

		assert_non_null(f);
		assert_int_equal(graph_write_dot(f, &g), 0);
		rewind(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = 0;
		fclose(f);
		assert_non_null(strstr(buf, "subgraph cluster_p20 {"));
		/* no main thread in the graph: the cluster says the pid */
		assert_non_null(strstr(buf, "label=\"pid 20\""));
		assert_non_null(strstr(buf, "label=\"pid 70 (not traced)\""));
		assert_non_null(strstr(buf, "kafka (70)"));
		assert_non_null(strstr(buf, "10.1.2.3:9092"));
	}
	graph_free(&g);
	/* a peer whose name is gone: its pid */
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	for (i = 0; i < g.nr_edges; i++)
		if (g.edges[i].kind == TDBPF_WAKER_PROCESS)
			assert_string_equal(graph_waker_name(&g, &g.edges[i]),
					    "pid 70");
	graph_free(&g);
	assert_int_equal(graph_build(&g, &t, true, NULL), 0);
	assert_int_equal(g.nodes[node(&g, "relay")].nr_tasks, 2);
	graph_free(&g);
	tasks_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_running_bottleneck),
		cmocka_unit_test(test_io_bottleneck),
		cmocka_unit_test(test_starved_bottleneck),
		cmocka_unit_test(test_starved_but_blocked),
		cmocka_unit_test(test_starved_half_blocked),
		cmocka_unit_test(test_cycle_with_exit),
		cmocka_unit_test(test_closed_cycle),
		cmocka_unit_test(test_per_name),
		cmocka_unit_test(test_unseen),
		cmocka_unit_test(test_nothing_blocked),
		cmocka_unit_test(test_waits_slots),
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_processes),
	};

	return cmocka_run_group_tests_name("graph", tests, NULL, NULL);
}
