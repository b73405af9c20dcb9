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
 * A flow stops at an EXTERNAL node, and at any node for the part of its
 * waits ended by no task; at a PASS node it goes on, split by that
 * node's own waits. A RUNNING or STARVED node keeps the share of its
 * time it runs or waits for a CPU, and passes the rest on like a blocked
 * one: a stage starved half the time and blocked the other half on the
 * real bottleneck sends half of what reaches it there. This is an
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
/* a flow is done when this share of it is still moving */
#define GRAPH_EPSILON	1e-6

static enum sched_verdict judge(const struct graph_node *n)
{
	return sched_judge(n->on_cpu_ns, n->runq_ns, n->blocked_ns);
}


/* Sum of a node's waits: what its edges' shares are shares of. */
static double waits_of(const struct graph *g, const struct graph_node *n)
{
	double s = 0;
	int i;

	for (i = 0; i < n->nr_in; i++)
		s += (double)g->edges[n->first_in + i].wait_ns;
	return s;
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

			if (e->waker >= 0)
				task += e->wait_ns;
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

/*
 * The share of what reaches node @n that stops there: all for a task
 * waiting on no task (or idle), none for one waiting on tasks, and for a
 * task that runs or is starved, the share of its time it is not blocked.
 */
static double keeps(const struct graph_node *n)
{
	double busy = (double)n->on_cpu_ns + (double)n->runq_ns;

	switch (n->role) {
	case ROLE_PASS:
		return 0;
	case ROLE_RUNNING:
	case ROLE_STARVED:
		return busy + (double)n->blocked_ns > 0 ?
			       busy / (busy + (double)n->blocked_ns) :
			       1;
	case ROLE_EXTERNAL:
	case ROLE_IDLE:
	default:
		return 1;
	}
}

/* Scratch for one flow: mass by node now and next step, and who has it. */
struct flow {
	double *cur, *next, *got;
	int *cur_at, *next_at, *touched;
	int nr_cur, nr_next, nr_touched;
};

/* Follow the blocked time of node @s to where its waits end. */
static void flow_from(struct graph *g, int s, struct flow *f)
{
	struct graph_node *src = &g->nodes[s];
	double mass = (double)src->blocked_ns, moving, k;
	int step, i, j, *swap;
	double *tmp;

#define ABSORB(node, amt)                                          \
	do {                                                       \
		if (f->got[node] == 0)                             \
			f->touched[f->nr_touched++] = (node);      \
		f->got[node] += (amt);                             \
		g->nodes[node].led_ns += (amt);                    \
	} while (0)

	f->nr_touched = 0;
	if (src->role != ROLE_PASS) {
		ABSORB(s, mass);
		goto done;
	}
	f->cur[s] = mass;
	f->cur_at[0] = s;
	f->nr_cur = 1;
	/* only the nodes holding some of it are visited: a step is cheap */
	for (step = 0; step < GRAPH_MAX_STEPS && f->nr_cur; step++) {
		moving = 0;
		f->nr_next = 0;
		for (i = 0; i < f->nr_cur; i++) {
			int at = f->cur_at[i];
			struct graph_node *n = &g->nodes[at];
			double m = f->cur[at];

			f->cur[at] = 0;
			if (n->waits_ns <= 0) {
				ABSORB(at, m);
				continue;
			}
			for (j = 0; j < n->nr_in; j++) {
				const struct graph_edge *e =
					&g->edges[n->first_in + j];
				double a = m * (double)e->wait_ns / n->waits_ns;

				if (a == 0)
					continue;
				if (e->waker < 0) {
					ABSORB(at, a);
					continue;
				}
				k = keeps(&g->nodes[e->waker]);
				if (k > 0)
					ABSORB(e->waker, a * k);
				if (k >= 1)
					continue;
				if (f->next[e->waker] == 0)
					f->next_at[f->nr_next++] = e->waker;
				f->next[e->waker] += a * (1 - k);
				moving += a * (1 - k);
			}
		}
		tmp = f->cur, f->cur = f->next, f->next = tmp;
		swap = f->cur_at, f->cur_at = f->next_at, f->next_at = swap;
		f->nr_cur = f->nr_next;
		if (moving <= mass * GRAPH_EPSILON)
			break;
	}
	/* a closed cycle: what still goes round stops where it is */
	for (i = 0; i < f->nr_cur; i++) {
		int at = f->cur_at[i];

		if (f->cur[at] > mass * GRAPH_EPSILON)
			g->nodes[at].cycle = true;
		if (f->cur[at] != 0)
			ABSORB(at, f->cur[at]);
		f->cur[at] = 0;
	}
	f->nr_cur = 0;
done:
	for (i = 0; i < f->nr_touched; i++) {
		if (f->got[f->touched[i]] >= 0.01 * mass)
			g->nodes[f->touched[i]].nr_sources++;
		f->got[f->touched[i]] = 0;
	}
#undef ABSORB
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
	}
	for (i = 0; i < g->nr_nodes; i++) {
		struct graph_node *s = &g->nodes[i];

		if ((s->role != ROLE_PASS && s->role != ROLE_EXTERNAL) ||
		    !s->blocked_ns)
			continue;
		g->blocked_ns += (double)s->blocked_ns;
		flow_from(g, i, &f);
	}
	for (i = 0; i < g->nr_nodes; i++)
		if (g->blocked_ns > 0 &&
		    g->nodes[i].led_ns >= GRAPH_MIN_SHARE * g->blocked_ns)
			g->rank[g->nr_rank++] = i;
	qsort_r(g->rank, g->nr_rank, sizeof(int), cmp_rank, g);
out:
	free(f.cur), free(f.next), free(f.got);
	free(f.cur_at), free(f.next_at), free(f.touched);
	return err;
}
