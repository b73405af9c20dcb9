/* SPDX-License-Identifier: GPL-2.0 */
/* Events read from the task's own accounting instead of a counter. */
#ifndef TDBPF_TASK_EVENTS_H
#define TDBPF_TASK_EVENTS_H

#include "model/model.h"

/*
 * Fill @t's counter sums of @plan's EV_TASK slots (those from
 * plan->nr_counters on) from @t's own sums: value the count, enabled and
 * running both the task's on-CPU time, so that nothing scales them and
 * they never lower coverage. The BPF record holds no counter there.
 */
void task_events_fill(const struct event_plan *plan, struct tdbpf_task *t);

/* What an EV_TASK event reads from the task, e.g. "nvcsw + nivcsw". */
const char *task_events_source(const struct model_event *e);

#endif /* TDBPF_TASK_EVENTS_H */
