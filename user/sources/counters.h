/* SPDX-License-Identifier: GPL-2.0 */
/* perf_event_open of the plan's groups on every CPU. */
#ifndef TDBPF_COUNTERS_H
#define TDBPF_COUNTERS_H

#include <stddef.h>
#include "model/model.h"

struct counters {
	int ncpu;		/* possible CPUs: the BPF array's stride */
	int nr;			/* slots (events) per CPU */
	int *fds;		/* [slot * ncpu + cpu], -1 for offline CPUs */
};

/*
 * Open every group of @plan on every online CPU (pid=-1, cpu=N,
 * inherit=0). Returns 0, or -1 with @err naming the event and the fix.
 */
int counters_open(struct counters *c, const struct event_plan *plan, int ncpu,
		  char *err, size_t errlen);
void counters_close(struct counters *c);
/*
 * The attributes that count @e as tdbpf counts every event: its type,
 * configs and :u/:k, enabled and running times read, counting only (no
 * sampling, not inherited); the caller sets how it is scheduled.
 */
struct perf_event_attr;
void counters_attr(struct perf_event_attr *attr, const struct model_event *e);
/* Which CPUs are online: fills @online[ncpu]; returns how many. */
int cpus_online(bool *online, int ncpu);

#endif /* TDBPF_COUNTERS_H */
