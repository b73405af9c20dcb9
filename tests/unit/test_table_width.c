// SPDX-License-Identifier: GPL-2.0
/*
 * The default table of every model fits 120 columns, with the
 * wait-for graph's WAITS ON where it is kept, a 15-character comm and a
 * verdict longer than the room (wrapped under its column, not past it);
 * no column repeats another; -F brings back what gave way.
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
#include "analysis/graph.h"
#include "analysis/report.h"
#include "outputs/sink.h"
#include "unit_helpers.h"

/*
 * A task of @m's plan @p: every counter slot counted whole (enabled =
 * running), slot k at (k + 1) * @scale, so each model decodes a tree of
 * its own; its waits on @waker (0: none).
 */
static void task(struct task_table *t, const struct event_plan *p, __u32 tid,
		 const char *comm, __u64 scale, __u32 waker)
{
	struct tdbpf_wait w[TDBPF_NR_WAITS];
	struct tdbpf_task s;
	int k;

	task_blank(&s, w, tid, comm);
	s.sched = (struct tdbpf_sched){ .on_cpu_ns = 400000000 + tid,
					.runq_wait_ns = 250000000,
					.off_cpu_ns = 350000000, .nvcsw = 123456,
					.nivcsw = 7890, .migrations = 4321 };
	for (k = 0; k < p->nr; k++)
		s.ctr[k] = (struct tdbpf_count){ .value = (k % 5 + 1) * scale,
						 .enabled = 400000000,
						 .running = 400000000 };
	if (waker)
		w[0] = (struct tdbpf_wait){ .kind = TDBPF_WAKER_TASK,
					    .tid = waker, .wakeups = 100,
					    .wait_ns = 350000000 };
	else
		w[0] = (struct tdbpf_wait){ .kind = TDBPF_HOLDER_TASK, .tid = 3,
					    .wakeups = 50,
					    .wait_ns = 250000000 };
	assert_int_equal(tasks_add(t, &s, w, p->nr), 0);
}

/* Every line of @s within @w columns; the widest. */
static int widest(const char *s)
{
	int max = 0, n;

	while (*s) {
		n = (int)strcspn(s, "\n");
		if (n > max)
			max = n;
		s += n + (s[n] == '\n');
	}
	return max;
}

static char *table(const struct report *rep, unsigned int cols)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	report_write_table_cols(f, rep, cols);
	return slurp(f);
}

/* The model @m's table, with SMT @smt: within 120, its TMA columns kept. */
static void one_model(const struct model *m, bool smt)
{
	int level = m->max_level, gp = smt ? m->gp_smt_on : m->gp_smt_off;
	struct event_plan p;
	struct task_table t;
	struct report rep;
	struct graph g;
	char err[256], *s, *hdr;
	int w;

	if (plan_events(m, level, smt, gp, &p, err, sizeof(err))) {
		print_message("%s SMT %s: no plan (%s)\n", m->name,
			      smt ? "on" : "off", err);
		return;
	}
	tasks_init(&t);
	tasks_set_layout(&t, p.nr, true);
	task(&t, &p, 1, "source", 1000, 2);
	task(&t, &p, 2, "EnrichmentWorke", 3000, 0);
	task(&t, &p, 3, "sink-of-it-all", 7000, 2);
	assert_int_equal(report_build(&rep, &t, &p, level, 1000000000ull,
				      SORT_CPU, 0), 0);
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	report_set_graph(&rep, &g, &t);
	s = table(&rep, 0);
	w = widest(s);
	if (getenv("SHOW"))
		print_message("%s", s);
	print_message("%-16s SMT %-3s level %d: %d columns\n", m->name,
		      smt ? "on" : "off", level, w);
	if (w > TABLE_WIDTH) {
		print_error("%s: %d columns:\n%s", m->name, w, s);
		fail();
	}
	hdr = strstr(s, "    TID COMM");
	assert_non_null(hdr);
	*strchr(hdr, '\n') = '\0';
	assert_non_null(strstr(hdr, " BOTTLENECK"));
	/* the TopDown columns stay: they are what a PMU gives */
	if (m->max_level > 0)
		assert_non_null(strstr(hdr, "%"));
	/* none repeats a scheduling column */
	assert_null(strstr(hdr, "cpu-clock"));
	assert_null(strstr(hdr, "context-switches"));
	assert_null(strstr(hdr, "cpu-migrations"));
	free(s);
	/* -F all: every column, as asked, however wide */
	s = table(&rep, TCOL_ALL);
	assert_non_null(strstr(s, " SW vol/inv "));
	assert_non_null(strstr(s, " MIGR "));
	assert_non_null(strstr(s, " WAITS ON "));
	free(s);
	report_free(&rep);
	graph_free(&g);
	tasks_free(&t);
}

static void test_every_model_fits(void **state)
{
	int i;

	(void)state;
	for (i = 0; models[i]; i++) {
		one_model(models[i], true);
		one_model(models[i], false);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_model_fits),
	};

	return cmocka_run_group_tests_name("table_width", tests, NULL, NULL);
}
