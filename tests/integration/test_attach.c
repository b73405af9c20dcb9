// SPDX-License-Identifier: GPL-2.0
/*
 * The real BPF path, as root: tdbpf's per-thread on-CPU time against each
 * thread's own CLOCK_THREAD_CPUTIME_ID, threads created after attach,
 * threads that exited before the end, and the process total against the
 * process CPU clock.
 *
 * Tolerance: 2% of the thread's clock (the bound) plus 1 ms, for
 * the exit path a thread runs after it read its clock.
 */
#include "helpers.h"

#define REL	0.02
#define ABS_NS	1e6

static void check_threads(json_object *doc, struct thread_line *t, int n,
			  bool want_exited)
{
	json_object *task;
	char what[96];
	int i;

	for (i = 0; i < n; i++) {
		task = find_task(doc, t[i].tid);
		if (!task) {
			print_error("thread %s (tid %d) missing from the report\n",
				    t[i].name, t[i].tid);
			fail();
		}
		snprintf(what, sizeof(what), "%s on_cpu_ns", t[i].name);
		assert_close(what, (double)jint(task, "on_cpu_ns"),
			     (double)t[i].cpu_ns, REL, ABS_NS);
		if (want_exited)
			assert_true(jbool(task, "exited"));
		/* the software model's cpu-clock counts the same slices */
		if (t[i].cpu_ns > 50000000) {
			snprintf(what, sizeof(what), "%s cpu-clock", t[i].name);
			assert_close(what, jcounter(task, "cpu-clock"),
				     (double)jint(task, "on_cpu_ns"), REL,
				     ABS_NS);
		}
	}
}

/* -- COMMAND: every thread starts after attach and ends before the report */
static void test_command_threads(void **state)
{
	struct thread_line t[64];
	char *json = tmp_path("cmd.json"), *out = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", json, "--",
			 (char *)workload("spinners"), "-n", "4", "-e", "2",
			 "-s", "2", "-d", "2", NULL };
	json_object *doc;
	int n;

	(void)state;
	NEED_BPF();
	assert_int_equal(run(argv, &out, 60), 0);
	n = parse_thread_lines(out, t, 64);
	assert_int_equal(n, 8);
	doc = json_file(json);
	assert_non_null(doc);
	assert_int_equal(jint(doc, "lost") == INT64_MIN, 0);
	check_threads(doc, t, n, true);
	json_object_put(doc);
	free(out);
	unlink(json);
}

/*
 * -p PID on a running process: threads created after attach ("late-*")
 * and threads that exited before the end ("early-*") are both reported,
 * with their whole CPU time (the work starts only after we attached).
 */
static void test_attach_pid(void **state)
{
	struct thread_line t[64];
	char *json = tmp_path("pid.json"), line[128], pidarg[32], *rest;
	char *wl[] = { (char *)workload("spinners"), "-n", "2", "-l", "2", "-e",
		       "2", "-d", "3", "-w", NULL };
	char *tr[] = { (char *)tdbpf_bin(), "-j", "-o", json, "-p", pidarg,
		       NULL };
	struct child w, d;
	json_object *doc;
	int n, pid = 0;

	(void)state;
	NEED_BPF();
	w = spawn(wl, 1);
	assert_true(w.pid > 0);
	assert_non_null(read_line(w.out, line, sizeof(line), 5000));
	assert_int_equal(sscanf(line, "pid=%d", &pid), 1);
	assert_non_null(read_line(w.out, line, sizeof(line), 5000));
	assert_string_equal(line, "ready");
	snprintf(pidarg, sizeof(pidarg), "%d", pid);
	d = spawn(tr, 0);
	sleep(2);	/* let tdbpf load and attach */
	assert_int_equal(write(w.in, "go\n", 3), 3);
	rest = read_all(w.out);
	assert_int_equal(wait_for(w.pid, 30), 0);
	/* tdbpf stops by itself when its target has exited */
	free(read_all(d.out));
	assert_int_equal(wait_for(d.pid, 10), 0);

	n = parse_thread_lines(rest, t, 64);
	assert_int_equal(n, 6);
	doc = json_file(json);
	assert_non_null(doc);
	check_threads(doc, t, n, true);
	json_object_put(doc);
	free(rest);
	unlink(json);
}

/* Thread churn: the sum over all tasks, exited included, is the process. */
static void test_churn_sum(void **state)
{
	char *json = tmp_path("churn.json"), *out = NULL, *p;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", json, "--",
			 (char *)workload("churn"), "-n", "5000", "-c", "16",
			 "-w", "300", NULL };
	json_object *doc, *tasks;
	long long threads = 0, cpu_ns = 0;
	double sum = 0;
	size_t i;

	(void)state;
	NEED_BPF();
	assert_int_equal(run(argv, &out, 120), 0);
	p = strstr(out, "threads=");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "threads=%lld cpu_ns=%lld", &threads,
				&cpu_ns),
			 2);
	assert_int_equal(threads, 5000);
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	/* every thread plus the main thread */
	assert_true(json_object_array_length(tasks) >= 5001);
	for (i = 0; i < json_object_array_length(tasks); i++)
		sum += (double)jint(json_object_array_get_idx(tasks, i),
				    "on_cpu_ns");
	/* the main thread runs a little after it read the process clock */
	assert_close("sum of on_cpu_ns", sum, (double)cpu_ns, REL, 5e6);
	json_object_put(doc);
	free(out);
	unlink(json);
}

