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

static enum sched_verdict judge_ns(__u64 on, __u64 rq, __u64 off)
{
	return sched_judge(on, rq, off);
}

/* shares in milliseconds: well above the 1 ms of life a verdict needs */
static enum sched_verdict judge(__u64 on, __u64 rq, __u64 off)
{
	return judge_ns(on * 1000000, rq * 1000000, off * 1000000);
}

static void test_sched_judge(void **state)
{
	(void)state;
	assert_int_equal(judge(0, 0, 0), SCHED_IDLE);
	assert_int_equal(judge(0, 0, 500), SCHED_IDLE);
	/* waited but never ran: starved */
	assert_int_equal(judge(0, 1, 0), SCHED_STARVED);
	/* runq exactly 25% of life and above on-CPU: starved */
	assert_int_equal(judge(24, 25, 51), SCHED_STARVED);
	/* runq 24%: not starved; off 53% >= 50%: blocked */
	assert_int_equal(judge(23, 24, 53), SCHED_BLOCKED);
	/* runq == on-CPU is not "more waiting than running" */
	assert_int_equal(judge(25, 25, 50), SCHED_BLOCKED);
	assert_int_equal(judge(40, 40, 20), SCHED_NONE);
	/* starved wins over blocked when both hold */
	assert_int_equal(judge(10, 30, 60), SCHED_STARVED);
	/* off exactly 50%: blocked; 49%: not */
	assert_int_equal(judge(50, 0, 50), SCHED_BLOCKED);
	assert_int_equal(judge(51, 0, 49), SCHED_NONE);
	assert_int_equal(judge(1, 2, 97), SCHED_BLOCKED);
	assert_int_equal(judge(100, 0, 0), SCHED_NONE);
	/* sums near 2^64 / 3 do not overflow the comparisons */
	assert_int_equal(judge_ns(1ull << 62, (1ull << 62) + 1, 1ull << 62),
			 SCHED_STARVED);
	assert_int_equal(judge_ns(1ull << 62, 0, (1ull << 62) + 1),
			 SCHED_BLOCKED);
	/* under 1 ms of observed life: no verdict from a few microseconds */
	assert_int_equal(judge_ns(0, 999999, 0), SCHED_NONE);
	assert_int_equal(judge_ns(0, 1000000, 0), SCHED_STARVED);
	assert_int_equal(judge_ns(1, 0, 999998), SCHED_NONE);
	assert_int_equal(judge_ns(1, 0, 999999), SCHED_BLOCKED);
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
