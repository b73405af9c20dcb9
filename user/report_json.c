// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output, streamed: one document, each task decoded and written in
 * turn, so that 10,000 tasks never sit in memory as one tree.
 *
 * {
 *   "model": "software", "level": 0, "smt": false,
 *   "duration_ns": 5000000000,
 *   "interval": 3,                 only in interval reports (-I)
 *   "lost": { "map_full": 0, "read_errors": 0,
 *             "unseen_switch_ins": 0 },  slices charged whose switch-in
 *                                  no sched_switch event showed: their
 *                                  counts are extrapolated (uncounted_ns)
 *   "nr_total": 14,                tasks before --top
 *   "tasks": [ {
 *     "tid": 1234, "pid": 1230,    tid 0 for a folded row of several
 *     "comm": "worker-1",          tasks, pid 0 when they differ
 *     "on_cpu_ns", "runq_wait_ns", "off_cpu_ns": integers,
 *     "switches": voluntary + involuntary,
 *     "voluntary", "involuntary", "migrations": integers,
 *     "exited": bool,
 *     "nr_tasks": N,               only for folded rows (--per-name)
 *     "uncounted_ns": integer,     on-CPU time in slices whose switch-in
 *                                  was unseen (running at attach, or a
 *                                  switch the kernel did not trace): no
 *                                  counter was read for it; it lowers
 *                                  coverage as multiplexing does
 *     "coverage": 0..1,            min running/enabled over the groups,
 *                                  6 decimals
 *     "low_coverage": bool,
 *     "sched": "-" | "CPU-starved" | "blocked" | "idle",
 *     "counters": { EVENT: scaled count, in the event's raw unit
 *                   (cpu-clock in ns), to the nearest whole count; null
 *                   when never counted },
 *     "metrics": { tma_NAME: percent (value * 100, not clamped), to 6
 *                  decimals; null when not computable }
 *                                  only when the model decodes,
 *     "bottleneck": what the table's BOTTLENECK column says
 *   } ]
 * }
 *
 * Pretty (-j) puts one member per line, indented by depth; interval
 * reports (-I) put the whole document on one line.
 *
 * Thread names can hold any byte, and JSON must be valid UTF-8: each
 * byte that does not belong to a valid UTF-8 sequence becomes U+FFFD,
 * control characters are escaped. NaN and infinities have no JSON
 * spelling: they become null. A scaled count is an extrapolation and a
 * metric a ratio of such counts: printing them to 17 digits would claim a
 * precision they do not have, and formatting every double so (about 1 us
 * each) made a report of 10,000 multiplexed tasks take over a second.
 * So counts print rounded to whole counts and fractions to 6 decimals,
 * both exactly as printf's "%.0f" and "%.6f" round (fmt_fixed()), the
 * fractions without trailing zeros. Counts past 2^53, where a double no
 * longer holds every integer, print with the fewest of 15 to 17
 * significant digits that read back as the same double. `tdbpf decode
 * -j` keeps every metric's exact value (jw_double()). tdbpf never calls
 * setlocale(): the decimal point is '.'.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "report.h"
#include "sink.h"

/* The report's counter and metric names, and their prefixes once used. */
struct json_ctx {
	const char *ctr_names[TDBPF_MAX_EVENTS];
	int ctr_slot[TDBPF_MAX_EVENTS];	/* the plan slot of each */
	int nr_ctr;
	const char *node_names[MODEL_MAX_NODES];
	int node_idx[MODEL_MAX_NODES];
	int nr_node;
	struct jw_keys ctr, node;
	bool built_ctr, built_node, failed;
};

