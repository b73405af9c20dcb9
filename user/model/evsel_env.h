/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the -e parser reads what events mean on this machine (sysfs,
 * tracefs), and how long a name may be: shared by the grammar
 * (evsel.h) and the terms (evsel_terms.h).
 */
#ifndef TDBPF_EVSEL_ENV_H
#define TDBPF_EVSEL_ENV_H

#include <stddef.h>

#define EVSEL_NAME_LEN	128

struct evsel_env {
	/* event sources: "/sys/bus/event_source/devices" or a fixture */
	const char *pmu_dir;
	/* a tracefs mount (holding events/), NULL when none was found */
	const char *tracefs;
	/*
	 * Called once when a tracepoint is named and @tracefs is NULL: may
	 * mount tracefs (as perf does) and fill @dir; returns 0 if it did.
	 * NULL: tracepoints need @tracefs.
	 */
	int (*mount_tracefs)(char *dir, size_t len);
};

#endif /* TDBPF_EVSEL_ENV_H */
