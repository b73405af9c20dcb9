// SPDX-License-Identifier: GPL-2.0
/* Task table: name folding, sums, interval deltas, index growth. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sums/tasks.h"

static void check_fold(const char *in, const char *want)
{
	char out[TDBPF_COMM_LEN + 2];

	fold_name(in, out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("fold_name(\"%s\") = \"%s\", want \"%s\"", in, out,
			 want);
}

static void test_fold_name(void **state)
{
	(void)state;
	check_fold("worker-12", "worker-*");
	check_fold("worker-1", "worker-*");
	check_fold("parse3", "parse*");
	check_fold("sink", "sink");
	check_fold("12345", "12345");
	check_fold("", "");
	check_fold("x_7", "x_*");
	check_fold("x.7", "x.*");
	check_fold("x#7", "x#*");
	check_fold("kworker/0:1", "kworker/*");
	check_fold("worker-1.2", "worker-*");
	check_fold("pool-1-thread-3", "pool-1-thread-*");
	check_fold("1-2", "1-2");		/* only numbers: no name left */
	check_fold("a.1.", "a.1.");		/* no trailing digits */
	check_fold("a-", "a-");
	check_fold("abcdefghijklm99", "abcdefghijklm*");	/* 15 bytes */
	check_fold("abcdefghijklmno", "abcdefghijklmno");
	check_fold("\xff\x01" "9", "\xff\x01*");	/* any byte is a name */
	/* a Flink subtask: its index, wherever it stands, and the attempt */
	check_fold("Map (1/3)#0", "Map (*/3)#*");
	check_fold("Map (12/30)", "Map (*/30)");
	check_fold("a (x/3)", "a (x/3)");	/* no index, no star */
	check_fold("G1 Conc#0", "G1 Conc#*");	/* the key; rows: fold_join */
	check_fold("gst-launch-1.0", "gst-launch-*");
	/* a folded name folds to itself: a folded table folds again */
	check_fold("worker-*", "worker-*");
	check_fold("kworker/*:*", "kworker/*");
	check_fold("Map (*/3)#0", "Map (*/3)#*");
	check_fold("Map (*/3)#*", "Map (*/3)#*");
	check_fold("*", "*");
}

static void check_join(const char *a, const char *b, const char *want)
{
	char disp[TDBPF_COMM_LEN + 2], ka[sizeof(disp)], kb[sizeof(disp)];

	/* the rule joins names of one key only */
	fold_name(a, ka, sizeof(ka));
	fold_name(b, kb, sizeof(kb));
	assert_string_equal(ka, kb);
	snprintf(disp, sizeof(disp), "%s", a);
	fold_join(disp, sizeof(disp), b);
	if (strcmp(disp, want))
		fail_msg("fold_join(\"%s\", \"%s\") = \"%s\", want \"%s\"",
			 a, b, disp, want);
}

