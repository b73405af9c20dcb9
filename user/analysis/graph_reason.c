// SPDX-License-Identifier: GPL-2.0
/* What the writers say of the wait-for graph's nodes (see graph.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "analysis/graph.h"
#include "analysis/graph_flow.h"
#include "support/text.h"

const char *graph_waker_name(const struct graph *g, const struct graph_edge *e)
{
	if (e->waker >= 0)
		return g->nodes[e->waker].name;
	if (e->ext_name[0])
		return e->ext_name;
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

const char *graph_tid_name(const struct graph *g, __u32 tid, char *buf,
			   size_t len)
{
	const struct graph_lookups *l = g->look;

	return l && l->tid_name ? l->tid_name(l->ctx, tid, buf, len) : NULL;
}

const char *graph_cpu_limit(const struct graph *g, __u32 tid, char *buf,
			    size_t len)
{
	const struct graph_lookups *l = g->look;

	return l && l->cpu_limit ? l->cpu_limit(l->ctx, tid, buf, len) : NULL;
}

/*
 * Who held the CPU a starved node waited for most: "CPU-starved by enrich
 * (62% of its run-queue wait)", or its cgroup's limit; without holds
 * (a recording made before them), its shares of time alone.
 */
static void starved_reason(const struct graph *g, const struct graph_node *n,
			   double life, char *buf, size_t len)
{
	const struct graph_edge *top = NULL;
	double runq = (double)n->runq_ns > n->holds_ns ? (double)n->runq_ns :
							  n->holds_ns;
	char name[64];
	const char *who = NULL;
	int j;

	/*
	 * the largest known holder: slices the ring did not keep (a busy
	 * machine's) say nothing of who; its share says how much is known
	 */
	for (j = 0; j < n->nr_in && !top; j++) {
		const struct graph_edge *e = &g->edges[n->first_in + j];

		if (graph_edge_holds(e) && e->kind != TDBPF_HOLDER_UNSEEN)
			top = e;
	}
	if (!top) {
		snprintf(buf, len, "CPU-starved (runq %.0f%%, on-CPU %.0f%%)",
			 pct((double)n->runq_ns, life),
			 pct((double)n->on_cpu_ns, life));
		return;
	}
	if (top->kind == TDBPF_HOLDER_LIMIT) {
		char lim[640];
		const char *l = n->tid ?
			graph_cpu_limit(g, n->tid, lim, sizeof(lim)) : NULL;

		snprintf(buf, len,
			 "throttled by its cgroup's CPU limit (%.0f%% of its run-queue wait)%s%s",
			 pct((double)top->wait_ns, runq), l ? ": " : "",
			 l ? l : "");
		return;
	}
	if (top->waker >= 0) {
		who = g->nodes[top->waker].name;
	} else if (top->kind == TDBPF_HOLDER_OTHER && top->ext_tid) {
		who = graph_tid_name(g, top->ext_tid, name, sizeof(name));
		if (!who) {
			snprintf(name, sizeof(name), "tid %u", top->ext_tid);
			who = name;
		}
	}
	if (who)
		snprintf(buf, len, "CPU-starved by %s%s (%.0f%% of its run-queue wait)",
			 who, top->waker < 0 ? " (outside the targets)" : "",
			 pct((double)top->wait_ns, runq));
	else
		snprintf(buf, len, "CPU-starved by %s (%.0f%% of its run-queue wait)",
			 waker_kind_what(top->kind),
			 pct((double)top->wait_ns, runq));
}

