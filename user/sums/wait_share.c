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
	tasks_init(&s->seen);
	tasks_init(&s->est);
	/* rows of slots alone: no counters */
	tasks_set_layout(&s->seen, 0, true);
	tasks_set_layout(&s->est, 0, true);
}

void wait_share_free(struct wait_share *s)
{
	tasks_free(&s->seen);
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
 * What is new for one group of slots (waits, or holds): @d's seen
 * deltas split *@mark's new part of @total, and @dn's of @count.
 */
struct split {
	__u64 total, *mark;	/* the exact sum, and how much is split */
	__u64 count, *cmark;	/* the exact count, or none (cmark NULL) */
};

static void split_group(struct tdbpf_wait *inc, const struct tdbpf_wait *d,
			int n, bool holds, struct split sp, __u64 scale)
{
	__u64 ns = 0, nw = 0, dt = sub_sat(sp.total, *sp.mark), dc = 0;
	int j;

	for (j = 0; j < n; j++)
		if (TDBPF_KIND_HOLDS(d[j].kind) == holds) {
			ns += d[j].wait_ns;
			nw += d[j].wakeups;
		}
	/*
	 * Split or not, the new time is passed: time no window saw ended
	 * stays unseen, and an interval never gets more than its own
	 */
	*sp.mark += dt;
	if (sp.cmark) {
		dc = sub_sat(sp.count, *sp.cmark);
		*sp.cmark += dc;
	}
	if (!ns)
		return;
	for (j = 0; j < n; j++) {
		if (TDBPF_KIND_HOLDS(d[j].kind) != holds)
			continue;
		inc[j].wait_ns = share(dt, d[j].wait_ns, ns);
		/* counts with no exact total: the windows' share inverted */
		inc[j].wakeups = sp.cmark ? share(dc, d[j].wakeups, nw) :
					    d[j].wakeups * scale;
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
	const struct tdbpf_wait *pw = NULL, *p1;
	struct task_row *p = tasks_find(&s->seen, r->tid);
	struct tdbpf_wait *w, *d, *inc;
	int n, pn = 0, j, err = -ENOMEM;

	w = tasks_waits(t, r, &n);
	d = calloc((size_t)n * 2 + 1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	inc = d + n;
	if (p)
		pw = tasks_waits(&s->seen, p, &pn);
	for (j = 0; j < n; j++) {
		d[j] = w[j];
		p1 = pw ? find_slot(pw, pn, &w[j]) : NULL;
		d[j].wakeups = sub_sat(w[j].wakeups, p1 ? p1->wakeups : 0);
		d[j].wait_ns = sub_sat(w[j].wait_ns, p1 ? p1->wait_ns : 0);
		inc[j] = w[j];
		inc[j].wakeups = inc[j].wait_ns = 0;
	}
	split_group(inc, d, n, false,
		    (struct split){ r->sched.off_cpu_ns, &e->sched.off_cpu_ns,
				    woken_switches(r), &e->sched.nvcsw },
		    scale);
	split_group(inc, d, n, true,
		    (struct split){ r->sched.runq_wait_ns,
				    &e->sched.runq_wait_ns, 0, NULL },
		    scale);
	if (tasks_add_waits(&s->est, e, inc, n))
		goto out;
	if (!p && !(p = tasks_get(&s->seen, r->tid)))
		goto out;
	err = tasks_copy_row(&s->seen, p, t, r) ? -ENOMEM : 0;
out:
	free(d);
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
	    (prune(&s->est, t) || prune(&s->seen, t)))
		return -ENOMEM;
	return 0;
}
