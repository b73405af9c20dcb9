// SPDX-License-Identifier: GPL-2.0
/*
 * Conservation of CPU time, as root on the real BPF path: with -a the
 * tasks' on-CPU time and the idle time add up to the CPUs' time, and no
 * time from before the start is charged. Nothing of tdbpf may stay in
 * the kernel after a run.
 */
#include "helpers.h"
#include "faults_helpers.h"

/* ---- conservation ---------------------------------------------------------- */

/* Idle plus iowait of all CPUs from /proc/stat, in ns. */
static double idle_ns(void)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	assert_non_null(f);
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4]);
	fclose(f);
	assert_int_equal(n, 5);
	return (double)(v[3] + v[4]) * 1e9 / (double)sysconf(_SC_CLK_TCK);
}

/*
 * With -a every CPU's time is some task's on-CPU time or idle: their sum
 * is the traced time times the CPUs, within 1%. The idle tasks (pid 0)
 * are not tracked; the kernel's idle accounting gives their time. Idle is
 * sampled when tdbpf says it attached and when its report arrives, the
 * two ends of the traced window.
 */
static void test_conservation_all(void **state)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "1", "-s", "2",
		       "-d", "10", NULL };
	char *tr[] = { (char *)tdbpf_bin(), "-a", "-v", "-j", "-d", "5",
		       NULL };
	double idle0, idle1, t0, t1, on = 0, dur, want, got;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	json_object *doc, *tasks, *lost;
	struct pollfd p;
	struct child w;
	struct proc d;
	char *rest;
	size_t i;

	(void)state;
	NEED_BPF();
	objects_before();
	start_workload(wl, 0, &w);
	d = start(tr, NULL);
	assert_true(wait_line(d.err, "attached", 10000));
	idle0 = idle_ns();
	t0 = mono_s();
	p.fd = d.out;
	p.events = POLLIN;
	assert_int_equal(poll(&p, 1, 15000), 1);
	idle1 = idle_ns();
	t1 = mono_s();
	rest = read_all(d.out);
	assert_int_equal(wait_for(d.pid, 10), 0);
	stop_workload(&w);

	doc = json_tokener_parse(rest);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++)
		on += (double)jint(json_object_array_get_idx(tasks, i),
				   "on_cpu_ns");
	if (json_object_object_get_ex(doc, "lost", &lost))
		print_message("lost: %s\n", json_object_to_json_string(lost));
	dur = (double)jint(doc, "duration_ns");
	want = dur * (double)ncpu;
	got = on + (idle1 - idle0);
	print_message("%ld CPUs, %.3f s traced (%.3f s between samples): on-CPU %.3f s + idle %.3f s = %.3f s, want %.3f s (%+.2f%%)\n",
		      ncpu, dur / 1e9, t1 - t0, on / 1e9,
		      (idle1 - idle0) / 1e9, got / 1e9, want / 1e9,
		      100.0 * (got - want) / want);
	/* the load must show up: a spinner is one CPU's worth of on-CPU */
	assert_true(on > 0.8 * dur);
	assert_close("on-CPU + idle", got, want, 0.01, 0);
	json_object_put(doc);
	free(rest);
	close(d.out);
	close(d.err);
	assert_nothing_left();
}

/*
 * With every CPU busy, on-CPU time summed over all tasks can not exceed
 * the traced time times the CPUs. Slices charged while tdbpf was still
 * attaching its programs (before the run's start) must not be counted:
 * attaching takes ms to tens of ms, which a short run shows clearly.
 */
static void test_no_time_before_start(void **state)
{
	char nbuf[16];
	char *wl[] = { (char *)workload("spinners"), "-n", nbuf, "-d", "10",
		       NULL };
	char *tr[] = { (char *)tdbpf_bin(), "-a", "-j", "-d", "0.3", NULL };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	json_object *doc, *tasks;
	double on = 0, cap;
	struct child w;
	char *out = NULL;
	size_t i;
	int k;

	(void)state;
	NEED_BPF();
	/* spin-I burns (I+1)/N of a CPU: 2 x CPUs threads fill them all */
	snprintf(nbuf, sizeof(nbuf), "%ld", 2 * ncpu);
	start_workload(wl, 0, &w);
	for (k = 0; k < 3; k++) {
		on = 0;
		assert_int_equal(run(tr, &out, 30), 0);
		doc = json_tokener_parse(out);
		assert_non_null(doc);
		assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
		for (i = 0; i < json_object_array_length(tasks); i++)
			on += (double)jint(json_object_array_get_idx(tasks, i),
					   "on_cpu_ns");
		cap = (double)jint(doc, "duration_ns") * (double)ncpu;
		print_message("on-CPU %.4f s of %.4f s (%+.2f%%)\n", on / 1e9,
			      cap / 1e9, 100.0 * (on - cap) / cap);
		/*
		 * The window ends after the sums are read, so nothing
		 * charged lies past it; 50 us a CPU for the two clocks (the
		 * scheduler's and CLOCK_MONOTONIC) drifting apart.
		 */
		assert_true(on <= cap + (double)ncpu * 5e4);
		json_object_put(doc);
		free(out);
	}
	stop_workload(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conservation_all),
		cmocka_unit_test(test_no_time_before_start),
	};

	return cmocka_run_group_tests_name("conservation", tests, NULL, NULL);
}
