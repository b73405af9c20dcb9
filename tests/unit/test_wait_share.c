// SPDX-License-Identifier: GPL-2.0
/*
 * Sampled waits against exact totals (sums/wait_share.c): each waker's
 * waits seen times the scale, within the new blocked time of each
 * interval (pro rata when they pass it, the rest carried), never a wait
 * still open, per waker never decreasing, new time with nothing seen
 * left unseen.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sums/wait_share.h"

#define TID 100

/* One task's table as a collect gives it: sums so far, waits seen. */
static void collect(struct task_table *t, __u64 off, __u64 runq, __u64 vol,
		    const struct tdbpf_wait *w, int n)
{
	struct task_row *r;

	tasks_reset(t);
	r = tasks_get(t, TID);
	assert_non_null(r);
	r->sched.off_cpu_ns = off;
	r->sched.runq_wait_ns = runq;
	r->sched.nvcsw = vol;
	assert_int_equal(tasks_add_waits(t, r, w, n), 0);
}

static const struct tdbpf_wait *slot(const struct task_table *t, __u32 kind,
				     __u32 tid)
{
	const struct task_row *r = tasks_find(t, TID);
	const struct tdbpf_wait *w;
	int n, i;

	assert_non_null(r);
	w = tasks_waits(t, r, &n);
	for (i = 0; i < n; i++)
		if (w[i].kind == kind && w[i].tid == tid)
			return &w[i];
	fail_msg("no slot kind %u tid %u", kind, tid);
	return NULL;
}

/* A split state and a table of rows with waker slots, no counters */
static void start(struct wait_share *s, struct task_table *t)
{
	wait_share_init(s);
	tasks_init(t);
	tasks_set_layout(t, 0, true);
}

static void finish(struct wait_share *s, struct task_table *t)
{
	tasks_free(t);
	wait_share_free(s);
}

/* @t split at a collect whose windows' time is @window_ns, 1 in 10 seen */
static void apply(struct wait_share *s, struct task_table *t,
		  __u64 window_ns, bool defer)
{
	assert_int_equal(wait_share_apply(s, t, 10, window_ns, defer), 0);
}

/* collect() then apply() */
static void split(struct wait_share *s, struct task_table *t, __u64 off,
		  __u64 runq, __u64 vol, const struct tdbpf_wait *w, int n,
		  __u64 window_ns, bool defer)
{
	collect(t, off, runq, vol, w, n);
	apply(s, t, window_ns, defer);
}

/* The sampled time of @t's slot of waker @kind @tid, as split */
static __u64 ns_of(const struct task_table *t, __u32 kind, __u32 tid)
{
	return slot(t, kind, tid)->wait_ns;
}

#define W(k, id, n, ns) { .kind = (k), .tid = (id), .tgid = (id), \
			  .wakeups = (n), .wait_ns = (ns) }

static void test_split(void **state)
{
	struct tdbpf_wait seen1[] = {
		W(TDBPF_WAKER_TASK, 7, 3, 30), W(TDBPF_WAKER_TIMER, 0, 1, 10),
		W(TDBPF_HOLDER_TASK, 7, 2, 5),
	};
	/* the timer's seen waits grow, the task's do not */
	struct tdbpf_wait seen2[] = {
		W(TDBPF_WAKER_TASK, 7, 3, 30), W(TDBPF_WAKER_TIMER, 0, 2, 20),
		W(TDBPF_HOLDER_TASK, 7, 2, 5),
	};
	struct wait_share s;
	struct task_table t;

	(void)state;
	start(&s, &t);

	/* 1000 ns blocked, seen 30 and 10 at 1 in 10: 300 and 100 */
	split(&s, &t, 1000, 80, 40, seen1, 3, 1, false);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7), 300);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TIMER, 0), 100);
	assert_int_equal(slot(&t, TDBPF_WAKER_TASK, 7)->wakeups, 30);
	assert_int_equal(slot(&t, TDBPF_WAKER_TIMER, 0)->wakeups, 10);
	/* the holds likewise, within the run-queue time */
	assert_int_equal(ns_of(&t, TDBPF_HOLDER_TASK, 7), 50);
	assert_int_equal(slot(&t, TDBPF_HOLDER_TASK, 7)->wakeups, 20);
	assert_int_equal(s.wakeups_seen, 4);

	/* 500 more, the timer seen 10 more: 100 more its */
	split(&s, &t, 1500, 80, 50, seen2, 3, 2, false);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7), 300);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TIMER, 0), 200);
	assert_int_equal(slot(&t, TDBPF_WAKER_TIMER, 0)->wakeups, 20);

	/* 700 more with nothing seen: unsplit (unseen), nothing goes down */
	split(&s, &t, 2200, 90, 60, seen2, 3, 3, false);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7), 300);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TIMER, 0), 200);
	assert_int_equal(ns_of(&t, TDBPF_HOLDER_TASK, 7), 50);
	seen2[1].wait_ns = 25;
	split(&s, &t, 2300, 90, 61, seen2, 3, 4, false);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TIMER, 0), 250);
	/* blocked time given back to the run queue: shown within it */
	split(&s, &t, 500, 1200, 61, seen2, 3, 5, false);
	assert_true(ns_of(&t, TDBPF_WAKER_TASK, 7) +
			    ns_of(&t, TDBPF_WAKER_TIMER, 0) <=
		    500);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7), 272);
	finish(&s, &t);
}

