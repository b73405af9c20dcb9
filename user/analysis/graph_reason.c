// SPDX-License-Identifier: GPL-2.0
/* What the writers say of the wait-for graph's nodes (see graph.h). */
#include <stdio.h>
#include "analysis/graph.h"

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

void graph_reason(const struct graph *g, int i, const char *path, char *buf,
		  size_t len)
{
	const struct graph_node *n = &g->nodes[i];
	double life = (double)n->on_cpu_ns + (double)n->runq_ns +
		      (double)n->blocked_ns;
	double kind_ns = 0;
	int j, peer = -1;

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
		/* a socket told who: name the peer, not just its kind */
		for (j = 0; j < n->nr_in; j++) {
			const struct graph_edge *e = &g->edges[n->first_in + j];

			if (e->waker < 0 && e->kind == n->ext_kind &&
			    e->ext_name[0] && peer < 0)
				peer = n->first_in + j;
		}
		if (peer >= 0)
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
