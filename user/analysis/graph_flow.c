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
 * Then every node's blocked time flows along its waits, whatever its
 * role (a running relay's waits on its consumer delay it as a blocked
 * one's do): a share to each waker equal to the share of its blocked
 * time that waker ended. The part no task ended is dropped (so is a wait
 * graph_edge_leads() does not count: ended by itself, or a one-off start
 * or shutdown): a task's own blocked time (a JVM's GC thread asleep on a
 * timer) never makes it a candidate, only what other tasks' waits bring
 * to it. At every node what arrives from a task splits over the node's
 * time less its waits on that task (while that task waited on it, it did
 * not wait on that task), and less its waits for a CPU held outside the
 * graph (they stretch its time whoever it waits on): the share of its
 * own work (on-CPU less the network softirqs it ran for others), of its
 * cgroup's throttling and of its waits on no task stays; the share it
 * waited for a CPU a task of the graph held goes to that task, the share
 * it was blocked on a task to that task (arrive()). This is an absorbing
 * Markov chain on edges, walked one step at a time, so a cycle does not
 * loop forever: each pass round it carries only what the cycle does not
 * keep or send elsewhere, and that falls geometrically.
 * What still circulates after GRAPH_MAX_STEPS (a closed cycle of tasks
 * that wait on each other and do next to no work) stops where it is,
 * and those nodes are marked as in a cycle. The candidates are the nodes
 * the blocked time reached, ranked by how busy they were (graph_rank()).
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

/*
 * One wait over most of the wakee's life is a start or a shutdown, not
 * a delay that recurs with the records as a bottleneck's does: GLib's
 * gmain asleep until gst-launch's main thread quits, a JVM's service
 * threads woken by its exit, a driver thread asleep for the job's
 * length. It is neither sent on nor kept: what reaches a task in such a
 * wait leaves the graph. The part of edge @e's waits that is such a
 * wait: its longest, if that is over half the wakee's life; where the
 * longest is not known (0), the whole edge if it is one wait that long.
 * A count of 0 is not known either (a graph joined from Prometheus
 * reads wait seconds only): then nothing is taken for one.
 */
double graph_once_ns(const struct graph *g, const struct graph_edge *e)
{
	const struct graph_node *n = &g->nodes[e->wakee];
	__u64 life = n->on_cpu_ns + n->runq_ns + n->blocked_ns, one;

	if (graph_edge_holds(e))
		return 0;
	one = e->longest_ns ? e->longest_ns : e->wakeups == 1 ? e->wait_ns : 0;
	if (one * 2 <= life)
		return 0;
	return (double)(one < e->wait_ns ? one : e->wait_ns);
}

/*
 * A wait on a task leads to it, but not one the task ended itself (a
 * folded name's threads, a signal to itself), nor the part of one that
 * is a start or an end (graph_once_ns()).
 */
