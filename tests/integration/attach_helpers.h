/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks shared by test_attach and test_attach_counters: a thread's
 * on-CPU time against its own CLOCK_THREAD_CPUTIME_ID, and its coverage
 * against the slices no tracepoint showed.
 *
 * Tolerance: 2% of the thread's clock (the bound) plus 1 ms, for
 * the exit path a thread runs after it read its clock.
 */
#ifndef TDBPF_TEST_ATTACH_HELPERS_H
#define TDBPF_TEST_ATTACH_HELPERS_H

#include <math.h>
#include "helpers.h"

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
static void check_coverage(json_object *task)
{
	double on = (double)jint(task, "on_cpu_ns");
	double unc = (double)jint(task, "uncounted_ns");
	double gap = (double)jint(task, "window_gap_ns");
	double miss = 1 - jdouble(task, "coverage");
	double want = unc > 0 ? unc / (on - gap) : 0;

	assert_true(unc >= 0 && unc <= on);
	if (fabs(miss - want) <= 2e-6)
		return;
	print_error("tid %lld: coverage %.6f with %.0f of %.0f ns uncounted, gap %.0f ns: want %.6f\n",
		    (long long)jint(task, "tid"), 1 - miss, unc, on, gap,
		    1 - want);
	fail();
}

/*
 * Steal of all CPUs from /proc/stat, in ns: time the hypervisor ran
 * something else on a vCPU with a task on it. PARAVIRT_TIME_ACCOUNTING
 * leaves it out of on-CPU time, while cpu-clock (the local clock) holds
 * it, so it widens the gap beyond its cause in the guest itself.
 */
static double steal_ns(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");

	assert_non_null(f);
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		v[7] = 0;
	fclose(f);
	return (double)v[7] * 1e9 / (double)sysconf(_SC_CLK_TCK);
}

/*
 * @steal: the steal of all CPUs during the run (steal_ns() before and
 * after), what a perf cpu-clock counter's windows may hold beyond the
 * task's clock.
 */
static void check_threads(json_object *doc, struct thread_line *t, int n,
			  bool want_exited, double steal)
{
	json_object *task;
	char what[96];
	int i;

	for (i = 0; i < n; i++) {
		task = report_task(doc, t[i].tid, t[i].name);
		snprintf(what, sizeof(what), "%s on_cpu_ns", t[i].name);
		assert_close(what, (double)jint(task, "on_cpu_ns"),
			     (double)t[i].cpu_ns, REL, ABS_NS);
		if (want_exited)
			assert_true(jbool(task, "exited"));
		if (t[i].cpu_ns > 1000000)
			check_coverage(task);
		/*
		 * cpu-clock counts the same slices: the software model's is
		 * the on-CPU time itself; a perf cpu-clock counter (-e) is
		 * the local clock, which holds the steal in its windows too
		 */
		if (t[i].cpu_ns > 50000000) {
			snprintf(what, sizeof(what), "%s cpu-clock", t[i].name);
			assert_close(what, jcounter(task, "cpu-clock"),
				     (double)jint(task, "on_cpu_ns"), REL,
				     ABS_NS + steal);
		}
	}
}

#endif
