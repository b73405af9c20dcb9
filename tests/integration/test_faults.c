// SPDX-License-Identifier: GPL-2.0
/*
 * Faults during a run, as root on the real BPF path: the target dies, the
 * output pipe closes, tdbpf itself is stopped or killed, the task map is
 * too small. After every run nothing of tdbpf may stay in the kernel: no
 * tdbpf_* program, no link to one, none of its maps (the perf event array
 * holds the counters).
 *
 * The basic SIGINT/SIGTERM/SIGHUP report test is in test_attach_modes.c;
 * conservation of CPU time is test_conservation.c's, privileges
 * test_privs.c's.
 */
#include "helpers.h"
#include "faults_helpers.h"

/* ---- the target goes away ------------------------------------------------ */

/*
 * The traced process is killed outright: tdbpf notices within its tick,
 * prints the whole run and exits 0.
 */
static void test_target_killed(void **state)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "2", "-d", "30",
		       NULL };
	char pidarg[32], *out;
	char *tr[] = { (char *)tdbpf_bin(), "-v", "-j", "-p", pidarg, NULL };
	struct child w;
	struct proc d;
	json_object *doc, *tasks;
	double t_kill;
	int pid, st;
	size_t i, mine = 0;

	(void)state;
	NEED_BPF();
	objects_before();
	pid = start_workload(wl, 0, &w);
	snprintf(pidarg, sizeof(pidarg), "%d", pid);
	d = start(tr, NULL);
	/* 2 s of tracing, however long attaching takes on a busy machine */
	assert_true(wait_line(d.err, "tdbpf: attached", 30000));
	sleep(2);
	t_kill = mono_s();
	stop_workload(&w);
	out = read_all(d.out);
	st = wait_for(d.pid, 10);
	assert_int_equal(st, 0);
	/* one tick (100 ms) plus teardown */
	assert_true(mono_s() - t_kill < 2.0);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++)
		if (jint(json_object_array_get_idx(tasks, i), "pid") == pid)
			mine++;
	/* main thread, spin-0, spin-1 */
	assert_true(mine >= 3);
	assert_true(jint(doc, "duration_ns") > 1500000000LL);
	json_object_put(doc);
	free(out);
	close(d.out);
	close(d.err);
	assert_nothing_left();
}

/* ---- the output goes away ----------------------------------------------- */

/*
 * tdbpf -I 100 -p PID | head -c 1: the reader leaves after one byte. tdbpf
 * must stop cleanly (not die of SIGPIPE) and detach.
 */
static void test_closed_pipe(void **state)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "1", "-d", "30",
		       NULL };
	char pidarg[32], c;
	char *tr[] = { (char *)tdbpf_bin(), "-I", "100", "-p", pidarg, NULL };
	struct pollfd p;
	struct child w;
	struct proc d;
	double t_close;
	int st;

	(void)state;
	NEED_BPF();
	objects_before();
	snprintf(pidarg, sizeof(pidarg), "%d", start_workload(wl, 0, &w));
	d = start(tr, NULL);
	p.fd = d.out;
	p.events = POLLIN;
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_int_equal(read(d.out, &c, 1), 1);
	close(d.out);
	t_close = mono_s();
	st = wait_for(d.pid, 10);
	if (st != 0) {
		print_error("tdbpf exited with %d after its output closed (%s)\n",
			    st, st >= 128 ? strsignal(st - 128) : "error");
		fail();
	}
	/* the next interval's write sees EPIPE */
	assert_true(mono_s() - t_close < 2.0);
	close(d.err);
	stop_workload(&w);
	assert_nothing_left();
}

/* ---- tdbpf is stopped ----------------------------------------------------- */

/*
 * SIGTERM to `tdbpf -- COMMAND`: the report is written and the command,
 * started by tdbpf, is stopped and reaped, not left running as an orphan.
 */
static void test_sigterm_stops_command(void **state)
{
	char *json = tmp_path("cmdterm.json"), line[64];
	char *tr[] = { (char *)tdbpf_bin(), "-j", "-o", json, "--",
		       (char *)workload("spinners"), "-n", "1", "-d", "60",
		       NULL };
	json_object *doc, *tasks;
	struct proc d;
	int pid = -1;

	(void)state;
	NEED_BPF();
	objects_before();
	d = start(tr, NULL);
	/* the command's "pid=" line, on the stdout it shares with tdbpf */
	assert_non_null(read_line(d.out, line, sizeof(line), 5000));
	assert_int_equal(sscanf(line, "pid=%d", &pid), 1);
	sleep(1);
	kill(d.pid, SIGTERM);
	free(read_all(d.out));
	assert_int_equal(wait_for(d.pid, 10), 0);
	/* reaped by tdbpf: gone, not a zombie or an orphan */
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	assert_true(json_object_array_length(tasks) >= 2);
	json_object_put(doc);
	close(d.out);
	close(d.err);
	unlink(json);
	assert_nothing_left();
}

/* SIGKILL leaves no chance to clean up: nothing may be pinned anyway. */
static void test_sigkill_leaves_nothing(void **state)
{
	char *tr[] = { (char *)tdbpf_bin(), "-v", "-a", "-o", "/dev/null",
		       NULL };
	struct proc d;

	(void)state;
	NEED_BPF();
	objects_before();
	d = start(tr, NULL);
	assert_true(wait_line(d.err, "attached", 10000));
	kill(d.pid, SIGKILL);
	assert_int_equal(wait_for(d.pid, 10), 128 + SIGKILL);
	close(d.out);
	close(d.err);
	assert_nothing_left();
}

/* ---- the task map fills --------------------------------------------------- */

/*
 * 32 threads alive at once against a map of 16 entries: tasks are lost,
 * and tdbpf says how many in "lost" instead of silently dropping them,
 * and still reports the tasks it has.
 */
static void test_small_map_counts_losses(void **state)
{
	char *json = tmp_path("small.json"), *out = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "--max-tasks", "16",
			 "-o", json, "--", (char *)workload("churn"), "-n",
			 "2000", "-c", "32", "-w", "100", NULL };
	json_object *doc, *lost, *tasks;

	(void)state;
	NEED_BPF();
	objects_before();
	assert_int_equal(run(argv, &out, 60), 0);
	assert_non_null(strstr(out, "threads=2000"));
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "lost", &lost));
	print_message("lost: %s\n", json_object_to_json_string(lost));
	assert_true(jint(lost, "map_full") > 0);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	assert_true(json_object_array_length(tasks) >= 16);
	json_object_put(doc);
	free(out);
	unlink(json);
	assert_nothing_left();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_killed),
		cmocka_unit_test(test_closed_pipe),
		cmocka_unit_test(test_sigterm_stops_command),
		cmocka_unit_test(test_sigkill_leaves_nothing),
		cmocka_unit_test(test_small_map_counts_losses),
	};

	return cmocka_run_group_tests_name("faults", tests, NULL, NULL);
}