bool graph_edge_leads(const struct graph *g, const struct graph_edge *e)
{
	if (e->waker < 0 || e->waker == e->wakee)
		return false;
	return (double)e->wait_ns > graph_once_ns(g, e);
}

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
		__u64 by_kind[WAKER_KINDS] = { 0 }, task = 0, best = 0, once;

		n->ext_kind = WAKER_UNSEEN;
		for (j = 0; j < n->nr_in; j++) {
			const struct graph_edge *e = &g->edges[n->first_in + j];

			if (graph_edge_holds(e))
				continue;
			once = (__u64)graph_once_ns(g, e);
			if (graph_edge_leads(g, e)) {
				task += e->wait_ns - once;
				by_kind[TDBPF_WAKER_TASK] += once;
			} else if (e->waker >= 0)	/* itself, or once */
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

/*
 * Scratch for one flow: mass by edge now and next step (mass on edge e is
 * at its waker, come from its wakee), who has it, and what each node got.
 */
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

static void push(struct flow *f, int edge, double amt)
{
	if (amt == 0)
		return;
	if (f->next[edge] == 0)
		f->next_at[f->nr_next++] = edge;
	f->next[edge] += amt;
	f->moving += amt;
}

/* What node @n's waits (@holds false) or holds on node @from add up to. */
static double edges_on(const struct graph *g, const struct graph_node *n,
		       int from, bool holds)
{
	double s = 0;
	int j;

	for (j = 0; from >= 0 && j < n->nr_in; j++) {
		const struct graph_edge *e = &g->edges[n->first_in + j];

		if (e->waker == from && graph_edge_holds(e) == holds)
			s += (double)e->wait_ns;
	}
	return s;
}

/*
 * Send @amt of node @at along its waits (@holds false: to the tasks that
 * ended its blocked time) or its holds (true: to the tasks that held the
 * CPU it waited for), each by its share, leaving out those on @from (the
 * task the amount came from, or -1). What no task of the graph caused
 * stops at @at, the task it delays, unless @at is where the flow began
 * (@own): a task's own blocked time never makes it a candidate. A start
 * or an end (graph_once_ns()) neither moves nor stops: it leaves.
 */
static void spread(struct graph *g, struct flow *f, int at, double amt,
		   bool holds, bool own, int from)
{
	const struct graph_node *n = &g->nodes[at];
	double sum = (holds ? n->holds_ns : n->waits_ns) -
		     edges_on(g, n, from, holds);
	int j;

	if (sum <= 0) {
		if (!own)
			absorb(g, f, at, amt);
		return;
	}
	for (j = 0; j < n->nr_in; j++) {
		const struct graph_edge *e = &g->edges[n->first_in + j];
		double a = amt * (double)e->wait_ns / sum;

		if (graph_edge_holds(e) != holds || (from >= 0 &&
						     e->waker == from))
			continue;
		if (e->wait_ns)
			a -= amt * graph_once_ns(g, e) / sum;
		if (graph_edge_leads(g, e))
			push(f, n->first_in + j, a);
		else if (!own)
			absorb(g, f, at, a);
	}
}

/*
 * What reaches a node goes where its time went, the same rule for every
 * node. Its time here is its own work (on-CPU, less the network softirqs
 * it ran for others: a loopback sender delivers what it sent), its
 * cgroup's throttling, its waits for a CPU held by tasks of the graph
 * and its blocked time, less its waits on the task the amount came from
 * (while that task waited on it, it was not waiting on that task). Its
 * waits for a CPU held outside the graph are left out: they stretch its
 * time, whoever it waits on. Of that time, the share of its own work,
 * its throttling and its waits on no task of the graph (timers, I/O)
 * stays; the share it waited for a CPU a task held goes to that task,
 * the share it was blocked on a task to that task. @edge: the edge the
 * amount @m came along.
 */
static void arrive(struct graph *g, struct flow *f, int edge, double m)
{
	int at = g->edges[edge].waker, from = g->edges[edge].wakee, j;
	const struct graph_node *n = &g->nodes[at];
	double own = (double)(n->on_cpu_ns - n->softirq_ns), keep = own;
	double bl = (double)n->blocked_ns - edges_on(g, n, from, false);
	double life;

	bl = bl > 0 ? bl : 0;
	life = own + bl;
	for (j = 0; j < n->nr_in; j++) {
		const struct graph_edge *e = &g->edges[n->first_in + j];

		if (!graph_edge_holds(e) || (from >= 0 && e->waker == from))
			continue;
		if (graph_edge_leads(g, e))
			life += (double)e->wait_ns;
		else if (e->kind == TDBPF_HOLDER_LIMIT)
			life += (double)e->wait_ns, keep += (double)e->wait_ns;
	}
	if (n->role == ROLE_IDLE || life <= 0) {
		absorb(g, f, at, m);
		return;
	}
	absorb(g, f, at, m * keep / life);
	for (j = 0; j < n->nr_in; j++) {
		const struct graph_edge *e = &g->edges[n->first_in + j];

		if (graph_edge_holds(e) && graph_edge_leads(g, e) &&
		    e->waker != from)
			push(f, n->first_in + j, m * (double)e->wait_ns / life);
	}
	spread(g, f, at, m * bl / life, false, false, from);
}

/*
 * The share of @n's life it did not wait on a task of the graph: blocked
 * time others ended (less a start or an end: graph_once_ns()) is idle on
 * an input or held back by an output; the rest is its own, running,
 * waiting for a CPU or throttled, asleep, on I/O. A node of no time of
 * its own (an endpoint no report has: its host's tdbpf is down) cannot
 * be shown to wait on anyone: busy, judged on what reaches it.
 */
static double busy_share(const struct graph *g, const struct graph_node *n)
{
	double life = (double)(n->on_cpu_ns + n->runq_ns + n->blocked_ns);
	double waits = 0;
	int j;

	for (j = 0; j < n->nr_in; j++) {
		const struct graph_edge *e = &g->edges[n->first_in + j];

		if (!graph_edge_holds(e) && graph_edge_leads(g, e))
			waits += (double)e->wait_ns - graph_once_ns(g, e);
	}
	return life > 0 ? 1 - waits / life : 1;
}

/*
 * Follow the blocked time of node @s, weighted by @weight (its part's:
 * part_weights()), to where its waits end.
 */
static void flow_from(struct graph *g, int s, struct flow *f, double weight)
{
	const struct graph_node *src = &g->nodes[s];
	double mass = (double)src->blocked_ns * weight, life;
	int step, i, *swap;
	double *tmp;

	f->nr_touched = 0;
	f->nr_next = 0;
	f->moving = 0;
	/* its own waits: what tasks caused moves on, the rest is dropped */
	spread(g, f, s, mass, false, true, -1);
	/* only the edges holding some of it are visited: a step is cheap */
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
		int e = f->next_at[i], at = g->edges[e].waker;

		if (f->next[e] > mass * GRAPH_EPSILON)
			g->nodes[at].cycle = true;
		absorb(g, f, at, f->next[e]);
		f->next[e] = 0;
	}
	f->nr_next = 0;
	/*
	 * A source is one that waits on the node for 1% of its time, not
	 * of its blocked time: a thread blocked 0.1% of a run, a few times
	 * on the main thread at the start, is delayed by no one.
	 */
	life = (double)(src->on_cpu_ns + src->runq_ns + src->blocked_ns) *
	       weight;
	for (i = 0; i < f->nr_touched; i++) {
		if (f->got[f->touched[i]] >= 0.01 * life)
			g->nodes[f->touched[i]].nr_sources++;
		f->got[f->touched[i]] = 0;
	}
}

