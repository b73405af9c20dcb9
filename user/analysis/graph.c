// SPDX-License-Identifier: GPL-2.0
/*
 * The wait-for graph and its verdict (see graph.h).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/graph.h"

#define GRAPH_MAX_STEPS	256
/* a flow is done when this share of it is still moving */
#define GRAPH_EPSILON	1e-6

struct key {
	const char *name;	/* per_name: the folded name */
	__u32 tid;
	int row;
};

static int cmp_key_tid(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->row - y->row;
}

static int cmp_key_name(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->row - y->row;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct graph_edge *x = a, *y = b;

	if (x->wakee != y->wakee)
		return x->wakee < y->wakee ? -1 : 1;
	if (x->waker != y->waker)
		return x->waker < y->waker ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return 0;
}

static int cmp_edge_wait(const void *a, const void *b)
{
	const struct graph_edge *x = a, *y = b;

	if (x->wakee != y->wakee)
		return x->wakee < y->wakee ? -1 : 1;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	if (x->waker != y->waker)
		return x->waker < y->waker ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* The node of the row with @tid, from the table sorted by tid; -1. */
static int node_of_tid(const struct key *by_tid, size_t n, const int *rowmap,
		       __u32 tid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (by_tid[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && by_tid[lo].tid == tid ? rowmap[by_tid[lo].row] : -1;
}

static enum sched_verdict judge(const struct graph_node *n)
{
	struct task_row r;

	memset(&r, 0, sizeof(r));
	r.sched.on_cpu_ns = n->on_cpu_ns;
	r.sched.runq_wait_ns = n->runq_ns;
	r.sched.off_cpu_ns = n->blocked_ns;
	return sched_judge(&r, 0);
}

/* Nodes: one per row, or one per folded name; rowmap[row] = node. */
static int make_nodes(struct graph *g, const struct task_table *t,
		      int *rowmap, char (*names)[TDBPF_COMM_LEN + 2])
{
	struct key *k = calloc(t->nr ? t->nr : 1, sizeof(*k));
	size_t i;

	if (!k)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		const struct task_row *r = tasks_row(t, i);

		if (g->per_name)
			fold_name(r->comm, names[i], sizeof(names[i]));
		else
			snprintf(names[i], sizeof(names[i]), "%s", r->comm);
		k[i].name = names[i];
		k[i].tid = r->tid;
		k[i].row = (int)i;
	}
	if (g->per_name)
		qsort(k, t->nr, sizeof(*k), cmp_key_name);
	g->nr_nodes = 0;
	for (i = 0; i < t->nr; i++) {
		const struct task_row *r = tasks_row(t, k[i].row);
		struct graph_node *n;

		if (!g->per_name || !i || strcmp(k[i].name, k[i - 1].name)) {
			n = &g->nodes[g->nr_nodes++];
			memset(n, 0, sizeof(*n));
			snprintf(n->name, sizeof(n->name), "%s", k[i].name);
			n->tid = r->tid;
		} else {
			n = &g->nodes[g->nr_nodes - 1];
			n->tid = 0;
		}
		n->nr_tasks += r->nr_tasks > 0 ? r->nr_tasks : 1;
		n->on_cpu_ns += r->sched.on_cpu_ns;
		n->runq_ns += r->sched.runq_wait_ns;
		n->blocked_ns += r->sched.off_cpu_ns;
		rowmap[k[i].row] = g->nr_nodes - 1;
	}
	free(k);
	return 0;
}

/* Raw edges from every row's slots, then merged by (wakee, waker, kind). */
static int make_edges(struct graph *g, const struct task_table *t,
		      const int *rowmap)
{
	struct key *by_tid = calloc(t->nr ? t->nr : 1, sizeof(*by_tid));
	size_t i, cap = t->nr * (TDBPF_NR_WAITS + 1) + 1;
	int j, n = 0, m;

	g->edges = calloc(cap, sizeof(*g->edges));
	if (!by_tid || !g->edges) {
		free(by_tid);
		return -ENOMEM;
	}
	for (i = 0; i < t->nr; i++) {
		by_tid[i].tid = tasks_row(t, i)->tid;
		by_tid[i].row = (int)i;
	}
	qsort(by_tid, t->nr, sizeof(*by_tid), cmp_key_tid);
	for (i = 0; i < t->nr; i++) {
		const struct task_row *r = tasks_row(t, i);
		const struct tdbpf_wait *ws = tasks_waits(t, r);
		__u64 sum = 0;

		for (j = 0; ws && j < TDBPF_NR_WAITS; j++) {
			const struct tdbpf_wait *w = &ws[j];
			struct graph_edge *e = &g->edges[n];

			if (w->kind == TDBPF_WAKER_NONE ||
			    (!w->wakeups && !w->wait_ns))
				continue;
			e->wakee = rowmap[i];
			e->kind = w->kind;
			e->waker = -1;
			if (w->kind == TDBPF_WAKER_TASK) {
				e->waker = node_of_tid(by_tid, t->nr, rowmap,
						       w->tid);
				/* a waker with no row: not in this window */
				if (e->waker < 0)
					e->kind = TDBPF_WAKER_PROCESS;
			}
			e->wakeups = w->wakeups;
			e->wait_ns = w->wait_ns;
			sum += w->wait_ns;
			n++;
		}
		/* blocked time no seen wakeup ended: shown, never dropped */
		if (r->sched.off_cpu_ns > sum) {
			g->edges[n].wakee = rowmap[i];
			g->edges[n].waker = -1;
			g->edges[n].kind = WAKER_UNSEEN;
			g->edges[n].wait_ns = r->sched.off_cpu_ns - sum;
			n++;
		}
	}
	free(by_tid);
	qsort(g->edges, n, sizeof(*g->edges), cmp_edge);
	for (m = 0, j = 0; j < n; j++) {
		if (m && !cmp_edge(&g->edges[m - 1], &g->edges[j])) {
			g->edges[m - 1].wakeups += g->edges[j].wakeups;
			g->edges[m - 1].wait_ns += g->edges[j].wait_ns;
		} else {
			g->edges[m++] = g->edges[j];
		}
	}
	g->nr_edges = m;
	qsort(g->edges, m, sizeof(*g->edges), cmp_edge_wait);
	for (j = 0; j < g->nr_nodes; j++)
		g->nodes[j].first_in = -1;
	for (j = 0; j < m; j++) {
		struct graph_node *w = &g->nodes[g->edges[j].wakee];

		if (w->first_in < 0)
			w->first_in = j;
		w->nr_in++;
	}
	return 0;
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

static void judge_nodes(struct graph *g)
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

static int flow(struct graph *g)
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

/*
 * Nodes by tid (per task) or by name (per name: made in name order), for
 * the writers' look-ups: one per row, 10,000 of them in a big report.
 */
static int cmp_index(const void *a, const void *b, void *arg)
{
	const struct graph *g = arg;
	const struct graph_node *x = &g->nodes[*(const int *)a];
	const struct graph_node *y = &g->nodes[*(const int *)b];

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int make_index(struct graph *g)
{
	int i;

	g->index = calloc((size_t)g->nr_nodes + 1, sizeof(int));
	if (!g->index)
		return -ENOMEM;
	for (i = 0; i < g->nr_nodes; i++)
		g->index[i] = i;
	if (!g->per_name)
		qsort_r(g->index, g->nr_nodes, sizeof(int), cmp_index, g);
	return 0;
}

int graph_build(struct graph *g, const struct task_table *t, bool per_name)
{
	char (*names)[TDBPF_COMM_LEN + 2];
	int *rowmap, err;

	memset(g, 0, sizeof(*g));
	g->per_name = per_name;
	g->nodes = calloc(t->nr ? t->nr : 1, sizeof(*g->nodes));
	rowmap = calloc(t->nr ? t->nr : 1, sizeof(*rowmap));
	names = calloc(t->nr ? t->nr : 1, sizeof(*names));
	err = !g->nodes || !rowmap || !names ? -ENOMEM : 0;
	if (!err)
		err = make_nodes(g, t, rowmap, names);
	if (!err)
		err = make_edges(g, t, rowmap);
	if (!err) {
		judge_nodes(g);
		err = flow(g);
	}
	if (!err)
		err = make_index(g);
	free(rowmap);
	free(names);
	if (err)
		graph_free(g);
	return err;
}

void graph_free(struct graph *g)
{
	free(g->nodes);
	free(g->edges);
	free(g->rank);
	free(g->index);
	memset(g, 0, sizeof(*g));
}

int graph_node_of(const struct graph *g, const struct task_row *r)
{
	char name[TDBPF_COMM_LEN + 2];
	int lo = 0, hi = g->nr_nodes, c;

	/* a folded row's name is folded already; folding it again keeps it */
	if (g->per_name)
		fold_name(r->comm, name, sizeof(name));
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		const struct graph_node *n = &g->nodes[g->index[mid]];

		c = g->per_name ? strcmp(n->name, name) :
				  (n->tid < r->tid ? -1 : n->tid > r->tid);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= g->nr_nodes)
		return -1;
	c = g->index[lo];
	if (g->per_name ? strcmp(g->nodes[c].name, name) :
			  g->nodes[c].tid != r->tid)
		return -1;
	return c;
}

const char *graph_waker_name(const struct graph *g, const struct graph_edge *e)
{
	if (e->waker >= 0)
		return g->nodes[e->waker].name;
	return waker_kind_name(e->kind);
}

double graph_share(const struct graph *g, int n)
{
	return g->blocked_ns > 0 ? g->nodes[n].led_ns / g->blocked_ns : 0;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

void graph_reason(const struct graph *g, int i, const char *path, char *buf,
		  size_t len)
{
	const struct graph_node *n = &g->nodes[i];
	double life = (double)n->on_cpu_ns + (double)n->runq_ns +
		      (double)n->blocked_ns;
	double kind_ns = 0;
	int j;

	if (n->note) {
		snprintf(buf, len, "%s", n->note);
		return;
	}
	for (j = 0; j < n->nr_in; j++) {
		const struct graph_edge *e = &g->edges[n->first_in + j];

		if (e->waker < 0 && e->kind == n->ext_kind)
			kind_ns += (double)e->wait_ns;
	}
	switch (n->role) {
	case ROLE_RUNNING:
		snprintf(buf, len, "runs (on-CPU %.0f%%): %s",
			 pct((double)n->on_cpu_ns, life),
			 path && *path ? path : "no PMU breakdown");
		break;
	case ROLE_STARVED:
		snprintf(buf, len, "CPU-starved (runq %.0f%%, on-CPU %.0f%%)",
			 pct((double)n->runq_ns, life),
			 pct((double)n->on_cpu_ns, life));
		break;
	case ROLE_PASS:
		if (n->cycle) {
			snprintf(buf, len,
				 "in a wait cycle (tasks that only wake each other)");
			break;
		}
		/* the part of its waits that no task ended */
		__attribute__((__fallthrough__));
	case ROLE_EXTERNAL:
	case ROLE_IDLE:
	default:
		snprintf(buf, len, "waits on %s (%.0f%% of its blocked time)",
			 waker_kind_what(n->ext_kind),
			 pct(kind_ns, waits_of(g, n)));
		break;
	}
}