/* A folded row shows what its threads share, stars where they differ. */
static void test_fold_join(void **state)
{
	/* two names, what their folded row shows */
	static const char *const joins[][3] = {
		{ "Map (1/3)#0", "Map (2/3)#0", "Map (*/3)#0" },
		{ "Map (*/3)#0", "Map (3/3)#0", "Map (*/3)#0" },
		{ "Map (1/3)#0", "Map (2/3)#1", "Map (*/3)#*" },
		{ "worker-1", "worker-12", "worker-*" },
		{ "worker-*", "worker-7", "worker-*" },
		{ "pool-2-thread-5", "pool-2-thread-6", "pool-2-thread-*" },
		{ "G1 Conc#0", "G1 Conc#1", "G1 Conc#*" },
		{ "kworker/0:1", "kworker/0:2", "kworker/0:*" },
		/* the same name twice is that name: two gst-launch-1.0 */
		{ "gst-launch-1.0", "gst-launch-1.0", "gst-launch-1.0" },
		{ "sink", "sink", "sink" },
		/* suffixes that do not line up: the key */
		{ "worker-1.2", "worker-3", "worker-*" },
		{ "kworker/0:1", "kworker/1", "kworker/*" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(joins) / sizeof(joins[0]); i++)
		check_join(joins[i][0], joins[i][1], joins[i][2]);
}

static void test_fold_name_short_buffer(void **state)
{
	char out[4];

	(void)state;
	fold_name("worker-12", out, sizeof(out));
	assert_string_equal(out, "wor");
	memset(out, 'z', sizeof(out));
	fold_name("worker-12", out, 0);	/* must not write */
	assert_int_equal(out[0], 'z');
}

static struct tdbpf_task mk(__u32 tid, __u32 tgid, const char *comm,
			    __u64 base)
{
	struct tdbpf_task s;
	int i;

	memset(&s, 0, sizeof(s));
	s.tid = tid;
	s.tgid = tgid;
	/* may fill the buffer without a NUL, as the kernel's comm can */
	memcpy(s.comm, comm, strnlen(comm, sizeof(s.comm)));
	s.sched.on_cpu_ns = base + 1;
	s.sched.runq_wait_ns = base + 2;
	s.sched.off_cpu_ns = base + 3;
	s.sched.nvcsw = base + 4;
	s.sched.nivcsw = base + 5;
	s.sched.migrations = base + 6;
	s.sched.uncounted_ns = base + 7;
	/* signed: negative from base 9 on */
	s.sched.window_gap_ns = 8 - (__s64)base;
	for (i = 0; i < TDBPF_MAX_EVENTS; i++) {
		s.ctr[i].value = base * 10 + i;
		s.ctr[i].enabled = base * 100 + i;
		s.ctr[i].running = base * 50 + i;
	}
	return s;
}

static void test_add_sums(void **state)
{
	struct task_table t;
	struct tdbpf_task a = mk(42, 40, "w", 1000), b = mk(42, 40, "w2", 20);
	struct task_row *r;

	(void)state;
	tasks_init(&t);
	assert_int_equal(tasks_add(&t, &a, NULL, 3), 0);
	assert_int_equal(tasks_add(&t, &b, NULL, 3), 0);
	assert_int_equal(t.nr, 1);
	r = tasks_get(&t, 42);
	assert_non_null(r);
	assert_int_equal(t.nr, 1);		/* found, not created */
	assert_int_equal(r->tid, 42);
	assert_int_equal(r->pid, 40);
	assert_string_equal(r->comm, "w2");	/* newest name */
	assert_int_equal(r->nr_tasks, 1);
	assert_false(r->exited);
	assert_int_equal(r->sched.on_cpu_ns, 1001 + 21);
	assert_int_equal(r->sched.runq_wait_ns, 1002 + 22);
	assert_int_equal(r->sched.off_cpu_ns, 1003 + 23);
	assert_int_equal(r->sched.nvcsw, 1004 + 24);
	assert_int_equal(r->sched.nivcsw, 1005 + 25);
	assert_int_equal(r->sched.migrations, 1006 + 26);
	assert_int_equal(r->sched.uncounted_ns, 1007 + 27);
	assert_int_equal(r->sched.window_gap_ns, -992 - 12);
	/* counters: slot i = value base*10+i summed over both adds */
	assert_int_equal(r->ctr[0].value, 10000 + 200);
	assert_int_equal(r->ctr[2].value, 10002 + 202);
	assert_int_equal(r->ctr[2].enabled, 100002 + 2002);
	assert_int_equal(r->ctr[2].running, 50002 + 1002);
	/* slots beyond nr_ev are not touched */
	assert_int_equal(r->ctr[3].value, 0);
	assert_int_equal(r->ctr[3].enabled, 0);
	tasks_free(&t);
}

static void test_add_comm_and_exit(void **state)
{
	struct task_table t;
	struct tdbpf_task a = mk(7, 7, "0123456789abcdef", 0);	/* 16, no NUL */
	struct tdbpf_task b = mk(7, 7, "", 0);
	struct task_row *r;

	(void)state;
	tasks_init(&t);
	assert_int_equal(tasks_add(&t, &a, NULL, 0), 0);
	r = tasks_get(&t, 7);
	assert_string_equal(r->comm, "0123456789abcdef");
	assert_false(r->exited);
	b.flags = TDBPF_TASK_EXITED;
	assert_int_equal(tasks_add(&t, &b, NULL, 0), 0);
	r = tasks_get(&t, 7);
	assert_string_equal(r->comm, "0123456789abcdef");	/* kept */
	assert_true(r->exited);
	/* exited sticks: a later delta without the flag does not undo it */
	b.flags = 0;
	assert_int_equal(tasks_add(&t, &b, NULL, 0), 0);
	assert_true(tasks_get(&t, 7)->exited);
	/* other flag bits are not "exited" */
	a.tid = 8;
	a.flags = 2;
	assert_int_equal(tasks_add(&t, &a, NULL, 0), 0);
	assert_false(tasks_get(&t, 8)->exited);
	tasks_free(&t);
}

/* A new table of the @n tasks @s, two counters each, no waits. */
static void table_of(struct task_table *t, const struct tdbpf_task *s, int n)
{
	int i;

	tasks_init(t);
	for (i = 0; i < n; i++)
		assert_int_equal(tasks_add(t, &s[i], NULL, 2), 0);
}

static void test_merge(void **state)
{
	struct task_table a, b;
	struct tdbpf_task sa[] = { mk(1, 1, "one", 100), mk(2, 1, "two", 200) };
	struct tdbpf_task sb[] = { mk(2, 1, "two", 5), mk(3, 1, "three", 7) };
	struct task_row *r;

	(void)state;
	sb[0].flags = TDBPF_TASK_EXITED;
	table_of(&a, sa, 2);
	table_of(&b, sb, 2);
	assert_int_equal(tasks_merge(&a, &b, 2), 0);
	assert_int_equal(a.nr, 3);
	r = tasks_get(&a, 2);
	assert_int_equal(r->sched.on_cpu_ns, 201 + 6);
	assert_int_equal(r->ctr[1].value, 2001 + 51);
	assert_int_equal(r->ctr[1].running, 10001 + 251);
	assert_true(r->exited);
	r = tasks_get(&a, 3);
	assert_string_equal(r->comm, "three");
	assert_int_equal(r->sched.off_cpu_ns, 10);
	assert_int_equal(tasks_get(&a, 1)->sched.on_cpu_ns, 101);
	assert_int_equal(a.nr, 3);
	tasks_free(&a);
	tasks_free(&b);
}

/*
 * A task read alive and then archived whole in the same collect: its live
 * row is cleared and the archive's merged in, so it counts once.
 */
static void test_clear_then_merge(void **state)
{
	struct task_table snap, late;
	/* live, then another */
	struct tdbpf_task sn[] = { mk(5, 5, "w", 100), mk(6, 5, "v", 7) };
	struct tdbpf_task dead = mk(5, 5, "w", 300);
	struct task_row *r;

	(void)state;
	dead.flags = TDBPF_TASK_EXITED;
	table_of(&snap, sn, 2);
	table_of(&late, &dead, 1);
	tasks_clear(&snap, 5);
	tasks_clear(&snap, 99);		/* absent: nothing happens */
	assert_int_equal(snap.nr, 2);
	r = tasks_get(&snap, 5);
	assert_string_equal(r->comm, "w");	/* the row and name stay */
	assert_int_equal(r->sched.on_cpu_ns, 0);
	assert_int_equal(r->sched.migrations, 0);
	assert_int_equal(r->sched.uncounted_ns, 0);
	assert_int_equal(r->ctr[1].value, 0);
	assert_int_equal(r->ctr[1].enabled, 0);
	assert_int_equal(tasks_merge(&snap, &late, 2), 0);
	r = tasks_get(&snap, 5);
	assert_int_equal(r->sched.on_cpu_ns, 301);	/* the dead sums, once */
	assert_int_equal(r->sched.nivcsw, 305);
	assert_int_equal(r->sched.uncounted_ns, 307);
	assert_int_equal(r->ctr[1].value, 3001);
	assert_int_equal(r->ctr[1].running, 15001);
	assert_true(r->exited);
	/* the other task is untouched */
	assert_int_equal(tasks_get(&snap, 6)->sched.on_cpu_ns, 8);
	tasks_free(&snap);
	tasks_free(&late);
}

static void test_diff(void **state)
{
	struct task_table prev, cur, out;
	struct tdbpf_task s;
	struct task_row *r;

	(void)state;
	tasks_init(&prev);
	tasks_init(&cur);
	tasks_init(&out);
	/* tid 1 ran more, tid 2 did nothing, tid 3 exited idle, 4 is new */
	s = mk(1, 1, "a", 100);
	tasks_add(&prev, &s, NULL, 2);
	tasks_add(&cur, &s, NULL, 2);
	s = mk(1, 1, "a", 10);
	tasks_add(&cur, &s, NULL, 2);
	s = mk(2, 1, "b", 50);
	tasks_add(&prev, &s, NULL, 2);
	tasks_add(&cur, &s, NULL, 2);
	s = mk(3, 1, "c", 60);
	tasks_add(&prev, &s, NULL, 2);
	tasks_add(&cur, &s, NULL, 2);
	memset(&s, 0, sizeof(s));
	s.tid = 3;
	s.flags = TDBPF_TASK_EXITED;
	tasks_add(&cur, &s, NULL, 2);
	s = mk(4, 1, "d", 0);
	tasks_add(&cur, &s, NULL, 2);

	assert_int_equal(tasks_diff(&cur, &prev, &out, 2), 0);
	assert_int_equal(out.nr, 3);
	r = tasks_get(&out, 1);
	assert_int_equal(r->sched.on_cpu_ns, 11);
	assert_int_equal(r->sched.runq_wait_ns, 12);
	assert_int_equal(r->sched.off_cpu_ns, 13);
	assert_int_equal(r->sched.nvcsw, 14);
	assert_int_equal(r->sched.nivcsw, 15);
	assert_int_equal(r->sched.migrations, 16);
	assert_int_equal(r->sched.uncounted_ns, 17);
	/* (-92 - 2) - (-92): a signed difference, not saturated at 0 */
	assert_int_equal(r->sched.window_gap_ns, -2);
	assert_int_equal(r->ctr[1].value, 101);
	assert_int_equal(r->ctr[1].enabled, 1001);
	assert_int_equal(r->ctr[1].running, 501);
	assert_false(r->exited);
	r = tasks_get(&out, 3);		/* newly exited, nothing else */
	assert_true(r->exited);
	assert_int_equal(r->sched.on_cpu_ns, 0);
	assert_int_equal(r->ctr[0].value, 0);
	r = tasks_get(&out, 4);		/* new: whole row */
	assert_int_equal(r->sched.on_cpu_ns, 1);
	assert_string_equal(r->comm, "d");
	assert_int_equal(out.nr, 3);	/* tid 2 left out */

	/* next interval: 3 stays exited without news -> left out */
	tasks_reset(&prev);
	tasks_merge(&prev, &cur, 2);
	assert_int_equal(tasks_diff(&cur, &prev, &out, 2), 0);
	assert_int_equal(out.nr, 0);
	/* no prev at all: everything is new */
	assert_int_equal(tasks_diff(&cur, NULL, &out, 2), 0);
	assert_int_equal(out.nr, 4);
	tasks_free(&prev);
	tasks_free(&cur);
	tasks_free(&out);
}

/*
 * tasks_sub() (the final report's, in place) leaves exactly the rows and
 * values tasks_diff() makes, with the rows that drop out gone from the
 * index too: 3000 random tasks, waker slots included, against a prev
 * holding some of them as they were, some unchanged, and some exited.
 */
static void test_sub_in_place(void **state)
{
	struct task_table prev, cur, out;
	struct tdbpf_wait w[TDBPF_NR_WAITS];
	unsigned int seed = 7, i, k, kept = 0;

	(void)state;
	tasks_init(&prev);
	tasks_init(&cur);
	tasks_init(&out);
	tasks_set_layout(&prev, 5, true);
	tasks_set_layout(&cur, 5, true);
	for (i = 1; i <= 3000; i++) {
		unsigned int r = rand_r(&seed);
		struct tdbpf_task s = mk(i * 13, 1, "t", r % 1000);

		if (r & 1)
			s.flags = TDBPF_TASK_EXITED;
		memset(w, 0, sizeof(w));
		w[0].kind = TDBPF_WAKER_TASK;
		w[0].tid = r % 50 + 1;
		w[0].wakeups = r % 7 + 1;
		w[0].wait_ns = r % 9000;
		if (r % 3 != 0)		/* in prev: as it was then */
			tasks_add(&prev, &s, w, 5);
		tasks_add(&cur, &s, w, 5);
		if (r % 3 == 1) {	/* and it ran since */
			s = mk(i * 13, 1, "t", r % 77);
			s.flags = 0;
			w[0].wait_ns = 5;
			tasks_add(&cur, &s, w, 5);
		}
	}
	assert_int_equal(tasks_diff(&cur, &prev, &out, 5), 0);
	assert_int_equal(tasks_sub(&cur, &prev), 0);
	assert_int_equal(cur.nr, out.nr);
	assert_true(out.nr > 1000 && out.nr < 3000);
	for (k = 0; k < out.nr; k++) {
		const struct task_row *d = tasks_row(&out, k);
		const struct task_row *c = tasks_find(&cur, d->tid);

		const struct tdbpf_wait *cw, *dw;
		int cn, dn;

		assert_non_null(c);
		/* the same but where each table keeps the slots */
		assert_memory_equal(c, d, offsetof(struct task_row, w_at));
		assert_memory_equal(c->ctr, d->ctr,
				    (size_t)out.nr_ev * sizeof(c->ctr[0]));
		cw = tasks_waits(&cur, c, &cn);
		dw = tasks_waits(&out, d, &dn);
		assert_int_equal(cn, dn);
		assert_int_equal(cn, 1);
		assert_memory_equal(cw, dw, (size_t)cn * sizeof(*cw));
		kept++;
	}
	assert_int_equal(kept, cur.nr);
	/* a row that dropped out is not found */
	for (i = 1; i <= 3000; i++)
		if (!tasks_find(&out, i * 13))
			assert_null(tasks_find(&cur, i * 13));
	tasks_free(&prev);
	tasks_free(&cur);
	tasks_free(&out);
}

/*
 * A row keeps only the waker slots in use: 2,000 rows gain wakers one
 * at a time, in random order and at random places of BPF's fixed slots
 * (so rows' runs move and the table's slots are rebuilt), and each ends
 * with exactly its wakers' sums, no waker twice; the table holds at most
 * about twice the slots the rows use. A copy into another table carries
 * the same slots in a run of its own.
 */
static void test_waits_compact(void **state)
{
	static unsigned int adds[2001];
	struct tdbpf_wait w[TDBPF_NR_WAITS];
	struct task_table t, c;
	unsigned int seed = 11, k;
	size_t i, used = 0;

	(void)state;
	tasks_init(&t);
	tasks_init(&c);
	tasks_set_layout(&t, 0, true);
	tasks_set_layout(&c, 0, true);
	for (k = 0; k < 20000; k++) {
		unsigned int r = (unsigned int)rand_r(&seed);
		__u32 tid = r % 2000 + 1;
		struct tdbpf_task s = mk(tid, 1, "t", 0);
		int j = (r >> 12) % TDBPF_NR_WAITS;

		memset(w, 0, sizeof(w));
		w[j].kind = TDBPF_WAKER_TASK;
		w[j].tid = (r >> 20) % 5 + 1;	/* five wakers at most */
		w[j].wakeups = 1;
		w[j].wait_ns = tid;
		assert_int_equal(tasks_add(&t, &s, w, 0), 0);
		adds[tid]++;
	}
	for (i = 0; i < t.nr; i++) {
		struct task_row *r = tasks_row(&t, i), *d;
		const struct tdbpf_wait *rw, *dw;
		__u64 n = 0;
		int nw, dn, a, b;

		rw = tasks_waits(&t, r, &nw);
		assert_true(nw >= 1 && nw <= 5 && nw <= r->w_cap);
		for (a = 0; a < nw; a++) {
			n += rw[a].wakeups;
			assert_int_equal(rw[a].wait_ns, rw[a].wakeups * r->tid);
			for (b = 0; b < a; b++)
				assert_int_not_equal(rw[a].tid, rw[b].tid);
		}
		assert_int_equal(n, adds[r->tid]);
		used += r->w_cap;
		d = tasks_get(&c, r->tid);
		assert_int_equal(tasks_copy_row(&c, d, &t, r), 0);
		dw = tasks_waits(&c, d, &dn);
		rw = tasks_waits(&t, r, &nw);
		assert_int_equal(dn, nw);
		assert_memory_equal(dw, rw, (size_t)nw * sizeof(*rw));
		assert_int_equal(d->sched.on_cpu_ns, r->sched.on_cpu_ns);
	}
	assert_int_equal(t.nr, 2000);
	assert_true(t.wait_nr <= t.wait_cap);
	assert_true(t.wait_cap <= 2 * (used + TDBPF_NR_WAITS));
	tasks_free(&t);
	tasks_free(&c);
}

static void test_index_growth(void **state)
{
	struct task_table t;
	const __u32 n = 25000;
	__u32 i;

	(void)state;
	tasks_init(&t);
	for (i = 0; i < n; i++) {
		struct tdbpf_task s;

		memset(&s, 0, sizeof(s));
		s.tid = i * 7919 + 1;	/* sparse, like real tids */
		s.sched.on_cpu_ns = i;
		assert_int_equal(tasks_add(&t, &s, NULL, 0), 0);
	}
	assert_int_equal(t.nr, n);
	assert_true(t.index.cap >= 2 * n);
	/* a second pass adds to the same rows */
	for (i = 0; i < n; i++) {
		struct tdbpf_task s;

		memset(&s, 0, sizeof(s));
		s.tid = i * 7919 + 1;
		s.sched.on_cpu_ns = 1;
		assert_int_equal(tasks_add(&t, &s, NULL, 0), 0);
	}
	assert_int_equal(t.nr, n);
	for (i = 0; i < n; i++) {
		struct task_row *r = tasks_get(&t, i * 7919 + 1);

		assert_int_equal(r->tid, i * 7919 + 1);
		assert_int_equal(r->sched.on_cpu_ns, (__u64)i + 1);
	}
	assert_int_equal(t.nr, n);
	tasks_reset(&t);
	assert_int_equal(t.nr, 0);
	assert_int_equal(tasks_get(&t, 1)->sched.on_cpu_ns, 0);
	assert_int_equal(t.nr, 1);
	tasks_free(&t);
}

static void test_fold(void **state)
{
	struct task_table in, out;
	struct tdbpf_task s;
	size_t i;
	int w = -1, p = -1, k = -1, m = -1, f = -1, lone = 0;
	__u32 tid;

	(void)state;
	tasks_init(&in);
	tasks_init(&out);
	for (tid = 11; tid <= 18; tid++) {
		char name[16];

		snprintf(name, sizeof(name), "worker-%u", tid - 10);
		s = mk(tid, 10, name, tid);
		if (tid != 12)
			s.flags = TDBPF_TASK_EXITED;
		tasks_add(&in, &s, NULL, 2);
	}
	s = mk(20, 10, "parse3", 5);
	s.flags = TDBPF_TASK_EXITED;
	tasks_add(&in, &s, NULL, 2);
	s = mk(30, 30, "mix1", 1);
	tasks_add(&in, &s, NULL, 2);
	s = mk(31, 31, "mix2", 2);
	tasks_add(&in, &s, NULL, 2);
	s = mk(40, 40, "sink", 3);
	tasks_add(&in, &s, NULL, 2);
	/* a Flink operator of three subtasks; a lone name with numbers */
	for (tid = 50; tid <= 52; tid++) {
		char name[16];

		snprintf(name, sizeof(name), "Map (%u/3)#0", tid - 49);
		s = mk(tid, 50, name, tid);
		tasks_add(&in, &s, NULL, 2);
	}
	s = mk(60, 60, "gst-launch-1.0", 1);
	tasks_add(&in, &s, NULL, 2);
	s = mk(61, 60, "G1 Conc#0", 1);
	tasks_add(&in, &s, NULL, 2);

	assert_int_equal(tasks_fold(&in, &out, 2), 0);
	assert_int_equal(out.nr, 7);
	for (i = 0; i < out.nr; i++) {
		const char *c = tasks_row(&out, i)->comm;

		if (!strcmp(c, "worker-*"))
			w = i;
		else if (!strcmp(c, "parse3"))	/* alone: left whole */
			p = i;
		else if (!strcmp(c, "Map (*/3)#0"))
			f = i;
		else if (!strcmp(c, "gst-launch-1.0") ||
			 !strcmp(c, "G1 Conc#0"))
			lone++;
		else if (!strcmp(tasks_row(&out, i)->comm, "mix*"))
			m = i;
		else if (!strcmp(tasks_row(&out, i)->comm, "sink"))
			k = i;
	}
	assert_true(w >= 0 && p >= 0 && m >= 0 && k >= 0 && f >= 0);
	assert_int_equal(lone, 2);
	assert_int_equal(tasks_row(&out, f)->nr_tasks, 3);
	assert_int_equal(tasks_row(&out, f)->pid, 50);
	assert_int_equal(tasks_row(&out, f)->sched.on_cpu_ns,
			 (50 + 1) + (51 + 1) + (52 + 1));
	/* worker-1..8: tids 11..18, base = tid: on = sum(tid + 1) */
	assert_int_equal(tasks_row(&out, w)->nr_tasks, 8);
	assert_int_equal(tasks_row(&out, w)->tid, 0);
	assert_int_equal(tasks_row(&out, w)->pid, 10);
	assert_false(tasks_row(&out, w)->exited);	/* tid 12 still alive */
	assert_int_equal(tasks_row(&out, w)->sched.on_cpu_ns, (11 + 18) * 8 / 2 + 8);
	assert_int_equal(tasks_row(&out, w)->sched.nivcsw, (11 + 18) * 8 / 2 + 8 * 5);
	assert_int_equal(tasks_row(&out, w)->sched.uncounted_ns,
			 (11 + 18) * 8 / 2 + 8 * 7);
	assert_int_equal(tasks_row(&out, w)->ctr[1].value, (11 + 18) * 8 / 2 * 10 + 8);
	assert_int_equal(tasks_row(&out, w)->ctr[1].enabled,
			 (11 + 18) * 8 / 2 * 100 + 8);
	/* one task: keeps its tid and pid, exited as it was */
	assert_int_equal(tasks_row(&out, p)->nr_tasks, 1);
	assert_int_equal(tasks_row(&out, p)->tid, 20);
	assert_int_equal(tasks_row(&out, p)->pid, 10);
	assert_true(tasks_row(&out, p)->exited);
	/* two processes under one name: no single pid */
	assert_int_equal(tasks_row(&out, m)->nr_tasks, 2);
	assert_int_equal(tasks_row(&out, m)->pid, 0);
	assert_int_equal(tasks_row(&out, m)->sched.on_cpu_ns, 2 + 3);
	assert_string_equal(tasks_row(&out, k)->comm, "sink");
	assert_int_equal(tasks_row(&out, k)->tid, 40);

	/* all exited -> exited; folding a folded table sums nr_tasks */
	for (i = 0; i < in.nr; i++)
		tasks_row(&in, i)->exited = true;
	assert_int_equal(tasks_fold(&in, &out, 2), 0);
	for (i = 0; i < out.nr; i++)
		assert_true(tasks_row(&out, i)->exited);
	{
		struct task_table again;

		tasks_init(&again);
		assert_int_equal(tasks_fold(&out, &again, 2), 0);
		assert_int_equal(again.nr, 7);
		for (i = 0; i < again.nr; i++) {
			if (!strcmp(tasks_row(&again, i)->comm, "worker-*"))
				assert_int_equal(tasks_row(&again, i)->nr_tasks, 8);
			if (!strcmp(tasks_row(&again, i)->comm, "Map (*/3)#0"))
				assert_int_equal(tasks_row(&again, i)->nr_tasks, 3);
		}
		tasks_free(&again);
	}
	tasks_free(&in);
	tasks_free(&out);
}

/*
 * Three subtasks whose comms are all "Map -> Filter (" (the kernel's 15
 * bytes) and whose whole names differ only in the subtask index fold by
 * the whole names: one row "Map -> Filter (STAR/3)#0" of three, its comm
 * the comms' join; a thread with only a comm keeps its row; the names
 * survive a diff, and two tables' rows share one interned copy.
 */
static void test_fold_whole_names(void **state)
{
	struct task_table in, out, prev, d;
	struct tdbpf_task s;
	const struct task_row *r;
	char name[32];
	__u32 tid;

	(void)state;
	tasks_init(&in);
	tasks_init(&out);
	tasks_init(&prev);
	tasks_init(&d);
	for (tid = 70; tid <= 72; tid++) {
		s = mk(tid, 69, "Map -> Filter (", tid);
		tasks_add(&in, &s, NULL, 2);
		snprintf(name, sizeof(name), "Map -> Filter (%u/3)#0", tid - 69);
		tasks_get(&in, tid)->name = names_intern(name);
	}
	s = mk(73, 69, "Window agg", 1);
	tasks_add(&in, &s, NULL, 2);
	assert_ptr_equal(names_intern("Map -> Filter (2/3)#0"),
			 tasks_find(&in, 71)->name);
	assert_string_equal(task_name(tasks_find(&in, 73)), "Window agg");
	assert_int_equal(tasks_fold(&in, &out, 2), 0);
	assert_int_equal(out.nr, 2);
	r = tasks_row(&out, 0);
	assert_string_equal(r->name, "Map -> Filter (*/3)#0");
	assert_string_equal(r->comm, "Map -> Filter (");
	assert_int_equal(r->nr_tasks, 3);
	assert_int_equal(r->tid, 0);
	assert_int_equal(r->sched.on_cpu_ns, (70 + 1) + (71 + 1) + (72 + 1));
	assert_null(tasks_row(&out, 1)->name);
	assert_string_equal(task_name(tasks_row(&out, 1)), "Window agg");
	/* an interval's rows keep the names */
	assert_int_equal(tasks_diff(&in, &prev, &d, 2), 0);
	assert_string_equal(task_name(tasks_find(&d, 72)),
			    "Map -> Filter (3/3)#0");
	tasks_free(&in);
	tasks_free(&out);
	tasks_free(&prev);
	tasks_free(&d);
}

/*
 * A replayed file's rows say how many tasks each folds, whatever they
 * say: folded again, the count stops at INT_MAX rather than wrapping
 * (the replay fuzzer's find: 2147483647 + 1).
 */
static void test_fold_count_saturates(void **state)
{
	struct task_table in, out;
	struct tdbpf_task s;

	(void)state;
	tasks_init(&in);
	tasks_init(&out);
	s = mk(80, 79, "worker", 1);
	tasks_add(&in, &s, NULL, 2);
	s = mk(81, 79, "worker", 1);
	tasks_add(&in, &s, NULL, 2);
	tasks_find(&in, 80)->nr_tasks = INT_MAX;
	assert_int_equal(tasks_fold(&in, &out, 2), 0);
	assert_int_equal(out.nr, 1);
	assert_int_equal(tasks_row(&out, 0)->nr_tasks, INT_MAX);
	tasks_free(&in);
	tasks_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fold_name),
		cmocka_unit_test(test_fold_count_saturates),
		cmocka_unit_test(test_fold_name_short_buffer),
		cmocka_unit_test(test_fold_join),
		cmocka_unit_test(test_add_sums),
		cmocka_unit_test(test_add_comm_and_exit),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_clear_then_merge),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_sub_in_place),
		cmocka_unit_test(test_waits_compact),
		cmocka_unit_test(test_index_growth),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_fold_whole_names),
	};

	return cmocka_run_group_tests_name("tasks", tests, NULL, NULL);
}
