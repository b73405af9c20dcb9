// SPDX-License-Identifier: GPL-2.0
/*
 * The three writers of a report (JSON parsed back with json-c, CSV split
 * into fields, table columns) on the software model. Expected values are
 * worked out here by hand from the inputs.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "analysis/report.h"
#include "report_helpers.h"

/* ---- writers ---------------------------------------------------------- */

static const char odd_comm[] = "a\x01\xff\"b";	/* control, invalid, quote */

static void writer_table(struct task_table *t)
{
	struct task_row *r;
	int i;

	tasks_init(t);
	r = add(t, 101, odd_comm, 3000000000ull, 1000000, 2000000);
	r->sched.nvcsw = 120;
	r->sched.nivcsw = 3;
	r->sched.migrations = 4;
	r->sched.uncounted_ns = 250000;
	r->sched.window_gap_ns = -4321;
	r->exited = true;
	for (i = 0; i < model_software.nr_events; i++)
		set_ctr(r, i, 7000 + i, 3000000000ull, 3000000000ull);
	r = add(t, 102, "parse1", 1000000, 0, 5000000);
	r->sched.nvcsw = 9;
	for (i = 0; i < model_software.nr_events; i++)
		set_ctr(r, i, 0, 0, 0);
	/* a folded row of 8 tasks */
	r = add(t, 103, "worker-*", 2000000000ull, 0, 0);
	r->tid = 0;
	r->nr_tasks = 8;
}

