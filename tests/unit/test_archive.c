// SPDX-License-Identifier: GPL-2.0
/* Exited tasks folded by name for long --listen runs (archive.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "sums/archive.h"
#include "unit_helpers.h"

static void add(struct task_table *t, __u32 tid, __u32 pid, const char *comm,
		__u64 on, __u64 ctr)
{
	struct task_row *r = tasks_get(t, tid);

	assert_non_null(r);
	r->pid = pid;
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->exited = true;
	r->sched.on_cpu_ns += on;
	r->sched.nvcsw += 1;
	r->ctr[0].value += ctr;
	r->ctr[0].enabled += ctr;
	r->ctr[0].running += ctr;
}

static const struct task_row *folded(const struct task_table *t, __u32 pid,
				     const char *name)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		const struct task_row *r = tasks_row(t, i);

		if (r->pid == pid && !strcmp(r->comm, name))
			return r;
	}
	return NULL;
}

static void test_fold(void **state)
{
	struct task_table a, base;
	const struct task_row *r;
	__u32 key = ARCHIVE_FOLDED_TID, first;

	(void)state;
	tasks_init(&a);
	tasks_init(&base);
	tasks_set_events(&a, 1);
	tasks_set_events(&base, 1);
	add(&a, 11, 10, "w-1", 100, 7);
	add(&a, 12, 10, "w-2", 200, 9);
	add(&a, 13, 10, "sink", 50, 1);
	add(&a, 21, 20, "w-1", 1000, 3);	/* another process */
	/* 12 was charged 30 ns before the run started */
	add(&base, 12, 10, "w-2", 30, 4);

	assert_int_equal(archive_fold(&a, &base, &key), 0);
	assert_int_equal(a.nr, 3);
	assert_int_equal(key, ARCHIVE_FOLDED_TID + 3);
	r = folded(&a, 10, "w-*");
	assert_non_null(r);
	assert_true(archive_is_folded(r));
	assert_true(r->exited);
	assert_int_equal(r->nr_tasks, 2);
	assert_int_equal(r->sched.on_cpu_ns, 100 + 200 - 30);
	assert_int_equal(r->sched.nvcsw, 1 + (1 - 1));	/* 12: its one switch was before the start */
	assert_int_equal(r->ctr[0].value, 7 + 9 - 4);
	assert_int_equal(r->ctr[0].running, 7 + 9 - 4);
	first = r->tid;
	r = folded(&a, 20, "w-*");
	assert_non_null(r);
	assert_int_equal(r->sched.on_cpu_ns, 1000);
	assert_int_equal(folded(&a, 10, "sink")->nr_tasks, 1);
	/* the base row was used up: a reused tid 12 starts from zero */
	assert_int_equal(tasks_find(&base, 12)->sched.on_cpu_ns, 0);

	/* more exits of the same name join the same row, same key */
	add(&a, 14, 10, "w-3", 5, 1);
	assert_int_equal(archive_fold(&a, &base, &key), 0);
	assert_int_equal(a.nr, 3);
	r = folded(&a, 10, "w-*");
	assert_int_equal(r->tid, first);
	assert_int_equal(r->nr_tasks, 3);
	assert_int_equal(r->sched.on_cpu_ns, 100 + 200 - 30 + 5);
	assert_int_equal(key, ARCHIVE_FOLDED_TID + 3);
	tasks_free(&a);
	tasks_free(&base);
}

/* The slot of @kind (and waker tid @tid) in row @r of @t, or NULL. */
static const struct tdbpf_wait *slot(const struct task_table *t,
				     const struct task_row *r,
				     unsigned int kind, __u32 tid)
{
	const struct tdbpf_wait *w;
	int n, i;

	w = tasks_waits(t, r, &n);
	for (i = 0; i < n; i++)
		if (w[i].kind == kind && w[i].tid == tid)
			return &w[i];
	return NULL;
}

/*
 * A folded name keeps its threads' waker slots, less what the base
 * held: the graph edges of exited threads outlive their rows.
 */
