/* SPDX-License-Identifier: GPL-2.0 */
/* Which model fits this machine: PMU driver, CPUID, SMT, NMI watchdog. */
#ifndef TDBPF_DETECT_H
#define TDBPF_DETECT_H

#include <stdbool.h>
#include "model.h"

struct detect_info {
	const struct model *model;	/* never NULL: software as fallback */
	bool smt;			/* SMT active */
	bool nmi_watchdog;		/* holds a counter while on */
	bool hybrid;			/* cpu_core + cpu_atom PMUs */
	int gp_counters;		/* GP counters we may use, 0: software */
	char pmu[16];			/* PMU dir: "cpu", "cpu_core", "" */
	char reason[256];		/* why the software model, "" if not */
	char cpu_desc[128];		/* e.g. "Intel(R) Xeon(R) ... (6-4F)" */
	char note[256];			/* warnings to print, "" if none */
};

/*
 * Fill @d from the files under @root ("" for this machine; a fixture tree
 * in tests): <root>/proc/cpuinfo, <root>/sys/bus/event_source/devices/
 * {cpu,cpu_core}/{caps/pmu_name,events/}, <root>/sys/devices/system/cpu/
 * smt/active, <root>/proc/sys/kernel/nmi_watchdog.
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
