// SPDX-License-Identifier: GPL-2.0
/*
 * Sinks and snapshots: the sink table, what sink_emit() does on the
 * way (fold, cut, window, lost counters), the table's whole-run marker,
 * a failed output reported as -EPIPE, and snapshot deltas.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "outputs/sink.h"
#include "unit_helpers.h"

static struct event_plan plan = {
	.model = &model_software,
	.nr = 1,
	.ev = { 0 },
	.group = { 0 },
	.nr_groups = 1,
	.leader = { 0 },
};

/* each slot's event: cpu-clock, the software model's first */
static int plan_setup(void **state)
{
	(void)state;
	plan.evd[0] = &model_software.events[0];
	return 0;
}

static void row(struct snapshot *s, __u32 tid, const char *comm,
		__u64 on_ns)
{
	struct task_row *r = tasks_get(&s->tasks, tid);

	assert_non_null(r);
	r->pid = 10;
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->sched.on_cpu_ns = on_ns;
	r->ctr[0].value = on_ns;
	r->ctr[0].enabled = r->ctr[0].running = on_ns;
}

static void test_table_of_sinks(void **state)
{
	int i;

	(void)state;
	assert_ptr_equal(sink_find("table"), &sink_table);
	assert_ptr_equal(sink_find("csv"), &sink_csv);
	assert_ptr_equal(sink_find("json"), &sink_json);
	assert_ptr_equal(sink_find("dot"), &sink_dot);
	assert_null(sink_find("xml"));
	for (i = 0; sinks[i]; i++)
		assert_ptr_equal(sink_find(sinks[i]->name), sinks[i]);
	assert_int_equal(i, 4);
}

/* Fold, cut to --top, and carry the window and the lost counters. */
static void test_emit_json(void **state)
{
	struct snapshot s;
	struct sink k = { .ops = &sink_json, .f = tmpfile() };
	struct report_conf rc = { .plan = &plan, .sort = SORT_CPU, .top = 1,
				  .per_name = true };
	json_object *doc, *tasks, *t, *v;
	char *out;

	(void)state;
	snapshot_init(&s, plan.nr);
	row(&s, 1, "worker-1", 3000000);
	row(&s, 2, "worker-2", 4000000);
	row(&s, 3, "main", 5000000);
	s.lost.map_full = 7;
	s.lost.unseen_switch_ins = 9;
	assert_int_equal(sink_emit(&k, &rc, &s, 123456789, -1), 0);
	out = slurp(k.f);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "duration_ns", &v));
	assert_int_equal(json_object_get_int64(v), 123456789);
	assert_false(json_object_object_get_ex(doc, "interval", &v));
	assert_true(json_object_object_get_ex(doc, "nr_total", &v));
	assert_int_equal(json_object_get_int(v), 2);	/* worker-* and main */
	assert_true(json_object_object_get_ex(doc, "lost", &v));
	assert_true(json_object_object_get_ex(v, "map_full", &t));
	assert_int_equal(json_object_get_int(t), 7);
	assert_true(json_object_object_get_ex(v, "unseen_switch_ins", &t));
	assert_int_equal(json_object_get_int(t), 9);
	/* --top 1 by CPU: the folded row, 7 ms over main's 5 */
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	assert_int_equal(json_object_array_length(tasks), 1);
	t = json_object_array_get_idx(tasks, 0);
	assert_true(json_object_object_get_ex(t, "comm", &v));
	assert_string_equal(json_object_get_string(v), "worker-*");
	assert_true(json_object_object_get_ex(t, "nr_tasks", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(t, "on_cpu_ns", &v));
	assert_int_equal(json_object_get_int64(v), 7000000);
	json_object_put(doc);
	free(out);
	snapshot_free(&s);
}

