// SPDX-License-Identifier: GPL-2.0
/*
 * The software model's events are numbers the kernel keeps per task; the
 * BPF program reads them at each switch-out into the task's sums (on-CPU
 * time, faults, switches, migrations), and here they become counter slots
 * like any other, so that every writer, the interval deltas and name
 * folding treat them as counts.
 */
#include "sums/task_events.h"

static __u64 field(const struct tdbpf_task *t, __u64 which)
{
	switch (which) {
	case TF_ON_CPU:
		return t->sched.on_cpu_ns;
	case TF_FAULTS:
		return t->faults;
	case TF_SWITCHES:
		return t->sched.nvcsw + t->sched.nivcsw;
	case TF_MIGRATIONS:
		return t->sched.migrations;
	default:
		return 0;
	}
}

const char *task_events_source(const struct model_event *e)
{
	switch (e->config1) {
	case TF_ON_CPU:
		return "se.sum_exec_runtime";
	case TF_FAULTS:
		return "min_flt + maj_flt";
	case TF_SWITCHES:
		return "nvcsw + nivcsw";
	case TF_MIGRATIONS:
		return "se.nr_migrations";
	default:
		return "?";
	}
}

void task_events_fill(const struct event_plan *plan, struct tdbpf_task *t)
{
	int s;

	for (s = plan->nr_counters; s < plan->nr && s < TDBPF_MAX_EVENTS;
	     s++) {
		/* <not supported>: never counted, never enabled */
		if (plan->evd[s]->kind != EV_TASK) {
			t->ctr[s] = (struct tdbpf_count){ 0 };
			continue;
		}
		t->ctr[s].value = field(t, plan->evd[s]->config1);
		t->ctr[s].enabled = t->sched.on_cpu_ns;
		t->ctr[s].running = t->sched.on_cpu_ns;
	}
}
