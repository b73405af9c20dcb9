// SPDX-License-Identifier: GPL-2.0
/*
 * perf's exit habits (root, real BPF path): with -- COMMAND tdbpf exits
 * with the command's status, 128 + N when signal N killed it, after its
 * report; a report that cannot be written (a full device, a full file
 * system) is one line on stderr and exit 1, and a file keeps whole
 * reports only. A reader that went away is not an error (test_faults).
 */
#include <sys/mount.h>
#include "helpers.h"

/*
 * Run @argv with stdout on @out_path (opened for writing), stderr
 * captured into @err (malloc'ed). Returns the exit status, 128 + N for a
 * signal, -1 on timeout.
 */
static int run_to(char *const argv[], const char *out_path, char **err)
{
	struct spawn_opts o = { .out = IO_EXISTING, .out_path = out_path,
				.err = IO_PIPE };
	struct child c = spawn_with(argv, &o);

	if (c.pid < 0)
		return -1;
	*err = read_all(c.err);
	close(c.err);
	return wait_for(c.pid, 60);
}

static void one_line_with(const char *err, const char *a, const char *b)
{
	if (count_lines(err) != 1 || strncmp(err, "tdbpf: ", 7) ||
	    !strstr(err, a) || (b && !strstr(err, b))) {
		print_error("stderr '%s': want one line with '%s' and '%s'\n",
			    err, a, b ? b : "");
		fail();
	}
}

/* The command's own status, after the report is written. */
static void test_command_status(void **state)
{
	static const struct {
		const char *script;
		int status;
	} cases[] = {
		{ "exit 0", 0 },
		{ "exit 3", 3 },
		{ "exit 255", 255 },
		{ "kill -TERM $$", 128 + SIGTERM },
		{ "kill -USR1 $$", 128 + SIGUSR1 },
	};
	char *json = tmp_path("status.json");
	char *argv[] = { (char *)tdbpf_bin(), "--model", "software", "-j", "-o",
			 json, "--", "/bin/sh", "-c", NULL, NULL };
	json_object *doc, *tasks;
	struct run_result r;
	size_t i;

	(void)state;
	NEED_BPF();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		argv[9] = (char *)cases[i].script;
		unlink(json);
		run_capture(argv, NULL, (uid_t)-1, 0, 60, &r);
		if (r.status != cases[i].status) {
			print_error("sh -c '%s': exit %d, want %d; stderr: %s\n",
				    cases[i].script, r.status,
				    cases[i].status, r.err);
			fail();
		}
		/* and the report was written first, with the command in it */
		doc = json_file(json);
		assert_non_null(doc);
		assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
		if (json_object_array_length(tasks) < 1) {
			print_error("sh -c '%s': no task in the report; stderr: %s; report: %s\n",
				    cases[i].script, r.err,
				    json_object_to_json_string(doc));
			fail();
		}
		json_object_put(doc);
		run_result_free(&r);
	}
	unlink(json);
}

/* A full device as stdout or as -o: one line, exit 1, for every format. */
static void test_dev_full(void **state)
{
	/* -a: a launched command's report goes to stderr, not stdout */
	char *trace_stdout[][10] = {
		{ (char *)tdbpf_bin(), "--model", "software", "-j", "-a", "-d",
		  "0.1", NULL },
		{ (char *)tdbpf_bin(), "--model", "software", "-a", "-d", "0.1",
		  NULL },
		{ (char *)tdbpf_bin(), "--model", "software", "-x", ",", "-a",
		  "-d", "0.1", NULL },
	};
	char *trace_o[] = { (char *)tdbpf_bin(), "--model", "software", "-j",
			    "-o", "/dev/full", "--", "/bin/true", NULL };
	char *list_o[] = { (char *)tdbpf_bin(), "list", "--model", "bdx",
			   "-o", "/dev/full", NULL };
	char *list_stdout[] = { (char *)tdbpf_bin(), "list", "--model", "bdx",
				"-j", NULL };
	char *err = NULL;
	size_t i;

	(void)state;
	/* list needs no privileges */
	assert_int_equal(run_to(list_o, "/dev/null", &err), 1);
	one_line_with(err, "cannot write the report to '/dev/full'",
		      "No space left on device");
	free(err);
	assert_int_equal(run_to(list_stdout, "/dev/full", &err), 1);
	one_line_with(err, "to standard output", "No space left on device");
	free(err);
	NEED_BPF();
	for (i = 0; i < 3; i++) {
		assert_int_equal(run_to(trace_stdout[i], "/dev/full", &err), 1);
		one_line_with(err, "cannot write the report to standard output",
			      "No space left on device");
		free(err);
	}
	/* even when the command failed: the lost report is what we say */
	assert_int_equal(run_to(trace_o, "/dev/null", &err), 1);
	one_line_with(err, "cannot write the report to '/dev/full'",
		      "No space left on device");
	free(err);
}

