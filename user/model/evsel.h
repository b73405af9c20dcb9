/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -e EVENT[,EVENT...] in perf's syntax: software and hardware event names,
 * tracepoints sys:name, raw rNNNN, pmu/term=val,.../, groups {a,b} and
 * the modifiers :u and :k. Parsing reads only sysfs and tracefs files
 * (pure otherwise, so it can be tested and fuzzed on fixtures); probing
 * with perf_event_open is apart (evsel_probe).
 */
#ifndef TDBPF_EVSEL_H
#define TDBPF_EVSEL_H

#include <stdbool.h>
#include <stddef.h>
#include "model/model.h"

#define EVSEL_MAX	TDBPF_MAX_EVENTS
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

/*
 * Events in the order given, as the plan takes them: ev[i] is what
 * counters.c opens, name[i] (ev[i].name points there) what the report
 * shows, group[i] numbers its group (an event alone is a group of one).
 */
struct evsel_list {
	int nr;
	int nr_groups;
	int group[EVSEL_MAX];
	struct model_event ev[EVSEL_MAX];
	char name[EVSEL_MAX][EVSEL_NAME_LEN];
	char tracefs[256];		/* a mount found by mount_tracefs */
};

/* Empty @l. */
void evsel_init(struct evsel_list *l);

/*
 * Add the events of one -e argument @spec to @l (-e may be given more
 * than once). Returns 0, or -1 with @err holding one line that names the
 * event, what is wrong and what to do (no "tdbpf: " prefix).
 */
int evsel_parse(struct evsel_list *l, const char *spec,
		const struct evsel_env *env, char *err, size_t errlen);

/*
 * Open every group of @l once on @cpu (pid -1, as tdbpf counts) and close
 * it again: an event this machine cannot count is refused before
 * tracing. Returns 0, or -1 with @err naming the event and why (no such
 * PMU, needs privileges, rejected encoding, cannot be grouped).
 */
int evsel_probe(const struct evsel_list *l, int cpu, char *err,
		size_t errlen);

/*
 * The line evsel_probe() gives when perf_event_open of @e failed with
 * errno @e2 (@lead: the leader's name when only the group failed).
 * Returns -1.
 */
int evsel_why(const struct model_event *e, int e2, const char *lead,
	      char *err, size_t errlen);

/* The machine's environment: sysfs, tracefs found or mounted. */
void evsel_env_system(struct evsel_env *env);

#endif /* TDBPF_EVSEL_H */
