// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel features tdbpf does without (docs/kernels.md), made to look
 * missing on this kernel by TDBPF_KERNEL_LACKS, the test hook for the
 * kernels no test boots: each missing feature is named in one line on
 * stderr, and the run still gives each task's on-CPU time and its
 * scheduling breakdown, blocks told from preemptions. As root.
 */
#include "attach_helpers.h"

#define ALL_OFF "TDBPF_KERNEL_LACKS=prev_state,bpf_loop,percpu_lookup"

/*
 * The blocked time of @doc's edges into @wakee that a waker named @waker
 * ended (wakeups: not the run-queue waits it held the CPU for).
 */
static double waits_on(json_object *doc, int wakee, const char *waker)
{
	json_object *a = jedges(doc), *e;
	double s = 0;
	size_t i;

	for (i = 0; a && i < json_object_array_length(a); i++) {
		e = json_object_array_get_idx(a, i);
		if (jint(e, "wakee_tid") == wakee &&
		    !strcmp(jstr(e, "kind"), "wakeup") &&
		    !strcmp(jstr(e, "waker_comm"), waker))
			s += (double)jint(e, "wait_ns");
	}
	return s;
}

/*
 * A pipe ping-pong of two threads traced with --wakeups and a counter
 * (the switch program at every switch, the run-queue walk): @env's
 * features off. Each thread's on-CPU time is its own CPU clock's (2% +
 * 1 ms); each blocks on the other, so its off-CPU time is blocked time
 * the other ended (a block taken for a preemption would be run-queue
 * wait instead, and leave no such edge). Returns tdbpf's stderr.
 */
static char *pingpong(char *const env[])
{
	char *json = tmp_path("kf.json"), what[64], *err;
	char *argv[] = { (char *)tdbpf_bin(), "--wakeups", "-j", "-o", json,
			 "-e", "cpu-clock", "--",
			 (char *)workload("pipe_pingpong"), "-n", "20000",
			 NULL };
	struct thread_line t[4];
	struct run_result r;
	json_object *doc, *task;
	double off, on, blocked;
	int i;

	if (run_capture(argv, env, (uid_t)-1, 0, 120, &r))
		print_error("%s", r.err);
	assert_int_equal(r.status, 0);
	doc = threads_and_report(r.out, t, 4, 2, json);
	for (i = 0; i < 2; i++) {
		const char *other = strcmp(t[i].name, "ping") ? "ping" : "pong";

		task = report_task(doc, t[i].tid, t[i].name);
		on = (double)jint(task, "on_cpu_ns");
		off = (double)jint(task, "off_cpu_ns");
		blocked = waits_on(doc, t[i].tid, other);
		print_message("  %s: on-CPU %.1f ms (its clock %.1f), off-CPU %.1f ms, %.1f ms of it ended by %s, run-queue %.1f ms, %lld switches\n",
			      t[i].name, on / 1e6, t[i].cpu_ns / 1e6,
			      off / 1e6, blocked / 1e6, other,
			      jint(task, "runq_wait_ns") / 1e6,
			      (long long)jint(task, "switches"));
		snprintf(what, sizeof(what), "%s on_cpu_ns", t[i].name);
		assert_close(what, on, (double)t[i].cpu_ns, REL, ABS_NS);
		/* thousands of blocks (not one a round trip: a read can
		 * find its token there already) */
		assert_true(jint(task, "switches") >= 1000);
		assert_true(off > 0);
		assert_true(blocked >= 0.8 * off);
	}
	json_object_put(doc);
	unlink(json);
	free(r.out);
	err = r.err;
	return err;
}

/* This kernel's own features: no line says one is missing. */
static void test_features_here(void **state)
{
	char *err;

	(void)state;
	NEED_BPF();
	err = pingpong(NULL);
	assert_int_equal(lines_with(err, "kernel lacks"), 0);
	free(err);
}

/*
 * prev_state (5.18), bpf_loop (5.17) and the per-CPU lookup (5.19) all
 * off: one line each, naming the feature and its release, and the same
 * figures.
 */
static void test_features_off(void **state)
{
	char *env[] = { ALL_OFF, NULL }, *err;

	(void)state;
	NEED_BPF();
	err = pingpong(env);
	print_message("%s", err);
	assert_int_equal(lines_with(err, "kernel lacks"), 3);
	assert_int_equal(lines_with(err, "tdbpf: kernel lacks sched_switch's prev_state (Linux 5.18): "), 1);
	assert_int_equal(lines_with(err, "tdbpf: kernel lacks bpf_loop (Linux 5.17): "), 1);
	assert_int_equal(lines_with(err, "tdbpf: kernel lacks bpf_map_lookup_percpu_elem (Linux 5.19): "), 1);
	free(err);
}

/*
 * --span needs bpf_loop: without it tdbpf refuses in one line, naming
 * the feature, and a word that is no feature is refused too.
 */
static void test_span_without_loop(void **state)
{
	char *argv[] = { (char *)tdbpf_bin(), "--span", "usdt", "-d", "0.1",
			 "--", "/bin/true", NULL };
	char *env[] = { "TDBPF_KERNEL_LACKS=bpf_loop", NULL };
	char *bad[] = { "TDBPF_KERNEL_LACKS=prev_state,ebpf", NULL };
	struct run_result r;

	(void)state;
	NEED_BPF();
	/* an error: exit 1, not a hang (-1) */
	assert_int_equal(run_capture(argv, env, (uid_t)-1, 0, 30, &r), 1);
	assert_int_equal(lines_with(r.err, "tdbpf: --span needs bpf_loop (Linux 5.17), which this kernel lacks"), 1);
	run_result_free(&r);
	assert_int_equal(run_capture(argv, bad, (uid_t)-1, 0, 30, &r), 1);
	assert_int_equal(lines_with(r.err, "TDBPF_KERNEL_LACKS=prev_state,ebpf: 'ebpf' is not a feature"), 1);
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_features_here),
		cmocka_unit_test(test_features_off),
		cmocka_unit_test(test_span_without_loop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
