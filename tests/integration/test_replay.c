// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf report FILE against the live run that wrote FILE: a live run
 * prints its table or CSV (-o) and records the same reports (--record),
 * or prints JSON (-j -o); `tdbpf report` of the recording, with the same
 * options, must print those very bytes, for whole runs and -I runs,
 * folded, sorted and cut; --from/--to must print exactly the intervals
 * asked; a truncated or foreign file gives one line with the line
 * number, exit 2, and the reports before the damage.
 */
#include "helpers.h"

/*
 * Run tdbpf with @args (NULL-terminated) and the spinners workload, no
 * graph (test_graph_replayed has it): spinners never wait on each other.
 */
/* Run @a for up to @timeout_s; the test fails unless it exits 0. */
static void live_run(struct argbuf *a, int timeout_s)
{
	struct run_result r;

	run_capture(a->v, NULL, (uid_t)-1, 0, timeout_s, &r);
	if (r.status) {
		print_error("live run exit %d: %s\n", r.status, r.err);
		fail();
	}
	run_result_free(&r);
}

static void live(const char *const *args, const char *secs)
{
	struct argbuf a = { .n = 0 };

	arg_add(&a, tdbpf_bin(), "--no-wakeups", NULL);
	arg_addv(&a, args);
	arg_add(&a, "--", workload("spinners"), "-n", "3", "-d", secs, NULL);
	live_run(&a, 30);
}

