// SPDX-License-Identifier: GPL-2.0
/*
 * Software counters: the model for machines without a usable PMU (VMs,
 * containers). No TMA tree; the scheduling breakdown and these kernel
 * counters are all there is. They are grouped (cpu-clock leads) so grouped
 * reads are exercised as on hardware.
 */
#include <linux/perf_event.h>
#include "model.h"

#define SW(n, cfg, u)							\
	{ .name = n, .type = PERF_TYPE_SOFTWARE, .config = cfg,		\
	  .kind = EV_SW, .fixed = -1, .need = NEED_ALWAYS, .level = 0,	\
	  .unit = u }

static const struct model_event sw_events[] = {
	/* first: the group leader; counts ns, shown in msec like perf */
	SW("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, "msec"),
	SW("page-faults", PERF_COUNT_SW_PAGE_FAULTS, ""),
	SW("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, ""),
	SW("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, ""),
};

#define NR_SW_EVENTS ((int)(sizeof(sw_events) / sizeof(sw_events[0])))

const struct model model_software = {
	.name = "software",
	.desc = "software counters only (no PMU)",
	/*
	 * Software events take no hardware counter, so there is no limit;
	 * "counters" here is simply every event of the model, in one group.
	 */
	.gp_smt_on = NR_SW_EVENTS,
	.gp_smt_off = NR_SW_EVENTS,
	.max_level = 0,
	.events = sw_events,
	.nr_events = NR_SW_EVENTS,
	.nodes = NULL,
	.nr_nodes = 0,
	.eval = NULL,
};
