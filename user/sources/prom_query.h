/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdbpf graph --prometheus: every host's half of the wait-for graph,
 * read from Prometheus' HTTP query API (the series --listen exports:
 * docs/prometheus.md) into one host report per host (sums/hosts.h).
 */
#ifndef TDBPF_PROM_QUERY_H
#define TDBPF_PROM_QUERY_H

#include <stddef.h>
#include "sums/hosts.h"

struct prom_query {
	const char *url;	/* http://HOST:9090 (a path prefix allowed) */
	const char *range;	/* the window: a PromQL duration, "5m" */
	const char *match;	/* label matchers without braces, or NULL */
	long timeout_s;
};

/*
 * The hosts with tdbpf series, each named by its `host` label, else its
 * `instance`: *@hosts (an array of *@n, free each with
 * host_report_free(), then the array). 0, or -1 with @err holding one
 * line: "problem; fix".
 */
int prom_query_hosts(const struct prom_query *q, struct host_report **hosts,
		     int *n, char *err, size_t len);

#endif /* TDBPF_PROM_QUERY_H */
