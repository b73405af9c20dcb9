/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Intel core models share beyond the TMA tree: how they are
 * matched (CPUID family 6), the kernel's PERF_METRICS event names they
 * need, and the fixed-counter events of the IPC column.
 */
#ifndef TDBPF_MODELS_INTEL_H
#define TDBPF_MODELS_INTEL_H

#include <linux/perf_event.h>
#include "model/model.h"

/* CPUID 6-@m, any stepping */
#define INTEL_6(m)	MATCH_X86(VENDOR_INTEL, 6, m, m)

/*
 * The sysfs events (arch/x86/events/intel/core.c) through which the
 * kernel hands out PERF_METRICS: the slots models need them, and a kernel
 * or hypervisor without them would reject the group.
 */
#define INTEL_TOPDOWN_L1_EVENTS						\
	"topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",	\
	"topdown-be-bound", "slots"
#define INTEL_TOPDOWN_L2_EVENTS						\
	"topdown-heavy-ops", "topdown-br-mispredict", "topdown-fetch-lat", \
	"topdown-mem-bound"

/* fixed counters 0 and 1 */
#define INTEL_IPC							\
	.ipc_inst = "INST_RETIRED.ANY",					\
	.ipc_cycles = "CPU_CLK_UNHALTED.THREAD"

/*
 * Event-table entries (the including file names the E_* indices):
 * TOPDOWN.SLOTS on fixed counter 3 and the kernel's topdown-* aliases
 * (event 0, umask 0x80 + field, arch/x86/events/intel/core.c), read from
 * PERF_METRICS in the SLOTS group. Level 1 on Ice Lake and later, level 2
 * from Sapphire Rapids on.
 */
#define INTEL_METRIC(n, cfg, lvl)					\
	{ .name = n, .type = PERF_TYPE_RAW, .config = cfg,		\
	  .kind = EV_METRIC, .fixed = 3, .need = NEED_ALWAYS,		\
	  .level = lvl }
#define INTEL_TD_L1							\
	[E_SLOTS] = { .name = "TOPDOWN.SLOTS", .type = PERF_TYPE_RAW,	\
		      .config = 0x400, .kind = EV_SLOTS, .fixed = 3,	\
		      .need = NEED_ALWAYS, .level = 1 },		\
	[E_TD_RET] = INTEL_METRIC("topdown-retiring", 0x8000, 1),	\
	[E_TD_BAD_SPEC] = INTEL_METRIC("topdown-bad-spec", 0x8100, 1),	\
	[E_TD_FE] = INTEL_METRIC("topdown-fe-bound", 0x8200, 1),	\
	[E_TD_BE] = INTEL_METRIC("topdown-be-bound", 0x8300, 1)
#define INTEL_TD_L2							\
	[E_TD_HEAVY] = INTEL_METRIC("topdown-heavy-ops", 0x8400, 2),	\
	[E_TD_BR_MISP] = INTEL_METRIC("topdown-br-mispredict", 0x8500, 2), \
	[E_TD_FETCH_LAT] = INTEL_METRIC("topdown-fetch-lat", 0x8600, 2), \
	[E_TD_MEM] = INTEL_METRIC("topdown-mem-bound", 0x8700, 2)

/*
 * A GP event (any of the 8 counters, needed at @lvl) that also programs
 * the frontend MSR 0x3F7: @msr goes in config1 (the kernel's "frontend"
 * format), as perf's MSRValue says.
 */
#define INTEL_GP_FE(n, cfg, msr, lvl)					\
	{ .name = n, .type = PERF_TYPE_RAW, .config = cfg,		\
	  .config1 = msr, .kind = EV_GP, .counters = 0xff, .fixed = -1, \
	  .need = NEED_ALWAYS, .level = lvl }

#endif /* TDBPF_MODELS_INTEL_H */