void graph_reason(const struct graph *g, int i, const char *path, char *buf,
		  size_t len)
{
	const struct graph_node *n = &g->nodes[i];
	double life = (double)n->on_cpu_ns + (double)n->runq_ns +
		      (double)n->blocked_ns;
	double kind_ns = 0;
	int j, peer = -1;

	/* an operator of several tasks: its hot instance's reason */
	if (!n->note && n->nr_tasks > 1 && n->hot_node >= 0 && g->tasks) {
		graph_reason(g->tasks, n->hot_node, path, buf, len);
		return;
	}
	if (n->note) {
		snprintf(buf, len, "%s", n->note);
		return;
	}
	for (j = 0; j < n->nr_in; j++) {
		const struct graph_edge *e = &g->edges[n->first_in + j];

		if (graph_edge_holds(e) || graph_edge_leads(g, e))
			continue;
		if ((e->waker < 0 ? e->kind : TDBPF_WAKER_TASK) == n->ext_kind)
			kind_ns += (double)e->wait_ns;
	}
	switch (n->role) {
	case ROLE_RUNNING:
		snprintf(buf, len, "runs (on-CPU %.0f%%): %s",
			 pct((double)n->on_cpu_ns, life),
			 path && *path ? path : "no PMU breakdown");
		break;
	case ROLE_STARVED:
		starved_reason(g, n, life, buf, len);
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
		/* a socket told who: name the peer, not just its kind */
		for (j = 0; j < n->nr_in; j++) {
			const struct graph_edge *e = &g->edges[n->first_in + j];

			if (e->waker < 0 && e->kind == n->ext_kind &&
			    e->ext_name[0] && peer < 0)
				peer = n->first_in + j;
		}
		if (n->ext_kind == TDBPF_WAKER_TASK)
			snprintf(buf, len,
				 "waits on itself, or once at its start or end (%.0f%% of its blocked time)",
				 pct(kind_ns, n->waits_ns));
		else if (peer >= 0)
			snprintf(buf, len, "waits on %s, %s (%.0f%% of its blocked time)",
				 g->edges[peer].ext_name,
				 n->ext_kind == TDBPF_WAKER_ENDPOINT ?
					 "a peer on another host or namespace" :
					 "a process not traced",
				 pct((double)g->edges[peer].wait_ns,
				     n->waits_ns));
		else
			snprintf(buf, len,
				 "waits on %s (%.0f%% of its blocked time)",
				 waker_kind_what(n->ext_kind),
				 pct(kind_ns, n->waits_ns));
		break;
	}
}

/*
 * The wait of in-edge @e of @node with the edges it shares a cell with:
 * wakers that are no node and go by one name (every holder outside the
 * targets is one cpu-other, as the DOT draws it).
 */
static double merged_ns(const struct graph *g, const struct graph_node *node,
			const struct graph_edge *e)
{
	double ns = (double)e->wait_ns;
	int j;

	if (e->waker >= 0)
		return ns;
	for (j = 0; j < node->nr_in; j++) {
		const struct graph_edge *o = &g->edges[node->first_in + j];

		if (o != e && o->waker < 0 && o->kind == e->kind &&
		    !strcmp(graph_waker_name(g, o), graph_waker_name(g, e)))
			ns += (double)o->wait_ns;
	}
	return ns;
}

void graph_waits_on(const struct graph *g, int n, char *buf, size_t len)
{
	const struct graph_node *node;
	const struct graph_edge *e;
	char name[GRAPH_NAME_LEN];
	double all = 0, top = -1, ns;
	int i;

	if (n < 0 || !g->nodes[n].nr_in) {
		snprintf(buf, len, "-");
		return;
	}
	node = &g->nodes[n];
	for (i = 0; i < node->nr_in; i++)
		all += (double)g->edges[node->first_in + i].wait_ns;
	/* the largest, its namesakes outside the graph summed with it */
	e = &g->edges[node->first_in];
	for (i = 0; i < node->nr_in; i++) {
		ns = merged_ns(g, node, &g->edges[node->first_in + i]);
		if (ns > top) {
			top = ns;
			e = &g->edges[node->first_in + i];
		}
	}
	text_printable(name, sizeof(name), graph_waker_name(g, e), NULL,
		       TEXT_ASCII);
	/*
	 * a hold: the CPU it waited for was held by that task. The share
	 * as an integer, rounded as %.0f does: a row's cell for each of
	 * 10,000 tasks, where %f took about a quarter of the table's time (perf).
	 */
	snprintf(buf, len, "%s%s %u%%",
		 graph_edge_holds(e) && e->waker >= 0 ? "cpu:" : "", name,
		 (unsigned int)rint(pct(top, all)));
}
