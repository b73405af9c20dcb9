/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events of this machine that -e takes beyond perf's software and
 * hardware names (model/evsel.h): each PMU's named events (sysfs
 * events/, "msr/tsc/") and the tracepoints (tracefs, "sched:sched_switch"),
 * for tdbpf list --events, as perf list finds them.
 */
#ifndef TDBPF_EVENT_NAMES_H
#define TDBPF_EVENT_NAMES_H

#include <stdbool.h>
#include "model/evsel_env.h"

enum event_kind { EVENT_PMU, EVENT_TRACEPOINT };

typedef void (*event_name_fn)(void *ctx, enum event_kind kind,
			      const char *name);

/* Every one, PMU events first, each kind in name order. */
void event_names_each(const struct evsel_env *env, event_name_fn each,
		      void *ctx);

/* A core PMU is there: the hardware names count something. */
bool event_names_have_cpu_pmu(const struct evsel_env *env);

#endif /* TDBPF_EVENT_NAMES_H */
