// SPDX-License-Identifier: GPL-2.0
/* Snapshots (snapshot.h): a task table and the loss counters, by value. */
#include <errno.h>
#include <string.h>
#include "sums/snapshot.h"
#include "support/array.h"

#define LOST_KEY(n, f)	{ n, offsetof(struct lost_stats, f) }
const struct lost_key lost_keys[] = {
	LOST_KEY("map_full", map_full),
	LOST_KEY("read_errors", read_errors),
	LOST_KEY("unseen_switch_ins", unseen_switch_ins),
	LOST_KEY("wakers", wakers),
	LOST_KEY("wakeups_missed", wakeups_missed),
	LOST_KEY("sockets_unresolved", sock_unresolved),
	LOST_KEY("spans_lost", spans_lost),
	LOST_KEY("span_exits_unmatched", span_exits_unmatched),
	LOST_KEY("spans_too_deep", spans_too_deep),
	LOST_KEY("sockets_evicted", sock_evicted),
};
#undef LOST_KEY
const size_t nr_lost_keys = ARRAY_SIZE(lost_keys);

void snapshot_init(struct snapshot *s, int nr_ev)
{
	memset(s, 0, sizeof(*s));
	tasks_init(&s->tasks);
	tasks_set_events(&s->tasks, nr_ev);
	flows_init(&s->flows);
	cgroups_init(&s->cgroups);
	spans_init(&s->spans);
}

void snapshot_reset(struct snapshot *s)
{
	tasks_reset(&s->tasks);
	memset(&s->lost, 0, sizeof(s->lost));
	s->at_ns = 0;
	s->wall_ns = 0;
	s->host[0] = 0;
	flows_reset(&s->flows);
	cgroups_reset(&s->cgroups);
	spans_reset(&s->spans);
}

/* What a snapshot holds as state, not as sums: @cur's, as they are. */
static int copy_state(struct snapshot *dst, const struct snapshot *src)
{
	if (dst == src)
		return 0;
	memcpy(dst->host, src->host, sizeof(dst->host));
	dst->wall_ns = src->wall_ns;
	if (cgroups_copy(&dst->cgroups, &src->cgroups))
		return -ENOMEM;
	return flows_copy(&dst->flows, &src->flows);
}

void snapshot_free(struct snapshot *s)
{
	tasks_free(&s->tasks);
	flows_free(&s->flows);
	cgroups_free(&s->cgroups);
	spans_free(&s->spans);
}

int snapshot_copy(struct snapshot *dst, const struct snapshot *src)
{
	snapshot_reset(dst);
	dst->lost = src->lost;
	dst->at_ns = src->at_ns;
	if (copy_state(dst, src) || spans_copy(&dst->spans, &src->spans))
		return -ENOMEM;
	return tasks_merge(&dst->tasks, &src->tasks, src->tasks.nr_ev);
}

int snapshot_diff(const struct snapshot *cur, const struct snapshot *base,
		  struct snapshot *out)
{
	out->lost = cur->lost;
	out->at_ns = cur->at_ns;
	if (copy_state(out, cur) || spans_copy(&out->spans, &cur->spans))
		return -ENOMEM;
	spans_sub(&out->spans, base ? &base->spans : NULL);
	return tasks_diff(&cur->tasks, base ? &base->tasks : NULL, &out->tasks,
			  cur->tasks.nr_ev);
}

int snapshot_sub(struct snapshot *cur, const struct snapshot *base)
{
	spans_sub(&cur->spans, base ? &base->spans : NULL);
	return tasks_sub(&cur->tasks, base ? &base->tasks : NULL);
}
