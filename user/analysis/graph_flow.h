/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict steps of graph_build() (graph_flow.c), for graph.c: judge
 * each node on its own, then follow every blocked node's blocked time
 * along its waits to where it stops, and rank the candidates; and the
 * flow's rule of which waits it follows, which the reasons (graph_reason.c)
 * say in words.
 */
#ifndef TDBPF_GRAPH_FLOW_H
#define TDBPF_GRAPH_FLOW_H

#include "analysis/graph.h"

/* Each node's sched verdict, role and external waits. */
void graph_judge_nodes(struct graph *g);
/* The flow: waits_ns, led_ns, cycle, blocked_ns, rank. 0 or -ENOMEM. */
int graph_flow(struct graph *g);
/* blocked_ns and the rank, from each node's led_ns (graph_flow()'s end) */
void graph_rank(struct graph *g);
/*
 * Whether blocked time flows along wait @e to its waker: a task of the
 * graph that delayed the wakee (not itself, not once at a start or end).
 */
bool graph_edge_leads(const struct graph *g, const struct graph_edge *e);
/* Of wait @e, the ns that are one wait at a start or end: they leave */
double graph_once_ns(const struct graph *g, const struct graph_edge *e);

#endif /* TDBPF_GRAPH_FLOW_H */
