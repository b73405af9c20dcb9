// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus series for --listen: each scrape's task table is turned into
 * increments since the previous scrape, per tid, and each increment is
 * added to the series of the task's labels at that moment. Series only
 * ever grow, whatever the tasks do between scrapes (exit, rename, tid
 * reuse, a source that drops them), and their number is bounded: tasks
 * beyond --listen-max-series go to one `other` series.
 *
 * Counters are scaled per increment (value x enabled / running of the
 * increment), as -I scales each interval: the scaled estimate of a whole
 * life can shrink when a multiplexed group catches up, an increment
 * cannot. TMA nodes likewise: each series' increment is decoded and its
 * node fractions are added as slot counts (fraction x the increment's
 * slots), so that sum(rate(node)) / sum(rate(slots)) over any set of
 * series and hosts is the slot-weighted fraction.
 *
 * This file is the state (made and freed whole here) and its update;
 * which label set a task goes to is prom_names.c's, the series table
 * prom_series.c's, the waits' series prom_waits.c's, the spans'
 * prom_spans.c's (prom_table.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "analysis/scale.h"
#include "model/tma.h"
#include "exporter/prom_table.h"
#include "sums/archive.h"

/* Add a series' increment (delta[]) to its scaled counts and TMA slots. */
static void series_finish(const struct prom_state *st, struct prom_series *s)
{
	const struct event_plan *plan = st->plan;
	const struct model *m = plan->model;
	double sc[TDBPF_MAX_EVENTS], w, v;
	struct tma_result res;
	int i, nn = prom_nr_nodes(st);

	/* per increment, as -I scales each interval */
	scale_slots(plan, s->delta, sc);
	for (i = 0; i < plan->nr; i++) {
		s->raw[i].value += s->delta[i].value;
		s->raw[i].enabled += s->delta[i].enabled;
		s->raw[i].running += s->delta[i].running;
		/* enabled but never running: nothing to add (coverage) */
		if (isfinite(sc[i]))
			s->scaled[i] += sc[i];
	}
	if (!nn || st->slots_slot < 0)
		return;
	w = sc[st->slots_slot] * st->slots_per_unit;
	if (!isfinite(w) || w <= 0)
		return;
	tma_decode_plan(plan, sc, plan->level, &res);
	for (i = 0; i < nn; i++) {
		v = res.val[i];
		if (m->nodes[i].level > plan->level || !isfinite(v))
			continue;
		/*
		 * A node can leave 0-1 when its inputs come from different
		 * multiplexed groups; a counter cannot go back, so an
		 * increment is clamped as the table clamps for display.
		 */
		s->tma[i] += (v < 0 ? 0 : v > 1 ? 1 : v) * w;
	}
	s->slots += w;
}

static void series_begin(const struct prom_state *st, struct prom_series *s)
{
	s->live = false;
	s->changed = false;
	s->threads = 0;
	memset(s->delta, 0, (size_t)st->plan->nr * sizeof(*s->delta));
}

int prom_init(struct prom_state *st, const struct event_plan *plan,
	      unsigned int labels, int max_series)
{
	const struct model *m = plan->model;
	int i, ev;

	memset(st, 0, sizeof(*st));
	st->plan = plan;
	st->labels = labels;
	if (st->labels & LISTEN_LABEL_TID)
		st->labels |= LISTEN_LABEL_PID;
	st->max_series = max_series > 0 ? max_series : LISTEN_DEFAULT_MAX_SERIES;
	tasks_init(&st->last);
	tasks_init(&st->next);
	tasks_set_events(&st->last, plan->nr);
	tasks_set_events(&st->next, plan->nr);
	spans_init(&st->span_last);
	tasks_init(&st->wait_last);
	tasks_init(&st->wait_next);
	tasks_set_layout(&st->wait_last, 0, true);
	tasks_set_layout(&st->wait_next, 0, true);
	/*
	 * The weight of TMA nodes: the increment's slots. The model's slots
	 * event where it counts one (EV_SLOTS: Intel's TOPDOWN.SLOTS); else
	 * its cycles event (the IPC column's) times the slots per cycle it
	 * declares, 4 where it declares none: the width of perf's SLOTS =
	 * 4 * CLKS on the Intel cores before Ice Lake. A model with neither
	 * event gets no TMA families.
	 */
	st->slots_slot = st->clk_slot = -1;
	st->slots_per_unit = 1;
	for (i = 0; m && i < plan->nr; i++) {
		ev = plan->ev[i];
		if (ev < 0 || ev >= m->nr_events)
			continue;
		if (m->events[ev].kind == EV_SLOTS)
			st->slots_slot = i;
		if (m->ipc_cycles &&
		    !strcasecmp(m->events[ev].name, m->ipc_cycles))
			st->clk_slot = i;
	}
	if (st->slots_slot < 0 && st->clk_slot >= 0) {
		st->slots_slot = st->clk_slot;
		st->slots_per_unit = m->slots > 0 ? m->slots : 4;
	}
	return prom_series_init(st);
}

