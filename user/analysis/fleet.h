/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdbpf graph: several hosts' reports joined into one task table whose
 * waker slots cross hosts, so that the one wait-for graph and verdict
 * (graph.c) and the same sinks judge a stream graph spread over hosts.
 *
 * Each host's task keeps its sums; its tid in the joined table is
 * host index x FLEET_TID_STRIDE + tid (host 0's tids are its own), so
 * that the digits still show the task. A wait whose waker is the far end
 * of a flow (a socket's peer on another host: graph.edges[].endpoint) is
 * joined by addresses, never by time, so clock skew between hosts does
 * not matter: the wakee's socket to that endpoint (its own sockets[])
 * gives the flow as the wakee's host sees it, local -> remote; the host
 * with a socket seeing the same flow reversed holds the waker, and of
 * its process's threads the one that itself waits on that flow (else
 * the one that ran most). The edge weighs what the wakee's own host
 * measured. An endpoint no report has a socket for stays a node of its
 * own, "unresolved ADDRESS:PORT", so that a host missing from the join
 * is named where the waits lead instead of being silently dropped.
 */
#ifndef TDBPF_FLEET_H
#define TDBPF_FLEET_H

#include <stddef.h>
#include "analysis/graph.h"
#include "sums/hosts.h"

#define FLEET_TID_STRIDE	10000000u	/* above pid_max's 2^22 */
#define FLEET_MAX_HOSTS		400		/* 400 x stride < 2^32 */

struct fleet {
	const struct host_report *hosts;
	int nr_hosts;
	struct task_table tasks;	/* hosts' rows, then endpoints' */
	/* by row of @tasks: the host (nr_hosts: an endpoint), the name */
	int *host_of;
	char (*label)[GRAPH_NAME_LEN];
	const char **cluster;		/* the hosts' names, for DOT */
	size_t nr_endpoints;		/* unresolved ones */
	size_t nr_joined;		/* waits joined across hosts */
	size_t nr_edges_dropped;	/* a wakee the report does not list */
};

/*
 * Can @h[0..@n) be joined: each a per-task report (not --per-name), all
 * of one counter plan, of one window (lengths within 20%, and where
 * both say when they ended, overlapping by half the shorter), under
 * distinct names. 0, or -1 with @err: one line naming the files.
 */
int fleet_check(const struct host_report *h, int n, char *err, size_t len);
/* Join them (fleet_check() passed). 0 or -ENOMEM. */
int fleet_join(struct fleet *f, const struct host_report *h, int n);
/*
 * After graph_build() over f->tasks: nodes named host/process/thread,
 * in one cluster per host, unresolved endpoints given their reason.
 */
void fleet_name_graph(const struct fleet *f, struct graph *g);
void fleet_free(struct fleet *f);

#endif /* TDBPF_FLEET_H */