/* tdbpf report @args: its exit status, stdout and stderr in @r. */
static int report(struct run_result *r, const char *const *args)
{
	struct argbuf a = { .n = 0 };

	arg_add(&a, tdbpf_bin(), "report", NULL);
	arg_addv(&a, args);
	return run_capture(a.v, NULL, (uid_t)-1, 0, 30, r);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* `tdbpf report @args` refuses: exit 2, saying @msg; all of it in @r. */
static void refused(struct run_result *r, const char *const *args,
		    const char *msg)
{
	report(r, args);
	assert_int_equal(r->status, 2);
	if (!strstr(r->err, msg))
		fail_msg("report %s: stderr '%s', want '%s'", args[0], r->err,
			 msg);
}

/*
 * @n bytes of @text as the file @path: `tdbpf report @path` refuses it
 * (refused()), saying @msg, in one line.
 */
static void bytes_refused(const char *path, const char *text, size_t n,
			  const char *msg)
{
	struct run_result r;

	write_bytes(path, text, n);
	refused(&r, ARGS(path), msg);
	assert_int_equal(count_lines(r.err), 1);
	run_result_free(&r);
}

/*
 * `tdbpf report @args` prints exactly the file @want_path, exit 0. The
 * file's text, for the caller to check the live run had something to
 * compare (the caller frees it).
 */
static char *report_same(const char *want_path, const char *const *args)
{
	char *want = file_text(want_path);
	struct run_result r;

	report(&r, args);
	if (r.status || strcmp(r.out, want)) {
		print_error("report %s: exit %d, stderr %s\n--- live run (%s)\n%s--- report\n%s",
			    args[0], r.status, r.err, want_path, want, r.out);
		fail();
	}
	run_result_free(&r);
	return want;
}

/* `tdbpf report @args` prints exactly the file @want, exit 0. */
static void same_as(const char *want_path, const char *const *args)
{
	char *want = report_same(want_path, args);

	/* the live run had real rows to compare */
	assert_non_null(strstr(want, "spin-"));
	free(want);
}

static void test_whole_run(void **state)
{
	const char *j = tmp_path("j.json"), *rec = tmp_path("rec.json");
	const char *t = tmp_path("t.txt"), *c = tmp_path("c.csv");

	(void)state;
	NEED_BPF();
	/* JSON: the recording is the live output itself */
	live(ARGS("-d", "1", "-j", "-o", j), "1");
	same_as(j, ARGS(j, "-j"));
	/* the table, and the same reports recorded beside it */
	live(ARGS("-d", "1", "-o", t, "--record", rec), "1");
	same_as(t, ARGS(rec));
	/* CSV folded, sorted and cut: the recording holds every row */
	live(ARGS("-d", "1", "-x", ",", "--per-name", "--sort", "runq", "--top",
		  "2", "-o", c, "--record", rec),
	     "1");
	same_as(c, ARGS(rec, "-x", ",", "--per-name", "--sort", "runq",
			"--top", "2"));
	unlink(j);
	unlink(rec);
	unlink(t);
	unlink(c);
}

/*
 * The lines of @text in intervals @from to @to. -I's CSV starts a line
 * with its interval's end in seconds (before ';'), as perf stat -I -x:
 * interval k is the k-th time in the file; "summary" lines are the
 * whole run's, in none.
 */
static char *csv_intervals(const char *text, int from, int to)
{
	char *out = calloc(1, strlen(text) + 1), *o = out, last[32] = "";
	const char *p = text, *e;
	int iv = -1;

	for (; *p; p = e + 1) {
		char t[32];

		e = strchr(p, '\n');
		if (!e)
			break;
		if (sscanf(p, "%31[0-9.];", t) != 1 || strchr(p, ';') > e)
			continue;
		if (strcmp(t, last)) {
			iv++;
			snprintf(last, sizeof(last), "%s", t);
		}
		if (iv >= from && iv <= to) {
			memcpy(o, p, (size_t)(e - p + 1));
			o += e - p + 1;
		}
	}
	return out;
}

static void test_intervals(void **state)
{
	const char *rec = tmp_path("irec.jsonl"), *c = tmp_path("i.csv");
	const char *t = tmp_path("i.txt"), *j = tmp_path("i.jsonl");
	struct run_result r;
	char *csv, *want, *two, *js, *nl;

	(void)state;
	NEED_BPF();
	live(ARGS("-I", "250", "-d", "1.1", "-x", ";", "-o", c, "--record",
		  rec),
	     "2");
	same_as(c, ARGS(rec, "-x", ";"));

	/* --from 1 --to 2: those intervals' lines, and no whole-run report */
	csv = file_text(c);
	/* one record shape: 7 fields on every line but '#' comments */
	for (nl = csv; *nl; nl = strchr(nl, '\n') + 1) {
		const char *q;
		int fields = 1;

		if (!strchr(nl, '\n'))
			break;
		for (q = nl; *q != '\n'; q++)
			fields += *q == ';';
		if (*nl != '#')
			assert_int_equal(fields, 7);
	}
	want = csv_intervals(csv, 1, 2);
	two = csv_intervals(csv, 2, 2);
	/* both intervals are in, and a whole run's line is not */
	assert_true(*two && strstr(want, two) && strstr(want, two) != want);
	assert_null(strstr(want, "summary;"));
	assert_non_null(strstr(csv, "\nsummary;"));
	free(two);
	report(&r, ARGS(rec, "-x", ";", "--from", "1", "--to", "2"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, want);
	run_result_free(&r);
	free(want);
	/* --from alone: to the last interval */
	want = csv_intervals(csv, 3, 1000);
	report(&r, ARGS(rec, "-x", ";", "--from", "3"));
	assert_string_equal(r.out, want);
	run_result_free(&r);
	free(want);
	free(csv);
	/* a range with no interval: said, with what the file holds */
	refused(&r, ARGS(rec, "--from", "99"),
		"no interval in the range asked; it holds intervals 0 to");
	assert_int_equal(count_lines(r.err), 1);
	run_result_free(&r);

	/* the table of an -I run, with its whole-run marker */
	live(ARGS("-I", "250", "-d", "1.1", "-o", t, "--record", rec), "2");
	same_as(t, ARGS(rec));
	/* JSON lines: the same lines; one interval alone: its line */
	live(ARGS("-I", "250", "-d", "1.1", "-j", "-o", j), "2");
	same_as(j, ARGS(j, "-j"));
	js = file_text(j);
	report(&r, ARGS(j, "-j", "--from", "1", "--to", "1"));
	assert_int_equal(r.status, 0);
	nl = strchr(js, '\n');
	assert_non_null(nl);
	assert_non_null(strstr(r.out, "\"interval\":1,"));
	assert_int_equal(strncmp(r.out, nl + 1, strlen(r.out)), 0);
	assert_int_equal(count_lines(r.out), 1);
	run_result_free(&r);
	free(js);
	unlink(rec);
	unlink(c);
	unlink(t);
	unlink(j);
}

static void test_bad_files(void **state)
{
	const char *j = tmp_path("b.jsonl"), *cut = tmp_path("cut.jsonl");
	const char *p = tmp_path("p.json");
	struct run_result r;
	char *js, *l2, *l3;
	size_t n;

	(void)state;
	NEED_BPF();
	live(ARGS("-I", "200", "-d", "1", "-j", "-o", j), "2");
	js = file_text(j);
	/* cut in the middle of line 3: two reports, then one line */
	l2 = strchr(js, '\n') + 1;
	l3 = strchr(l2, '\n') + 1;
	/* half of line 3 itself: the rest of the file may be much longer */
	assert_non_null(strchr(l3, '\n'));
	n = (size_t)(l3 - js) + (size_t)(strchr(l3, '\n') - l3) / 2;
	write_bytes(cut, js, n);
	refused(&r, ARGS(cut, "-j"),
		"line 3: the file ends inside the report that starts on line 3");
	assert_int_equal(count_lines(r.err), 1);
	assert_int_equal(strlen(r.out), (size_t)(l3 - js));
	assert_int_equal(strncmp(r.out, js, strlen(r.out)), 0);
	run_result_free(&r);

	/* a pretty one cut after 20 lines: truncated on line 20 */
	live(ARGS("-d", "0.5", "-j", "-o", p), "1");
	free(js);
	js = file_text(p);
	for (n = 0, l2 = js; n < 20; n++)
		l2 = strchr(l2, '\n') + 1;
	write_bytes(cut, js, (size_t)(l2 - js));
	refused(&r, ARGS(cut),
		"line 20: the file ends inside the report that starts on line 1");
	assert_string_equal(r.out, "");
	run_result_free(&r);

	/*
	 * values no run writes: a tid over 32 bits (shown as another
	 * thread), a group running longer than it was enabled
	 */
	{
		json_object *doc = json_tokener_parse(js), *t, *raw, *run;
		const char *txt;

		assert_non_null(doc);
		t = json_object_array_get_idx(
			json_object_object_get(doc, "tasks"), 0);
		json_object_object_add(t, "tid",
				       json_object_new_int64(1LL << 40));
		txt = json_object_to_json_string(doc);
		bytes_refused(cut, txt, strlen(txt), "\"tid\" is over 2^32");
		json_object_object_add(t, "tid", json_object_new_int64(1));
		raw = json_object_object_get(t, "raw");
		run = json_object_array_get_idx(
			json_object_object_get(raw, "enabled"), 0);
		json_object_array_put_idx(
			json_object_object_get(raw, "running"), 0,
			json_object_new_int64(json_object_get_int64(run) + 1));
		txt = json_object_to_json_string(doc);
		bytes_refused(cut, txt, strlen(txt),
			      "ran longer than it was enabled");
		json_object_put(doc);
	}

	/* a foreign file: its table, a CSV, nothing */
	bytes_refused(cut, "tdbpf: model software, 1.00 s\n", 30,
		      "line 1: not a tdbpf JSON recording");
	bytes_refused(cut, "{\"a\": 1}\n\n{\"b\": 2}\n", 18,
		      "line 1: not a tdbpf JSON report");
	bytes_refused(cut, "", 0, "no report in it");
	refused(&r, ARGS("/nonexistent/x.json"),
		"cannot read it: No such file");
	run_result_free(&r);
	free(js);
	unlink(j);
	unlink(p);
	unlink(cut);
}


/*
 * A run with -e events, alone or beside a model, is
 * recorded so that report replays it, to the byte of the live table and
 * CSV (it was written, then refused: "model 'none' is unknown").
 */
static void test_events_replayed(void **state)
{
	const char *t = tmp_path("e.txt"), *j = tmp_path("e.json");
	const char *c = tmp_path("e.csv");

	(void)state;
	NEED_BPF();
	live(ARGS("-e", "cpu-clock,page-faults", "-o", t, "--record", j),
	     "1");
	same_as(t, ARGS(j));
	live(ARGS("-e", "sched:sched_switch", "--model", "software", "-I",
		  "300", "-x", ",", "-o", c, "--record", j),
	     "1");
	same_as(c, ARGS(j, "-x", ","));
	unlink(t);
	unlink(j);
	unlink(c);
}

/*
 * report holds one report whole (json-c), so what it
 * will hold is capped (REPLAY_MAX_REPORT_MIB, 256); an endless line on
 * stdin ends in one line saying so, within the memory of ulimit -v 1 GB
 * (the cap's text at most doubled in json-c's buffer), and a line of
 * endless small objects, which cost json-c many times their text, ends
 * in one line naming the memory limit, not "not a tdbpf report".
 */
static void test_endless_line_bounded(void **state)
{
	static const struct {
		const char *feed, *want;
		int status;
	} cases[] = {
		{ "printf '{\"tasks\":\"'; yes aaaaaaaaaaaaaaa | tr -d '\\n'",
		  "larger than 256 MiB", 2 },
		{ "printf '{\"tasks\":['; yes '{},' | tr -d '\\n'",
		  "out of memory", 1 },
	};
	char cmd[512];
	char *sh[] = { "/bin/sh", "-c", cmd, NULL };
	struct run_result r;
	size_t i;

	(void)state;
	/* a sanitized build reserves terabytes of shadow: no ulimit -v */
	if (getenv("ASAN_OPTIONS"))
		skip();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 /* killed at 100 s: the feed then ends on SIGPIPE */
			 "(%s) | (ulimit -v 1000000; exec timeout -s KILL 100 %s report -)",
			 cases[i].feed, tdbpf_bin());
		run_capture(sh, NULL, (uid_t)-1, 0, 120, &r);
		if (r.status != cases[i].status ||
		    !strstr(r.err, cases[i].want) ||
		    count_lines(r.err) != 1 || r.out[0]) {
			print_error("%s: exit %d, stderr: %s(want exit %d and one line with '%s')\n",
				    cmd, r.status, r.err, cases[i].status,
				    cases[i].want);
			fail();
		}
		run_result_free(&r);
	}
}

