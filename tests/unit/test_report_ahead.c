// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding ahead on a worker thread (report_ahead.c): every writer's
 * bytes are the same as when the writer decodes each task itself, for
 * every model, on tables with multiplexed, never-counted and idle tasks;
 * the walk gives each task once, in report order; a writer may leave
 * early and walk again.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "analysis/report.h"
#include "analysis/report_ahead.h"
#include "report_helpers.h"
#include "xorshift.h"

#define NR_TASKS 1500

static uint64_t rs = XORSHIFT_SEED;

static uint64_t rnd(void)
{
	return xorshift64(&rs);
}

/*
 * Tasks of every kind a report meets: running and multiplexed (most),
 * a group never on a counter (NAN, "not counted"), idle (all zero), and
 * ties of on-CPU time so that the sort's tie-break is exercised too.
 */
static void fill(struct task_table *t, const struct event_plan *p)
{
	int i, s;

	tasks_init(t);
	tasks_set_events(t, p->nr);
	for (i = 0; i < NR_TASKS; i++) {
		struct task_row *r = tasks_get(t, 100 + i);
		__u64 clk = 1000000 + rnd() % 1000000000ULL;
		int kind = i % 10;

		assert_non_null(r);
		r->pid = 100;
		snprintf(r->comm, sizeof(r->comm), "t%d", i % 37);
		if (kind == 9)
			continue;	/* idle */
		if (kind == 8)
			clk = 5000000;	/* ties */
		r->sched.on_cpu_ns = clk;
		r->sched.runq_wait_ns = rnd() % (clk / 2 + 1);
		r->sched.off_cpu_ns = rnd() % 2000000000ULL;
		r->sched.nvcsw = rnd() % 1000;
		for (s = 0; s < p->nr; s++) {
			r->ctr[s].value = rnd() % (clk * 4);
			r->ctr[s].enabled = clk;
			r->ctr[s].running = kind == 7 && p->group[s] == 1 ?
						    0 :
						    clk / 2 + rnd() % (clk / 2);
		}
	}
}

/* @m's plan at @level, a table of NR_TASKS tasks, its report, in @fx */
static void report_of(const struct model *m, int level,
		      struct report_fix *fx)
{

	assert_non_null(m);
	plan_ok(&fx->plan, m, level, true, m->gp_smt_on);
	fill(&fx->t, &fx->plan);
	fix_build(fx, level, 2000000000ULL, SORT_CPU, 0);
}

static void test_same_bytes(void **state)
{
	int k, f, nr_tree = 0;

	(void)state;
	for (k = 0; models[k]; k++) {
		const struct model *m = models[k];
		struct report_fix fx;
		struct report_ahead a;

		report_of(m, m->max_level, &fx);
		/* a model with a tree takes the thread when forced */
		report_ahead_min = 0;
		report_ahead_start(&a, &fx.rep);
		assert_int_equal(a.threaded, fx.rep.level > 0);
		report_ahead_stop(&a);
		nr_tree += fx.rep.level > 0;
		for (f = 0; f < NR_FMT; f++) {
			char *serial, *ahead;

			report_ahead_min = INT_MAX;
			serial = render_report(&fx.rep, f, ",");
			report_ahead_min = 0;
			ahead = render_report(&fx.rep, f, ",");
			if (strcmp(serial, ahead))
				fail_msg("%s, format %d: the output decoded ahead differs",
					 m->name, f);
			assert_true(strlen(serial) > NR_TASKS * 20);
			free(serial);
			free(ahead);
		}
		fix_free(&fx);
	}
	/* the comparison above is only worth something with trees */
	assert_true(nr_tree >= 10);
	report_ahead_min = 512;
}

/* A slow writer and a fast one: each task once, in order, then NULL. */
static void test_order(void **state)
{
	struct report_fix fx;
	struct report_ahead a;
	const struct task_decoded *d;
	struct task_decoded want;
	int i, pass;

	(void)state;
	report_of(model_find("graniterapids"), 3, &fx);
	report_ahead_min = 0;
	for (pass = 0; pass < 2; pass++) {
		report_ahead_start(&a, &fx.rep);
		assert_true(a.threaded);
		for (i = 0; (d = report_ahead_next(&a)); i++) {
			assert_true(i < fx.rep.nr);
			assert_ptr_equal(d->row, fx.rep.rows[i]);
			/* the slow pass checks every decoded field it can */
			if (pass == 0) {
				report_decode_task(&fx.rep, i, &want);
				assert_string_equal(d->bottleneck,
						    want.bottleneck);
				assert_memory_equal(d->ev, want.ev,
						    fx.plan.nr *
							    sizeof(double));
				assert_int_equal(d->tma.bottleneck,
						 want.tma.bottleneck);
			}
		}
		assert_int_equal(i, fx.rep.nr);
		assert_null(report_ahead_next(&a));
		report_ahead_stop(&a);
	}
	report_ahead_min = 512;
	fix_free(&fx);
}

/* @a's walk, started on @rep: each of its rows once, in order, then NULL. */
static void walk_all(struct report_ahead *a, const struct report *rep)
{
	const struct task_decoded *d;
	int i;

	for (i = 0; (d = report_ahead_next(a)); i++) {
		assert_true(i < rep->nr);
		assert_ptr_equal(d->row, rep->rows[i]);
	}
	assert_int_equal(i, rep->nr);
}

/*
 * A writer that stops after a few tasks (a write error) ends the worker,
 * which may be blocked on a full ring; the next walk gets a thread
 * again. A walk started during another decodes in place.
 */
static void test_leave_early(void **state)
{
	struct report_fix fx;
	struct report_ahead a, b;
	int i;

	(void)state;
	report_of(model_find("sapphirerapids"), 3, &fx);
	report_ahead_min = 0;
	report_ahead_start(&a, &fx.rep);
	assert_true(a.threaded);
	for (i = 0; i < 3; i++)
		assert_ptr_equal(report_ahead_next(&a)->row, fx.rep.rows[i]);

	report_ahead_start(&b, &fx.rep);
	assert_false(b.threaded);
	walk_all(&b, &fx.rep);
	report_ahead_stop(&b);

	report_ahead_stop(&a);
	report_ahead_start(&a, &fx.rep);
	assert_true(a.threaded);
	walk_all(&a, &fx.rep);
	report_ahead_stop(&a);

	/* below the threshold, or without a tree: no thread */
	report_ahead_min = fx.rep.nr + 1;
	report_ahead_start(&a, &fx.rep);
	assert_false(a.threaded);
	report_ahead_stop(&a);
	report_ahead_min = 512;
	fix_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_bytes),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_leave_early),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