/* A task blocked on @waker_tid for @wait_ns (its waits by waker). */
static void blocked(struct snapshot *s, __u32 tid, __u64 off_ns,
		    __u32 waker_tid, __u64 wait_ns)
{
	struct task_row *r = tasks_get(&s->tasks, tid);

	r->sched.off_cpu_ns = off_ns;
	set_wait(&s->tasks, r, (struct tdbpf_wait){ .kind = TDBPF_WAKER_TASK,
						    .tid = waker_tid,
						    .wakeups = 3,
						    .wait_ns = wait_ns });
}

/*
 * With wakeups, sink_emit() builds the graph before the sink: its
 * verdict and edges in JSON, waits_on per row (by name with --per-name),
 * the bottleneck line in the table; the DOT sink draws only the whole
 * run's report.
 */
static void test_emit_graph(void **state)
{
	struct snapshot s;
	struct sink k = { .ops = &sink_json, .f = tmpfile() };
	struct sink d = { .ops = &sink_dot, .f = tmpfile() };
	struct report_conf rc = { .plan = &plan, .sort = SORT_CPU,
				  .per_name = true, .wakeups = true };
	json_object *doc, *g, *b, *v, *tasks, *t;
	char *out;
	size_t i;

	(void)state;
	snapshot_init(&s, plan.nr);
	tasks_set_layout(&s.tasks, plan.nr, true);
	row(&s, 1, "worker-1", 1000000);
	row(&s, 2, "worker-2", 1000000);
	row(&s, 3, "main", 90000000);
	blocked(&s, 1, 40000000, 3, 40000000);
	blocked(&s, 2, 40000000, 3, 30000000);
	assert_int_equal(sink_emit(&k, &rc, &s, 100000000, -1), 0);
	out = slurp(k.f);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "graph", &g));
	assert_true(json_object_object_get_ex(g, "bottleneck", &b));
	assert_true(json_object_array_length(b) >= 1);
	v = json_object_object_get(json_object_array_get_idx(b, 0), "comm");
	assert_string_equal(json_object_get_string(v), "main");
	v = json_object_object_get(json_object_array_get_idx(b, 0), "share");
	/*
	 * 70 of the workers' 80 ms blocked end at main; 10 ms unseen lead
	 * to no task: all that leads to a task leads to main
	 */
	assert_true(json_object_get_double(v) > 0.999 &&
		    json_object_get_double(v) < 1.001);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		if (strcmp(json_object_get_string(
				   json_object_object_get(t, "comm")),
			   "worker-*"))
			continue;
		assert_true(json_object_object_get_ex(t, "waits_on", &v));
		v = json_object_array_get_idx(v, 0);
		assert_string_equal(json_object_get_string(
					    json_object_object_get(v, "comm")),
				    "main");
		assert_int_equal(json_object_get_int64(
					 json_object_object_get(v, "wait_ns")),
				 70000000);
		assert_int_equal(json_object_get_int64(
					 json_object_object_get(v, "wakeups")),
				 6);
	}
	json_object_put(doc);
	free(out);
	/* the DOT sink: nothing for an interval, the graph for the run */
	assert_int_equal(sink_emit(&d, &rc, &s, 100000000, 0), 0);
	assert_int_equal(ftell(d.f), 0);
	assert_int_equal(sink_emit(&d, &rc, &s, 100000000, -1), 0);
	out = slurp(d.f);
	assert_non_null(strstr(out, "digraph tdbpf {"));
	assert_non_null(strstr(out, "BOTTLENECK\\nmain"));
	free(out);
	/* the table's verdict line, before the rows; worker-* is one node */
	k = (struct sink){ .ops = &sink_table, .f = tmpfile() };
	assert_int_equal(sink_emit(&k, &rc, &s, 100000000, -1), 0);
	out = slurp(k.f);
	assert_non_null(strstr(out, "\nbottleneck: main (tid 3): runs (on-CPU 100%): no PMU breakdown; 1 task's waits lead to it (100% of their blocked time);\n  busy 100% of its time\n"));
	assert_non_null(strstr(out, "WAITS ON"));
	assert_non_null(strstr(out, "main 88%"));
	free(out);
	snapshot_free(&s);
}

