// SPDX-License-Identifier: GPL-2.0
/*
 * Report: scaling, sort/top, and each row decoded (counters, coverage,
 * the verdicts). Expected values are worked out here by hand from the
 * inputs; the writers are test_report_writers.c's and test_report_tma.c's.
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

/* ---- scale_count ------------------------------------------------------ */

static double scale(__u64 v, __u64 ena, __u64 run)
{
	struct tdbpf_count c = { .value = v, .enabled = ena, .running = run };

	return scale_count(&c);
}

static void test_scale_count(void **state)
{
	(void)state;
	/* task never enabled: nothing to scale */
	assert_true(scale(0, 0, 0) == 0.0);
	/* always on the PMU: the raw value, exactly */
	assert_true(scale(12345, 999, 999) == 12345.0);
	assert_true(scale((1ull << 52) + 1, 7, 7) == (double)((1ull << 52) + 1));
	/* counted half the time: doubled */
	assert_true(scale(100, 20, 10) == 200.0);
	assert_true(scale(3, 3, 2) == 4.5);
	/* 1000 counted over 1/3 of the time */
	assert_true(fabs(scale(1000, 3000000, 1000000) - 3000.0) < 1e-9);
	/* enabled but never running: never counted, not zero */
	assert_true(isnan(scale(0, 10, 0)));
	assert_true(isnan(scale(5, 10, 0)));
	/* big sums do not overflow: 2^62 * 2 */
	assert_true(scale(1ull << 62, 2ull << 40, 1ull << 40) ==
		    (double)(1ull << 63));
}

/* ---- report_build ----------------------------------------------------- */

/* five tasks, each first by one key */
static void five(struct task_table *t)
{
	struct task_row *r;

	tasks_init(t);
	add(t, 50, "e", 500, 10, 10);		/* most CPU */
	add(t, 40, "d", 100, 400, 10);		/* most runq */
	add(t, 30, "a", 200, 10, 900);		/* most off, first name */
	r = add(t, 20, "c", 300, 20, 20);
	r->sched.nvcsw = 70;				/* most switches: 70+5 */
	r->sched.nivcsw = 5;
	r = add(t, 10, "b", 300, 30, 30);	/* ties 20 on CPU */
	r->sched.nvcsw = 74;
}

static void order(const struct report *rep, const __u32 *want, int n,
		  const char *what)
{
	int i;

	assert_int_equal(rep->nr, n);
	for (i = 0; i < n; i++)
		if (rep->rows[i]->tid != want[i])
			fail_msg("%s: position %d: tid %u, want %u", what, i,
				 rep->rows[i]->tid, want[i]);
}

static void test_build_sort_top(void **state)
{
	static const __u32 cpu[] = { 50, 10, 20, 30, 40 };	/* tie by tid */
	static const __u32 runq[] = { 40, 10, 20, 30, 50 };
	static const __u32 off[] = { 30, 10, 20, 40, 50 };
	static const __u32 tid[] = { 10, 20, 30, 40, 50 };
	static const __u32 comm[] = { 30, 10, 20, 40, 50 };
	static const __u32 sw[] = { 20, 10, 30, 40, 50 };
	static const struct {
		const char *what;
		enum sort_key sort;
		int top;		/* --top */
		const __u32 *want;	/* the rows' tids, in order */
		int n;
	} cases[] = {
		{ "cpu", SORT_CPU, 0, cpu, 5 },
		{ "runq", SORT_RUNQ, 0, runq, 5 },
		{ "offcpu", SORT_OFFCPU, 0, off, 5 },
		{ "tid", SORT_TID, 0, tid, 5 },
		{ "comm", SORT_COMM, 0, comm, 5 },
		{ "switches", SORT_SWITCHES, 0, sw, 5 },
		/* --top keeps the first N after sorting; nr_total the count before */
		{ "runq, top 2", SORT_RUNQ, 2, runq, 2 },
		{ "tid, top 99", SORT_TID, 99, tid, 5 },
	};
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	size_t i;

	(void)state;
	sw_plan(&plan);
	five(&t);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(report_build(&rep, &t, &plan, 0, 1000,
					      cases[i].sort, cases[i].top),
				 0);
		order(&rep, cases[i].want, cases[i].n, cases[i].what);
		assert_int_equal(rep.nr_total, 5);
		assert_int_equal(rep.interval, -1);
		report_free(&rep);
		assert_null(rep.rows);
	}

	/* an empty table makes an empty report */
	tasks_reset(&t);
	assert_int_equal(report_build(&rep, &t, &plan, 0, 1000, SORT_CPU, 3),
			 0);
	assert_int_equal(rep.nr, 0);
	assert_int_equal(rep.nr_total, 0);
	report_free(&rep);
	tasks_free(&t);
}

