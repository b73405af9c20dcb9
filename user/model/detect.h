/* SPDX-License-Identifier: GPL-2.0 */
/* Which model fits this machine: PMU driver, CPUID, SMT, NMI watchdog. */
#ifndef TDBPF_DETECT_H
#define TDBPF_DETECT_H

#include <stdbool.h>
#include "model/model.h"

struct detect_info {
	const struct model *model;	/* never NULL: software as fallback */
	bool smt;			/* SMT active */
	bool nmi_watchdog;		/* holds a counter while on */
	bool hybrid;			/* cpu_core + cpu_atom PMUs */
	int gp_counters;		/* GP counters we may use, 0: software */
	char pmu[32];			/* PMU dir: "cpu", "cpu_core",
					 * "armv8_pmuv3_0", "" */
	char reason[512];		/* why the software model, "" if not */
	char cpu_desc[128];		/* e.g. "Intel(R) Xeon(R) ... (6-4F)" */
	char note[384];			/* warnings to print, "" if none */
};

/*
 * Fill @d from the files under @root ("" for this machine; a fixture tree
 * in tests): <root>/proc/cpuinfo, <root>/sys/devices/system/cpu/cpu0/regs/
 * identification/midr_el1 (Arm), the model's core PMU under <root>/sys/
 * bus/event_source/devices/ (cpu, cpu_core, armv8_*: caps/pmu_name,
 * caps/slots, events/), <root>/sys/devices/system/cpu/smt/active,
 * <root>/proc/sys/kernel/nmi_watchdog. The model is the first whose
 * match fits the CPU (struct model_match).
 * Returns 0 when a hardware model was chosen, 1 for the software model
 * (d->reason says why).
 */
int detect_machine(const char *root, struct detect_info *d);

/*
 * The kernel's CONFIG_HZ from <root>/boot/config-<release> or
 * <root>/proc/config.gz, as libbpf finds a kernel config; 0 if neither
 * says.
 */
int detect_hz(const char *root);

#endif /* TDBPF_DETECT_H */
