// SPDX-License-Identifier: GPL-2.0
/*
 * CSV in the conventions of perf stat -x SEP --per-thread: one line per
 * task and value, the task named first as perf does ("comm-tid"):
 *
 *   [TIME SEP] COMM-TID SEP VALUE SEP UNIT SEP EVENT SEP RUN SEP PCT
 *
 * TIME       only with -I, as perf stat -I -x: an interval's end in seconds
 *            since the run's start ("%.9f"), "summary" for the whole run's
 *            lines that follow the intervals (perf stat --summary's mark),
 *            so that every line of the file has the same fields.
 * COMM-TID   the thread name, '-', the tid; a folded row (--per-name) of
 *            several tasks has tid 0 ("worker-*-0").
 * VALUE      counters: the scaled count (sum(value) * sum(enabled) /
 *            sum(running)), "%.0f", or "%.2f" in msec for msec events
 *            (cpu-clock counts ns; perf prints msec); "<not counted>"
 *            when the counter was enabled but never ran for the task.
 * UNIT       "msec", "ns", "%" or empty.
 * EVENT      the model's event name, a scheduling pseudo-event, or a TMA
 *            metric (perf's tma_* name).
 * RUN        counters: the group's running time in ns (the leader's, as
 *            the group counts together); everything else: the task's
 *            on-CPU ns.
 * PCT        counters: 100 * running / enabled ("%.2f", 100.00 when the
 *            task never had the counter enabled); scheduling values are
 *            exact: 100.00; metrics: the task's coverage in percent.
 *
 * Per task, in this order: the scheduling pseudo-events on_cpu_ns,
 * runq_wait_ns, off_cpu_ns (unit ns), switches (voluntary + involuntary),
 * voluntary, involuntary, migrations, uncounted_ns (on-CPU ns whose
 * switch-in was unseen, so no counter was read for it), window_gap_ns
 * (on-CPU ns the kernel charged outside the counted slices' windows,
 * signed); for a task in a container, container_id and, where its cgroup
 * names one, pod_uid, whose VALUE is the id itself (64 hex digits, a
 * UUID: sources/cgroup_path.h), no unit, RUN the on-CPU ns; one line per
 * programmed counter;
 * then, when the model has a TMA tree, one line per tma_* node down to
 * the report's level, in percent, neither clamped nor rounded beyond
 * "%.2f". With wakeups traced, the task's waits by waker follow its
 * scheduling lines: wait_ns:WAKER (unit ns) and wakeups:WAKER, WAKER a
 * "comm-tid" or a kind ("timer", "irq", "unseen": docs/graph.md), RUN the
 * task's blocked ns and PCT the share of it; and a comment line
 * "# bottleneck: COMM-TID: REASON; ..." comes first. When tasks or
 * counter reads were lost a comment line
 * "# lost: N tasks (map full), M counter reads" comes first, as perf
 * starts -x output with '#' comment lines. With --span, each span of a
 * task follows it, as COMM/SPAN-TID (write_span()).
 *
 * Names can hold any byte: control bytes and every character of SEP are
 * written as '?', so each line has exactly 6 fields (7 with -I).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "analysis/graph.h"
#include "analysis/report.h"
#include "analysis/report_ahead.h"
#include "outputs/sink.h"
#include "sums/cgroups.h"
#include "support/text.h"

struct csv_ctx {
	FILE *f;
	const char *sep;
	bool series;		/* -I: every line starts with its window */
	char prefix[192];	/* "[TIME SEP] COMM-TID" */
	int skip;		/* the prefix's "TIME SEP" bytes */
};

static void line_u64(const struct csv_ctx *x, __u64 v, const char *unit,
		     const char *event, __u64 run)
{
	fprintf(x->f, "%s%s%llu%s%s%s%s%s%llu%s100.00\n", x->prefix, x->sep,
		(unsigned long long)v, x->sep, unit, x->sep, event, x->sep,
		(unsigned long long)run, x->sep);
}

