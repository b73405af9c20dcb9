// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduling verdict (analysis/sched_verdict.c): its boundaries,
 * inclusive and exact, worked out by hand from the rules; and that a
 * report's row and a graph's node with the same sums get the same one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "analysis/graph.h"
#include "analysis/report.h"
#include "analysis/sched_verdict.h"
#include "unit_helpers.h"

/* milliseconds: well above the 1 ms of life a verdict needs */
#define MS(v) ((v) * 1000000ull)

static void test_sched_judge(void **state)
{
	static const struct {
		__u64 on, rq, off;	/* ns */
		enum sched_verdict want;
	} c[] = {
		{ 0, 0, 0, SCHED_IDLE },
		{ 0, 0, MS(500), SCHED_IDLE },
		/* waited but never ran: starved */
		{ 0, MS(1), 0, SCHED_STARVED },
		/* runq exactly 25% of life and above on-CPU: starved */
		{ MS(24), MS(25), MS(51), SCHED_STARVED },
		/* runq 24%: not starved; off 53% >= 50%: blocked */
		{ MS(23), MS(24), MS(53), SCHED_BLOCKED },
		/* runq == on-CPU is not "more waiting than running" */
		{ MS(25), MS(25), MS(50), SCHED_BLOCKED },
		{ MS(40), MS(40), MS(20), SCHED_NONE },
		/* starved wins over blocked when both hold */
		{ MS(10), MS(30), MS(60), SCHED_STARVED },
		/* off exactly 50%: blocked; 49%: not */
		{ MS(50), 0, MS(50), SCHED_BLOCKED },
		{ MS(51), 0, MS(49), SCHED_NONE },
		{ MS(1), MS(2), MS(97), SCHED_BLOCKED },
		{ MS(100), 0, 0, SCHED_NONE },
		/* sums near 2^64 / 3 do not overflow the comparisons */
		{ 1ull << 62, (1ull << 62) + 1, 1ull << 62, SCHED_STARVED },
		{ 1ull << 62, 0, (1ull << 62) + 1, SCHED_BLOCKED },
		/* under 1 ms of observed life: no verdict from a few us */
		{ 0, 999999, 0, SCHED_NONE },
		{ 0, 1000000, 0, SCHED_STARVED },
		{ 1, 0, 999998, SCHED_NONE },
		{ 1, 0, 999999, SCHED_BLOCKED },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		enum sched_verdict got = sched_judge(c[i].on, c[i].rq,
						     c[i].off);

		if (got != c[i].want)
			fail_msg("case %zu: %llu, %llu, %llu: verdict %d, "
				 "want %d", i, (unsigned long long)c[i].on,
				 (unsigned long long)c[i].rq,
				 (unsigned long long)c[i].off, got,
				 c[i].want);
	}
	assert_string_equal(sched_verdict_str(SCHED_STARVED), "CPU-starved");
	assert_string_equal(sched_verdict_str(SCHED_BLOCKED), "blocked");
	assert_string_equal(sched_verdict_str(SCHED_IDLE), "idle");
	assert_string_equal(sched_verdict_str(SCHED_NONE), "-");
}

/*
 * One task per verdict, as a report decodes it and as the graph judges
 * its node: both take the verdict from the same sums.
 */
static void test_report_and_graph_agree(void **state)
{
	static const __u64 ms = 1000000;
	static const struct {
		__u64 on, rq, off;
		enum sched_verdict want;
	} c[] = {
		{ 10 * ms, 30 * ms, 60 * ms, SCHED_STARVED },
		{ 1 * ms, 2 * ms, 97 * ms, SCHED_BLOCKED },
		{ 100 * ms, 0, 0, SCHED_NONE },
		{ 0, 0, 5 * ms, SCHED_IDLE },
	};
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_decoded d;
	struct graph g;
	unsigned int i;
	int n;

	(void)state;
	one_group_plan(&plan, &model_software);
	tasks_init(&t);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct task_row *r = tasks_get(&t, 100 + i);

		assert_non_null(r);
		r->sched.on_cpu_ns = c[i].on;
		r->sched.runq_wait_ns = c[i].rq;
		r->sched.off_cpu_ns = c[i].off;
	}
	assert_int_equal(report_build(&rep, &t, &plan, 0, 100 * ms, SORT_TID,
				      0), 0);
	assert_int_equal(graph_build(&g, &t, false, NULL), 0);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		report_decode_task(&rep, (int)i, &d);
		assert_int_equal(d.row->tid, 100 + i);
		assert_int_equal(d.sched, c[i].want);
		n = graph_node_of(&g, d.row);
		assert_true(n >= 0);
		assert_int_equal(g.nodes[n].sched, c[i].want);
	}
	graph_free(&g);
	report_free(&rep);
	tasks_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_judge),
		cmocka_unit_test(test_report_and_graph_agree),
	};

	return cmocka_run_group_tests_name("sched_verdict", tests, NULL, NULL);
}
