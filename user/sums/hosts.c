// SPDX-License-Identifier: GPL-2.0
/* One host's report for tdbpf graph (hosts.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sums/hosts.h"
#include "support/array.h"

void host_report_init(struct host_report *h)
{
	memset(h, 0, sizeof(*h));
	tasks_init(&h->tasks);
	flows_init(&h->flows);
}

void host_report_free(struct host_report *h)
{
	tasks_free(&h->tasks);
	flows_free(&h->flows);
	free(h->edges);
	free(h->pcomm);
	host_report_init(h);
}

int host_add_edge(struct host_report *h, const struct host_edge *e)
{
	if (array_grow(&h->edges, &h->cap_edges, h->nr_edges,
		       sizeof(*h->edges), 32))
		return -ENOMEM;
	h->edges[h->nr_edges++] = *e;
	return 0;
}
