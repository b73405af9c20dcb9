// SPDX-License-Identifier: GPL-2.0
/*
 * Sinks (sink.h): the table of outputs, and the one way from a snapshot
 * to a written report that every caller (the run driver, and later a
 * scrape or a repaint) takes.
 */
#include <errno.h>
#include <string.h>
#include "analysis/graph.h"
#include "outputs/outfile.h"
#include "outputs/sink.h"
#include "support/error.h"

const struct sink_ops *const sinks[] = {
	&sink_table,
	&sink_csv,
	&sink_json,
	&sink_dot,
	NULL,
};

const struct sink_ops *sink_find(const char *name)
{
	int i;

	for (i = 0; sinks[i]; i++)
		if (!strcmp(sinks[i]->name, name))
			return sinks[i];
	return NULL;
}

int sink_write(struct sink *s, const struct report *rep)
{
	/* where it starts: a failed report is cut from a file (outfile.c) */
	off_t mark = out_mark(s->f);

	s->ops->write(s, rep);
	return out_check_what(s->f, s->what ? s->what : "the report",
			      s->name, mark);
}

int sink_emit_parts(struct sink *s, const struct report_conf *rc,
		    const struct report_parts *p)
{
	const struct event_plan *plan = rc->plan;
	const struct task_table *src = p->tasks;
	struct task_table folded;
	struct span_table spans;
	struct graph graph;
	struct report rep;
	int err = -ENOMEM;

	memset(&graph, 0, sizeof(graph));
	tasks_init(&folded);
	spans_init(&spans);
	/* over tasks, whose waker slots name tasks; then over names */
	if (rc->wakeups && graph_build(&graph, src, rc->per_name, &rc->look))
		goto out;
	/* spans named after their threads, and folded with them */
	if (spans_fold(p->spans, src, rc->per_name, &spans))
		goto out;
	if (rc->per_name) {
		if (tasks_fold(src, &folded, plan->nr))
			goto out;
		src = &folded;
	}
	if (report_build(&rep, src, plan, rc->level ? rc->level : plan->level,
			 p->duration_ns, rc->sort, rc->top))
		goto out;
	/* before the graph: with no waits, its verdict looks at spans */
	rep.spans = spans.nr ? &spans : NULL;
	if (rc->wakeups)
		report_set_graph(&rep, &graph, src);
	/*
	 * A recording holds only the rows its run printed: the count is
	 * the run's, before its --top; folded again, the names' count.
	 */
	if (!rc->per_name && p->nr_total > rep.nr_total)
		rep.nr_total = p->nr_total;
	rep.interval = p->interval;
	rep.elapsed_ns = p->elapsed_ns;
	rep.lost = *p->lost;
	rep.host = p->host;
	rep.wall_ns = p->wall_ns;
	rep.flows = p->flows;
	rep.cgroups = p->cgroups;
	/* a write error is said where it is seen (outfile.c) */
	err = sink_write(s, &rep);
	if (!err && p->dot && rc->wakeups && graph_write_dot(p->dot, &graph))
		err = -EIO;
	report_free(&rep);
out:
	tasks_free(&folded);
	spans_free(&spans);
	graph_free(&graph);
	return err;
}

int sink_emit(struct sink *s, const struct report_conf *rc,
	      const struct snapshot *snap, __u64 duration_ns, int interval)
{
	const struct report_parts p = {
		.tasks = &snap->tasks,
		.spans = &snap->spans,
		.flows = &snap->flows,
		.cgroups = &snap->cgroups,
		.lost = &snap->lost,
		.host = snap->host,
		.wall_ns = snap->wall_ns,
		.duration_ns = duration_ns,
		/* a window ends at its collect: what -I's CSV prints */
		.elapsed_ns = rc->start_ns && snap->at_ns > rc->start_ns ?
				      snap->at_ns - rc->start_ns :
				      duration_ns,
		.interval = interval,
	};
	int err = sink_emit_parts(s, rc, &p);

	if (err == -ENOMEM)
		errorf("out of memory for the report");
	return err;
}