static void line_i64(const struct csv_ctx *x, __s64 v, const char *unit,
		     const char *event, __u64 run)
{
	fprintf(x->f, "%s%s%lld%s%s%s%s%s%llu%s100.00\n", x->prefix, x->sep,
		(long long)v, x->sep, unit, x->sep, event, x->sep,
		(unsigned long long)run, x->sep);
}

static void line_double(const struct csv_ctx *x, double v, const char *fmt,
			const char *unit, const char *event, __u64 run,
			double pct)
{
	char val[64];

	if (!fmt)
		snprintf(val, sizeof(val), "<not supported>");
	else if (isfinite(v))
		snprintf(val, sizeof(val), fmt, v);
	else
		snprintf(val, sizeof(val), "<not counted>");
	fprintf(x->f, "%s%s%s%s%s%s%s%s%llu%s%.2f\n", x->prefix, x->sep, val,
		x->sep, unit, x->sep, event, x->sep, (unsigned long long)run,
		x->sep, pct);
}

/* One line of an edge: @value, in @unit ("" for a count), as WHAT:WHO */
static void write_edge_line(const struct csv_ctx *x, const char *what,
			    const char *who, __u64 value, const char *unit,
			    __u64 blocked, double pct)
{
	char ev[GRAPH_NAME_LEN + 32];

	snprintf(ev, sizeof(ev), "%s:%s", what, who);
	text_printable(ev, sizeof(ev), ev, x->sep, 0);
	fprintf(x->f, "%s%s%llu%s%s%s%s%s%llu%s%.2f\n", x->prefix, x->sep,
		(unsigned long long)value, x->sep, unit, x->sep, ev, x->sep,
		(unsigned long long)blocked, x->sep, pct);
}

/*
 * The graph's edges into this task, two lines each: wait_ns:WAKER (ns)
 * and wakeups:WAKER, WAKER being "comm-tid" or a kind ("timer"); RUN is
 * the task's blocked time, PCT the edge's share of it. A hold of the CPU
 * is cpu_ns:HOLDER and holds:HOLDER, its RUN the task's run-queue time.
 */
static void write_waits(struct csv_ctx *x, const struct report *rep,
			const struct task_row *r)
{
	const struct graph *g = rep->graph;
	int n = graph_node_of(g, r), i;
	char who[GRAPH_NAME_LEN + 16];

	for (i = 0; n >= 0 && i < g->nodes[n].nr_in; i++) {
		const struct graph_edge *e = &g->edges[g->nodes[n].first_in + i];
		bool hold = graph_edge_holds(e);
		/* a hold is run-queue time: a share of that */
		__u64 blocked = hold ? g->nodes[n].runq_ns :
				       g->nodes[n].blocked_ns;
		double pct = blocked ? 100.0 * e->wait_ns / blocked : 0;

		if (e->waker >= 0)
			snprintf(who, sizeof(who), "%s-%u",
				 g->nodes[e->waker].name,
				 g->nodes[e->waker].tid);
		else
			snprintf(who, sizeof(who), "%s",
				 graph_waker_name(g, e));
		write_edge_line(x, hold ? "cpu_ns" : "wait_ns", who,
				e->wait_ns, "ns", blocked, pct);
		write_edge_line(x, hold ? "holds" : "wakeups", who,
				e->wakeups, "", blocked, pct);
	}
}

/* The container (and pod) of @r's process, as text values. */
static void write_container(const struct csv_ctx *x, const struct report *rep,
			    const struct task_row *r)
{
	const struct task_cgroup *c;

	c = rep->cgroups ? cgroups_find(rep->cgroups, r->pid) : NULL;
	if (!c || !c->id[0])
		return;
	fprintf(x->f, "%s%s%s%s%scontainer_id%s%llu%s100.00\n", x->prefix,
		x->sep, c->id, x->sep, x->sep, x->sep,
		(unsigned long long)r->sched.on_cpu_ns, x->sep);
	if (c->pod[0])
		fprintf(x->f, "%s%s%s%s%spod_uid%s%llu%s100.00\n", x->prefix,
			x->sep, c->pod, x->sep, x->sep, x->sep,
			(unsigned long long)r->sched.on_cpu_ns, x->sep);
}

