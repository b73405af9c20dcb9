// SPDX-License-Identifier: GPL-2.0
/*
 * The wait-for graph in Graphviz DOT (--graph FILE.dot): an edge per
 * wait, from the task that waited to its waker (the way data flows
 * through a pipeline), labelled with the blocked time it ended and its
 * wakeups, the edges from one kind of waker into a task merged, an idle
 * task's unseen time left out, and a legend; tasks (or folded names) as boxes filled by role, wakers that
 * are no task (timer, irq, ...) as dashed ellipses, the bottleneck drawn
 * thick and named in its label. Each process is a cluster of its tasks;
 * a socket's peer in a process not traced is a dashed box in a cluster
 * of its own, a remote endpoint a dashed ellipse. Edges that ended under
 * 1% of the wakee's blocked time are left out, so that the picture
 * stays readable; the JSON has them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static bool drawn(const struct graph *g, const struct graph_edge *e)
{
	const struct graph_node *w = &g->nodes[e->wakee];

	/* a hold's share is of the wakee's run-queue time */
	return (double)e->wait_ns >=
	       DOT_MIN_EDGE * (double)(graph_edge_holds(e) ? w->runq_ns :
							     w->blocked_ns);
}

/*
 * The name of process @pid: its main thread's node, else "pid N". A
 * label without the thread's "(pid)" suffix, which the cluster says.
 */
static void process_label(FILE *f, const struct graph *g, __u32 pid)
{
	int i;

	for (i = 0; i < g->nr_nodes; i++)
		if (g->nodes[i].tid == pid) {
			char name[GRAPH_NAME_LEN], suffix[24];
			size_t n = strlen(g->nodes[i].name), l;

			snprintf(name, sizeof(name), "%s", g->nodes[i].name);
			l = (size_t)snprintf(suffix, sizeof(suffix), " (%u)",
					     pid);
			if (n > l && !strcmp(name + n - l, suffix))
				name[n - l] = 0;
			dot_str(f, name);
			fprintf(f, " (pid %u)", pid);
			return;
		}
	fprintf(f, "pid %u", pid);
}

static void write_node(FILE *f, const struct graph *g, int i, int best)
{
	const struct graph_node *n = &g->nodes[i];
	double life = (double)n->on_cpu_ns + (double)n->runq_ns +
		      (double)n->blocked_ns;

	fprintf(f, "\tn%d [label=\"", i);
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
	fprintf(f, "\", fillcolor=\"%s\"",
		n->note ? "#ffffbf" : fill[n->role]);
	if (i == best)
		fprintf(f, ", penwidth=4, color=\"#000000\"");
	fprintf(f, "];\n");
}

/* An edge from a kind of waker (timer, cpu-other, ...), no node's. */
static bool kind_edge(const struct graph_edge *e)
{
	return e->waker < 0 && !e->ext_name[0];
}

/*
 * Edges from one kind into one wakee are one arrow (the holders outside
 * the targets are one cpu-other, whatever their tids): @e, edge @i, takes
 * the later ones of its wakee, which are marked in @merged not to be
 * drawn again. Edges are grouped by wakee (graph.h).
 */
static void merge_kind(const struct graph *g, int i, struct graph_edge *e,
		       bool *merged)
{
	int j;

	if (!kind_edge(e))
		return;
	for (j = i + 1; j < g->nr_edges && g->edges[j].wakee == e->wakee;
	     j++) {
		const struct graph_edge *o = &g->edges[j];

		if (kind_edge(o) && o->kind == e->kind && !merged[j]) {
			e->wakeups += o->wakeups;
			e->wait_ns += o->wait_ns;
			merged[j] = true;
		}
	}
}

/*
 * The unseen time of a task no seen wakeup ever woke (an idle thread, a
 * shell waiting on its children): an arrow with 0 wakeups that says
 * only what its box says, blocked.
 */
static bool left_out(const struct graph *g, const struct graph_edge *e)
{
	const struct graph_node *n = &g->nodes[e->wakee];
	int j;

	if (e->kind != WAKER_UNSEEN)
		return false;
	for (j = 0; j < n->nr_in; j++) {
		const struct graph_edge *o = &g->edges[n->first_in + j];

		if (!graph_edge_holds(o) && o->kind != WAKER_UNSEEN &&
		    o->wakeups)
			return false;
	}
	return true;
}

/*
 * One arrow in the direction data flows: from the task that waited to
 * what it waited on (its waker, or the holder of its CPU), so that
 * `head | base64 | gzip` reads head -> base64 -> gzip.
 */
