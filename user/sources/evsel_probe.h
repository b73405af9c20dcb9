/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The -e events against this machine: its sysfs and tracefs (mounted
 * when missing, as perf does), and a trial open of every group, so that
 * an event the machine cannot count is refused before tracing.
 */
#ifndef TDBPF_EVSEL_PROBE_H
#define TDBPF_EVSEL_PROBE_H

#include <stddef.h>
#include "model/evsel.h"

/*
 * Open every group of @l once on @cpu (pid -1, as tdbpf counts) and close
 * it again: an event this machine cannot count is refused before
 * tracing. Returns 0, or -1 with @err naming the event and why (no such
 * PMU, needs privileges, rejected encoding, cannot be grouped).
 * EV_UNSUP events are left out.
 */
int evsel_probe(const struct evsel_list *l, int cpu, char *err,
		size_t errlen);

/*
 * evsel_probe(), but an event no PMU here takes (ENOENT, ENODEV,
 * EOPNOTSUPP: perf stat's <not supported>) becomes EV_UNSUP with its
 * reason in l->why, and the rest are probed again; *@nr_unsup counts
 * them. Any other refusal is an error as evsel_probe() gives it.
 */
int evsel_probe_supported(struct evsel_list *l, int cpu, int *nr_unsup,
			  char *err, size_t errlen);

/*
 * The line evsel_probe() gives when perf_event_open of @e failed with
 * errno @e2 (@lead: the leader's name when only the group failed).
 * Returns -1.
 */
int evsel_why(const struct model_event *e, int e2, const char *lead,
	      char *err, size_t errlen);

/* The machine's environment: sysfs, tracefs found or mounted. */
void evsel_env_system(struct evsel_env *env);

#endif /* TDBPF_EVSEL_PROBE_H */
