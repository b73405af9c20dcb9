// SPDX-License-Identifier: GPL-2.0
/*
 * The wait-for graph (see graph.h): its nodes (tasks, or folded names)
 * and edges (waker -> wakee, from each task's waker slots), then the
 * verdict (graph_flow.c) and an index for the writers' look-ups.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/graph.h"
#include "analysis/graph_flow.h"

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

/* Two edges of the same wakee and waker: by kind, then what is outside. */
static int cmp_edge_rest(const struct graph_edge *x, const struct graph_edge *y)
{
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->ext_pid != y->ext_pid)
		return x->ext_pid < y->ext_pid ? -1 : 1;
	if (x->ext_tid != y->ext_tid)
		return x->ext_tid < y->ext_tid ? -1 : 1;
	/* endpoints: one edge per address, not one for all of a wakee's */
	return strcmp(x->ext_name, y->ext_name);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct graph_edge *x = a, *y = b;

	if (x->wakee != y->wakee)
		return x->wakee < y->wakee ? -1 : 1;
	if (x->waker != y->waker)
		return x->waker < y->waker ? -1 : 1;
	return cmp_edge_rest(x, y);
}

/*
 * Nodes by what they are (tid, then name), not by their index: the
 * index follows the table's row order, which a recording (written
 * sorted) does not keep, and the graph of a replay must list its edges
 * as the live run's did.
 */
static int cmp_node(const struct graph *g, int a, int b)
{
	if (a == b)
		return 0;
	if (a < 0 || b < 0)
		return a < b ? -1 : 1;
	if (g->nodes[a].tid != g->nodes[b].tid)
		return g->nodes[a].tid < g->nodes[b].tid ? -1 : 1;
	return strcmp(g->nodes[a].name, g->nodes[b].name);
}

static int cmp_edge_wait(const void *a, const void *b, void *arg)
{
	const struct graph_edge *x = a, *y = b;
	const struct graph *g = arg;
	int c = cmp_node(g, x->wakee, y->wakee);

	if (c)
		return c;
	if (x->wait_ns != y->wait_ns)
		return x->wait_ns > y->wait_ns ? -1 : 1;
	c = cmp_node(g, x->waker, y->waker);
	return c ? c : cmp_edge_rest(x, y);
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

/* Nodes: one per row, or one per folded name; rowmap[row] = node. */
static int make_nodes(struct graph *g, const struct task_table *t,
		      int *rowmap, char (*names)[TDBPF_NAME_MAX])
{
	struct key *k = calloc(t->nr ? t->nr : 1, sizeof(*k));
	size_t i;

	if (!k)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		const struct task_row *r = tasks_row(t, i);

		if (g->per_name) {
			fold_name(task_name(r), names[i], sizeof(names[i]));
			k[i].name = names[i];
		} else {
			k[i].name = task_name(r);
		}
		k[i].tid = r->tid;
		k[i].row = (int)i;
	}
	/*
	 * Nodes in an order of their own, not the table's: a replay's rows
	 * come in the recording's (sorted) order, and its graph, sums of
	 * doubles over nodes included, must be the live run's
	 */
	qsort(k, t->nr, sizeof(*k), g->per_name ? cmp_key_name : cmp_key_tid);
	g->nr_nodes = 0;
	for (i = 0; i < t->nr; i++) {
		const struct task_row *r = tasks_row(t, k[i].row);
		struct graph_node *n;

		if (!g->per_name || !i || strcmp(k[i].name, k[i - 1].name)) {
			n = &g->nodes[g->nr_nodes++];
			memset(n, 0, sizeof(*n));
			n->hot_node = -1;
			/* a name one task carries stays whole (tasks_fold) */
			snprintf(n->name, sizeof(n->name), "%s",
				 task_name(r));
			snprintf(n->key, sizeof(n->key), "%s", k[i].name);
			n->tid = r->tid;
			n->pid = r->pid;
		} else {
			n = &g->nodes[g->nr_nodes - 1];
			n->tid = 0;
			fold_join(n->name, sizeof(n->name), task_name(r));
			if (n->pid != r->pid)
				n->pid = 0;
		}
		if (!n->hot_tid ||
		    r->sched.on_cpu_ns + r->sched.runq_wait_ns > n->hot_ns) {
			n->hot_ns = r->sched.on_cpu_ns + r->sched.runq_wait_ns;
			n->hot_tid = r->tid;
			snprintf(n->hot_name, sizeof(n->hot_name), "%s",
				 task_name(r));
		}
		n->nr_tasks = tasks_count_add(n->nr_tasks,
					      r->nr_tasks > 0 ? r->nr_tasks : 1);
		n->on_cpu_ns += r->sched.on_cpu_ns;
		n->runq_ns += r->sched.runq_wait_ns;
		n->blocked_ns += r->sched.off_cpu_ns;
		n->softirq_ns += r->sched.softirq_ns < r->sched.on_cpu_ns ?
				 r->sched.softirq_ns : r->sched.on_cpu_ns;
		rowmap[k[i].row] = g->nr_nodes - 1;
	}
	free(k);
	return 0;
}

