// SPDX-License-Identifier: GPL-2.0
/*
 * Event packing: choose the events that TMA levels 1..L need with the given
 * SMT state and place them in counter groups the PMU can schedule.
 *
 * Group 0 holds what lives on fixed counters: TOPDOWN.SLOTS (leader) and the
 * topdown-* metric events on Ice Lake / Sapphire Rapids (the kernel only
 * accepts metric events in a group led by slots), plus INST_RETIRED.ANY and
 * CPU_CLK_UNHALTED.THREAD. The general-purpose events follow in as few
 * groups of at most @gp as the counter restrictions allow: for G groups the
 * events are matched to the G * gp (group, counter) slots by augmenting
 * paths (a bipartite matching), and G grows from ceil(n / gp) until every
 * event has a slot. A perfect matching proves each group has a valid
 * counter assignment; it is kept in gp_idx[].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "model/model.h"
#include "support/error.h"

/* (group, counter) slots: groups x at most 8 GP counters */
#define MAX_SLOTS	(MODEL_MAX_GROUPS * 8)

struct matcher {
	const struct model *m;
	const int *evs;		/* model event index per GP event */
	int nr;
	int gp;
	int groups;
	int owner[MAX_SLOTS];	/* GP event (position in evs) per slot */
	int slot[MODEL_MAX_EVENTS];
	bool seen[MAX_SLOTS];
};

/*
 * GP counters an event may use: the model's mask is the kernel's (an
 * unrestricted event says 0xff), cut to the counters this thread has.
 */
static unsigned int ev_mask(const struct model_event *e, int gp)
{
	return e->counters & ((1u << gp) - 1);
}

static bool can_use(const struct matcher *mt, int i, int s)
{
	const struct model_event *e = &mt->m->events[mt->evs[i]];

	return (ev_mask(e, mt->gp) >> (s % mt->gp)) & 1;
}

/*
 * Kuhn's augmenting path. Free slots are preferred to displacing anyone,
 * and an event that is displaced looks first in its own group: events are
 * offered in level order, so level-1 events fill the first groups and are
 * moved only to another counter when a restricted event needs theirs.
 */
static bool augment(struct matcher *mt, int i, int home)
{
	int k, s, nslots = mt->groups * mt->gp;

	for (k = 0; k < nslots; k++) {
		s = (home * mt->gp + k) % nslots;
		if (mt->owner[s] < 0 && !mt->seen[s] && can_use(mt, i, s)) {
			mt->seen[s] = true;
			mt->owner[s] = i;
			mt->slot[i] = s;
			return true;
		}
	}
	for (k = 0; k < nslots; k++) {
		s = (home * mt->gp + k) % nslots;
		if (mt->seen[s] || !can_use(mt, i, s))
			continue;
		mt->seen[s] = true;
		if (augment(mt, mt->owner[s], s / mt->gp)) {
			mt->owner[s] = i;
			mt->slot[i] = s;
			return true;
		}
	}
	return false;
}

static bool match_all(struct matcher *mt)
{
	int i;

	for (i = 0; i < mt->groups * mt->gp; i++)
		mt->owner[i] = -1;
	for (i = 0; i < mt->nr; i++) {
		memset(mt->seen, 0, sizeof(mt->seen));
		if (!augment(mt, i, 0))
			return false;
	}
	return true;
}

static bool needed(const struct model_event *e, int level, bool smt)
{
	if (e->kind != EV_SW && e->level > level)
		return false;
	switch (e->need) {
	case NEED_ALWAYS:
		return true;
	case NEED_SMT_ON:
		return smt;
	case NEED_SMT_OFF:
		return !smt;
	default:
		return false;
	}
}

static int popcount8(unsigned int v)
{
	return __builtin_popcount(v & 0xff);
}

/*
 * GP events: level first (level-1 groups come first), then the most
 * restricted, then table order.
 */
static int gp_cmp(const void *a, const void *b, void *arg)
{
	const struct model *m = arg;
	const struct model_event *x = &m->events[*(const int *)a];
	const struct model_event *y = &m->events[*(const int *)b];

	if (x->level != y->level)
		return x->level - y->level;
	if (popcount8(x->counters) != popcount8(y->counters))
		return popcount8(x->counters) - popcount8(y->counters);
	return *(const int *)a - *(const int *)b;
}

static int add_slot(struct event_plan *p, int ev, int group, int gp_idx,
		    char *err, size_t errlen)
{
	if (p->nr >= TDBPF_MAX_EVENTS) {
		error_set(err, errlen, "too many events: tdbpf can program at most %d counters per CPU",
			 TDBPF_MAX_EVENTS);
		return -1;
	}
	if (group >= p->nr_groups) {
		p->nr_groups = group + 1;
		p->leader[group] = p->nr;
	}
	p->ev[p->nr] = ev;
	p->evd[p->nr] = &p->model->events[ev];
	p->group[p->nr] = group;
	p->gp_idx[p->nr] = gp_idx;
	p->nr++;
	return 0;
}