/*
 * A thread woken a few times at start-up and blocked since (a JVM's
 * housekeeping threads): its waker gets the waits it ended, ten times
 * what the windows saw, not the blocked time of the wait still open,
 * and not the time of long waits no window saw end.
 */
static void test_open_and_unseen_waits(void **state)
{
	struct tdbpf_wait seen[] = { W(TDBPF_WAKER_TASK, 7, 2, 30) };
	struct wait_share s;
	struct task_table t;
	struct task_row *r;

	(void)state;
	start(&s, &t);
	/* 5000 blocked, 4000 of it in a wait not ended */
	collect(&t, 5000, 0, 20, seen, 1);
	r = tasks_get(&t, TID);
	r->sched.open_wait_ns = 4000;
	apply(&s, &t, 1, false);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7), 300);
	/* the open wait is 1000 of 1000 blocked: none of it can go */
	collect(&t, 6000, 0, 20, seen, 1);
	r = tasks_get(&t, TID);
	r->sched.open_wait_ns = 5000;
	apply(&s, &t, 2, false);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7), 300);
	finish(&s, &t);
}

/*
 * One long wait seen counts ten times over: more than an interval's
 * blocked time. The interval gets all of its time, and the rest goes
 * to the next intervals, never more than theirs.
 */
static void test_carried(void **state)
{
	struct tdbpf_wait seen[] = { W(TDBPF_WAKER_TASK, 7, 1, 250) };
	struct wait_share s;
	struct task_table t;

	(void)state;
	start(&s, &t);
	split(&s, &t, 1000, 0, 10, seen, 1, 1, false);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7), 1000);
	split(&s, &t, 2000, 0, 20, seen, 1, 2, false);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7), 2000);
	split(&s, &t, 4000, 0, 30, seen, 1, 3, false);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7), 2500);
	assert_int_equal(slot(&t, TDBPF_WAKER_TASK, 7)->wakeups, 10);
	finish(&s, &t);
}

/*
 * Scrapes come more often than windows (one every 50 ms, a window
 * every 500 ms): at a scrape's collect (@defer), time that no window has
 * sampled yet waits for the next window's sample instead of going
 * unseen. A report's collect splits every time, so that an interval's
 * waits are of its own time.
 */
static void no_window_yet(bool defer)
{
	struct tdbpf_wait seen1[] = { W(TDBPF_WAKER_TIMER, 0, 1, 10) };
	struct tdbpf_wait seen2[] = { W(TDBPF_WAKER_TIMER, 0, 1, 10),
				      W(TDBPF_WAKER_TASK, 7, 1, 10) };
	struct wait_share s;
	struct task_table t;

	start(&s, &t);
	split(&s, &t, 100, 0, 4, seen1, 1, 50, defer);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TIMER, 0), 100);
	/* 300 more blocked, 6 switches, the window time unchanged */
	split(&s, &t, 400, 0, 10, seen1, 1, 50, defer);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TIMER, 0), 100);
	/* a report's split gives the timer the 6 its 1 in 10 was owed */
	assert_int_equal(slot(&t, TDBPF_WAKER_TIMER, 0)->wakeups,
			 defer ? 4 : 10);
	/* a window saw one wait of the task's */
	split(&s, &t, 400, 0, 10, seen2, 2, 100, defer);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TIMER, 0), 100);
	/*
	 * A scrape's 300 waited for it and hold its 100; a report's were
	 * passed, unseen. A scrape's 10 wakeups and the timer's 6 still
	 * owed share the 6 new switches.
	 */
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TASK, 7),
			 defer ? 100 : 0);
	assert_int_equal(slot(&t, TDBPF_WAKER_TASK, 7)->wakeups,
			 defer ? 3 : 0);
	finish(&s, &t);
}

static void test_no_window_yet(void **state)
{
	(void)state;
	no_window_yet(true);
	no_window_yet(false);
}

/*
 * Threads folded away (by name, into a row of their own) leave the
 * table: their estimates are not kept for ever, and a task still there
 * keeps its own (a run serving /metrics for days with thread churn).
 */
static void test_gone_tasks_pruned(void **state)
{
	struct tdbpf_wait seen[] = { W(TDBPF_WAKER_TIMER, 0, 1, 10) };
	struct wait_share s;
	struct task_table t;
	struct task_row *r;
	__u32 tid;

	(void)state;
	start(&s, &t);
	/* 300 threads and TID, each 100 ns blocked, one timer wait seen */
	for (tid = 1000; tid <= 1300; tid++) {
		/* the last one TID */
		r = tasks_get(&t, tid < 1300 ? tid : TID);
		assert_non_null(r);
		r->sched.off_cpu_ns = 100;
		r->sched.nvcsw = 1;
		assert_int_equal(tasks_add_waits(&t, r, seen, 1), 0);
	}
	apply(&s, &t, 1, false);
	assert_int_equal(s.est.nr, 301);
	/* the 300 are folded away: TID alone is left, with its estimate */
	split(&s, &t, 300, 0, 2, seen, 1, 2, false);
	assert_true(s.est.nr <= 1);
	assert_int_equal(ns_of(&t, TDBPF_WAKER_TIMER, 0), 100);
	finish(&s, &t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_open_and_unseen_waits),
		cmocka_unit_test(test_carried),
		cmocka_unit_test(test_no_window_yet),
		cmocka_unit_test(test_gone_tasks_pruned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