static void test_build_decode(void **state)
{
	struct report_fix fx;
	const struct task_decoded *d;
	struct task_row *r;
	int i;

	(void)state;
	assert_true(model_software.nr_events >= 3);
	assert_int_equal(model_software.max_level, 0);
	sw_plan(&fx.plan);
	tasks_init(&fx.t);
	r = add(&fx.t, 1, "run", 400000000, 100000000, 0);	/* 0.4 s of 2 s */
	for (i = 0; i < fx.plan.nr; i++)
		set_ctr(r, i, 1000 + i, 400000000, 400000000);
	add(&fx.t, 2, "starved", 37000000, 63000000, 0);
	add(&fx.t, 3, "blocked", 12000000, 0, 88000000);
	add(&fx.t, 4, "idle", 0, 0, 0);
	fix_build(&fx, 3, 2000000000ull, SORT_TID, 0);
	assert_int_equal(fx.rep.level, 0);	/* no TMA tree to go down */

	d = fix_task(&fx, 1);
	for (i = 0; i < fx.plan.nr; i++)
		assert_true(d->ev[i] == 1000.0 + i);
	assert_true(d->coverage == 1.0);
	assert_false(d->low_coverage);
	assert_true(fabs(d->on_cpu_pct - 20.0) < 1e-9);
	assert_int_equal(d->sched, SCHED_NONE);
	assert_false(d->has_tma);
	assert_string_equal(d->bottleneck, "on-CPU (no PMU breakdown)");

	d = fix_task(&fx, 2);
	assert_int_equal(d->sched, SCHED_STARVED);
	assert_string_equal(d->bottleneck, "CPU-starved (runq 63%)");
	assert_true(d->coverage == 1.0);	/* never enabled: no loss */
	d = fix_task(&fx, 3);
	assert_int_equal(d->sched, SCHED_BLOCKED);
	assert_string_equal(d->bottleneck, "blocked (off-CPU 88%)");
	d = fix_task(&fx, 4);
	assert_int_equal(d->sched, SCHED_IDLE);
	assert_string_equal(d->bottleneck, "idle");
	assert_true(d->ev[0] == 0.0);
	fix_free(&fx);
}

static void test_build_coverage(void **state)
{
	struct report_fix fx;
	const struct task_decoded *d;
	struct task_row *r;

	(void)state;
	r = mux_task(&fx.plan, &fx.t, 1, "mux");
	set_ctr(r, 0, 500, 1000, 500);		/* leader g0: 50% */
	set_ctr(r, 1, 10, 1001, 499);		/* member: leader's times */
	set_ctr(r, 2, 6, 1000, 30);		/* leader g1: 3% */
	r = add(&fx.t, 2, "never", 1000, 0, 0);
	set_ctr(r, 0, 0, 1000, 1000);
	set_ctr(r, 2, 0, 1000, 0);		/* g1 never counted */
	fix_build(&fx, 0, 1000, SORT_TID, 0);
	d = fix_task(&fx, 1);
	assert_true(d->ev[0] == 1000.0);
	assert_true(d->ev[1] == 20.0);		/* 10 * 1000 / 500 */
	assert_true(d->ev[2] == 200.0);	/* 6 * 1000 / 30 */
	assert_true(fabs(d->coverage - 0.03) < 1e-12);
	assert_true(d->low_coverage);
	assert_string_equal(d->bottleneck, "on-CPU (no PMU breakdown) (low coverage 3%)");
	d = fix_task(&fx, 2);
	assert_true(isnan(d->ev[2]));
	assert_true(d->coverage == 0.0);
	assert_true(d->low_coverage);
	fix_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_count),
		cmocka_unit_test(test_build_sort_top),
		cmocka_unit_test(test_build_decode),
		cmocka_unit_test(test_build_coverage),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
