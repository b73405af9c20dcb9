// SPDX-License-Identifier: GPL-2.0
/*
 * The real BPF path, as root: -I's interval lines, --per-name, which
 * tracepoints each mode attaches to, nothing left attached after tdbpf
 * exits, and the report printed on SIGINT, SIGTERM and SIGHUP.
 */
#include "helpers.h"
#include "bpf_objects.h"

/* -I: one JSON object per line and interval, then the whole run. */
static void test_interval_lines(void **state)
{
	char *json = tmp_path("iv.json"), *text, *line, *save = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-I", "300", "-o", json,
			 "--", (char *)workload("spinners"), "-n", "2", "-d",
			 "2", NULL };
	json_object *doc, *last = NULL, *tasks;
	double sum_iv = 0, total = 0;
	int lines = 0;
	size_t i;

	(void)state;
	NEED_BPF();
	assert_int_equal(run(argv, NULL, 60), 0);
	text = file_text(json);
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
	/*
	 * the intervals tile the run: the last, shorter one ends where the
	 * run does (the command's exit), so they add up to the whole, to
	 * the nanosecond (each is a difference of the same cumulative sums)
	 */
	assert_true(sum_iv == total);
	json_object_put(last);
	free(text);
	unlink(json);
}

/*
 * -d shorter than -I: the run is one short interval (perf stat -I
 * prints it too), and its recording has it for report --from 0.
 */
static void test_interval_shorter_run(void **state)
{
	char *json = tmp_path("ivs.json"), *rec = tmp_path("ivs.tdbpf");
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-I", "1000", "-d", "0.5",
			 "--record", rec, "-o", json, "--",
			 (char *)workload("spinners"), "-n", "1", "-d", "3",
			 NULL };
	char *rep[] = { (char *)tdbpf_bin(), "report", "-j", "--from", "0",
			rec, NULL };
	char *text, *out = NULL, *second;
	json_object *doc;

	(void)state;
	NEED_BPF();
	assert_int_equal(run(argv, NULL, 60), 0);
	text = file_text(json);
	second = strchr(text, '\n');
	assert_non_null(second);
	*second = 0;
	doc = json_tokener_parse(text);
	assert_non_null(doc);
	assert_int_equal(jint(doc, "interval"), 0);
	/* 0.5 s, less than a tick of the loop either way */
	assert_true(llabs(jint(doc, "duration_ns") - 500000000LL) < 20000000);
	json_object_put(doc);
	assert_int_equal(run(rep, &out, 60), 0);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_int_equal(jint(doc, "interval"), 0);
	json_object_put(doc);
	free(out);
	free(text);
	unlink(json);
	unlink(rec);
}

/*
 * perf's habit: a command beside -p (or -a) bounds the run and is not
 * traced (perf stat -p PID -- sleep 1). The run ends with it, however
 * long its target lives, and tdbpf exits with its status. The bound on
 * the window: the command's own time at least; at most that, a tick of
 * the loop (100 ms) and the wait for the exits before the stop (at most
 * TRACER_SETTLE_MS, 1 s).
 */
static void test_command_bounds_run(void **state)
{
	char *json = tmp_path("bound.json"), line[64], pidarg[32];
	char *wl[] = { (char *)workload("spinners"), "-n", "1", "-d", "30",
		       NULL };
	char *tr[] = { (char *)tdbpf_bin(), "-j", "-o", json, "-p", pidarg,
		       "--", "sh", "-c", "sleep 0.5; exit 3", NULL };
	json_object *doc, *tasks, *t;
	struct child w;
	double dur;
	size_t i;

	(void)state;
	NEED_BPF();
	snprintf(pidarg, sizeof(pidarg), "%d", start_workload(wl, 0, &w));
	assert_non_null(read_line(w.out, line, sizeof(line), 5000));
	assert_int_equal(run(tr, NULL, 60), 3);
	doc = json_file(json);
	assert_non_null(doc);
	dur = (double)jint(doc, "duration_ns") / 1e9;
	print_message("-p PID -- sleep 0.5: a window of %.3f s\n", dur);
	assert_true(dur >= 0.5 && dur < 0.5 + 0.1 + 1.0);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		assert_int_equal(jint(t, "pid"), atoi(pidarg));
	}
	assert_true(json_object_array_length(tasks) >= 2);
	json_object_put(doc);
	/* the target lives on: the run ended with the command */
	assert_int_equal(kill(w.pid, 0), 0);
	kill(w.pid, SIGTERM);
	wait_for(w.pid, 10);
	unlink(json);
}

