// SPDX-License-Identifier: GPL-2.0
/*
 * Any Armv8 core with the architected PMU (PMUv3) but no TopDown model of
 * its own: an unknown MIDR (QEMU's "-cpu max", cores perf has no metrics
 * for) or a Neoverse whose kernel does not expose the events its model
 * needs. CPU_CYCLES (0x11) and INST_RETIRED (0x08) are common events every
 * PMUv3 implements (Arm ARM D11.11: "required"), so this model counts
 * cycles, instructions and their ratio, and no tree: there is no
 * architected event set that a TopDown split could be computed from.
 *
 * detect.c picks it as a fallback (nr_match 0: never by MIDR) and says
 * which Neoverse events were missing.
 */
#include <linux/perf_event.h>
#include "model/model.h"

enum { E_CYCLES, E_INST, NR_EVENTS };

static const struct model_event armv8_events[NR_EVENTS] = {
	/* the first cycles event of a group takes PMCCNTR_EL0 */
	[E_CYCLES] = { .name = "cpu_cycles", .type = PERF_TYPE_RAW,
		       .config = 0x11, .kind = EV_FIXED, .fixed = 0,
		       .need = NEED_ALWAYS, .level = 1 },
	[E_INST] = { .name = "inst_retired", .type = PERF_TYPE_RAW,
		     .config = 0x08, .kind = EV_GP, .counters = 0x3f,
		     .fixed = -1, .need = NEED_ALWAYS, .level = 1 },
};

static const char *const armv8_pmu_events[] = {
	"cpu_cycles", "inst_retired", NULL
};

const struct model model_armv8 = {
	.name = "armv8",
	.desc = "generic Armv8 PMUv3: cycles, instructions, IPC; no TopDown",
	/*
	 * PMCR_EL0.N is not visible to user space; 6 is what the Neoverse
	 * cores and QEMU's emulated PMU have. The plan needs one GP counter.
	 */
	.gp_smt_on = 6,
	.gp_smt_off = 6,
	.max_level = 1,
	.events = armv8_events,
	.nr_events = NR_EVENTS,
	/* no TopDown tree: .nodes and .eval stay NULL */
	.pmu = "armv8_*",
	.pmu_events = armv8_pmu_events,
	.no_smt = true,
	.ipc_inst = "inst_retired",
	.ipc_cycles = "cpu_cycles",
};