static void write_task(struct jw *w, struct json_ctx *x,
		       const struct task_decoded *d)
{
	const struct task_row *r = d->row;
	int s, i;

	jw_obj(w, NULL);
	jw_u64(w, "tid", r->tid);
	jw_u64(w, "pid", r->pid);
	jw_str(w, "comm", r->comm);
	jw_u64(w, "on_cpu_ns", r->sched.on_cpu_ns);
	jw_u64(w, "runq_wait_ns", r->sched.runq_wait_ns);
	jw_u64(w, "off_cpu_ns", r->sched.off_cpu_ns);
	jw_u64(w, "switches", r->sched.nvcsw + r->sched.nivcsw);
	jw_u64(w, "voluntary", r->sched.nvcsw);
	jw_u64(w, "involuntary", r->sched.nivcsw);
	jw_u64(w, "migrations", r->sched.migrations);
	jw_bool(w, "exited", r->exited);
	if (r->nr_tasks > 1)
		jw_int(w, "nr_tasks", r->nr_tasks);
	jw_u64(w, "uncounted_ns", r->sched.uncounted_ns);
	jw_num(w, "coverage", d->coverage, 6);
	jw_bool(w, "low_coverage", d->low_coverage);
	jw_str(w, "sched", sched_verdict_str(d->sched));

	jw_obj(w, "counters");
	if (!x->built_ctr && !x->failed) {
		/* out of memory: member by member, as before */
		x->failed = jw_keys_build(&x->ctr, w, x->ctr_names, x->nr_ctr);
		x->built_ctr = !x->failed;
	}
	for (s = 0; s < x->nr_ctr; s++) {
		double v = d->ev[x->ctr_slot[s]];

		if (x->built_ctr)
			jw_num_keyed(w, &x->ctr, s, v, 0);
		else
			jw_num(w, x->ctr_names[s], v, 0);
	}
	jw_obj_end(w);

	if (d->has_tma) {
		jw_obj(w, "metrics");
		if (!x->built_node && !x->failed) {
			x->failed = jw_keys_build(&x->node, w, x->node_names,
						  x->nr_node);
			x->built_node = !x->failed;
		}
		for (i = 0; i < x->nr_node; i++) {
			double v = d->tma.val[x->node_idx[i]] * 100;

			if (x->built_node)
				jw_num_keyed(w, &x->node, i, v, 6);
			else
				jw_num(w, x->node_names[i], v, 6);
		}
		jw_obj_end(w);
	}
	jw_str(w, "bottleneck", d->bottleneck);
	jw_obj_end(w);
}

void report_write_json(FILE *f, const struct report *rep, bool line)
{
	const struct event_plan *p = rep->plan;
	const struct model *m = p ? p->model : NULL;
	struct json_ctx ctx, *x = &ctx;
	struct task_decoded d;
	struct jw w;
	int i;

	/* the members each task repeats: the plan's slots, the tree's nodes */
	memset(x, 0, sizeof(*x));
	if (p)
		plan_display_order(p, x->ctr_slot);
	for (i = 0; p && i < p->nr && i < TDBPF_MAX_EVENTS; i++)
		x->ctr_names[x->nr_ctr++] = p->evd[x->ctr_slot[i]]->name;
	for (i = 0; m && i < m->nr_nodes && i < MODEL_MAX_NODES; i++)
		if (m->nodes[i].level <= rep->level) {
			x->node_idx[x->nr_node] = i;
			x->node_names[x->nr_node++] = m->nodes[i].name;
		}
	jw_init(&w, f, !line);
	jw_obj(&w, NULL);
	jw_str(&w, "model", p && p->model ? p->model->name : "none");
	jw_int(&w, "level", rep->level);
	jw_bool(&w, "smt", p && p->smt);
	jw_u64(&w, "duration_ns", rep->duration_ns);
	if (rep->interval >= 0)
		jw_int(&w, "interval", rep->interval);
	jw_obj(&w, "lost");
	jw_u64(&w, "map_full", rep->lost.map_full);
	jw_u64(&w, "read_errors", rep->lost.read_errors);
	jw_u64(&w, "unseen_switch_ins", rep->lost.unseen_switch_ins);
	jw_obj_end(&w);
	jw_int(&w, "nr_total", rep->nr_total);

	jw_arr(&w, "tasks");
	for (i = 0; i < rep->nr; i++) {
		report_decode_task(rep, i, &d);
		write_task(&w, x, &d);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
	jw_keys_free(&x->ctr);
	jw_keys_free(&x->node);
}

static void json_write(struct sink *s, const struct report *rep)
{
	/* a series of interval reports is JSON lines */
	report_write_json(s->f, rep, s->intervals);
}

const struct sink_ops sink_json = {
	.name = "json",
	.write = json_write,
};