/*
 * Run tdbpf @mode (NULL: the default, sampled graph) with @args over a
 * three-stage stream graph (stagegraph, threads: gen -> relay -> sink),
 * whose waits make a wait-for graph.
 */
static void live_graph(const char *mode, const char *const *args)
{
	struct argbuf a = { .n = 0 };

	arg_add(&a, tdbpf_bin(), NULL);
	if (mode)
		arg_add(&a, mode, NULL);
	arg_addv(&a, args);
	arg_add(&a, "--", workload("stagegraph"), "-d", "1.2", "-w", "0.1",
		"gen:cpu=300", "relay:sleep=400", "sink:cpu=100", NULL);
	/* the command's time: a loaded machine stretches its warm-up */
	live_run(&a, 120);
}

/* `tdbpf report @args` prints the file @want, which has the graph's verdict */
static void same_graph(const char *want_path, const char *const *args,
		       const char *verdict)
{
	char *want = report_same(want_path, args);

	/* the live run had the graph to compare, and its stages */
	if (!strstr(want, verdict) || !strstr(want, "relay")) {
		print_error("live run (%s) has no '%s' or no relay:\n%s",
			    want_path, verdict, want);
		fail();
	}
	free(want);
}

/*
 * `tdbpf graph REC` of one recording gives the live run's table (the
 * file @live), its bottleneck line the same to the byte: the graph of
 * one host is its own, names and holders as the live run had them (the
 * join of several renames nodes host/process/thread and keeps edges
 * only, which gave another line).
 */