/* qsort_r: no static state, reports may be made on several threads */
static int cmp_led(const void *a, const void *b, void *arg)
{
	const struct graph *g = arg;
	const struct graph_node *x = &g->nodes[*(const int *)a];
	const struct graph_node *y = &g->nodes[*(const int *)b];

	if (x->led_ns != y->led_ns)
		return x->led_ns > y->led_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* a part's busy time weighs as much as the work the part does */
static double busy_of(const struct graph_node *n)
{
	return n->busy * n->weight;
}

static int cmp_busy(const void *a, const void *b, void *arg)
{
	const struct graph *g = arg;
	double x = busy_of(&g->nodes[*(const int *)a]);
	double y = busy_of(&g->nodes[*(const int *)b]);

	if (x != y)
		return x > y ? -1 : 1;
	return cmp_led(a, b, arg);
}

/*
 * The candidates, every task some of the blocked time leads to, busiest
 * first: of the tasks a pipeline's waits lead to, the one that waits
 * least on the others is the one they wait for (Flink's busy time: not
 * idle on its input, not back-pressured on its output). Those about as
 * busy as the first are ordered by the blocked time that reached them,
 * and tied by it.
 */
void graph_rank(struct graph *g)
{
	int i, near;

	/*
	 * Shares are of the blocked time that led to some task: what a
	 * task's own waits on no task (a JVM thread asleep on a timer) drop
	 * would only make every share smaller.
	 */
	g->blocked_ns = 0;
	g->nr_rank = 0;
	g->nr_tied = 0;
	for (i = 0; i < g->nr_nodes; i++)
		g->blocked_ns += g->nodes[i].led_ns;
	for (i = 0; i < g->nr_nodes; i++)
		if (g->blocked_ns > 0 &&
		    g->nodes[i].led_ns >= GRAPH_MIN_SHARE * g->blocked_ns)
			g->rank[g->nr_rank++] = i;
	if (!g->nr_rank)
		return;
	qsort_r(g->rank, g->nr_rank, sizeof(int), cmp_busy, g);
	for (near = 1; near < g->nr_rank; near++)
		if (busy_of(&g->nodes[g->rank[near]]) <
		    busy_of(&g->nodes[g->rank[0]]) - GRAPH_BUSY_NEAR)
			break;
	qsort_r(g->rank, near, sizeof(int), cmp_led, g);
	for (i = 0; i < near; i++)
		if (g->nodes[g->rank[i]].led_ns >=
		    GRAPH_TIE * g->nodes[g->rank[0]].led_ns)
			g->nr_tied = i + 1;
}

static int part_of(int *up, int i)
{
	while (up[i] != i)
		i = up[i] = up[up[i]];
	return i;
}

/*
 * The graph's parts: tasks joined by waits that lead (the wait-for
 * graph's connected pieces, holds aside: sharing a CPU joins no job).
 * On a whole host they are the jobs it runs: a stream graph, an idle
 * runtime whose timer thread hands tokens to its pool all day, a
 * database. A part's waits weigh as much as the work it does, its share
 * of all the on-CPU time of the graph: a bottleneck limits the work of
 * its own part, and a part that does next to no work limits nothing
 * worth naming, however long its tasks wait on each other. With one
 * part (a job traced with -p) every weight is 1 and nothing changes.
 */
static int part_weights(const struct graph *g, double *weight)
{
	int *up = malloc(sizeof(int) * ((size_t)g->nr_nodes + 1));
	double *work = calloc((size_t)g->nr_nodes + 1, sizeof(double));
	double total = 0;
	int i, err = 0;

	if (!up || !work) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < g->nr_nodes; i++)
		up[i] = i;
	for (i = 0; i < g->nr_edges; i++) {
		const struct graph_edge *e = &g->edges[i];

		if (!graph_edge_holds(e) && graph_edge_leads(g, e))
			up[part_of(up, e->waker)] = part_of(up, e->wakee);
	}
	for (i = 0; i < g->nr_nodes; i++) {
		work[part_of(up, i)] += (double)g->nodes[i].on_cpu_ns;
		total += (double)g->nodes[i].on_cpu_ns;
	}
	for (i = 0; i < g->nr_nodes; i++)
		weight[i] = total > 0 ? work[part_of(up, i)] / total : 1;
out:
	free(up);
	free(work);
	return err;
}

int graph_flow(struct graph *g)
{
	size_t n = (size_t)g->nr_nodes + 1, m = (size_t)g->nr_edges + 1;
	struct flow f = {
		.cur = calloc(m, sizeof(double)),
		.next = calloc(m, sizeof(double)),
		.got = calloc(n, sizeof(double)),
		.cur_at = calloc(m, sizeof(int)),
		.next_at = calloc(m, sizeof(int)),
		.touched = calloc(n, sizeof(int)),
	};
	double *weight = calloc(n, sizeof(double));
	int i, err = 0;

	g->rank = calloc(n, sizeof(int));
	if (!f.cur || !f.next || !f.got || !f.cur_at || !f.next_at ||
	    !f.touched || !g->rank || !weight ||
	    part_weights(g, weight)) {
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

		/* a running task's waits on others delay it as a blocked one's */
		if (s->blocked_ns)
			flow_from(g, i, &f, weight[i]);
		s->busy = busy_share(g, s);
		s->weight = weight[i];
	}
	graph_rank(g);
out:
	free(weight);
	free(f.cur), free(f.next), free(f.got);
	free(f.cur_at), free(f.next_at), free(f.touched);
	return err;
}

