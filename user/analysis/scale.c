// SPDX-License-Identifier: GPL-2.0
/* Counter scaling (scale.h): report.c and prom.c both scale with it. */
#include <math.h>
#include "analysis/scale.h"

double scale_count(const struct tdbpf_count *c)
{
	/* software events and unmultiplexed groups: exact, no rounding */
	if (c->enabled == c->running)
		return (double)c->value;
	/* enabled but never on a counter: perf's <not counted> */
	if (!c->running)
		return NAN;
	return (double)c->value * ((double)c->enabled / (double)c->running);
}

/* The slot whose times @slot is scaled with: its group's leader. */
static int leader_of(const struct event_plan *plan, int slot)
{
	int g = plan->group[slot];

	if (g >= 0 && g < plan->nr_groups && plan->leader[g] >= 0 &&
	    plan->leader[g] < plan->nr)
		return plan->leader[g];
	return slot;
}

const struct tdbpf_count *slot_times(const struct event_plan *plan,
				     const struct task_row *row, int slot)
{
	return &row->ctr[leader_of(plan, slot)];
}

void scale_slots(const struct event_plan *plan, const struct tdbpf_count *ctr,
		 double *out)
{
	double ratio[MODEL_MAX_GROUPS];
	int s, g, nr_groups;

	/*
	 * A group's members scale by their leader's enabled / running: the
	 * same division for every member, done once per group (the same
	 * double scale_count() would compute for each).
	 */
	nr_groups = plan->nr_groups < MODEL_MAX_GROUPS ? plan->nr_groups :
							  MODEL_MAX_GROUPS;
	for (g = 0; g < nr_groups; g++) {
		int l = plan->leader[g];
		const struct tdbpf_count *c;

		if (l < 0 || l >= plan->nr)
			continue;
		c = &ctr[l];
		ratio[g] = c->running && c->enabled != c->running ?
				   (double)c->enabled / (double)c->running :
				   1.0;
	}
	for (s = 0; s < plan->nr && s < TDBPF_MAX_EVENTS; s++) {
		const struct tdbpf_count *t = &ctr[leader_of(plan, s)];
		double v = (double)ctr[s].value;

		g = plan->group[s];
		if (plan->evd[s]->kind == EV_UNSUP)
			out[s] = NAN;		/* perf's <not supported> */
		else if (t->enabled == t->running)
			out[s] = v;		/* exact, no rounding */
		else if (!t->running)
			out[s] = NAN;		/* perf's <not counted> */
		else if (g >= 0 && g < nr_groups && plan->leader[g] >= 0 &&
			 plan->leader[g] < plan->nr)
			out[s] = v * ratio[g];	/* t is the leader's */
		else
			out[s] = v * ((double)t->enabled / (double)t->running);
	}
}