void prom_free(struct prom_state *st)
{
	prom_series_free(st);
	tasks_free(&st->last);
	tasks_free(&st->next);
	prom_waits_free(st);
	prom_spans_free(st);
	prom_names_free(st->pcomm);
	memset(st, 0, sizeof(*st));
}

/* A task's increment @ds, @d into its series @s. */
static void series_add(struct prom_series *s, const struct tdbpf_sched *ds,
		       const struct tdbpf_count *d, int nr, bool any)
{
	sched_add(&s->sched, ds);
	counts_add(s->delta, d, nr);
	s->changed |= any;
}

/*
 * Task @r of @cur: what it counted since the last update, into its
 * series, and the base of the next update. 0 or -ENOMEM.
 */
static int prom_task(struct prom_state *st, const struct task_table *cur,
		     const struct task_row *r)
{
	int nr = st->plan->nr;
	struct tdbpf_count d[TDBPF_MAX_EVENTS];
	struct task_row *p, *n;
	struct prom_series *s;
	struct tdbpf_sched ds;
	struct prom_key k;
	bool any, was_exited;

	n = tasks_get(&st->next, r->tid);
	p = tasks_get(&st->last, r->tid);	/* zeroed when new */
	if (!n || !p)
		return -ENOMEM;
	any = task_increment(r, p, st->last.row_size, nr, &ds, d);
	was_exited = p->exited;
	memcpy(n, r, st->next.row_size);
	/*
	 * Off-CPU time includes a run-queue wait still in progress; when
	 * it ends it moves to run-queue wait. Remember the most counted,
	 * so the series never gives it back.
	 */
	if (p->sched.off_cpu_ns > r->sched.off_cpu_ns)
		n->sched.off_cpu_ns = p->sched.off_cpu_ns;
	if (!any && (r->exited || !r->sched.on_cpu_ns))
		return 0;	/* nothing new, nothing alive to show */

	prom_key_of(st, r, &k);
	s = prom_series_get(st, &k);
	if (!s)
		return -ENOMEM;
	if (s == st->other)
		st->overflow_tasks++;
	if (!r->exited) {
		s->live = true;
		s->threads++;
	} else if (!was_exited) {
		s->exited++;
	}
	series_add(s, &ds, d, nr, any);
	if (cur->waits && prom_waits_update(st, cur, r, s))
		return -ENOMEM;
	return prom_spans_update(st, r, s);
}

int prom_update(struct prom_state *st, const struct task_table *cur)
{
	struct task_table tmp;
	int nr = st->plan->nr, i, e;
	size_t r_i;

	if (cur->nr_ev < nr || st->last.nr_ev < nr)
		return -EINVAL;
	e = prom_names_update(st, cur);
	if (e)
		return e;
	for (i = 0; i < st->nr_series; i++)
		series_begin(st, st->series[i]);
	if (st->other)
		series_begin(st, st->other);
	st->overflow_tasks = 0;
	tasks_reset(&st->next);
	tasks_reset(&st->wait_next);
	e = prom_spans_begin(st);
	if (e)
		return e;

	for (r_i = 0; r_i < cur->nr; r_i++) {
		const struct task_row *r = tasks_row(cur, r_i);

		/* exited tasks folded by name: counted before they were */
		if (archive_is_folded(r))
			continue;
		e = prom_task(st, cur, r);
		if (e)
			return e;
	}
	for (i = 0; i < st->nr_series; i++)
		if (st->series[i]->changed)
			series_finish(st, st->series[i]);
	if (st->other && st->other->changed)
		series_finish(st, st->other);

	/* what was counted becomes the base of the next update */
	tmp = st->last;
	st->last = st->next;
	st->next = tmp;
	tmp = st->wait_last;
	st->wait_last = st->wait_next;
	st->wait_next = tmp;
	return prom_series_expire(st);
}
