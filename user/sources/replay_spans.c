// SPDX-License-Identifier: GPL-2.0
/*
 * The spans of a recorded report (--span): its "spans" array back into
 * a span table, so that tdbpf report shows them under their threads and
 * folds them as a live run does. Counters come back by the plan's names;
 * what a span has from the task's own accounting (cpu-clock,
 * page-faults of the software model) from its own members.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "sources/replay.h"

static __u64 u64_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	return (__u64)json_object_get_int64(v);
}

static void counters_of(json_object *s, const struct event_plan *p,
			struct tdbpf_span_sums *out)
{
	json_object *ctr, *v;
	int k;

	if (!json_object_object_get_ex(s, "counters", &ctr))
		return;
	/* the task's own (EV_TASK) come from the span's members */
	for (k = 0; k < p->nr && k < TDBPF_MAX_EVENTS; k++)
		if (p->evd[k]->kind != EV_TASK &&
		    json_object_object_get_ex(ctr, p->evd[k]->name, &v))
			out->ctr[k] = (__u64)json_object_get_double(v);
}

int replay_parse_spans(json_object *obj, const struct event_plan *p,
		       struct span_table *out)
{
	json_object *spans, *s, *v;
	struct span_row *r;
	size_t i;

	spans_reset(out);
	if (!json_object_object_get_ex(obj, "spans", &spans) ||
	    !json_object_is_type(spans, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(spans); i++) {
		s = json_object_array_get_idx(spans, i);
		/* the recording's rows are one a (thread, span): an index */
		r = spans_get(out, (__u32)u64_of(s, "tid"),
			      (__u32)u64_of(s, "pid"), i + 1);
		if (!r)
			return -ENOMEM;
		if (json_object_object_get_ex(s, "span", &v))
			snprintf(r->name, sizeof(r->name), "%s",
				 json_object_get_string(v));
		if (json_object_object_get_ex(s, "comm", &v))
			snprintf(r->comm, sizeof(r->comm), "%s",
				 json_object_get_string(v));
		r->s.entries = u64_of(s, "entries");
		r->s.on_cpu_ns = u64_of(s, "on_cpu_ns");
		r->s.runq_ns = u64_of(s, "runq_wait_ns");
		r->s.off_ns = u64_of(s, "blocked_ns") + r->s.runq_ns;
		r->s.faults = u64_of(s, "faults");
		r->s.woke = u64_of(s, "woke");
		r->s.woke_ns = u64_of(s, "woke_wait_ns");
		counters_of(s, p, &r->s);
	}
	return 0;
}