static void test_fold_waits(void **state)
{
	struct task_table a, base;
	const struct task_row *r;
	const struct tdbpf_wait *w;
	__u32 key = ARCHIVE_FOLDED_TID;

	(void)state;
	tasks_init(&a);
	tasks_init(&base);
	assert_int_equal(tasks_set_layout(&a, 1, true), 0);
	assert_int_equal(tasks_set_layout(&base, 1, true), 0);
	add(&a, 11, 10, "w-1", 100, 7);
	add(&a, 12, 10, "w-2", 200, 9);
	add(&base, 12, 10, "w-2", 30, 4);
	set_wait(&a, tasks_find(&a, 11),
		 (struct tdbpf_wait){ .kind = TDBPF_WAKER_TASK, .tid = 5,
				      .tgid = 5, .wakeups = 3,
				      .wait_ns = 3000 });
	set_wait(&a, tasks_find(&a, 11),
		 (struct tdbpf_wait){ .kind = TDBPF_WAKER_TIMER,
				      .wakeups = 2, .wait_ns = 800 });
	set_wait(&a, tasks_find(&a, 12),
		 (struct tdbpf_wait){ .kind = TDBPF_WAKER_TASK, .tid = 5,
				      .tgid = 5, .wakeups = 4,
				      .wait_ns = 4000 });
	/* one of 12's wakeups by 5 was before the start */
	set_wait(&base, tasks_find(&base, 12),
		 (struct tdbpf_wait){ .kind = TDBPF_WAKER_TASK, .tid = 5,
				      .tgid = 5, .wakeups = 1,
				      .wait_ns = 1000 });

	assert_int_equal(archive_fold(&a, &base, &key), 0);
	r = folded(&a, 10, "w-*");
	assert_non_null(r);
	w = slot(&a, r, TDBPF_WAKER_TASK, 5);
	assert_non_null(w);
	assert_int_equal(w->wakeups, 3 + 4 - 1);
	assert_int_equal(w->wait_ns, 3000 + 4000 - 1000);
	w = slot(&a, r, TDBPF_WAKER_TIMER, 0);
	assert_non_null(w);
	assert_int_equal(w->wakeups, 2);
	assert_int_equal(w->wait_ns, 800);

	/* a later fold adds to the folded row's slots, not over them */
	add(&a, 13, 10, "w-3", 5, 1);
	set_wait(&a, tasks_find(&a, 13),
		 (struct tdbpf_wait){ .kind = TDBPF_WAKER_TIMER,
				      .wakeups = 1, .wait_ns = 50 });
	assert_int_equal(archive_fold(&a, &base, &key), 0);
	r = folded(&a, 10, "w-*");
	assert_int_equal(slot(&a, r, TDBPF_WAKER_TIMER, 0)->wakeups, 3);
	assert_int_equal(slot(&a, r, TDBPF_WAKER_TASK, 5)->wakeups, 6);
	tasks_free(&a);
	tasks_free(&base);
}

/* Report rows: folded keys show as tid 0, with their task count. */
static void test_report_rows(void **state)
{
	struct task_table a, rep;
	__u32 key = ARCHIVE_FOLDED_TID;
	struct task_row *r;

	(void)state;
	tasks_init(&a);
	tasks_init(&rep);
	tasks_set_events(&a, 1);
	add(&a, 11, 10, "w-1", 100, 7);
	add(&a, 12, 10, "w-2", 200, 9);
	assert_int_equal(archive_fold(&a, NULL, &key), 0);
	assert_int_equal(tasks_merge(&rep, &a, 1), 0);
	add(&rep, 15, 10, "w-5", 1, 1);
	archive_hide_keys(&rep);
	r = tasks_row(&rep, 0);
	assert_int_equal(r->tid, 0);
	assert_int_equal(r->nr_tasks, 2);
	assert_string_equal(r->comm, "w-*");
	assert_int_equal(tasks_row(&rep, 1)->tid, 15);
	tasks_free(&a);
	tasks_free(&rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_fold_waits),
		cmocka_unit_test(test_report_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