/*
 * Counters first, the task's own accounting after them, then the events
 * this machine cannot count (-e's <not supported>), each kind in its
 * order; group numbers follow the slots and each leader is its group's
 * first slot. The BPF program reads slots 0..nr_counters-1 only.
 */
static void plan_finish(struct event_plan *p)
{
	struct event_plan q = *p;
	int map[MODEL_MAX_GROUPS];
	int k, s, n = 0, g;

	for (g = 0; g < MODEL_MAX_GROUPS; g++)
		map[g] = -1;
	p->nr_groups = 0;
	p->nr_counters = 0;
	for (k = 0; k < 3; k++) {
		for (s = 0; s < q.nr; s++) {
			bool task = q.evd[s]->kind == EV_TASK;
			bool unsup = q.evd[s]->kind == EV_UNSUP;

			if ((unsup ? 2 : task ? 1 : 0) != k)
				continue;
			g = q.group[s];
			/* a group of its own: nothing is scheduled with it */
			if (unsup) {
				p->leader[p->nr_groups] = n;
				g = p->nr_groups++;
			} else if (map[g] < 0) {
				map[g] = p->nr_groups++;
				p->leader[map[g]] = n;
			}
			p->ev[n] = q.ev[s];
			p->evd[n] = q.evd[s];
			p->gp_idx[n] = q.gp_idx[s];
			p->group[n] = unsup ? g : map[g];
			n++;
			if (!task && !unsup)
				p->nr_counters = n;
		}
	}
}

void plan_display_order(const struct event_plan *p, int *order)
{
	int k, s, n = 0;

	for (k = 0; k < 2; k++)
		for (s = 0; s < p->nr && s < TDBPF_MAX_EVENTS; s++)
			if ((p->ev[s] < 0) == (k == 1))
				order[n++] = s;
}

int plan_add_events(struct event_plan *p, const struct model_event *ev,
		    const int *group, int nr, char *err, size_t errlen)
{
	int i, k, base = p->nr_groups, last = -1, g = base - 1;

	for (i = 0; i < nr; i++) {
		/* a report names each counter once */
		for (k = 0; k < p->nr; k++)
			if (!strcasecmp(p->evd[k]->name, ev[i].name))
				break;
		if (k < p->nr) {
			error_set(err, errlen, "event '%s' is counted by the %s model already; drop it from -e, or drop --model to count only the -e events",
				 ev[i].name,
				 p->model ? p->model->name : "(none)");
			return -1;
		}
		if (p->nr >= TDBPF_MAX_EVENTS || g + 1 >= MODEL_MAX_GROUPS) {
			error_set(err, errlen, "too many events: tdbpf can program at most %d counters per CPU, the model's included",
				 TDBPF_MAX_EVENTS);
			return -1;
		}
		if (group[i] != last) {
			last = group[i];
			g++;
			p->leader[g] = p->nr;
			p->nr_groups = g + 1;
		}
		p->ev[p->nr] = -1;
		p->evd[p->nr] = &ev[i];
		p->group[p->nr] = g;
		p->gp_idx[p->nr] = -1;
		p->nr++;
	}
	plan_finish(p);
	return 0;
}

static int plan_software(const struct model *m, struct event_plan *p,
			 char *err, size_t errlen)
{
	int i;

	if (m->nr_events > GROUP_MAX_EVENTS) {
		error_set(err, errlen, "model %s: %d events exceed a group of %d",
			 m->name, m->nr_events, GROUP_MAX_EVENTS);
		return -1;
	}
	/* table order: cpu-clock is first and leads */
	for (i = 0; i < m->nr_events; i++)
		if (needed(&m->events[i], 0, p->smt) &&
		    add_slot(p, i, 0, -1, err, errlen))
			return -1;
	return 0;
}

/* Fixed-counter group: SLOTS, metric events, then fixed 0, 1, 2. */
static int plan_fixed(const struct model *m, struct event_plan *p,
		      char *err, size_t errlen)
{
	static const enum ev_kind order[] = { EV_SLOTS, EV_METRIC, EV_FIXED };
	int k, i, f, n = 0;

	for (k = 0; k < 3; k++) {
		for (f = 0; f < 8; f++) {
			for (i = 0; i < m->nr_events; i++) {
				const struct model_event *e = &m->events[i];

				if (e->kind != order[k] ||
				    !needed(e, p->level, p->smt))
					continue;
				if (e->kind == EV_FIXED && e->fixed != f)
					continue;
				if (e->kind != EV_FIXED && f)
					continue;
				if (add_slot(p, i, 0, -1, err, errlen))
					return -1;
				n++;
			}
		}
	}
	if (n > GROUP_MAX_EVENTS) {
		error_set(err, errlen, "model %s: fixed-counter group of %d events",
			 m->name, n);
		return -1;
	}
	return 0;
}

