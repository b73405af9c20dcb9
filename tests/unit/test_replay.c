// SPDX-License-Identifier: GPL-2.0
/*
 * Replay: a report written as JSON and read back prints the same table,
 * CSV and JSON as the report it was written from, for every model (with
 * multiplexed counters, folded names, huge sums), with --per-name folding
 * done after the read as the live run folds, and with a lower level; the
 * reader gives line numbers for truncated and foreign input.
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
#include "sources/replay.h"
#include "unit_helpers.h"

/* A deterministic generator: the sums differ per model and task. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static const char *const names[] = {
	"worker-1", "worker-2", "worker-3", "sink", "parse7", "src",
	"kworker/0:1", "a\"b\\c",
};
#define NR_NAMES ((int)(sizeof(names) / sizeof(names[0])))

/* Tasks whose groups were multiplexed differently, some never counted. */
static void fill(struct task_table *t, const struct event_plan *p,
		 uint64_t seed)
{
	int i, s;

	tasks_init(t);
	assert_int_equal(tasks_set_events(t, p->nr), 0);
	for (i = 0; i < NR_NAMES; i++) {
		struct task_row *r = tasks_get(t, 1000 + i);
		__u64 ena = 1000000 + rnd(&seed) % 3000000000ULL;

		assert_non_null(r);
		r->pid = i < 6 ? 999 : 1500;
		snprintf(r->comm, sizeof(r->comm), "%s", names[i]);
		r->sched.on_cpu_ns = ena + rnd(&seed) % 1000;
		r->sched.runq_wait_ns = rnd(&seed) % 2000000000ULL;
		r->sched.off_cpu_ns = rnd(&seed) % 4000000000ULL;
		r->sched.nvcsw = rnd(&seed) % 10000;
		r->sched.nivcsw = rnd(&seed) % 10000;
		r->sched.migrations = rnd(&seed) % 100;
		r->sched.uncounted_ns = rnd(&seed) % 1000000;
		/* signed: negative for about half the rows */
		r->sched.window_gap_ns = (__s64)(rnd(&seed) % 2000000) - 1000000;
		r->exited = i == 2;
		for (s = 0; s < p->nr; s++) {
			int g = p->group[s], l = p->leader[g];
			/* members share their leader's times, as on the PMU */
			__u64 run = s == l ? ena / (1 + (__u64)(g + i) % 5) :
					     r->ctr[l].running;

			if (i == 5 && g == 1)
				run = 0;	/* never on a counter */
			r->ctr[s].enabled = s == l ? ena : r->ctr[l].enabled;
			r->ctr[s].running = run;
			r->ctr[s].value = rnd(&seed) % (4 * ena + 1);
		}
	}
	/* past 2^53, where doubles no longer hold every integer */
	if (p->nr)
		tasks_row(t, 0)->ctr[0].value = (1ULL << 60) + 12345;
}

struct rt {
	char *json;		/* the live run's JSON */
	struct replay_report rr;
};

/* Write @t's report as JSON and read it back into @x. */
static void round_trip(const struct task_table *t, const struct event_plan *p,
		       bool line, int top, struct rt *x)
{
	struct replay_reader rd;
	struct report rep;
	json_object *obj;
	char err[512];
	long at;
	bool multi;
	FILE *f;

	assert_int_equal(report_build(&rep, t, p, p->level, 5000000000ULL,
				      SORT_CPU, top), 0);
	rep.lost.map_full = 3;
	rep.lost.read_errors = 4;
	rep.lost.unseen_switch_ins = 5;
	if (line)
		rep.interval = 7;
	x->json = render_report(&rep, line ? FMT_JSON_LINE : FMT_JSON, ";");
	report_free(&rep);

	f = fmemopen(x->json, strlen(x->json), "r");
	assert_non_null(f);
	assert_int_equal(replay_reader_init(&rd, f), 0);
	assert_int_equal(replay_next(&rd, &obj, &at, &multi, err,
				     sizeof(err)), 1);
	assert_int_equal(at, 1);
	assert_true(multi == !line);
	replay_report_init(&x->rr);
	if (replay_parse(obj, &x->rr, err, sizeof(err)))
		fail_msg("%s", err);
	json_object_put(obj);
	assert_int_equal(replay_next(&rd, &obj, &at, &multi, err,
				     sizeof(err)), 0);
	replay_reader_free(&rd);
	fclose(f);
}

