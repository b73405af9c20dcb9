/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Intel core models share beyond the TMA tree: how they are
 * matched (CPUID family 6), the kernel's PERF_METRICS event names they
 * need, and the fixed-counter events of the IPC column.
 */
#ifndef TDBPF_MODELS_INTEL_H
#define TDBPF_MODELS_INTEL_H

#include "model.h"

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

#endif /* TDBPF_MODELS_INTEL_H */
