// SPDX-License-Identifier: GPL-2.0
/*
 * The wait-for graph in Graphviz DOT (--graph FILE.dot): an edge per
 * waker -> wakee, labelled with the blocked time it ended and its
 * wakeups; tasks (or folded names) as boxes filled by role, wakers that
 * are no task (timer, irq, ...) as dashed ellipses, the bottleneck drawn
 * thick and named in its label. Edges that ended under 1% of the
 * wakee's blocked time are left out, so that the picture stays readable;
 * the JSON has them all.
 */
#include <stdio.h>
#include "analysis/graph.h"
#include "outputs/sink.h"

#define DOT_MIN_EDGE	0.01

static const char *const fill[] = {
	[ROLE_IDLE] = "#ffffff",
	[ROLE_RUNNING] = "#fdae61",	/* runs: orange */
	[ROLE_STARVED] = "#d7191c",	/* starved of CPU: red */
	[ROLE_EXTERNAL] = "#abd9e9",	/* waits on no task: blue */
	[ROLE_PASS] = "#e0e0e0",	/* waits on tasks: grey */
};

static const char *const role_word[] = {
	[ROLE_IDLE] = "idle",
	[ROLE_RUNNING] = "runs",
	[ROLE_STARVED] = "CPU-starved",
	[ROLE_EXTERNAL] = "waits on no task",
	[ROLE_PASS] = "waits on tasks",
};

/* A DOT string: quotes and backslashes escaped, control bytes as '?'. */
static void dot_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fputc('\\', f);
		fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

static void dot_time(FILE *f, __u64 ns)
{
	if (ns >= 1000000000ULL)
		fprintf(f, "%.2f s", ns / 1e9);
	else
		fprintf(f, "%.1f ms", ns / 1e6);
}

static double pct(double a, double b)
{
	return b > 0 ? 100.0 * a / b : 0;
}

static void dot_node(FILE *f, const struct graph *g, int i, int best,
		     const char *indent)
{
	const struct graph_node *n = &g->nodes[i];
	double life = (double)n->on_cpu_ns + (double)n->runq_ns +
		      (double)n->blocked_ns;

	fprintf(f, "%sn%d [label=\"", indent, i);
	if (i == best)
		fprintf(f, "BOTTLENECK\\n");
	dot_str(f, n->name);
	if (n->note)
		fprintf(f, "\\nno report has this endpoint");
	else if (n->tid)
		fprintf(f, "\\ntid %u", n->tid);
	else
		fprintf(f, "\\n%d tasks", n->nr_tasks);
	if (!n->note)
		fprintf(f, "\\n%s: on-CPU %.0f%% runq %.0f%% blocked %.0f%%",
			role_word[n->role], pct((double)n->on_cpu_ns, life),
			pct((double)n->runq_ns, life),
			pct((double)n->blocked_ns, life));
	if (graph_share(g, i) >= GRAPH_MIN_SHARE)
		fprintf(f, "\\n%.0f%% of the blocked time leads here",
			100.0 * graph_share(g, i));
	fprintf(f, "\", fillcolor=\"%s\"", n->note ? "#ffffbf" : fill[n->role]);
	if (i == best)
		fprintf(f, ", penwidth=4, color=\"#000000\"");
	fprintf(f, "];\n");
}

int graph_write_dot(FILE *f, const struct graph *g)
{
	bool used[WAKER_KINDS] = { false };
	int best = g->nr_rank ? g->rank[0] : -1;
	int i, c;

	fprintf(f, "digraph tdbpf {\n"
		"\trankdir=LR;\n"
		"\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n"
		"\tedge [fontname=\"Helvetica\", fontsize=10];\n");
	for (c = 0; c <= g->nr_clusters; c++) {
		/* one box per cluster (tdbpf graph: a host), then the rest */
		if (c) {
			fprintf(f, "\tsubgraph cluster_%d {\n\t\tlabel=\"", c);
			dot_str(f, g->clusters[c - 1]);
			fprintf(f, "\";\n\t\tstyle=dashed;\n");
		}
		for (i = 0; i < g->nr_nodes; i++)
			if (g->nodes[i].cluster == c)
				dot_node(f, g, i, best, c ? "\t\t" : "\t");
		if (c)
			fprintf(f, "\t}\n");
	}
	for (i = 0; i < g->nr_edges; i++) {
		const struct graph_edge *e = &g->edges[i];
		const struct graph_node *w = &g->nodes[e->wakee];

		if ((double)e->wait_ns < DOT_MIN_EDGE * (double)w->blocked_ns)
			continue;
		if (e->waker >= 0) {
			fprintf(f, "\tn%d -> n%d", e->waker, e->wakee);
		} else {
			used[e->kind < WAKER_KINDS ? e->kind : WAKER_UNSEEN] = true;
			fprintf(f, "\tk%u -> n%d", e->kind, e->wakee);
		}
		fprintf(f, " [label=\"");
		dot_time(f, e->wait_ns);
		fprintf(f, "\\n%llu wakeups\"", (unsigned long long)e->wakeups);
		if (e->waker >= 0 && e->waker == best)
			fprintf(f, ", penwidth=2");
		fprintf(f, "];\n");
	}
	for (i = 0; i < WAKER_KINDS; i++)
		if (used[i])
			fprintf(f, "\tk%d [label=\"%s\", shape=ellipse, style=dashed];\n",
				i, waker_kind_name((unsigned int)i));
	fprintf(f, "}\n");
	fflush(f);
	return ferror(f) ? -1 : 0;
}
