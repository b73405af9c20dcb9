/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One host's report as `tdbpf graph` reads it, from a JSON report, a
 * recording or Prometheus (sources/host_input.c, sources/prom_query.c):
 * its name, counter plan, window, task sums, wait edges (a task's
 * waiter slots as its graph.edges[] listed them, the far end of a flow
 * kept as an address) and its processes' sockets. analysis/fleet.c
 * joins several of them into one graph.
 */
#ifndef TDBPF_HOSTS_H
#define TDBPF_HOSTS_H

#include <stdbool.h>
#include <linux/types.h>
#include "model/model.h"
#include "sums/flows.h"
#include "sums/tasks.h"

struct host_edge {
	__u32 wakee_tid;
	/* a task of this host's report; 0: the waker is no such task */
	__u32 waker_tid;
	/* without a waker task or endpoint: TDBPF_WAKER_* (timer, ...) */
	unsigned int kind;
	/* the waker is the far end of a flow: this address, as seen here */
	bool remote;
	struct flow_end endpoint;
	__u64 wakeups, wait_ns;
};

struct host_report {
	char name[65];
	char source[256];	/* the file, or the Prometheus instance */
	struct event_plan plan;
	struct task_table tasks;	/* sums and counters, no waker slots */
	/*
	 * By row of @tasks, its process's name, where the source gives it
	 * apart (Prometheus' comm label); NULL: the row of tid == pid's.
	 */
	char (*pcomm)[TDBPF_COMM_LEN + 2];
	__u64 duration_ns;
	__u64 end_ns;		/* CLOCK_REALTIME at its end; 0: unknown */
	struct host_edge *edges;
	size_t nr_edges, cap_edges;
	struct flow_table flows;
};

void host_report_init(struct host_report *h);
void host_report_free(struct host_report *h);
/* Append @e; 0 or -ENOMEM. */
int host_add_edge(struct host_report *h, const struct host_edge *e);

#endif /* TDBPF_HOSTS_H */