static void test_json(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	json_object *o, *tasks, *x, *ctr;
	char *s;
	int i;

	(void)state;
	sw_plan(&plan);
	writer_table(&t);
	/* the folded row has tid 0 and no index entry: rebuild by hand */
	assert_int_equal(report_build(&rep, &t, &plan, 0, 4000000000ull,
				      SORT_CPU, 0), 0);
	rep.lost.map_full = 12;
	rep.lost.read_errors = 3;
	rep.lost.unseen_switch_ins = 5;

	s = render_report(&rep, FMT_JSON, NULL);
	o = parse_strict(s);
	assert_string_equal(json_object_get_string(jget(o, "model")),
			    model_software.name);
	assert_int_equal(json_object_get_int(jget(o, "level")), 0);
	assert_false(json_object_get_boolean(jget(o, "smt")));
	assert_int_equal(json_object_get_int64(jget(o, "duration_ns")),
			 4000000000ll);
	assert_false(jhas(o, "interval"));
	x = jget(o, "lost");
	assert_int_equal(json_object_get_int(jget(x, "map_full")), 12);
	assert_int_equal(json_object_get_int(jget(x, "read_errors")), 3);
	assert_int_equal(json_object_get_int(jget(x, "unseen_switch_ins")), 5);
	tasks = jget(o, "tasks");
	assert_int_equal(json_object_array_length(tasks), 3);

	/* sorted by CPU: odd (3 s), worker-* (2 s), parse1 (1 ms) */
	x = json_object_array_get_idx(tasks, 0);
	assert_int_equal(json_object_get_int(jget(x, "tid")), 101);
	assert_int_equal(json_object_get_int(jget(x, "pid")), 1000);
	/* 0x01 survives (escaped), 0xff becomes U+FFFD, quote survives */
	assert_string_equal(json_object_get_string(jget(x, "comm")),
			    "a\x01\xef\xbf\xbd\"b");
	assert_int_equal(json_object_get_int64(jget(x, "on_cpu_ns")),
			 3000000000ll);
	assert_int_equal(json_object_get_int64(jget(x, "runq_wait_ns")),
			 1000000);
	assert_int_equal(json_object_get_int64(jget(x, "off_cpu_ns")), 2000000);
	assert_int_equal(json_object_get_int(jget(x, "switches")), 123);
	assert_int_equal(json_object_get_int(jget(x, "voluntary")), 120);
	assert_int_equal(json_object_get_int(jget(x, "involuntary")), 3);
	assert_int_equal(json_object_get_int(jget(x, "migrations")), 4);
	assert_int_equal(json_object_get_int(jget(x, "uncounted_ns")), 250000);
	assert_int_equal(json_object_get_int(jget(x, "window_gap_ns")), -4321);
	assert_true(json_object_get_boolean(jget(x, "exited")));
	assert_false(jhas(x, "nr_tasks"));
	assert_false(jhas(x, "metrics"));	/* software: nothing decodes */
	assert_true(json_object_get_double(jget(x, "coverage")) == 1.0);
	assert_string_equal(json_object_get_string(jget(x, "bottleneck")),
			    "on-CPU (no PMU breakdown)");
	ctr = jget(x, "counters");
	assert_int_equal(json_object_object_length(ctr),
			 model_software.nr_events);
	for (i = 0; i < model_software.nr_events; i++) {
		json_object *v = jget(ctr, model_software.events[i].name);

		assert_true(json_object_is_type(v, json_type_int));
		assert_int_equal(json_object_get_int64(v), 7000 + i);
	}

	x = json_object_array_get_idx(tasks, 1);
	assert_string_equal(json_object_get_string(jget(x, "comm")),
			    "worker-*");
	assert_int_equal(json_object_get_int(jget(x, "tid")), 0);
	assert_int_equal(json_object_get_int(jget(x, "nr_tasks")), 8);

	x = json_object_array_get_idx(tasks, 2);
	assert_string_equal(json_object_get_string(jget(x, "comm")), "parse1");
	assert_false(json_object_get_boolean(jget(x, "exited")));
	assert_string_equal(json_object_get_string(jget(x, "bottleneck")),
			    "blocked (off-CPU 83%)");	/* 5 of 6 ms */
	json_object_put(o);
	assert_true(count_lines(s) > 10);		/* pretty */
	free(s);

	/* interval mode: one line, interval present */
	rep.interval = 7;
	s = render_report(&rep, FMT_JSON_LINE, NULL);
	assert_int_equal(count_lines(s), 1);
	assert_int_equal(s[strlen(s) - 1], '\n');
	o = parse_strict(s);
	assert_int_equal(json_object_get_int(jget(o, "interval")), 7);
	json_object_put(o);
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

static void test_json_nan_is_null(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	json_object *root, *o, *ctr;
	struct task_row *r;
	char *s;

	(void)state;
	r = mux_task(&plan, &t, 1, "\xe2\x82\xac\xc0\xaf\xed\xa0\x80z");
	set_ctr(r, 0, 5, 1000, 1000);
	set_ctr(r, 2, 0, 1000, 0);		/* never counted */
	report_build(&rep, &t, &plan, 0, 1000, SORT_CPU, 0);
	s = render_report(&rep, FMT_JSON_LINE, NULL);
	root = parse_strict(s);
	o = json_object_array_get_idx(jget(root, "tasks"), 0);
	/* valid U+20AC kept; overlong C0 AF and surrogate ED A0 80 replaced */
	assert_string_equal(json_object_get_string(jget(o, "comm")),
			    "\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd"
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
	ctr = jget(o, "counters");
	assert_int_equal(json_object_get_int(
			 jget(ctr, model_software.events[0].name)), 5);
	assert_true(json_object_is_type(jget(ctr,
				model_software.events[2].name), json_type_null));
	assert_true(json_object_get_boolean(jget(o, "low_coverage")));
	json_object_put(root);
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

/* Split @line on @sep; returns the field count, fills up to 8 fields. */
static int split(char *line, char sep, char **f)
{
	int n = 0;

	for (;;) {
		char *e = strchr(line, sep);

		if (n < 8)
			f[n] = line;
		n++;
		if (!e)
			return n;
		*e = '\0';
		line = e + 1;
	}
}

/* CSV of @rep as one of an -I series (sink.intervals): its text in *@s. */
static void f_csv_series(const struct report *rep, const char *sep, char **s)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	report_write_csv(f, rep, sep, true);
	*s = slurp(f);
}

static void test_csv(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	char *s, *line, *save = NULL, *f[8];
	int nl = 0, per_task = 9 + model_software.nr_events;
	bool seen_on = false, seen_ctr = false, seen_unc = false;
	bool seen_gap = false;

	(void)state;
	sw_plan(&plan);
	writer_table(&t);
	/* a separator and a newline inside a name must not add fields */
	snprintf(tasks_get(&t, 102)->comm, TDBPF_COMM_LEN, "p,a\nr");
	report_build(&rep, &t, &plan, 0, 4000000000ull, SORT_CPU, 0);
	rep.lost.read_errors = 3;
	s = render_report(&rep, FMT_CSV, ",");
	assert_int_equal(count_lines(s), 1 + 3 * per_task);
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (nl++ == 0) {
			assert_string_equal(line,
				"# lost: 0 tasks (map full), 3 counter reads");
			continue;
		}
		assert_int_equal(split(line, ',', f), 6);
		/* 0x01 becomes '?'; bytes >= 0x80 and quotes stay */
		if (!strcmp(f[0], "a?\xff\"b-101")) {
			if (!strcmp(f[3], "on_cpu_ns")) {
				assert_string_equal(f[1], "3000000000");
				assert_string_equal(f[2], "ns");
				assert_string_equal(f[5], "100.00");
				seen_on = true;
			}
			if (!strcmp(f[3], "uncounted_ns")) {
				assert_string_equal(f[1], "250000");
				assert_string_equal(f[2], "ns");
				seen_unc = true;
			}
			if (!strcmp(f[3], "window_gap_ns")) {
				assert_string_equal(f[1], "-4321");
				assert_string_equal(f[2], "ns");
				seen_gap = true;
			}
			if (!strcmp(f[3], model_software.events[1].name)) {
				assert_string_equal(f[1], "7001");
				assert_string_equal(f[4], "3000000000");
				assert_string_equal(f[5], "100.00");
				seen_ctr = true;
			}
		}
		if (!strncmp(f[0], "p?a?r-", 6))
			assert_string_equal(f[0], "p?a?r-102");
		if (!strncmp(f[0], "worker-*", 8))
			assert_string_equal(f[0], "worker-*-0");
	}
	assert_true(seen_on && seen_ctr && seen_unc && seen_gap);
	free(s);

	/*
	 * interval reports put the interval's end first, in seconds since
	 * the run's start (perf stat -I -x): one more field
	 */
	rep.interval = 2;
	rep.elapsed_ns = 1500000001;
	rep.lost.read_errors = 0;
	s = render_report(&rep, FMT_CSV, ";");
	assert_int_equal(count_lines(s), 3 * per_task);
	line = strtok_r(s, "\n", &save);
	assert_int_equal(split(line, ';', f), 7);
	assert_string_equal(f[0], "1.500000001");
	free(s);
	/* and the whole run's report after them is marked "summary" */
	rep.interval = -1;
	f_csv_series(&rep, ";", &s);
	line = strtok_r(s, "\n", &save);
	assert_int_equal(split(line, ';', f), 7);
	assert_string_equal(f[0], "summary");
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

static void test_csv_not_counted(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_row *r;
	char *s, want[256];

	(void)state;
	r = mux_task(&plan, &t, 9, "m");
	set_ctr(r, 0, 500, 1000, 500);
	set_ctr(r, 2, 0, 1000, 0);
	report_build(&rep, &t, &plan, 0, 1000, SORT_CPU, 0);
	s = render_report(&rep, FMT_CSV, ",");
	snprintf(want, sizeof(want), "m-9,<not counted>,%s,%s,0,0.00\n",
		 model_software.events[2].unit ? model_software.events[2].unit :
						 "",
		 model_software.events[2].name);
	assert_non_null(strstr(s, want));
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

/* report_write_table_cols(): the table with the columns @cols */
static char *table_cols(const struct report *rep, unsigned int cols)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	report_write_table_cols(f, rep, cols);
	return slurp(f);
}

static void test_table(void **state)
{
	static const char *const cols[] = {
		"TID", "COMM", "ON-CPU ms", "CPU%", "RUNQ ms", "OFF-CPU ms",
		"SW", "MIGR", "BOTTLENECK",
	};
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	char *s, *hdr, *row;
	size_t i;

	(void)state;
	sw_plan(&plan);
	writer_table(&t);
	report_build(&rep, &t, &plan, 0, 4000000000ull, SORT_CPU, 2);
	rep.lost.map_full = 12;
	rep.lost.read_errors = 3;
	/* the default gives way to 120 columns: SW and MIGR first */
	s = render_report(&rep, FMT_TABLE, NULL);
	assert_null(strstr(s, "SW vol/inv"));
	assert_non_null(strstr(s, " RUNQ ms "));
	for (hdr = s; hdr; hdr = strchr(hdr, '\n') ? strchr(hdr, '\n') + 1 : NULL)
		assert_true(strcspn(hdr, "\n") <= 120);
	free(s);
	/* -F: every column asked for, none given way */
	s = table_cols(&rep, TCOL_ALL);
	/* the summary, the header, two rows */
	assert_true(count_lines(s) >= 2 + 2);
	/* 101 exited; --top left the other two to one shown row */
	assert_non_null(strstr(s, "2 of 3 tasks shown (1 exited);"));
	assert_non_null(strstr(s, "lost: 12 tasks (map full), 3 counter reads"));
	assert_non_null(strstr(s, model_software.name));
	hdr = strstr(s, "\n    TID COMM") + 1;
	assert_int_equal(count_lines(hdr), 3);
	row = strchr(hdr, '\n') + 1;
	*strchr(row, '\n') = '\0';
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (!strstr(hdr, cols[i]))
			fail_msg("column %s missing: %s", cols[i], hdr);
	/*
	 * of the model's events only page-faults: the other three are a
	 * scheduling column again (ON-CPU ms, SW vol/inv, MIGR)
	 */
	assert_non_null(strstr(hdr, " page-faults "));
	has_none(hdr, STRS("cpu-clock", "context-switches", "cpu-migrations"));
	/*
	 * first row: odd name with '?' for 0x01 and 0xff; 3000.0 ms on CPU,
	 * 75.0% of 4 s
	 */
	has_all(row, STRS("a??\"b", " 101 ", " 3000.0 ", " 75.0 ", " 120/3 "));
	assert_null(strchr(row, '\x01'));
	assert_null(strchr(row, '\xff'));
	/* second row: the folded one shows its task count */
	assert_non_null(strstr(row + strlen(row) + 1, "(8)"));
	assert_null(strstr(row + strlen(row) + 1, "low coverage"));
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

/* The table's wrapped verdicts joined again: "\n" and spaces -> " ". */
static void unwrap(char *s)
{
	char *p, *q;

	for (p = s; (p = strchr(p, '\n'));) {
		for (q = p + 1; *q == ' '; q++)
			;
		/* a continuation starts under BOTTLENECK, far right */
		if (q - p < 20) {
			p++;
			continue;
		}
		*p = ' ';
		memmove(p + 1, q, strlen(q) + 1);
	}
}

static void test_table_low_coverage_note(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_row *r;
	char *s;

	(void)state;
	r = mux_task(&plan, &t, 1, "mux");
	set_ctr(r, 0, 500, 1000, 1000);
	set_ctr(r, 2, 6, 1000, 30);
	report_build(&rep, &t, &plan, 0, 1000, SORT_CPU, 0);
	s = render_report(&rep, FMT_TABLE, NULL);
	/* the verdict wraps under its column where the row would pass 120 */
	unwrap(s);
	assert_non_null(strstr(s, "on-CPU (no PMU breakdown) (low coverage 3%)"));
	assert_non_null(strstr(s, "\n? low coverage"));
	/* the summary, the header, the row, the note */
	assert_int_equal(count_lines(s), 4);
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_nan_is_null),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_not_counted),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_low_coverage_note),
	};

	return cmocka_run_group_tests_name("report_writers", tests, NULL, NULL);
}
