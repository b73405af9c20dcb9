// SPDX-License-Identifier: GPL-2.0
/* Snapshots (snapshot.h): a task table and the loss counters, by value. */
#include <string.h>
#include "sums/snapshot.h"

void snapshot_init(struct snapshot *s, int nr_ev)
{
	memset(s, 0, sizeof(*s));
	tasks_init(&s->tasks);
	tasks_set_events(&s->tasks, nr_ev);
}

void snapshot_reset(struct snapshot *s)
{
	tasks_reset(&s->tasks);
	memset(&s->lost, 0, sizeof(s->lost));
	s->at_ns = 0;
}

void snapshot_free(struct snapshot *s)
{
	tasks_free(&s->tasks);
}

int snapshot_copy(struct snapshot *dst, const struct snapshot *src)
{
	snapshot_reset(dst);
	dst->lost = src->lost;
	dst->at_ns = src->at_ns;
	return tasks_merge(&dst->tasks, &src->tasks, src->tasks.nr_ev);
}

int snapshot_diff(const struct snapshot *cur, const struct snapshot *base,
		  struct snapshot *out)
{
	out->lost = cur->lost;
	out->at_ns = cur->at_ns;
	return tasks_diff(&cur->tasks, base ? &base->tasks : NULL, &out->tasks,
			  cur->tasks.nr_ev);
}

int snapshot_sub(struct snapshot *cur, const struct snapshot *base)
{
	return tasks_sub(&cur->tasks, base ? &base->tasks : NULL);
}