/*
 * -o on a file system that fills up during a run of interval reports:
 * exit 1 at the first report that does not fit, one line, and the file
 * holds whole reports only (each line parses), not a cut one.
 */
static void test_full_file_system(void **state)
{
	char dir[64], path[96], *err = NULL, *text, *line, *save = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-I", "50", "-o", path,
			 "-a", "-d", "3", NULL };
	int lines = 0;
	json_object *doc;

	(void)state;
	NEED_BPF();
	snprintf(dir, sizeof(dir), "/tmp/tdbpf-test-%d-fs", getpid());
	snprintf(path, sizeof(path), "%s/run.jsonl", dir);
	mkdir(dir, 0700);
	if (mount("tmpfs", dir, "tmpfs", 0, "size=64k")) {
		print_message("cannot mount a tmpfs (%s): skipping\n",
			      strerror(errno));
		rmdir(dir);
		skip();
	}
	assert_int_equal(run_to(argv, "/dev/null", &err), 1);
	/* the software model's note may come first */
	if (count_lines(err) == 2 && strstr(err, "software model"))
		memmove(err, strchr(err, '\n') + 1, strlen(strchr(err, '\n')));
	one_line_with(err, "No space left on device",
		      "the partial report was removed");
	assert_non_null(strstr(err, path));
	free(err);
	text = file_text(path);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		doc = json_tokener_parse(line);
		if (!doc) {
			print_error("line %d of %s is not a whole report\n",
				    lines + 1, path);
			fail();
		}
		json_object_put(doc);
		lines++;
	}
	print_message("%d whole interval reports kept\n", lines);
	free(text);
	umount(dir);
	rmdir(dir);
}

/*
 * A leader that ends before its process (pthread_exit) stays a zombie
 * until its last thread ends: its time is counted once, as its own
 * clock says, and so is its thread's.
 */
static void test_leader_exits_first(void **state)
{
	char *json = tmp_path("leader.json");
	char *argv[] = { (char *)tdbpf_bin(), "--model", "software", "-j", "-o",
			 json, "--", (char *)workload("leaderexit"), NULL };
	struct thread_line t[4];
	json_object *doc;
	char *out = NULL;
	int i, n;

	(void)state;
	NEED_BPF();
	assert_int_equal(run(argv, &out, 60), 0);
	n = 2;
	doc = threads_and_report(out, t, 4, n, json);
	for (i = 0; i < n; i++) {
		json_object *task = report_task(doc, t[i].tid, t[i].name);

		/* the clock is read just before the thread ends: its exit
		 * path runs after, a fraction of a millisecond */
		assert_close(t[i].name, (double)jint(task, "on_cpu_ns"),
			     (double)t[i].cpu_ns, 0.02, 2e6);
	}
	json_object_put(doc);
	free(out);
	unlink(json);
}


/*
 * -d a multiple of -I. The last
 * interval falls due with the deadline and is reported, whichever timer
 * the kernel hands over first: intervals that cover the whole run.
 * 0.3 s is also not 299999999 ns. The sum of the windows is the run's
 * length within 20 ms (a collect's time, on a busy machine).
 */