/* -I: one JSON object per line and interval, then the whole run. */
static void test_interval_lines(void **state)
{
	char *json = tmp_path("iv.json"), *text, *line, *save = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-I", "300", "-o", json,
			 "--", (char *)workload("spinners"), "-n", "2", "-d",
			 "2", NULL };
	json_object *doc, *last = NULL, *tasks;
	double sum_iv = 0, total = 0;
	int lines = 0, fd;
	size_t i;

	(void)state;
	NEED_BPF();
	assert_int_equal(run(argv, NULL, 60), 0);
	fd = open(json, O_RDONLY);
	assert_true(fd >= 0);
	text = read_all(fd);
	close(fd);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		doc = json_tokener_parse(line);
		assert_non_null(doc);
		lines++;
		if (last)
			json_object_put(last);
		last = doc;
		if (jint(doc, "interval") != INT64_MIN) {
			assert_true(json_object_object_get_ex(doc, "tasks",
							      &tasks));
			for (i = 0; i < json_object_array_length(tasks); i++)
				sum_iv += (double)jint(
					json_object_array_get_idx(tasks, i),
					"on_cpu_ns");
		}
	}
	/* 2 s at 300 ms: 6 intervals (7 with timing), then the whole run */
	assert_true(lines >= 6);
	assert_int_equal(jint(last, "interval"), INT64_MIN);
	assert_true(json_object_object_get_ex(last, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++)
		total += (double)jint(json_object_array_get_idx(tasks, i),
				      "on_cpu_ns");
	/* intervals cover the run up to the last tick; the tail is < 300 ms
	 * of two threads */
	assert_true(sum_iv <= total + 1);
	assert_true(total - sum_iv <= 2 * 300e6 + 1e6);
	json_object_put(last);
	free(text);
	unlink(json);
}

/* --per-name folds spin-0..3 into one row "spin-*" of 4 tasks. */
static void test_per_name(void **state)
{
	char *json = tmp_path("pn.json");
	char *argv[] = { (char *)tdbpf_bin(), "-j", "--per-name", "-o", json,
			 "--", (char *)workload("spinners"), "-n", "4", "-d",
			 "1", NULL };
	json_object *doc, *tasks, *t, *c;
	size_t i;
	int found = 0;

	(void)state;
	NEED_BPF();
	assert_int_equal(run(argv, NULL, 60), 0);
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		if (json_object_object_get_ex(t, "comm", &c) &&
		    !strcmp(json_object_get_string(c), "spin-*")) {
			found++;
			assert_int_equal(jint(t, "nr_tasks"), 4);
		}
	}
	assert_int_equal(found, 1);
	json_object_put(doc);
	unlink(json);
}

/* Nothing stays attached after tdbpf exits: no programs, no links. */
static void test_nothing_left(void **state)
{
	char *argv[] = { (char *)tdbpf_bin(), "-d", "0.5", "-a", NULL };
	char *bt[] = { "/usr/sbin/bpftool", "prog", "show", NULL };
	char *out = NULL;

	(void)state;
	NEED_BPF();
	assert_int_equal(run(argv, NULL, 30), 0);
	if (access(bt[0], X_OK))
		skip();
	assert_int_equal(run(bt, &out, 30), 0);
	assert_null(strstr(out, "tdbpf_switch"));
	assert_null(strstr(out, "tdbpf_flush"));
	free(out);
}

/* Ctrl-C, SIGTERM and SIGHUP all stop it with the report printed. */
static void test_signals_print_report(void **state)
{
	int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	char *wl[] = { (char *)workload("spinners"), "-n", "2", "-d", "20",
		       NULL };
	char pidarg[32], line[64], *json = tmp_path("sig.json");
	char *tr[] = { (char *)tdbpf_bin(), "-j", "-o", json, "-p", pidarg,
		       NULL };
	struct child w, d;
	json_object *doc, *tasks;
	int pid, i;

	(void)state;
	NEED_BPF();
	w = spawn(wl, 0);
	assert_non_null(read_line(w.out, line, sizeof(line), 5000));
	assert_int_equal(sscanf(line, "pid=%d", &pid), 1);
	snprintf(pidarg, sizeof(pidarg), "%d", pid);
	for (i = 0; i < 3; i++) {
		d = spawn(tr, 0);
		sleep(2);
		kill(d.pid, sigs[i]);
		free(read_all(d.out));
		assert_int_equal(wait_for(d.pid, 10), 0);
		doc = json_file(json);
		assert_non_null(doc);
		assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
		/* main thread + spin-0 + spin-1 */
		assert_true(json_object_array_length(tasks) >= 3);
		json_object_put(doc);
	}
	kill(w.pid, SIGTERM);
	wait_for(w.pid, 10);
	unlink(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_threads),
		cmocka_unit_test(test_attach_pid),
		cmocka_unit_test(test_churn_sum),
		cmocka_unit_test(test_interval_lines),
		cmocka_unit_test(test_per_name),
		cmocka_unit_test(test_nothing_left),
		cmocka_unit_test(test_signals_print_report),
	};

	return cmocka_run_group_tests_name("integration", tests, NULL, NULL);
}
