// SPDX-License-Identifier: GPL-2.0
/* Sampled waits as shares of exact totals (wait_share.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sums/wait_share.h"
#include "sums/waits.h"

void wait_share_init(struct wait_share *s)
{
	memset(s, 0, sizeof(*s));
	tasks_init(&s->est);
	/* rows of slots alone: no counters */
	tasks_set_layout(&s->est, 0, true);
}

void wait_share_free(struct wait_share *s)
{
	tasks_free(&s->est);
}

static const struct tdbpf_wait *find_slot(const struct tdbpf_wait *w, int n,
					  const struct tdbpf_wait *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (same_waker(&w[i], key))
			return &w[i];
	return NULL;
}

/* @part of @whole's @total, rounded down: the parts never sum past it */
static __u64 share(__u64 total, __u64 part, __u64 whole)
{
	return whole ? (__u64)((unsigned __int128)total * part / whole) : 0;
}

/*
 * One group of slots (waits, or holds) of a row: the exact sum and how
 * much of it was split so far; the exact count likewise, or none
 * (cmark NULL); the whole the sum is part of and what it was at the last
 * split, or none (wmark NULL).
 */
struct split {
	__u64 total, *mark;
	__u64 count, *cmark;
	__u64 whole, *wmark;
};

/*
 * A wait is seen when its wakeup falls in a window, with the chance 1 /
 * @scale whatever its length, and is seen whole: @scale times the waits
 * seen of a waker is its estimate (Horvitz-Thompson). Not a share of the
 * task's blocked time by the proportions seen: a long wait that no
 * window saw end would then go to the wakers of the short ones seen (a
 * JVM thread woken at start-up and blocked since, seconds to whoever
 * woke it then). @w: the waits seen so far, @est: the estimates so far.
 * What is new is @sp's total since its mark: an interval gets no more
 * than its own time, the estimates shrunk pro rata to fit it, and what
 * they fell short carries to the next; what no estimate takes stays
 * unseen.
 */
static void split_group(struct tdbpf_wait *inc, const struct tdbpf_wait *w,
			const struct tdbpf_wait *est, int en, int n,
			bool holds, struct split sp, __u64 scale)
{
	__u64 dt = sub_sat(sp.total, *sp.mark), dc = 0, want = 0, wantc = 0;
	const struct tdbpf_wait *e;
	int j;

	/*
	 * Waits that end now may have begun in an interval before (open
	 * then): the interval's own blocked time bounds it all the same,
	 * and what that leaves is split later
	 */
	if (sp.wmark) {
		if (dt > sub_sat(sp.whole, *sp.wmark))
			dt = sub_sat(sp.whole, *sp.wmark);
		*sp.wmark = sp.whole;
	}
	*sp.mark += dt;
	if (sp.cmark) {
		dc = sub_sat(sp.count, *sp.cmark);
		*sp.cmark += dc;
	}
	for (j = 0; j < n; j++) {
		if (TDBPF_KIND_HOLDS(w[j].kind) != holds)
			continue;
		e = est ? find_slot(est, en, &w[j]) : NULL;
		inc[j].wait_ns = sub_sat(w[j].wait_ns * scale,
					 e ? e->wait_ns : 0);
		inc[j].wakeups = sub_sat(w[j].wakeups * scale,
					 e ? e->wakeups : 0);
		want += inc[j].wait_ns;
		wantc += inc[j].wakeups;
	}
	for (j = 0; j < n; j++) {
		if (TDBPF_KIND_HOLDS(w[j].kind) != holds)
			continue;
		if (want > dt)
			inc[j].wait_ns = share(dt, inc[j].wait_ns, want);
		/* counts with no exact total (holds') are not bounded */
		if (sp.cmark && wantc > dc)
			inc[j].wakeups = share(dc, inc[j].wakeups, wantc);
	}
}

/*
 * Blocked time is taken to now for a task off the CPU (tracer_collect.c)
 * and given back to the run queue at its switch-in if it was woken
 * meanwhile unseen: the whole can shrink a little below what was split.
 * The report then shows the estimates shrunk with it, never past it.
 */
static void clamp(struct tdbpf_wait *w, int n, bool holds, __u64 whole)
{
	__u64 sum = 0;
	int j;

	for (j = 0; j < n; j++)
		if (TDBPF_KIND_HOLDS(w[j].kind) == holds)
			sum += w[j].wait_ns;
	if (sum <= whole)
		return;
	for (j = 0; j < n; j++)
		if (TDBPF_KIND_HOLDS(w[j].kind) == holds)
			w[j].wait_ns = share(whole, w[j].wait_ns, sum);
}

/*
 * The voluntary switches a wakeup ended: the kernel counts a task's last
 * switch, to TASK_DEAD, in nvcsw too, and nothing wakes it.
 */