static void write_task(struct csv_ctx *x, const struct report *rep,
		       const struct task_decoded *d)
{
	const struct task_row *r = d->row;
	const struct event_plan *p = rep->plan;
	const struct model *m = p ? p->model : NULL;
	char comm[TDBPF_NAME_MAX], name[128];
	int order[TDBPF_MAX_EVENTS];
	int n = 0, s, i, k;

	/* the task as perf names it, "comm-tid": its whole name if any */
	text_printable(comm, sizeof(comm), task_name(r), x->sep, 0);
	if (rep->interval >= 0)
		n = snprintf(x->prefix, sizeof(x->prefix), "%.9f%s",
			     rep->elapsed_ns / 1e9, x->sep);
	else if (x->series)
		n = snprintf(x->prefix, sizeof(x->prefix), "summary%s",
			     x->sep);
	x->skip = n;
	snprintf(x->prefix + n, sizeof(x->prefix) - n, "%s-%u", comm, r->tid);

	line_u64(x, r->sched.on_cpu_ns, "ns", "on_cpu_ns", r->sched.on_cpu_ns);
	line_u64(x, r->sched.runq_wait_ns, "ns", "runq_wait_ns", r->sched.on_cpu_ns);
	line_u64(x, r->sched.off_cpu_ns, "ns", "off_cpu_ns", r->sched.on_cpu_ns);
	line_u64(x, r->sched.nvcsw + r->sched.nivcsw, "", "switches", r->sched.on_cpu_ns);
	line_u64(x, r->sched.nvcsw, "", "voluntary", r->sched.on_cpu_ns);
	line_u64(x, r->sched.nivcsw, "", "involuntary", r->sched.on_cpu_ns);
	line_u64(x, r->sched.migrations, "", "migrations", r->sched.on_cpu_ns);
	line_u64(x, r->sched.uncounted_ns, "ns", "uncounted_ns", r->sched.on_cpu_ns);
	line_i64(x, r->sched.window_gap_ns, "ns", "window_gap_ns", r->sched.on_cpu_ns);
	write_container(x, rep, r);

	if (p)
		plan_display_order(p, order);
	for (k = 0; p && k < p->nr && k < TDBPF_MAX_EVENTS; k++) {
		const struct model_event *e = p->evd[s = order[k]];
		const struct tdbpf_count *t = slot_times(p, r, s);
		double v = d->ev[s], pct;
		bool msec = e->unit && !strcmp(e->unit, "msec");

		pct = t->enabled ? 100.0 * t->running / t->enabled : 100.0;
		if (!isfinite(v))
			pct = 0;
		text_printable(name, sizeof(name), e->name, x->sep, 0);
		/* perf's -x: "<not supported>" in the value field */
		line_double(x, msec ? v / 1e6 : v,
			    e->kind == EV_UNSUP ? NULL : msec ? "%.2f" : "%.0f",
			    e->unit ? e->unit : "", name,
			    isfinite(v) ? t->running : 0, pct);
	}

	if (rep->graph)
		write_waits(x, rep, r);
	if (!d->has_tma)
		return;
	for (i = 0; i < m->nr_nodes && i < MODEL_MAX_NODES; i++) {
		if (m->nodes[i].level > rep->level)
			continue;
		text_printable(name, sizeof(name), m->nodes[i].name, x->sep, 0);
		line_double(x, d->tma.val[i] * 100, "%.2f", "%", name,
			    r->sched.on_cpu_ns, d->coverage * 100);
	}
}

/*
 * --span: each span of the task just written, named COMM/SPAN-TID, RUN
 * its on-CPU ns: on_cpu_ns, runq_wait_ns, off_cpu_ns (blocked), entries,
 * woke and woke_wait_ns (the waits it ended), entries_per_s,
 * entries_per_cpu_s, then its counters (unscaled).
 */