/* The whole-run marker comes only after interval reports, in the table. */
static void test_table_marker(void **state)
{
	struct snapshot s;
	struct sink k = { .ops = &sink_table, .intervals = true };
	struct report_conf rc = { .plan = &plan };
	char *out;

	(void)state;
	snapshot_init(&s, plan.nr);
	row(&s, 1, "a", 1000000);
	k.f = tmpfile();
	assert_int_equal(sink_emit(&k, &rc, &s, 1000000000, 0), 0);
	assert_int_equal(sink_emit(&k, &rc, &s, 2000000000, -1), 0);
	out = slurp(k.f);
	assert_non_null(strstr(out, ", interval 0, 1.00 s"));
	assert_non_null(strstr(out, "\n\n--- whole run ---\ntdbpf: model software, 2.00 s"));
	/* once, before the last report only */
	assert_null(strstr(strstr(out, "whole run") + 1, "whole run"));
	free(out);
	/* without intervals, no marker */
	k.intervals = false;
	k.f = tmpfile();
	assert_int_equal(sink_emit(&k, &rc, &s, 2000000000, -1), 0);
	out = slurp(k.f);
	assert_null(strstr(out, "whole run"));
	free(out);
	snapshot_free(&s);
}

/* A reader that went away is an error the caller sees, never silence. */
static void test_closed_output(void **state)
{
	struct snapshot s;
	struct sink k = { .ops = &sink_csv, .sep = "," };
	struct report_conf rc = { .plan = &plan };
	int p[2];

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	snapshot_init(&s, plan.nr);
	row(&s, 1, "a", 1000000);
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	k.f = fdopen(p[1], "w");
	assert_int_equal(sink_emit(&k, &rc, &s, 1000000, -1), -EPIPE);
	fclose(k.f);
	snapshot_free(&s);
}

/* Deltas per task; the lost counters and time are the newer's. */
static void test_snapshot_diff(void **state)
{
	struct snapshot a, b, d, c;
	struct task_row *r;

	(void)state;
	snapshot_init(&a, 1);
	snapshot_init(&b, 1);
	snapshot_init(&d, 1);
	snapshot_init(&c, 1);
	row(&a, 1, "x", 1000);
	row(&a, 2, "y", 500);
	a.lost.read_errors = 1;
	a.at_ns = 10;
	assert_int_equal(snapshot_copy(&b, &a), 0);
	assert_int_equal(b.tasks.nr, 2);
	assert_int_equal(b.lost.read_errors, 1);
	tasks_get(&b.tasks, 1)->sched.on_cpu_ns = 1600;
	tasks_get(&b.tasks, 1)->ctr[0].value = 1700;
	b.lost.read_errors = 4;
	b.at_ns = 20;
	assert_int_equal(snapshot_diff(&b, &a, &d), 0);
	/* y did nothing new: left out */
	assert_int_equal(d.tasks.nr, 1);
	r = tasks_row(&d.tasks, 0);
	assert_int_equal(r->tid, 1);
	assert_int_equal(r->sched.on_cpu_ns, 600);
	assert_int_equal(r->ctr[0].value, 700);
	assert_int_equal(d.lost.read_errors, 4);
	assert_int_equal(d.at_ns, 20);
	/* against nothing: everything */
	assert_int_equal(snapshot_diff(&b, NULL, &c), 0);
	assert_int_equal(c.tasks.nr, 2);
	snapshot_free(&a);
	snapshot_free(&b);
	snapshot_free(&d);
	snapshot_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_of_sinks),
		cmocka_unit_test(test_emit_graph),
		cmocka_unit_test(test_emit_json),
		cmocka_unit_test(test_table_marker),
		cmocka_unit_test(test_closed_output),
		cmocka_unit_test(test_snapshot_diff),
	};

	return cmocka_run_group_tests(tests, plan_setup, NULL);
}
