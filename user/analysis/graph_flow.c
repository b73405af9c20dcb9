// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict of the wait-for graph (graph_flow.h).
 *
 * Each node is judged on its own first, from its scheduling (as the
 * BOTTLENECK column: sched_judge()) and its waits:
 *
 *   RUNNING   it mostly runs (or ran too briefly to judge): the work is
 *             its own; its TMA path says why it is slow.
 *   STARVED   it waits longer for a CPU than it runs (and is blocked
 *             less than half of its time: else it counts as blocked).
 *   EXTERNAL  it is blocked, and most of its blocked time was ended by no
 *             task of the graph: interrupts, timers, another process, or
 *             no wakeup tdbpf saw.
 *   PASS      it is blocked, and tasks of the graph ended most of its
 *             waits: the reason lies with them.
 *
 * Then every blocked node's blocked time flows along its waits: a share
 * to each waker equal to the share of its blocked time that waker ended.
 * The part no task ended is dropped (so is a wait graph_edge_leads()
 * does not count: ended by itself, or a one-off start or shutdown): a task's
 * own blocked time (a JVM's GC thread asleep on a timer) never makes it
 * a candidate, only what other tasks' waits bring to it. A flow stops at an EXTERNAL node, and
 * at any node for the part of its waits ended by no task; at a PASS node
 * it goes on, split by that node's own waits. A RUNNING or STARVED node
 * keeps the share of its time it runs; the share it waits for a CPU goes
 * on to the tasks that held that CPU meanwhile (its holds: run-queue
 * wait charged at its switch-in to the CPU's last slices), so starvation
 * is followed to the tasks taking the CPU; what a task outside the graph
 * or its cgroup's CPU limit held stops there, as its reason; the share
 * it is blocked goes on like a blocked node's. This is an
 * absorbing Markov chain walked one step at a time, so a producer and a
 * consumer that wake each other do not loop forever: each pass round the
 * cycle carries only what the cycle does not send elsewhere, and that
 * falls geometrically.
 * What still circulates after GRAPH_MAX_STEPS (a closed cycle: tasks
 * that only ever wait on each other) stops where it is, and those nodes
 * are marked as in a cycle. The candidates are ranked by the blocked
 * time that reached them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/graph_flow.h"

#define GRAPH_MAX_STEPS	256
/* what still goes round a cycle past this share of a flow: a closed one */
#define GRAPH_EPSILON	1e-6
/*
 * a flow is done when this share of it is still moving (moving counts
 * what the next nodes will keep, so the tail is left far below
 * GRAPH_EPSILON; a decaying cycle gets there in tens of steps)
 */
#define GRAPH_DONE	1e-12

static enum sched_verdict judge(const struct graph_node *n)
{
	return sched_judge(n->on_cpu_ns, n->runq_ns, n->blocked_ns);
}


/*
 * Sum of a node's waits (@holds false) or of its holds (true): what
 * those edges' shares are shares of.
 */
static double edges_sum(const struct graph *g, const struct graph_node *n,
			bool holds)
{
	double s = 0;
	int i;

	for (i = 0; i < n->nr_in; i++) {
		const struct graph_edge *e = &g->edges[n->first_in + i];

		if (graph_edge_holds(e) == holds)
			s += (double)e->wait_ns;
	}
	return s;
}

static double waits_of(const struct graph *g, const struct graph_node *n)
{
	return edges_sum(g, n, false);
}

void graph_judge_nodes(struct graph *g)
{
	int i, j;

	for (i = 0; i < g->nr_nodes; i++) {
		struct graph_node *n = &g->nodes[i];
		__u64 by_kind[WAKER_KINDS] = { 0 }, task = 0, best = 0;

		n->ext_kind = WAKER_UNSEEN;
		for (j = 0; j < n->nr_in; j++) {
			const struct graph_edge *e = &g->edges[n->first_in + j];

			if (graph_edge_holds(e))
				continue;
			if (graph_edge_leads(g, e))
				task += e->wait_ns;
			else if (e->waker >= 0)	/* itself, or once */
				by_kind[TDBPF_WAKER_TASK] += e->wait_ns;
			else if (e->kind < WAKER_KINDS)
				by_kind[e->kind] += e->wait_ns;
		}
		for (j = 0; j < WAKER_KINDS; j++) {
			n->ext_ns += by_kind[j];
			if (by_kind[j] > best) {
				best = by_kind[j];
				n->ext_kind = (unsigned int)j;
			}
		}
		n->sched = judge(n);
		switch (n->sched) {
		case SCHED_STARVED:
			/*
			 * Starved whenever it runs, but blocked most of the
			 * time: what it waits on matters more (a stage
			 * starved by the very stage it waits for).
			 */
			if (n->blocked_ns * 2 < n->on_cpu_ns + n->runq_ns +
						    n->blocked_ns) {
				n->role = ROLE_STARVED;
				break;
			}
			__attribute__((__fallthrough__));
		case SCHED_BLOCKED:
			n->role = task * 2 > task + n->ext_ns ? ROLE_PASS :
								ROLE_EXTERNAL;
			break;
		case SCHED_IDLE:
			n->role = ROLE_IDLE;
			break;
		case SCHED_NONE:
		default:
			n->role = ROLE_RUNNING;
			break;
		}
	}
}

/* Scratch for one flow: mass by node now and next step, and who has it. */
struct flow {
	double *cur, *next, *got;
	int *cur_at, *next_at, *touched;
	int nr_cur, nr_next, nr_touched;
	double moving;
};

static void absorb(struct graph *g, struct flow *f, int node, double amt)
{
	if (amt == 0)
		return;
	if (f->got[node] == 0)
		f->touched[f->nr_touched++] = node;
	f->got[node] += amt;
	g->nodes[node].led_ns += amt;
}

static void push(struct flow *f, int node, double amt)
{
	if (amt == 0)
		return;
	if (f->next[node] == 0)
		f->next_at[f->nr_next++] = node;
	f->next[node] += amt;
	f->moving += amt;
}

/*
 * Send @amt of node @at along its waits (@holds false: to the tasks that
 * ended its blocked time) or its holds (true: to the tasks that held the
 * CPU it waited for), each by its share. What no task of the graph
 * caused stops at @at, the task it delays, unless @at is where the flow
 * began (@own): a task's own blocked time never makes it a candidate.
 */
static void spread(struct graph *g, struct flow *f, int at, double amt,
		   bool holds, bool own)
{
	const struct graph_node *n = &g->nodes[at];
	double sum = holds ? n->holds_ns : n->waits_ns;
	int j;

	if (sum <= 0) {
		if (!own)
			absorb(g, f, at, amt);
		return;
	}
	for (j = 0; j < n->nr_in; j++) {
		const struct graph_edge *e = &g->edges[n->first_in + j];
		double a = amt * (double)e->wait_ns / sum;

		if (graph_edge_holds(e) != holds)
			continue;
		if (graph_edge_leads(g, e))
			push(f, e->waker, a);
		else if (!own)
			absorb(g, f, at, a);
	}
}

/*
 * What reaches node @at (not where it began) goes where its time went: a
 * task blocked on tasks (PASS) passes all of it along its waits; one that
 * waits on no task (EXTERNAL) or did nothing keeps it; one that runs or
 * is starved keeps the share of its life it ran, sends the share it
 * waited for a CPU to the tasks that held the CPU (its cgroup's limit or
 * a task outside the graph: kept, with that reason), and the share it
 * was blocked along its waits.
 */
static void arrive(struct graph *g, struct flow *f, int at, double m)
{
	const struct graph_node *n = &g->nodes[at];
	double on = (double)n->on_cpu_ns, rq = (double)n->runq_ns;
	double life = on + rq + (double)n->blocked_ns;

	switch (n->role) {
	case ROLE_PASS:
		spread(g, f, at, m, false, false);
		return;
	case ROLE_RUNNING:
	case ROLE_STARVED:
		if (life <= 0)
			break;
		absorb(g, f, at, m * on / life);
		spread(g, f, at, m * rq / life, true, false);
		spread(g, f, at, m * (double)n->blocked_ns / life, false,
		       false);
		return;
	case ROLE_EXTERNAL:
	case ROLE_IDLE:
	default:
		break;
	}
	absorb(g, f, at, m);
}

/* Follow the blocked time of node @s to where its waits end. */
static void flow_from(struct graph *g, int s, struct flow *f)
{
	double mass = (double)g->nodes[s].blocked_ns;
	int step, i, *swap;
	double *tmp;

	f->nr_touched = 0;
	f->nr_next = 0;
	f->moving = 0;
	/* its own waits: what tasks caused moves on, the rest is dropped */
	spread(g, f, s, mass, false, true);
	/* only the nodes holding some of it are visited: a step is cheap */
	for (step = 0; step < GRAPH_MAX_STEPS && f->nr_next; step++) {
		if (f->moving <= mass * GRAPH_DONE)
			break;
		tmp = f->cur, f->cur = f->next, f->next = tmp;
		swap = f->cur_at, f->cur_at = f->next_at, f->next_at = swap;
		f->nr_cur = f->nr_next;
		f->nr_next = 0;
		f->moving = 0;
		for (i = 0; i < f->nr_cur; i++) {
			int at = f->cur_at[i];
			double m = f->cur[at];

			f->cur[at] = 0;
			arrive(g, f, at, m);
		}
	}
	/* a closed cycle: what still goes round stops where it is */
	for (i = 0; i < f->nr_next; i++) {
		int at = f->next_at[i];

		if (f->next[at] > mass * GRAPH_EPSILON)
			g->nodes[at].cycle = true;
		absorb(g, f, at, f->next[at]);
		f->next[at] = 0;
	}
	f->nr_next = 0;
	for (i = 0; i < f->nr_touched; i++) {
		if (f->got[f->touched[i]] >= 0.01 * mass)
			g->nodes[f->touched[i]].nr_sources++;
		f->got[f->touched[i]] = 0;
	}
}

/* qsort_r: no static state, reports may be made on several threads */
static int cmp_rank(const void *a, const void *b, void *arg)
{
	const struct graph *g = arg;
	const struct graph_node *x = &g->nodes[*(const int *)a];
	const struct graph_node *y = &g->nodes[*(const int *)b];

	if (x->led_ns != y->led_ns)
		return x->led_ns > y->led_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int graph_flow(struct graph *g)
{
	size_t n = (size_t)g->nr_nodes + 1;
	struct flow f = {
		.cur = calloc(n, sizeof(double)),
		.next = calloc(n, sizeof(double)),
		.got = calloc(n, sizeof(double)),
		.cur_at = calloc(n, sizeof(int)),
		.next_at = calloc(n, sizeof(int)),
		.touched = calloc(n, sizeof(int)),
	};
	int i, err = 0;

	g->rank = calloc(n, sizeof(int));
	if (!f.cur || !f.next || !f.got || !f.cur_at || !f.next_at ||
	    !f.touched || !g->rank) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < g->nr_nodes; i++) {
		struct graph_node *s = &g->nodes[i];

		s->waits_ns = waits_of(g, s);
		s->holds_ns = edges_sum(g, s, true);
	}
	for (i = 0; i < g->nr_nodes; i++) {
		struct graph_node *s = &g->nodes[i];

		if ((s->role != ROLE_PASS && s->role != ROLE_EXTERNAL) ||
		    !s->blocked_ns)
			continue;
		flow_from(g, i, &f);
	}
	/*
	 * Shares are of the blocked time that led to some task: what a
	 * task's own waits on no task (a JVM thread asleep on a timer) drop
	 * would only make every share smaller.
	 */
	for (i = 0; i < g->nr_nodes; i++)
		g->blocked_ns += g->nodes[i].led_ns;
	for (i = 0; i < g->nr_nodes; i++)
		if (g->blocked_ns > 0 &&
		    g->nodes[i].led_ns >= GRAPH_MIN_SHARE * g->blocked_ns)
			g->rank[g->nr_rank++] = i;
	qsort_r(g->rank, g->nr_rank, sizeof(int), cmp_rank, g);
	for (i = 0; i < g->nr_rank; i++)
		if (g->nodes[g->rank[i]].led_ns >=
		    GRAPH_TIE * g->nodes[g->rank[0]].led_ns)
			g->nr_tied = i + 1;
out:
	free(f.cur), free(f.next), free(f.got);
	free(f.cur_at), free(f.next_at), free(f.touched);
	return err;
}