static void write_span(struct csv_ctx *x, const struct report *rep,
		       const struct span_row *sp)
{
	const struct tdbpf_span_sums *v = &sp->s;
	const struct event_plan *p = rep->plan;
	double secs = rep->duration_ns / 1e9, cpu = v->on_cpu_ns / 1e9;
	char path[80], name[128];
	int k;

	/* the prefix's time stays; its name becomes the span's */
	snprintf(path, sizeof(path), "%s/%s", sp->comm, sp->name);
	text_printable(name, sizeof(name), path, x->sep, 0);
	snprintf(x->prefix + x->skip, sizeof(x->prefix) - (size_t)x->skip,
		 "%s-%u", name, sp->tid);
	line_u64(x, v->on_cpu_ns, "ns", "on_cpu_ns", v->on_cpu_ns);
	line_u64(x, v->runq_ns, "ns", "runq_wait_ns", v->on_cpu_ns);
	line_u64(x, span_blocked_ns(v), "ns", "off_cpu_ns", v->on_cpu_ns);
	line_u64(x, v->entries, "", "entries", v->on_cpu_ns);
	line_u64(x, v->woke, "", "woke", v->on_cpu_ns);
	line_u64(x, v->woke_ns, "ns", "woke_wait_ns", v->on_cpu_ns);
	line_double(x, secs > 0 ? v->entries / secs : 0, "%.3f", "/s",
		    "entries_per_s", v->on_cpu_ns, 100);
	line_double(x, cpu > 0 ? v->entries / cpu : 0, "%.3f", "/s",
		    "entries_per_cpu_s", v->on_cpu_ns, 100);
	for (k = 0; p && k < p->nr && k < TDBPF_MAX_EVENTS; k++) {
		const struct model_event *e = p->evd[k];
		bool msec = e->unit && !strcmp(e->unit, "msec");
		double c = span_slot(p, k, v);

		if (!isfinite(c))
			continue;
		text_printable(name, sizeof(name), e->name, x->sep, 0);
		line_double(x, msec ? c / 1e6 : c, msec ? "%.2f" : "%.0f",
			    e->unit ? e->unit : "", name, v->on_cpu_ns, 100);
	}
}

static void write_spans(struct csv_ctx *x, const struct report *rep,
			const struct task_row *r)
{
	size_t i;

	for (i = 0; rep->spans && i < rep->spans->nr; i++)
		if (span_of(&rep->spans->row[i], r))
			write_span(x, rep, &rep->spans->row[i]);
}

void report_write_csv(FILE *f, const struct report *rep, const char *sep,
		      bool series)
{
	struct csv_ctx x = { .f = f, .sep = sep && *sep ? sep : ",",
			     .series = series };
	const struct task_decoded *d;
	struct report_ahead a;

	if (rep->lost.map_full || rep->lost.read_errors)
		fprintf(f,
			"# lost: %llu tasks (map full), %llu counter reads\n",
			(unsigned long long)rep->lost.map_full,
			(unsigned long long)rep->lost.read_errors);
	if (rep->nr_verdict) {
		const struct graph_node *n =
			&rep->graph->nodes[rep->verdict[0].node];
		char name[sizeof(n->name)];

		text_printable(name, sizeof(name), n->name, NULL, 0);
		if (rep->verdict[0].alone)
			fprintf(f, "# bottleneck: %s-%u: %s; no task waits on another, it runs the most\n",
				name, n->tid, rep->verdict[0].reason);
		else
			fprintf(f, "# bottleneck: %s-%u: %s; %d %s waits lead to it (%.0f%% of their blocked time); busy %.0f%% of %s time\n",
				name, n->tid, rep->verdict[0].reason,
				n->nr_sources,
				n->nr_sources == 1 ? "task's" : "tasks'",
				100.0 * graph_share(rep->graph,
						    rep->verdict[0].node),
				100.0 * n->busy,
				n->nr_tasks > 1 ? "their" : "its");
	}
	report_ahead_start(&a, rep);
	while ((d = report_ahead_next(&a))) {
		write_task(&x, rep, d);
		write_spans(&x, rep, d->row);
	}
	report_ahead_stop(&a);
}

static void csv_write(struct sink *s, const struct report *rep)
{
	report_write_csv(s->f, rep, s->sep, s->intervals);
}

const struct sink_ops sink_csv = {
	.name = "csv",
	.write = csv_write,
};
