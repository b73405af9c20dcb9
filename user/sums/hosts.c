// SPDX-License-Identifier: GPL-2.0
/* One host's report for tdbpf graph (hosts.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sums/hosts.h"

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
	if (h->nr_edges == h->cap_edges) {
		size_t cap = h->cap_edges ? 2 * h->cap_edges : 32;
		struct host_edge *v = realloc(h->edges, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->edges = v;
		h->cap_edges = cap;
	}
	h->edges[h->nr_edges++] = *e;
	return 0;
}