/* Every writer prints the same from @a (live) and @b (replayed). */
static void same_output(const struct report *a, const struct report *b,
			const char *what)
{
	enum fmt f;

	for (f = FMT_TABLE; f <= FMT_JSON_LINE; f++) {
		char *x = render_report(a, f, ";"), *y = render_report(b, f, ";");

		if (strcmp(x, y))
			fail_msg("%s, format %d differs:\n--- live\n%s--- replay\n%s",
				 what, f, x, y);
		free(x);
		free(y);
	}
}

static void check_model(const struct model *m, bool smt, bool line)
{
	struct task_table t, fl, fr;
	struct report a, b;
	struct event_plan p;
	struct rt x;
	char err[256], what[128];
	int level;

	for (level = m->max_level; level >= (m->max_level ? 1 : 0); level--) {
		if (plan_events(m, level ? level : 1, smt,
				smt ? m->gp_smt_on : m->gp_smt_off, &p, err,
				sizeof(err)))
			fail_msg("%s: %s", m->name, err);
		fill(&t, &p, 0x9e3779b97f4a7c15ULL ^ (uint64_t)level ^
				     (uint64_t)(uintptr_t)m);
		round_trip(&t, &p, line, 0, &x);
		snprintf(what, sizeof(what), "%s level %d smt %d line %d",
			 m->name, level, smt, line);

		/* the same rows in the recorded order, the same decode */
		assert_int_equal(report_build(&a, &t, &p, p.level,
					      5000000000ULL, SORT_CPU, 0), 0);
		assert_int_equal(report_build(&b, &x.rr.tasks, &x.rr.plan,
					      x.rr.plan.level,
					      x.rr.duration_ns, SORT_NONE, 0),
				 0);
		a.lost.map_full = 3;
		a.lost.read_errors = 4;
		a.lost.unseen_switch_ins = 5;
		b.lost = x.rr.lost;
		a.interval = line ? 7 : -1;
		b.interval = x.rr.interval;
		assert_int_equal(x.rr.lost.map_full, 3);
		assert_int_equal(x.rr.lost.read_errors, 4);
		assert_int_equal(x.rr.lost.unseen_switch_ins, 5);
		same_output(&a, &b, what);
		report_free(&a);
		report_free(&b);

		/* folded after the read as the live run folds raw sums */
		tasks_init(&fl);
		tasks_init(&fr);
		assert_int_equal(tasks_fold(&t, &fl, p.nr), 0);
		assert_int_equal(tasks_fold(&x.rr.tasks, &fr, x.rr.plan.nr), 0);
		assert_int_equal(report_build(&a, &fl, &p, p.level,
					      5000000000ULL, SORT_RUNQ, 3), 0);
		assert_int_equal(report_build(&b, &fr, &x.rr.plan,
					      x.rr.plan.level,
					      x.rr.duration_ns, SORT_RUNQ, 3), 0);
		strcat(what, " per-name");
		same_output(&a, &b, what);
		report_free(&a);
		report_free(&b);

		/* a level below the recorded one, decoded from the raw sums */
		if (level > 1) {
			assert_int_equal(report_build(&a, &t, &p, 1,
						      5000000000ULL, SORT_TID,
						      0), 0);
			assert_int_equal(report_build(&b, &x.rr.tasks,
						      &x.rr.plan, 1,
						      x.rr.duration_ns,
						      SORT_TID, 0), 0);
			strcat(what, " -l 1");
			same_output(&a, &b, what);
			report_free(&a);
			report_free(&b);
		}
		tasks_free(&fl);
		tasks_free(&fr);
		tasks_free(&t);
		replay_report_free(&x.rr);
		free(x.json);
		if (!m->max_level)
			break;
	}
}

static void test_round_trip_every_model(void **state)
{
	int i;

	(void)state;
	for (i = 0; models[i]; i++) {
		check_model(models[i], true, false);
		check_model(models[i], false, true);
	}
}

/* A recording cut by --top keeps the live run's task count. */
static void test_top_keeps_total(void **state)
{
	struct task_table t;
	struct event_plan p;
	struct rt x;

	(void)state;
	plan_ok(&p, &model_software, 1, false, 4);
	fill(&t, &p, 42);
	round_trip(&t, &p, false, 2, &x);
	assert_int_equal(x.rr.tasks.nr, 2);
	assert_int_equal(x.rr.nr_total, NR_NAMES);
	tasks_free(&t);
	replay_report_free(&x.rr);
	free(x.json);
}