static void graph_gives_live(const char *live, const char *rec)
{
	char *argv[] = { (char *)tdbpf_bin(), "graph", (char *)rec, NULL };
	char *want = file_text(live), *a, *b;
	struct run_result r;

	run_capture(argv, NULL, (uid_t)-1, 0, 30, &r);
	assert_int_equal(r.status, 0);
	a = strstr(want, "\nbottleneck: ");
	b = strstr(r.out, "\nbottleneck: ");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(strcspn(a + 1, "\n"), strcspn(b + 1, "\n"));
	assert_memory_equal(a, b, strcspn(a + 1, "\n") + 1);
	if (strcmp(r.out, want)) {
		print_error("graph %s differs from the live run:\n--- live\n%s--- graph\n%s",
			    rec, want, r.out);
		fail();
	}
	free(want);
	run_result_free(&r);
}

/*
 * A recording carries the graph in every mode. The default
 * (sampled) mode recorded no waker slots, so a replay had no graph, no
 * WAITS ON and no bottleneck line, and `tdbpf graph` refused the file.
 */
static void test_graph_replayed(void **state)
{
	static const char *const modes[] = { NULL, "--wakeups" };
	const char *rec = tmp_path("g.rec"), *t = tmp_path("g.txt");
	const char *c = tmp_path("g.csv"), *j = tmp_path("g.json");
	struct run_result r;
	char *text;
	size_t m;
	int iv;

	(void)state;
	NEED_BPF();
	for (m = 0; m < 2; m++) {
		for (iv = 0; iv < 2; iv++) {
			/* no -d: the run is the command's, whose stdout ends then */
			const char *i_opt = iv ? "-I" : "--sort";
			const char *i_arg = iv ? "400" : "cpu";

			live_graph(modes[m], ARGS(i_opt, i_arg, "-o", t,
						  "--record", rec));
			same_graph(t, ARGS(rec), "bottleneck: ");
			if (!iv)
				graph_gives_live(t, rec);
			live_graph(modes[m], ARGS(i_opt, i_arg, "-x", ",",
						  "-o", c, "--record", rec));
			same_graph(c, ARGS(rec, "-x", ","), "wait_ns:");
			live_graph(modes[m], ARGS(i_opt, i_arg, "-j", "-o", j));
			same_graph(j, ARGS(j, "-j"), "\"graph\":");
			if (iv)
				continue;
			/* the whole run's document: the graph tdbpf graph joins */
			text = file_text(rec);
			assert_non_null(strstr(text, "\"graph\": {"));
			/* sampled: a loaded machine may open few windows */
			if (modes[m])
				assert_non_null(strstr(text, "\"waits\": [\n"));
			free(text);
			{
				char *argv[] = { (char *)tdbpf_bin(), "graph",
						 (char *)rec, NULL };

				run_capture(argv, NULL, (uid_t)-1, 0, 30, &r);
				assert_int_equal(r.status, 0);
				assert_non_null(strstr(r.out, "bottleneck: "));
				run_result_free(&r);
			}
		}
	}
	unlink(rec);
	unlink(t);
	unlink(c);
	unlink(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_run),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_events_replayed),
		cmocka_unit_test(test_endless_line_bounded),
		cmocka_unit_test(test_graph_replayed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