static void test_last_interval_kept(void **state)
{
	static const struct {
		const char *iv, *d;
		int n;
		double secs;
	} cases[] = {
		{ "1000", "3", 3, 3.0 },
		{ "100", "0.3", 3, 0.3 },
	};
	char *json = tmp_path("iv.jsonl");
	char *argv[] = { (char *)tdbpf_bin(), "-e", "cpu-clock", "-a", "-I",
			 NULL, "-d", NULL, "-j", "-o", json, NULL };
	char *text, *line, *save = NULL;
	json_object *o;
	double sum;
	size_t k;
	int n;

	(void)state;
	NEED_BPF();
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		argv[5] = (char *)cases[k].iv;
		argv[7] = (char *)cases[k].d;
		assert_int_equal(run(argv, NULL, 30), 0);
		text = file_text(json);
		n = 0;
		sum = 0;
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			o = json_tokener_parse(line);
			assert_non_null(o);
			if (jint(o, "interval") >= 0) {
				n++;
				sum += (double)jint(o, "duration_ns") / 1e9;
			}
			json_object_put(o);
		}
		/*
		 * Fewer reports only if the loop ran a period late, which
		 * folds two into one report (timerfd's count): the windows
		 * still cover the run.
		 */
		if (n < 1 || n > cases[k].n || sum < cases[k].secs - 0.02) {
			print_error("-I %s -d %s: %d intervals covering %.3f s, want %d covering %.1f s\n",
				    cases[k].iv, cases[k].d, n, sum, cases[k].n,
				    cases[k].secs);
			fail();
		}
		free(text);
	}
	unlink(json);
}

/*
 * --children, and the command forks and exits (a
 * launcher, the daemon pattern): the run follows the child until it
 * exits, says so once, and the child is in the report.
 */
static void test_children_outlive_parent(void **state)
{
	char *json = tmp_path("kids.json");
	char *argv[] = { (char *)tdbpf_bin(), "--children", "-e", "cpu-clock",
			 "-j", "-o", json, "--", "/bin/sh", "-c",
			 "sleep 1.5 >/dev/null 2>&1 & exit 0", NULL };
	struct run_result r;
	json_object *doc, *tasks, *t;
	bool seen = false;
	size_t i;

	(void)state;
	NEED_BPF();
	run_capture(argv, NULL, (uid_t)-1, 0, 30, &r);
	assert_int_equal(r.status, 0);
	if (r.secs < 1.4 || !strstr(r.err, "following the processes they forked")) {
		print_error("ended after %.2f s (the child sleeps 1.5 s); stderr: %s\n",
			    r.secs, r.err);
		fail();
	}
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(jint(doc, "duration_ns") >= 1400000000LL);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++) {
		json_object *c;

		t = json_object_array_get_idx(tasks, i);
		if (json_object_object_get_ex(t, "comm", &c) &&
		    !strcmp(json_object_get_string(c), "sleep"))
			seen = true;
	}
	assert_true(seen);
	json_object_put(doc);
	run_result_free(&r);

	/*
	 * the same with -p: the launcher forks once traced, then exits. It
	 * forks when tdbpf says it has attached (-v), not after a sleep: in
	 * a TCG guest (make vmtest) the programs' load alone can take a
	 * second, and a fork before the attach is not this test's matter.
	 */
	{
		char *sh[] = { "/bin/sh", "-c",
			       "echo pid=$$; read go; sleep 1.5 >/dev/null 2>&1 & exit 0",
			       NULL };
		char pid[16], line[512], *rest;
		char *argv2[] = { "/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1",
				  (char *)tdbpf_bin(), "-v", "--children",
				  "-e", "cpu-clock", "-j", "-o", json, "-p",
				  pid, NULL };
		struct child w, tr;
		bool attached = false;

		snprintf(pid, sizeof(pid), "%d", start_workload(sh, 1, &w));
		tr = spawn(argv2, 0);
		assert_true(tr.pid > 0);
		while (!attached && read_line(tr.out, line, sizeof(line), 30000))
			attached = !strncmp(line, "tdbpf: attached:", 16);
		assert_true(attached);
		assert_int_equal(write(w.in, "go\n", 3), 3);
		close(w.in);
		rest = read_all(tr.out);	/* to its exit */
		close(tr.out);
		close(w.out);
		waitpid(w.pid, NULL, 0);
		assert_int_equal(wait_for(tr.pid, 30), 0);
		if (!strstr(rest, "following the processes they forked")) {
			print_error("tdbpf said after attaching: %s\n", rest);
			fail();
		}
		free(rest);
		doc = json_file(json);
		assert_non_null(doc);
		/* traced from the attach to the child's end 1.5 s later */
		assert_true(jint(doc, "duration_ns") >= 1400000000LL);
		json_object_put(doc);
	}
	unlink(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_status),
		cmocka_unit_test(test_dev_full),
		cmocka_unit_test(test_full_file_system),
		cmocka_unit_test(test_leader_exits_first),
		cmocka_unit_test(test_last_interval_kept),
		cmocka_unit_test(test_children_outlive_parent),
	};

	return cmocka_run_group_tests_name("exit", tests, NULL, NULL);
}