static void write_edge(FILE *f, const struct graph_edge *e, int i, int best,
		       bool *used)
{
	if (e->waker >= 0) {
		fprintf(f, "\tn%d -> n%d", e->wakee, e->waker);
	} else if (e->ext_name[0]) {
		fprintf(f, "\tn%d -> x%d", e->wakee, i);
	} else {
		used[e->kind < WAKER_KINDS ? e->kind : WAKER_UNSEEN] = true;
		fprintf(f, "\tn%d -> k%u", e->wakee, e->kind);
	}
	fprintf(f, " [label=\"");
	dot_time(f, e->wait_ns);
	/* a hold: run-queue time while the waker held the CPU */
	if (graph_edge_holds(e))
		fprintf(f, " on CPU\\n%llu waits\", style=dotted",
			(unsigned long long)e->wakeups);
	else
		fprintf(f, "\\n%llu wakeups\"",
			(unsigned long long)e->wakeups);
	if (e->waker >= 0 && e->waker == best)
		fprintf(f, ", penwidth=2");
	fprintf(f, "];\n");
}

/* What the picture's lines mean, in a box of its own. */
static void write_legend(FILE *f)
{
	fprintf(f, "\tsubgraph cluster_legend {\n"
		"\t\tlabel=\"legend\"; style=dashed;\n"
		"\t\tlegend [shape=plaintext, style=\"\", label=\""
		"A -> B: A waited on B (the way data flows where a slower stage downstream holds it back)\\l"
		"solid: blocked time B's wakeups ended\\l"
		"dotted: run-queue time while B held A's CPU\\l"
		"dashed ellipse: no task (timer, irq, unseen, ...)\\l"
		"thick box: the bottleneck\\l\"];\n"
		"\t}\n");
}

int graph_write_dot(FILE *f, const struct graph *g)
{
	bool used[WAKER_KINDS] = { false };
	int best = g->nr_rank ? g->rank[0] : -1;
	bool *done = calloc((size_t)g->nr_nodes + 1, sizeof(bool));
	bool *merged = calloc((size_t)g->nr_edges + 1, sizeof(bool));
	int i, j;

	if (!done || !merged) {
		free(done);
		free(merged);
		return -1;
	}
	fprintf(f, "digraph tdbpf {\n"
		"\trankdir=LR;\n"
		"\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n"
		"\tedge [fontname=\"Helvetica\", fontsize=10];\n");
	write_legend(f);
	/* tdbpf graph: one cluster per host, around its processes */
	for (j = 1; j <= g->nr_clusters; j++) {
		fprintf(f, "\tsubgraph cluster_%d {\n\t\tlabel=\"", j);
		dot_str(f, g->clusters[j - 1]);
		fprintf(f, "\";\n\t\tstyle=dashed;\n");
		for (i = 0; i < g->nr_nodes; i++)
			if (g->nodes[i].cluster == j) {
				write_node(f, g, i, best);
				done[i] = true;
			}
		fprintf(f, "\t}\n");
	}
	/* one cluster per process (folded names span several: none) */
	for (i = 0; i < g->nr_nodes; i++) {
		__u32 pid = g->nodes[i].pid;

		if (done[i])
			continue;
		if (pid)
			fprintf(f, "\tsubgraph cluster_p%u {\n\tlabel=\"", pid);
		if (pid)
			process_label(f, g, pid);
		if (pid)
			fprintf(f, "\"; style=rounded; color=\"#888888\";\n");
		for (j = i; j < g->nr_nodes; j++)
			if (!done[j] && g->nodes[j].pid == pid &&
			    (pid || j == i)) {
				write_node(f, g, j, best);
				done[j] = true;
			}
		if (pid)
			fprintf(f, "\t}\n");
	}
	free(done);
	/* socket peers outside the graph: a process not traced, an endpoint */
	for (i = 0; i < g->nr_edges; i++) {
		const struct graph_edge *e = &g->edges[i];

		if (e->waker >= 0 || !e->ext_name[0] || !drawn(g, e))
			continue;
		if (e->ext_pid) {
			fprintf(f, "\tsubgraph cluster_x%u {\n\tlabel=\"pid %u (not traced)\"; style=dashed;\n",
				e->ext_pid, e->ext_pid);
			fprintf(f, "\tx%d [label=\"", i);
			dot_str(f, e->ext_name);
			fprintf(f, "\", style=\"rounded,dashed\"];\n\t}\n");
		} else {
			fprintf(f, "\tx%d [label=\"", i);
			dot_str(f, e->ext_name);
			fprintf(f, "\", shape=ellipse, style=dashed];\n");
		}
	}
	for (i = 0; i < g->nr_edges; i++) {
		struct graph_edge e = g->edges[i];

		if (merged[i])
			continue;
		merge_kind(g, i, &e, merged);
		if (!drawn(g, &e) || left_out(g, &e))
			continue;
		write_edge(f, &e, i, best, used);
	}
	free(merged);
	for (i = 0; i < WAKER_KINDS; i++)
		if (used[i])
			fprintf(f, "\tk%d [label=\"%s\", shape=ellipse, style=dashed];\n",
				i, waker_kind_name((unsigned int)i));
	fprintf(f, "}\n");
	fflush(f);
	return ferror(f) ? -1 : 0;
}