/*
 * -q: the model's fallback note (this VM has no PMU: said every run) is
 * not said; without -q it is, in one line. Errors stay either way.
 */
static void test_quiet(void **state)
{
	char *json = tmp_path("q.json");
	char *loud[] = { (char *)tdbpf_bin(), "-j", "-o", json, "-d", "0.2",
			 "--", "true", NULL };
	char *quiet[] = { (char *)tdbpf_bin(), "-q", "-j", "-o", json, "-d",
			  "0.2", "--", "true", NULL };
	char *bad[] = { (char *)tdbpf_bin(), "-q", "-d", "x", "--", "true",
			NULL };
	struct run_result r;
	json_object *doc;

	(void)state;
	NEED_BPF();
	run_capture(loud, NULL, (uid_t)-1, 0, 60, &r);
	assert_int_equal(r.status, 0);
	/* detected, the software model is a fallback, said in one line */
	doc = json_file(json);
	assert_non_null(doc);
	if (!strcmp(json_object_get_string(json_object_object_get(doc,
								  "model")),
		    "software")) {
		assert_non_null(strstr(r.err, "using the software model"));
		assert_int_equal(count_lines(r.err), 1);
	}
	json_object_put(doc);
	run_result_free(&r);
	run_capture(quiet, NULL, (uid_t)-1, 0, 60, &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	run_result_free(&r);
	run_capture(bad, NULL, (uid_t)-1, 0, 60, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "-d"));
	run_result_free(&r);
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

struct id_list {
	unsigned int *id;
	int n, max;
};

static void add_id(void *ctx, int k, unsigned int id)
{
	struct id_list *l = ctx;

	(void)k;
	if (l->n < l->max)
		l->id[l->n++] = id;
}

/*
 * BPF object ids some process holds an fd of: the @key ("prog_id:",
 * "link_id:") lines of /proc/PID/fdinfo/FD (bpftool's "pids" needs a
 * bpftool built with it, Debian's is not).
 */
static int held_ids(const char *key, unsigned int *ids, int max)
{
	struct id_list l = { ids, 0, max };

	held_bpf_ids(&key, 1, add_id, &l);
	return l.n;
}

static bool in_set(const unsigned int *ids, int n, unsigned int id)
{
	int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * bpftool's JSON listing of @argv's objects. It walks them by id, and
 * one freed between the walk and its open (a tdbpf ending meanwhile)
 * fails the whole listing: it is taken again, a few times at most.
 */
static json_object *bpftool_list(char *argv[])
{
	json_object *doc = NULL;
	char *out = NULL;
	int k;

	for (k = 0; k < 5 && !doc; k++) {
		if (run(argv, &out, 30) == 0)
			doc = json_tokener_parse(out);
		free(out);
		out = NULL;
		if (!doc)
			usleep(200000);
	}
	assert_non_null(doc);
	return doc;
}

/*
 * tdbpf_* programs, and links of them, that no process holds: objects
 * that outlived their tdbpf. Those of another tdbpf running at the same
 * time are held by it and are not counted.
 */
static int orphans(void)
{
	char *argv[] = { "/usr/sbin/bpftool", "-j", "prog", "show", NULL };
	char *largv[] = { "/usr/sbin/bpftool", "-j", "link", "show", NULL };
	static unsigned int progs[8192], links[8192], ours[4096];
	json_object *doc, *o, *v;
	int np, nl, no = 0, n = 0;
	size_t i;

	np = held_ids("prog_id:", progs, 8192);
	nl = held_ids("link_id:", links, 8192);
	doc = bpftool_list(argv);
	for (i = 0; i < json_object_array_length(doc); i++) {
		o = json_object_array_get_idx(doc, i);
		if (!json_object_object_get_ex(o, "name", &v) ||
		    strncmp(json_object_get_string(v), "tdbpf_", 6))
			continue;
		json_object_object_get_ex(o, "id", &v);
		if (no < 4096)
			ours[no++] = (unsigned int)json_object_get_int64(v);
		if (!in_set(progs, np, ours[no - 1])) {
			print_error("program %s id %u is held by no process\n",
				    json_object_get_string(
					    json_object_object_get(o, "name")),
				    ours[no - 1]);
			n++;
		}
	}
	json_object_put(doc);
	doc = bpftool_list(largv);
	for (i = 0; i < json_object_array_length(doc); i++) {
		o = json_object_array_get_idx(doc, i);
		if (!json_object_object_get_ex(o, "prog_id", &v) ||
		    !in_set(ours, no, (unsigned int)json_object_get_int64(v)))
			continue;
		json_object_object_get_ex(o, "id", &v);
		if (!in_set(links, nl, (unsigned int)json_object_get_int64(v))) {
			print_error("link %lld is held by no process\n",
				    (long long)json_object_get_int64(v));
			n++;
		}
	}
	json_object_put(doc);
	return n;
}

/*
 * Which tracepoints each mode runs programs on. The software model
 * with --no-wakeups attaches nothing to sched_switch (a switch costs it
 * nothing; its tasks are read at reports, exit and free); counters (-e)
 * and --wakeups bring the switch program back, and a counter model
 * takes a task's last sums at its last switch, not at its exit. The
 * default graph's programs come and go with its windows (below).
 */
static void test_programs_per_mode(void **state)
{
	static const struct {
		const char *opt[3];
		const char *want[6];
		const char *not[3];
	} modes[] = {
		{ { "--model", "software", "--no-wakeups" },
		  { "sched_process_exit", "sched_process_free",
		    "sched_process_fork", NULL },
		  { "sched_switch", "sched_waking", "sk_data_ready" } },
		{ { "-e", "cpu-clock", "--no-wakeups" },
		  { "sched_switch", "sched_process_free", NULL },
		  { "sched_process_exit", "sched_waking", "sock_send_length" } },
		/* with the socket hooks, where the kernel has them (6.3) */
		{ { "--wakeups", NULL },
		  { "sched_switch", "sched_waking", "sched_process_free",
		    "sk_data_ready", "sock_send_length", NULL },
		  { "sched_process_exit", NULL } },
	};
	char *sl[] = { "/bin/sleep", "60", NULL }, pidarg[32], links[512];
	struct child s = spawn(sl, 0);
	size_t m;
	int i;

	(void)state;
	NEED_BPF();
	assert_true(s.pid > 0);
	snprintf(pidarg, sizeof(pidarg), "%d", s.pid);
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		char *tr[10] = { (char *)tdbpf_bin(), "-o", "/dev/null",
				 "-p", pidarg };
		struct child d;
		int a = 5;

		for (i = 0; i < 3 && modes[m].opt[i]; i++)
			tr[a++] = (char *)modes[m].opt[i];
		tr[a] = NULL;
		d = spawn(tr, 0);
		assert_true(wait_attached(d.pid, 10000));
		tp_links(d.pid, links, sizeof(links));
		print_message("%s: links%s\n", modes[m].opt[0], links);
		/* every name between spaces */
		strcat(links, " ");
		for (i = 0; i < 6 && modes[m].want[i]; i++) {
			char w[64];

			snprintf(w, sizeof(w), " %s ", modes[m].want[i]);
			assert_non_null(strstr(links, w));
		}
		for (i = 0; i < 3 && modes[m].not[i]; i++) {
			char w[64];

			snprintf(w, sizeof(w), " %s ", modes[m].not[i]);
			assert_null(strstr(links, w));
		}
		assert_int_equal(end_child(&d, SIGINT, 10), 0);
	}
	kill(s.pid, SIGKILL);
	wait_for(s.pid, 5);
}

/*
 * The default graph's windows: its programs on sched_switch and
 * sched_waking are attached 50 ms of every 500 and detached between,
 * while the exit and free programs stay. Polled every 5 ms for 3 s:
 * seen attached and detached, attached about a tenth of the polls (a
 * poll lands in a window with that chance: 3% to 25% of 600 holds it
 * with room for a poll's own time), never one of the two without the
 * other for long (they open and close together).
 */
static void test_windows_attach(void **state)
{
	char *sl[] = { "/bin/sleep", "60", NULL }, pidarg[32], links[512];
	char *tr[] = { (char *)tdbpf_bin(), "-o", "/dev/null", "-p", pidarg,
		       NULL };
	int polls = 0, on = 0, waking = 0, free_seen = 0;
	struct child s = spawn(sl, 0), d;
	double end;

	(void)state;
	NEED_BPF();
	assert_true(s.pid > 0);
	snprintf(pidarg, sizeof(pidarg), "%d", s.pid);
	d = spawn(tr, 0);
	assert_true(wait_attached(d.pid, 10000));
	end = mono_s() + 3;
	while (mono_s() < end) {
		tp_links(d.pid, links, sizeof(links));
		strcat(links, " ");
		polls++;
		free_seen += strstr(links, " sched_process_free ") != NULL;
		on += strstr(links, " sched_switch ") != NULL;
		waking += strstr(links, " sched_waking ") != NULL;
		usleep(5000);
	}
	print_message("  %d polls: sched_switch attached in %d, sched_waking in %d, sched_process_free in %d\n",
		      polls, on, waking, free_seen);
	assert_int_equal(free_seen, polls);
	assert_true(on > polls * 3 / 100 && on < polls / 4);
	assert_true(waking > polls * 3 / 100 && waking < polls / 4);
	assert_int_equal(end_child(&d, SIGINT, 10), 0);
	kill(s.pid, SIGKILL);
	wait_for(s.pid, 5);
}

/* Nothing stays attached after tdbpf exits: no programs, no links. */
static void test_nothing_left(void **state)
{
	char *argv[] = { (char *)tdbpf_bin(), "-d", "0.5", "-a", NULL };
	int i, n = 0;

	(void)state;
	NEED_BPF();
	if (access("/usr/sbin/bpftool", X_OK))
		skip();

	assert_int_equal(run(argv, NULL, 30), 0);
	/* freeing a closed program is deferred (RCU): a leak never goes */
	for (i = 0; i < 15; i++) {
		n = orphans();
		if (!n)
			break;
		usleep(200000);
	}
	assert_int_equal(n, 0);
}

/* Ctrl-C, SIGTERM and SIGHUP all stop it with the report printed. */
static void test_signals_print_report(void **state)
{
	int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	char *wl[] = { (char *)workload("spinners"), "-n", "2", "-d", "20",
		       NULL };
	char pidarg[32], *json = tmp_path("sig.json");
	char *tr[] = { (char *)tdbpf_bin(), "-j", "-o", json, "-p", pidarg,
		       NULL };
	struct child w, d;
	json_object *doc, *tasks;
	int pid, i;

	(void)state;
	NEED_BPF();
	pid = start_workload(wl, 0, &w);
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
		cmocka_unit_test(test_interval_lines),
		cmocka_unit_test(test_interval_shorter_run),
		cmocka_unit_test(test_command_bounds_run),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_per_name),
		cmocka_unit_test(test_programs_per_mode),
		cmocka_unit_test(test_windows_attach),
		cmocka_unit_test(test_nothing_left),
		cmocka_unit_test(test_signals_print_report),
	};

	return cmocka_run_group_tests_name("integration", tests, NULL, NULL);
}
