// SPDX-License-Identifier: GPL-2.0
/* The thread checks test_attach and test_attach_counters share (attach_checks.h). */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "itest.h"
#include "json_get.h"
#include "proc.h"
#include "attach_checks.h"

void check_coverage(json_object *task)
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

double steal_ns(void)
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

void check_threads(json_object *doc, struct thread_line *t, int n,
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
