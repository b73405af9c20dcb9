/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -e EVENT[,EVENT...] in perf's syntax: software and hardware event names,
 * tracepoints sys:name, raw rNNNN, pmu/term=val,.../, groups {a,b} and
 * the modifiers :u and :k. Parsing reads only sysfs and tracefs files
 * (pure otherwise, so it can be tested and fuzzed on fixtures); probing
 * with perf_event_open is apart (sources/evsel_probe.h).
 */
#ifndef TDBPF_EVSEL_H
#define TDBPF_EVSEL_H

#include <stdbool.h>
#include <stddef.h>
#include "model/evsel_env.h"
#include "model/model.h"

#define EVSEL_MAX	TDBPF_MAX_EVENTS
#define EVSEL_WHY_LEN	256

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
	char why[EVSEL_MAX][EVSEL_WHY_LEN];	/* ev[i].why (EV_UNSUP) */
	char tracefs[256];		/* a mount found by mount_tracefs */
};

/* Empty @l. */
void evsel_init(struct evsel_list *l);

/*
 * perf's software (@hw false) or hardware event names -e takes, @i from
 * 0 until NULL; aliases included (faults, cs, cycles, ...).
 */
const char *evsel_known_name(bool hw, size_t i);

/*
 * Add the events of one -e argument @spec to @l (-e may be given more
 * than once). Returns 0, or -1 with @err holding one line that names the
 * event, what is wrong and what to do (no "tdbpf: " prefix).
 */
int evsel_parse(struct evsel_list *l, const char *spec,
		const struct evsel_env *env, char *err, size_t errlen);

#endif /* TDBPF_EVSEL_H */
