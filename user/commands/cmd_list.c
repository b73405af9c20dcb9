// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf list: the events a model would program on this machine (or as
 * --model and --smt say), packed into groups, with their encodings.
 */
#include <stdio.h>
#include "commands/cmd.h"
#include "outputs/outfile.h"
#include "sums/task_events.h"
#include "support/json.h"

/* The plan as JSON: its groups, each of its events. */
static void list_json(FILE *out, const struct model *m,
		      const struct event_plan *plan, bool smt)
{
	struct jw w;
	int s, g;

	jw_init(&w, out, true);
	jw_obj(&w, NULL);
	jw_str(&w, "model", m->name);
	jw_bool(&w, "smt", smt);
	jw_int(&w, "level", plan->level);
	jw_int(&w, "gp_counters", plan->gp);
	jw_arr(&w, "groups");
	for (g = 0; g < plan->nr_groups; g++) {
		jw_obj(&w, NULL);
		jw_arr(&w, "events");
		for (s = 0; s < plan->nr; s++) {
			const struct model_event *e = &m->events[plan->ev[s]];

			if (plan->group[s] != g)
				continue;
			jw_obj(&w, NULL);
			jw_str(&w, "name", e->name);
			if (e->kind == EV_TASK) {
				/* no counter: read from the task */
				jw_str(&w, "task", task_events_source(e));
				jw_obj_end(&w);
				continue;
			}
			jw_int(&w, "type", e->type);
			jw_u64(&w, "config", e->config);
			if (e->config1)
				jw_u64(&w, "config1", e->config1);
			if (plan->gp_idx[s] >= 0)
				jw_int(&w, "counter", plan->gp_idx[s]);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
}

/* The plan as text: a line per group, a line per event. */
static void list_text(FILE *out, const struct model *m,
		      const struct event_plan *plan, bool smt)
{
	int s, g;

	fprintf(out, "model %s (%s), SMT %s, level %d: %d events in %d groups, %d GP counters per group\n",
		m->name, m->desc, smt ? "on" : "off", plan->level, plan->nr,
		plan->nr_groups, plan->gp);
	for (g = 0; g < plan->nr_groups; g++) {
		fprintf(out, "group %d:\n", g);
		for (s = 0; s < plan->nr; s++) {
			const struct model_event *e = &m->events[plan->ev[s]];

			if (plan->group[s] != g)
				continue;
			if (e->kind == EV_TASK) {
				fprintf(out, "  %-48s no counter: the task's %s\n",
					e->name, task_events_source(e));
				continue;
			}
			fprintf(out, "  %-48s type %u config 0x%llx", e->name,
				e->type, (unsigned long long)e->config);
			if (e->config1)
				fprintf(out, " config1 0x%llx",
					(unsigned long long)e->config1);
			if (plan->gp_idx[s] >= 0)
				fprintf(out, "  (GP %d)", plan->gp_idx[s]);
			else if (e->kind == EV_FIXED || e->kind == EV_SLOTS)
				fprintf(out, "  (fixed %d)", e->fixed);
			else if (e->kind == EV_METRIC)
				fprintf(out, "  (PERF_METRICS)");
			fputc('\n', out);
		}
	}
}

int cmd_list(const struct options *o, FILE *out)
{
	struct detect_info d = { 0 };
	const struct model *m;
	struct event_plan plan;
	char err[256];
	bool smt;

	if (o->list_events)
		return cmd_list_events(o, out);
	detect_machine("", &d);
	m = o->model ? find_model_or_say(o->model) : d.model;
	if (!m)
		return 2;
	/* which CPU this is, and why its own model is not listed */
	if (!o->model && d.reason[0])
		errorf("%s", d.reason);
	/* a fallback model (generic Arm), the NMI watchdog's counter */
	if (!o->model && d.note[0])
		errorf("%s", d.note);
	if (o->level > m->max_level && m->max_level)
		errorf("warning: %s defines levels 1-%d; listing level %d",
		       m->name, m->max_level, m->max_level);
	smt = o->smt >= 0 ? o->smt : d.smt;
	if (plan_events(m, level_for(m, o->level), smt,
			gp_budget(m, smt, &d), &plan, err, sizeof(err))) {
		errorf("%s", err);
		return 1;
	}
	/* all checked: now the -o file may be emptied (outfile.h) */
	out_mark(out);
	if (o->json)
		list_json(out, m, &plan, smt);
	else
		list_text(out, m, &plan, smt);
	return 0;
}
