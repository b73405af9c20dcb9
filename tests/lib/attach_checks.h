/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks shared by test_attach and test_attach_counters: a thread's
 * on-CPU time against its own CLOCK_THREAD_CPUTIME_ID, and its coverage
 * against the slices no tracepoint showed.
 *
 * Tolerance: 2% of the thread's clock (the bound) plus 1 ms, for
 * the exit path a thread runs after it read its clock.
 * Compiled once into the test library (tests/lib/).
 */
#ifndef TDBPF_TEST_ATTACH_CHECKS_H
#define TDBPF_TEST_ATTACH_CHECKS_H

#include <json-c/json.h>
#include "itest.h"

#define REL	0.02
#define ABS_NS	1e6

/*
 * Software counters are never multiplexed, so with no read errors a
 * task's coverage (running / enabled) falls short of 1 only by the slices
 * whose switch-in no tracepoint showed (uncounted_ns: running at attach,
 * or a switch this VM's kernel does not trace): enabled time is the
 * windows counted plus those slices, running time the windows alone. The
 * windows, switch-in to switch-out tracepoint, hold the task's on-CPU
 * time less what the kernel charged outside them (window_gap_ns:
 * docs/accuracy.md). So the shortfall is exactly uncounted / (on-CPU - gap), 0
 * without them; the bound is coverage's rounding to 6 decimals.
 */
void check_coverage(json_object *task);

/*
 * Steal of all CPUs from /proc/stat, in ns: time the hypervisor ran
 * something else on a vCPU with a task on it. PARAVIRT_TIME_ACCOUNTING
 * leaves it out of on-CPU time, while cpu-clock (the local clock) holds
 * it, so it widens the gap beyond its cause in the guest itself.
 */
double steal_ns(void);

/*
 * @steal: the steal of all CPUs during the run (steal_ns() before and
 * after), what a perf cpu-clock counter's windows may hold beyond the
 * task's clock.
 */
void check_threads(json_object *doc, struct thread_line *t, int n,
		   bool want_exited, double steal);

#endif /* TDBPF_TEST_ATTACH_CHECKS_H */