static __u64 woken_switches(const struct task_row *r)
{
	__u64 dead = r->exited ? (__u64)r->nr_tasks : 0;

	return sub_sat(r->sched.nvcsw, dead);
}

/*
 * Split row @r's new exact time by its waits seen new. A row's list is
 * not BPF's 16 slots: a folded row keeps every holder its threads had.
 */
static int split_row(struct wait_share *s, struct task_table *t,
		     struct task_row *r, struct task_row *e, __u64 scale)
{
	const struct tdbpf_wait *ew;
	struct tdbpf_wait *w, *inc;
	int n, en = 0, j, err;

	w = tasks_waits(t, r, &n);
	inc = calloc((size_t)n + 1, sizeof(*inc));
	if (!inc)
		return -ENOMEM;
	for (j = 0; j < n; j++) {
		inc[j] = w[j];
		inc[j].wakeups = inc[j].wait_ns = 0;
	}
	ew = tasks_waits(&s->est, e, &en);
	/*
	 * Only waits that ended: one still open has no waker yet. It is
	 * estimated once it ends, if a window saw its end.
	 */
	split_group(inc, w, ew, en, n, false,
		    (struct split){ sub_sat(r->sched.off_cpu_ns,
					    r->sched.open_wait_ns),
				    &e->sched.off_cpu_ns, woken_switches(r),
				    &e->sched.nvcsw, r->sched.off_cpu_ns,
				    &e->sched.open_wait_ns },
		    scale);
	split_group(inc, w, ew, en, n, true,
		    (struct split){ r->sched.runq_wait_ns,
				    &e->sched.runq_wait_ns, 0, NULL, 0, NULL },
		    scale);
	err = tasks_add_waits(&s->est, e, inc, n) ? -ENOMEM : 0;
	free(inc);
	return err;
}

/* Row @r: split if @split, then its waits seen become the estimates. */
static int apply_row(struct wait_share *s, struct task_table *t,
		     struct task_row *r, __u64 scale, bool split)
{
	struct task_row *e = tasks_get(&s->est, r->tid);
	const struct tdbpf_wait *ew, *p1;
	struct tdbpf_wait *w;
	int n, en, j;

	if (!e)
		return -ENOMEM;
	if (split && split_row(s, t, r, e, scale))
		return -ENOMEM;
	w = tasks_waits(t, r, &n);
	ew = tasks_waits(&s->est, e, &en);
	for (j = 0; j < n; j++) {
		p1 = ew ? find_slot(ew, en, &w[j]) : NULL;
		w[j].wakeups = p1 ? p1->wakeups : 0;
		w[j].wait_ns = p1 ? p1->wait_ns : 0;
	}
	clamp(w, n, false, r->sched.off_cpu_ns);
	clamp(w, n, true, r->sched.runq_wait_ns);
	return 0;
}

/*
 * @x less its rows for tasks no longer in @t (threads folded by name
 * into a row of their own, whose estimates go on there): a run that
 * serves /metrics for days must not keep a row per thread that lived.
 */
static int prune(struct task_table *x, const struct task_table *t)
{
	struct task_table y;
	struct task_row *d;
	size_t i;

	tasks_init(&y);
	tasks_layout_like(&y, x);
	for (i = 0; i < x->nr; i++) {
		const struct task_row *r = tasks_row(x, i);

		if (!tasks_find(t, r->tid))
			continue;
		d = tasks_get(&y, r->tid);
		if (!d || tasks_copy_row(&y, d, x, r)) {
			tasks_free(&y);
			return -ENOMEM;
		}
	}
	tasks_free(x);
	*x = y;
	return 0;
}

int wait_share_apply(struct wait_share *s, struct task_table *t,
		     __u64 scale, __u64 window_ns, bool defer)
{
	/*
	 * A report's collect splits what is new, so that an interval's
	 * waits are of its own time. A scrape's (@defer) has no interval
	 * to keep: with no window since the last split its new time waits
	 * for the next window's sample, or scrapes every 50 ms against a
	 * window every 500 ms would leave nine in ten intervals unseen.
	 */
	bool split = !defer || window_ns != s->window_ns;
	__u64 seen = 0;
	size_t i;
	int j, n, err;

	for (i = 0; i < t->nr; i++) {
		struct task_row *r = tasks_row(t, i);
		const struct tdbpf_wait *w = tasks_waits(t, r, &n);

		for (j = 0; j < n; j++)
			if (!TDBPF_KIND_HOLDS(w[j].kind))
				seen += w[j].wakeups;
		err = apply_row(s, t, r, scale, split);
		if (err)
			return err;
	}
	s->wakeups_seen = seen;
	if (split)
		s->window_ns = window_ns;
	/* now and then, not every collect: a copy of both tables */
	if (s->est.nr > 2 * t->nr + 64 &&
	    prune(&s->est, t))
		return -ENOMEM;
	return 0;
}
