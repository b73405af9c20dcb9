/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Java threads started after the attach, named as they start: HotSpot's
 * USDT probe hotspot:thread__start (bpf/jvm.bpf.c) on the libjvm.so of
 * each JVM tdbpf may trace, its records taken into the run's thread
 * names at each collect. No signal, file or safepoint in the target: a
 * breakpoint at the probe's one instruction in libjvm.so, hit once per
 * thread start (a few microseconds each).
 */
#ifndef TDBPF_JVM_PROBE_H
#define TDBPF_JVM_PROBE_H

#include <stdbool.h>
#include <sys/types.h>
#include <bpf/libbpf.h>
#include "sources/thread_names.h"

#define JVM_PROBE_MAX_LINKS	16

struct jvm_probe {
	struct bpf_link *link[JVM_PROBE_MAX_LINKS];
	int nr;
};

/*
 * Is there a libjvm.so to probe for these targets (as jvm_probe_attach()
 * looks for them)? The program is loaded only then: a run without a JVM
 * carries none of it.
 */
bool jvm_probe_wanted(const int *pids, int nr_pids, bool any);
/*
 * Attach @prog to the JVMs among @pids (each to the libjvm.so it maps,
 * for it alone) and, with @any (a command, -a: JVMs not started yet), to
 * every installed JDK's (/usr/lib/jvm/STAR/lib/server/libjvm.so) for any
 * process, the program keeping the tracked ones'. Best effort: the
 * number attached (0: no JVM to name).
 */
int jvm_probe_attach(struct jvm_probe *jp, struct bpf_program *prog,
		     const int *pids, int nr_pids, bool any);
void jvm_probe_detach(struct jvm_probe *jp);
/* Move the names in map @fd (struct tdbpf_jname by tid) into @n. */
int jvm_probe_collect(int fd, struct thread_names *n);

#endif /* TDBPF_JVM_PROBE_H */