/* Run the reader over @text; the error of the first failure, or NULL. */
static char *read_all_reports(const char *text, int *objs)
{
	static char err[512];
	struct replay_reader rd;
	struct replay_report rr;
	json_object *obj;
	long at;
	bool multi;
	int got;
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	assert_int_equal(replay_reader_init(&rd, f), 0);
	replay_report_init(&rr);
	*objs = 0;
	while ((got = replay_next(&rd, &obj, &at, &multi, err,
				  sizeof(err))) > 0) {
		char msg[400];

		if (replay_parse(obj, &rr, msg, sizeof(msg))) {
			snprintf(err, sizeof(err), "line %ld: %s", at, msg);
			got = -1;
			json_object_put(obj);
			break;
		}
		json_object_put(obj);
		(*objs)++;
	}
	replay_report_free(&rr);
	replay_reader_free(&rd);
	fclose(f);
	return got < 0 ? err : NULL;
}

static void expect_error(const char *text, int objs_before, const char *want)
{
	int objs;
	char *e = read_all_reports(text, &objs);

	if (!e)
		fail_msg("no error for: %s", text);
	if (!strstr(e, want))
		fail_msg("error '%s' does not say '%s'", e, want);
	assert_int_equal(objs, objs_before);
	/* one line */
	assert_null(strchr(e, '\n'));
}

static void test_reader_errors(void **state)
{
	struct task_table t;
	struct event_plan p;
	struct rt x;
	char *two, *cut;
	size_t n;
	int objs;

	(void)state;
	plan_ok(&p, &model_software, 1, false, 4);
	fill(&t, &p, 7);
	round_trip(&t, &p, true, 0, &x);	/* one line */

	/* two JSON lines and blank lines: two reports */
	n = strlen(x.json);
	two = malloc(2 * n + 4);
	sprintf(two, "%s\n%s", x.json, x.json);
	assert_null(read_all_reports(two, &objs));
	assert_int_equal(objs, 2);

	/* cut inside the second object (line 3): truncated, said on line 3 */
	cut = strndup(two, n + 1 + n / 2);
	expect_error(cut, 1, "line 3: the file ends inside the report that starts on line 3");
	free(cut);

	/* a CSV or table file: line 1; a syntax error further down: its line */
	expect_error("spin-1-123,552,ns,on_cpu_ns,552,100.00\n", 0, "line 1: not a tdbpf JSON recording");
	expect_error("\n\n{\"model\": \"software\",\n  x}\n", 0, "line 4: not a tdbpf JSON recording");
	/* JSON, but not ours */
	expect_error("{\"name\": \"x\"}\n", 0, "line 1: not a tdbpf JSON report");
	expect_error("[1, 2]\n", 0, "line 1: not a tdbpf JSON report");
	/* ours, from another model table, or without raw sums */
	expect_error("{\"model\": \"zen9\", \"level\": 0, \"duration_ns\": 1, \"groups\": [], \"tasks\": []}",
		     0, "model 'zen9' is unknown");
	expect_error("{\"model\": \"software\", \"level\": 0, \"duration_ns\": 1, \"tasks\": []}",
		     0, "no \"groups\"");
	expect_error("{\"model\": \"software\", \"level\": 0, \"duration_ns\": 1, \"groups\": [[\"cpu-clock\"]], "
		     "\"tasks\": [{\"tid\": 1, \"pid\": 1, \"on_cpu_ns\": 1, \"runq_wait_ns\": 0, \"off_cpu_ns\": 0, "
		     "\"voluntary\": 0, \"involuntary\": 0, \"migrations\": 0, \"uncounted_ns\": 0}]}",
		     0, "task 0 has no raw sums");
	expect_error("{\"model\": \"software\", \"level\": 0, \"duration_ns\": 1, \"groups\": [[\"cpu-clock\"]], "
		     "\"tasks\": [{\"tid\": -1}]}", 0, "task 0: \"tid\" missing or not a whole number");
	/* the second line is bad: the first report was read */
	sprintf(two, "%s{\"model\": 1}\n", x.json);
	expect_error(two, 1, "line 2:");
	/* nothing at all is no error of the reader (the command says so) */
	assert_null(read_all_reports("  \n\n", &objs));
	assert_int_equal(objs, 0);
	free(two);
	tasks_free(&t);
	replay_report_free(&x.rr);
	free(x.json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_model),
		cmocka_unit_test(test_top_keeps_total),
		cmocka_unit_test(test_reader_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
