// SPDX-License-Identifier: GPL-2.0
/*
 * The model for machines without a usable PMU (VMs, containers): no TMA
 * tree, the scheduling breakdown and perf's four software events. Each of
 * these is a number the kernel already keeps per task, so none is a
 * counter: the BPF program reads them from the task at its switch-out
 * with its scheduling times (EV_TASK), and a switch reads no counter at
 * all. They are what /proc/PID/task/TID/stat, status and schedstat show.
 */
#include <linux/perf_event.h>
#include "model/model.h"
#include "support/array.h"

/* .type and .config: the perf event it stands for, for tdbpf list */
#define SW(n, cfg, field, u)						\
	{ .name = n, .type = PERF_TYPE_SOFTWARE, .config = cfg,		\
	  .config1 = field, .kind = EV_TASK, .fixed = -1,		\
	  .need = NEED_ALWAYS, .level = 0, .unit = u }

static const struct model_event sw_events[] = {
	/* se.sum_exec_runtime in ns, shown in msec like perf */
	SW("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, TF_ON_CPU, "msec"),
	SW("page-faults", PERF_COUNT_SW_PAGE_FAULTS, TF_FAULTS, ""),
	SW("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, TF_SWITCHES,
	   ""),
	SW("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, TF_MIGRATIONS, ""),
};

#define NR_SW_EVENTS ((int)ARRAY_SIZE(sw_events))

const struct model model_software = {
	.name = "software",
	.desc = "software counters only (no PMU)",
	/* no hardware counter is taken: "counters" is every event */
	.gp_smt_on = NR_SW_EVENTS,
	.gp_smt_off = NR_SW_EVENTS,
	.max_level = 0,
	.events = sw_events,
	.nr_events = NR_SW_EVENTS,
	/* no TopDown tree: .nodes and .eval stay NULL */
};
