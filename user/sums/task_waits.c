// SPDX-License-Identifier: GPL-2.0
/*
 * The waker slots of a task table's rows: one array per table, in which
 * each row has a run of slots (w_at, w_cap) sized to what it uses, 2, 4,
 * 8 or TDBPF_NR_WAITS. A row that outgrows its run gets a new one at the
 * end; the runs left behind are dropped when the array is rebuilt, which
 * is when it is full: so it holds at most about twice the slots in use,
 * and a row's slots move only when it gains a waker.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sums/tasks.h"
#include "sums/waits.h"

#define WAITS_MIN_CAP 64

/* Rebuilt with the rows' runs only, and room for @extra slots more. */
static int waits_rebuild(struct task_table *t, size_t extra)
{
	size_t live = 0, cap, at = 0, i;
	struct tdbpf_wait *w;

	for (i = 0; i < t->nr; i++)
		live += tasks_row(t, i)->w_cap;
	cap = 2 * (live + extra);
	if (cap < WAITS_MIN_CAP)
		cap = WAITS_MIN_CAP;
	w = malloc(cap * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		struct task_row *r = tasks_row(t, i);

		if (!r->w_cap)
			continue;
		memcpy(w + at, t->wait + r->w_at, r->w_nr * sizeof(*w));
		r->w_at = (__u32)at;
		at += r->w_cap;
	}
	free(t->wait);
	t->wait = w;
	t->wait_nr = at;
	t->wait_cap = cap;
	return 0;
}

/* Room in row @r of @t for @need slots (at most TDBPF_NR_WAITS). */
static int waits_room(struct task_table *t, struct task_row *r, int need)
{
	int cap = r->w_cap ? r->w_cap : 2;

	if (need <= r->w_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (t->wait_nr + (size_t)cap > t->wait_cap &&
	    waits_rebuild(t, (size_t)cap))
		return -ENOMEM;
	if (r->w_nr)
		memcpy(t->wait + t->wait_nr, t->wait + r->w_at,
		       r->w_nr * sizeof(*t->wait));
	r->w_at = (__u32)t->wait_nr;
	r->w_cap = (__u16)cap;
	t->wait_nr += (size_t)cap;
	return 0;
}

int tasks_add_waits(struct task_table *t, struct task_row *r,
		    const struct tdbpf_wait *w, int n)
{
	int nr = r->w_nr, need;

	if (!t->waits || !n)
		return 0;
	/*
	 * The list after the add is at most @nr + @n long: with that much
	 * room already, no count first (the usual case at a collect: a
	 * waker or two more in a run of 2 to 16)
	 */
	if (nr + n > r->w_cap) {
		/* a row with no slots yet may be in a table with none */
		need = waits_need(nr ? t->wait + r->w_at : NULL, nr, w, n);
		if (!need)
			return 0;	/* nothing to add, nowhere to add it */
		if (waits_room(t, r, need))
			return -ENOMEM;
	}
	waits_add(t->wait + r->w_at, &nr, w, n);
	r->w_nr = (__u16)nr;
	return 0;
}

int tasks_copy_row(struct task_table *dt, struct task_row *d,
		   const struct task_table *st, const struct task_row *s)
{
	int nr_ev = dt->nr_ev < st->nr_ev ? dt->nr_ev : st->nr_ev, n;
	const struct tdbpf_wait *w = tasks_waits(st, s, &n);
	__u32 at = d->w_at;
	__u16 cap = d->w_cap;

	memcpy(d, s,
	       offsetof(struct task_row, ctr) +
		       (size_t)nr_ev * sizeof(struct tdbpf_count));
	/* its own run of slots, if it had one, not @s's */
	d->w_at = at;
	d->w_cap = cap;
	d->w_nr = 0;
	return tasks_add_waits(dt, d, w, n);
}

/* Row @d of @out: the slots of @c (of @cur) less @p's (of @prev). */
int tasks_sub_waits(struct task_table *out, struct task_row *d,
		    const struct task_table *cur, const struct task_row *c,
		    const struct task_table *prev, const struct task_row *p)
{
	int n, pn = 0;
	const struct tdbpf_wait *cw = tasks_waits(cur, c, &n);
	const struct tdbpf_wait *pw =
		p && prev ? tasks_waits(prev, p, &pn) : NULL;

	if (!out->waits)
		return 0;
	if (d != c) {
		d->w_nr = 0;
		if (waits_room(out, d, n))
			return -ENOMEM;
	}
	if (n)
		waits_sub(out->wait + d->w_at, cw, n, pw, pn);
	d->w_nr = (__u16)n;
	return 0;
}
