/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counter scaling, the one way every report and /metrics turns summed
 * (value, enabled, running) into an estimate: value x enabled / running,
 * a group's members with their leader's times (they are scheduled with
 * it), exact when never multiplexed, NAN (perf's <not counted>) when
 * enabled but never running.
 */
#ifndef TDBPF_SCALE_H
#define TDBPF_SCALE_H

#include "model/model.h"
#include "sums/tasks.h"
#include "tdbpf.h"

/* Scale one counter slot: sum(value) * sum(enabled) / sum(running). */
double scale_count(const struct tdbpf_count *c);
/*
 * The enabled and running times of plan slot @slot of @row: its group
 * leader's, as members are scheduled with their leader.
 */
const struct tdbpf_count *slot_times(const struct event_plan *plan,
				     const struct task_row *row, int slot);
/*
 * Every programmed slot of @ctr (plan->nr, at most TDBPF_MAX_EVENTS),
 * scaled into @out: what scale_count() gives for the slot's value with
 * its leader's times, the leader's ratio computed once per group.
 */
void scale_slots(const struct event_plan *plan, const struct tdbpf_count *ctr,
		 double *out);

#endif /* TDBPF_SCALE_H */