static int cmp_node_name(const void *a, const void *b, void *arg)
{
	const struct graph_node *n = arg;
	const struct graph_node *x = &n[*(const int *)a], *y = &n[*(const int *)b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * Tasks of several processes in one graph: where a name is used by tasks
 * of two processes or more, each such node says its process, "relay
 * (4242)", so that the verdict names one. Not for folded names
 * (--per-name folds across processes on purpose).
 */
static int label_processes(struct graph *g)
{
	int *o = calloc((size_t)g->nr_nodes + 1, sizeof(int));
	char base[TDBPF_NAME_MAX];
	int i, j, k;

	if (!o)
		return -ENOMEM;
	/* one process: no name to tell apart (10,000 threads: no sort) */
	for (i = 1; i < g->nr_nodes && g->nodes[i].pid == g->nodes[0].pid; i++)
		;
	if (i >= g->nr_nodes) {
		free(o);
		return 0;
	}
	for (i = 0; i < g->nr_nodes; i++)
		o[i] = i;
	qsort_r(o, g->nr_nodes, sizeof(int), cmp_node_name, g->nodes);
	for (i = 0; i < g->nr_nodes; i = j) {
		bool several = false;

		for (j = i + 1; j < g->nr_nodes &&
				!strcmp(g->nodes[o[j]].name, g->nodes[o[i]].name);
		     j++)
			if (g->nodes[o[j]].pid != g->nodes[o[i]].pid)
				several = true;
		for (k = i; several && k < j; k++) {
			struct graph_node *n = &g->nodes[o[k]];

			/* a name not folded: TDBPF_NAME_MAX at most */
			snprintf(base, sizeof(base), "%.*s",
				 TDBPF_NAME_MAX - 1, n->name);
			snprintf(n->name, sizeof(n->name), "%s (%u)", base,
				 n->pid);
		}
	}
	free(o);
	return 0;
}

/* Who a waker outside the graph is, when a socket told (see graph.h). */
static void ext_waker(struct graph_edge *e, const struct tdbpf_wait *w,
		      const struct graph_lookups *look)
{
	const unsigned char *a = (const unsigned char *)&w->tgid;
	char comm[TDBPF_COMM_LEN + 2];
	const char *c;

	e->ext_tid = 0;
	e->ext_pid = 0;
	e->ext_name[0] = 0;
	if (e->kind == TDBPF_WAKER_PROCESS && w->tgid) {
		e->ext_tid = w->tid;
		e->ext_pid = w->tgid;
		c = look && look->peer ? look->peer(look->ctx, w->tgid, w->tid,
						    comm, sizeof(comm)) : NULL;
		if (c)
			snprintf(e->ext_name, sizeof(e->ext_name), "%.16s (%u)",
				 c, w->tgid);
		else
			snprintf(e->ext_name, sizeof(e->ext_name), "pid %u",
				 w->tgid);
	} else if (e->kind == TDBPF_WAKER_ENDPOINT) {
		/* tgid holds the address in network order */
		snprintf(e->ext_name, sizeof(e->ext_name), "%u.%u.%u.%u:%u",
			 a[0], a[1], a[2], a[3], w->tid);
	}
}

/* Raw edges from every row's slots, then merged by (wakee, waker, kind). */
static int make_edges(struct graph *g, const struct task_table *t,
		      const int *rowmap, const struct graph_lookups *look)
{
	struct key *by_tid = calloc(t->nr ? t->nr : 1, sizeof(*by_tid));
	size_t i, cap = 1;
	int j, n = 0, m, nw;

	/* each slot in use, and each row's unseen time */
	for (i = 0; i < t->nr; i++) {
		tasks_waits(t, tasks_row(t, i), &nw);
		cap += (size_t)nw + 1;
	}
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
		const struct tdbpf_wait *ws = tasks_waits(t, r, &nw);
		__u64 sum = 0;

		for (j = 0; j < nw; j++) {
			const struct tdbpf_wait *w = &ws[j];
			struct graph_edge *e = &g->edges[n];

			if (w->kind == TDBPF_WAKER_NONE ||
			    (!w->wakeups && !w->wait_ns))
				continue;
			e->wakee = rowmap[i];
			e->kind = w->kind;
			e->waker = -1;
			if (w->kind == TDBPF_WAKER_TASK ||
			    w->kind == TDBPF_HOLDER_TASK) {
				e->waker = node_of_tid(by_tid, t->nr, rowmap,
						       w->tid);
				/* one with no row: not in this window */
				if (e->waker < 0 && w->kind == TDBPF_WAKER_TASK)
					e->kind = TDBPF_WAKER_PROCESS;
				if (e->waker < 0 && w->kind == TDBPF_HOLDER_TASK)
					e->kind = TDBPF_HOLDER_OTHER;
			}
			if (e->waker < 0)
				ext_waker(e, w, look);
			/* a holder outside the graph: its tid, named later */
			if (e->kind == TDBPF_HOLDER_OTHER)
				e->ext_tid = w->tid;
			e->wakeups = w->wakeups;
			e->wait_ns = w->wait_ns;
			e->longest_ns = (__u64)w->longest_us * 1000;
			/* holds are run-queue time, not blocked time */
			if (!TDBPF_KIND_HOLDS(w->kind))
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
			if (g->edges[j].longest_ns > g->edges[m - 1].longest_ns)
				g->edges[m - 1].longest_ns =
					g->edges[j].longest_ns;
		} else {
			g->edges[m++] = g->edges[j];
		}
	}
	g->nr_edges = m;
	qsort_r(g->edges, m, sizeof(*g->edges), cmp_edge_wait, g);
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

/*
 * --per-name: the verdict of the graph over tasks, folded. A name's
 * share is what led to its tasks, its hot instance the task most of
 * that led to, and its reason that task's (its sources stay those of
 * the folded flow: blocked names that send it some): an operator whose one
 * subtask carries the hot key is judged by that subtask, not by the
 * idle ones beside it, which folded into its sums make it look blocked
 * on its own source.
 */
static int fold_verdict(struct graph *g, const struct task_table *t,
			const int *rowmap, const struct graph_lookups *look)
{
	struct graph *tg = calloc(1, sizeof(*tg));
	size_t i;
	int j;

	if (!tg || graph_build(tg, t, false, look)) {
		free(tg);
		return -ENOMEM;
	}
	for (j = 0; j < g->nr_nodes; j++) {
		g->nodes[j].led_ns = 0;
		g->nodes[j].cycle = false;
	}
	for (i = 0; i < t->nr; i++) {
		const struct task_row *r = tasks_row(t, i);
		int k = graph_node_of(tg, r);
		struct graph_node *n = &g->nodes[rowmap[i]];
		const struct graph_node *x = k >= 0 ? &tg->nodes[k] : NULL;

		if (!x)
			continue;
		n->led_ns += x->led_ns;
		n->cycle |= x->cycle;
		if (x->led_ns > 0 && (n->hot_node < 0 ||
		    x->led_ns > tg->nodes[n->hot_node].led_ns)) {
			n->hot_node = k;
			n->hot_tid = r->tid;
			snprintf(n->hot_name, sizeof(n->hot_name), "%s",
				 task_name(r));
		}
	}
	/* a folded name is as busy as the instance the verdict names */
	for (j = 0; j < g->nr_nodes; j++) {
		struct graph_node *n = &g->nodes[j];
		const struct graph_node *x = n->hot_node >= 0 ?
					     &tg->nodes[n->hot_node] : NULL;

		n->busy = x ? x->busy : 0;
		n->weight = x ? x->weight : 0;
	}
	g->tasks = tg;
	graph_rank(g);
	return 0;
}

int graph_build(struct graph *g, const struct task_table *t, bool per_name,
		const struct graph_lookups *look)
{
	char (*names)[TDBPF_NAME_MAX] = NULL;
	int *rowmap, err;

	memset(g, 0, sizeof(*g));
	g->per_name = per_name;
	g->look = look;
	g->nodes = calloc(t->nr ? t->nr : 1, sizeof(*g->nodes));
	rowmap = calloc(t->nr ? t->nr : 1, sizeof(*rowmap));
	/* folded keys; unfolded, nodes take the rows' own names */
	if (per_name)
		names = calloc(t->nr ? t->nr : 1, sizeof(*names));
	err = !g->nodes || !rowmap || (per_name && !names) ? -ENOMEM : 0;
	if (!err)
		err = make_nodes(g, t, rowmap, names);
	if (!err && !per_name)
		err = label_processes(g);
	if (!err)
		err = make_edges(g, t, rowmap, look);
	if (!err) {
		graph_judge_nodes(g);
		err = graph_flow(g);
	}
	if (!err)
		err = make_index(g);
	if (!err && per_name)
		err = fold_verdict(g, t, rowmap, look);
	g->rowmap = rowmap;
	g->rows = t->mem;
	g->row_size = t->row_size;
	g->nr_rows = t->nr;
	free(names);
	if (err)
		graph_free(g);
	return err;
}

void graph_free(struct graph *g)
{
	if (g->tasks)
		graph_free(g->tasks);
	free(g->tasks);
	free(g->nodes);
	free(g->edges);
	free(g->rank);
	free(g->index);
	free(g->rowmap);
	memset(g, 0, sizeof(*g));
}

/*
 * The node of row @r, when it is a row of the table @g was built of and
 * its node has its tid (a table freed since and another in its place
 * has not); -1 otherwise.
 */
static int node_of_own_row(const struct graph *g, const struct task_row *r)
{
	uintptr_t at = (uintptr_t)r, base = (uintptr_t)g->rows, off;
	int k;

	if (!g->rowmap || g->per_name || !g->row_size || at < base)
		return -1;
	off = at - base;
	if (off % g->row_size || off / g->row_size >= g->nr_rows)
		return -1;
	k = g->rowmap[off / g->row_size];
	return k >= 0 && k < g->nr_nodes && g->nodes[k].tid == r->tid ? k :
									 -1;
}

int graph_node_of(const struct graph *g, const struct task_row *r)
{
	char name[TDBPF_NAME_MAX];
	int lo = 0, hi = g->nr_nodes, c = node_of_own_row(g, r);

	if (c >= 0)
		return c;

	/* a folded row's name is folded already; folding it again keeps it */
	if (g->per_name)
		fold_name(task_name(r), name, sizeof(name));
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		const struct graph_node *n = &g->nodes[g->index[mid]];

		c = g->per_name ? strcmp(n->key, name) :
				  (n->tid < r->tid ? -1 : n->tid > r->tid);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= g->nr_nodes)
		return -1;
	c = g->index[lo];
	if (g->per_name ? strcmp(g->nodes[c].key, name) :
			  g->nodes[c].tid != r->tid)
		return -1;
	return c;
}