/*
 * The GP events levels 1..@level need with @smt into @evs, by gp_cmp().
 * Their number, or -1 with @err.
 */
static int gp_events(const struct event_plan *p, int *evs, char *err,
		     size_t errlen)
{
	const struct model *m = p->model;
	int nr = 0, i;

	for (i = 0; i < m->nr_events && i < MODEL_MAX_EVENTS; i++) {
		const struct model_event *e = &m->events[i];

		if (e->kind != EV_GP || !needed(e, p->level, p->smt))
			continue;
		if (!ev_mask(e, p->gp)) {
			error_set(err, errlen, "model %s: %s can only count on counters 0x%x, but only %d are available",
				 m->name, e->name, e->counters, p->gp);
			return -1;
		}
		evs[nr++] = i;
	}
	if (p->nr + nr > TDBPF_MAX_EVENTS) {
		error_set(err, errlen, "model %s level %d needs %d counters, more than the %d tdbpf can program; use a lower level",
			 m->name, p->level, p->nr + nr, TDBPF_MAX_EVENTS);
		return -1;
	}
	qsort_r(evs, nr, sizeof(evs[0]), gp_cmp, (void *)m);
	return nr;
}

/*
 * The matched groups that hold an event into @order, by their lowest
 * level (stable on the group number). Their number.
 */
static int order_groups(const struct matcher *mt, int *order)
{
	int minlvl[MODEL_MAX_GROUPS];
	int n = 0, i, g, c;

	for (g = 0; g < mt->groups; g++) {
		bool used = false;
		int lvl = 0;

		for (c = 0; c < mt->gp; c++) {
			int o = mt->owner[g * mt->gp + c];
			int l = o >= 0 ? mt->m->events[mt->evs[o]].level : 0;

			if (o >= 0 && (!used || l < lvl))
				lvl = l;
			used |= o >= 0;
		}
		if (!used)
			continue;
		/* insertion sort, stable on group number */
		for (i = n; i > 0 && minlvl[i - 1] > lvl; i--) {
			order[i] = order[i - 1];
			minlvl[i] = minlvl[i - 1];
		}
		order[i] = g;
		minlvl[i] = lvl;
		n++;
	}
	return n;
}

/*
 * The @nr GP events @evs in as few groups as the counters allow, after
 * the @p->nr_groups groups already made. 0, or -1 with @err.
 */
static int plan_gp(struct event_plan *p, const int *evs, int nr, char *err,
		   size_t errlen)
{
	int order[MODEL_MAX_GROUPS];
	int first = p->nr_groups, ngroups, i, c, rc = -1;
	struct matcher *mt;

	mt = calloc(1, sizeof(*mt));
	if (!mt) {
		error_set(err, errlen, "out of memory");
		return -1;
	}
	mt->m = p->model;
	mt->evs = evs;
	mt->nr = nr;
	mt->gp = p->gp;
	/* nr groups of one event always match: the loop ends */
	for (mt->groups = (nr + p->gp - 1) / p->gp; !match_all(mt);
	     mt->groups++)
		;
	ngroups = order_groups(mt, order);
	if (first + ngroups > MODEL_MAX_GROUPS) {
		error_set(err, errlen, "model %s: too many groups", mt->m->name);
		goto out;
	}
	for (i = 0; i < ngroups; i++)
		for (c = 0; c < p->gp; c++) {
			int o = mt->owner[order[i] * p->gp + c];

			if (o >= 0 && add_slot(p, evs[o], first + i, c, err,
					       errlen))
				goto out;
		}
	rc = 0;
out:
	free(mt);
	return rc;
}

int plan_events(const struct model *m, int level, bool smt, int gp,
		struct event_plan *p, char *err, size_t errlen)
{
	int evs[MODEL_MAX_EVENTS];
	int nr;

	memset(p, 0, sizeof(*p));
	p->model = m;
	p->level = level;
	p->smt = smt;
	p->gp = gp;
	if (err && errlen)
		err[0] = '\0';

	if (!m->max_level) {
		if (plan_software(m, p, err, errlen))
			return -1;
		plan_finish(p);
		return 0;
	}
	if (level < 1 || level > m->max_level) {
		error_set(err, errlen, "model %s: level %d is not in 1..%d",
			 m->name, level, m->max_level);
		return -1;
	}
	if (gp < 1 || gp > 8) {
		error_set(err, errlen, "model %s: %d general-purpose counters (need 1..8)",
			 m->name, gp);
		return -1;
	}
	if (plan_fixed(m, p, err, errlen))
		return -1;
	nr = gp_events(p, evs, err, errlen);
	if (nr < 0 || (nr && plan_gp(p, evs, nr, err, errlen)))
		return -1;
	plan_finish(p);
	return 0;
}
